//! Generate missing normals: area-weighted across faces that meet at less than the
//! smoothing angle, flat for sources without indices.

use super::geometry::{split_by_corner_values, xyz, Geometry, Semantic};
use super::weld::float_key;
use glam::Vec3;
use std::collections::HashMap;

/// Generated normals as a change to apply to a geometry: the new triangle list, the
/// source vertex of each new vertex (hard edges split vertices) and each vertex's normal.
/// Computed from positions and indices alone, so one result serves every target's stream
/// set ([`NormalSplit::apply`]).
#[derive(Debug, Clone, PartialEq)]
pub struct NormalSplit {
    pub indices: Vec<u32>,
    pub origin: Vec<u32>,
    pub normals: Vec<[f32; 4]>,
}

impl NormalSplit {
    /// Gives `geometry` (the geometry the split was computed from, any streams) the
    /// generated normals.
    pub fn apply(&self, geometry: &mut Geometry) {
        geometry.keep_vertices(&self.origin);
        geometry.indices.clone_from(&self.indices);
        geometry.set_stream(Semantic::Normal, 0, self.normals.clone());
    }
}

/// Fills the normal stream when absent. Vertices whose corners get different normals
/// (hard edges) are split, so the triangle list stays valid.
pub fn generate_normals(geometry: &mut Geometry, smoothing_angle_degrees: f32) {
    if geometry.has(Semantic::Normal, 0) {
        return;
    }
    normal_split(geometry, smoothing_angle_degrees).apply(geometry);
}

/// The normals [`generate_normals`] would give `geometry`, without applying them.
pub fn normal_split(geometry: &Geometry, smoothing_angle_degrees: f32) -> NormalSplit {
    let face_normals = face_normals(geometry);
    let corner_normals: Vec<[f32; 3]> = if geometry.indexed {
        smooth_corner_normals(geometry, &face_normals, smoothing_angle_degrees)
    } else {
        (0..geometry.indices.len())
            .map(|c| unit_or_z(face_normals[c / 3]))
            .collect()
    };
    let (indices, origin, normals) = split_by_corner_values(
        &geometry.indices,
        geometry.vertex_count(),
        &corner_normals,
        [0.0, 0.0, 1.0],
    );
    NormalSplit {
        indices,
        origin,
        normals: super::geometry::widen(&normals),
    }
}

/// Unnormalised face normals: their length is twice the triangle's area.
fn face_normals(geometry: &Geometry) -> Vec<Vec3> {
    let positions = geometry.positions();
    geometry
        .indices
        .chunks_exact(3)
        .map(|t| {
            let p = |i: u32| Vec3::from(xyz(positions[i as usize]));
            let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
            (b - a).cross(c - a)
        })
        .collect()
}

fn unit_or_z(v: Vec3) -> [f32; 3] {
    v.try_normalize().unwrap_or(Vec3::Z).to_array()
}

