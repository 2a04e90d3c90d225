//! Large primitives cut into regions of triangles that stages run on in parallel
//! (levels of detail), and positions classed by bit-equality (the seams between
//! regions). Regions depend only on the geometry, never on the thread count.

use super::weld::float_key;
use rayon::prelude::*;

/// Triangles cut into regions of at most `region_triangles`, each in ascending triangle
/// order: the triangles are halved by count at the median of their centroids' longest
/// axis, and each half again, until every part is small enough (a k-d tree's leaves).
/// Regions come out about square, so the border a region shares with the others (whose
/// vertices `lods` locks) is short against its area: a 32,768-triangle region of a grid
/// has about 510 border edges, a slab of the same size across a 708-quad-wide grid
/// 1,416. Depends only on the geometry (ties in position go by triangle number), never
/// on the thread count.
pub fn spatial_regions(
    indices: &[u32],
    positions: &[[f32; 4]],
    region_triangles: usize,
) -> Vec<Vec<u32>> {
    let mut cells: Vec<(u32, [f32; 3])> = indices
        .par_chunks_exact(3)
        .enumerate()
        .map(|(t, tri)| {
            let mut c = [0.0f32; 3];
            for &v in tri {
                let p = positions[v as usize];
                for a in 0..3 {
                    c[a] += p[a];
                }
            }
            (t as u32, c)
        })
        .collect();
    let mut sizes = Vec::new();
    split_cells(&mut cells, region_triangles.max(1), &mut sizes);
    // The parts are consecutive in `cells`; each region's triangles in ascending order,
    // by one pass over the triangles rather than a sort per region.
    let mut region_of = vec![0u32; cells.len()];
    let mut start = 0;
    for (region, &size) in sizes.iter().enumerate() {
        for &(t, _) in &cells[start..start + size] {
            region_of[t as usize] = region as u32;
        }
        start += size;
    }
    drop(cells);
    let mut regions: Vec<Vec<u32>> = sizes.iter().map(|&n| Vec::with_capacity(n)).collect();
    for (t, &region) in region_of.iter().enumerate() {
        regions[region as usize].push(t as u32);
    }
    regions
}

/// Halves `cells` in place until no part is over `limit`, appending the parts' sizes to
/// `sizes` in the order the parts then lie in `cells`.
fn split_cells(cells: &mut [(u32, [f32; 3])], limit: usize, sizes: &mut Vec<usize>) {
    if cells.len() <= limit {
        sizes.push(cells.len());
        return;
    }
    let axis = longest_axis(cells);
    let middle = cells.len() / 2;
    // Centroids that are not finite (bad positions are rejected before this stage; this
    // keeps the order total anyway) sort by their bits.
    cells.select_nth_unstable_by(middle, |a, b| {
        a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0))
    });
    let (lower, upper) = cells.split_at_mut(middle);
    // Large halves go on splitting on two threads, small ones on this one, where a task
    // would cost about as much as the work it moves. Either way the parts are the same.
    if lower.len() >= 1 << 16 {
        let mut upper_sizes = Vec::new();
        rayon::join(
            || split_cells(lower, limit, sizes),
            || split_cells(upper, limit, &mut upper_sizes),
        );
        sizes.append(&mut upper_sizes);
    } else {
        split_cells(lower, limit, sizes);
        split_cells(upper, limit, sizes);
    }
}

/// The axis along which the centroids of `cells` spread furthest.
fn longest_axis(cells: &[(u32, [f32; 3])]) -> usize {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for (_, c) in cells {
        for a in 0..3 {
            if c[a].is_finite() {
                lo[a] = lo[a].min(c[a]);
                hi[a] = hi[a].max(c[a]);
            }
        }
    }
    (0..3)
        .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
        .unwrap_or(0)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An `n` x `n` vertex grid in row order: 2 (n-1)^2 triangles.
    fn grid(n: u32) -> (Vec<[f32; 4]>, Vec<u32>) {
        let positions = (0..n * n)
            .map(|i| [(i % n) as f32, 0.0, (i / n) as f32, 0.0])
            .collect();
        let mut indices = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                indices.extend_from_slice(&[i, i + n, i + 1, i + 1, i + n, i + n + 1]);
            }
        }
        (positions, indices)
    }

    #[test]
    fn regions_hold_every_triangle_once_in_ascending_order_within_the_limit() {
        let (positions, indices) = grid(120);
        let triangles = indices.len() / 3;
        for limit in [1, 7, 1000, 5000, triangles - 1, triangles, triangles * 2] {
            let regions = spatial_regions(&indices, &positions, limit);
            let mut seen = vec![0u32; triangles];
            for region in &regions {
                assert!(!region.is_empty() && region.len() <= limit, "limit {limit}");
                assert!(region.windows(2).all(|w| w[0] < w[1]), "ascending");
                for &t in region {
                    seen[t as usize] += 1;
                }
            }
            assert!(
                seen.iter().all(|&c| c == 1),
                "limit {limit}: each triangle once"
            );
            // Halving by count: never more regions than twice the least possible.
            assert!(
                regions.len() < 2 * triangles.div_ceil(limit),
                "limit {limit}"
            );
        }
    }

    #[test]
    fn regions_of_a_grid_are_about_square() {
        // 2 * 256^2 = 131,072 triangles in 16 regions of 8,192: a 4 x 4 checkerboard of
        // 64 x 64-quad squares. Slabs of the same size would be 256 x 16 quads.
        let n = 257;
        let (positions, indices) = grid(n);
        let regions = spatial_regions(&indices, &positions, 8192);
        assert_eq!(regions.len(), 16);
        for region in &regions {
            let mut lo = [f32::INFINITY; 2];
            let mut hi = [f32::NEG_INFINITY; 2];
            for &t in region {
                for &v in &indices[t as usize * 3..t as usize * 3 + 3] {
                    let p = positions[v as usize];
                    for (a, c) in [p[0], p[2]].into_iter().enumerate() {
                        lo[a] = lo[a].min(c);
                        hi[a] = hi[a].max(c);
                    }
                }
            }
            let (w, h) = (hi[0] - lo[0], hi[1] - lo[1]);
            assert!(w <= 66.0 && h <= 66.0, "a {w} x {h} region");
        }
    }

    #[test]
    fn regions_depend_on_the_geometry_only() {
        // 134,162 triangles: halves over 65,536 are split on two threads when there are.
        let (positions, indices) = grid(260);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| spatial_regions(&indices, &positions, 3000));
        let four = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| spatial_regions(&indices, &positions, 3000));
        assert_eq!(one, four);
    }
}
