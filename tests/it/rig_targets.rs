//! One source, every animated target: a CUBICSPLINE clip plays the same from `.hanim` and
//! from BMD1, and both follow the curve the glTF spec defines; clips whose keys start
//! below zero are shifted to 0 with one warning.
//!
//! The source is `samples::skinned_clips` (documented there): a three-joint chain whose
//! `wave` clip is CUBICSPLINE with tangents that move the joints away from the key values
//! (the `knee` keys are all equal, yet the spline moves it 0.5 sideways at 0.5 s), so a
//! target that played the key values linearly would fail here.

use assetc::formats::bmd1::{self, BoneKind};
use assetc::formats::hanim::{self, AnimInterp, AnimPath, Clip};
use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::MeshSettings;
use assetc::rig::hanim::{build_hanim, AnimationSettings};
use assetc::rig::keyframes::clip_keyframes;
use assetc::rig::skeleton::build_skeleton;
use assetc::scene::Scene;
use assetc::targets::bmd1::{build_bmd1, Bmd1Compat, Bmd1Settings};
use glam::{Mat4, Quat, Vec3, Vec4};

fn source() -> (tempfile::TempDir, Scene) {
    let dir = tempfile::tempdir().unwrap();
    assetc::samples::skinned_clips(dir.path()).unwrap();
    let scene = import_gltf(
        &dir.path().join("skinned_clips.gltf"),
        "skinned_clips",
        &ImportOptions::new(dir.path()),
    )
    .unwrap();
    (dir, scene)
}

/// The spec's Hermite spline for one segment, tangents already scaled by the interval.
fn hermite(v0: Vec4, m0: Vec4, v1: Vec4, m1: Vec4, u: f32) -> Vec4 {
    let (u2, u3) = (u * u, u * u * u);
    v0 * (2.0 * u3 - 3.0 * u2 + 1.0)
        + m0 * (u3 - 2.0 * u2 + u)
        + v1 * (-2.0 * u3 + 3.0 * u2)
        + m1 * (u3 - u2)
}

/// The `wave` clip's hip rotation and knee translation at `t`, computed here from the
/// numbers the sample writes (keys at 0, 1, 2 s).
fn wave_locals(t: f32) -> (Quat, Vec3) {
    let (s, c) = (0.3f32.sin(), 0.3f32.cos());
    let k = if t < 1.0 { 0 } else { 1 };
    let u = (t - k as f32).clamp(0.0, 1.0);
    let rot_keys = [Vec4::W, Vec4::new(0.0, 0.0, s, c), Vec4::W];
    let rot_out = [Vec4::new(0.0, 0.0, 0.9, 0.0), Vec4::ZERO, Vec4::ZERO];
    let rot_in = [Vec4::ZERO, Vec4::ZERO, Vec4::new(0.0, 0.0, -0.9, 0.0)];
    let hip = Quat::from_vec4(hermite(
        rot_keys[k],
        rot_out[k],
        rot_keys[k + 1],
        rot_in[k + 1],
        u,
    ))
    .normalize();
    let knee_out = [Vec4::new(4.0, 0.0, 0.0, 0.0), Vec4::ZERO];
    let knee_in = [Vec4::ZERO, Vec4::new(4.0, 0.0, 0.0, 0.0)];
    let knee = hermite(Vec4::Y, knee_out[k], Vec4::Y, knee_in[k], u).truncate();
    (hip, knee)
}

/// Skinning matrices (world * inverse bind) of hip, knee and foot in `wave` at `t`.
fn reference(t: f32) -> [Mat4; 3] {
    let (hip, knee) = wave_locals(t);
    let hip_w = Mat4::from_quat(hip);
    let knee_w = hip_w * Mat4::from_translation(knee);
    let foot_w = knee_w * Mat4::from_translation(Vec3::Y);
    [
        hip_w,
        knee_w * Mat4::from_translation(-Vec3::Y),
        foot_w * Mat4::from_translation(-2.0 * Vec3::Y),
    ]
}

/// What a `.hanim` runtime computes: SKEL bind TRS overridden by the clip's channels
/// (lerp / slerp between keys), composed up the parents, times the inverse bind.
fn hanim_skinning(joints: &[assetc::formats::hmesh::GpuJoint], clip: &Clip, t: f32) -> Vec<Mat4> {
    let mut trs: Vec<(Vec3, Quat, Vec3)> = joints
        .iter()
        .map(|j| (j.bind_t.into(), Quat::from_array(j.bind_r), j.bind_s.into()))
        .collect();
    for ch in &clip.channels {
        assert_eq!(ch.interp, AnimInterp::Linear);
        let keys = &ch.keys;
        let last = keys[keys.len() - 1];
        let v = if t <= keys[0].time {
            keys[0].value
        } else if t >= last.time {
            last.value
        } else {
            let i = keys.partition_point(|k| k.time <= t);
            let (a, b) = (keys[i - 1], keys[i]);
            let u = (t - a.time) / (b.time - a.time);
            match ch.path {
                AnimPath::Rotation => Quat::from_array(a.value)
                    .slerp(Quat::from_array(b.value), u)
                    .to_array(),
                _ => Vec4::from(a.value).lerp(Vec4::from(b.value), u).to_array(),
            }
        };
        let slot = &mut trs[ch.joint as usize];
        match ch.path {
            AnimPath::Rotation => slot.1 = Quat::from_array(v),
            AnimPath::Translation => slot.0 = Vec4::from(v).truncate(),
            AnimPath::Scale => slot.2 = Vec4::from(v).truncate(),
        }
    }
    let local: Vec<Mat4> = trs
        .iter()
        .map(|&(t, r, s)| Mat4::from_scale_rotation_translation(s, r, t))
        .collect();
    (0..joints.len())
        .map(|j| {
            let mut m = local[j];
            let mut p = joints[j].parent;
            while p >= 0 {
                m = local[p as usize] * m;
                p = joints[p as usize].parent;
            }
            m * Mat4::from_cols_array(&joints[j].inverse_bind)
        })
        .collect()
}

