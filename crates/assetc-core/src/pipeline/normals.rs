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
    // Positions where more corners meet than the exhaustive loop below can afford (it
    // visits every face of the position for every corner: quadratic in the valence).
    let crowded: HashMap<u32, Vec<[f32; 3]>> = (0..group_count)
        .filter(|&g| (start[g + 1] - start[g]) as usize > MAX_FACES_PER_CORNER)
        .map(|g| {
            let entries = &faces[start[g] as usize..start[g + 1] as usize];
            let smoothed = smooth_crowded(entries, face_normals, &unit_faces, cos_limit);
            (g as u32, smoothed)
        })
        .collect();
    // The next entry of each crowded group, as its corners come in order.
    let mut crowded_next: HashMap<u32, usize> = HashMap::new();
    geometry
        .indices
        .iter()
        .enumerate()
        .map(|(corner, &v)| {
            let own = corner / 3;
            let g = vertex_group[v as usize] as usize;
            if let Some(smoothed) = (!crowded.is_empty())
                .then(|| crowded.get(&(g as u32)))
                .flatten()
            {
                // Entries were filled in corner order, so the n-th corner of the group
                // met here is its n-th entry.
                let next = crowded_next.entry(g as u32).or_default();
                let normal = smoothed.get(*next).copied().unwrap_or([0.0, 0.0, 1.0]);
                *next += 1;
                return normal;
            }
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

/// Most faces one corner's normal looks at where many corners share a position (a fan's
/// hub, a pole, a degenerate weld of thousands of vertices). Below it every face of the
/// position is visited per corner, as always; above it the work per corner is bounded
/// (see [`smooth_crowded`]), so the stage stays linear in the corner count.
pub const MAX_FACES_PER_CORNER: usize = 1024;

/// Margin (radians) taken off half the smoothing angle before every face of a crowded
/// position is known to be within the angle of every other: far above the rounding of the
/// dot products, so the shortcut never includes a face the exhaustive loop would not.
const SHORTCUT_MARGIN: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// The normals of the corners of one crowded position, in its entry order (`entries`: the
/// face of each corner there, in corner order). Equal to the exhaustive loop's when every
/// face with an area lies within half the smoothing angle (less a margin) of their summed
/// direction: then every such pair is within the angle, each corner sums all of them in
/// the same order, and the sum is computed once (a flat fan's hub, a dense pole). Else
/// each corner considers the [`MAX_FACES_PER_CORNER`] faces with an area nearest its own
/// in entry (triangle) order, which for a fan or pole are its neighbours around the
/// position. Faces without area add nothing to any sum and are left out of both.
fn smooth_crowded(
    entries: &[u32],
    face_normals: &[Vec3],
    unit_faces: &[Vec3],
    cos_limit: f32,
) -> Vec<[f32; 3]> {
    // Faces with an area, each once (a face touching the position twice is degenerate),
    // and for each entry the index of its face among them, or where it would be.
    let mut areas: Vec<u32> = Vec::new();
    let mut slot_of_entry: Vec<(usize, bool)> = Vec::with_capacity(entries.len());
    for &f in entries {
        let has_area = unit_faces[f as usize] != Vec3::ZERO;
        if has_area && areas.last() != Some(&f) {
            areas.push(f);
        }
        let slot = if has_area {
            areas.len() - 1
        } else {
            areas.len()
        };
        slot_of_entry.push((slot, has_area));
    }
    let total = areas
        .iter()
        .fold(Vec3::ZERO, |sum, &f| sum + face_normals[f as usize]);
    let half = cos_limit.clamp(-1.0, 1.0).acos() / 2.0 - SHORTCUT_MARGIN;
    let direction = total.normalize_or_zero();
    let all_within = half > 0.0
        && direction != Vec3::ZERO
        && areas
            .iter()
            .all(|&f| unit_faces[f as usize].dot(direction) >= half.cos());
    let shared = unit_or_z(total);
    entries
        .iter()
        .zip(&slot_of_entry)
        .map(|(&own, &(slot, has_area))| {
            let own = own as usize;
            let own_dir = unit_faces[own];
            if !has_area && cos_limit > 0.0 {
                // No face is within the angle of a face without direction: the
                // exhaustive loop keeps its own (zero) normal, hence +Z.
                return unit_or_z(face_normals[own]);
            }
            if all_within && has_area {
                return shared;
            }
            let lo = slot
                .saturating_sub(MAX_FACES_PER_CORNER / 2)
                .min(areas.len().saturating_sub(MAX_FACES_PER_CORNER));
            let hi = (lo + MAX_FACES_PER_CORNER).min(areas.len());
            let mut sum = Vec3::ZERO;
            for &f in &areas[lo..hi] {
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

    /// The exhaustive smoothing every corner got before crowded positions were bounded.
    fn exhaustive(g: &Geometry, angle: f32) -> Vec<[f32; 3]> {
        let faces = face_normals(g);
        let units: Vec<Vec3> = faces.iter().map(|n| n.normalize_or_zero()).collect();
        let cos_limit = angle.to_radians().cos();
        let key = |v: u32| xyz(g.positions()[v as usize]).map(float_key);
        (0..g.indices.len())
            .map(|corner| {
                let own = corner / 3;
                let mut sum = Vec3::ZERO;
                let mut seen = None;
                for (c, &v) in g.indices.iter().enumerate() {
                    let f = c / 3;
                    if key(v) != key(g.indices[corner]) || seen == Some(f) {
                        continue;
                    }
                    seen = Some(f);
                    if f == own || units[f].dot(units[own]) >= cos_limit {
                        sum += faces[f];
                    }
                }
                unit_or_z(if sum.length_squared() > 0.0 {
                    sum
                } else {
                    faces[own]
                })
            })
            .collect()
    }

    /// A fan of `n` triangles around a hub raised by `height` over a unit circle.
    fn fan(n: usize, height: f32) -> Geometry {
        let mut positions = vec![[0.0, 0.0, height]];
        positions.extend((0..n).map(|i| {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            [a.cos(), a.sin(), 0.0]
        }));
        let indices = (0..n as u32)
            .flat_map(|i| [0, 1 + i, 1 + (i + 1) % n as u32])
            .collect();
        Geometry::new("fan", &positions, indices)
    }

    #[test]
    fn crowded_positions_match_the_exhaustive_sum_when_every_face_is_close() {
        let n = 3 * MAX_FACES_PER_CORNER;
        // A flat fan and a shallow cone (a dense pole): every face within half the angle
        // of the hub's summed normal, so the bounded stage gives the exhaustive normals
        // bit for bit.
        for height in [0.0, 0.2] {
            let g = fan(n, height);
            let fast = smooth_corner_normals(&g, &face_normals(&g), 60.0);
            assert_eq!(fast, exhaustive(&g, 60.0), "height {height}");
        }
    }

    #[test]
    fn crowded_positions_of_a_steep_cone_smooth_their_neighbours() {
        let n = 4 * MAX_FACES_PER_CORNER;
        let g = fan(n, 5.0);
        let normals = smooth_corner_normals(&g, &face_normals(&g), 60.0);
        let faces = face_normals(&g);
        for (corner, n) in normals.iter().enumerate() {
            let n = Vec3::from(*n);
            assert!((n.length() - 1.0).abs() < 1e-5);
            // Smoothed over neighbours within 60 degrees: close to its own face.
            assert!(
                n.dot(faces[corner / 3].normalize()) > 0.5,
                "corner {corner}"
            );
        }
        // Rim corners (valence 2) are untouched by the bound.
        let slow = exhaustive(&g, 60.0);
        for corner in (0..g.indices.len()).filter(|c| c % 3 != 0) {
            assert_eq!(normals[corner], slow[corner]);
        }
    }

    #[test]
    fn a_position_shared_by_degenerate_faces_gets_plus_z() {
        // Every vertex at the origin: no face has an area.
        let n = 2 * MAX_FACES_PER_CORNER;
        let g = Geometry::new("zero", &vec![[0.0; 3]; 3 * n], (0..3 * n as u32).collect());
        let normals = smooth_corner_normals(&g, &face_normals(&g), 60.0);
        assert!(normals.iter().all(|n| *n == [0.0, 0.0, 1.0]));
        assert_eq!(normals, exhaustive(&g, 60.0));
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
