//! glTF animations resampled into BMD1's compact per-bone streams: bone poses sampled
//! with the rig's sampler ([`crate::rig::sample`], CUBICSPLINE evaluated as the spec
//! defines it) at the clip rate, stored as keyframes the runtime interpolates linearly.

use super::skeleton::{quantize_rotation, raw_to_quat, Skeleton};
use super::{invalid, Bmd1Settings};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::bmd1::{
    sample_track, track_from_frames, AnimTolerance, Animation, BoneFrames, Track,
};
use crate::rig::sample::{duration, node_worlds};
use crate::scene::{ChannelPath, Scene};
use crate::TargetError;
use glam::{Mat4, Quat, Vec3};
use std::collections::HashSet;

/// Per-component rotation tolerance for dropping keys: a quarter of the F8A step at 1.0
/// (1/16), so a dropped key is never worse than the rounding a kept key already gets.
const ROTATION_TOLERANCE: f32 = 1.0 / 64.0;
const SCALE_TOLERANCE: f32 = 1.0 / 256.0;
const MAX_FRAMES: usize = 255;

/// The clip rate in 0.25 Hz units for a setting in Hz.
pub(crate) fn rate_quarter_hz(hz: f32) -> u8 {
    (hz * 4.0).round().clamp(1.0, 127.0) as u8
}

pub(crate) fn build_animations(
    scene: &Scene,
    skeleton: &Skeleton,
    settings: &Bmd1Settings,
    translation_tolerance: f32,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Animation>, TargetError> {
    let moved_by_skin = ancestors_of_joints(scene, skeleton);
    let mut names = HashSet::new();
    let mut out = Vec::new();
    for (ai, anim) in scene.animations.iter().enumerate() {
        let path = format!("animations[{ai}]");
        for c in &anim.channels {
            if c.path == ChannelPath::Weights {
                warnings.push(Warning::at(
                    DiagnosticCode::TargetLimit,
                    c.gltf_path.to_string(),
                    "morph weight animation dropped (BMD1 has no morph targets)",
                ));
            } else if !moved_by_skin.contains(&c.node) {
                warnings.push(Warning::at(DiagnosticCode::TargetLimit, c.gltf_path.to_string(), format!("node {} is not a joint of the exported skin nor above one; BMD1 keeps it still", c.node)));
            }
        }
        let length = duration(anim);
        let mut rate = rate_quarter_hz(settings.sample_rate_hz);
        let frames_at = |rate: u8| (length * f32::from(rate) / 4.0).round() as usize + 1;
        while frames_at(rate) > MAX_FRAMES && rate > 1 {
            rate -= 1;
        }
        if frames_at(rate) > MAX_FRAMES {
            return Err(invalid(
                &path,
                format!("clip lasts {length} s; BMD1 holds at most 255 frames at 0.25 Hz"),
            ));
        }
        if rate != rate_quarter_hz(settings.sample_rate_hz) {
            warnings.push(Warning::at(DiagnosticCode::TargetLimit, path.to_string(), format!("clip lasts {length} s; sampled at {} Hz instead of {} Hz to stay within 255 frames", f32::from(rate) / 4.0, settings.sample_rate_hz)));
        }
        let hz = f32::from(rate) / 4.0;
        let sample = |frame: usize| -> Vec<Mat4> {
            let time = (frame as f32 / hz).min(length);
            let worlds = node_worlds(scene, Some(anim), time);
            (0..skeleton.bones.len())
                .map(|b| target_pose(scene, skeleton, &worlds, b))
                .collect()
        };
        // A clip whose end pose equals its start pose loops through frame 0 again, so its
        // last sample would be a duplicate that holds the loop for one frame: drop it.
        let mut frame_count = frames_at(rate);
        if frame_count > 1
            && poses_match(&sample(0), &sample(frame_count - 1), translation_tolerance)
        {
            frame_count -= 1;
        }
        let targets: Vec<Vec<Mat4>> = (0..frame_count).map(sample).collect();
        let tracks = resample_tracks(skeleton, &targets, frame_count as u8, translation_tolerance)
            .map_err(|(bone, message)| invalid(&path, format!("bone {bone}: {message}")))?;
        let name = unique_name(anim.name.as_deref(), ai, &mut names, &path, warnings);
        out.push(Animation {
            name,
            frame_count: frame_count as u8,
            rate_quarter_hz: rate,
            looping: true,
            tracks,
        });
    }
    Ok(out)
}

/// Where bone `b` must be so that `pose * v_bone` equals glTF skinning `joint * IBM * p`:
/// `joint_world * IBM * bind_world` (vertices are stored as `inverse(bind_world) * p`).
fn target_pose(scene: &Scene, skeleton: &Skeleton, worlds: &[Mat4], bone: usize) -> Mat4 {
    let joint_world = skeleton
        .joint_node(scene, bone)
        .and_then(|n| worlds.get(n).copied());
    match joint_world {
        None => Mat4::IDENTITY,
        Some(w) => {
            let ibm = skeleton
                .inverse_bind
                .get(bone)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            let bind = skeleton
                .bind_world
                .get(bone)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            w * ibm * bind
        }
    }
}

fn poses_match(a: &[Mat4], b: &[Mat4], translation_tolerance: f32) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let (sa, ra, ta) = x.to_scale_rotation_translation();
        let (sb, rb, tb) = y.to_scale_rotation_translation();
        ra.dot(rb).abs() >= 1.0 - 1e-6
            && ta.distance(tb) <= translation_tolerance
            && sa.distance(sb) <= SCALE_TOLERANCE
    })
}

