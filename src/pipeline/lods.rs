//! Reduced levels of detail (meshoptimizer simplification).

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
/// each step gets what is left of `target_error`, and a level's `error` is the sum of the
/// steps to it (a bound on its distance from LOD0). A level that does not get below the
/// previous level's size has stalled and is returned empty ("reuse the previous level"),
/// as `.hmesh` encodes it; the next level then starts from the last one that did not.
pub fn build_lods(
    positions: &[[f32; 4]],
    indices: &[u32],
    ratios: &[f32],
    target_error: f32,
) -> Vec<LodLevel> {
    let mut levels: Vec<LodLevel> = Vec::with_capacity(ratios.len());
    if indices.is_empty() {
        return vec![LodLevel::default(); ratios.len()];
    }
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(positions);
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytes, 16, 0) else {
        return vec![LodLevel::default(); ratios.len()];
    };
    let scale = meshopt::simplify_scale(&adapter);
    // The level the next one is simplified from (index into `levels`; None for LOD0) and
    // the relative error accumulated to it.
    let mut from: Option<usize> = None;
    let mut accumulated = 0.0f32;
    for &ratio in ratios {
        let source = from.map_or(indices, |l| levels[l].indices.as_slice());
        let target = ((indices.len() as f64 * f64::from(ratio)) as usize / 3) * 3;
        let mut error = 0.0f32;
        let mut level = meshopt::simplify(
            source,
            &adapter,
            target,
            (target_error - accumulated).max(0.0),
            meshopt::SimplifyOptions::empty(),
            Some(&mut error),
        );
        if level.is_empty() || level.len() >= source.len() {
            levels.push(LodLevel::default());
        } else {
            // The simplifier returns its result in a buffer the size of its input.
            level.shrink_to_fit();
            accumulated += error;
            from = Some(levels.len());
            levels.push(LodLevel {
                indices: level,
                error: accumulated * scale,
            });
        }
    }
    levels
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
}
