//! Reduced levels of detail (meshoptimizer simplification).

use super::regions::{position_classes, spatial_regions};
use meshopt::{SimplifyOptions, VertexDataAdapter};
use rayon::prelude::*;

/// Triangles up to which a primitive is simplified whole, on one thread.
const WHOLE_TRIANGLES: usize = 1 << 17;

/// Triangles per region of a larger primitive, simplified region by region in parallel.
/// The simplifier walks its per-vertex arrays at random, so a region whose arrays stay in
/// a core's cache simplifies faster: regions of 32,768 triangles take less CPU than
/// regions of 131,072, with the levels as close to the full mesh (`cargo bench --bench
/// stages`, docs/performance.md). A fixed size (never the thread count) keeps the levels
/// the same on any machine.
const REGION_TRIANGLES: usize = 1 << 15;

/// One reduced level of detail.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LodLevel {
    /// Empty when the simplifier stalled ("reuse the previous level").
    pub indices: Vec<u32>,
    /// The simplifier's error in model units (what Qt selects levels by).
    pub error: f32,
}

/// Simplifies `indices` toward each ratio of its triangle count. Each level is simplified
/// from the previous one (a cascade, as meshoptimizer's cluster-LOD examples do): a quarter
/// from a half costs about half as much as from LOD0. Errors add up along the cascade, so
/// each step gets what is left of `target_error` (relative to the mesh's extent), and a
/// level's `error` is the sum of the steps to it (a bound on its distance from LOD0). A
/// level that does not get below the previous level's size has stalled and is returned
/// empty ("reuse the previous level"), as `.hmesh` encodes it; the next level then starts
/// from the last one that did not.
///
/// A primitive over [`WHOLE_TRIANGLES`] is cut into spatial regions of at most
/// [`REGION_TRIANGLES`] simplified apart, in parallel, as meshoptimizer's cluster-LOD
/// builder simplifies groups: the vertices where regions meet are locked so the regions
/// still join without cracks, and a level is the regions' levels one after another, its
/// error the largest of theirs.
pub fn build_lods(
    positions: &[[f32; 4]],
    indices: &[u32],
    ratios: &[f32],
    target_error: f32,
) -> Vec<LodLevel> {
    if indices.is_empty() {
        return vec![LodLevel::default(); ratios.len()];
    }
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(positions);
    let Ok(adapter) = VertexDataAdapter::new(bytes, 16, 0) else {
        return vec![LodLevel::default(); ratios.len()];
    };
    // Errors in model units, so that regions of different extents share one limit.
    let limit = target_error * meshopt::simplify_scale(&adapter);
    if indices.len() / 3 <= WHOLE_TRIANGLES {
        return cascade(&adapter, indices, None, ratios, limit);
    }
    let regions = spatial_regions(indices, positions, REGION_TRIANGLES);
    let locks = seam_locks(indices, positions, &regions);
    let region_indices = |faces: &[u32]| -> Vec<u32> {
        faces
            .iter()
            .flat_map(|&t| indices[t as usize * 3..t as usize * 3 + 3].iter().copied())
            .collect()
    };
    // One region per task: rayon otherwise hands a thread several regions in a row, and
    // a thread freed by the meshlets beside this finds nothing left to take (a one-core
    // tail on a large mesh).
    let per_region: Vec<Vec<LodLevel>> = regions
        .par_iter()
        .with_max_len(1)
        .map(|faces| {
            cascade(
                &adapter,
                &region_indices(faces),
                Some(&locks),
                ratios,
                limit,
            )
        })
        .collect();
    let mut merged: Vec<LodLevel> = Vec::with_capacity(ratios.len());
    let mut previous_len = indices.len();
    for level in 0..ratios.len() {
        let mut joined = LodLevel::default();
        for (faces, levels) in regions.iter().zip(&per_region) {
            // The region's level, or the last one it reached before (LOD0 when none).
            match levels[..=level]
                .iter()
                .rev()
                .find(|l| !l.indices.is_empty())
            {
                Some(reached) => {
                    joined.indices.extend_from_slice(&reached.indices);
                    joined.error = joined.error.max(reached.error);
                }
                None => joined.indices.extend(region_indices(faces)),
            }
        }
        if joined.indices.len() >= previous_len {
            merged.push(LodLevel::default());
        } else {
            previous_len = joined.indices.len();
            merged.push(joined);
        }
    }
    merged
}