/// One track per bone (bone 0's empty). Each bone's local frames are taken against the
/// parent pose a runtime will actually compute from the parent's encoded track, so
/// quantisation and dropped keys do not accumulate down the hierarchy.
fn resample_tracks(
    skeleton: &Skeleton,
    targets: &[Vec<Mat4>],
    frame_count: u8,
    translation_tolerance: f32,
) -> Result<Vec<Track>, (usize, String)> {
    let n_bones = skeleton.bones.len();
    let tol = AnimTolerance {
        rotation: ROTATION_TOLERANCE,
        translation: translation_tolerance,
        scale: SCALE_TOLERANCE,
    };
    let mut decoded: Vec<Vec<Mat4>> = vec![vec![Mat4::IDENTITY; targets.len()]];
    let mut tracks = vec![Track::default()];
    for bone in 1..n_bones {
        let parent = skeleton.parents.get(bone).copied().unwrap_or(0);
        let mut frames = BoneFrames::default();
        let mut previous = Quat::IDENTITY;
        for (f, target) in targets.iter().enumerate() {
            let parent_pose = decoded
                .get(parent)
                .and_then(|p| p.get(f))
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            let goal = target.get(bone).copied().unwrap_or(Mat4::IDENTITY);
            let (scale, mut rotation, translation) =
                (parent_pose.inverse() * goal).to_scale_rotation_translation();
            // Keep neighbouring keys in one hemisphere so linear playback takes the short way.
            if rotation.dot(previous) < 0.0 {
                rotation = -rotation;
            }
            previous = rotation;
            frames.rotation.push(quantize_rotation(rotation));
            frames.translation.push(translation.to_array());
            frames.scale.push(scale.to_array());
        }
        let track =
            track_from_frames(&frames, frame_count, tol).map_err(|e| (bone, e.to_string()))?;
        let poses = (0..targets.len())
            .map(|f| {
                let t = sample_track(&track, frame_count, true, f as f32);
                let parent_pose = decoded
                    .get(parent)
                    .and_then(|p| p.get(f))
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                parent_pose
                    * Mat4::from_scale_rotation_translation(
                        Vec3::from(t.scale),
                        raw_to_quat(t.rotation),
                        Vec3::from(t.translation),
                    )
            })
            .collect();
        decoded.push(poses);
        tracks.push(track);
    }
    Ok(tracks)
}

/// Nodes whose motion reaches a joint of the skin: the joints and their ancestors.
fn ancestors_of_joints(scene: &Scene, skeleton: &Skeleton) -> HashSet<usize> {
    let mut out = HashSet::new();
    for bone in 1..skeleton.bones.len() {
        let mut at = skeleton.joint_node(scene, bone);
        while let Some(n) = at {
            if !out.insert(n) {
                break;
            }
            at = scene.nodes.get(n).and_then(|x| x.parent);
        }
    }
    out
}

fn unique_name(
    given: Option<&str>,
    index: usize,
    used: &mut HashSet<String>,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> String {
    let given = given.unwrap_or("");
    let base = if given.is_empty() {
        format!("animation_{index}")
    } else {
        given.replace('\0', "")
    };
    let mut name = base.clone();
    let mut suffix = 1;
    while used.contains(&name) {
        name = format!("{base}_{suffix}");
        suffix += 1;
    }
    if name != given && !given.is_empty() {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            path.to_string(),
            format!("animation name {given:?} has NUL or repeats an earlier clip; named {name:?}"),
        ));
    }
    used.insert(name.clone());
    name
}
