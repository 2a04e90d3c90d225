//! Per-node TRS key tracks of every clip, for targets that store keyframes per node
//! rather than per joint (the Qt Quick 3D target's Timelines).
//!
//! The keys are the source's own for STEP and LINEAR channels and the CUBICSPLINE curve
//! as linear keys ([`linear_keys`]), so they play exactly like `.hanim` and BMD1 sample.
//! Times are in seconds from the clip's start (negative starts were already shifted by
//! the importer). Rotations are unit quaternions, each in the hemisphere of the previous
//! key so that slerp takes the short way. Morph weights are tracks of one value per
//! target; a CUBICSPLINE weight curve becomes [`WEIGHT_PIECES`] linear pieces per segment.

use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::rig::sample::linear_keys;
use crate::scene::{Channel, ChannelPath, Interpolation, Scene};
use glam::{Quat, Vec3, Vec4};

/// Keys of one property of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Track<T> {
    /// Hold each key until the next one; otherwise interpolate (lerp / slerp).
    pub step: bool,
    /// Increasing times in seconds, with the value at each.
    pub keys: Vec<(f32, T)>,
}

/// The animated properties of one node in one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeKeyframes {
    /// Index into [`Scene::nodes`].
    pub node: usize,
    pub translation: Option<Track<Vec3>>,
    pub rotation: Option<Track<Quat>>,
    pub scale: Option<Track<Vec3>>,
}

/// The animated morph weights of one node in one clip.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightKeyframes {
    /// Index into [`Scene::nodes`].
    pub node: usize,
    /// One value per morph target at each key.
    pub track: Track<Vec<f32>>,
}

/// Linear pieces per segment of a CUBICSPLINE weight curve.
pub const WEIGHT_PIECES: usize = 8;

/// One glTF animation as node tracks.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipKeyframes {
    /// Index into [`Scene::animations`].
    pub animation: usize,
    /// The animation's name, `animation_<i>` when it has none.
    pub name: String,
    /// Latest key time of any track.
    pub duration: f32,
    /// Sorted by node index; nodes without a usable channel are absent.
    pub nodes: Vec<NodeKeyframes>,
    /// Morph weight tracks, sorted by node index.
    pub weights: Vec<WeightKeyframes>,
}

