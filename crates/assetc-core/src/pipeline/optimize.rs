//! Vertex-cache and vertex-fetch optimisation (meshoptimizer).

use super::geometry::Geometry;

/// Reorders triangles for the post-transform cache, then vertices in first-use order.
/// Vertices no triangle references are dropped.
pub fn optimize_vertex_order(geometry: &mut Geometry) {
    if let Some(order) = vertex_order(geometry) {
        order.apply(geometry, None);
    }
}

/// The vertex-cache order of a geometry, computed without changing it, so that stages that
/// do not need it (LODs) can run beside it and be renumbered after.
pub struct VertexOrder {
    /// The triangles in vertex-cache order, in the new vertex numbers.
    pub indices: Vec<u32>,
    /// The old number of each new vertex, in order of first use.
    pub kept: Vec<u32>,
    /// The new number of each old vertex; `u32::MAX` for a vertex no triangle uses.
    pub new_of_old: Vec<u32>,
}

/// The order [`optimize_vertex_order`] gives; `None` when there is nothing to order.
pub fn vertex_order(geometry: &Geometry) -> Option<VertexOrder> {
    let n = geometry.vertex_count();
    if geometry.indices.is_empty() || n == 0 {
        return None;
    }
    let mut indices = meshopt::optimize_vertex_cache(&geometry.indices, n);
    // Vertex-fetch order: vertices renumbered in order of first use, unused ones dropped.
    // This is meshoptimizer's `optimizeVertexFetchRemap`, written here because the meshopt
    // crate's wrapper truncates the table to the used count, which loses entries whenever
    // a vertex is unused.
    let mut new_of_old = vec![u32::MAX; n];
    let mut kept = Vec::with_capacity(n);
    for i in &mut indices {
        let slot = &mut new_of_old[*i as usize];
        if *slot == u32::MAX {
            *slot = kept.len() as u32;
            kept.push(*i);
        }
        *i = *slot;
    }
    Some(VertexOrder {
        indices,
        kept,
        new_of_old,
    })
}

impl VertexOrder {
    /// Puts the geometry in this order; `positions`, when given, are its positions already
    /// gathered in the new order.
    pub fn apply(self, geometry: &mut Geometry, positions: Option<Vec<[f32; 4]>>) {
        geometry.indices = self.indices;
        geometry.keep_vertices_with(&self.kept, positions);
    }

    /// Positions in the new order.
    pub fn positions(&self, geometry: &Geometry) -> Vec<[f32; 4]> {
        use rayon::prelude::*;
        let old = geometry.positions();
        self.kept.par_iter().map(|&v| old[v as usize]).collect()
    }

    /// Old vertex numbers in `indices` (all used by the geometry's triangles) renumbered.
    pub fn renumber(&self, indices: &mut [u32]) {
        for i in indices {
            *i = self.new_of_old[*i as usize];
        }
    }
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
