//! Samples glTF animation channels straight from the [`Scene`] (STEP, LINEAR with slerp for
//! rotations, CUBICSPLINE) and evaluates node world matrices at a time. Kept here, small,
//! because the BMD1 target needs only "pose of every node at time t".

use crate::scene::{Animation, Channel, ChannelPath, Interpolation, Scene};
use glam::{Mat4, Quat, Vec3, Vec4};

/// The value of `channel` at `time` seconds, clamped to its first and last keys. `None` for
/// morph weights and for channels whose data does not hold what their layout promises.
pub(crate) fn sample_channel(channel: &Channel, time: f32) -> Option<Vec4> {
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
    // part: 0 in-tangent, 1 value, 2 out-tangent for CUBICSPLINE; values only otherwise.
    let get = |key: usize, part: usize| -> Option<Vec4> {
        let start = key * stride + if cubic { part * width } else { 0 };
        let s = channel.values.get(start..start + width)?;
        Some(Vec4::new(
            s[0],
            s[1],
            s[2],
            s.get(3).copied().unwrap_or(0.0),
        ))
    };
    let times = &channel.times;
    let next = times.partition_point(|&t| t <= time);
    let value = |key| get(key, 1);
    if next == 0 {
        return value(0).map(|v| finish(channel.path, v));
    }
    if next >= times.len() {
        return value(times.len() - 1).map(|v| finish(channel.path, v));
    }
    let (k0, k1) = (next - 1, next);
    let (t0, t1) = (*times.get(k0)?, *times.get(k1)?);
    let dt = t1 - t0;
    let u = if dt > 0.0 {
        ((time - t0) / dt).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (v0, v1) = (value(k0)?, value(k1)?);
    let out = match channel.interpolation {
        Interpolation::Step => v0,
        Interpolation::Linear if channel.path == ChannelPath::Rotation => {
            let q = Quat::from_vec4(v0)
                .normalize()
                .slerp(Quat::from_vec4(v1).normalize(), u);
            Vec4::from(q)
        }
        Interpolation::Linear => v0.lerp(v1, u),
        Interpolation::CubicSpline => {
            let (u2, u3) = (u * u, u * u * u);
            let out_tangent = get(k0, 2)? * dt;
            let in_tangent = get(k1, 0)? * dt;
            v0 * (2.0 * u3 - 3.0 * u2 + 1.0)
                + out_tangent * (u3 - 2.0 * u2 + u)
                + v1 * (-2.0 * u3 + 3.0 * u2)
                + in_tangent * (u3 - u2)
        }
    };
    Some(finish(channel.path, out))
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
pub(crate) fn duration(anim: &Animation) -> f32 {
    anim.channels
        .iter()
        .filter(|c| c.path != ChannelPath::Weights)
        .filter_map(|c| c.times.last().copied())
        .filter(|t| t.is_finite())
        .fold(0.0, f32::max)
}

/// Every node's world matrix at `time` with `anim` applied (rest pose when `anim` is None).
/// Nodes without a channel keep their file matrix, so shear survives where nothing moves.
pub(crate) fn node_worlds(scene: &Scene, anim: Option<&Animation>, time: f32) -> Vec<Mat4> {
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
