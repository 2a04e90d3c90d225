//! Per primitive instance: the pipeline's geometry stages, bone assignment, bone-space
//! positions and the per-vertex encoding choice.

use super::skeleton::Skeleton;
use super::{invalid, Bmd1Settings, Bmd1VertexEncoding};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::bmd1::{
    encode_vertex, encoding_error, pick_encoding, ErrorBound, Vertex, VertexEncoding, VertexIn,
};
use crate::pipeline::geometry::{xyz, Semantic};
use crate::pipeline::prepare::{prepare as prepare_geometry, PrepareCache, PrepareRequest};
use crate::pipeline::MeshSettings;
use crate::scene::{PrimitiveInstance, Scene};
use crate::TargetError;
use glam::{Mat3, Vec3};

/// Largest angle between a vertex's normal and the direction of its bone-relative
/// position for a 64-bit vertex (which has no normal; the seed reads the position as its
/// normal) to count as keeping the normal: about the worst error of an F8A-stored normal.
const IMPLIED_NORMAL_MAX_DEGREES: f32 = 3.0;

pub(crate) struct Prepared {
    pub gltf_path: String,
    pub material: Option<usize>,
    pub vertices: Vec<Vertex>,
    /// LOD 0 triangle list.
    pub indices: Vec<u32>,
    /// One list per LOD ratio; empty when the simplifier stalled.
    pub lods: Vec<Vec<u32>>,
    /// Largest side of the instance's bounding box (world or bind space).
    pub extent: f32,
}

pub(crate) fn prepare(
    scene: &Scene,
    inst: PrimitiveInstance,
    skeleton: Option<&Skeleton>,
    settings: &Bmd1Settings,
    mesh_settings: &MeshSettings,
    cache: &PrepareCache,
    warnings: &mut Vec<Warning>,
) -> Result<Prepared, TargetError> {
    let prim = scene.primitive(inst);
    let node = scene.nodes.get(inst.node);
    let path = &prim.gltf_path;
    let skinned_by = skeleton.filter(|s| node.and_then(|n| n.skin) == Some(s.skin));
    let skinned_by = match skinned_by {
        Some(_) if prim.joints.is_empty() => {
            warnings.push(Warning::at(
                DiagnosticCode::Repaired,
                path.to_string(),
                "skinned node but no JOINTS_0; placed rigidly in its node's bind pose",
            ));
            None
        }
        other => other,
    };
    if let Some(n) = node {
        if n.skin.is_some() && skinned_by.is_none() && !prim.joints.is_empty() {
            warnings.push(Warning::at(
                DiagnosticCode::TargetLimit,
                path.to_string(),
                format!(
                    "uses skins[{}] but BMD1 exports one skin; placed rigidly",
                    n.skin.unwrap_or(0)
                ),
            ));
        }
    }
    // Skinned instances stay in bind space, each vertex tagged with its one bone (a joints
    // stream, so vertex splits keep it); the others are baked to world space.
    let (bones, transform) = match skinned_by {
        Some(skel) => (Some(bone_per_vertex(prim, skel)?), glam::Mat4::IDENTITY),
        None => (None, node.map_or(glam::Mat4::IDENTITY, |n| n.world_matrix)),
    };
    let request = PrepareRequest {
        keep: &stored,
        transform,
        normals: mesh_settings
            .generate_normals
            .then_some(mesh_settings.normal_smoothing_angle),
        tangents: None,
        // BMD1 has one UV set: no lightmap UVs.
        lightmap_charts: false,
        weld: None,
        optimize: false,
        lods: (&mesh_settings.lod_ratios, mesh_settings.lod_target_error),
        meshlets: None,
    };
    let prepared = prepare_geometry(scene, inst.into(), &request, cache, |g| {
        if let Some(bones) = bones {
            g.set_stream(Semantic::Joints, 0, bones);
        }
    })
    .map_err(|e| invalid(e.path, e.message))?;
    let g = prepared.geometry;
    let lods = prepared.lods.into_iter().map(|l| l.indices).collect();
    let positions: Vec<[f32; 3]> = g.positions().iter().map(|p| xyz(*p)).collect();
    let normals = g.stream(Semantic::Normal, 0);
    let uvs = g.stream(Semantic::TexCoord, 0);
    let bones = g.stream(Semantic::Joints, 0);
    let extent = largest_extent(&positions);

    let bound = ErrorBound {
        position: settings.position_error * extent,
        uv: settings.uv_error,
    };
    let mut vertices = Vec::with_capacity(positions.len());
    for (i, p) in positions.iter().enumerate() {
        // Bones are stored as exact floats of small integers.
        let bone = bones.and_then(|b| b.get(i)).map_or(0, |b| b[0] as u16);
        let (position, normal) = match skinned_by {
            Some(skel) => {
                let inverse = skel
                    .bind_world
                    .get(usize::from(bone))
                    .map_or(glam::Mat4::IDENTITY, |m| m.inverse());
                let n = normals.and_then(|ns| ns.get(i)).map(|n| xyz(*n));
                (
                    inverse.transform_point3(Vec3::from(*p)).to_array(),
                    n.map(|n| {
                        (Mat3::from_mat4(inverse) * Vec3::from(n))
                            .normalize_or_zero()
                            .to_array()
                    }),
                )
            }
            None => (*p, normals.and_then(|ns| ns.get(i)).map(|n| xyz(*n))),
        };
        let attrs = VertexIn {
            position,
            uv: uvs
                .and_then(|u| u.get(i))
                .map_or([0.0; 2], |u| [u[0], u[1]]),
            normal: normal.unwrap_or([0.0; 3]),
            bone: bone as u8,
            shade: 0,
        };
        let encoding = choose_encoding(&attrs, normal.is_some(), settings.vertex_encoding, bound)
            .map_err(|message| invalid(path, format!("vertex {i}: {message}")))?;
        vertices.push(Vertex { attrs, encoding });
    }
    Ok(Prepared {
        gltf_path: path.clone(),
        material: prim.material,
        vertices,
        indices: g.indices,
        lods,
        extent,
    })
}