/// The levels of `lod0` (see [`build_lods`]), errors in model units; `locks` (one per vertex
/// of the adapter) when `lod0` is one region of a larger mesh.
fn cascade(
    adapter: &VertexDataAdapter,
    lod0: &[u32],
    locks: Option<&[bool]>,
    ratios: &[f32],
    limit: f32,
) -> Vec<LodLevel> {
    let mut options = SimplifyOptions::ErrorAbsolute;
    if locks.is_some() {
        // Work proportional to the region, not to the whole vertex buffer.
        options |= SimplifyOptions::Sparse;
    }
    let mut levels: Vec<LodLevel> = Vec::with_capacity(ratios.len());
    // The level the next one is simplified from (index into `levels`; None for LOD0) and
    // the error accumulated to it.
    let mut from: Option<usize> = None;
    let mut accumulated = 0.0f32;
    for &ratio in ratios {
        let source = from.map_or(lod0, |l| levels[l].indices.as_slice());
        let target = ((lod0.len() as f64 * f64::from(ratio)) as usize / 3) * 3;
        // A level may come out below its own target (a collapse removes several
        // triangles), so the next target can be at or above what that level holds:
        // meshoptimizer requires a target no larger than its input (its assert aborted
        // MetalRoughSpheresNoTextures), and there is nothing to reduce then.
        if target >= source.len() {
            levels.push(LodLevel::default());
            continue;
        }
        let left = (limit - accumulated).max(0.0);
        let mut error = 0.0f32;
        let mut level = match locks {
            Some(locks) => meshopt::simplify_with_locks(
                source,
                adapter,
                locks,
                target,
                left,
                options,
                Some(&mut error),
            ),
            None => meshopt::simplify(source, adapter, target, left, options, Some(&mut error)),
        };
        if level.is_empty() || level.len() >= source.len() {
            levels.push(LodLevel::default());
        } else {
            // The simplifier returns its result in a buffer the size of its input.
            level.shrink_to_fit();
            accumulated += error;
            from = Some(levels.len());
            levels.push(LodLevel {
                indices: level,
                error: accumulated,
            });
        }
    }
    levels
}

