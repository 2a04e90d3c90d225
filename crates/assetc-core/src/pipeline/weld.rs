//! Weld duplicate vertices of one primitive, over every stream it carries.

use super::geometry::{Geometry, Semantic};
use super::weld_grid::{self, KeptGrid};
use rayon::prelude::*;

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
    let class = equality_classes(geometry, threshold);
    // New index of each class, given to it by the first vertex met in triangle order.
    let mut slot = vec![u32::MAX; n];
    let mut kept: Vec<u32> = Vec::with_capacity(n);
    let unused = if drop_unused { 0 } else { n as u32 };
    for v in geometry.indices.iter().copied().chain(0..unused) {
        let s = &mut slot[class[v as usize] as usize];
        if *s == u32::MAX {
            *s = kept.len() as u32;
            kept.push(v);
        }
    }
    geometry
        .indices
        .par_iter_mut()
        .for_each(|i| *i = slot[class[*i as usize] as usize]);
    drop(slot);
    drop(class);
    geometry.keep_vertices(&kept);
}

/// A class number per vertex, equal for vertices that weld: the lowest-numbered vertex
/// of its class. Vertices are compared by key: positions snapped to the grid when
/// `threshold` is above 0, every other value by its bits with -0.0 as 0.0.
///
/// Sorting (hash, vertex) pairs on every core replaced meshoptimizer's hash remap here:
/// the remap is one thread of random lookups (a long serial stretch on a large mesh);
/// hashing and `par_sort_unstable` split, and equal hashes are compared key by key, so a
/// hash collision never welds.
fn equality_classes(geometry: &Geometry, threshold: f32) -> Vec<u32> {
    let n = geometry.vertex_count();
    let snapped =
        |stream: &super::geometry::Stream| stream.semantic == Semantic::Position && threshold > 0.0;
    let key = |stream: &super::geometry::Stream, v: usize| -> [u32; 4] {
        let value = stream.data[v];
        if snapped(stream) {
            value.map(|c| (c / threshold).floor() as i32 as u32)
        } else {
            value.map(float_key)
        }
    };
    let same = |a: usize, b: usize| geometry.streams.iter().all(|s| key(s, a) == key(s, b));
    let hash = |v: usize| hash_words(geometry.streams.iter().flat_map(|s| key(s, v)));
    classes_by_hash(n, hash, same)
}

/// A float as a key word: its bits, with -0.0 as 0.0 (the two compare equal).
pub(crate) fn float_key(c: f32) -> u32 {
    if c == 0.0 {
        0
    } else {
        c.to_bits()
    }
}

