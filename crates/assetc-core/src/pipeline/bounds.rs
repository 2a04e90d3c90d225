//! Axis-aligned boxes and enclosing spheres.

use crate::formats::hmesh::MeshBounds;
use glam::Vec3;

/// AABB of the points, and a sphere centred on the box that encloses every point. An empty
/// set gives all-zero bounds.
pub fn compute_bounds<'a>(points: impl Iterator<Item = &'a [f32; 3]> + Clone) -> MeshBounds {
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for p in points.clone() {
        let p = Vec3::from(*p);
        min = min.min(p);
        max = max.max(p);
    }
    if min.x > max.x {
        return MeshBounds::default();
    }
    let center = (min + max) * 0.5;
    let radius = points
        .map(|p| Vec3::from(*p).distance(center))
        .fold(0.0f32, f32::max);
    MeshBounds {
        aabb_min: min.to_array(),
        aabb_max: max.to_array(),
        sphere_center: center.to_array(),
        // One ulp-scale margin so that rounding in a reader's distance test never puts a
        // vertex outside its own sphere.
        sphere_radius: radius * (1.0 + 4.0 * f32::EPSILON),
    }
}
