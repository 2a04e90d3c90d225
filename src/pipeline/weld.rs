//! Weld duplicate vertices of one primitive, over every stream it carries.

use super::geometry::{Geometry, Semantic};
use std::collections::HashMap;

/// Merges vertices whose streams are all equal (bit for bit, -0.0 equal to 0.0) and whose
/// positions fall in the same cell of a `threshold`-sized grid (exactly equal positions when
/// `threshold` is 0). The first vertex of each group is kept, so output order follows first
/// use by the triangles; vertices no triangle uses come after, or are dropped when
/// `drop_unused`. Triangles are never removed, even when welding makes one degenerate:
/// triangle counts stay the source's.
pub fn weld_vertices(geometry: &mut Geometry, threshold: f32, drop_unused: bool) {
    let n = geometry.vertex_count();
    if n == 0 {
        return;
    }
    let width = 4 * geometry.streams.len();
    let bits = |f: f32| if f == 0.0 { 0 } else { f.to_bits() };
    // One row of keys per vertex, streams in their stored order.
    let mut keys: Vec<u32> = vec![0; n * width];
    for (s, stream) in geometry.streams.iter().enumerate() {
        let snap = stream.semantic == Semantic::Position && threshold > 0.0;
        for (v, value) in stream.data.iter().enumerate() {
            let row = &mut keys[v * width + 4 * s..v * width + 4 * s + 4];
            for (k, &c) in row.iter_mut().zip(value) {
                *k = if snap {
                    (c / threshold).floor() as i32 as u32
                } else {
                    bits(c)
                };
            }
        }
    }
    let mut remap = vec![u32::MAX; n];
    let mut kept: Vec<u32> = Vec::with_capacity(n);
    let mut first: HashMap<&[u32], u32> = HashMap::with_capacity(n);
    let unused = if drop_unused { 0 } else { n as u32 };
    for v in geometry.indices.iter().copied().chain(0..unused) {
        let vi = v as usize;
        if remap[vi] != u32::MAX {
            continue;
        }
        let next = kept.len() as u32;
        let target = *first
            .entry(&keys[vi * width..(vi + 1) * width])
            .or_insert(next);
        if target == next {
            kept.push(v);
        }
        remap[vi] = target;
    }
    drop(first);
    for i in &mut geometry.indices {
        *i = remap[*i as usize];
    }
    geometry.keep_vertices(&kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::geometry::widen;

    #[test]
    fn exact_duplicates_merge_and_distinct_uvs_do_not() {
        let p = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut g = Geometry::new("p", &[p, p].concat(), vec![0, 1, 2, 3, 4, 5]);
        let uvs = [
            [0.0; 2],
            [1.0, 0.0],
            [0.0, 1.0],
            [0.0; 2],
            [1.0, 0.0],
            [0.5, 0.5],
        ];
        g.set_stream(Semantic::TexCoord, 0, widen(&uvs));
        weld_vertices(&mut g, 0.0, false);
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.indices, vec![0, 1, 2, 0, 1, 3]);
        assert_eq!(
            g.stream(Semantic::TexCoord, 0).unwrap()[3],
            [0.5, 0.5, 0.0, 0.0]
        );
    }

    #[test]
    fn threshold_merges_nearby_positions_and_keeps_triangles() {
        let mut g = Geometry::new(
            "p",
            &[[0.0; 3], [0.00002, 0.0, 0.0], [1.0, 0.0, 0.0]],
            vec![0, 1, 2],
        );
        weld_vertices(&mut g, 0.0001, false);
        assert_eq!(g.vertex_count(), 2);
        assert_eq!(g.indices.len(), 3, "a degenerate triangle is kept");
    }

    #[test]
    fn unused_vertices_stay_after_the_used_ones_or_go() {
        let points = [[5.0, 0.0, 0.0], [0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut g = Geometry::new("p", &points, vec![1, 2, 3]);
        weld_vertices(&mut g, 0.0, false);
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.positions()[3], [5.0, 0.0, 0.0, 0.0]);
        let mut g = Geometry::new("p", &points, vec![1, 2, 3]);
        weld_vertices(&mut g, 0.0, true);
        assert_eq!(g.vertex_count(), 3);
        assert_eq!(g.indices, vec![0, 1, 2]);
    }
}
