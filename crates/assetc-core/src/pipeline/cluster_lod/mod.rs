//! The cluster LOD stage (`mesh.cluster_lod`): one primitive's clusters at every level,
//! their groups with simplification error and bounds, and a culling hierarchy over the
//! groups, through meshoptimizer's `clusterlod.h` (bundled by the `meshopt` crate).
//!
//! `clod_build` does the Nanite-style loop (cluster, partition into groups, simplify each
//! group with its borders locked, re-cluster, repeat); what is ours is the GPU layout
//! (`formats::hmesh::clod`), the per-cluster culling cones, and [`monotonic`]'s guarantee
//! that projected errors never shrink up the hierarchy, which `clod_build` meets only up
//! to float rounding of its merged spheres.

mod copies;
pub mod field;
mod merge;
mod monotonic;
mod renumber;
pub mod watertight;

pub use copies::{append_vertex_copies, copy_level_vertices, give_levels_their_own_vertices};
pub use merge::append;
pub use renumber::{first_use_order, renumber_clusters, renumber_mesh};

use crate::formats::hmesh::clod::{
    ClodCluster, ClodError, ClodGroup, ClodNode, ClodSubmesh, ClodTopology, ClusterLod, LodSphere,
};
use crate::formats::hmesh::{MeshletBounds, MeshletTriangle};

/// Triangles (and vertices) per cluster: meshoptimizer's recommendation for cluster LOD,
/// within the codec's and the u8 local indices' 256.
pub const CLUSTER_TRIANGLES: usize = 128;
/// Children per inner node of the culling hierarchy.
pub const NODE_WIDTH: usize = 8;

/// Attribute weights for attribute-aware simplification: normals (3 floats) and, when the
/// primitive has them, UV0 (2 floats, whose seams are protected from collapse).
const NORMAL_WEIGHT: f32 = 0.5;
const UV_WEIGHT: f32 = 1.0;

#[derive(Debug, thiserror::Error)]
pub enum ClusterLodError {
    #[error("cluster LOD: {0}")]
    Input(String),
    #[error("cluster LOD: {0}")]
    Codec(#[from] crate::formats::hmesh::clod::TopologyCodecError),
}

/// One primitive's streams, in its own vertex numbering.
pub struct ClusterLodInput<'a> {
    /// xyz used, w ignored (the pipeline's stream layout).
    pub positions: &'a [[f32; 4]],
    pub indices: &'a [u32],
    pub normals: Option<&'a [[f32; 4]]>,
    pub uvs: Option<&'a [[f32; 4]]>,
}

fn sphere(b: &meshopt::ClodBounds) -> LodSphere {
    LodSphere {
        center: b.center,
        radius: b.radius,
    }
}

