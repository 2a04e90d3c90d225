//! Animation stacks as clips. FBX curves (Euler rotations in any order, cubic tangents of
//! several kinds, layers blended by weight) do not map onto glTF's samplers, so ufbx
//! bakes each stack to linearly interpolated keys of every animated node's translation,
//! rotation (quaternions) and scale: the file's own keys where a curve is linear, samples
//! at 30 per second between keys where it is not (keys already 19.5 per second or denser,
//! as most exporters write them, are kept as they are). Blend channel weights
//! (`DeformPercent`) become one weights channel per node drawing the mesh.

use super::super::gltf::{bad, Res};
use super::{morph, names, Ctx};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::rig::timeline::start_clips_at_zero;
use crate::scene::{Animation, Channel, ChannelPath, Interpolation, Mesh};
use std::collections::HashMap;

pub fn import_animations(
    ctx: &Ctx,
    meshes: &[Mesh],
    warnings: &mut Vec<Warning>,
) -> Res<Vec<Animation>> {
    let fbx = ctx.fbx;
    // Blend channel element id -> (mesh, target index) for every mesh using it.
    let mut targets: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
    for (m, mesh) in fbx.meshes.iter().enumerate() {
        for (t, channel) in morph::channels(mesh).enumerate() {
            targets
                .entry(channel.element.element_id)
                .or_default()
                .push((m, t));
        }
    }
    let mut out = Vec::with_capacity(fbx.anim_stacks.len());
    for stack in fbx.anim_stacks.iter() {
        let path = names::element_path("animations", &stack.element);
        let opts = ufbx::BakeOpts {
            // Keys counted from the stack's start, as glTF clips start at 0.
            trim_start_time: true,
            ..Default::default()
        };
        let baked = match ufbx::bake_anim(fbx, &stack.anim, opts) {
            Ok(b) => b,
            Err(e) => return bad(path, format!("cannot be baked: {:?}", e.type_)),
        };
        let mut channels = Vec::new();
        for node in baked.nodes.iter() {
            let n = node.typed_id as usize;
            let Some(fbx_node) = fbx.nodes.get(n) else {
                return bad(path, format!("animates node {n}, which does not exist"));
            };
            let cpath = format!("{path}.{}", names::element_path("nodes", &fbx_node.element));
            let vec3 = |keys: &[ufbx::BakedVec3]| {
                keys.iter()
                    .map(|k| {
                        (
                            k.time,
                            vec![k.value.x as f32, k.value.y as f32, k.value.z as f32],
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let rotations: Vec<(f64, Vec<f32>)> = node
                .rotation_keys
                .iter()
                .map(|k| {
                    let q = glam::Quat::from_xyzw(
                        k.value.x as f32,
                        k.value.y as f32,
                        k.value.z as f32,
                        k.value.w as f32,
                    );
                    let q = if q.length() > 1e-6 {
                        q.normalize()
                    } else {
                        glam::Quat::IDENTITY
                    };
                    (k.time, q.to_array().to_vec())
                })
                .collect();
            for (channel_path, keys, components, name) in [
                (
                    ChannelPath::Translation,
                    vec3(&node.translation_keys),
                    3,
                    "translation",
                ),
                (ChannelPath::Rotation, rotations, 4, "rotation"),
                (ChannelPath::Scale, vec3(&node.scale_keys), 3, "scale"),
            ] {
                if let Some(ch) =
                    channel(format!("{cpath}.{name}"), n, channel_path, components, keys)?
                {
                    channels.push(ch);
                }
            }
        }
        channels.extend(weight_channels(ctx, &baked, &targets, meshes, &path)?);
        if channels.is_empty() {
            warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                path.to_string(),
                "animates nothing this importer reads; clip kept empty",
            ));
        }
        out.push(Animation {
            name: names::name(&stack.element),
            channels,
        });
    }
    warnings.extend(start_clips_at_zero(&mut out));
    Ok(out)
}

/// A linear channel from baked keys (time in seconds, value). Times become f32; keys that
/// f32 cannot tell from the one before (ufbx's stepped keys are 1 ms apart, far above
/// f32's resolution at any clip length we read, but a hostile file may say anything) are
/// dropped, so times strictly increase.
fn channel(
    path: String,
    node: usize,
    channel_path: ChannelPath,
    components: usize,
    keys: Vec<(f64, Vec<f32>)>,
) -> Res<Option<Channel>> {
    let mut times: Vec<f32> = Vec::with_capacity(keys.len());
    let mut values = Vec::with_capacity(keys.len() * components);
    for (t, v) in keys {
        let t = t as f32;
        if !t.is_finite() || v.iter().any(|x| !x.is_finite()) || v.len() != components {
            return bad(path, "a baked key is not finite");
        }
        if times.last().is_some_and(|&last| t <= last) {
            continue;
        }
        times.push(t);
        values.extend(v);
    }
    if times.is_empty() {
        return Ok(None);
    }
    Ok(Some(Channel {
        gltf_path: path,
        node,
        path: channel_path,
        interpolation: Interpolation::Linear,
        times,
        values,
        components,
    }))
}

/// One weights channel per node drawing a mesh whose blend channels this stack animates:
/// keys at every time any of its channels has one, unanimated channels at their weight.
fn weight_channels(
    ctx: &Ctx,
    baked: &ufbx::BakedAnim,
    targets: &HashMap<u32, Vec<(usize, usize)>>,
    meshes: &[Mesh],
    path: &str,
) -> Res<Vec<Channel>> {
    // mesh -> target -> its baked DeformPercent keys
    let mut animated: HashMap<usize, HashMap<usize, &[ufbx::BakedVec3]>> = HashMap::new();
    for element in baked.elements.iter() {
        let Some(uses) = targets.get(&element.element_id) else {
            continue;
        };
        let Some(prop) = element.props.iter().find(|p| &*p.name == "DeformPercent") else {
            continue;
        };
        for &(m, t) in uses {
            animated.entry(m).or_default().insert(t, &prop.keys);
        }
    }
    let mut mesh_ids: Vec<usize> = animated.keys().copied().collect();
    mesh_ids.sort_unstable();
    let mut out = Vec::new();
    for m in mesh_ids {
        let (Some(fbx_mesh), Some(by_target)) = (ctx.fbx.meshes.get(m), animated.get(&m)) else {
            continue;
        };
        // Only meshes that ended up with primitives have targets to weigh.
        if meshes.get(m).is_none_or(|mesh| mesh.primitives.is_empty()) {
            continue;
        }
        let rest = morph::channel_weights(fbx_mesh);
        let mut times: Vec<f64> = by_target
            .values()
            .flat_map(|k| k.iter().map(|k| k.time))
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        let mut keys = Vec::with_capacity(times.len());
        for &time in &times {
            let weights: Vec<f32> = rest
                .iter()
                .enumerate()
                .map(|(t, &w)| match by_target.get(&t) {
                    Some(k) => (ufbx::evaluate_baked_vec3(k, time).x / 100.0) as f32,
                    None => w,
                })
                .collect();
            keys.push((time, weights));
        }
        let mpath = format!(
            "{path}.{}.weights",
            names::element_path("meshes", &fbx_mesh.element)
        );
        for node in fbx_mesh.element.instances.iter() {
            let n = node.element.typed_id as usize;
            if n >= ctx.fbx.nodes.len() {
                return bad(&mpath, format!("drawn by node {n}, which does not exist"));
            }
            if let Some(ch) = channel(
                mpath.clone(),
                n,
                ChannelPath::Weights,
                rest.len(),
                keys.clone(),
            )? {
                out.push(ch);
            }
        }
    }
    Ok(out)
}
