//! The reference cut: which clusters a renderer draws for a camera and a pixel error. The
//! same test a GPU culling pass runs, on the CPU, so tools and tests can check what a
//! renderer will see.

use super::{ClusterLod, LodSphere};

/// What the cut needs of a camera: where the eye is and how many pixels one model unit at
/// unit distance spans (`projection[1][1] * viewport_height / 2` for a perspective
/// projection: [`CutCamera::perspective`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CutCamera {
    pub eye: [f32; 3],
    pub focal_px: f32,
    /// Distances are clamped to this (positive) near distance.
    pub znear: f32,
}

impl CutCamera {
    /// From a projection's `[1][1]` entry (cot(fovy / 2)) and the viewport height.
    pub fn perspective(eye: [f32; 3], proj_y: f32, viewport_height_px: f32, znear: f32) -> Self {
        Self {
            eye,
            focal_px: proj_y * viewport_height_px * 0.5,
            znear,
        }
    }
}

/// `error` of `sphere` seen from `camera`, in pixels: the error over the distance to the
/// nearest point of the sphere. Conservative: a sphere containing another, with an error
/// at least as large, never projects smaller. `f32::MAX` (no coarser version) projects to
/// infinity and 0 to 0 wherever the eye is.
pub fn projected_error(sphere: &LodSphere, error: f32, camera: &CutCamera) -> f64 {
    if error <= 0.0 {
        return 0.0;
    }
    if error >= f32::MAX {
        return f64::INFINITY;
    }
    let d: f64 = (0..3)
        .map(|k| f64::from(sphere.center[k]) - f64::from(camera.eye[k]))
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt();
    let distance = (d - f64::from(sphere.radius)).max(f64::from(camera.znear));
    f64::from(error) / distance * f64::from(camera.focal_px)
}

/// The clusters to draw, by the per-cluster test alone: own projected error at most
/// `threshold_px`, parent's above it. Sorted by cluster index.
pub fn cut_by_test(lod: &ClusterLod, camera: &CutCamera, threshold_px: f32) -> Vec<u32> {
    let t = f64::from(threshold_px);
    lod.errors
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            projected_error(&e.own_sphere, e.own_error, camera) <= t
                && projected_error(&e.parent_sphere, e.parent_error, camera) > t
        })
        .map(|(i, _)| i as u32)
        .collect()
}

/// The same cut found the way a renderer would: down each level's tree while a node's
/// projected error is over the threshold, then, in each group reached, the clusters whose
/// own error is at most the threshold. Sorted by cluster index. Equal to [`cut_by_test`]
/// on a valid file (node bounds contain their groups'); on a damaged one it visits each
/// node at most once and skips what is out of range.
pub fn cut_by_hierarchy(lod: &ClusterLod, camera: &CutCamera, threshold_px: f32) -> Vec<u32> {
    let t = f64::from(threshold_px);
    let mut visited = vec![false; lod.nodes.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for s in &lod.submeshes {
        let roots =
            s.first_node as usize..(s.first_node as usize).saturating_add(s.level_count as usize);
        stack.extend(roots.rev());
        while let Some(n) = stack.pop() {
            let Some(node) = lod.nodes.get(n) else {
                continue;
            };
            if std::mem::replace(&mut visited[n], true) {
                continue;
            }
            if projected_error(&node.sphere, node.error, camera) <= t {
                continue;
            }
            if node.group >= 0 {
                let Some(group) = lod.groups.get(node.group as usize) else {
                    continue;
                };
                let first = group.first_cluster as usize;
                for c in first..first.saturating_add(group.cluster_count as usize) {
                    if let Some(e) = lod.errors.get(c) {
                        if projected_error(&e.own_sphere, e.own_error, camera) <= t {
                            out.push(c as u32);
                        }
                    }
                }
            } else {
                let first = node.child_offset as usize;
                stack.extend((first..first.saturating_add(node.child_count as usize)).rev());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
