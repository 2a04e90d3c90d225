//! Writing, laid out byte for byte as Qt's own writer does (checked against Balsam 6.4
//! and 6.12 output).

use super::read::{pad_len, subset_size, HEADER_SIZE};
use super::{attr, morph, LayoutError, QtMesh, QtMeshError, QtMeshFile, VertexEntry};
use super::{CONTAINER_FILE_ID, CONTAINER_VERSION, MESH_FILE_ID};
use crate::bytes::WriteLe;

/// Writes `file` as mesh `version` 7 (current Qt) or 5 (Qt 6.4 and older).
pub fn write(file: &QtMeshFile, version: u16) -> Result<Vec<u8>, QtMeshError> {
    if version != 5 && version != 7 {
        return Err(QtMeshError::UnsupportedWriteVersion(version));
    }
    let mut out = Vec::new();
    let mut entries = Vec::with_capacity(file.meshes.len());
    for (i, (id, mesh)) in file.meshes.iter().enumerate() {
        if file.meshes.iter().take(i).any(|(other, _)| other == id) {
            return Err(QtMeshError::Unwritable {
                id: *id,
                reason: LayoutError::DuplicateId,
            });
        }
        let offset = out.len() as u64;
        write_mesh(&mut out, mesh, version)
            .map_err(|reason| QtMeshError::Unwritable { id: *id, reason })?;
        entries.push((offset, *id));
    }
    let entries_offset = u32::try_from(out.len()).map_err(|_| QtMeshError::Unwritable {
        id: 0,
        reason: LayoutError::FileOver4GiB,
    })?;
    for (offset, id) in entries {
        out.put_u64(offset);
        out.put_u32(id);
        out.put_u32(0);
    }
    out.put_u32(CONTAINER_FILE_ID);
    out.put_u32(CONTAINER_VERSION);
    out.put_u32(entries_offset);
    out.put_u32(file.meshes.len() as u32);
    Ok(out)
}

/// Output with Qt's padding counter, which starts after the MeshDataHeader.
struct MeshWriter<'a> {
    out: &'a mut Vec<u8>,
    origin: usize,
}

impl MeshWriter<'_> {
    fn pad(&mut self) {
        let n = pad_len(self.out.len() - self.origin);
        self.out.resize(self.out.len() + n, 0);
    }

    fn entries(&mut self, entries: &[VertexEntry]) -> Result<(), LayoutError> {
        for e in entries {
            self.out.put_u32(0);
            self.out.put_u32(e.component_type);
            self.out.put_u32(e.component_count);
            self.out.put_u32(e.offset);
        }
        self.pad();
        for e in entries {
            // Seed 002 spells it attr_colors; Qt reads and writes attr_color.
            let name = if e.name == attr::COLOR_SEED_SPELLING {
                attr::COLOR
            } else {
                e.name.as_str()
            };
            if name.contains('\0') {
                return Err(LayoutError::ZeroInAttributeName(name.to_string()));
            }
            self.out.put_u32(len32(name.len() + 1, "attribute name")?);
            self.out.extend_from_slice(name.as_bytes());
            self.out.push(0);
            self.pad();
        }
        Ok(())
    }
}

fn len32(n: usize, what: &'static str) -> Result<u32, LayoutError> {
    u32::try_from(n).map_err(|_| LayoutError::Over4GiB { what })
}

/// Lays out one mesh for any version 3 to 7; [`write`] only offers 5 and 7, and
/// `describe` uses the rest to report sizes for files read at other versions.
pub(super) fn write_mesh(
    out: &mut Vec<u8>,
    mesh: &QtMesh,
    version: u16,
) -> Result<(), LayoutError> {
    let separate_targets = version >= 7;
    let legacy;
    let vb = if separate_targets {
        &mesh.vertex_buffer
    } else {
        legacy = morph::to_legacy_attributes(mesh)?;
        &legacy
    };
    if version < 6 && mesh.subsets.iter().any(|s| !s.lods.is_empty()) {
        return Err(LayoutError::LodsNeedVersion6(version));
    }
    let empty = Default::default();
    let tb = match (&mesh.target_buffer, separate_targets) {
        (Some(tb), true) => tb,
        _ => &empty,
    };

    let header_at = out.len();
    out.put_u32(MESH_FILE_ID);
    out.put_u16(version);
    out.put_u16(mesh.header_flags);
    out.put_u32(0); // sizeInBytes, patched below
    let mut w = MeshWriter {
        origin: out.len(),
        out,
    };
    let fields = [
        len32(tb.entries.len(), "target entries")?,
        len32(vb.entries.len(), "vertex entries")?,
        vb.stride,
        len32(tb.data.len(), "target data")?,
        len32(vb.data.len(), "vertex data")?,
        mesh.index_buffer.component_type,
        0,
        len32(mesh.index_buffer.data.len(), "index data")?,
        tb.target_count,
        len32(mesh.subsets.len(), "subsets")?,
        0,
        0, // jointsSize: Qt 6 readers do not skip joints, so none are ever written
        mesh.draw_mode,
        mesh.winding,
    ];
    for f in fields {
        w.out.put_u32(f);
    }
    w.entries(&vb.entries)?;
    w.out.extend_from_slice(&vb.data);
    w.pad();
    w.out.extend_from_slice(&mesh.index_buffer.data);
    w.pad();

    let mut names = Vec::with_capacity(mesh.subsets.len());
    for s in &mesh.subsets {
        if s.name.contains('\0') {
            return Err(LayoutError::ZeroInSubsetName(s.name.clone()));
        }
        let mut units: Vec<u16> = s.name.encode_utf16().collect();
        units.push(0);
        let before = w.out.len();
        w.out.put_u32(s.count);
        w.out.put_u32(s.offset);
        for v in s.bounds_min.iter().chain(&s.bounds_max) {
            w.out.put_f32(*v);
        }
        w.out.put_u32(0);
        w.out.put_u32(len32(units.len(), "subset name")?);
        if version >= 5 {
            w.out.put_u32(s.lightmap_size_hint[0]);
            w.out.put_u32(s.lightmap_size_hint[1]);
        }
        if version >= 6 {
            w.out.put_u32(len32(s.lods.len(), "LOD list")?);
        }
        debug_assert_eq!(w.out.len() - before, subset_size(version));
        names.push(units);
    }
    w.pad();
    for units in names {
        for u in units {
            w.out.put_u16(u);
        }
        w.pad();
    }
    if version >= 6 {
        for lod in mesh.subsets.iter().flat_map(|s| &s.lods) {
            w.out.put_u32(lod.count);
            w.out.put_u32(lod.offset);
            w.out.put_f32(lod.distance);
        }
        w.pad();
    }
    if separate_targets {
        // Qt pads the (possibly empty) target entries, and leaves the data unpadded.
        w.entries(&tb.entries)?;
        w.out.extend_from_slice(&tb.data);
    }
    let size = len32(w.out.len() - header_at - HEADER_SIZE, "mesh")?;
    if let Some(slot) = out.get_mut(header_at + 8..header_at + 12) {
        slot.copy_from_slice(&size.to_le_bytes());
    }
    Ok(())
}
