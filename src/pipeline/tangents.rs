//! Generate missing tangents with MikkTSpace, as glTF recommends.
//!
//! `bevy_mikktspace` is a safe-Rust port that gives bit-identical tangents to the
//! `mikktspace` 0.3 crate used before, which could index out of bounds or crash on
//! degenerate input (corners with equal positions or UVs, a node scaled by 0). It runs on
//! one thread, so a large primitive is cut into spatial chunks of triangles, each run
//! separately (in parallel) together with a ghost ring: every triangle sharing a position
//! with the chunk. MikkTSpace's tangent at a corner depends only on the triangles around
//! that corner's vertex, so the chunk's own corners get what the whole mesh would give
//! them (`tests/tangents_corpus.rs` holds the stage to whole-mesh MikkTSpace within 1e-4).
//! Chunks are fixed by the geometry, never by the thread count, so the output is the same
//! on any number of threads. meshoptimizer's faster generator was tried and rejected: with
//! its MikkTSpace-compatible option it still differs by up to 1.9 on corpus primitives.

use super::geometry::{xyz, Geometry, Semantic};
use super::regions::{position_classes, spatial_regions};
use bevy_mikktspace::TangentSpace;
use rayon::prelude::*;

/// Triangles per chunk: below this a primitive runs whole (as the corpus assets do).
const CHUNK_TRIANGLES: usize = 1 << 16;

/// One run of MikkTSpace over some triangles (`faces`, triangle numbers in the geometry).
struct MikkInput<'a> {
    indices: &'a [u32],
    positions: &'a [[f32; 4]],
    uvs: &'a [[f32; 4]],
    normals: &'a [[f32; 4]],
    faces: &'a [u32],
    /// Three tangents per entry of `faces`.
    corner_tangents: Vec<[f32; 4]>,
}

impl MikkInput<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.indices[self.faces[face] as usize * 3 + vert] as usize
    }
}

impl bevy_mikktspace::Geometry for MikkInput<'_> {
    fn num_faces(&self) -> usize {
        self.faces.len()
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        xyz(self.positions[self.vertex(face, vert)])
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        xyz(self.normals[self.vertex(face, vert)])
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        let uv = self.uvs[self.vertex(face, vert)];
        [uv[0], uv[1]]
    }
    fn set_tangent(&mut self, tangent_space: Option<TangentSpace>, face: usize, vert: usize) {
        // A corner MikkTSpace could not give a frame (a degenerate face with no usable
        // neighbour) gets the default frame the C implementation writes.
        if let Some(slot) = self.corner_tangents.get_mut(face * 3 + vert) {
            *slot = tangent_space.unwrap_or_default().tangent_encoded();
        }
    }
}

/// Fills the tangent stream when absent and the geometry has UVs (set `uv_set`) and normals.
/// Returns whether the geometry has real tangents afterwards. Vertices whose corners get
/// different tangents are split. Never panics on degenerate or non-finite input: such
/// corners get a unit tangent perpendicular to the normal.
pub fn generate_tangents(geometry: &mut Geometry, uv_set: u32) -> bool {
    if geometry.has(Semantic::Tangent, 0) {
        return true;
    }
    let (Some(uvs), Some(normals)) = (
        geometry.stream(Semantic::TexCoord, uv_set),
        geometry.stream(Semantic::Normal, 0),
    ) else {
        return false;
    };
    let n = geometry.vertex_count();
    let in_range = geometry.indices.len() % 3 == 0
        && geometry.indices.iter().all(|&i| (i as usize) < n)
        && uvs.len() == n
        && normals.len() == n;
    if geometry.indices.is_empty() || !in_range {
        // `Geometry::check` runs before the stages; this keeps the stage total anyway.
        geometry.set_stream(Semantic::Tangent, 0, vec![[1.0, 0.0, 0.0, 1.0]; n]);
        return true;
    }
    let input = MikkInput {
        indices: &geometry.indices,
        positions: geometry.positions(),
        uvs,
        normals,
        faces: &[],
        corner_tangents: Vec::new(),
    };
    let mut corners = corner_tangents(&input, CHUNK_TRIANGLES);
    corners
        .par_iter_mut()
        .zip(geometry.indices.par_iter())
        .for_each(|(t, &v)| *t = sanitize_tangent(*t, xyz(normals[v as usize])));
    let per_vertex = geometry.split_by_corner_values(&corners, [1.0, 0.0, 0.0, 1.0]);
    geometry.set_stream(Semantic::Tangent, 0, per_vertex);
    true
}