/// Builds the hierarchy of one primitive: vertex indices are the primitive's own, group
/// and node numbers start at 0, and the single [`ClodSubmesh`] row covers everything
/// ([`append`] rebases all of it into a mesh).
pub fn build_cluster_lod(input: &ClusterLodInput<'_>) -> Result<ClusterLod, ClusterLodError> {
    let vertex_count = input.positions.len();
    if !input.indices.len().is_multiple_of(3)
        || input.indices.iter().any(|&i| i as usize >= vertex_count)
    {
        return Err(ClusterLodError::Input(
            "indices are not whole triangles over the vertices".into(),
        ));
    }
    let mut out = ClusterLod::default();
    if input.indices.is_empty() {
        out.submeshes.push(ClodSubmesh::default());
        return Ok(out);
    }
    let adapter = meshopt::VertexDataAdapter::new(bytemuck::cast_slice(input.positions), 16, 0)
        .map_err(|e| ClusterLodError::Input(e.to_string()))?;

    // Interleaved attributes: normal xyz, then uv when present.
    let uv = input.uvs.filter(|u| u.len() == vertex_count);
    let normals = input.normals.filter(|n| n.len() == vertex_count);
    let mut weights = Vec::new();
    if normals.is_some() {
        weights.extend([NORMAL_WEIGHT; 3]);
    }
    if uv.is_some() {
        weights.extend([UV_WEIGHT; 2]);
    }
    let stride = weights.len();
    let mut attributes = Vec::with_capacity(vertex_count * stride);
    for v in 0..vertex_count {
        if let Some(n) = normals {
            attributes.extend_from_slice(&n[v][..3]);
        }
        if let Some(u) = uv {
            attributes.extend_from_slice(&u[v][..2]);
        }
    }
    let protect = if uv.is_some() {
        0b11 << (stride - 2)
    } else {
        0
    };
    let mesh = meshopt::ClodMesh {
        vertex_attributes: &attributes,
        vertex_attributes_stride: stride * 4,
        attribute_weights: &weights,
        attribute_protect_mask: protect,
        ..meshopt::ClodMesh::new(input.indices, &adapter)
    };
    let mut config = meshopt::clod_default_config(CLUSTER_TRIANGLES);
    // clod_build orders each new cluster's triangles at level 1 by default, which only
    // buys smaller meshlet-codec streams (meshoptimizer.h); plain topology needs the vertex
    // locality of level 0 (meshopt_optimizeMeshlet), and `cluster_compress` reorders at
    // level 3 anyway ([`reorder_for_codec`]). 3.7% fewer instructions for the whole build
    // (docs/performance.md).
    config.optimize_clusters_level = 0;

    // Every level about halves the one before, so all levels store about twice the
    // source's triangles, with about 2/3 of a vertex reference each: reserved once rather
    // than grown by copying.
    let source_triangles = input.indices.len() / 3;
    let mut groups: Vec<meshopt::ClodGroup> = Vec::new();
    let mut vertices: Vec<u32> = Vec::with_capacity(source_triangles * 4 / 3 + 256);
    let mut triangles: Vec<MeshletTriangle> = Vec::with_capacity(source_triangles * 2 + 128);
    out.clusters.reserve(source_triangles / 60);
    out.bounds.reserve(source_triangles / 60);
    meshopt::clod_build(config, &mesh, |group, clusters| {
        let g = groups.len() as u32;
        let level = group.depth.max(0) as u32;
        out.groups.push(ClodGroup {
            sphere: sphere(&group.simplified),
            error: group.simplified.error,
            level,
            first_cluster: out.clusters.len() as u32,
            cluster_count: clusters.len() as u32,
        });
        groups.push(group);
        for c in clusters {
            let (local_vertices, local_triangles) = meshopt::clod_local_indices(c.indices);
            let culling = meshopt::compute_meshlet_bounds(
                meshopt::Meshlet {
                    vertices: &local_vertices,
                    triangles: &local_triangles,
                },
                &adapter,
            );
            out.clusters.push(ClodCluster {
                vertex_offset: vertices.len() as u32,
                vertex_count: local_vertices.len() as u32,
                triangle_offset: triangles.len() as u32,
                triangle_count: (local_triangles.len() / 3) as u32,
                group: g,
                refined: c.refined,
                submesh: 0,
                level,
            });
            out.bounds.push(MeshletBounds {
                center: culling.center,
                radius: culling.radius,
                cone_axis: culling.cone_axis,
                cone_cutoff: culling.cone_cutoff,
            });
            vertices.extend_from_slice(&local_vertices);
            triangles.extend(
                local_triangles
                    .chunks_exact(3)
                    .map(|t| MeshletTriangle([t[0], t[1], t[2]])),
            );
        }
        g as i32
    });

    monotonic::nest_groups(&mut out);
    // The hierarchy is built over the nested group bounds, then nested itself.
    for (ffi, g) in groups.iter_mut().zip(&out.groups) {
        ffi.simplified.center = g.sphere.center;
        ffi.simplified.radius = g.sphere.radius;
        ffi.simplified.error = g.error;
    }
    let level_count = out.groups.iter().map(|g| g.level + 1).max().unwrap_or(0);
    out.nodes = meshopt::clod_build_hierarchy(&groups, NODE_WIDTH, level_count as usize)
        .iter()
        .map(|n| ClodNode {
            sphere: sphere(&n.bounds),
            error: n.bounds.error,
            group: n.group,
            child_offset: if n.group >= 0 { 0 } else { n.child_offset },
            child_count: if n.group >= 0 { 0 } else { n.child_count },
        })
        .collect();
    monotonic::nest_nodes(&mut out.nodes, level_count as usize);

    out.errors = out
        .clusters
        .iter()
        .zip(&out.bounds)
        .map(|(c, b)| {
            let parent = out.groups[c.group as usize];
            let (own_sphere, own_error) = match usize::try_from(c.refined) {
                Ok(r) => (out.groups[r].sphere, out.groups[r].error),
                Err(_) => (
                    LodSphere {
                        center: b.center,
                        radius: b.radius,
                    },
                    0.0,
                ),
            };
            ClodError {
                own_sphere,
                parent_sphere: parent.sphere,
                own_error,
                parent_error: parent.error,
                pad: [0; 2],
            }
        })
        .collect();
    out.submeshes.push(ClodSubmesh {
        first_cluster: 0,
        cluster_count: out.clusters.len() as u32,
        first_group: 0,
        group_count: out.groups.len() as u32,
        first_node: 0,
        node_count: out.nodes.len() as u32,
        level_count,
        pad: 0,
    });
    out.topology = ClodTopology::Plain {
        vertices,
        triangles,
    };
    Ok(out)
}

