//! Per primitive instance: the pipeline's geometry stages, bone assignment, bone-space
//! positions and the per-vertex encoding choice.

use super::skeleton::Skeleton;
use super::{invalid, Bmd1Settings, Bmd1VertexEncoding};
use crate::formats::bmd1::{
    encode_vertex, encoding_error, pick_encoding, ErrorBound, Vertex, VertexEncoding, VertexIn,
};
use crate::formats::hmesh::GpuSkinVertex;
use crate::pipeline::bake::bake_transform;
use crate::pipeline::geometry::Geometry;
use crate::pipeline::lods::build_lods;
use crate::pipeline::normals::generate_normals;
use crate::pipeline::MeshSettings;
use crate::scene::{PrimitiveInstance, Scene};
use crate::targets::TargetError;
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
    warnings: &mut Vec<String>,
) -> Result<Prepared, TargetError> {
    let prim = scene.primitive(inst);
    let node = scene.nodes.get(inst.node);
    let path = &prim.gltf_path;
    let mut g = Geometry {
        gltf_path: path.clone(),
        positions: prim.positions.clone(),
        normals: prim.normals.clone(),
        tangents: None,
        uvs: prim.uv0.clone(),
        skin: None,
        indices: prim.indices.clone(),
        indexed: prim.indexed,
        material: prim.material,
    };
    if let Some(&bad) = g.indices.iter().find(|&&i| i as usize >= g.positions.len()) {
        return Err(invalid(
            path,
            format!(
                "index {bad} is not below the vertex count {}",
                g.positions.len()
            ),
        ));
    }
    let skinned_by = skeleton.filter(|s| node.and_then(|n| n.skin) == Some(s.skin));
    let skinned_by = match skinned_by {
        Some(_) if prim.joints.is_empty() => {
            warnings.push(format!(
                "{path}: skinned node but no JOINTS_0; placed rigidly in its node's bind pose"
            ));
            None
        }
        other => other,
    };
    if let Some(n) = node {
        if n.skin.is_some() && skinned_by.is_none() && !prim.joints.is_empty() {
            warnings.push(format!(
                "{path}: uses skins[{}] but BMD1 exports one skin; placed rigidly",
                n.skin.unwrap_or(0)
            ));
        }
    }
    match skinned_by {
        Some(skel) => g.skin = Some(bone_per_vertex(prim, skel)?),
        None => bake_transform(
            &mut g,
            node.map_or(glam::Mat4::IDENTITY, |n| n.world_matrix),
        ),
    }
    if mesh_settings.generate_normals {
        generate_normals(&mut g, mesh_settings.normal_smoothing_angle);
    }
    let extent = largest_extent(&g.positions);
    let lods = build_lods(
        &g.positions,
        &g.indices,
        &mesh_settings.lod_ratios,
        mesh_settings.lod_target_error,
    );

    let bound = ErrorBound {
        position: settings.position_error * extent,
        uv: settings.uv_error,
    };
    let mut vertices = Vec::with_capacity(g.positions.len());
    for (i, p) in g.positions.iter().enumerate() {
        let bone = g
            .skin
            .as_ref()
            .and_then(|s| s.get(i))
            .map_or(0, |s| s.joints[0]);
        let (position, normal) = match skinned_by {
            Some(skel) => {
                let inverse = skel
                    .bind_world
                    .get(usize::from(bone))
                    .map_or(glam::Mat4::IDENTITY, |m| m.inverse());
                let n = g.normals.as_ref().and_then(|ns| ns.get(i)).copied();
                (
                    inverse.transform_point3(Vec3::from(*p)).to_array(),
                    n.map(|n| {
                        (Mat3::from_mat4(inverse) * Vec3::from(n))
                            .normalize_or_zero()
                            .to_array()
                    }),
                )
            }
            None => (*p, g.normals.as_ref().and_then(|ns| ns.get(i)).copied()),
        };
        let attrs = VertexIn {
            position,
            uv: g
                .uvs
                .as_ref()
                .and_then(|u| u.get(i))
                .copied()
                .unwrap_or([0.0; 2]),
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

/// The bone of each vertex: the joint with the largest weight over every JOINTS/WEIGHTS set
/// (the first on ties), carried in `Geometry::skin` so vertex splits keep it.
fn bone_per_vertex(
    prim: &crate::scene::Primitive,
    skel: &Skeleton,
) -> Result<Vec<GpuSkinVertex>, TargetError> {
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
        out.push(GpuSkinVertex {
            joints: [u16::from(bone), 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        });
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

fn choose_encoding(
    v: &VertexIn,
    has_normal: bool,
    setting: Bmd1VertexEncoding,
    bound: ErrorBound,
) -> Result<VertexEncoding, String> {
    use VertexEncoding::*;
    let one = std::slice::from_ref(v);
    let fits = |e: VertexEncoding| encode_vertex(v, e).is_ok();
    let describe = |e: VertexEncoding| {
        encode_vertex(v, e).err().map_or_else(
            || format!("cannot be stored as {e:?}"),
            |err| err.to_string(),
        )
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