/// What a BMD1 runtime computes for bone `b` at frame `f`: the decoded pose times the
/// inverse of the decoded bind pose (vertices are stored in their bone's space).
fn bmd1_skinning(m: &bmd1::Bmd1, anim: &bmd1::Animation, frame: f32) -> Vec<Mat4> {
    let locals = bmd1::sample_pose(&m.bones, anim, frame);
    let (mut pose, mut bind): (Vec<Mat4>, Vec<Mat4>) = (Vec::new(), Vec::new());
    for (b, bone) in m.bones.iter().enumerate() {
        let BoneKind::Normal {
            parent,
            rotation,
            origin,
        } = bone.kind
        else {
            panic!("the target writes no pseudo-bones");
        };
        let l = locals[b];
        let local = Mat4::from_scale_rotation_translation(
            l.scale.into(),
            Quat::from_array(l.rotation),
            l.translation.into(),
        );
        let rest = if b == 0 {
            Mat4::IDENTITY
        } else {
            Mat4::from_rotation_translation(Quat::from_array(rotation).normalize(), origin.into())
        };
        let p = usize::from(parent);
        let (parent_pose, parent_bind) = if b == 0 {
            (Mat4::IDENTITY, Mat4::IDENTITY)
        } else {
            (pose[p], bind[p])
        };
        pose.push(parent_pose * local);
        bind.push(parent_bind * rest);
    }
    pose.iter()
        .zip(&bind)
        .map(|(p, b)| *p * b.inverse())
        .collect()
}

/// The ribbon's vertices (bind space) with the joint (0 hip, 1 knee, 2 foot) each follows.
fn ribbon() -> Vec<(Vec3, usize)> {
    (0..4)
        .flat_map(|level| [-0.1f32, 0.1].map(|x| (Vec3::new(x, level as f32, 0.0), level.min(2))))
        .collect()
}

