//! The cluster LOD chunks' payloads, appended by the `.hmesh` writer after its own chunks.

use std::borrow::Cow;

use super::{tag, ClodTopology, ClusterLod};
use crate::hmesh::{FourCc, HMeshError};

/// A chunk id and its payload.
pub type Chunk<'a> = (FourCc, Cow<'a, [u8]>);

/// The chunks of `lod` in writing order; fails when the tables disagree in length.
pub fn payloads(lod: &ClusterLod, submesh_count: usize) -> Result<Vec<Chunk<'_>>, HMeshError> {
    let n = lod.clusters.len();
    if lod.submeshes.len() != submesh_count {
        return Err(HMeshError::Inconsistent(format!(
            "{} cluster LOD submesh rows for {submesh_count} submeshes",
            lod.submeshes.len()
        )));
    }
    if lod.bounds.len() != n || lod.errors.len() != n {
        return Err(HMeshError::Inconsistent(format!(
            "{} cluster bounds and {} cluster errors for {n} clusters",
            lod.bounds.len(),
            lod.errors.len()
        )));
    }
    let mut out: Vec<Chunk<'_>> = vec![
        (
            tag::CLSM,
            Cow::Borrowed(bytemuck::cast_slice(&lod.submeshes)),
        ),
        (
            tag::CLUS,
            Cow::Borrowed(bytemuck::cast_slice(&lod.clusters)),
        ),
        (tag::CLBN, Cow::Borrowed(bytemuck::cast_slice(&lod.bounds))),
        (tag::CLER, Cow::Borrowed(bytemuck::cast_slice(&lod.errors))),
        (tag::CLGR, Cow::Borrowed(bytemuck::cast_slice(&lod.groups))),
        (tag::CLND, Cow::Borrowed(bytemuck::cast_slice(&lod.nodes))),
    ];
    match &lod.topology {
        ClodTopology::Plain {
            vertices,
            triangles,
        } => {
            out.push((tag::CLVR, Cow::Borrowed(bytemuck::cast_slice(vertices))));
            out.push((tag::CLTR, Cow::Borrowed(bytemuck::cast_slice(triangles))));
        }
        ClodTopology::Encoded { offsets, data } => {
            if offsets.len() != n + 1 {
                return Err(HMeshError::Inconsistent(format!(
                    "{} encoded topology offsets for {n} clusters (expected {})",
                    offsets.len(),
                    n + 1
                )));
            }
            out.push((tag::CLCO, Cow::Borrowed(bytemuck::cast_slice(offsets))));
            out.push((tag::CLCD, Cow::Borrowed(data.as_slice())));
        }
    }
    Ok(out)
}
