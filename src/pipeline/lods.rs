//! Reduced levels of detail (meshoptimizer simplification).

/// Simplifies `indices` toward each ratio of its triangle count. A level that does not get
/// below the previous level's size has stalled and is returned empty ("reuse the previous
/// level"), as `.hmesh` encodes it.
pub fn build_lods(
    positions: &[[f32; 3]],
    indices: &[u32],
    ratios: &[f32],
    target_error: f32,
) -> Vec<Vec<u32>> {
    let mut levels = Vec::with_capacity(ratios.len());
    if indices.is_empty() {
        return vec![Vec::new(); ratios.len()];
    }
    let bytes = bytemuck::cast_slice::<[f32; 3], u8>(positions);
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytes, 12, 0) else {
        return vec![Vec::new(); ratios.len()];
    };
    // Every level simplifies LOD0 itself (no error accumulates from level to level), so
    // the levels are independent and run in parallel.
    use rayon::prelude::*;
    let simplified: Vec<Vec<u32>> = ratios
        .par_iter()
        .map(|&ratio| {
            let target = ((indices.len() as f64 * f64::from(ratio)) as usize / 3) * 3;
            meshopt::simplify(
                indices,
                &adapter,
                target,
                target_error,
                meshopt::SimplifyOptions::empty(),
                None,
            )
        })
        .collect();
    let mut previous_len = indices.len();
    for level in simplified {
        if level.is_empty() || level.len() >= previous_len {
            levels.push(Vec::new());
        } else {
            previous_len = level.len();
            levels.push(level);
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
        let positions: Vec<[f32; 3]> = (0..n * n)
            .map(|i| [(i % n) as f32, (i / n) as f32, 0.0])
            .collect();
        let mut indices = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                indices.extend_from_slice(&[i, i + 1, i + n, i + 1, i + n + 1, i + n]);
            }
        }
        let lods = build_lods(&positions, &indices, &[0.5, 0.25], 0.05);
        assert!(!lods[0].is_empty() && lods[0].len() <= indices.len() / 2);
        assert!(lods[1].is_empty() || lods[1].len() < lods[0].len());
        assert!(lods
            .iter()
            .flatten()
            .all(|&i| (i as usize) < positions.len()));

        let tri = build_lods(&positions[..3], &[0, 1, 2], &[0.5], 0.05);
        assert_eq!(
            tri,
            vec![Vec::<u32>::new()],
            "one triangle cannot be simplified: stalled"
        );
    }
}
