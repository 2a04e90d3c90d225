//! Generate missing tangents with MikkTSpace, as glTF recommends.
//!
//! A primitive of up to [`REFERENCE_TRIANGLES`] triangles goes through `bevy_mikktspace`,
//! a safe-Rust port that is bit-identical to the C reference, including the C code's
//! edge-sorting fault (MikkTSpace issue #5), which can leave the faces around the
//! highest-numbered vertices ungrouped; normal-map bakers built on the C code (xNormal,
//! Substance) see the same. It runs on one thread, so larger primitives go through
//! [`super::mikktspace`], which does the same computation on every core with the edges fully
//! sorted: bit-identical to the port wherever that fault does not bite, and free of it. Every
//! corpus primitive is below the limit, so corpus tangents are the reference's.
//! meshoptimizer's faster generator was tried and rejected: with its MikkTSpace-compatible
//! option it still differs by up to 1.9 on corpus primitives.

use super::geometry::{xyz, Geometry, Semantic};
use super::mikktspace::{vertex_tangents, Mesh, NO_FRAME};
use bevy_mikktspace::TangentSpace;
use rayon::prelude::*;

/// Primitives up to this many triangles get the reference implementation (one core is
/// enough for them: docs/performance.md, "Figures from code comments"); larger ones the parallel one.
pub const REFERENCE_TRIANGLES: usize = 1 << 16;

/// The reference port's view of a primitive.
struct Reference<'a> {
    indices: &'a [u32],
    positions: &'a [[f32; 4]],
    normals: &'a [[f32; 4]],
    uvs: &'a [[f32; 4]],
    corners: Vec<[f32; 4]>,
}

impl Reference<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.indices[face * 3 + vert] as usize
    }
}

impl bevy_mikktspace::Geometry for Reference<'_> {
    fn num_faces(&self) -> usize {
        self.indices.len() / 3
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
        if let Some(slot) = self.corners.get_mut(face * 3 + vert) {
            *slot = tangent_space.map_or(NO_FRAME, |t| t.tangent_encoded());
        }
    }
}

/// The reference port's tangent of every corner; zero where it panicked (it is safe Rust,
/// but a panic in it must not take the build down; [`sanitize_tangent`] then gives those
/// corners the fixed frame).
pub(crate) fn reference_tangents(
    indices: &[u32],
    positions: &[[f32; 4]],
    normals: &[[f32; 4]],
    uvs: &[[f32; 4]],
) -> Vec<[f32; 4]> {
    let mut reference = Reference {
        indices,
        positions,
        normals,
        uvs,
        corners: vec![NO_FRAME; indices.len()],
    };
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        bevy_mikktspace::generate_tangents::<_, bevy_mikktspace::StdOps>(&mut reference).is_ok()
    }));
    if generated.is_err() {
        reference.corners.fill([0.0; 4]);
    }
    reference.corners
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
    let indices = &geometry.indices;
    let mesh = match Mesh::new(indices, geometry.positions(), normals, uvs) {
        Some(mesh) if !indices.is_empty() => mesh,
        _ => {
            // `Geometry::check` runs before the stages; this keeps the stage total anyway.
            let n = geometry.vertex_count();
            geometry.set_stream(Semantic::Tangent, 0, vec![[1.0, 0.0, 0.0, 1.0]; n]);
            return true;
        }
    };
    let sanitize = |corner: usize, t| sanitize_tangent(t, xyz(normals[indices[corner] as usize]));
    let per_vertex = if indices.len() / 3 <= REFERENCE_TRIANGLES {
        let mut corners = reference_tangents(indices, geometry.positions(), normals, uvs);
        corners
            .par_iter_mut()
            .enumerate()
            .for_each(|(corner, t)| *t = sanitize(corner, *t));
        geometry.split_by_corner_values(&corners, [1.0, 0.0, 0.0, 1.0])
    } else {
        let found = vertex_tangents(&mesh, sanitize);
        geometry.split_by_vertex_values(found.first, &found.differing, [1.0, 0.0, 0.0, 1.0])
    };
    geometry.set_stream(Semantic::Tangent, 0, per_vertex);
    true
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

    #[test]
    fn a_primitive_too_large_for_the_reference_gets_unit_tangents_from_bad_input_too() {
        // 79,202 triangles: the parallel implementation, fed non-finite values.
        let side = 200u32;
        let at = |x: u32, y: u32| y * side + x;
        let mut positions = Vec::new();
        let mut uvs = Vec::new();
        let mut normals = Vec::new();
        for y in 0..side {
            for x in 0..side {
                let (u, v) = (x as f32 / side as f32, y as f32 / side as f32);
                positions.push([u, v, (u * 9.0).sin() * 0.1]);
                uvs.push([u, v]);
                normals.push([0.0, 0.0, 1.0]);
            }
        }
        positions[123][2] = f32::NAN;
        uvs[4567] = [f32::INFINITY, 0.0];
        normals[8910] = [f32::NAN, 0.0, 1.0];
        normals[8911] = [0.0, 0.0, 0.0];
        let mut indices = Vec::new();
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let (a, b, c, d) = (at(x, y), at(x + 1, y), at(x + 1, y + 1), at(x, y + 1));
                indices.extend([a, b, c, a, c, d]);
            }
        }
        assert!(indices.len() / 3 > REFERENCE_TRIANGLES);
        let mut g = with_uvs_and_normals(&positions, &uvs, &normals, indices);
        assert!(generate_tangents(&mut g, 0));
        unit_tangents(&g);
        assert!(g.indices.iter().all(|&i| (i as usize) < g.vertex_count()));
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
