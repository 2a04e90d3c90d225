//! The one glTF channel sampler every target uses, and node poses at a time.
//!
//! Sampling follows the glTF 2.0 spec, Appendix C: times outside the keys clamp to the
//! first and last key; STEP holds; LINEAR lerps, rotations by shortest-path slerp;
//! CUBICSPLINE evaluates the Hermite spline with the in/out tangents scaled by the key
//! interval, rotations normalised afterwards. Targets that sample poses (BMD1) call
//! [`sample_channel`] / [`node_worlds`]; targets that store keys interpolated linearly
//! (`.hanim`, the Qt timelines) take [`linear_keys`], which are the same curve.

use crate::scene::{Animation, Channel, ChannelPath, Interpolation, Scene};
use glam::{Mat4, Quat, Vec3, Vec4};

/// Allowed distance between a CUBICSPLINE curve and the linear keys that stand for it:
/// this fraction of the channel's range (largest per-axis extent of its key values) for
/// translation and scale, radians for rotation.
pub const CUBIC_TOLERANCE: f32 = 1e-3;
/// Most linear pieces one CUBICSPLINE segment is cut into.
const MAX_PIECES: usize = 64;

/// A channel's keys read as its interpolation lays them out.
struct Curve<'a> {
    channel: &'a Channel,
    width: usize,
    cubic: bool,
    stride: usize,
}

impl<'a> Curve<'a> {
    /// `None` for morph weights and for channels whose components do not fit the path.
    fn new(channel: &'a Channel) -> Option<Self> {
        let width = match channel.path {
            ChannelPath::Translation | ChannelPath::Scale => 3,
            ChannelPath::Rotation => 4,
            ChannelPath::Weights => return None,
        };
        if channel.components != width {
            return None;
        }
        let cubic = channel.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * width } else { width };
        Some(Self {
            channel,
            width,
            cubic,
            stride,
        })
    }

    /// part: 0 in-tangent, 1 value, 2 out-tangent for CUBICSPLINE; values only otherwise.
    fn get(&self, key: usize, part: usize) -> Option<Vec4> {
        let start = key * self.stride + if self.cubic { part * self.width } else { 0 };
        let s = self.channel.values.get(start..start + self.width)?;
        Some(Vec4::new(
            s[0],
            s[1],
            s[2],
            s.get(3).copied().unwrap_or(0.0),
        ))
    }

    fn value(&self, key: usize) -> Option<Vec4> {
        self.get(key, 1)
    }

    /// The raw (not yet normalised) value between keys `k0` and `k0 + 1` at fraction `u`.
    fn segment(&self, k0: usize, u: f32) -> Option<Vec4> {
        let times = &self.channel.times;
        let (t0, t1) = (*times.get(k0)?, *times.get(k0 + 1)?);
        let dt = t1 - t0;
        let (v0, v1) = (self.value(k0)?, self.value(k0 + 1)?);
        Some(match self.channel.interpolation {
            Interpolation::Step => v0,
            Interpolation::Linear if self.channel.path == ChannelPath::Rotation => {
                let q = Quat::from_vec4(v0)
                    .normalize()
                    .slerp(Quat::from_vec4(v1).normalize(), u);
                Vec4::from(q)
            }
            Interpolation::Linear => v0.lerp(v1, u),
            Interpolation::CubicSpline => {
                let (u2, u3) = (u * u, u * u * u);
                let out_tangent = self.get(k0, 2)? * dt;
                let in_tangent = self.get(k0 + 1, 0)? * dt;
                v0 * (2.0 * u3 - 3.0 * u2 + 1.0)
                    + out_tangent * (u3 - 2.0 * u2 + u)
                    + v1 * (-2.0 * u3 + 3.0 * u2)
                    + in_tangent * (u3 - u2)
            }
        })
    }
}

