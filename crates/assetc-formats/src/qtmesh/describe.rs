//! A readable dump. Lines and labels follow Qt's `meshdebug` so the two can be compared
//! line by line; levels of detail and the target buffer, which `meshdebug` 6.4 does not
//! know, are added in the same style.

use super::read::HEADER_SIZE;
use super::{component, write, QtMeshFile, VertexEntry, CONTAINER_FILE_ID, CONTAINER_VERSION};
use super::{winding, MESH_FILE_ID};
use std::fmt::Write;

pub fn describe(file: &QtMeshFile) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = describe_into(&mut s, file);
    s
}

fn describe_into(s: &mut String, file: &QtMeshFile) -> std::fmt::Result {
    writeln!(s, " -- Multiheader --")?;
    writeln!(s, "fileId: {CONTAINER_FILE_ID}")?;
    writeln!(s, "version: {CONTAINER_VERSION}")?;
    writeln!(s, "mesh entries: {}", file.meshes.len())?;
    // Offsets and sizes are those the mesh has when laid out at its own version, which
    // is where a file written by Qt keeps it.
    // Offsets are decimal here; meshdebug prints them in hex without a prefix.
    let mut offset = Some(0usize);
    for (id, mesh) in &file.meshes {
        let mut bytes = Vec::new();
        let laid_out = write::write_mesh(&mut bytes, mesh, mesh.version).is_ok();
        writeln!(s, "\t -- mesh entry --")?;
        writeln!(s, "\tid: {id}")?;
        match offset {
            Some(o) if laid_out => {
                writeln!(s, "\toffset: {o}")?;
                offset = Some(o + bytes.len());
            }
            _ => offset = None,
        }
        writeln!(s, "\t -- MeshDataHeader --")?;
        writeln!(s, "\tfileId: {MESH_FILE_ID}")?;
        writeln!(s, "\tfileVersion: {}", mesh.version)?;
        writeln!(s, "\tflags: {}", mesh.header_flags)?;
        if laid_out {
            writeln!(s, "\tsize in bytes: {}", bytes.len() - HEADER_SIZE)?;
        }
        writeln!(s, "\t\tdraw mode: {}", mesh.draw_mode)?;
        let wind = match mesh.winding {
            winding::CLOCKWISE => "Clockwise".to_string(),
            winding::COUNTER_CLOCKWISE => "CounterClockwise".to_string(),
            other => format!("Unknown({other})"),
        };
        writeln!(s, "\t\twinding: {wind}")?;
        let vb = &mesh.vertex_buffer;
        writeln!(s, "\t\t -- Vertex Buffer --")?;
        writeln!(s, "\t\tentry count: {}", vb.entries.len())?;
        entries(s, "Vertex Buffer Entry", &vb.entries)?;
        writeln!(s, "\t\tstride: {}", vb.stride)?;
        writeln!(s, "\t\tdata size in bytes: {}", vb.data.len())?;
        writeln!(s, "\t\tvertex count: {}", vb.vertex_count())?;
        let ib = &mesh.index_buffer;
        writeln!(s, "\t\t -- Index Buffer --")?;
        writeln!(
            s,
            "\t\tcomponentType: {}",
            component::qt_name(ib.component_type)
        )?;
        writeln!(s, "\t\tdata size in bytes: {}", ib.data.len())?;
        writeln!(s, "\t\tindex count: {}", ib.index_count())?;
        writeln!(s, "\t\t -- Subsets --")?;
        writeln!(s, "\t\tsubset count: {}", mesh.subsets.len())?;
        for (i, sub) in mesh.subsets.iter().enumerate() {
            writeln!(s, "\t\t -- Subset {i} --")?;
            writeln!(s, "\t\tindex count: {}", sub.count)?;
            writeln!(s, "\t\tstart offset in indices: {}", sub.offset)?;
            let [a, b, c] = sub.bounds_min;
            let [d, e, f] = sub.bounds_max;
            writeln!(s, "\t\tbounds: ( {a} , {b} , {c} ) ( {d} , {e} , {f} )")?;
            writeln!(s, "\t\tname: {:?}", sub.name)?;
            let [w, h] = sub.lightmap_size_hint;
            writeln!(s, "\t\tlightmap size hint: QSize({w}, {h})")?;
            writeln!(s, "\t\tlod count: {}", sub.lods.len())?;
            for (j, lod) in sub.lods.iter().enumerate() {
                writeln!(
                    s,
                    "\t\t\tlod {j}: index count {}, start offset {}, distance {}",
                    lod.count, lod.offset, lod.distance
                )?;
            }
        }
        if let Some(tb) = &mesh.target_buffer {
            writeln!(s, "\t\t -- Target Buffer --")?;
            writeln!(s, "\t\ttarget count: {}", tb.target_count)?;
            writeln!(s, "\t\tentry count: {}", tb.entries.len())?;
            entries(s, "Target Buffer Entry", &tb.entries)?;
            writeln!(s, "\t\tdata size in bytes: {}", tb.data.len())?;
        }
    }
    Ok(())
}

fn entries(s: &mut String, label: &str, entries: &[VertexEntry]) -> std::fmt::Result {
    for (i, e) in entries.iter().enumerate() {
        writeln!(s, "\t\t\t -- {label} {i} --")?;
        writeln!(s, "\t\t\tname: {:?}", e.name)?;
        writeln!(s, "\t\t\ttype: {}", component::qt_name(e.component_type))?;
        writeln!(s, "\t\t\tcomponentCount: {}", e.component_count)?;
        writeln!(s, "\t\t\tstart offset: {}", e.offset)?;
    }
    Ok(())
}
