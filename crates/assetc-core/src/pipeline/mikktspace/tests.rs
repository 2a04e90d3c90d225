//! Held against `bevy_mikktspace`, the reference port, on meshes built to reach every
//! branch: seams, mirrored UVs, faces without UV area, degenerate faces, duplicated
//! vertices, edges shared by three faces, flipped windings, opposite frames.

use super::*;
use crate::pipeline::tangents::reference_tangents;

/// The reference port's tangents of `s`, run with one more triangle, last, on three new
/// vertices beyond the mesh: the C reference's edge-sorting fault (MikkTSpace issue #5,
/// reproduced by the port) bites only around its highest-numbered vertices, which are then
/// that triangle's, so the mesh's own corners get MikkTSpace with its edges sorted.
fn reference(s: &Streams) -> Vec<[f32; 4]> {
    let mut with_sentinel = s.clone();
    let far = s
        .positions
        .iter()
        .flatten()
        .fold(0.0f32, |m, c| m.max(c.abs()))
        + 1.0;
    let first = with_sentinel.push_vertex([far, far, far], [0.0, 0.0, 1.0], [0.0, 0.0]);
    with_sentinel.push_vertex([far + 1.0, far, far], [0.0, 0.0, 1.0], [1.0, 0.0]);
    with_sentinel.push_vertex([far, far + 1.0, far], [0.0, 0.0, 1.0], [0.0, 1.0]);
    with_sentinel.indices.extend([first, first + 1, first + 2]);
    let w = &with_sentinel;
    let mut corners = reference_tangents(&w.indices, &w.positions, &w.normals, &w.uvs);
    corners.truncate(s.indices.len());
    corners
}

/// Owned streams for a test mesh.
#[derive(Clone, Default)]
struct Streams {
    indices: Vec<u32>,
    positions: Vec<[f32; 4]>,
    normals: Vec<[f32; 4]>,
    uvs: Vec<[f32; 4]>,
}

impl Streams {
    fn mesh(&self) -> Mesh<'_> {
        Mesh::new(&self.indices, &self.positions, &self.normals, &self.uvs).unwrap()
    }

    fn push_vertex(&mut self, p: [f32; 3], n: [f32; 3], uv: [f32; 2]) -> u32 {
        self.positions.push([p[0], p[1], p[2], 0.0]);
        self.normals.push([n[0], n[1], n[2], 0.0]);
        self.uvs.push([uv[0], uv[1], 0.0, 0.0]);
        self.positions.len() as u32 - 1
    }
}

/// Corners where ours and the reference differ in any bit (-0 equal to 0).
fn differing_corners(s: &Streams) -> Vec<usize> {
    let ours = corner_tangents(&s.mesh());
    let theirs = reference(s);
    assert_eq!(ours.len(), theirs.len());
    (0..ours.len())
        .filter(|&c| {
            (0..4).any(|k| {
                ours[c][k] != theirs[c][k] && !(ours[c][k].is_nan() && theirs[c][k].is_nan())
            })
        })
        .collect()
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A latitude-longitude sphere with a UV seam, UVs mirrored on the x < 0 half, poles of
/// coincident vertices, in a scrambled triangle order.
fn seamed_sphere() -> Streams {
    let (cols, rows) = (48u32, 24u32);
    let mut s = Streams::default();
    for r in 0..=rows {
        for c in 0..=cols {
            let (theta, phi) = (
                c as f32 / cols as f32 * std::f32::consts::TAU,
                r as f32 / rows as f32 * std::f32::consts::PI,
            );
            let p = [phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin()];
            let u = c as f32 / cols as f32;
            s.push_vertex(
                p,
                p,
                [if p[0] < 0.0 { 1.0 - u } else { u }, r as f32 / rows as f32],
            );
        }
    }
    let mut triangles = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let i = r * (cols + 1) + c;
            triangles.push([i, i + cols + 1, i + 1]);
            triangles.push([i + 1, i + cols + 1, i + cols + 2]);
        }
    }
    let n = triangles.len();
    s.indices = (0..n).flat_map(|k| triangles[(k * 7919) % n]).collect();
    s
}

