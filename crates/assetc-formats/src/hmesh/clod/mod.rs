//! assetc's optional cluster LOD chunks of `.hmesh` (a hierarchy of clusters simplified in
//! groups, as Nanite and meshoptimizer's `clusterlod.h` build it). The shared byte contract
//! does not define them; a reader that does not know them skips them as unknown chunks.
//! Field by field in `docs/formats.md`, "Cluster LOD chunks".
//!
//! Every array is a plain GPU-ready table of 16-byte-aligned rows, so a renderer can upload
//! a chunk as one storage buffer. Offsets and indices are absolute (into the whole file's
//! arrays), never relative to a submesh, so a shader needs no per-submesh base.

use bytemuck::{Pod, Zeroable};

use super::{FourCc, MeshletBounds, MeshletTriangle};

mod cut;
mod read;
mod summary;
mod validate;
mod write;

pub use cut::{cut_by_hierarchy, cut_by_test, projected_error, CutCamera};
pub(super) use read::parse;
pub use summary::ClodSummary;
pub(super) use validate::validate;
pub use write::payloads;

/// Chunk ids, in the order writers emit them (after every other chunk).
pub mod tag {
    use super::FourCc;
    /// One [`ClodSubmesh`](super::ClodSubmesh) per submesh.
    pub const CLSM: FourCc = FourCc::new(b"CLSM");
    /// One [`ClodCluster`](super::ClodCluster) per cluster.
    pub const CLUS: FourCc = FourCc::new(b"CLUS");
    /// Culling bounds per cluster (the MLBN row layout).
    pub const CLBN: FourCc = FourCc::new(b"CLBN");
    /// One [`ClodError`](super::ClodError) per cluster.
    pub const CLER: FourCc = FourCc::new(b"CLER");
    /// One [`ClodGroup`](super::ClodGroup) per group.
    pub const CLGR: FourCc = FourCc::new(b"CLGR");
    /// One [`ClodNode`](super::ClodNode) per node of the culling hierarchy.
    pub const CLND: FourCc = FourCc::new(b"CLND");
    /// Plain topology: global vertex indices (u32) of the clusters' local vertices.
    pub const CLVR: FourCc = FourCc::new(b"CLVR");
    /// Plain topology: local triangles (3 x u8).
    pub const CLTR: FourCc = FourCc::new(b"CLTR");
    /// Encoded topology: byte offset of each cluster's stream in CLCD, plus the end.
    pub const CLCO: FourCc = FourCc::new(b"CLCO");
    /// Encoded topology: meshoptimizer meshlet codec streams, one per cluster.
    pub const CLCD: FourCc = FourCc::new(b"CLCD");

    pub const ALL: [FourCc; 10] = [CLSM, CLUS, CLBN, CLER, CLGR, CLND, CLVR, CLTR, CLCO, CLCD];
    /// The tables present whenever any cluster LOD chunk is.
    pub const TABLES: usize = 6;
}

/// Where a submesh's part of the hierarchy lies in the other tables.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct ClodSubmesh {
    pub first_cluster: u32,
    pub cluster_count: u32,
    pub first_group: u32,
    pub group_count: u32,
    /// The first `level_count` nodes from here are the roots of the per-level trees.
    pub first_node: u32,
    pub node_count: u32,
    pub level_count: u32,
    pub pad: u32,
}

/// A cluster: a meshlet of some level of the hierarchy.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct ClodCluster {
    /// Into CLVR (or the decoded vertex stream): `vertex_count` global vertex indices.
    pub vertex_offset: u32,
    pub vertex_count: u32,
    /// Into CLTR (or the decoded triangle stream), in triangles.
    pub triangle_offset: u32,
    pub triangle_count: u32,
    /// The group the cluster belongs to (its parent error is that group's error).
    pub group: u32,
    /// The group whose simplification made this cluster, or -1 for source geometry.
    pub refined: i32,
    pub submesh: u32,
    /// Depth of its group: 0 for source geometry's groups.
    pub level: u32,
}

/// A sphere and a simplification error in model units: a projected error is
/// `error / max(distance(eye, center) - radius, znear) * focal_px`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct LodSphere {
    pub center: [f32; 3],
    pub radius: f32,
}