/// MikkTSpace's tangent of every corner of `whole` (whose `faces` is ignored): one run for a
/// primitive of at most `chunk_triangles`, else one run per spatial chunk of about that
/// many triangles with its ghost ring.
fn corner_tangents(whole: &MikkInput, chunk_triangles: usize) -> Vec<[f32; 4]> {
    let triangles = whole.indices.len() / 3;
    if triangles <= chunk_triangles {
        let all: Vec<u32> = (0..triangles as u32).collect();
        return run_mikktspace(whole, &all);
    }
    let mut corners = vec![[0.0f32; 4]; whole.indices.len()];
    let chunks = spatial_regions(whole.indices, whole.positions, chunk_triangles);
    let rings = TriangleRings::new(whole.indices, whole.positions);
    // Each chunk writes its own triangles' corners as soon as it is done (they are
    // disjoint, so the order chunks finish in changes nothing).
    let shared = std::sync::Mutex::new(&mut corners);
    chunks.par_iter().with_max_len(1).for_each(|core| {
        let faces = rings.with_ring(core);
        let tangents = run_mikktspace(whole, &faces);
        let mut corners = shared.lock().unwrap_or_else(|e| e.into_inner());
        // Both lists are in triangle order: walk them together to find the chunk's own.
        let mut next = core.iter().peekable();
        for (i, &f) in faces.iter().enumerate() {
            if next.peek() == Some(&&f) {
                next.next();
                let f = f as usize;
                corners[f * 3..f * 3 + 3].copy_from_slice(&tangents[i * 3..i * 3 + 3]);
            }
        }
    });
    corners
}

/// MikkTSpace over `faces` (ascending triangle numbers): three tangents per face, zero
/// where the run panicked (the port is safe Rust, but a panic in it must not take the
/// build down; [`sanitize_tangent`] then gives those corners the fixed frame).
fn run_mikktspace(whole: &MikkInput, faces: &[u32]) -> Vec<[f32; 4]> {
    let mut input = MikkInput {
        faces,
        corner_tangents: vec![[1.0, 0.0, 0.0, 1.0]; faces.len() * 3],
        ..*whole
    };
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bevy_mikktspace::generate_tangents::<_, bevy_mikktspace::StdOps>(&mut input).is_ok()
    }));
    if generated.is_err() {
        input.corner_tangents.fill([0.0; 4]);
    }
    input.corner_tangents
}

/// Which triangles touch each position (vertices at bit-equal positions, -0 as 0, count as
/// one: MikkTSpace welds corners with equal positions, normals and UVs, so its neighbours
/// of a vertex are among the triangles at that position).
struct TriangleRings {
    /// Triangles at each class: `triangles[offsets[c]..offsets[c + 1]]`.
    offsets: Vec<u32>,
    triangles: Vec<u32>,
    /// The position class of every corner.
    indices_class: Vec<u32>,
}

