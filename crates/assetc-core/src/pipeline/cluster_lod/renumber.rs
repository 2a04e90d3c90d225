//! Numbering the mesh's vertices in the order the clusters first use them, so that the
//! meshlet codec's vertex references are cheap.
//!
//! The codec stores each cluster's vertex references as deltas from the previous one
//! (`meshopt_encodeMeshlet`: zigzag varints of 0-4 bytes plus 2 control bits); a delta of
//! exactly +1 costs the 2 bits alone. In the order the pipeline leaves the vertices (the
//! classic index buffer's first use, or a source's own order) a cluster's references jump
//! around the buffer. Numbered by first use in cluster order (after each cluster's own
//! vertex order is final), a source cluster's new vertices become a +1 run, and only the
//! vertices it shares with earlier clusters, and the sparse subsets the coarser levels
//! reference, still jump. This is a permutation: no vertex is added, so vertex bytes are
//! unchanged; the classic index buffer, meshlets and LODs are renumbered with it.

use crate::formats::hmesh::clod::{ClodTopology, ClusterLod};
use crate::formats::hmesh::HMesh;

/// The new index of every vertex: those each submesh's clusters reference, numbered in
/// order of first use (clusters in order, each cluster's references in order). Submesh `s`
/// owns the `vertex_counts[s]` vertices after those of the submeshes before (as the mesh
/// packs them) and keeps that range; its vertices no cluster uses follow its used ones in
/// their old order. `None` for encoded topology or references outside their submesh's
/// range.
pub fn first_use_order(lod: &ClusterLod, vertex_counts: &[usize]) -> Option<Vec<u32>> {
    let ClodTopology::Plain { vertices, .. } = &lod.topology else {
        return None;
    };
    const UNSET: u32 = u32::MAX;
    let mut new_of_old = vec![UNSET; vertex_counts.iter().sum()];
    let mut start = 0usize;
    for (s, &count) in vertex_counts.iter().enumerate() {
        let range = start..start + count;
        let mut next = start as u32;
        if let Some(row) = lod.submeshes.get(s) {
            let first = row.first_cluster as usize;
            let clusters = lod
                .clusters
                .get(first..first + row.cluster_count as usize)?;
            for c in clusters {
                let at = c.vertex_offset as usize;
                for &v in vertices.get(at..at + c.vertex_count as usize)? {
                    if !range.contains(&(v as usize)) {
                        return None;
                    }
                    if new_of_old[v as usize] == UNSET {
                        new_of_old[v as usize] = next;
                        next += 1;
                    }
                }
            }
        }
        for slot in &mut new_of_old[range] {
            if *slot == UNSET {
                *slot = next;
                next += 1;
            }
        }
        start += count;
    }
    Some(new_of_old)
}

/// Renumbers the clusters' plain vertex references with `new_of_old` (from
/// [`first_use_order`]).
pub fn renumber_clusters(lod: &mut ClusterLod, new_of_old: &[u32]) {
    if let ClodTopology::Plain { vertices, .. } = &mut lod.topology {
        for v in vertices.iter_mut() {
            if let Some(&n) = new_of_old.get(*v as usize) {
                *v = n;
            }
        }
    }
}

/// Applies `new_of_old` (a permutation of the mesh's vertices) to every per-vertex array
/// of `mesh` and to every vertex reference outside the cluster chunks: the index buffer,
/// the meshlets' vertices and the LOD indices.
pub fn renumber_mesh(mesh: &mut HMesh, new_of_old: &[u32]) {
    if new_of_old.len() != mesh.vertices.len() {
        return;
    }
    fn permute<T: Copy + Default>(items: &mut Vec<T>, new_of_old: &[u32]) {
        if items.len() != new_of_old.len() {
            return;
        }
        let mut out = vec![T::default(); items.len()];
        for (old, &new) in new_of_old.iter().enumerate() {
            out[new as usize] = items[old];
        }
        *items = out;
    }
    let remap = |refs: &mut [u32]| {
        for r in refs {
            if let Some(&n) = new_of_old.get(*r as usize) {
                *r = n;
            }
        }
    };
    permute(&mut mesh.vertices, new_of_old);
    if let Some(skin) = &mut mesh.skinning {
        permute(&mut skin.vertices, new_of_old);
    }
    if let Some(uv1) = &mut mesh.uv1 {
        permute(uv1, new_of_old);
    }
    remap(&mut mesh.indices);
    remap(&mut mesh.meshlet_vertices);
    if let Some(lods) = &mut mesh.lods {
        remap(&mut lods.indices);
    }
}
