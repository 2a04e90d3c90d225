//! Bounded vertex valence before the meshoptimizer stages.
//!
//! meshoptimizer's vertex-cache optimiser, meshlet builder and simplifier revisit the
//! triangles around a vertex each time they touch it, so their work grows with the square
//! of a vertex's valence: the hub of a 65,536-triangle fan cost seconds in each of them,
//! and a primitive whose 262,144 vertices all weld into one far longer (docs/performance.md,
//! "Figures from code comments"). A vertex used by more than
//! [`MAX_TRIANGLES_PER_VERTEX`] triangles is therefore split into copies (equal in every
//! stream), each serving at most that many of its triangles in triangle order. What is
//! drawn is unchanged; the vertex count grows by one per that many triangles of a crowded
//! vertex. Meshes without such a vertex (every corpus and sample mesh: at most 32) are left
//! exactly as they are.

use super::geometry::Geometry;
use std::collections::HashMap;

/// Most triangles one vertex serves when the meshoptimizer stages see it.
pub const MAX_TRIANGLES_PER_VERTEX: u16 = 1024;

/// Splits every vertex used by more than [`MAX_TRIANGLES_PER_VERTEX`] triangles (a triangle
/// naming a vertex twice counts once); returns the number of vertices added. The copies
/// are appended after the existing vertices.
pub fn limit_valence(geometry: &mut Geometry) -> usize {
    let most = MAX_TRIANGLES_PER_VERTEX;
    let n = geometry.vertex_count();
    // Saturating 16-bit counts: only "more than `most`" matters, at 2 bytes a vertex.
    let mut uses = vec![0u16; n];
    for t in geometry.indices.chunks_exact(3) {
        for (k, &v) in t.iter().enumerate() {
            if !t[..k].contains(&v) {
                if let Some(u) = uses.get_mut(v as usize) {
                    *u = u.saturating_add(1);
                }
            }
        }
    }
    // Per crowded vertex: its triangles met so far and the vertex they now use.
    let mut crowded: HashMap<u32, (usize, u32)> = uses
        .iter()
        .enumerate()
        .filter(|&(_, &u)| u > most)
        .map(|(v, _)| (v as u32, (0, v as u32)))
        .collect();
    drop(uses);
    if crowded.is_empty() {
        return 0;
    }
    let mut copied_from: Vec<u32> = Vec::new();
    for t in geometry.indices.chunks_exact_mut(3) {
        let original = [t[0], t[1], t[2]];
        for k in 0..3 {
            let v = original[k];
            if let Some(first) = original[..k].iter().position(|&w| w == v) {
                // The same vertex twice in one triangle: the same copy both times.
                t[k] = t[first];
                continue;
            }
            if let Some((met, current)) = crowded.get_mut(&v) {
                if *met > 0 && *met % usize::from(most) == 0 {
                    *current = (n + copied_from.len()) as u32;
                    copied_from.push(v);
                }
                *met += 1;
                t[k] = *current;
            }
        }
    }
    let kept: Vec<u32> = (0..n as u32).chain(copied_from.iter().copied()).collect();
    geometry.keep_vertices(&kept);
    copied_from.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::geometry::xyz;

    fn fan(n: u32) -> Geometry {
        let positions: Vec<[f32; 3]> = std::iter::once([0.0; 3])
            .chain((0..n).map(|i| {
                let a = i as f32 / n as f32 * std::f32::consts::TAU;
                [a.cos(), a.sin(), 0.0]
            }))
            .collect();
        let indices = (0..n).flat_map(|i| [0, 1 + i, 1 + (i + 1) % n]).collect();
        Geometry::new("fan", &positions, indices)
    }

    fn triangles(g: &Geometry) -> Vec<[[f32; 3]; 3]> {
        g.indices
            .chunks(3)
            .map(|t| [0, 1, 2].map(|k| xyz(g.positions()[t[k] as usize])))
            .collect()
    }

    #[test]
    fn a_hub_is_split_into_copies_of_bounded_valence() {
        let most = u32::from(MAX_TRIANGLES_PER_VERTEX);
        let mut g = fan(5 * most / 2);
        let before = triangles(&g);
        let vertices = g.vertex_count();
        assert_eq!(limit_valence(&mut g), 2);
        assert_eq!(g.vertex_count(), vertices + 2);
        // The same triangles, in the same order, at the same positions.
        assert_eq!(triangles(&g), before);
        let mut uses = vec![0u32; g.vertex_count()];
        for t in g.indices.chunks(3) {
            uses[t[0] as usize] += 1;
        }
        assert_eq!(uses[0], most);
        assert_eq!(&uses[vertices..], &[most, most / 2]);
    }

    #[test]
    fn ordinary_meshes_are_untouched() {
        let mut g = fan(u32::from(MAX_TRIANGLES_PER_VERTEX));
        let before = g.clone();
        assert_eq!(limit_valence(&mut g), 0);
        assert_eq!(g.indices, before.indices);
        assert_eq!(g.positions(), before.positions());
    }

    #[test]
    fn a_degenerate_weld_keeps_each_triangle_on_one_copy() {
        // 3,000 triangles naming vertex 0 three times each.
        let mut g = Geometry::new("zero", &[[0.0; 3]], vec![0; 9000]);
        assert_eq!(limit_valence(&mut g), 2);
        for t in g.indices.chunks(3) {
            assert!(t[0] == t[1] && t[1] == t[2]);
        }
        assert_eq!(g.vertex_count(), 3);
    }
}
