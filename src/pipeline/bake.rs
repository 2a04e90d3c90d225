//! Bake a node's world transform into static geometry.

use super::geometry::Geometry;
use glam::{Mat3, Mat4, Vec3};

/// Transforms positions by `world`, normals by its inverse-transpose and tangents by its
/// upper 3x3 (both renormalised), and flips the winding when the determinant is negative so
/// front faces stay counter-clockwise.
pub fn bake_transform(geometry: &mut Geometry, world: Mat4) {
    if world == Mat4::IDENTITY {
        return;
    }
    let linear = Mat3::from_mat4(world);
    let normal_matrix = if linear.determinant().abs() > f32::MIN_POSITIVE {
        linear.inverse().transpose()
    } else {
        // A singular transform flattens the mesh; directions then keep the linear part.
        linear
    };
    for p in &mut geometry.positions {
        *p = world.transform_point3(Vec3::from(*p)).to_array();
    }
    if let Some(normals) = &mut geometry.normals {
        for n in normals.iter_mut() {
            *n = renormalise(normal_matrix * Vec3::from(*n), Vec3::from(*n));
        }
    }
    if let Some(tangents) = &mut geometry.tangents {
        for t in tangents.iter_mut() {
            let dir = Vec3::new(t[0], t[1], t[2]);
            let d = renormalise(linear * dir, dir);
            *t = [d[0], d[1], d[2], t[3]];
        }
    }
    if world.determinant() < 0.0 {
        for tri in geometry.indices.chunks_exact_mut(3) {
            tri.swap(1, 2);
        }
    }
}

fn renormalise(v: Vec3, fallback: Vec3) -> [f32; 3] {
    v.try_normalize()
        .or_else(|| fallback.try_normalize())
        .unwrap_or(Vec3::Z)
        .to_array()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triangle() -> Geometry {
        Geometry {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            tangents: Some(vec![[1.0, 0.0, 0.0, 1.0]; 3]),
            indices: vec![0, 1, 2],
            indexed: true,
            ..Default::default()
        }
    }

    #[test]
    fn negative_scale_flips_winding_and_keeps_facing() {
        let mut g = triangle();
        bake_transform(&mut g, Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        assert_eq!(g.indices, vec![0, 2, 1]);
        // The geometric normal of the flipped triangle must agree with the baked normal.
        let p: Vec<Vec3> = g
            .indices
            .iter()
            .map(|&i| Vec3::from(g.positions[i as usize]))
            .collect();
        let face = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
        let n = Vec3::from(g.normals.as_ref().unwrap()[0]);
        assert!(face.dot(n) > 0.999, "face {face} normal {n}");
    }

    #[test]
    fn non_uniform_scale_uses_inverse_transpose_for_normals() {
        let mut g = Geometry {
            positions: vec![[0.0; 3]],
            normals: Some(vec![[1.0, 1.0, 0.0]]),
            indices: vec![],
            ..Default::default()
        };
        g.normals.as_mut().unwrap()[0] = Vec3::new(1.0, 1.0, 0.0).normalize().to_array();
        bake_transform(&mut g, Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0)));
        // A plane x + y = c scaled by 2 in x becomes x/2 + y = c: normal (0.5, 1, 0).
        let expected = Vec3::new(0.5, 1.0, 0.0).normalize();
        assert!(Vec3::from(g.normals.unwrap()[0]).dot(expected) > 0.99999);
    }
}