/// Every animation of `scene` that moves at least one node or morph weight, with warnings
/// for channels skipped (data not matching the layout, a second channel on the same
/// property) and keys dropped (times not increasing, zero quaternions).
pub fn clip_keyframes(scene: &Scene) -> (Vec<ClipKeyframes>, Vec<Warning>) {
    let mut warnings: Vec<Warning> = Vec::new();
    let mut clips = Vec::new();
    for (ai, animation) in scene.animations.iter().enumerate() {
        let name = match &animation.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("animation_{ai}"),
        };
        let mut nodes: Vec<NodeKeyframes> = Vec::new();
        let mut weights: Vec<WeightKeyframes> = Vec::new();
        for ch in &animation.channels {
            if ch.path == ChannelPath::Weights {
                match weight_track(ch) {
                    Some(track) if !track.keys.is_empty() => {
                        if weights.iter().any(|w| w.node == ch.node) {
                            warnings.push(Warning::at(DiagnosticCode::Repaired, ch.gltf_path.to_string(), format!("a second weights channel for nodes[{}] in one animation; it replaces the first", ch.node)));
                            weights.retain(|w| w.node != ch.node);
                        }
                        weights.push(WeightKeyframes {
                            node: ch.node,
                            track,
                        });
                    }
                    _ => warnings.push(Warning::at(
                        DiagnosticCode::Repaired,
                        ch.gltf_path.to_string(),
                        format!(
                            "{} values for {} keys of {} weights; skipped",
                            ch.values.len(),
                            ch.times.len(),
                            ch.components
                        ),
                    )),
                }
                continue;
            }
            let Some(source) = linear_keys(ch) else {
                warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    ch.gltf_path.to_string(),
                    format!(
                        "{} values of {} components for {} keys; skipped",
                        ch.values.len(),
                        ch.components,
                        ch.times.len()
                    ),
                ));
                continue;
            };
            let mut dropped = 0usize;
            let mut keys: Vec<(f32, Vec4)> = Vec::with_capacity(source.times.len());
            for (&t, &v) in source.times.iter().zip(&source.values) {
                let increasing = keys.last().is_none_or(|&(p, _)| t > p);
                if !t.is_finite() || !increasing || !v.is_finite() {
                    dropped += 1;
                    continue;
                }
                keys.push((t, v));
            }
            let index = match nodes.binary_search_by_key(&ch.node, |n| n.node) {
                Ok(i) => i,
                Err(i) => {
                    nodes.insert(
                        i,
                        NodeKeyframes {
                            node: ch.node,
                            translation: None,
                            rotation: None,
                            scale: None,
                        },
                    );
                    i
                }
            };
            let entry = &mut nodes[index];
            let vec3 = |keys: Vec<(f32, Vec4)>| Track {
                step: source.step,
                keys: keys.into_iter().map(|(t, v)| (t, v.truncate())).collect(),
            };
            let taken = match ch.path {
                ChannelPath::Translation => entry.translation.replace(vec3(keys)).is_some(),
                ChannelPath::Scale => entry.scale.replace(vec3(keys)).is_some(),
                ChannelPath::Rotation => {
                    let mut rotations: Vec<(f32, Quat)> = Vec::with_capacity(keys.len());
                    for (t, v) in keys {
                        let len = v.length();
                        if len.is_nan() || len <= 1e-12 {
                            dropped += 1;
                            continue;
                        }
                        let mut q = Quat::from_vec4(v / len);
                        if rotations.last().is_some_and(|&(_, p)| p.dot(q) < 0.0) {
                            q = -q;
                        }
                        rotations.push((t, q));
                    }
                    let track = Track {
                        step: source.step,
                        keys: rotations,
                    };
                    entry.rotation.replace(track).is_some()
                }
                ChannelPath::Weights => false,
            };
            if taken {
                warnings.push(Warning::at(DiagnosticCode::Repaired, ch.gltf_path.to_string(), format!("a second {:?} channel for nodes[{}] in one animation; it replaces the first", ch.path, ch.node)));
            }
            if dropped > 0 {
                warnings.push(Warning::at(DiagnosticCode::Repaired, ch.gltf_path.to_string(), format!("{dropped} keys with a time not after the previous key or an unusable value dropped")));
            }
        }
        weights.sort_by_key(|w| w.node);
        nodes.retain(|n| {
            n.translation.as_ref().is_some_and(|t| !t.keys.is_empty())
                || n.rotation.as_ref().is_some_and(|t| !t.keys.is_empty())
                || n.scale.as_ref().is_some_and(|t| !t.keys.is_empty())
        });
        if nodes.is_empty() && weights.is_empty() {
            continue;
        }
        let weight_end = weights
            .iter()
            .filter_map(|w| w.track.keys.last().map(|k| k.0))
            .fold(0.0, f32::max);
        let duration = nodes
            .iter()
            .flat_map(|n| {
                let last = |keys: Option<f32>| keys.unwrap_or(0.0);
                [
                    last(
                        n.translation
                            .as_ref()
                            .and_then(|t| t.keys.last())
                            .map(|k| k.0),
                    ),
                    last(n.rotation.as_ref().and_then(|t| t.keys.last()).map(|k| k.0)),
                    last(n.scale.as_ref().and_then(|t| t.keys.last()).map(|k| k.0)),
                ]
            })
            .fold(weight_end, f32::max);
        clips.push(ClipKeyframes {
            animation: ai,
            name,
            duration,
            nodes,
            weights,
        });
    }
    (clips, warnings)
}

