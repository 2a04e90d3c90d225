//! Reading the cluster LOD chunks out of a parsed chunk table.

use bytemuck::Pod;

use super::{tag, ClodTopology, ClusterLod};
use crate::hmesh::read::{check_entry_bounds, Entry};
use crate::hmesh::HMeshError;

/// Payload offset of each chunk of [`tag::ALL`] (0 when absent), for the validator's
/// messages.
pub type ClodOffsets = [u64; tag::ALL.len()];

fn rows<T: Pod>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

/// The hierarchy, when the file has one: every table sized against the others, the two
/// topology forms exclusive. Content rules are the validator's.
pub(in crate::hmesh) fn parse(
    bytes: &[u8],
    entries: &[Entry],
    submesh_count: u32,
) -> Result<Option<(ClusterLod, ClodOffsets)>, HMeshError> {
    let mut found: [Option<Entry>; tag::ALL.len()] = [None; tag::ALL.len()];
    for e in entries {
        let Some(k) = tag::ALL.iter().position(|&t| t == e.fourcc) else {
            continue;
        };
        check_entry_bounds(e, bytes.len() as u64)?;
        if let Some(first) = found[k] {
            return Err(HMeshError::DuplicateChunk {
                fourcc: e.fourcc,
                first: first.at,
                second: e.at,
            });
        }
        found[k] = Some(*e);
    }
    let Some(present) = found.iter().flatten().next() else {
        return Ok(None);
    };
    for (k, e) in found.iter().enumerate().take(tag::TABLES) {
        if e.is_none() {
            return Err(HMeshError::UnpairedChunk {
                present: present.fourcc,
                missing: tag::ALL[k],
            });
        }
    }
    let plain = (found[6].is_some(), found[7].is_some());
    let encoded = (found[8].is_some(), found[9].is_some());
    let problem = |e: &Entry, problem: String| HMeshError::BadClusterLod {
        offset: e.at,
        problem,
    };
    let first_table = found[0].unwrap_or(*present);
    match (plain, encoded) {
        ((true, true), (false, false)) | ((false, false), (true, true)) => {}
        ((false, false), (false, false)) => {
            return Err(problem(
                &first_table,
                "no topology: neither CLVR + CLTR nor CLCO + CLCD".into(),
            ))
        }
        ((true, false), _) | ((false, true), _) => {
            let (present, missing) = if plain.0 {
                (tag::CLVR, tag::CLTR)
            } else {
                (tag::CLTR, tag::CLVR)
            };
            return Err(HMeshError::UnpairedChunk { present, missing });
        }
        (_, (true, false)) | (_, (false, true)) => {
            let (present, missing) = if encoded.0 {
                (tag::CLCO, tag::CLCD)
            } else {
                (tag::CLCD, tag::CLCO)
            };
            return Err(HMeshError::UnpairedChunk { present, missing });
        }
        _ => {
            return Err(problem(
                &first_table,
                "both plain (CLVR + CLTR) and encoded (CLCO + CLCD) topology".into(),
            ))
        }
    }
    let mut offsets = [0u64; tag::ALL.len()];
    let mut payload: [&[u8]; tag::ALL.len()] = [&[]; tag::ALL.len()];
    for k in 0..tag::ALL.len() {
        if let Some(e) = found[k] {
            offsets[k] = e.offset;
            // Bounds were checked above.
            payload[k] = bytes
                .get(e.offset as usize..(e.offset + e.size) as usize)
                .unwrap_or(&[]);
        }
    }
    let size_error = |k: usize, expected: String| {
        let e = found[k].unwrap_or(*present);
        HMeshError::ChunkSize {
            fourcc: tag::ALL[k],
            offset: e.at,
            size: e.size,
            expected,
        }
    };
    let exact = |k: usize, count: u64, elem: u64, what: &str| {
        if Some(payload[k].len() as u64) == count.checked_mul(elem) {
            Ok(())
        } else {
            Err(size_error(k, format!("{count} x {elem} bytes ({what})")))
        }
    };
    let multiple = |k: usize, elem: usize| {
        if payload[k].len().is_multiple_of(elem) {
            Ok(())
        } else {
            Err(size_error(k, format!("a multiple of {elem}")))
        }
    };
    exact(0, submesh_count.into(), 32, "one row per submesh")?;
    multiple(1, 32)?;
    let n = (payload[1].len() / 32) as u64;
    exact(2, n, 32, "one row per cluster of CLUS")?;
    exact(3, n, 48, "one row per cluster of CLUS")?;
    multiple(4, 32)?;
    multiple(5, 32)?;
    let topology = if plain.0 {
        multiple(6, 4)?;
        multiple(7, 3)?;
        ClodTopology::Plain {
            vertices: rows(payload[6]),
            triangles: rows(payload[7]),
        }
    } else {
        exact(8, n + 1, 4, "one offset per cluster of CLUS, plus the end")?;
        ClodTopology::Encoded {
            offsets: rows(payload[8]),
            data: payload[9].to_vec(),
        }
    };
    Ok(Some((
        ClusterLod {
            submeshes: rows(payload[0]),
            clusters: rows(payload[1]),
            bounds: rows(payload[2]),
            errors: rows(payload[3]),
            groups: rows(payload[4]),
            nodes: rows(payload[5]),
            topology,
        },
        offsets,
    )))
}
