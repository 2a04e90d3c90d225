//! Reduced levels of detail (meshoptimizer simplification).

/// One reduced level of detail.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LodLevel {
    /// Empty when the simplifier stalled ("reuse the previous level").
    pub indices: Vec<u32>,
    /// The simplifier's error in model units (what Qt selects levels by).
    pub error: f32,
}

/// Simplifies `indices` toward each ratio of its triangle count. A level that does not get
/// below the previous level's size has stalled and is returned empty ("reuse the previous
/// level"), as `.hmesh` encodes it.
pub fn build_lods(
    positions: &[[f32; 4]],
    indices: &[u32],
    ratios: &[f32],
    target_error: f32,
) -> Vec<LodLevel> {
    let mut levels = Vec::with_capacity(ratios.len());
    if indices.is_empty() {
        return vec![LodLevel::default(); ratios.len()];
    }
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(positions);
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytes, 16, 0) else {
        return vec![LodLevel::default(); ratios.len()];
    };
    let scale = meshopt::simplify_scale(&adapter);
    // Every level simplifies LOD0 itself (no error accumulates from level to level), so
    // the levels are independent and run in parallel.
    use rayon::prelude::*;
    let simplified: Vec<(Vec<u32>, f32)> = ratios
        .par_iter()
        .map(|&ratio| {
            let target = ((indices.len() as f64 * f64::from(ratio)) as usize / 3) * 3;
            let mut error = 0.0f32;
            let level = meshopt::simplify(
                indices,
                &adapter,
                target,
                target_error,
                meshopt::SimplifyOptions::empty(),
                Some(&mut error),
            );
            (level, error * scale)
        })
        .collect();
    let mut previous_len = indices.len();
    for (level, error) in simplified {
        if level.is_empty() || level.len() >= previous_len {
            levels.push(LodLevel::default());
        } else {
            previous_len = level.len();
            levels.push(LodLevel {
                indices: level,
                error,
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

        let tri = build_lods(&positions[..3], &[0, 1, 2], &[0.5], 0.05);
        assert_eq!(
            tri,
            vec![LodLevel::default()],
            "one triangle cannot be simplified: stalled"
        );
    }
}
