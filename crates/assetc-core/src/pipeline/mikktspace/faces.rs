//! Per-triangle frames and MikkTSpace's welded vertices.

use super::vec3::{
    add, dot, length, normalized_or_zero, not_zero, project_normalized, scale, sub, V3,
};
use super::Mesh;
use crate::pipeline::weld::{classes_by_hash, float_key, hash_words};
use rayon::prelude::*;

/// Two corners at equal positions: MikkTSpace leaves the triangle out of every group, and
/// its corners copy the frame of another corner at the same vertex.
pub const DEGENERATE: u8 = 1;
/// No usable UV area (or a frame of zero length): the triangle joins any group that reaches
/// it, adds nothing to the average, and takes its handedness from that group.
pub const GROUP_WITH_ANY: u8 = 2;
/// Positive UV area: the triangle's handedness (+1).
pub const ORIENT_PRESERVING: u8 = 4;

/// A triangle's unit tangent `s` and bitangent `t` from its positions and UVs (zero where
/// MikkTSpace leaves them zero), its flags, and the angle at each corner within the plane
/// of that corner's normal (a corner's weight in its vertex's average).
#[derive(Clone, Copy)]
pub struct Face {
    pub s: V3,
    pub t: V3,
    pub angles: V3,
    pub flags: u8,
}

impl Face {
    pub fn is(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    pub fn orientation(&self) -> bool {
        self.is(ORIENT_PRESERVING)
    }

    /// A triangle that can seed a group and adds to its vertex's average.
    pub fn is_good(&self) -> bool {
        self.flags & (DEGENERATE | GROUP_WITH_ANY) == 0
    }
}

/// Every triangle's frame, as MikkTSpace's `InitTriInfo` computes it (equations 18 and 19
/// of Mikkelsen's thesis).
pub fn triangle_frames(mesh: &Mesh) -> Vec<Face> {
    (0..mesh.indices.len() / 3)
        .into_par_iter()
        .with_min_len(4096)
        .map(|f| {
            let p = [
                mesh.position(f * 3),
                mesh.position(f * 3 + 1),
                mesh.position(f * 3 + 2),
            ];
            let mut face = Face {
                s: [0.0; 3],
                t: [0.0; 3],
                angles: [0.0; 3],
                flags: 0,
            };
            if p[0] == p[1] || p[1] == p[2] || p[2] == p[0] {
                face.flags = DEGENERATE;
                return face;
            }
            for (i, angle) in face.angles.iter_mut().enumerate() {
                let n = mesh.normal(f * 3 + i);
                let to_next = project_normalized(sub(p[(i + 1) % 3], p[i]), n);
                let to_previous = project_normalized(sub(p[(i + 2) % 3], p[i]), n);
                let cos = dot(to_next, to_previous).clamp(-1.0, 1.0);
                // In double precision, as the C implementation's `acos` of a float.
                *angle = f64::from(cos).acos() as f32;
            }
            let uv = [0, 1, 2].map(|k| mesh.uv(f * 3 + k));
            let d_uv = [1, 2].map(|k| [uv[k][0] - uv[0][0], uv[k][1] - uv[0][1]]);
            let d_p = [sub(p[1], p[0]), sub(p[2], p[0])];
            let signed_area_x2 = d_uv[0][0] * d_uv[1][1] - d_uv[0][1] * d_uv[1][0];
            let s = sub(scale(d_uv[1][1], d_p[0]), scale(d_uv[0][1], d_p[1]));
            let t = add(scale(-d_uv[1][0], d_p[0]), scale(d_uv[0][0], d_p[1]));
            face.flags = GROUP_WITH_ANY;
            if signed_area_x2 > 0.0 {
                face.flags |= ORIENT_PRESERVING;
            }
            let area_x2 = signed_area_x2.abs();
            if not_zero(area_x2) {
                let sign = if signed_area_x2 > 0.0 { 1.0 } else { -1.0 };
                face.s = scale(sign, normalized_or_zero(s));
                face.t = scale(sign, normalized_or_zero(t));
                if not_zero(length(s) / area_x2) && not_zero(length(t) / area_x2) {
                    face.flags &= !GROUP_WITH_ANY;
                }
            }
            face
        })
        .collect()
}

/// MikkTSpace's welded vertices: corners with equal position, normal and UV are one vertex
/// (compared as floats, -0 equal to 0). `corners` lists each vertex's corners in ascending
/// order, vertex after vertex: `corners[offsets[v]..offsets[v + 1]]`.
pub struct VertexClasses {
    /// The welded vertex of each mesh vertex.
    pub of_vertex: Vec<u32>,
    pub offsets: Vec<u32>,
    pub corners: Vec<u32>,
}

impl VertexClasses {
    pub fn new(mesh: &Mesh) -> Self {
        let n = mesh.positions.len();
        let key = |v: usize| -> [u32; 8] {
            let (p, nr, uv) = (mesh.positions[v], mesh.normals[v], mesh.uvs[v]);
            [p[0], p[1], p[2], nr[0], nr[1], nr[2], uv[0], uv[1]].map(float_key)
        };
        let hash = |v: usize| hash_words(key(v));
        let lowest = classes_by_hash(n, hash, |a, b| key(a) == key(b));
        // Dense numbers, in order of each class's lowest vertex.
        let mut of_vertex = vec![0u32; n];
        let mut count = 0u32;
        for v in 0..n {
            let first = lowest[v] as usize;
            of_vertex[v] = if first == v {
                count += 1;
                count - 1
            } else {
                of_vertex[first]
            };
        }
        drop(lowest);
        let mut offsets = vec![0u32; count as usize + 1];
        for &v in mesh.indices {
            offsets[of_vertex[v as usize] as usize + 1] += 1;
        }
        for c in 0..count as usize {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut corners = vec![0u32; mesh.indices.len()];
        for (corner, &v) in mesh.indices.iter().enumerate() {
            let slot = &mut fill[of_vertex[v as usize] as usize];
            corners[*slot as usize] = corner as u32;
            *slot += 1;
        }
        Self {
            of_vertex,
            offsets,
            corners,
        }
    }

    pub fn count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The welded vertex of a corner.
    pub fn of_corner(&self, mesh: &Mesh, corner: usize) -> u32 {
        self.of_vertex[mesh.indices[corner] as usize]
    }

    /// The slot range of vertex `v` in `corners`.
    pub fn slots(&self, v: usize) -> std::ops::Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }
}