/// The two errors of the cut test, stored with each cluster so the test needs nothing
/// else: draw when `own <= threshold < parent` (both projected).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct ClodError {
    pub own_sphere: LodSphere,
    pub parent_sphere: LodSphere,
    /// 0 for source geometry.
    pub own_error: f32,
    /// `f32::MAX` when no coarser version of the cluster exists.
    pub parent_error: f32,
    pub pad: [u32; 2],
}

/// A group: clusters simplified together (their borders with other groups locked).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct ClodGroup {
    /// Bounds of the simplified result, containing every member's own sphere.
    pub sphere: LodSphere,
    /// Error of the simplified result: the parent error of every member; `f32::MAX` for
    /// a group that was not simplified (terminal).
    pub error: f32,
    pub level: u32,
    pub first_cluster: u32,
    pub cluster_count: u32,
}

/// A node of the culling hierarchy over groups (one tree per level).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct ClodNode {
    /// Contains every group sphere below; `error` is their largest error.
    pub sphere: LodSphere,
    pub error: f32,
    /// The group of a leaf, -1 for an inner node.
    pub group: i32,
    /// Inner node: children are `child_offset..child_offset + child_count`.
    pub child_offset: u32,
    pub child_count: u32,
}

const _: () = {
    assert!(std::mem::size_of::<ClodSubmesh>() == 32);
    assert!(std::mem::size_of::<ClodCluster>() == 32);
    assert!(std::mem::size_of::<ClodError>() == 48);
    assert!(std::mem::size_of::<ClodGroup>() == 32);
    assert!(std::mem::size_of::<ClodNode>() == 32);
};

/// The clusters' topology: plain arrays, or meshoptimizer's meshlet codec (one stream per
/// cluster, `offsets[i]..offsets[i + 1]` in `data`).
#[derive(Debug, Clone, PartialEq)]
pub enum ClodTopology {
    Plain {
        vertices: Vec<u32>,
        triangles: Vec<MeshletTriangle>,
    },
    Encoded {
        offsets: Vec<u32>,
        data: Vec<u8>,
    },
}

impl Default for ClodTopology {
    fn default() -> Self {
        Self::Plain {
            vertices: Vec::new(),
            triangles: Vec::new(),
        }
    }
}

/// The whole hierarchy of a mesh, every array parallel to its chunk.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterLod {
    pub submeshes: Vec<ClodSubmesh>,
    pub clusters: Vec<ClodCluster>,
    pub bounds: Vec<MeshletBounds>,
    pub errors: Vec<ClodError>,
    pub groups: Vec<ClodGroup>,
    pub nodes: Vec<ClodNode>,
    pub topology: ClodTopology,
}

impl ClusterLod {
    /// Bytes of topology as stored (vertex references and triangles, or the codec
    /// streams with their offsets).
    pub fn topology_bytes(&self) -> usize {
        match &self.topology {
            ClodTopology::Plain {
                vertices,
                triangles,
            } => vertices.len() * 4 + triangles.len() * 3,
            ClodTopology::Encoded { offsets, data } => offsets.len() * 4 + data.len(),
        }
    }

    /// The triangles of cluster `c` as global vertex indices, from plain topology; `None`
    /// for encoded topology (see [`decode_topology`]) or ranges out of bounds.
    pub fn cluster_triangles(&self, c: usize) -> Option<Vec<[u32; 3]>> {
        let ClodTopology::Plain {
            vertices,
            triangles,
        } = &self.topology
        else {
            return None;
        };
        let cl = self.clusters.get(c)?;
        let verts = vertices
            .get(cl.vertex_offset as usize..cl.vertex_offset as usize + cl.vertex_count as usize)?;
        let tris = triangles.get(
            cl.triangle_offset as usize..cl.triangle_offset as usize + cl.triangle_count as usize,
        )?;
        tris.iter()
            .map(|t| {
                Some([
                    *verts.get(usize::from(t.0[0]))?,
                    *verts.get(usize::from(t.0[1]))?,
                    *verts.get(usize::from(t.0[2]))?,
                ])
            })
            .collect()
    }
}

