//! glTF animations as Qt Quick Timelines, shaped like Balsam 6.12's: one `Timeline` per
//! clip counting milliseconds (`framesPerSecond: 1000`), driven by a looping
//! `TimelineAnimation`, with a `KeyframeGroup` per animated property (`position`,
//! `rotation`, `scale` of a node, `weight` of a morph target). As Balsam does, a node
//! track whose every key equals the node's own value (Qt's fuzzy compare) is left out,
//! and an unnamed clip's Timeline is `timeline<i>`.
//!
//! Where it differs from Balsam, on purpose:
//! - Keyframes are written inline (`Keyframe { frame; value }`, Balsam's form without
//!   `.qad` files), so the scene is one text file; every source key is kept (Balsam
//!   drops a key equal to the previous one, which turns a hold into a slow blend).
//! - Only the first clip plays; the others are written disabled (Balsam starts every
//!   clip at once, and clips animating the same node then fight).
//! - STEP channels hold their value: a key just before each next key repeats the held
//!   value (Qt's keyframes only interpolate). CUBICSPLINE curves are linear keys within
//!   the rig's tolerance (`rig::keyframes`), as for the other targets.

use super::literals::{num, quoted};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::rig::keyframes::{clip_keyframes, Track};
use glam::{Quat, Vec3};
use std::fmt::Write;

/// Milliseconds before the next key where a STEP track's held value is repeated.
const STEP_HOLD_MS: f32 = 0.01;

/// QML ids the timelines refer to.
pub struct Targets<'a> {
    /// `Some(id)` for every node written in the hierarchy.
    pub nodes: &'a [Option<String>],
    /// Morph target ids of each node's Model (empty when it has none).
    pub morph_targets: &'a [Vec<String>],
}

/// The Timelines of every clip that animates a written node; `None` when there is none.
/// Channels on nodes that are not written (outside the scene) are left out with a warning.
pub fn write_timelines(
    scene: &crate::scene::Scene,
    targets: &Targets,
    ids: &mut super::names::Unique,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    let (clips, clip_warnings) = clip_keyframes(scene);
    warnings.extend(clip_warnings);
    let mut out = String::new();
    let mut first = true;
    for clip in &clips {
        let mut groups = String::new();
        let mut left_out = 0usize;
        for n in &clip.nodes {
            let Some(Some(id)) = targets.nodes.get(n.node) else {
                left_out += 1;
                continue;
            };
            let Some(rest) = scene.nodes.get(n.node) else {
                continue;
            };
            // A track that holds the node's own value throughout changes nothing; Balsam
            // leaves such tracks out too.
            let moves = |t: &Track<Vec3>, rest: Vec3| {
                let r = rest.extend(0.0).to_array();
                t.keys
                    .iter()
                    .any(|k| !same(&k.1.extend(0.0).to_array(), &r))
            };
            if let Some(t) = &n.translation {
                if moves(t, rest.translation) {
                    group(&mut groups, id, "position", t, vec3);
                }
            }
            if let Some(t) = &n.rotation {
                // q and -q are the same rotation.
                let r = rest.rotation.to_array();
                let turns = t.keys.iter().any(|k| {
                    let q = k.1.to_array();
                    !same(&q, &r) && !same(&q.map(|c| -c), &r)
                });
                if turns {
                    group(&mut groups, id, "rotation", t, quat);
                }
            }
            if let Some(t) = &n.scale {
                if moves(t, rest.scale) {
                    group(&mut groups, id, "scale", t, vec3);
                }
            }
        }
        for w in &clip.weights {
            let morphs = targets
                .morph_targets
                .get(w.node)
                .map_or(&[][..], Vec::as_slice);
            if morphs.is_empty() {
                left_out += 1;
                continue;
            }
            for (t, id) in morphs.iter().enumerate() {
                let track = Track {
                    step: w.track.step,
                    keys: w
                        .track
                        .keys
                        .iter()
                        .map(|(time, v)| (*time, v.get(t).copied().unwrap_or(0.0)))
                        .collect(),
                };
                group(&mut groups, id, "weight", &track, |f| num(*f));
            }
        }
        if left_out > 0 {
            warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                format!("animations[{}] ({:?})", clip.animation, clip.name),
                format!(
                    "{left_out} animated node(s) are not in the scene; their keys are left out"
                ),
            ));
        }
        if groups.is_empty() {
            continue;
        }
        // Balsam names an unnamed clip's Timeline `timeline<i>`.
        let named = scene
            .animations
            .get(clip.animation)
            .and_then(|a| a.name.as_deref())
            .filter(|n| !n.is_empty());
        let (name, id_base) = match named {
            Some(n) => (n.to_string(), format!("{n}_timeline")),
            None => {
                let n = format!("timeline{}", clip.animation);
                (n.clone(), n)
            }
        };
        let id = ids.claim(&super::names::qml_id(&id_base), "");
        // TimelineAnimation's duration is an int of milliseconds.
        let end = (clip.duration * 1000.0).ceil().max(1.0) as u64;
        let _ = write!(
            out,
            "    Timeline {{\n        id: {id}\n        objectName: {}\n        \
             property real framesPerSecond: 1000\n        startFrame: 0\n        \
             endFrame: {end}\n        currentFrame: 0\n        enabled: {first}\n        \
             animations: TimelineAnimation {{\n            duration: {end}\n            \
             from: 0\n            to: {end}\n            running: {first}\n            \
             loops: Animation.Infinite\n        }}\n{groups}    }}\n",
            quoted(&name)
        );
        first = false;
    }
    (!out.is_empty()).then_some(out)
}

/// Equal by Qt's `qFuzzyCompare` (within 1e-5 of the smaller magnitude), the test
/// Balsam uses to leave a track out: float noise in a source's keys is not motion.
fn same(a: &[f32; 4], b: &[f32; 4]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() * 100_000.0 <= x.abs().min(y.abs()))
}

fn vec3(v: &Vec3) -> String {
    format!("Qt.vector3d({}, {}, {})", num(v.x), num(v.y), num(v.z))
}

fn quat(q: &Quat) -> String {
    format!(
        "Qt.quaternion({}, {}, {}, {})",
        num(q.w),
        num(q.x),
        num(q.y),
        num(q.z)
    )
}

/// One KeyframeGroup; frames are milliseconds.
fn group<T>(
    out: &mut String,
    target: &str,
    property: &str,
    track: &Track<T>,
    value: impl Fn(&T) -> String,
) {
    let _ = write!(
        out,
        "        KeyframeGroup {{\n            target: {target}\n            property: \"{property}\"\n"
    );
    let mut key = |frame: f32, v: &T| {
        let _ = writeln!(
            out,
            "            Keyframe {{ frame: {}; value: {} }}",
            num(frame),
            value(v)
        );
    };
    for (k, (time, v)) in track.keys.iter().enumerate() {
        let frame = time * 1000.0;
        if track.step && k > 0 {
            let (prev_time, prev) = &track.keys[k - 1];
            let hold = (frame - STEP_HOLD_MS).max(prev_time * 1000.0);
            if hold > prev_time * 1000.0 {
                key(hold, prev);
            }
        }
        key(frame, v);
    }
    out.push_str("        }\n");
}
