//! Open edges of a triangle set, with vertices welded by exact position (the hierarchy's
//! clusters reuse the source's vertices, so a crack between clusters is an edge used once
//! where the source has it twice, whatever the vertex splits for UVs and normals).

use std::collections::{BTreeSet, HashMap};

/// The welded id of each vertex: the first vertex with the same position bits.
pub fn weld_by_position(positions: &[[f32; 4]]) -> Vec<u32> {
    let mut first: HashMap<[u32; 3], u32> = HashMap::with_capacity(positions.len());
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            *first
                .entry([p[0].to_bits(), p[1].to_bits(), p[2].to_bits()])
                .or_insert(i as u32)
        })
        .collect()
}

/// Edges (welded ids, smaller first) used by exactly one triangle; degenerate triangles
/// (two corners welded together) are left out.
pub fn open_edges(weld: &[u32], triangles: &[[u32; 3]]) -> BTreeSet<(u32, u32)> {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for t in triangles {
        let w = t.map(|v| weld[v as usize]);
        if w[0] == w[1] || w[1] == w[2] || w[0] == w[2] {
            continue;
        }
        for k in 0..3 {
            let (a, b) = (w[k], w[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    uses.into_iter()
        .filter(|(_, n)| *n == 1)
        .map(|(e, _)| e)
        .collect()
}

/// Open edges of `cut` that are not along the source's open boundary: an open edge of a
/// cut is fine only when both its ends are on an open edge of the source (simplification
/// may shorten a border, never open the inside).
pub fn cracks(weld: &[u32], source: &[[u32; 3]], cut: &[[u32; 3]]) -> Vec<(u32, u32)> {
    let border: BTreeSet<u32> = open_edges(weld, source)
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect();
    open_edges(weld, cut)
        .into_iter()
        .filter(|(a, b)| !(border.contains(a) && border.contains(b)))
        .collect()
}