/// Decodes encoded topology into plain arrays, cluster by cluster with meshoptimizer's
/// decoder (safe on untrusted input). Plain topology is returned as it is.
#[cfg(feature = "meshlet-codec")]
pub fn decode_topology(lod: &ClusterLod) -> Result<ClodTopology, TopologyCodecError> {
    let (offsets, data) = match &lod.topology {
        ClodTopology::Plain { .. } => return Ok(lod.topology.clone()),
        ClodTopology::Encoded { offsets, data } => (offsets, data),
    };
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    for (i, c) in lod.clusters.iter().enumerate() {
        let (Some(&a), Some(&b)) = (offsets.get(i), offsets.get(i + 1)) else {
            return Err(TopologyCodecError::NoOffset { cluster: i });
        };
        let stream = data
            .get(a as usize..b as usize)
            .ok_or(TopologyCodecError::StreamOutside {
                cluster: i,
                start: a,
                end: b,
            })?;
        if c.vertex_count > 256 || c.triangle_count > 256 {
            return Err(TopologyCodecError::ClusterTooLarge {
                cluster: i,
                vertices: c.vertex_count,
                triangles: c.triangle_count,
            });
        }
        let (v, t) =
            meshopt::decode_meshlet(stream, c.vertex_count as usize, c.triangle_count as usize)
                .map_err(|e| TopologyCodecError::Refused {
                    cluster: i,
                    reason: e.to_string(),
                })?;
        vertices.extend_from_slice(&v);
        triangles.extend(
            t.chunks_exact(3)
                .map(|t| MeshletTriangle([t[0], t[1], t[2]])),
        );
    }
    Ok(ClodTopology::Plain {
        vertices,
        triangles,
    })
}

/// Encodes plain topology with meshoptimizer's meshlet codec, one stream per cluster.
#[cfg(feature = "meshlet-codec")]
pub fn encode_topology(lod: &ClusterLod) -> Result<ClodTopology, TopologyCodecError> {
    let ClodTopology::Plain {
        vertices,
        triangles,
    } = &lod.topology
    else {
        return Ok(lod.topology.clone());
    };
    let mut offsets = Vec::with_capacity(lod.clusters.len() + 1);
    offsets.push(0u32);
    let mut data = Vec::new();
    for (c, cl) in lod.clusters.iter().enumerate() {
        let (v0, t0) = (cl.vertex_offset as usize, cl.triangle_offset as usize);
        let verts = vertices.get(v0..v0 + cl.vertex_count as usize);
        let tris = triangles.get(t0..t0 + cl.triangle_count as usize);
        let (Some(verts), Some(tris)) = (verts, tris) else {
            return Err(TopologyCodecError::RangesOutside { cluster: c });
        };
        let local: Vec<u8> = tris.iter().flat_map(|t| t.0).collect();
        let stream = meshopt::encode_meshlet(meshopt::Meshlet {
            vertices: verts,
            triangles: &local,
        })
        .map_err(|e| TopologyCodecError::Unencodable {
            cluster: c,
            reason: e.to_string(),
        })?;
        data.extend_from_slice(&stream);
        offsets.push(u32::try_from(data.len()).map_err(|_| TopologyCodecError::Over4GiB)?);
    }
    Ok(ClodTopology::Encoded { offsets, data })
}

/// Why cluster topology cannot go through meshoptimizer's meshlet codec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyCodecError {
    #[error("cluster {cluster} has no entry in CLCO")]
    NoOffset { cluster: usize },
    #[error("cluster {cluster} stream [{start}, {end}) lies outside CLCD")]
    StreamOutside {
        cluster: usize,
        start: u32,
        end: u32,
    },
    #[error(
        "cluster {cluster} has {vertices} vertices / {triangles} triangles; the codec holds at most 256"
    )]
    ClusterTooLarge {
        cluster: usize,
        vertices: u32,
        triangles: u32,
    },
    #[error("cluster {cluster}: the meshlet codec refused its stream: {reason}")]
    Refused { cluster: usize, reason: String },
    #[error("cluster {cluster} ranges lie outside the topology")]
    RangesOutside { cluster: usize },
    #[error("cluster {cluster}: {reason}")]
    Unencodable { cluster: usize, reason: String },
    #[error("encoded topology over 4 GiB")]
    Over4GiB,
}

#[cfg(test)]
mod tests;