/// Whether each vertex sits at a position that triangles of two or more regions touch
/// (by position, not vertex index: a UV seam along a region border has a vertex on each
/// side, and both must stay).
fn seam_locks(indices: &[u32], positions: &[[f32; 4]], regions: &[Vec<u32>]) -> Vec<bool> {
    const UNTOUCHED: u32 = u32::MAX;
    const SHARED: u32 = u32::MAX - 1;
    let (classes, class) = position_classes(positions);
    let mut owner = vec![UNTOUCHED; classes];
    for (region, faces) in regions.iter().enumerate() {
        for &t in faces {
            for &v in &indices[t as usize * 3..t as usize * 3 + 3] {
                let o = &mut owner[class[v as usize] as usize];
                if *o == UNTOUCHED {
                    *o = region as u32;
                } else if *o != region as u32 {
                    *o = SHARED;
                }
            }
        }
    }
    class.iter().map(|&c| owner[c as usize] == SHARED).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_grid_simplifies_and_single_triangle_stalls() {
        let n = 33u32;
        let positions: Vec<[f32; 4]> = (0..n * n)
            .map(|i| [(i % n) as f32, (i / n) as f32, 0.0, 0.0])
            .collect();
        let mut indices = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                indices.extend_from_slice(&[i, i + 1, i + n, i + 1, i + n + 1, i + n]);
            }
        }
        let lods = build_lods(&positions, &indices, &[0.5, 0.25], 0.05);
        let lods: Vec<Vec<u32>> = lods.into_iter().map(|l| l.indices).collect();
        assert!(!lods[0].is_empty() && lods[0].len() <= indices.len() / 2);
        assert!(lods[1].is_empty() || lods[1].len() < lods[0].len());
        assert!(lods
            .iter()
            .flatten()
            .all(|&i| (i as usize) < positions.len()));

        // A cascade: LOD2 is simplified from LOD1, so it only uses LOD1's vertices, and its
        // error includes LOD1's.
        let levels = build_lods(&positions, &indices, &[0.5, 0.25], 0.05);
        if !levels[1].indices.is_empty() {
            let in_lod1: std::collections::HashSet<u32> =
                levels[0].indices.iter().copied().collect();
            assert!(levels[1].indices.iter().all(|v| in_lod1.contains(v)));
            assert!(levels[1].error >= levels[0].error);
        }

        let tri = build_lods(&positions[..3], &[0, 1, 2], &[0.5], 0.05);
        assert_eq!(
            tri,
            vec![LodLevel::default()],
            "one triangle cannot be simplified: stalled"
        );
    }

    /// An `n` x `n` height field with hills (so simplification has error), every vertex
    /// doubled along the row `y == seam_row` as a UV seam would (same position, two
    /// vertices, triangles above use one and below the other).
    fn hills(n: u32, seam_row: u32) -> (Vec<[f32; 4]>, Vec<u32>) {
        let mut positions: Vec<[f32; 4]> = (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as f32, (i / n) as f32);
                [x, 4.0 * (x * 0.07).sin() * (y * 0.05).cos(), y, 0.0]
            })
            .collect();
        let copy_base = positions.len() as u32;
        positions.extend_from_within((seam_row * n) as usize..((seam_row + 1) * n) as usize);
        let mut indices = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let at = |x: u32, y: u32, upper: bool| {
                    if y == seam_row && upper {
                        copy_base + x
                    } else {
                        y * n + x
                    }
                };
                // Triangles of the quad row `y` use row y's copy when y is the seam row.
                let (a, b) = (at(x, y, true), at(x + 1, y, true));
                let (c, d) = (at(x, y + 1, false), at(x + 1, y + 1, false));
                indices.extend_from_slice(&[a, b, c, b, d, c]);
            }
        }
        (positions, indices)
    }

    /// Edges used by one triangle only, as position pairs (vertices at one position count
    /// as one).
    fn open_edges(positions: &[[f32; 4]], indices: &[u32]) -> Vec<([u32; 3], [u32; 3])> {
        let key = |v: u32| {
            let p = positions[v as usize];
            [p[0].to_bits(), p[1].to_bits(), p[2].to_bits()]
        };
        let mut count = std::collections::HashMap::new();
        for t in indices.chunks_exact(3) {
            for k in 0..3 {
                let (a, b) = (key(t[k]), key(t[(k + 1) % 3]));
                *count
                    .entry(if a < b { (a, b) } else { (b, a) })
                    .or_insert(0) += 1;
            }
        }
        count
            .into_iter()
            .filter(|&(_, c)| c == 1)
            .map(|(e, _)| e)
            .collect()
    }

    /// Panics when `indices` has an open edge off the `n` x `n` field's outline: a crack.
    fn assert_no_cracks(positions: &[[f32; 4]], indices: &[u32], n: u32, what: &str) {
        let edge = (n - 1) as f32;
        let on_outline = |p: [u32; 3]| {
            let (x, z) = (f32::from_bits(p[0]), f32::from_bits(p[2]));
            x == 0.0 || z == 0.0 || x == edge || z == edge
        };
        for (a, b) in open_edges(positions, indices) {
            assert!(
                on_outline(a) && on_outline(b),
                "{what}: a crack between regions at {:?}",
                [f32::from_bits(a[0]), f32::from_bits(a[2])]
            );
        }
    }

    #[test]
    fn a_level_below_the_next_target_is_not_simplified_again() {
        // Two equal ratios: the second level's target is the first's, which the first
        // level already reached or passed (meshoptimizer asserts a target no larger than
        // its input; a sample model aborted the build on it).
        let (positions, indices) = hills(40, 20);
        let bytes = bytemuck::cast_slice::<[f32; 4], u8>(&positions);
        let adapter = VertexDataAdapter::new(bytes, 16, 0).unwrap();
        let limit = meshopt::simplify_scale(&adapter);
        let levels = cascade(&adapter, &indices, None, &[0.5, 0.5, 0.25], limit);
        assert!(!levels[0].indices.is_empty());
        assert!(levels[1].indices.is_empty(), "nothing left to reduce");
        assert!(levels[2].indices.len() < levels[0].indices.len());
    }

    #[test]
    fn a_large_mesh_is_simplified_by_regions_that_still_meet() {
        // 2 * 299^2 = 178,802 triangles: eight regions; a UV seam runs along y = 150,
        // where regions meet.
        let n = 300u32;
        let (positions, indices) = hills(n, 150);
        assert!(indices.len() / 3 > WHOLE_TRIANGLES);
        let levels = build_lods(&positions, &indices, &[0.5, 0.25], 1.0);
        let whole = {
            let bytes = bytemuck::cast_slice::<[f32; 4], u8>(&positions);
            let adapter = VertexDataAdapter::new(bytes, 16, 0).unwrap();
            let limit = meshopt::simplify_scale(&adapter);
            cascade(&adapter, &indices, None, &[0.5, 0.25], limit)
        };
        for (level, (by_regions, whole)) in levels.iter().zip(&whole).enumerate() {
            let (got, want) = (by_regions.indices.len() / 3, whole.indices.len() / 3);
            assert!(got > 0 && want > 0, "LOD{} built", level + 1);
            // Locked seams cost a few triangles over the target, no more.
            assert!(
                got.abs_diff(want) * 100 < want,
                "LOD{}: {got} triangles by regions, {want} whole",
                level + 1
            );
            assert!(by_regions.error > 0.0 && by_regions.error.is_finite());
            assert_no_cracks(&positions, &by_regions.indices, n, "default ratios");
        }
        // Every level is simplified from the one before (a cascade), region by region.
        let lod1: std::collections::HashSet<u32> = levels[0].indices.iter().copied().collect();
        assert!(levels[1].indices.iter().all(|v| lod1.contains(v)));
        assert!(levels[1].error >= levels[0].error);

        // Asked for 180 triangles, the simplifier collapses region borders too (measured:
        // unlocked, 590 of a region's 598 border vertices go): the locks keep them.
        let tiny = build_lods(&positions, &indices, &[0.001], 1.0);
        assert!(!tiny[0].indices.is_empty());
        assert_no_cracks(&positions, &tiny[0].indices, n, "ratio 0.001");
    }

    #[test]
    fn seams_are_locked_by_position() {
        // Two triangles side by side in two regions, meeting on the edge x = 1, whose
        // vertices are doubled on one side (a UV seam): all four seam vertices lock.
        let positions = [
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0, 0.0],
            [2.0, 0.0, 0.0, 0.0],
        ];
        let indices = [0, 1, 2, 3, 5, 4];
        let locks = seam_locks(&indices, &positions, &[vec![0], vec![1]]);
        assert_eq!(locks, [false, true, true, true, true, false]);
    }
}