/// A weights channel as keys: its own for STEP and LINEAR, the Hermite curve at
/// [`WEIGHT_PIECES`] pieces per segment for CUBICSPLINE. Keys whose time does not
/// increase or whose values are not finite are dropped. `None` when the data does not
/// match the layout.
fn weight_track(ch: &Channel) -> Option<Track<Vec<f32>>> {
    let n = ch.components;
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    let stride = if cubic { 3 * n } else { n };
    if n == 0 || Some(ch.values.len()) != ch.times.len().checked_mul(stride) {
        return None;
    }
    // part: 0 in-tangent, 1 value, 2 out-tangent (CUBICSPLINE); the value otherwise.
    let get = |k: usize, part: usize| {
        let start = k * stride + if cubic { part * n } else { 0 };
        &ch.values[start..start + n]
    };
    let mut keys: Vec<(f32, Vec<f32>)> = Vec::with_capacity(ch.times.len());
    let mut push = |t: f32, v: Vec<f32>| {
        let increasing = keys.last().is_none_or(|(p, _)| t > *p);
        if t.is_finite() && increasing && v.iter().all(|f| f.is_finite()) {
            keys.push((t, v));
        }
    };
    for (k, &t0) in ch.times.iter().enumerate() {
        push(t0, get(k, 1).to_vec());
        let Some(&t1) = ch.times.get(k + 1) else {
            break;
        };
        if !cubic || t1 <= t0 {
            continue;
        }
        let dt = t1 - t0;
        for i in 1..WEIGHT_PIECES {
            let u = i as f32 / WEIGHT_PIECES as f32;
            let (u2, u3) = (u * u, u * u * u);
            let v: Vec<f32> = (0..n)
                .map(|c| {
                    get(k, 1)[c] * (2.0 * u3 - 3.0 * u2 + 1.0)
                        + get(k, 2)[c] * dt * (u3 - 2.0 * u2 + u)
                        + get(k + 1, 1)[c] * (-2.0 * u3 + 3.0 * u2)
                        + get(k + 1, 0)[c] * dt * (u3 - u2)
                })
                .collect();
            push(t0 + dt * u, v);
        }
    }
    Some(Track {
        step: ch.interpolation == Interpolation::Step,
        keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::sample::sample_channel;
    use crate::scene::{Animation, Channel, Interpolation};

    #[test]
    fn node_tracks_follow_the_sampled_curves() {
        let mut scene = crate::rig::skeleton::tests::rig();
        let half = std::f32::consts::FRAC_1_SQRT_2;
        // Node 2: a CUBICSPLINE translation whose key values are equal but whose
        // tangents move it (1 -> 1 with out-tangent 4, in-tangent -4: the spline rises
        // to 1 + 4/8 + 4/8 = 2 at u = 1/2). Node 1: a LINEAR rotation given with
        // opposite signs and a non-unit length.
        let cubic = Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node: 2,
            path: ChannelPath::Translation,
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 1.0],
            values: vec![
                0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 4.0, 0.0, 0.0, //
                -4.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            ],
            components: 3,
        };
        let rotation = Channel {
            gltf_path: "animations[0].channels[1]".into(),
            node: 1,
            path: ChannelPath::Rotation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 2.0],
            values: vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0, -half, -half],
            components: 4,
        };
        let weights = Channel {
            gltf_path: "animations[0].channels[2]".into(),
            node: 4,
            path: ChannelPath::Weights,
            interpolation: Interpolation::Linear,
            times: vec![0.0],
            values: vec![1.0],
            components: 1,
        };
        scene.animations.push(Animation {
            name: Some("walk".into()),
            channels: vec![cubic.clone(), rotation, weights],
        });
        let (clips, warnings) = clip_keyframes(&scene);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(clips.len(), 1);
        let clip = &clips[0];
        // The weights channel is a track of one value per target.
        assert_eq!(clip.weights.len(), 1);
        assert_eq!(clip.weights[0].node, 4);
        assert_eq!(clip.weights[0].track.keys, [(0.0, vec![1.0])]);
        assert_eq!((clip.name.as_str(), clip.duration), ("walk", 2.0));
        let order: Vec<usize> = clip.nodes.iter().map(|n| n.node).collect();
        assert_eq!(order, [1, 2]);

        let rot = clip.nodes[0].rotation.as_ref().unwrap();
        assert!(!rot.step);
        assert_eq!(rot.keys[0], (0.0, Quat::IDENTITY));
        // (0, 0, -h, -h) is 90 degrees about +Z; flipped into the first key's hemisphere.
        let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        assert!(
            rot.keys[1].1.abs_diff_eq(quarter, 1e-6),
            "{:?}",
            rot.keys[1]
        );

        let tr = clip.nodes[1].translation.as_ref().unwrap();
        assert!(tr.keys.len() > 2);
        // Linear playback of the keys stays on the spline the sampler evaluates.
        for i in 0..=40 {
            let t = i as f32 / 40.0;
            let k = tr
                .keys
                .partition_point(|k| k.0 <= t)
                .clamp(1, tr.keys.len() - 1);
            let ((t0, a), (t1, b)) = (tr.keys[k - 1], tr.keys[k]);
            let played = a.lerp(b, ((t - t0) / (t1 - t0)).clamp(0.0, 1.0));
            let exact = sample_channel(&cubic, t).unwrap().truncate();
            assert!(played.distance(exact) <= 1e-3, "t {t}: {played} vs {exact}");
        }
        let top = tr.keys.iter().map(|k| k.1.x).fold(0.0, f32::max);
        assert!((top - 2.0).abs() < 1e-6, "{top}");
    }

    #[test]
    fn cubic_weights_follow_the_spline_and_bad_ones_are_skipped() {
        let mut scene = crate::rig::skeleton::tests::rig();
        // One target, zero tangents: the weight rises as 3u^2 - 2u^3 from 0 to 1.
        let cubic = Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node: 4,
            path: ChannelPath::Weights,
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 1.0],
            values: vec![0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            components: 1,
        };
        let short = Channel {
            gltf_path: "animations[0].channels[1]".into(),
            node: 3,
            values: vec![0.0; 5],
            ..cubic.clone()
        };
        scene.animations.push(Animation {
            name: None,
            channels: vec![cubic, short],
        });
        let (clips, warnings) = clip_keyframes(&scene);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].to_string().contains("channels[1]"),
            "{warnings:?}"
        );
        let track = &clips[0].weights[0].track;
        assert!(!track.step);
        assert_eq!(track.keys.len(), WEIGHT_PIECES + 1);
        for (t, w) in &track.keys {
            let exact = 3.0 * t * t - 2.0 * t * t * t;
            assert!((w[0] - exact).abs() < 1e-6, "t {t}: {} vs {exact}", w[0]);
        }
        assert_eq!(clips[0].duration, 1.0);
    }
}