impl TriangleRings {
    fn new(indices: &[u32], positions: &[[f32; 4]]) -> Self {
        let (classes, class) = position_classes(positions);
        let indices_class: Vec<u32> = indices.iter().map(|&v| class[v as usize]).collect();
        drop(class);
        let mut offsets = vec![0u32; classes + 1];
        for &c in &indices_class {
            offsets[c as usize + 1] += 1;
        }
        for c in 0..classes {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut triangles = vec![0u32; indices.len()];
        for (corner, &c) in indices_class.iter().enumerate() {
            triangles[fill[c as usize] as usize] = (corner / 3) as u32;
            fill[c as usize] += 1;
        }
        Self {
            offsets,
            triangles,
            indices_class,
        }
    }

    /// `core` and every triangle sharing a position with it, in ascending order.
    fn with_ring(&self, core: &[u32]) -> Vec<u32> {
        let mut faces: Vec<u32> = core
            .iter()
            .flat_map(|&t| {
                (0..3).flat_map(move |k| {
                    let c = self.indices_class[t as usize * 3 + k] as usize;
                    self.triangles[self.offsets[c] as usize..self.offsets[c + 1] as usize]
                        .iter()
                        .copied()
                })
            })
            .collect();
        faces.sort_unstable();
        faces.dedup();
        faces
    }
}

/// A non-finite or zero tangent becomes a unit vector perpendicular to the normal.
fn sanitize_tangent(t: [f32; 4], normal: [f32; 3]) -> [f32; 4] {
    let dir = glam::Vec3::new(t[0], t[1], t[2]);
    let w = if t[3] < 0.0 { -1.0 } else { 1.0 };
    match dir.try_normalize() {
        Some(d) => [d.x, d.y, d.z, w],
        None => {
            let p = perpendicular(normal);
            [p[0], p[1], p[2], w]
        }
    }
}

/// A unit vector perpendicular to `n`: the fixed tangent used when none can be generated.
pub fn perpendicular(n: [f32; 3]) -> [f32; 3] {
    let n = glam::Vec3::from(n).try_normalize().unwrap_or(glam::Vec3::Z);
    n.any_orthonormal_vector().to_array()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::geometry::widen;
    use glam::Vec3;

    fn with_uvs_and_normals(
        positions: &[[f32; 3]],
        uvs: &[[f32; 2]],
        normals: &[[f32; 3]],
        indices: Vec<u32>,
    ) -> Geometry {
        let mut g = Geometry::new("p", positions, indices);
        g.set_stream(Semantic::TexCoord, 0, widen(uvs));
        g.set_stream(Semantic::Normal, 0, widen(normals));
        g
    }

    fn unit_tangents(g: &Geometry) -> Vec<[f32; 4]> {
        let t = g.stream(Semantic::Tangent, 0).unwrap().to_vec();
        assert_eq!(t.len(), g.vertex_count());
        for v in &t {
            let len = Vec3::new(v[0], v[1], v[2]).length();
            assert!((len - 1.0).abs() < 1e-4 && v[3].abs() == 1.0, "{v:?}");
        }
        t
    }

    #[test]
    fn quad_tangent_follows_u_direction() {
        // A quad in the XY plane with u along +X and v along -Y (glTF's top-left origin).
        let mut g = with_uvs_and_normals(
            &[
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            &[[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]],
            &[[0.0, 0.0, 1.0]; 4],
            vec![0, 1, 2, 0, 2, 3],
        );
        assert!(generate_tangents(&mut g, 0));
        for t in unit_tangents(&g) {
            assert!(Vec3::new(t[0], t[1], t[2]).dot(Vec3::X) > 0.999, "{t:?}");
        }
    }

    #[test]
    fn no_uvs_means_no_tangents() {
        let mut g = Geometry::new("p", &[[0.0; 3]; 3], vec![0, 1, 2]);
        g.set_stream(Semantic::Normal, 0, vec![[0.0, 0.0, 1.0, 0.0]; 3]);
        assert!(!generate_tangents(&mut g, 0));
        assert!(!g.has(Semantic::Tangent, 0));
    }

    #[test]
    fn degenerate_triangles_get_unit_tangents_without_crashing() {
        // Corners with equal positions, corners with equal UVs, a triangle collapsed to a
        // point (a node scaled by 0), zero and non-finite normals, NaN UVs.
        let positions = [
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0; 3],
            [0.0; 3],
            [0.0; 3],
            [2.0, 0.0, 0.0],
        ];
        let uvs = [
            [0.0, 0.0],
            [0.0, 0.0],
            [0.0, 0.0],
            [0.0, 0.0],
            [1.0, 1.0],
            [0.5, 0.5],
            [0.5, 0.5],
            [0.5, 0.5],
            [f32::NAN, 0.0],
        ];
        let normals = [
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0],
        ];
        let indices = vec![
            0, 1, 2, // two equal positions
            1, 2, 3, // three equal UVs
            5, 6, 7, // a point
            2, 4, 8, // NaN UV and infinite normal
            3, 3, 3, // one vertex three times
        ];
        let mut g = with_uvs_and_normals(&positions, &uvs, &normals, indices);
        assert!(generate_tangents(&mut g, 0));
        unit_tangents(&g);
        assert!(g.indices.iter().all(|&i| (i as usize) < g.vertex_count()));
    }

