//! Generate missing tangents with MikkTSpace (the `mikktspace` crate), as glTF recommends.

use super::geometry::Geometry;

struct MikkInput<'a> {
    geometry: &'a Geometry,
    uvs: &'a [[f32; 2]],
    normals: &'a [[f32; 3]],
    corner_tangents: Vec<[f32; 4]>,
}

impl mikktspace::Geometry for MikkInput<'_> {
    fn num_faces(&self) -> usize {
        self.geometry.indices.len() / 3
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.geometry.positions[self.geometry.indices[face * 3 + vert] as usize]
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.normals[self.geometry.indices[face * 3 + vert] as usize]
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        self.uvs[self.geometry.indices[face * 3 + vert] as usize]
    }
    fn set_tangent_encoded(&mut self, tangent: [f32; 4], face: usize, vert: usize) {
        self.corner_tangents[face * 3 + vert] = tangent;
    }
}

/// Fills `geometry.tangents` when absent and the geometry has UVs and normals. Returns
/// whether the geometry has real tangents afterwards. Vertices whose corners get different
/// tangents are split.
pub fn generate_tangents(geometry: &mut Geometry) -> bool {
    if geometry.tangents.is_some() {
        return true;
    }
    let (Some(uvs), Some(normals)) = (&geometry.uvs, &geometry.normals) else {
        return false;
    };
    if geometry.indices.is_empty() {
        geometry.tangents = Some(vec![[1.0, 0.0, 0.0, 1.0]; geometry.positions.len()]);
        return true;
    }
    let (uvs, normals) = (uvs.clone(), normals.clone());
    let mut input = MikkInput {
        geometry,
        uvs: &uvs,
        normals: &normals,
        corner_tangents: vec![[1.0, 0.0, 0.0, 1.0]; geometry.indices.len()],
    };
    // MikkTSpace leaves degenerate faces at the fallback value above; `false` only means
    // it found nothing usable at all, which still leaves a valid (fallback) tangent frame.
    mikktspace::generate_tangents(&mut input);
    let corners: Vec<[f32; 4]> = input
        .corner_tangents
        .into_iter()
        .zip(geometry.indices.iter())
        .map(|(t, &v)| sanitize_tangent(t, normals[v as usize]))
        .collect();
    let per_vertex = geometry.split_by_corner_values(&corners, [1.0, 0.0, 0.0, 1.0]);
    geometry.tangents = Some(per_vertex);
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
    use glam::Vec3;

    #[test]
    fn quad_tangent_follows_u_direction() {
        // A quad in the XY plane with u along +X and v along -Y (glTF's top-left origin).
        let mut g = Geometry {
            positions: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
            ],
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            uvs: Some(vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]),
            indices: vec![0, 1, 2, 0, 2, 3],
            indexed: true,
            ..Default::default()
        };
        assert!(generate_tangents(&mut g));
        for t in g.tangents.unwrap() {
            assert!(Vec3::new(t[0], t[1], t[2]).dot(Vec3::X) > 0.999, "{t:?}");
        }
    }

    #[test]
    fn no_uvs_means_no_tangents() {
        let mut g = Geometry {
            positions: vec![[0.0; 3]; 3],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            indices: vec![0, 1, 2],
            ..Default::default()
        };
        assert!(!generate_tangents(&mut g));
        assert!(g.tangents.is_none());
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
