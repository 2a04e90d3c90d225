//! Large primitives cut into regions of triangles that stages run on in parallel
//! (tangents, levels of detail), and positions classed by bit-equality (the seams between
//! regions). Regions depend only on the geometry, never on the thread count.

use super::weld::float_key;
use rayon::prelude::*;

/// Triangles cut into regions of about `region_triangles` along the longest axis of their
/// centroids (slabs: a region's border with the others stays short whatever the triangle
/// order), each region in ascending triangle order. Depends only on the geometry.
pub fn spatial_regions(
    indices: &[u32],
    positions: &[[f32; 4]],
    region_triangles: usize,
) -> Vec<Vec<u32>> {
    let triangles = indices.len() / 3;
    let centroid = |t: usize, axis: usize| {
        (0..3)
            .map(|k| positions[indices[t * 3 + k] as usize][axis])
            .sum::<f32>()
    };
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in positions {
        for a in 0..3 {
            if p[a].is_finite() {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
    }
    let axis = (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
        .unwrap_or(0);
    let mut order: Vec<(f32, u32)> = (0..triangles)
        .into_par_iter()
        .map(|t| (centroid(t, axis), t as u32))
        .collect();
    order.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let count = triangles.div_ceil(region_triangles);
    let size = triangles.div_ceil(count);
    order
        .chunks(size)
        .map(|chunk| {
            let mut faces: Vec<u32> = chunk.iter().map(|&(_, t)| t).collect();
            faces.sort_unstable();
            faces
        })
        .collect()
}

/// Every vertex's position class (vertices at bit-equal positions, -0 as 0, share one)
/// and the number of classes.
pub fn position_classes(positions: &[[f32; 4]]) -> (usize, Vec<u32>) {
    // Positions as bits with -0.0 as 0.0, classed by meshoptimizer's hash remap (which
    // compares bytes).
    let keys: Vec<[u32; 3]> = positions
        .par_iter()
        .map(|p| [float_key(p[0]), float_key(p[1]), float_key(p[2])])
        .collect();
    meshopt::generate_vertex_remap(&keys, None)
}