#[test]
fn cubic_spline_clip_plays_the_same_from_hanim_and_bmd1() {
    let (_dir, scene) = source();
    let (skeleton, _) = build_skeleton(&scene).unwrap().unwrap();
    let (anim, warnings) = build_hanim(&scene, &skeleton, &AnimationSettings::default()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let anim = hanim::read(&hanim::write(&anim).unwrap()).unwrap();
    let wave = anim.clips.iter().find(|c| c.name == "wave").unwrap();
    assert_eq!(wave.duration, 2.0);

    let out = build_bmd1(&scene, &spec_bmd1(), &MeshSettings::default()).unwrap();
    let m = bmd1::read(&out.files[0].bytes).unwrap();
    let bone_of = |name: &str| {
        m.bones
            .iter()
            .position(|b| b.name.as_deref() == Some(name))
            .unwrap()
    };
    let bones = [bone_of("hip"), bone_of("knee"), bone_of("foot")];
    let clip = m.animations.iter().find(|a| a.name == "wave").unwrap();
    let hz = f32::from(clip.rate_quarter_hz) / 4.0;
    assert_eq!(hz, 30.0);

    // Precision of each target:
    // - .hanim: keys within 1e-3 rad (rotation) and 1e-3 of the channel's range
    //   (translation, range 1) of the spline; the hip's rotation error swings points up
    //   to 3 away, so 3e-3 + 1e-3, doubled for f32 slack: 8e-3.
    // - BMD1 (reasoned in tests/it/bmd1_target.rs; bones are fitted against their decoded
    //   parents, so errors do not add up the chain): a bone's rotation within 0.1 rad
    //   applied to the point's distance from its bone, plus the position bound (1/1024 of
    //   the ribbon's 3-unit extent), packed-XYZ rounding (1/256 of the largest bone
    //   origin, 1) and f32 slack.
    let hanim_tol = 8e-3;
    let joint_origin = |j: usize| Vec3::new(0.0, j as f32, 0.0);
    let bmd1_tol =
        |p: Vec3, j: usize| 0.1 * p.distance(joint_origin(j)) + 3.0 / 1024.0 + 1.0 / 256.0 + 3e-4;
    let mut worst = (0.0f32, 0.0f32);
    // How far the spline takes the knee from where linear key values would keep it.
    let mut largest_motion = 0.0f32;
    for frame in 0..usize::from(clip.frame_count) {
        let t = frame as f32 / hz;
        let want = reference(t);
        let h = hanim_skinning(&skeleton.joints, wave, t);
        let b = bmd1_skinning(&m, clip, frame as f32);
        for (p, j) in ribbon() {
            let exact = want[j].transform_point3(p);
            let from_hanim = h[j].transform_point3(p);
            let from_bmd1 = b[bones[j]].transform_point3(p);
            worst.0 = worst.0.max(from_hanim.distance(exact));
            worst.1 = worst.1.max(from_bmd1.distance(exact));
            assert!(
                from_hanim.distance(exact) <= hanim_tol,
                "t={t} joint {j}: .hanim {from_hanim} vs spline {exact}"
            );
            assert!(
                from_bmd1.distance(exact) <= bmd1_tol(p, j),
                "t={t} joint {j}: BMD1 {from_bmd1} vs spline {exact}"
            );
            assert!(
                from_hanim.distance(from_bmd1) <= hanim_tol + bmd1_tol(p, j),
                "t={t} joint {j}: .hanim {from_hanim} vs BMD1 {from_bmd1}"
            );
            if j == 1 {
                // Linear through the key values keeps the knee at (0, 1, 0) in the hip's
                // frame: its vertices where the hip's skinning matrix puts them.
                largest_motion = largest_motion.max(exact.distance(want[0].transform_point3(p)));
            }
        }
    }
    println!("worst .hanim {} BMD1 {} (model units)", worst.0, worst.1);
    // The spline's knee offset peaks at 16/27 (u = 1/3, frame 10).
    assert!(
        largest_motion > 0.5,
        "the tangents must move the knee well beyond both tolerances: {largest_motion}"
    );
}

#[test]
fn node_keyframes_carry_the_same_spline() {
    let (_dir, scene) = source();
    let (clips, warnings) = clip_keyframes(&scene);
    assert!(warnings.is_empty(), "{warnings:?}");
    let wave = clips.iter().find(|c| c.name == "wave").unwrap();
    let knee = wave.nodes.iter().find(|n| n.node == 2).unwrap();
    let track = knee.translation.as_ref().unwrap();
    assert!(!track.step);
    // The spline at the keys of this track, and linear playback between them, within the
    // 1e-3 tolerance of the range (1).
    for i in 0..=200 {
        let t = i as f32 / 100.0;
        let k = track
            .keys
            .partition_point(|k| k.0 <= t)
            .clamp(1, track.keys.len() - 1);
        let ((t0, a), (t1, b)) = (track.keys[k - 1], track.keys[k]);
        let played = a.lerp(b, ((t - t0) / (t1 - t0)).clamp(0.0, 1.0));
        let exact = wave_locals(t).1;
        assert!(
            played.distance(exact) <= 1e-3 + 1e-5,
            "t={t}: {played} vs {exact}"
        );
    }
}

#[test]
fn clips_starting_below_zero_are_shifted_with_one_warning() {
    let (_dir, scene) = source();
    let shifted: Vec<&assetc::code::Warning> = scene
        .warnings
        .iter()
        .filter(|w| w.message.contains("below zero"))
        .collect();
    assert_eq!(shifted.len(), 1, "{:?}", scene.warnings);
    assert!(
        shifted[0].message.contains("animations[1] by 0.5"),
        "{}",
        shifted[0]
    );
    let late = &scene.animations[1];
    // The earliest key (-0.5) moves to 0 and the other channel keeps its offset.
    assert_eq!(late.channels[0].times, [0.0, 1.0]);
    assert_eq!(late.channels[1].times, [0.25, 1.25]);
    assert_eq!(scene.animations[0].channels[0].times, [0.0, 1.0, 2.0]);

    // Both targets keep the clip.
    let (skeleton, _) = build_skeleton(&scene).unwrap().unwrap();
    let (anim, warnings) = build_hanim(&scene, &skeleton, &AnimationSettings::default()).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let late = anim.clips.iter().find(|c| c.name == "late").unwrap();
    assert_eq!(late.duration, 1.25);
    assert_eq!(late.channels.len(), 2);
    let out = build_bmd1(&scene, &spec_bmd1(), &MeshSettings::default()).unwrap();
    let m = bmd1::read(&out.files[0].bytes).unwrap();
    let clip = m.animations.iter().find(|a| a.name == "late").unwrap();
    // 1.25 s at 30 Hz: round(37.5) + 1 = 39 frames; the end pose differs from the start,
    // so the last frame is kept.
    assert_eq!(clip.frame_count, 39);
}

/// BMD1 as the seed reads it: these tests compare the sampler, not the loader workarounds
/// (`compat = "loader"` adds a held frame; tests/it/bmd1_loader.rs checks those files).
fn spec_bmd1() -> Bmd1Settings {
    Bmd1Settings {
        compat: Bmd1Compat::Spec,
        ..Bmd1Settings::default()
    }
}
