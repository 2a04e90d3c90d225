//! Weld duplicate vertices of one submesh.

use super::geometry::Geometry;

/// Merges vertices whose attributes are equal and whose positions fall in the same cell of
/// a `threshold`-sized grid (exactly equal positions when `threshold` is 0). The first
/// vertex of each group is kept, so output order follows first use. Triangles are never
/// removed, even when welding makes one degenerate: triangle counts stay the source's.
pub fn weld_vertices(geometry: &mut Geometry, threshold: f32) {
    let n = geometry.vertex_count();
    if n == 0 {
        return;
    }
    // Fixed-size keys let meshoptimizer's hash-based remap do the grouping (it compares
    // whole keys bytewise); a key holds every attribute, positions snapped to the grid.
    let keys: Vec<VertexKey> = (0..n).map(|v| vertex_key(geometry, v, threshold)).collect();
    let (_, first_of_group) = meshopt::generate_vertex_remap(&keys, None);
    // meshoptimizer numbers groups in vertex order; renumber them in order of first use
    // by the triangles (then unreferenced vertices) so the result does not depend on it.
    let mut remap = vec![u32::MAX; n];
    let mut group_target = vec![u32::MAX; n];
    let mut kept: Vec<u32> = Vec::with_capacity(n);
    for v in geometry.indices.iter().copied().chain(0..n as u32) {
        let v = v as usize;
        if remap[v] != u32::MAX {
            continue;
        }
        let group = first_of_group[v] as usize;
        if group_target[group] == u32::MAX {
            group_target[group] = kept.len() as u32;
            kept.push(v as u32);
        }
        remap[v] = group_target[group];
    }
    for i in &mut geometry.indices {
        *i = remap[*i as usize];
    }
    geometry.keep_vertices(&kept);
}

/// Position (3), normal (3), tangent (4), UV (2), joints (2, packed u16 pairs), weights (4).
type VertexKey = [u32; 18];

/// Bit patterns of every attribute the vertex has (absent ones stay 0); -0.0 and 0.0 are
/// the same value.
fn vertex_key(g: &Geometry, v: usize, threshold: f32) -> VertexKey {
    let bits = |f: f32| if f == 0.0 { 0 } else { f.to_bits() };
    let mut key = [0u32; 18];
    for (k, c) in g.positions[v].into_iter().enumerate() {
        key[k] = if threshold > 0.0 {
            (c / threshold).floor() as i32 as u32
        } else {
            bits(c)
        };
    }
    if let Some(n) = &g.normals {
        key[3..6].copy_from_slice(&n[v].map(bits));
    }
    if let Some(t) = &g.tangents {
        key[6..10].copy_from_slice(&t[v].map(bits));
    }
    if let Some(uv) = &g.uvs {
        key[10..12].copy_from_slice(&uv[v].map(bits));
    }
    if let Some(s) = &g.skin {
        let j = s[v].joints.map(u32::from);
        key[12] = j[0] | (j[1] << 16);
        key[13] = j[2] | (j[3] << 16);
        key[14..18].copy_from_slice(&s[v].weights.map(bits));
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_duplicates_merge_and_distinct_uvs_do_not() {
        let mut g = Geometry {
            positions: vec![
                [0.0; 3],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0; 3],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            uvs: Some(vec![
                [0.0; 2],
                [1.0, 0.0],
                [0.0, 1.0],
                [0.0; 2],
                [1.0, 0.0],
                [0.5, 0.5],
            ]),
            indices: vec![0, 1, 2, 3, 4, 5],
            ..Default::default()
        };
        weld_vertices(&mut g, 0.0);
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.indices, vec![0, 1, 2, 0, 1, 3]);
        assert_eq!(g.uvs.as_ref().unwrap()[3], [0.5, 0.5]);
    }

    #[test]
    fn threshold_merges_nearby_positions_and_keeps_triangles() {
        let mut g = Geometry {
            positions: vec![[0.0; 3], [0.00002, 0.0, 0.0], [1.0, 0.0, 0.0]],
            indices: vec![0, 1, 2],
            ..Default::default()
        };
        weld_vertices(&mut g, 0.0001);
        assert_eq!(g.vertex_count(), 2);
        assert_eq!(g.indices.len(), 3, "a degenerate triangle is kept");
    }
}
