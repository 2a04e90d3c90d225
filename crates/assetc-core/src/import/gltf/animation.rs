//! Animations: each channel carries its sampler's key times and flat output values.
//! Clips whose keys start below zero are shifted to start at 0 (one warning per asset,
//! see [`crate::rig::timeline`]).

use super::accessor::Reader;
use super::{bad, dangling, Ctx, Res};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::rig::timeline::start_clips_at_zero;
use crate::scene::{Animation, Channel, ChannelPath, Interpolation};
use gltf::json::accessor::Type;
use gltf::json::animation::{Interpolation as JsonInterpolation, Property};
use gltf::json::validation::Checked;

pub fn import_animations(
    ctx: &Ctx,
    reader: &mut Reader,
    warnings: &mut Vec<Warning>,
) -> Res<Vec<Animation>> {
    let root = ctx.root;
    let mut out = Vec::with_capacity(root.animations.len());
    for (ai, anim) in root.animations.iter().enumerate() {
        let mut channels = Vec::with_capacity(anim.channels.len());
        for (ci, ch) in anim.channels.iter().enumerate() {
            let path = format!("animations[{ai}].channels[{ci}]");
            let node = ch.target.node.value();
            if node >= root.nodes.len() {
                return dangling(path, format!("target node {node} does not exist"));
            }
            let Checked::Valid(property) = ch.target.path else {
                warnings.push(Warning::at(
                    DiagnosticCode::NotExported,
                    path.to_string(),
                    "unknown target path; channel skipped",
                ));
                continue;
            };
            let s = ch.sampler.value();
            let Some(sampler) = anim.samplers.get(s) else {
                return dangling(path, format!("sampler {s} does not exist"));
            };
            let spath = format!("animations[{ai}].samplers[{s}]");
            let interpolation = match sampler.interpolation {
                Checked::Valid(JsonInterpolation::Step) => Interpolation::Step,
                Checked::Valid(JsonInterpolation::Linear) => Interpolation::Linear,
                Checked::Valid(JsonInterpolation::CubicSpline) => Interpolation::CubicSpline,
                Checked::Invalid => return bad(spath, "invalid interpolation"),
            };
            let (channel_path, components, types): (_, usize, &[Type]) = match property {
                Property::Translation => (ChannelPath::Translation, 3, &[Type::Vec3]),
                Property::Rotation => (ChannelPath::Rotation, 4, &[Type::Vec4]),
                Property::Scale => (ChannelPath::Scale, 3, &[Type::Vec3]),
                Property::MorphTargetWeights => (
                    ChannelPath::Weights,
                    morph_target_count(ctx, node),
                    &[Type::Scalar],
                ),
            };
            if components == 0 {
                return bad(
                    path,
                    format!("weights channel but nodes[{node}] has no morph targets"),
                );
            }
            let Some(times) = read_times(reader, sampler.input.value(), &spath, warnings)? else {
                continue;
            };
            let out_index = sampler.output.value();
            let opath = format!("{spath}.output (accessors[{out_index}])");
            let layout = reader.layout(out_index)?;
            if !types.contains(&layout.ty) {
                return bad(
                    opath,
                    format!("type {:?} does not fit {property:?}", layout.ty),
                );
            }
            let (_, mut values) = reader.floats(out_index)?;
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let expected = times.len() * per_key * components;
            if values.len() != expected {
                return bad(
                    opath,
                    format!(
                        "{} values for {} keys need {expected}",
                        values.len(),
                        times.len()
                    ),
                );
            }
            if values.iter().any(|v| !v.is_finite()) {
                return bad(opath, "contains NaN or infinite values");
            }
            if channel_path == ChannelPath::Rotation && interpolation != Interpolation::CubicSpline
            {
                normalize_quaternions(&mut values);
            }
            channels.push(Channel {
                gltf_path: path,
                node,
                path: channel_path,
                interpolation,
                times,
                values,
                components,
            });
        }
        out.push(Animation {
            name: anim.name.clone(),
            channels,
        });
    }
    warnings.extend(start_clips_at_zero(&mut out));
    Ok(out)
}

/// Morph target count of the node's mesh (all primitives must agree; the first one rules).
fn morph_target_count(ctx: &Ctx, node: usize) -> usize {
    ctx.root
        .nodes
        .get(node)
        .and_then(|n| n.mesh)
        .and_then(|m| ctx.root.meshes.get(m.value()))
        .and_then(|m| m.primitives.first())
        .and_then(|p| p.targets.as_ref())
        .map_or(0, Vec::len)
}

/// Key times, or `None` (with a warning) when they cannot be played: the channel is
/// dropped rather than failing the whole import over one animation.
fn read_times(
    reader: &mut Reader,
    input: usize,
    spath: &str,
    warnings: &mut Vec<Warning>,
) -> Res<Option<Vec<f32>>> {
    let ipath = format!("{spath}.input (accessors[{input}])");
    let layout = reader.layout(input)?;
    if layout.ty != Type::Scalar || !layout.is_float() {
        return bad(ipath, "must be SCALAR FLOAT");
    }
    let (_, times) = reader.floats(input)?;
    if times.is_empty() {
        return bad(ipath, "no key times");
    }
    // Negative times are repaired for the whole clip by the caller.
    if times.iter().any(|t| !t.is_finite()) {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            ipath.to_string(),
            "key times must be finite; channel skipped",
        ));
        return Ok(None);
    }
    if let Some(k) = times.windows(2).position(|p| p[1] <= p[0]) {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            ipath.to_string(),
            format!(
                "key times are not increasing at {} ({} then {}); channel skipped",
                k + 1,
                times[k],
                times[k + 1]
            ),
        ));
        return Ok(None);
    }
    Ok(Some(times))
}

/// Linear and step rotations are used as unit quaternions by every runtime; files with
/// slightly off values (or quantized ones) are renormalized. Zero quaternions become identity.
fn normalize_quaternions(values: &mut [f32]) {
    for q in values.chunks_exact_mut(4) {
        let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        if len > 1e-12 {
            q.iter_mut().for_each(|c| *c /= len);
        } else {
            q.copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        }
    }
}
