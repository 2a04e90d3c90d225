//! `.hanim` clips: glTF animations of the exported skeleton as STEP/LINEAR key tracks.
//!
//! One clip per glTF animation with at least one usable channel on a joint of the
//! exported skin, named after the animation (`animation_<i>` when unnamed). Per channel:
//! - STEP and LINEAR keep their keys; CUBICSPLINE is stored as LINEAR keys on the spline
//!   itself ([`linear_keys`]: the spline's value at each key plus enough keys in between
//!   to stay within [`CUBIC_TOLERANCE`](crate::rig::sample::CUBIC_TOLERANCE)), the same
//!   curve the other targets sample.
//! - Keys are folded through the joint's [`JointOffset`] (non-joint nodes above it), so
//!   they are local TRS relative to the SKEL parent, like the bind TRS.
//! - Rotations are normalised and a key whose quaternion points away from the previous
//!   one is negated (same rotation, no long-way-round interpolation).
//! - Repairs, each with a warning: keys with a non-finite time or value, a zero
//!   quaternion, or a time not after the previous kept key are dropped; a channel left
//!   without keys, with the wrong value count, on a missing node, or repeating a target
//!   already animated in the same animation is skipped. Channels on morph weights or on
//!   nodes that are not joints are skipped, with one warning per animation.
//!
//! Keyframe reduction ([`AnimationSettings::keyframe_reduction`], like SparkEngine's
//! `keyframeReduction`): a key is dropped when interpolating between its kept neighbours
//! (lerp, slerp for rotations, hold for STEP) reproduces it, and every key dropped before
//! it, within the tolerance. Since both curves are piecewise linear between the original
//! keys, the reduced curve then stays within the tolerance everywhere. First and last keys
//! are always kept (they carry the clip's timing). The tolerance is
//! `tolerance * range + 1e-6 * max(range, largest |value|)` for translation and scale,
//! with `range` the largest per-axis extent of that path's keys over the whole clip, and
//! `tolerance + 1e-6` radians for rotations; so the default tolerance 0 only drops keys
//! that change the curve by float rounding at most.

use crate::code::DiagnosticCode;
use crate::formats::hanim::{
    self, AnimChannel, AnimInterp, AnimPath, Clip, HAnim, HAnimError, Key,
};
use crate::rig::sample::{linear_keys, rotation_angle};
use crate::rig::skeleton::Skeleton;
use crate::scene::{ChannelPath, Scene};
use glam::{Quat, Vec3, Vec4};
use thiserror::Error;

/// Relative (translation, scale) and absolute radian (rotation) slack that counts as
/// "does not change the curve" with tolerance 0: a few f32 ulps of the values.
const EXACT_EPS: f32 = 1e-6;

/// How clips are written. Every field is an `[animation]` key of `build.toml`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnimationSettings {
    /// Export animations at all.
    pub import: bool,
    pub keyframe_reduction: bool,
    /// Allowed error of a reduced curve: a fraction of the clip's range for translation
    /// and scale, radians for rotation. 0 keeps every key that changes the curve.
    pub tolerance: f32,
}