/// The streams BMD1 stores from the source: normals and UV0 (bones come from the skin).
fn stored(semantic: Semantic, set: u32) -> bool {
    matches!((semantic, set), (Semantic::Normal | Semantic::TexCoord, 0))
}

/// The bone of each vertex: the joint with the largest weight over every JOINTS/WEIGHTS set
/// (the first on ties), as a joints stream value `[bone, 0, 0, 0]`.
fn bone_per_vertex(
    prim: &crate::scene::Primitive,
    skel: &Skeleton,
) -> Result<Vec<[f32; 4]>, TargetError> {
    let mut out = Vec::with_capacity(prim.positions.len());
    for v in 0..prim.positions.len() {
        let mut best: Option<(f32, u16)> = None;
        for (joints, weights) in prim.joints.iter().zip(&prim.weights) {
            let (Some(j), Some(w)) = (joints.get(v), weights.get(v)) else {
                continue;
            };
            for (&joint, &weight) in j.iter().zip(w) {
                if best.is_none_or(|(bw, _)| weight > bw) {
                    best = Some((weight, joint));
                }
            }
        }
        let joint = best.map_or(0, |(_, j)| j);
        let bone = *skel.bone_of_joint.get(usize::from(joint)).ok_or_else(|| {
            invalid(
                &prim.gltf_path,
                format!(
                    "vertex {v} names joint {joint}, the skin has {}",
                    skel.bone_of_joint.len()
                ),
            )
        })?;
        out.push([f32::from(bone), 0.0, 0.0, 0.0]);
    }
    Ok(out)
}

fn largest_extent(positions: &[[f32; 3]]) -> f32 {
    let Some(first) = positions.first() else {
        return 0.0;
    };
    let (lo, hi) = positions
        .iter()
        .fold((Vec3::from(*first), Vec3::from(*first)), |(lo, hi), p| {
            (lo.min(Vec3::from(*p)), hi.max(Vec3::from(*p)))
        });
    let e = (hi - lo).max_element();
    if e.is_finite() {
        e
    } else {
        0.0
    }
}

fn implied_normal_ok(v: &VertexIn) -> bool {
    let (p, n) = (Vec3::from(v.position), Vec3::from(v.normal));
    match (p.try_normalize(), n.try_normalize()) {
        (Some(p), Some(n)) => p.dot(n) >= IMPLIED_NORMAL_MAX_DEGREES.to_radians().cos(),
        _ => false,
    }
}

/// Why no vertex encoding holds a vertex.
#[derive(Debug, thiserror::Error)]
pub enum EncodingError {
    #[error(transparent)]
    Vertex(crate::formats::bmd1::VertexError),
    #[error("cannot be stored as {0:?}")]
    Unstorable(VertexEncoding),
}

fn choose_encoding(
    v: &VertexIn,
    has_normal: bool,
    setting: Bmd1VertexEncoding,
    bound: ErrorBound,
) -> Result<VertexEncoding, EncodingError> {
    use VertexEncoding::*;
    let one = std::slice::from_ref(v);
    let fits = |e: VertexEncoding| encode_vertex(v, e).is_ok();
    let describe = |e: VertexEncoding| {
        encode_vertex(v, e)
            .err()
            .map_or(EncodingError::Unstorable(e), EncodingError::Vertex)
    };
    match setting {
        Bmd1VertexEncoding::Bits64 => fits(V64).then_some(V64).ok_or_else(|| describe(V64)),
        Bmd1VertexEncoding::Bits128 => fits(FD).then_some(FD).ok_or_else(|| describe(FD)),
        Bmd1VertexEncoding::Bits96 => {
            let candidates = [F8, F9, FA, FB];
            let within = |e: &VertexEncoding| {
                encoding_error(one, *e)
                    .is_ok_and(|err| err.position <= bound.position && err.uv <= bound.uv)
            };
            candidates
                .iter()
                .copied()
                .find(within)
                .or_else(|| least_error(one, &candidates))
                .ok_or_else(|| describe(FB))
        }
        Bmd1VertexEncoding::Auto => {
            let needs_normal = has_normal && !implied_normal_ok(v);
            pick_encoding(one, bound, needs_normal)
                .or_else(|| fits(FD).then_some(FD))
                .or_else(|| least_error(one, &VertexEncoding::ALL))
                .ok_or_else(|| describe(FD))
        }
    }
}

/// The encoding among `candidates` with the smallest position-then-UV error that holds the
/// vertex at all.
fn least_error(one: &[VertexIn], candidates: &[VertexEncoding]) -> Option<VertexEncoding> {
    candidates
        .iter()
        .filter_map(|&e| encoding_error(one, e).ok().map(|err| (err, e)))
        .min_by(|a, b| {
            (a.0.position, a.0.uv)
                .partial_cmp(&(b.0.position, b.0.uv))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|(_, e)| e)
}
