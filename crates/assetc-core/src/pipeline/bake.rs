//! Bake a node's world transform into static geometry.

use super::geometry::{Geometry, Semantic};
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
    // Morph target displacements stay in mesh space: targets that bake do not store them.
    for s in &mut geometry.streams {
        match s.semantic {
            Semantic::Position => {
                for p in &mut s.data {
                    let q = world.transform_point3(Vec3::new(p[0], p[1], p[2]));
                    *p = [q.x, q.y, q.z, p[3]];
                }
            }
            Semantic::Normal => {
                for n in &mut s.data {
                    let v = Vec3::new(n[0], n[1], n[2]);
                    let d = renormalise(normal_matrix * v, v);
                    *n = [d[0], d[1], d[2], n[3]];
                }
            }
            Semantic::Tangent => {
                for t in &mut s.data {
                    let dir = Vec3::new(t[0], t[1], t[2]);
                    let d = renormalise(linear * dir, dir);
                    *t = [d[0], d[1], d[2], t[3]];
                }
            }
            _ => {}
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

    use crate::pipeline::geometry::xyz;

    fn triangle() -> Geometry {
        let mut g = Geometry::new(
            "t",
            &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            vec![0, 1, 2],
        );
        g.set_stream(Semantic::Normal, 0, vec![[0.0, 0.0, 1.0, 0.0]; 3]);
        g.set_stream(Semantic::Tangent, 0, vec![[1.0, 0.0, 0.0, 1.0]; 3]);
        g
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
            .map(|&i| Vec3::from(xyz(g.positions()[i as usize])))
            .collect();
        let face = (p[1] - p[0]).cross(p[2] - p[0]).normalize();
        let n = Vec3::from(xyz(g.stream(Semantic::Normal, 0).unwrap()[0]));
        assert!(face.dot(n) > 0.999, "face {face} normal {n}");
    }

    #[test]
    fn non_uniform_scale_uses_inverse_transpose_for_normals() {
        let mut g = Geometry::new("n", &[[0.0; 3]], vec![]);
        let n = Vec3::new(1.0, 1.0, 0.0).normalize();
        g.set_stream(Semantic::Normal, 0, vec![[n.x, n.y, n.z, 0.0]]);
        bake_transform(&mut g, Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0)));
        // A plane x + y = c scaled by 2 in x becomes x/2 + y = c: normal (0.5, 1, 0).
        let expected = Vec3::new(0.5, 1.0, 0.0).normalize();
        let baked = Vec3::from(xyz(g.stream(Semantic::Normal, 0).unwrap()[0]));
        assert!(baked.dot(expected) > 0.99999);
    }
}