    /// A latitude-longitude sphere with a UV seam (the u = 0 and u = 1 columns are separate
    /// vertices at equal positions), UVs mirrored in u on the x < 0 half (handedness flips),
    /// poles of coincident vertices (degenerate triangles), in a scrambled triangle order.
    fn seamed_sphere() -> Geometry {
        let (cols, rows) = (48u32, 24u32);
        let mut positions = Vec::new();
        let mut uvs = Vec::new();
        for r in 0..=rows {
            for c in 0..=cols {
                let (theta, phi) = (
                    c as f32 / cols as f32 * std::f32::consts::TAU,
                    r as f32 / rows as f32 * std::f32::consts::PI,
                );
                let p = [phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin()];
                let u = c as f32 / cols as f32;
                positions.push(p);
                uvs.push([if p[0] < 0.0 { 1.0 - u } else { u }, r as f32 / rows as f32]);
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
        // A fixed shuffle: chunks must not rely on triangles coming in spatial order.
        let n = triangles.len();
        let shuffled: Vec<u32> = (0..n).flat_map(|k| triangles[(k * 7919) % n]).collect();
        let normals = positions.clone();
        with_uvs_and_normals(&positions, &uvs, &normals, shuffled)
    }

    #[test]
    fn chunks_with_a_ghost_ring_give_the_whole_mesh_tangents() {
        let g = seamed_sphere();
        let input = MikkInput {
            indices: &g.indices,
            positions: g.positions(),
            uvs: g.stream(Semantic::TexCoord, 0).unwrap(),
            normals: g.stream(Semantic::Normal, 0).unwrap(),
            faces: &[],
            corner_tangents: Vec::new(),
        };
        let whole = corner_tangents(&input, usize::MAX);
        assert!(whole.iter().any(|t| t[3] < 0.0) && whole.iter().any(|t| t[3] > 0.0));
        for chunk in [100, 333, 1000] {
            assert!(spatial_regions(&g.indices, g.positions(), chunk).len() > 1);
            let chunked = corner_tangents(&input, chunk);
            for (corner, (a, b)) in whole.iter().zip(&chunked).enumerate() {
                let diff = (0..4).map(|k| (a[k] - b[k]).abs()).fold(0.0, f32::max);
                assert!(
                    diff <= 1e-6,
                    "chunks of {chunk}: corner {corner}: {a:?} vs {b:?}"
                );
            }
        }
        // Without the ring the chunk borders come out differently: the ring is what works.
        let chunks = spatial_regions(&g.indices, g.positions(), 333);
        let bare: Vec<Vec<[f32; 4]>> = chunks.iter().map(|c| run_mikktspace(&input, c)).collect();
        let differs = chunks.iter().zip(&bare).any(|(core, tangents)| {
            core.iter().zip(tangents.chunks_exact(3)).any(|(&f, t)| {
                t.iter().enumerate().any(|(k, t)| {
                    let w = whole[f as usize * 3 + k];
                    (0..3).any(|c| (t[c] - w[c]).abs() > 1e-4)
                })
            })
        });
        assert!(differs, "the test mesh must exercise the ghost ring");
    }

    #[test]
    fn perpendicular_is_perpendicular() {
        for n in [
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.3, -0.8, 0.1],
            [0.0, 0.0, -1.0],
        ] {
            let p = Vec3::from(perpendicular(n));
            assert!((p.length() - 1.0).abs() < 1e-5);
            assert!(p.dot(Vec3::from(n).normalize()).abs() < 1e-5);
        }
    }
}
