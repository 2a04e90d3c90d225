//! Weld duplicate vertices of one submesh.

use super::geometry::Geometry;
use std::collections::HashMap;

/// Merges vertices whose attributes are equal and whose positions fall in the same cell of
/// a `threshold`-sized grid (exactly equal positions when `threshold` is 0). The first
/// vertex of each group is kept, so output order follows first use. Triangles are never
/// removed, even when welding makes one degenerate: triangle counts stay the source's.
pub fn weld_vertices(geometry: &mut Geometry, threshold: f32) {
    let n = geometry.vertex_count();
    let mut remap = vec![u32::MAX; n];
    let mut first_of_key: HashMap<Vec<u32>, u32> = HashMap::with_capacity(n);
    let mut kept: Vec<u32> = Vec::with_capacity(n);
    let mut key = Vec::with_capacity(24);
    // Visiting in index order (then unreferenced vertices) makes the result independent of
    // hash-map iteration order.
    let order = geometry.indices.iter().copied().chain(0..n as u32);
    for v in order {
        let v = v as usize;
        if remap[v] != u32::MAX {
            continue;
        }
        vertex_key(geometry, v, threshold, &mut key);
        let next = kept.len() as u32;
        let target = *first_of_key.entry(key.clone()).or_insert_with(|| next);
        if target == next {
            kept.push(v as u32);
        }
        remap[v] = target;
    }
    for i in &mut geometry.indices {
        *i = remap[*i as usize];
    }
    fn gather<T: Copy>(attr: &mut Option<Vec<T>>, kept: &[u32]) {
        if let Some(a) = attr {
            *a = kept.iter().map(|&v| a[v as usize]).collect();
        }
    }
    geometry.positions = kept
        .iter()
        .map(|&v| geometry.positions[v as usize])
        .collect();
    gather(&mut geometry.normals, &kept);
    gather(&mut geometry.tangents, &kept);
    gather(&mut geometry.uvs, &kept);
    gather(&mut geometry.skin, &kept);
}

/// Bit patterns of every attribute; -0.0 and 0.0 are the same value.
fn vertex_key(g: &Geometry, v: usize, threshold: f32, key: &mut Vec<u32>) {
    let bits = |f: f32| if f == 0.0 { 0 } else { f.to_bits() };
    key.clear();
    for c in g.positions[v] {
        if threshold > 0.0 {
            key.push((c / threshold).floor() as i32 as u32);
        } else {
            key.push(bits(c));
        }
    }
    if let Some(n) = &g.normals {
        key.extend(n[v].map(bits));
    }
    if let Some(t) = &g.tangents {
        key.extend(t[v].map(bits));
    }
    if let Some(uv) = &g.uvs {
        key.extend(uv[v].map(bits));
    }
    if let Some(s) = &g.skin {
        let s = s[v];
        key.extend(s.joints.map(u32::from));
        key.extend(s.weights.map(bits));
    }
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