impl Default for AnimationSettings {
    fn default() -> Self {
        Self {
            import: true,
            keyframe_reduction: true,
            tolerance: 0.0,
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnimError {
    #[error("animation keyframe tolerance {0} is not a finite number >= 0")]
    BadTolerance(f32),
    #[error("animations[{index}]: name is {len} bytes, more than the 65535 .hanim allows")]
    NameTooLong { index: usize, len: usize },
    #[error("writing .hanim: {0}")]
    Write(#[from] HAnimError),
}

/// Warnings for a scene whose animations are not exported because it has no skeleton.
pub fn warn_without_skeleton(scene: &Scene) -> Vec<crate::code::Warning> {
    if scene.animations.is_empty() {
        return Vec::new();
    }
    vec![crate::code::Warning::new(DiagnosticCode::NotExported, format!(
        "{} animations not exported: the source has no skinned mesh (only joint animation is supported)",
        scene.animations.len()
    ))]
}

/// The `.hanim` file for `scene` (empty when no clip results), with warnings for what was
/// skipped or repaired. See [`build_hanim`] for the clips themselves.
pub fn build_clips(
    scene: &Scene,
    skeleton: &Skeleton,
    settings: &AnimationSettings,
) -> Result<(Vec<u8>, Vec<crate::code::Warning>), AnimError> {
    let (anim, warnings) = build_hanim(scene, skeleton, settings)?;
    if anim.clips.is_empty() {
        return Ok((Vec::new(), warnings));
    }
    Ok((hanim::write(&anim)?, warnings))
}

/// Builds the clips of `scene` for `skeleton`, with warnings for what was skipped or
/// repaired.
pub fn build_hanim(
    scene: &Scene,
    skeleton: &Skeleton,
    settings: &AnimationSettings,
) -> Result<(HAnim, Vec<crate::code::Warning>), AnimError> {
    if !settings.tolerance.is_finite() || settings.tolerance < 0.0 {
        return Err(AnimError::BadTolerance(settings.tolerance));
    }
    let mut warnings: Vec<crate::code::Warning> = Vec::new();
    let mut anim = HAnim::default();
    if !settings.import {
        return Ok((anim, warnings));
    }
    for (ai, animation) in scene.animations.iter().enumerate() {
        let name = match &animation.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("animation_{ai}"),
        };
        if name.len() > usize::from(u16::MAX) {
            return Err(AnimError::NameTooLong {
                index: ai,
                len: name.len(),
            });
        }
        let label = format!("animations[{ai}] ({name:?})");
        let mut morph = 0usize;
        let mut non_joint: Vec<usize> = Vec::new();
        let mut channels: Vec<AnimChannel> = Vec::new();
        for ch in &animation.channels {
            let path = match ch.path {
                ChannelPath::Weights => {
                    morph += 1;
                    continue;
                }
                ChannelPath::Translation => AnimPath::Translation,
                ChannelPath::Rotation => AnimPath::Rotation,
                ChannelPath::Scale => AnimPath::Scale,
            };
            let Some(joint) = skeleton.joint_of_node(ch.node) else {
                if !non_joint.contains(&ch.node) {
                    non_joint.push(ch.node);
                }
                continue;
            };
            if channels
                .iter()
                .any(|c| c.joint == joint as u32 && c.path == path)
            {
                warnings.push(crate::code::Warning::at(
                    DiagnosticCode::Repaired,
                    ch.gltf_path.to_string(),
                    format!(
                        "a second {path:?} channel for nodes[{}] in one animation; skipped",
                        ch.node
                    ),
                ));
                continue;
            }
            if let Some(c) = convert_channel(ch, joint, path, skeleton, &mut warnings) {
                channels.push(c);
            }
        }
        if morph > 0 {
            warnings.push(crate::code::Warning::at(
                DiagnosticCode::NotExported,
                label.to_string(),
                format!("{morph} morph-weight channels skipped (morph targets are not exported)"),
            ));
        }
        if !non_joint.is_empty() {
            let list: Vec<String> = non_joint.iter().map(|n| format!("nodes[{n}]")).collect();
            warnings.push(crate::code::Warning::at(
                DiagnosticCode::NotExported,
                label.to_string(),
                format!(
                    "channels on {} skipped: not joints of the exported skin",
                    list.join(", ")
                ),
            ));
        }
        if channels.is_empty() {
            if !animation.channels.is_empty() {
                warnings.push(crate::code::Warning::at(
                    DiagnosticCode::NotExported,
                    label.to_string(),
                    "no channel drives the exported skeleton; no clip written",
                ));
            }
            continue;
        }
        if settings.keyframe_reduction {
            reduce_clip(&mut channels, settings.tolerance);
        }
        let mut clip = Clip {
            name,
            duration: 0.0,
            channels,
        };
        clip.duration = clip.largest_key_time();
        anim.clips.push(clip);
    }
    Ok((anim, warnings))
}

/// One glTF channel as clean, folded keys; `None` (with a warning) when nothing usable
/// remains.
fn convert_channel(
    ch: &crate::scene::Channel,
    joint: usize,
    path: AnimPath,
    skeleton: &Skeleton,
    warnings: &mut Vec<crate::code::Warning>,
) -> Option<AnimChannel> {
    let c = path.components();
    let source = (ch.components == c).then(|| linear_keys(ch)).flatten();
    let Some(source) = source else {
        warnings.push(crate::code::Warning::at(
            DiagnosticCode::Repaired,
            ch.gltf_path.to_string(),
            format!(
                "{} values of {} components for {} keys of a {path:?} channel; skipped",
                ch.values.len(),
                ch.components,
                ch.times.len()
            ),
        ));
        return None;
    };
    let interp = if source.step {
        AnimInterp::Step
    } else {
        AnimInterp::Linear
    };
    let offset = skeleton
        .joint_offsets
        .get(joint)
        .copied()
        .unwrap_or_default();
    let mut keys: Vec<Key> = Vec::with_capacity(ch.times.len());
    let (mut bad_value, mut bad_time) = (0usize, 0usize);
    for (&time, source_value) in source.times.iter().zip(&source.values) {
        let raw = &source_value.to_array()[..c];
        if !time.is_finite() || keys.last().is_some_and(|p| time <= p.time) {
            bad_time += 1;
            continue;
        }
        if raw.iter().any(|v| !v.is_finite()) {
            bad_value += 1;
            continue;
        }
        let value = match path {
            AnimPath::Translation => {
                let t = offset.apply_translation(Vec3::from_slice(raw));
                [t.x, t.y, t.z, 0.0]
            }
            AnimPath::Scale => {
                let s = offset.apply_scale(Vec3::from_slice(raw));
                [s.x, s.y, s.z, 0.0]
            }
            AnimPath::Rotation => {
                let q = Vec4::from_slice(raw);
                let len = q.length();
                if len <= 1e-12 || !len.is_finite() {
                    bad_value += 1;
                    continue;
                }
                let mut r = offset.apply_rotation(Quat::from_vec4(q / len));
                if let Some(prev) = keys.last() {
                    if Vec4::from_array(prev.value).dot(Vec4::from(r)) < 0.0 {
                        r = -r;
                    }
                }
                r.to_array()
            }
        };
        keys.push(Key { time, value });
    }
    if bad_time > 0 {
        warnings.push(crate::code::Warning::at(
            DiagnosticCode::Repaired,
            ch.gltf_path.to_string(),
            format!(
                "{bad_time} keys with a non-finite time or one not after the previous key dropped"
            ),
        ));
    }
    if bad_value > 0 {
        warnings.push(crate::code::Warning::at(
            DiagnosticCode::Repaired,
            ch.gltf_path.to_string(),
            format!("{bad_value} keys with non-finite or zero values dropped"),
        ));
    }
    if keys.is_empty() {
        warnings.push(crate::code::Warning::at(
            DiagnosticCode::Repaired,
            ch.gltf_path.to_string(),
            "no usable keys; skipped",
        ));
        return None;
    }
    Some(AnimChannel {
        joint: joint as u32,
        path,
        interp,
        keys,
    })
}

/// Largest per-axis extent and largest magnitude of the keys of one path over a clip.
fn range_and_magnitude(channels: &[AnimChannel], path: AnimPath) -> (f32, f32) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut magnitude = 0.0f32;
    for key in channels
        .iter()
        .filter(|c| c.path == path)
        .flat_map(|c| &c.keys)
    {
        for a in 0..3 {
            lo[a] = lo[a].min(key.value[a]);
            hi[a] = hi[a].max(key.value[a]);
            magnitude = magnitude.max(key.value[a].abs());
        }
    }
    let range = (0..3)
        .map(|a| hi[a] - lo[a])
        .filter(|r| r.is_finite())
        .fold(0.0f32, f32::max);
    (range, magnitude)
}

fn reduce_clip(channels: &mut [AnimChannel], tolerance: f32) {
    let threshold = |path| {
        let (range, magnitude) = range_and_magnitude(channels, path);
        tolerance * range + EXACT_EPS * range.max(magnitude)
    };
    let t_threshold = threshold(AnimPath::Translation);
    let s_threshold = threshold(AnimPath::Scale);
    let r_threshold = tolerance + EXACT_EPS;
    for ch in channels.iter_mut() {
        let limit = match ch.path {
            AnimPath::Translation => t_threshold,
            AnimPath::Scale => s_threshold,
            AnimPath::Rotation => r_threshold,
        };
        ch.keys = reduce_keys(&ch.keys, ch.path, ch.interp, limit);
    }
}

/// Error between two key values: distance for vectors, rotation angle for quaternions.
fn value_error(path: AnimPath, a: [f32; 4], b: [f32; 4]) -> f32 {
    match path {
        AnimPath::Rotation => rotation_angle(Quat::from_array(a), Quat::from_array(b)),
        _ => Vec3::from_slice(&a[..3]).distance(Vec3::from_slice(&b[..3])),
    }
}

/// Value of a LINEAR segment from `a` to `b` at `time`.
fn interpolate(path: AnimPath, a: &Key, b: &Key, time: f32) -> [f32; 4] {
    let u = (time - a.time) / (b.time - a.time);
    match path {
        AnimPath::Rotation => Quat::from_array(a.value)
            .slerp(Quat::from_array(b.value), u)
            .to_array(),
        _ => {
            let v = Vec3::from_slice(&a.value[..3]).lerp(Vec3::from_slice(&b.value[..3]), u);
            [v.x, v.y, v.z, 0.0]
        }
    }
}

fn reduce_keys(keys: &[Key], path: AnimPath, interp: AnimInterp, limit: f32) -> Vec<Key> {
    if keys.len() <= 2 {
        return keys.to_vec();
    }
    let mut kept: Vec<Key> = vec![keys[0]];
    let mut last_kept = 0usize;
    for i in 1..keys.len() - 1 {
        let anchor = keys[last_kept];
        let droppable = match interp {
            AnimInterp::Step => value_error(path, anchor.value, keys[i].value) <= limit,
            AnimInterp::Linear => {
                let next = &keys[i + 1];
                // A span over 180 degrees would be interpolated the short way round, which
                // is not the path the original keys take.
                let same_hemisphere = path != AnimPath::Rotation
                    || Vec4::from_array(anchor.value).dot(Vec4::from_array(next.value)) >= 0.0;
                same_hemisphere
                    && keys[last_kept + 1..=i].iter().all(|k| {
                        value_error(path, interpolate(path, &anchor, next, k.time), k.value)
                            <= limit
                    })
            }
        };
        if !droppable {
            kept.push(keys[i]);
            last_kept = i;
        }
    }
    kept.extend(keys.last().copied());
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::hanim;
    use crate::rig::skeleton::{build_skeleton, tests::rig};
    use crate::scene::{Animation, Channel, Interpolation};

    fn channel(
        node: usize,
        path: ChannelPath,
        interp: Interpolation,
        times: &[f32],
        values: &[f32],
    ) -> Channel {
        let components = match path {
            ChannelPath::Rotation => 4,
            _ => 3,
        };
        Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node,
            path,
            interpolation: interp,
            times: times.to_vec(),
            values: values.to_vec(),
            components,
        }
    }

    fn build(scene: &Scene, settings: &AnimationSettings) -> (HAnim, Vec<crate::code::Warning>) {
        let (skel, _) = build_skeleton(scene).unwrap().unwrap();
        build_hanim(scene, &skel, settings).unwrap()
    }

    #[test]
    fn collinear_keys_are_reduced_and_corners_kept() {
        let mut scene = rig();
        // Node 3 (joint 1) has an identity offset except the translation of X, which
        // shifts every key equally. Keys 1 and 3 lie on straight lines; key 2 is a corner.
        let times = [0.0, 1.0, 2.0, 3.0, 4.0];
        let values = [
            0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 1.0, 0.0, 2.0, 2.0, 0.0,
        ];
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(
                3,
                ChannelPath::Translation,
                Interpolation::Linear,
                &times,
                &values,
            )],
        });
        let (anim, warnings) = build(&scene, &AnimationSettings::default());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(anim.clips.len(), 1);
        let clip = &anim.clips[0];
        assert_eq!(clip.name, "animation_0");
        assert_eq!(clip.duration, 4.0);
        let kept: Vec<f32> = clip.channels[0].keys.iter().map(|k| k.time).collect();
        assert_eq!(kept, vec![0.0, 2.0, 4.0]);
        // The offset (X: translation 0.5 along x) is folded into every key.
        assert_eq!(clip.channels[0].keys[1].value[..3], [2.5, 0.0, 0.0]);
        let no_reduction = AnimationSettings {
            keyframe_reduction: false,
            ..Default::default()
        };
        assert_eq!(
            build(&scene, &no_reduction).0.clips[0].channels[0]
                .keys
                .len(),
            5
        );
        assert!(hanim::validate(&hanim::write(&anim).unwrap(), Some(2)).is_empty());
    }

    #[test]
    fn tolerance_drops_small_wiggles_only() {
        let mut scene = rig();
        // A wiggle of 0.01 on a range of 10: 0.1% of the range.
        let values = [0.0, 0.0, 0.0, 5.0, 0.01, 0.0, 10.0, 0.0, 0.0];
        scene.animations.push(Animation {
            name: Some("wiggle".into()),
            channels: vec![channel(
                3,
                ChannelPath::Translation,
                Interpolation::Linear,
                &[0.0, 1.0, 2.0],
                &values,
            )],
        });
        let keys = |tolerance| {
            build(
                &scene,
                &AnimationSettings {
                    tolerance,
                    ..Default::default()
                },
            )
            .0
            .clips[0]
                .channels[0]
                .keys
                .len()
        };
        assert_eq!(keys(0.0), 3);
        assert_eq!(keys(0.0005), 3);
        assert_eq!(keys(0.002), 2);
    }

    #[test]
    fn rotations_are_normalised_sign_continuous_and_reduced_by_angle() {
        let mut scene = rig();
        let q = |a: f32| Quat::from_rotation_z(a);
        let mut values = Vec::new();
        for (i, a) in [0.0f32, 0.5, 1.0].iter().enumerate() {
            let mut v = Vec4::from(q(*a)) * 3.0; // not unit
            if i == 1 {
                v = -v; // same rotation, opposite hemisphere
            }
            values.extend_from_slice(&v.to_array());
        }
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(
                3,
                ChannelPath::Rotation,
                Interpolation::Linear,
                &[0.0, 1.0, 2.0],
                &values,
            )],
        });
        let no_reduction = AnimationSettings {
            keyframe_reduction: false,
            ..Default::default()
        };
        let (anim, _) = build(&scene, &no_reduction);
        let keys = &anim.clips[0].channels[0].keys;
        for w in keys.windows(2) {
            assert!(Vec4::from_array(w[0].value).dot(Vec4::from_array(w[1].value)) > 0.0);
        }
        for k in keys {
            assert!((Vec4::from_array(k.value).length() - 1.0).abs() < 1e-6);
        }
        // Uniform angular speed: the middle key is the slerp of its neighbours.
        assert_eq!(
            build(&scene, &AnimationSettings::default()).0.clips[0].channels[0]
                .keys
                .len(),
            2
        );
    }

    #[test]
    fn step_keys_repeating_a_value_are_dropped() {
        let mut scene = rig();
        let values = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0];
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(
                3,
                ChannelPath::Scale,
                Interpolation::Step,
                &[0.0, 1.0, 2.0, 3.0],
                &values,
            )],
        });
        let (anim, _) = build(&scene, &AnimationSettings::default());
        let ch = &anim.clips[0].channels[0];
        assert_eq!(ch.interp, AnimInterp::Step);
        let kept: Vec<f32> = ch.keys.iter().map(|k| k.time).collect();
        assert_eq!(kept, vec![0.0, 2.0, 3.0]);
    }

    #[test]
    fn cubic_spline_is_stored_as_linear_keys_on_the_spline() {
        let mut scene = rig();
        // Key values 1 and 2, out-tangent of key 0 = -9, in-tangent of key 1 = 9 (units
        // per second, interval 1 s). Hermite at u = 1/2: 1/2*1 + 1/8*(-9) + 1/2*2 - 1/8*9
        // = -0.75, far below both key values; at u = 1/4: 27/32*1 + 9/64*(-9) + 5/32*2
        // - 3/64*9 = -0.53125.
        let mut values = Vec::new();
        for v in [1.0f32, 2.0] {
            values.extend_from_slice(&[9.0, 9.0, 9.0, v, v, v, -9.0, -9.0, -9.0]);
        }
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(
                3,
                ChannelPath::Scale,
                Interpolation::CubicSpline,
                &[0.0, 1.0],
                &values,
            )],
        });
        let (anim, warnings) = build(&scene, &AnimationSettings::default());
        assert!(warnings.is_empty(), "{warnings:?}");
        let ch = &anim.clips[0].channels[0];
        assert_eq!(ch.interp, AnimInterp::Linear);
        assert!(ch.keys.len() > 2, "{:?}", ch.keys);
        assert_eq!(ch.keys[0].value[..3], [1.0, 1.0, 1.0]);
        assert_eq!(ch.keys.last().unwrap().value[..3], [2.0, 2.0, 2.0]);
        let at = |t: f32| {
            let k = ch.keys.partition_point(|k| k.time <= t);
            let (a, b) = (&ch.keys[k - 1], &ch.keys[k]);
            interpolate(AnimPath::Scale, a, b, t)[0]
        };
        // Within the spline tolerance: 1e-3 of the channel's range (1.0).
        assert!((at(0.5) + 0.75).abs() <= 1e-3, "{}", at(0.5));
        assert!((at(0.25) + 0.53125).abs() <= 1e-3, "{}", at(0.25));
    }

    #[test]
    fn bad_channels_are_repaired_or_skipped_and_the_file_stays_valid() {
        let mut scene = rig();
        let t = ChannelPath::Translation;
        let lin = Interpolation::Linear;
        scene.animations.push(Animation {
            name: Some("bad".into()),
            channels: vec![
                // NaN value at key 1, time going back at key 3.
                channel(
                    3,
                    t,
                    lin,
                    &[0.0, 1.0, 2.0, 1.5],
                    &[
                        0.0,
                        0.0,
                        0.0,
                        f32::NAN,
                        0.0,
                        0.0,
                        1.0,
                        1.0,
                        1.0,
                        2.0,
                        2.0,
                        2.0,
                    ],
                ),
                channel(3, t, lin, &[0.0], &[5.0, 5.0, 5.0]), // duplicate target
                channel(2, t, lin, &[0.0], &[5.0, 5.0, 5.0]), // non-joint node
                channel(4, ChannelPath::Weights, lin, &[0.0], &[1.0]), // morph weights
                channel(1, ChannelPath::Rotation, lin, &[0.0, 1.0], &[0.0; 8]), // zero quats
                channel(1, ChannelPath::Scale, lin, &[0.0, 1.0], &[1.0; 5]), // wrong length
            ],
        });
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(2, t, lin, &[0.0], &[5.0, 5.0, 5.0])],
        });
        let (anim, warnings) = build(&scene, &AnimationSettings::default());
        assert_eq!(anim.clips.len(), 1, "the second animation touches no joint");
        let clip = &anim.clips[0];
        assert_eq!(clip.channels.len(), 1);
        let times: Vec<f32> = clip.channels[0].keys.iter().map(|k| k.time).collect();
        assert_eq!(times, vec![0.0, 2.0]);
        assert_eq!(clip.duration, 2.0);
        // Backwards time, NaN key, duplicate, zero quats + the rotation channel left
        // empty, wrong length, morph, non-joint; then the second animation's non-joint
        // channel and its missing clip.
        assert_eq!(warnings.len(), 10, "{warnings:#?}");
        assert!(hanim::validate(&hanim::write(&anim).unwrap(), Some(2)).is_empty());
    }

    #[test]
    fn settings_are_honoured() {
        let mut scene = rig();
        scene.animations.push(Animation {
            name: None,
            channels: vec![channel(
                3,
                ChannelPath::Scale,
                Interpolation::Step,
                &[0.0],
                &[1.0; 3],
            )],
        });
        let (skel, _) = build_skeleton(&scene).unwrap().unwrap();
        let off = AnimationSettings {
            import: false,
            ..Default::default()
        };
        assert!(build_hanim(&scene, &skel, &off).unwrap().0.clips.is_empty());
        assert!(build_clips(&scene, &skel, &off).unwrap().0.is_empty());
        let bytes = build_clips(&scene, &skel, &AnimationSettings::default())
            .unwrap()
            .0;
        assert_eq!(hanim::read(&bytes).unwrap().clips.len(), 1);
        let bad = AnimationSettings {
            tolerance: f32::NAN,
            ..Default::default()
        };
        assert!(matches!(
            build_clips(&scene, &skel, &bad),
            Err(AnimError::BadTolerance(_))
        ));
    }

    #[test]
    fn rotation_angle_is_the_angle_between_rotations() {
        let a = Quat::from_rotation_y(0.2);
        let b = Quat::from_rotation_y(0.2 + 1e-4);
        assert!((rotation_angle(a, b) - 1e-4).abs() < 1e-6);
        assert!((rotation_angle(a, -b) - 1e-4).abs() < 1e-6);
        assert!((rotation_angle(Quat::IDENTITY, Quat::from_rotation_x(2.0)) - 2.0).abs() < 1e-5);
    }
}