/// meshoptimizer's effort level for [`reorder_for_codec`]: "the sweet spot for compression
/// ratio is around 3" (meshoptimizer.h); `clod_build` orders clusters at level 1.
const CODEC_ORDER_LEVEL: u8 = 3;

/// Reorders each cluster's vertices and triangles (same triangles, same winding, corners
/// possibly rotated) for a smaller meshlet-codec stream; plain topology only, and run only
/// under `cluster_compress`, so plain files keep `clod_build`'s order.
pub fn reorder_for_codec(lod: &mut ClusterLod) {
    let ClodTopology::Plain {
        vertices,
        triangles,
    } = &mut lod.topology
    else {
        return;
    };
    for c in &lod.clusters {
        let (v0, t0) = (c.vertex_offset as usize, c.triangle_offset as usize);
        let verts = vertices.get_mut(v0..v0 + c.vertex_count as usize);
        let tris = triangles.get_mut(t0..t0 + c.triangle_count as usize);
        if let (Some(verts), Some(tris)) = (verts, tris) {
            meshopt::optimize_meshlet_level(
                verts,
                bytemuck::cast_slice_mut(tris),
                CODEC_ORDER_LEVEL,
            );
        }
    }
}

/// Triangles left in clusters whose simplification got stuck: members of a terminal group
/// (no coarser version), except the single-cluster root a hierarchy ends in when nothing
/// got stuck (the last group of each submesh).
pub fn stuck_triangles(lod: &ClusterLod) -> usize {
    let mut stuck = 0;
    for s in &lod.submeshes {
        let first = s.first_group as usize;
        let groups = lod
            .groups
            .get(first..first + s.group_count as usize)
            .unwrap_or(&[]);
        for (i, g) in groups.iter().enumerate() {
            let natural_root = i + 1 == groups.len() && g.cluster_count == 1;
            if g.error < f32::MAX || natural_root {
                continue;
            }
            let c = g.first_cluster as usize;
            stuck += lod
                .clusters
                .get(c..c + g.cluster_count as usize)
                .unwrap_or(&[])
                .iter()
                .map(|c| c.triangle_count as usize)
                .sum::<usize>();
        }
    }
    stuck
}

#[cfg(test)]
mod tests;
