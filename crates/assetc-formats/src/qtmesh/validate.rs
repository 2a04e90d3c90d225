//! Checks beyond what the reader needs to parse: consistency Qt relies on when it loads
//! and draws the mesh.

use super::read::{read_detailed, MeshLayout};
use super::{component, morph, target_block_size, QtMesh, QtMeshError};
use crate::Problem;

pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let detailed = match read_detailed(bytes) {
        Ok(d) => d,
        Err(e) => return vec![problem_for(&e)],
    };
    let mut problems = Vec::new();
    let meshes = &detailed.file.meshes;
    for (i, ((id, mesh), layout)) in meshes.iter().zip(&detailed.layouts).enumerate() {
        if meshes.iter().take(i).any(|(other, _)| other == id) {
            problems.push(Problem::new(format!(
                "mesh id {id} appears twice; Qt keeps only one"
            )));
        }
        check_layout(*id, layout, mesh, &mut problems);
        check_mesh(*id, layout.offset as u64, mesh, &mut problems);
    }
    problems
}

fn problem_for(e: &QtMeshError) -> Problem {
    let inner = match e {
        QtMeshError::InMesh { source, .. } => source.as_ref(),
        other => other,
    };
    let offset = match inner {
        QtMeshError::OutOfBounds(o) => Some(o.offset),
        QtMeshError::BadMeshId { offset, .. }
        | QtMeshError::BadMeshVersion { offset, .. }
        | QtMeshError::BadPadding { offset, .. }
        | QtMeshError::Invalid { offset, .. } => Some(*offset),
        _ => None,
    };
    match offset {
        Some(o) => Problem::at(o as u64, e.to_string()),
        None => Problem::new(e.to_string()),
    }
}

fn check_layout(id: u32, l: &MeshLayout, mesh: &QtMesh, out: &mut Vec<Problem>) {
    let at = l.offset as u64;
    if l.size_in_bytes as usize != l.consumed {
        out.push(Problem::at(
            at + 8,
            format!(
                "mesh {id}: sizeInBytes is {} but the mesh occupies {} bytes",
                l.size_in_bytes, l.consumed
            ),
        ));
    }
    if l.padding_from_file_start {
        out.push(Problem::at(
            at,
            format!("mesh {id}: padding is counted from the file start; Qt counts from the end of the MeshDataHeader"),
        ));
    }
    if l.had_seed_colour_name {
        out.push(Problem::at(
            at,
            format!("mesh {id}: colour attribute is named attr_colors; Qt reads attr_color"),
        ));
    }
    if l.missing_target_padding {
        out.push(Problem::at(
            at,
            format!("mesh {id}: version 7 mesh lacks the padding after its empty target entries"),
        ));
    }
    for name in &l.unterminated_names {
        out.push(Problem::at(
            at,
            format!("mesh {id}: name {name:?} lacks its terminating zero"),
        ));
    }
    if l.joint_count > 0 && mesh.version >= 7 && mesh.target_buffer.is_some() {
        out.push(Problem::at(
            at,
            format!("mesh {id}: joints together with targets; Qt 6 readers do not skip joints and misread the targets"),
        ));
    }
}

fn check_mesh(id: u32, at: u64, mesh: &QtMesh, out: &mut Vec<Problem>) {
    let mut bad = |msg: String| out.push(Problem::at(at, format!("mesh {id}: {msg}")));
    if !(1..=8).contains(&mesh.draw_mode) {
        bad(format!("draw mode {} is not 1 to 8", mesh.draw_mode));
    }
    if !(1..=2).contains(&mesh.winding) {
        bad(format!("winding {} is not 1 or 2", mesh.winding));
    }
    let vb = &mesh.vertex_buffer;
    for e in &vb.entries {
        match component::size(e.component_type) {
            None => bad(format!(
                "attribute {:?} has unknown component type {}",
                e.name, e.component_type
            )),
            Some(size) => {
                let end = u64::from(e.offset) + u64::from(size) * u64::from(e.component_count);
                if !(1..=4).contains(&e.component_count) {
                    bad(format!(
                        "attribute {:?} has {} components, not 1 to 4",
                        e.name, e.component_count
                    ));
                } else if end > u64::from(vb.stride) {
                    bad(format!(
                        "attribute {:?} ends at byte {end}, past the {}-byte stride",
                        e.name, vb.stride
                    ));
                }
            }
        }
    }
    if vb.stride == 0 && !vb.data.is_empty() {
        bad("vertex data with a zero stride".into());
    } else if vb.stride != 0 && !vb.data.len().is_multiple_of(vb.stride as usize) {
        bad(format!(
            "{} bytes of vertex data are not a whole number of {}-byte vertices",
            vb.data.len(),
            vb.stride
        ));
    }
    let vertex_count = vb.vertex_count() as u64;

    let ib = &mesh.index_buffer;
    let mut element_count = vertex_count;
    if !ib.data.is_empty() {
        let size = match ib.component_type {
            component::U8 => 1,
            component::U16 => 2,
            component::U32 => 4,
            other => {
                bad(format!(
                    "index component type {other} is not an unsigned 8, 16 or 32-bit integer"
                ));
                0
            }
        };
        if size > 0 {
            if !ib.data.len().is_multiple_of(size) {
                bad(format!(
                    "{} bytes of index data are not a whole number of {size}-byte indices",
                    ib.data.len()
                ));
            }
            let too_big = ib.data.chunks_exact(size).position(|c| {
                let v = c
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
                v >= vertex_count
            });
            if let Some(i) = too_big {
                bad(format!("index {i} points past the {vertex_count} vertices"));
            }
            element_count = (ib.data.len() / size) as u64;
        }
    }
    let unit = if ib.data.is_empty() {
        "vertices"
    } else {
        "indices"
    };
    for s in &mesh.subsets {
        let ranges = std::iter::once((s.count, s.offset, "subset".to_string())).chain(
            s.lods
                .iter()
                .enumerate()
                .map(|(i, l)| (l.count, l.offset, format!("LOD {i} of subset"))),
        );
        for (count, offset, what) in ranges {
            if u64::from(count) + u64::from(offset) > element_count {
                bad(format!(
                    "{what} {:?} covers {unit} {offset}..{} of {element_count}",
                    s.name,
                    u64::from(offset) + u64::from(count)
                ));
            }
        }
    }

    if let Some(tb) = &mesh.target_buffer {
        if tb.target_count == 0 {
            bad("target buffer with a target count of 0".into());
        }
        for e in &tb.entries {
            if morph::kind_of_v7_name(&e.name).is_none() {
                bad(format!(
                    "target attribute {:?} is not attr_pos, attr_norm, attr_textan or attr_binormal",
                    e.name
                ));
            }
        }
        if let Some(block) = target_block_size(vb.vertex_count()) {
            let expected = (block as u64)
                .saturating_mul(tb.entries.len() as u64)
                .saturating_mul(u64::from(tb.target_count));
            if tb.data.len() as u64 != expected {
                bad(format!(
                    "target data is {} bytes, expected {expected} ({} kinds x {} targets x {block})",
                    tb.data.len(),
                    tb.entries.len(),
                    tb.target_count
                ));
            }
            for (k, e) in tb.entries.iter().enumerate() {
                let want = (k as u64) * u64::from(tb.target_count) * block as u64;
                if u64::from(e.offset) != want {
                    bad(format!(
                        "target attribute {:?} starts at {}, expected {want}",
                        e.name, e.offset
                    ));
                }
            }
        }
    }
}
