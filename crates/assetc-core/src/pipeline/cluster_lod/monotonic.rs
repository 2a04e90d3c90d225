//! Nesting bounds so that the cut is a pure per-cluster test. A renderer draws a cluster
//! when its own projected error is within the threshold and its parent's is not; that
//! picks exactly one version of every part of the surface only if projected errors never
//! shrink going up: each parent's error at least its children's and its sphere containing
//! theirs (then the nearest point of the parent's sphere is never farther from any eye).
//! `clod_build` merges spheres with meshoptimizer's approximate sphere of spheres, which
//! holds this up to float rounding; here it is made to hold exactly, with a margin of a
//! millionth of the distance so that equal errors still project strictly larger.

use crate::formats::hmesh::clod::{ClodNode, ClusterLod, LodSphere};

const MARGIN: f64 = 1e-6;

/// Grows `outer` until it contains `inner`; returns whether it grew.
fn contain(outer: &mut LodSphere, inner: &LodSphere) -> bool {
    let d = (0..3)
        .map(|k| f64::from(outer.center[k]) - f64::from(inner.center[k]))
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt();
    let needed = (d + f64::from(inner.radius)) * (1.0 + MARGIN);
    if f64::from(outer.radius) >= needed {
        return false;
    }
    let mut r = needed as f32;
    while f64::from(r) < needed {
        r = f32::from_bits(r.to_bits() + 1);
    }
    outer.radius = r;
    true
}

/// Every group's sphere contains, and its error is at least, those of the groups its
/// clusters were simplified from. Groups come out of `clod_build` after the groups they
/// refine, so one pass in order settles every chain.
pub fn nest_groups(lod: &mut ClusterLod) {
    for g in 0..lod.groups.len() {
        let group = lod.groups[g];
        let first = group.first_cluster as usize;
        let mut sphere = group.sphere;
        let mut error = group.error;
        for c in &lod.clusters[first..first + group.cluster_count as usize] {
            let Ok(r) = usize::try_from(c.refined) else {
                continue;
            };
            let source = lod.groups[r];
            error = error.max(source.error);
            // A terminal group's error is infinite when projected: no sphere needed.
            if error < f32::MAX {
                contain(&mut sphere, &source.sphere);
            }
        }
        lod.groups[g].sphere = sphere;
        lod.groups[g].error = error;
    }
}

/// Every inner node covers its children. Below the roots (the first `level_count` nodes)
/// children come before their parents, so nodes in index order, then the roots, settle it.
pub fn nest_nodes(nodes: &mut [ClodNode], level_count: usize) {
    let order = (level_count..nodes.len()).chain(0..level_count.min(nodes.len()));
    for n in order {
        let node = nodes[n];
        if node.group >= 0 {
            continue;
        }
        let first = node.child_offset as usize;
        let mut sphere = node.sphere;
        let mut error = node.error;
        for child in &nodes[first..first + node.child_count as usize] {
            error = error.max(child.error);
            contain(&mut sphere, &child.sphere);
        }
        nodes[n].sphere = sphere;
        nodes[n].error = error;
    }
}