/// A bumpy grid with every kind of trouble sprinkled over it by `rng`.
fn troubled_grid(rng: &mut Rng, side: u32) -> Streams {
    let mut s = Streams::default();
    for y in 0..side {
        for x in 0..side {
            let h = rng.unit() * 0.3;
            let n = [rng.unit() - 0.5, rng.unit() - 0.5, 1.0];
            let len = (n[0] * n[0] + n[1] * n[1] + 1.0f32).sqrt();
            let mut uv = [x as f32 / side as f32, y as f32 / side as f32];
            if x > side / 2 {
                uv[0] = 1.0 - uv[0]; // mirrored half
            }
            if rng.below(10) == 0 {
                uv = [0.25, 0.25]; // islands of equal UVs: faces without UV area
            }
            s.push_vertex([x as f32, y as f32, h], n.map(|c| c / len), uv);
        }
    }
    let at = |x: u32, y: u32| y * side + x;
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    for y in 0..side - 1 {
        for x in 0..side - 1 {
            let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    let count = triangles.len();
    for _ in 0..count / 20 {
        let t = rng.below(triangles.len());
        let [a, b, c] = triangles[t];
        match rng.below(6) {
            // a vertex copied (same attributes, new index): welded back by MikkTSpace
            0 => {
                let k = rng.below(3);
                let v = triangles[t][k] as usize;
                let copy = s.push_vertex(
                    xyz(s.positions[v]),
                    xyz(s.normals[v]),
                    [s.uvs[v][0], s.uvs[v][1]],
                );
                triangles[t][k] = copy;
            }
            // flipped winding
            1 => triangles[t] = [a, c, b],
            // a third face on an edge, and a duplicate face
            2 => triangles.push([b, a, c]),
            3 => triangles.push([a, b, c]),
            // degenerate: a corner moved onto another's position
            4 => {
                let p = xyz(s.positions[a as usize]);
                let moved = s.push_vertex(p, [0.0, 0.0, 1.0], [rng.unit(), rng.unit()]);
                triangles[t][1] = moved;
            }
            // a frame exactly opposite its neighbours' (UV mirrored on one face only)
            _ => {
                let v = b as usize;
                let uv = [s.uvs[v][0], s.uvs[v][1]];
                let copy = s.push_vertex(xyz(s.positions[v]), xyz(s.normals[v]), [-uv[0], uv[1]]);
                triangles[t][1] = copy;
            }
        }
    }
    // Scramble the face order.
    for i in (1..triangles.len()).rev() {
        triangles.swap(i, rng.below(i + 1));
    }
    s.indices = triangles.into_iter().flatten().collect();
    s
}

fn xyz(v: [f32; 4]) -> [f32; 3] {
    [v[0], v[1], v[2]]
}

#[test]
fn a_seamed_mirrored_sphere_matches_the_reference_bit_for_bit() {
    let s = seamed_sphere();
    let ours = corner_tangents(&s.mesh());
    assert!(ours.iter().any(|t| t[3] < 0.0) && ours.iter().any(|t| t[3] > 0.0));
    assert_eq!(differing_corners(&s), Vec::<usize>::new());
}

#[test]
fn troubled_grids_match_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..40 {
        let s = troubled_grid(&mut rng, 6 + round % 20);
        let differing = differing_corners(&s);
        assert!(differing.is_empty(), "round {round}: corners {differing:?}");
    }
}

#[test]
fn the_result_does_not_depend_on_the_thread_count() {
    // Enough welded vertices for several parallel tasks.
    let s = troubled_grid(&mut Rng(7), 150);
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            corner_tangents(&s.mesh())
                .concat()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>()
        })
    };
    let one = run(1);
    assert_eq!(one, run(3));
    assert!(s.positions.len() > 4 * 4096);
    assert_eq!(differing_corners(&s), Vec::<usize>::new());
}

#[test]
fn malformed_meshes_are_refused() {
    let s = seamed_sphere();
    let m = |indices: &[u32], n: usize| {
        Mesh::new(indices, &s.positions[..n], &s.normals[..n], &s.uvs[..n]).is_some()
    };
    let all = s.positions.len();
    assert!(m(&s.indices, all));
    assert!(
        !m(&s.indices[..s.indices.len() - 1], all),
        "a partial triangle"
    );
    assert!(!m(&s.indices, all - 1), "an index past the vertices");
    assert!(Mesh::new(&s.indices, &s.positions, &s.normals[1..], &s.uvs).is_none());
    assert!(corner_tangents(&Mesh::new(&[], &[], &[], &[]).unwrap()).is_empty());
}

#[test]
fn gathering_per_vertex_splits_vertices_as_per_corner_values_do() {
    use crate::pipeline::geometry::{split_by_corner_values, split_differing};
    let s = troubled_grid(&mut Rng(11), 40);
    let found = vertex_tangents(&s.mesh(), |_, t| t.map(f32::to_bits));
    assert!(
        !found.differing.is_empty(),
        "the grid must split some vertices"
    );
    let corners = found.corner_values(&s.indices);
    let expected = split_by_corner_values(&s.indices, s.positions.len(), &corners, [0; 4]);
    let mut indices = s.indices.clone();
    let (origin, values) = split_differing(&mut indices, found.first, &found.differing, [0; 4]);
    assert_eq!(expected, (indices, origin, values));
}

#[test]
fn a_fan_whose_centre_is_copied_for_every_face_matches_the_reference() {
    // 3,000 faces around one centre, each through its own copy of the centre vertex: one
    // welded vertex over 3,000 mesh vertices, and one group of 3,000 faces.
    let mut s = Streams::default();
    let n = 3000;
    let ring: Vec<u32> = (0..n)
        .map(|k| {
            let a = k as f32 / n as f32 * std::f32::consts::TAU;
            s.push_vertex([a.cos(), a.sin(), 0.1], [0.0, 0.0, 1.0], [a.cos(), a.sin()])
        })
        .collect();
    for k in 0..n {
        let centre = s.push_vertex([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0]);
        s.indices.extend([centre, ring[k], ring[(k + 1) % n]]);
    }
    let found = vertex_tangents(&s.mesh(), |_, t| t.map(f32::to_bits));
    assert_eq!(found.first.iter().filter(|v| v.is_some()).count(), 2 * n);
    assert_eq!(differing_corners(&s), Vec::<usize>::new());
}

#[test]
fn non_finite_input_gives_an_answer_for_every_corner() {
    let mut s = troubled_grid(&mut Rng(5), 30);
    let n = s.positions.len();
    for (k, bad) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX]
        .into_iter()
        .enumerate()
    {
        s.positions[(k * 97) % n][k % 3] = bad;
        s.normals[(k * 89 + 5) % n][(k + 1) % 3] = bad;
        s.uvs[(k * 83 + 9) % n][k % 2] = bad;
    }
    let found = vertex_tangents(&s.mesh(), |_, t| t.map(f32::to_bits));
    assert_eq!(found.corner_values(&s.indices).len(), s.indices.len());
    assert!(s.indices.iter().all(|&v| found.first[v as usize].is_some()));
}