/// The value of `channel` at `time` seconds, clamped to its first and last keys. `None` for
/// morph weights and for channels whose data does not hold what their layout promises.
pub fn sample_channel(channel: &Channel, time: f32) -> Option<Vec4> {
    let curve = Curve::new(channel)?;
    let times = &channel.times;
    let next = times.partition_point(|&t| t <= time);
    if next == 0 {
        return curve.value(0).map(|v| finish(channel.path, v));
    }
    if next >= times.len() {
        return curve
            .value(times.len() - 1)
            .map(|v| finish(channel.path, v));
    }
    let k0 = next - 1;
    let (t0, t1) = (*times.get(k0)?, *times.get(next)?);
    let dt = t1 - t0;
    let u = if dt > 0.0 {
        ((time - t0) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    curve.segment(k0, u).map(|v| finish(channel.path, v))
}

/// Keys of a channel for a target that holds (STEP) or interpolates linearly between keys
/// (lerp, slerp for rotations): the same curve as [`sample_channel`].
#[derive(Debug, Clone, PartialEq)]
pub struct LinearKeys {
    /// Hold each value until the next key (the channel is STEP).
    pub step: bool,
    pub times: Vec<f32>,
    /// xyz for translation and scale (w = 0), xyzw for rotation.
    pub values: Vec<Vec4>,
    /// The channel was CUBICSPLINE, so keys were added between the source keys.
    pub resampled: bool,
}

/// STEP and LINEAR channels: their own keys, values as stored (the caller repairs and
/// normalises). CUBICSPLINE: the spline's value at every key, plus, inside each segment,
/// equally spaced keys (a power of two of pieces, at most 64) until linear playback is
/// within [`CUBIC_TOLERANCE`] of the spline at the middle of every piece. Segments whose
/// times do not increase get no inner keys (the caller drops such keys). `None` when the
/// channel's data does not match its layout.
pub fn linear_keys(channel: &Channel) -> Option<LinearKeys> {
    let curve = Curve::new(channel)?;
    let times = &channel.times;
    if Some(channel.values.len()) != times.len().checked_mul(curve.stride) {
        return None;
    }
    let values: Vec<Vec4> = (0..times.len())
        .map(|k| curve.value(k))
        .collect::<Option<_>>()?;
    if !curve.cubic {
        return Some(LinearKeys {
            step: channel.interpolation == Interpolation::Step,
            times: times.clone(),
            values,
            resampled: false,
        });
    }
    let rotation = channel.path == ChannelPath::Rotation;
    let tolerance = if rotation {
        CUBIC_TOLERANCE
    } else {
        CUBIC_TOLERANCE * value_range(&values)
    };
    let mut out = LinearKeys {
        step: false,
        times: Vec::with_capacity(times.len()),
        values: Vec::with_capacity(times.len()),
        resampled: true,
    };
    for k in 0..times.len() {
        out.times.push(times[k]);
        out.values.push(finish(channel.path, values[k]));
        let Some(&t1) = times.get(k + 1) else { break };
        let t0 = times[k];
        if t1 <= t0 || !t0.is_finite() || !t1.is_finite() {
            continue;
        }
        let at = |u: f32| curve.segment(k, u).map(|v| finish(channel.path, v));
        let pieces = pieces_for(&at, rotation, tolerance)?;
        for i in 1..pieces {
            let u = i as f32 / pieces as f32;
            out.times.push(t0 + (t1 - t0) * u);
            out.values.push(at(u)?);
        }
    }
    Some(out)
}

/// Fewest pieces (1, 2, 4, .. [`MAX_PIECES`]) whose linear playback stays within
/// `tolerance` of `at` at the middle of each piece.
fn pieces_for(at: &dyn Fn(f32) -> Option<Vec4>, rotation: bool, tolerance: f32) -> Option<usize> {
    let mut pieces = 1;
    while pieces < MAX_PIECES {
        let mut worst = 0.0f32;
        for i in 0..pieces {
            let (u0, u1) = (i as f32 / pieces as f32, (i + 1) as f32 / pieces as f32);
            let (a, b, mid) = (at(u0)?, at(u1)?, at(0.5 * (u0 + u1))?);
            let error = if rotation {
                let played = Quat::from_vec4(a).slerp(Quat::from_vec4(b), 0.5);
                rotation_angle(played, Quat::from_vec4(mid))
            } else {
                a.lerp(b, 0.5).distance(mid)
            };
            worst = worst.max(error);
        }
        if worst <= tolerance || worst.is_nan() {
            break;
        }
        pieces *= 2;
    }
    Some(pieces)
}

/// Angle of the rotation taking `a` to `b`, accurate for small angles (acos of the dot
/// product is not).
pub fn rotation_angle(a: Quat, b: Quat) -> f32 {
    let (a, b) = (Vec4::from(a), Vec4::from(b));
    let b = if a.dot(b) < 0.0 { -b } else { b };
    4.0 * ((a - b).length() * 0.5).min(1.0).asin()
}

/// Largest per-axis extent of `values`; 0 when they do not vary or are not finite.
fn value_range(values: &[Vec4]) -> f32 {
    let (lo, hi) = values.iter().fold(
        (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY)),
        |(lo, hi), v| (lo.min(*v), hi.max(*v)),
    );
    let extent = (hi - lo).max_element();
    if extent.is_finite() {
        extent
    } else {
        0.0
    }
}

fn finish(path: ChannelPath, v: Vec4) -> Vec4 {
    if path == ChannelPath::Rotation {
        let q = Quat::from_vec4(v);
        let len = q.length();
        if len > 0.0 && len.is_finite() {
            return Vec4::from(q / len);
        }
        return Vec4::from(Quat::IDENTITY);
    }
    v
}

/// Latest key time over the channels that move nodes; 0 when there is none.
pub fn duration(anim: &Animation) -> f32 {
    anim.channels
        .iter()
        .filter(|c| c.path != ChannelPath::Weights)
        .filter_map(|c| c.times.last().copied())
        .filter(|t| t.is_finite())
        .fold(0.0, f32::max)
}

/// Every node's world matrix at `time` with `anim` applied (rest pose when `anim` is None).
/// Nodes without a channel keep their file matrix, so shear survives where nothing moves.
pub fn node_worlds(scene: &Scene, anim: Option<&Animation>, time: f32) -> Vec<Mat4> {
    let n = scene.nodes.len();
    let mut trs: Vec<Option<(Vec3, Quat, Vec3)>> = vec![None; n];
    for channel in anim.map_or(&[][..], |a| &a.channels[..]) {
        let (Some(node), Some(v)) = (scene.nodes.get(channel.node), sample_channel(channel, time))
        else {
            continue;
        };
        let Some(slot) = trs.get_mut(channel.node) else {
            continue;
        };
        let entry = slot.get_or_insert((node.translation, node.rotation, node.scale));
        match channel.path {
            ChannelPath::Translation => entry.0 = v.truncate(),
            ChannelPath::Rotation => entry.1 = Quat::from_vec4(v),
            ChannelPath::Scale => entry.2 = v.truncate(),
            ChannelPath::Weights => {}
        }
    }
    let local: Vec<Mat4> = scene
        .nodes
        .iter()
        .zip(&trs)
        .map(|(node, t)| match t {
            Some((tr, r, s)) => Mat4::from_scale_rotation_translation(*s, *r, *tr),
            None => node.local_matrix,
        })
        .collect();
    let mut world: Vec<Option<Mat4>> = vec![None; n];
    for start in 0..n {
        // Walk up to the first node already done; the step cap keeps a cyclic graph (which
        // the importer rejects anyway) from looping.
        let mut chain = vec![start];
        let mut at = start;
        while let Some(p) = scene.nodes.get(at).and_then(|node| node.parent) {
            if chain.len() > n || world.get(p).is_some_and(|w| w.is_some()) {
                break;
            }
            chain.push(p);
            at = p;
        }
        for &node in chain.iter().rev() {
            let parent = scene.nodes.get(node).and_then(|x| x.parent);
            let parent_world = parent
                .and_then(|p| world.get(p).copied().flatten())
                .unwrap_or(Mat4::IDENTITY);
            if let (Some(slot), Some(l)) = (world.get_mut(node), local.get(node)) {
                if slot.is_none() {
                    *slot = Some(parent_world * *l);
                }
            }
        }
    }
    world
        .into_iter()
        .map(|w| w.unwrap_or(Mat4::IDENTITY))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(path: ChannelPath, interpolation: Interpolation, values: Vec<f32>) -> Channel {
        let components = if path == ChannelPath::Rotation { 4 } else { 3 };
        let per_key = components
            * if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
        Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node: 0,
            path,
            interpolation,
            times: (0..values.len() / per_key).map(|k| k as f32).collect(),
            values,
            components,
        }
    }

    #[test]
    fn linear_step_and_clamping() {
        let c = channel(
            ChannelPath::Translation,
            Interpolation::Linear,
            vec![0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
        );
        assert_eq!(
            sample_channel(&c, 0.25),
            Some(Vec4::new(0.5, 1.0, 1.5, 0.0))
        );
        assert_eq!(sample_channel(&c, -1.0), Some(Vec4::ZERO));
        assert_eq!(sample_channel(&c, 9.0), Some(Vec4::new(2.0, 4.0, 6.0, 0.0)));
        let s = Channel {
            interpolation: Interpolation::Step,
            ..c
        };
        assert_eq!(sample_channel(&s, 0.99), Some(Vec4::ZERO));
    }

    #[test]
    fn rotation_slerps_at_constant_angular_speed() {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        // Identity to 90 degrees about Z: a quarter of the way is 22.5 degrees.
        let c = channel(
            ChannelPath::Rotation,
            Interpolation::Linear,
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, half, half],
        );
        let q = Quat::from_vec4(sample_channel(&c, 0.25).unwrap());
        let expected = Quat::from_rotation_z(std::f32::consts::FRAC_PI_8);
        assert!(q.angle_between(expected) < 1e-5, "{q:?}");
    }

    #[test]
    fn cubic_spline_hits_keys_and_uses_tangents() {
        // Keys 0 -> 1 with zero tangents: the Hermite basis gives 3u^2 - 2u^3.
        let mut values = vec![0.0; 18];
        values[12..15].copy_from_slice(&[1.0, 1.0, 1.0]);
        let c = channel(ChannelPath::Scale, Interpolation::CubicSpline, values);
        let v = sample_channel(&c, 0.25).unwrap();
        let expected = 3.0 * 0.0625 - 2.0 * 0.015625;
        assert!((v.x - expected).abs() < 1e-6, "{v}");
        assert_eq!(sample_channel(&c, 1.0).unwrap().x, 1.0);
    }

    #[test]
    fn short_value_arrays_give_none_not_a_panic() {
        let mut c = channel(
            ChannelPath::Translation,
            Interpolation::Linear,
            vec![0.0; 6],
        );
        c.values.truncate(4);
        assert_eq!(sample_channel(&c, 0.5), None);
    }
}
