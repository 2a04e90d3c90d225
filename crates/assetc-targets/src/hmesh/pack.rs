//! Octahedral-pack normals and tangents into the 28-byte `GpuVertex`.

use crate::formats::hmesh::{GpuSkinVertex, GpuVertex};
use crate::formats::octahedral;
use crate::pipeline::geometry::{xyz, Geometry, Semantic};
use crate::pipeline::tangents::perpendicular;

/// Packs every vertex. Missing normals are written as +Z; missing UVs as 0. With
/// `real_tangents` false (the mesh-wide DESC flag is clear) every tangent is written as the
/// fixed unit vector perpendicular to the normal with handedness +1, as `.hmesh` requires;
/// with it true a geometry without a tangent stream (no UVs, so nothing can be
/// normal-mapped along a tangent) gets that same fixed frame.
pub fn pack_vertices(geometry: &Geometry, real_tangents: bool) -> Vec<GpuVertex> {
    let normals = geometry.stream(Semantic::Normal, 0);
    let tangents = geometry
        .stream(Semantic::Tangent, 0)
        .filter(|_| real_tangents);
    let uvs = geometry.stream(Semantic::TexCoord, 0);
    use rayon::prelude::*;
    geometry
        .positions()
        .par_iter()
        .enumerate()
        .map(|(v, p)| {
            let normal = normals.map_or([0.0, 0.0, 1.0], |n| xyz(n[v]));
            let tangent = match tangents {
                Some(t) => octahedral::encode_tangent(xyz(t[v]), t[v][3]),
                None => octahedral::encode_tangent(perpendicular(normal), 1.0),
            };
            GpuVertex {
                position: xyz(*p),
                normal: octahedral::encode(normal),
                tangent,
                uv: uvs.map_or([0.0, 0.0], |uv| [uv[v][0], uv[v][1]]),
            }
        })
        .collect()
}

/// The second UV set of every vertex (`.hmesh` UV1S): the generated lightmap UVs when
/// there are, else TEXCOORD_1, else zeros.
pub fn pack_uv1(geometry: &Geometry) -> Vec<[f32; 2]> {
    match geometry
        .stream(Semantic::LightmapUv, 0)
        .or_else(|| geometry.stream(Semantic::TexCoord, 1))
    {
        Some(uvs) => uvs.iter().map(|uv| [uv[0], uv[1]]).collect(),
        None => vec![[0.0, 0.0]; geometry.vertex_count()],
    }
}

/// The skinning stream of every vertex (joints and weights set 0), when the geometry has one.
pub fn pack_skin(geometry: &Geometry) -> Option<Vec<GpuSkinVertex>> {
    let joints = geometry.stream(Semantic::Joints, 0)?;
    let weights = geometry.stream(Semantic::Weights, 0)?;
    Some(
        joints
            .iter()
            .zip(weights)
            .map(|(j, w)| GpuSkinVertex {
                // Joint indices are stored as exact floats of u16 values.
                joints: j.map(|x| x as u16),
                weights: *w,
            })
            .collect(),
    )
}

/// The skinning data as streams, for the stages to carry.
pub fn skin_streams(geometry: &mut Geometry, skin: &[GpuSkinVertex]) {
    let joints = skin.iter().map(|s| s.joints.map(f32::from)).collect();
    let weights = skin.iter().map(|s| s.weights).collect();
    geometry.set_stream(Semantic::Joints, 0, joints);
    geometry.set_stream(Semantic::Weights, 0, weights);
}