/// A 64-bit hash of key words for [`classes_by_hash`].
pub(crate) fn hash_words(words: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for c in words {
        h = (h ^ u64::from(c)).wrapping_mul(0x0000_0100_0000_01b3);
        h ^= h >> 29;
    }
    // splitmix64's finaliser, so that nearby keys spread.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Classes of `n` vertices whose equality is `same`, found by sorting `hash`es: each vertex
/// gets the lowest vertex number of its class.
pub(crate) fn classes_by_hash(
    n: usize,
    hash: impl Fn(usize) -> u64 + Sync,
    same: impl Fn(usize, usize) -> bool,
) -> Vec<u32> {
    let mut order: Vec<(u64, u32)> = (0..n)
        .into_par_iter()
        .map(|v| (hash(v), v as u32))
        .collect();
    order.par_sort_unstable();
    let mut class: Vec<u32> = (0..n as u32).collect();
    let mut representatives: Vec<u32> = Vec::new();
    for run in order.chunk_by(|a, b| a.0 == b.0) {
        if run.len() == 1 {
            continue;
        }
        // Ascending vertex numbers within a run: each joins the first earlier one with its
        // key (usually the run's first; more than one only on a hash collision).
        representatives.clear();
        for &(_, v) in run {
            match representatives
                .iter()
                .find(|&&r| same(r as usize, v as usize))
            {
                Some(&r) => class[v as usize] = r,
                None => representatives.push(v),
            }
        }
    }
    class
}

/// Most kept vertices of one grid cell [`weld_within`] compares a vertex with (the
/// earliest kept, so the first match is the one found whenever it is among them).
/// Ordinary meshes have a few per cell (the corpus: at most 32 corners at a position).
pub const MAX_CELL_CANDIDATES: usize = 256;

/// Merges each vertex into the first earlier-used vertex whose every stream lies within
/// `epsilon` of its own (Euclidean distance per stream), as assimp's
/// JoinIdenticalVertices does (Qt's Balsam uses it with 1e-5): exporters' float noise
/// (normals differing in the 7th digit) no longer keeps copies apart. The kept vertex's
/// values are used. Order, unused vertices and triangles as in [`weld_vertices`].
pub fn weld_within(geometry: &mut Geometry, epsilon: f32, drop_unused: bool) {
    weld_within_searching(geometry, epsilon, drop_unused, false);
}

/// [`weld_within`]; `search_every_vertex` sends even the vertices found alone through
/// the grid (the weld as it was before they were set apart: what tests compare with).
fn weld_within_searching(
    geometry: &mut Geometry,
    epsilon: f32,
    drop_unused: bool,
    search_every_vertex: bool,
) {
    let n = geometry.vertex_count();
    if n == 0 {
        return;
    }
    let cell = |p: &[f32; 4]| [0, 1, 2].map(|a| (p[a] / epsilon).floor() as i64);
    let close = |a: usize, b: usize| {
        geometry.streams.iter().all(|s| {
            let (x, y) = (s.data[a], s.data[b]);
            let d2: f32 = x.iter().zip(y).map(|(p, q)| (p - q) * (p - q)).sum();
            d2 <= epsilon * epsilon
        })
    };
    let positions = geometry.positions();
    // Vertices with nothing near them are kept without a search (see `alone`): the
    // serial loop below only numbers them.
    let alone = match search_every_vertex {
        false => weld_grid::alone(n, |v| cell(&positions[v])),
        true => vec![false; n],
    };
    let crowded = alone.iter().filter(|a| !**a).count();
    let mut remap = vec![u32::MAX; n];
    let mut kept: Vec<u32> = Vec::with_capacity(n);
    // Kept vertices by their position's cell; a match lies in a neighbouring cell.
    let mut grid = KeptGrid::with_capacity(crowded);
    let unused = if drop_unused { 0 } else { n as u32 };
    for v in geometry.indices.iter().copied().chain(0..unused) {
        let vi = v as usize;
        if remap[vi] != u32::MAX {
            continue;
        }
        if alone[vi] {
            kept.push(v);
            remap[vi] = grid.push_alone();
            continue;
        }
        let c = cell(&positions[vi]);
        let mut found = None;
        // Most new vertices have no kept vertex near them at all: eight bits say so.
        if grid.may_have_near(c) {
            'search: for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        let key = [c[0] + dx, c[1] + dy, c[2] + dz];
                        // Only the first few kept vertices of a cell are compared: a cell
                        // holding thousands (a fan's hub split by its normals) would make
                        // this quadratic. Past them a vertex may stay apart from an equal
                        // one: more vertices, the same mesh.
                        for k in grid.cell(key).take(MAX_CELL_CANDIDATES) {
                            if close(kept[k as usize] as usize, vi) {
                                found = Some(k);
                                break 'search;
                            }
                        }
                    }
                }
            }
        }
        remap[vi] = found.unwrap_or_else(|| {
            kept.push(v);
            grid.push(c)
        });
    }
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
    fn negative_zero_welds_and_streams_past_sixteen_count() {
        // Vertices 0 and 1 differ only by -0.0 against 0.0; 2 and 3 only in the 18th
        // stream (meshoptimizer's remap takes 16 streams per call).
        let p = [
            [0.0, 0.0, 0.0],
            [-0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
        ];
        let mut g = Geometry::new("p", &p, vec![0, 2, 1, 1, 3, 0]);
        for set in 0..20 {
            let mut data = vec![[0.5, 0.5, 0.0, 0.0]; 4];
            if set == 17 {
                data[3][0] = 0.25;
            }
            g.set_stream(Semantic::TexCoord, set, data);
        }
        weld_vertices(&mut g, 0.0, false);
        assert_eq!(g.vertex_count(), 3);
        assert_eq!(g.indices, vec![0, 1, 0, 0, 2, 0]);
        assert_eq!(g.stream(Semantic::TexCoord, 17).unwrap()[2][0], 0.25);
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
    fn vertices_within_epsilon_in_every_stream_merge_into_the_first() {
        let p = [[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let noisy = [[0.0, 0.0, 4e-6], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let mut g = Geometry::new("p", &[p, noisy, p].concat(), (0..9).collect());
        // Normals: the second copy differs by float noise, the third by a real angle.
        let n = [0.0, 0.0, 1.0];
        let normals = [n, n, n, [0.0, 3e-6, 1.0], n, n, [0.0, 0.1, 0.995], n, n];
        g.set_stream(Semantic::Normal, 0, widen(&normals));
        weld_within(&mut g, 1e-5, true);
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.indices, vec![0, 1, 2, 0, 1, 2, 3, 1, 2]);
        // The first vertex's values are kept.
        assert_eq!(g.positions()[0], [0.0; 4]);
        assert_eq!(
            g.stream(Semantic::Normal, 0).unwrap()[0],
            [0.0, 0.0, 1.0, 0.0]
        );
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

    #[test]
    fn a_crowded_cell_compares_its_first_vertices_only() {
        // 3,000 vertices at one point with distinct normals (a split fan hub), then a
        // copy of the first and a copy of the last.
        let count = 3000;
        let mut g = Geometry::new(
            "p",
            &vec![[0.0; 3]; count + 2],
            (0..count as u32 + 2).collect(),
        );
        g.indices.push(0);
        let mut normals: Vec<[f32; 3]> = (0..count)
            .map(|i| {
                let a = i as f32 / count as f32 * std::f32::consts::TAU;
                [a.cos(), a.sin(), 0.0]
            })
            .collect();
        normals.extend([normals[0], normals[count - 1]]);
        g.set_stream(Semantic::Normal, 0, widen(&normals));
        weld_within(&mut g, 1e-5, true);
        // The first copy finds its twin among the first candidates; the last one's twin
        // lies past them, so it stays apart.
        assert_eq!(g.indices[count], 0);
        assert_eq!(g.vertex_count(), count + 1);
        assert!(MAX_CELL_CANDIDATES < count);
    }

    /// Vertices in clusters at the scale of the weld: copies within epsilon, neighbours a
    /// cell or two away, some with a normal that differs, most far from any other; used
    /// in a shuffled order, some not at all.
    fn clustered(seed: u64, count: usize, epsilon: f32) -> Geometry {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f32 / (1u64 << 53) as f32
        };
        let mut points: Vec<[f32; 3]> = Vec::with_capacity(count);
        let mut normals: Vec<[f32; 3]> = Vec::with_capacity(count);
        for i in 0..count {
            let r = next();
            let (p, n) = if i > 0 && r < 0.5 {
                // Near an earlier vertex: within epsilon, or up to three cells away.
                let j = (next() * i as f32) as usize % i;
                let reach = if next() < 0.5 { 0.5 } else { 3.0 };
                let q = points[j];
                let p = [0, 1, 2].map(|a| q[a] + (next() - 0.5) * reach * epsilon);
                let n = if next() < 0.8 {
                    normals[j]
                } else {
                    [0.0, 1.0, 0.0]
                };
                (p, n)
            } else {
                ([next(), next(), next()].map(|c| c * 0.01), [0.0, 0.0, 1.0])
            };
            points.push(p);
            normals.push(n);
        }
        let mut order: Vec<u32> = (0..count as u32).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (next() * (i + 1) as f32) as usize % (i + 1));
        }
        order.truncate(count - count / 10);
        order.truncate(order.len() / 3 * 3);
        let mut g = Geometry::new("p", &points, order);
        g.set_stream(Semantic::Normal, 0, widen(&normals));
        g
    }

    fn alone_of(cells: &[[i64; 3]]) -> Vec<bool> {
        weld_grid::alone(cells.len(), |v| cells[v])
    }

    #[test]
    fn vertices_kept_without_a_search_weld_as_when_every_vertex_searched() {
        let epsilon = 1e-5;
        let mut alone_seen = 0;
        for seed in 0..60u64 {
            for drop_unused in [false, true] {
                let source = clustered(seed, 300 + seed as usize * 37, epsilon);
                let mut searched = source.clone();
                weld_within_searching(&mut searched, epsilon, drop_unused, true);
                let mut welded = source.clone();
                weld_within(&mut welded, epsilon, drop_unused);
                assert_eq!(welded.indices, searched.indices, "seed {seed}");
                assert_eq!(welded.positions(), searched.positions(), "seed {seed}");
                assert_eq!(
                    welded.stream(Semantic::Normal, 0),
                    searched.stream(Semantic::Normal, 0)
                );
                assert!(
                    welded.vertex_count() < source.vertex_count(),
                    "seed {seed}: some weld"
                );
                let cells: Vec<[i64; 3]> = source
                    .positions()
                    .iter()
                    .map(|p| [0, 1, 2].map(|a| (p[a] / epsilon).floor() as i64))
                    .collect();
                alone_seen += alone_of(&cells).iter().filter(|a| **a).count();
            }
        }
        assert!(alone_seen > 1000, "the fast path was taken: {alone_seen}");
    }

    #[test]
    fn a_vertex_is_alone_only_with_no_other_in_the_cells_around_it() {
        // A lattice of cells four apart: each alone, bar the few a shared hash slot
        // sends to the grid. Then beside each lattice cell, one cell off on some axes,
        // a second vertex: neither of the two is alone any more.
        let lattice: Vec<[i64; 3]> = (0..4096i64)
            .map(|i| [i % 16 * 4, i / 16 % 16 * 4, i / 256 * 4 - 30])
            .collect();
        let found = alone_of(&lattice);
        let alone = found.iter().filter(|a| **a).count();
        assert!(
            alone * 10 > lattice.len() * 8,
            "{alone} of {}",
            lattice.len()
        );
        let offsets = [[1, 0, 0], [-1, 1, 0], [0, -1, 1], [1, 1, 1], [0, 0, 0]];
        let mut crowded = lattice.clone();
        crowded.extend(
            lattice
                .iter()
                .enumerate()
                .map(|(i, c)| [0, 1, 2].map(|a| c[a] + offsets[i % offsets.len()][a])),
        );
        assert!(alone_of(&crowded).iter().all(|a| !a));
        // At the edge of the range nothing is trusted.
        assert_eq!(alone_of(&[[i64::MAX, 0, 0]]), [false]);
        assert_eq!(alone_of(&[[0, 0, 0]]), [true]);
    }

    #[test]
    fn a_hash_collision_never_welds() {
        // Every vertex hashes alike: only equal values may share a class, and each class
        // is named by its lowest vertex.
        let values = [7, 3, 7, 9, 3, 7];
        let class = classes_by_hash(values.len(), |_| 42, |a, b| values[a] == values[b]);
        assert_eq!(class, vec![0, 1, 0, 3, 1, 0]);
        let spread = classes_by_hash(
            values.len(),
            |v| values[v] as u64,
            |a, b| values[a] == values[b],
        );
        assert_eq!(spread, class);
    }
}
