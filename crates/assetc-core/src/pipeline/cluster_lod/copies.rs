//! Each coarser level's own copy of the vertices it uses (`mesh.cluster_vertex_copies`).
//!
//! With one shared vertex stream, a level above 0 references a sparse subset of the
//! source's vertices, so the meshlet codec's deltas between its references are large
//! (13.59 bits per stored triangle on the 1M curved field). Copying the vertices each
//! level uses, in the order its clusters first use them, makes those references +1 runs
//! again, as at level 0 (11.6 bits; `examples/clod_vertex_orders.rs` compares the orders).
//! The copies go after every vertex the mesh already has; the classic index buffer,
//! meshlets and LODs keep referencing the originals, so classic draws never read them.
//! Copies are exact (same bytes), so a cut that mixes levels still meets at equal
//! positions: no crack a renderer could see.

use crate::formats::hmesh::clod::{ClodTopology, ClusterLod};
use crate::formats::hmesh::HMesh;
use std::collections::HashMap;

/// Points every reference of a cluster above level 0 at a copy numbered from
/// `vertex_count` on: one copy per (level, vertex), numbered in first-use order over the
/// clusters as stored. Returns the copied vertex of each new number, in order (empty for
/// encoded topology, which this never sees: copies are made before encoding).
pub fn copy_level_vertices(lod: &mut ClusterLod, vertex_count: u32) -> Vec<u32> {
    let ClodTopology::Plain { vertices, .. } = &mut lod.topology else {
        return Vec::new();
    };
    // Keyed lookups only; the numbering follows the clusters' order, so it is
    // deterministic whatever the hash order.
    let mut copy_of: HashMap<(u32, u32), u32> = HashMap::new();
    let mut copied = Vec::new();
    for c in lod.clusters.iter().filter(|c| c.level > 0) {
        let at = c.vertex_offset as usize;
        let Some(refs) = vertices.get_mut(at..at + c.vertex_count as usize) else {
            continue;
        };
        for v in refs {
            *v = *copy_of.entry((c.level, *v)).or_insert_with(|| {
                copied.push(*v);
                vertex_count + copied.len() as u32 - 1
            });
        }
    }
    copied
}

/// Appends a copy of each vertex in `copied` (numbers of existing vertices) to every
/// per-vertex array of `mesh`: the vertex stream, the skin rows and the second UV set.
/// Nothing else references them, so the index buffer, meshlets and LODs are unchanged.
pub fn append_vertex_copies(mesh: &mut HMesh, copied: &[u32]) {
    fn append<T: Copy>(items: &mut Vec<T>, copied: &[u32]) {
        items.reserve(copied.len());
        for &v in copied {
            // Numbers of vertices the clusters reference, all below the original count.
            if let Some(&item) = items.get(v as usize) {
                items.push(item);
            }
        }
    }
    append(&mut mesh.vertices, copied);
    if let Some(skin) = &mut mesh.skinning {
        append(&mut skin.vertices, copied);
    }
    if let Some(uv1) = &mut mesh.uv1 {
        append(uv1, copied);
    }
}

/// Both steps: the coarser levels' references moved to copies appended to `mesh`.
pub fn give_levels_their_own_vertices(lod: &mut ClusterLod, mesh: &mut HMesh) {
    let copied = copy_level_vertices(lod, mesh.vertices.len() as u32);
    append_vertex_copies(mesh, &copied);
}