/// For each corner, the area-weighted sum of the normals of the faces around the same
/// position whose direction is within the smoothing angle of the corner's own face.
/// Faces are grouped by position rather than vertex index so UV seams stay smooth.
fn smooth_corner_normals(
    geometry: &Geometry,
    face_normals: &[Vec3],
    angle_degrees: f32,
) -> Vec<[f32; 3]> {
    let cos_limit = angle_degrees.to_radians().cos();
    let mut group_of_position: HashMap<[u32; 3], u32> = HashMap::new();
    let vertex_group: Vec<u32> = geometry
        .positions()
        .iter()
        .map(|p| {
            let key = xyz(*p).map(float_key);
            let next = group_of_position.len() as u32;
            *group_of_position.entry(key).or_insert(next)
        })
        .collect();
    // Faces per position group, in compressed-row form.
    let group_count = group_of_position.len();
    let mut start = vec![0u32; group_count + 1];
    for &v in &geometry.indices {
        start[vertex_group[v as usize] as usize + 1] += 1;
    }
    for g in 0..group_count {
        start[g + 1] += start[g];
    }
    let mut fill = start.clone();
    let mut faces = vec![0u32; geometry.indices.len()];
    for (corner, &v) in geometry.indices.iter().enumerate() {
        let g = vertex_group[v as usize] as usize;
        faces[fill[g] as usize] = (corner / 3) as u32;
        fill[g] += 1;
    }
    let unit_faces: Vec<Vec3> = face_normals.iter().map(|n| n.normalize_or_zero()).collect();
    geometry
        .indices
        .iter()
        .enumerate()
        .map(|(corner, &v)| {
            let own = corner / 3;
            let g = vertex_group[v as usize] as usize;
            let own_dir = unit_faces[own];
            let mut sum = Vec3::ZERO;
            let mut seen_face = None;
            for &f in &faces[start[g] as usize..start[g + 1] as usize] {
                // A face that touches the position twice (degenerate) counts once.
                if seen_face == Some(f) {
                    continue;
                }
                seen_face = Some(f);
                let f = f as usize;
                if f == own || unit_faces[f].dot(own_dir) >= cos_limit {
                    sum += face_normals[f];
                }
            }
            unit_or_z(if sum.length_squared() > 0.0 {
                sum
            } else {
                face_normals[own]
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube's 8 shared corners, 12 triangles, counter-clockwise from outside.
    fn shared_cube() -> Geometry {
        let positions: Vec<[f32; 3]> = (0..8)
            .map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32])
            .collect();
        let indices = vec![
            0, 2, 1, 1, 2, 3, // z = 0, facing -z
            4, 5, 6, 5, 7, 6, // z = 1, facing +z
            0, 1, 4, 1, 5, 4, // y = 0
            2, 6, 3, 3, 6, 7, // y = 1
            0, 4, 2, 2, 4, 6, // x = 0
            1, 3, 5, 3, 7, 5, // x = 1
        ];
        Geometry::new("cube", &positions, indices)
    }

    fn normals(g: &Geometry) -> Vec<[f32; 3]> {
        g.stream(Semantic::Normal, 0)
            .unwrap()
            .iter()
            .map(|n| xyz(*n))
            .collect()
    }

    fn position(g: &Geometry, i: u32) -> Vec3 {
        Vec3::from(xyz(g.positions()[i as usize]))
    }

    #[test]
    fn cube_corners_are_split_at_60_degrees() {
        let mut g = shared_cube();
        generate_normals(&mut g, 60.0);
        // Each of the 8 corners touches 3 faces at 90 degrees: 24 distinct vertices.
        assert_eq!(g.vertex_count(), 24);
        let normals = normals(&g);
        for tri in g.indices.chunks_exact(3) {
            let p = |i: u32| position(&g, i);
            let face = (p(tri[1]) - p(tri[0]))
                .cross(p(tri[2]) - p(tri[0]))
                .normalize();
            for &v in tri {
                assert!(Vec3::from(normals[v as usize]).dot(face) > 0.9999);
            }
        }
    }

    #[test]
    fn cube_corners_are_smooth_at_180_degrees() {
        let mut g = shared_cube();
        let source = g.clone();
        generate_normals(&mut g, 180.0);
        assert_eq!(
            g.vertex_count(),
            8,
            "nothing is split when every angle is below the limit"
        );
        // Each normal is the normalised sum of the (area-weighted) normals of the triangles
        // touching that corner, which points out of the cube.
        for (v, n) in normals(&g).iter().enumerate() {
            let mut sum = Vec3::ZERO;
            for t in source.indices.chunks(3).filter(|t| t.contains(&(v as u32))) {
                let p = |i: u32| position(&source, i);
                sum += (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
            }
            assert!(
                Vec3::from(*n).dot(sum.normalize()) > 0.99999,
                "vertex {v}: {n:?}"
            );
            let out = position(&g, v as u32) - Vec3::splat(0.5);
            assert!(Vec3::from(*n).dot(out) > 0.0);
        }
    }

    #[test]
    fn unindexed_data_gets_flat_normals() {
        let mut g = Geometry::new(
            "flat",
            &[
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
            ],
            (0..6).collect(),
        );
        g.indexed = false;
        generate_normals(&mut g, 180.0);
        let n = normals(&g);
        assert_eq!(&n[..3], &[[0.0, 0.0, 1.0]; 3]);
        assert_eq!(&n[3..], &[[1.0, 0.0, 0.0]; 3]);
    }
}
