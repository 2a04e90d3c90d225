//! Vertex-cache and vertex-fetch optimisation (meshoptimizer).

use super::geometry::Geometry;

/// Reorders triangles for the post-transform cache, then vertices in first-use order.
/// Vertices no triangle references are dropped.
pub fn optimize_vertex_order(geometry: &mut Geometry) {
    let n = geometry.vertex_count();
    if geometry.indices.is_empty() || n == 0 {
        return;
    }
    geometry.indices = meshopt::optimize_vertex_cache(&geometry.indices, n);
    // Vertex-fetch order: vertices renumbered in order of first use, unused ones dropped.
    // This is meshoptimizer's `optimizeVertexFetchRemap`, written here because the meshopt
    // crate's wrapper truncates the table to the used count, which loses entries whenever
    // a vertex is unused.
    let mut remap = vec![u32::MAX; n];
    let mut kept = Vec::with_capacity(n);
    for i in &mut geometry.indices {
        let slot = &mut remap[*i as usize];
        if *slot == u32::MAX {
            *slot = kept.len() as u32;
            kept.push(*i);
        }
        *i = *slot;
    }
    geometry.keep_vertices(&kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_triangles_and_drops_unused_vertices() {
        let mut g = Geometry::new(
            "p",
            &[
                [9.0; 3],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
            ],
            vec![1, 2, 3, 2, 4, 3],
        );
        let before: Vec<[[f32; 3]; 3]> = triangles(&g);
        optimize_vertex_order(&mut g);
        assert_eq!(g.vertex_count(), 4);
        let mut after = triangles(&g);
        let mut before = before;
        // Same set of triangles (each rotated to a canonical first corner).
        for t in before.iter_mut().chain(after.iter_mut()) {
            let m = (0..3)
                .min_by(|&a, &b| t[a].partial_cmp(&t[b]).unwrap())
                .unwrap();
            t.rotate_left(m);
        }
        before.sort_by(|a, b| a.partial_cmp(b).unwrap());
        after.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert_eq!(before, after);
    }

    fn triangles(g: &Geometry) -> Vec<[[f32; 3]; 3]> {
        g.indices
            .chunks(3)
            .map(|t| {
                [0, 1, 2].map(|k| crate::pipeline::geometry::xyz(g.positions()[t[k] as usize]))
            })
            .collect()
    }
}
