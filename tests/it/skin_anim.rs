//! Skinning and animation against the glTF data itself, over every skinned or animated
//! corpus file.
//!
//! The reference side reads the file with the `gltf` crate and evaluates it as the glTF
//! spec says (node TRS, channel sampling, `sum w * world(joint) * inverseBind * v`),
//! independently of assetc's importer and stages. The exported side is what assetc
//! writes: SKEL rows, SKIN influences and the `.hanim` bytes (written and read back),
//! evaluated the way a runtime would (local TRS up the SKEL parent chain).
//!
//! CUBICSPLINE is evaluated on the reference side as the glTF spec defines it (Hermite
//! spline, tangents scaled by the key interval, rotations normalised), which is the curve
//! every target stores.

use crate::common;

use assetc::formats::hanim::{self, AnimInterp, AnimPath, Clip};
use assetc::formats::hmesh::GpuJoint;
use assetc::import::{import_gltf, ImportOptions};
use assetc::rig::hanim::{build_hanim, warn_without_skeleton, AnimationSettings};
use assetc::rig::skeleton::{build_skeleton, skin_primitive, Skeleton};
use assetc::scene::{self as sc, Scene};
use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::animation::util::ReadOutputs;
use gltf::animation::Interpolation;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus("skin_anim")
}

struct Gltf {
    doc: gltf::Document,
    buffers: Vec<Vec<u8>>,
}

fn load(path: &Path) -> Gltf {
    let bytes = std::fs::read(path).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).unwrap();
    let mut buffers = Vec::new();
    for b in g.document.buffers() {
        let data = match b.source() {
            gltf::buffer::Source::Bin => g.blob.clone().unwrap(),
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                use base64::Engine;
                let payload = &uri[uri.find(',').unwrap() + 1..];
                base64::engine::general_purpose::STANDARD
                    .decode(payload)
                    .unwrap()
            }
            gltf::buffer::Source::Uri(uri) => {
                std::fs::read(path.parent().unwrap().join(uri)).unwrap()
            }
        };
        buffers.push(data);
    }
    Gltf {
        doc: g.document,
        buffers,
    }
}

fn skinned_or_animated_files(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root.join("gltf"))
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| e.into_path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("gltf") | Some("glb")
            )
        })
        .filter(|p| {
            std::fs::read(p)
                .ok()
                .and_then(|b| gltf::Gltf::from_slice(&b).ok())
                .is_some_and(|g| g.skins().len() > 0 || g.animations().len() > 0)
        })
        .collect();
    out.sort();
    out
}

/// One sampled channel of the reference: key times and values (xyzw for rotations);
/// for CUBICSPLINE, `values` holds (in-tangent, value, out-tangent) per key.
struct RefChannel {
    node: usize,
    path: AnimPath,
    interp: AnimInterp,
    cubic: bool,
    times: Vec<f32>,
    values: Vec<[f32; 4]>,
}

fn reference_channels(g: &Gltf, animation: &gltf::Animation) -> Vec<RefChannel> {
    let mut out = Vec::new();
    for ch in animation.channels() {
        let reader = ch.reader(|b| Some(&g.buffers[b.index()]));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let (path, values): (AnimPath, Vec<[f32; 4]>) = match reader.read_outputs().unwrap() {
            ReadOutputs::Translations(it) => (
                AnimPath::Translation,
                it.map(|v| [v[0], v[1], v[2], 0.0]).collect(),
            ),
            ReadOutputs::Scales(it) => (
                AnimPath::Scale,
                it.map(|v| [v[0], v[1], v[2], 0.0]).collect(),
            ),
            ReadOutputs::Rotations(it) => (AnimPath::Rotation, it.into_f32().collect()),
            ReadOutputs::MorphTargetWeights(_) => continue,
        };
        let (interp, cubic) = match ch.sampler().interpolation() {
            Interpolation::Step => (AnimInterp::Step, false),
            Interpolation::Linear => (AnimInterp::Linear, false),
            Interpolation::CubicSpline => (AnimInterp::Linear, true),
        };
        assert_eq!(times.len() * if cubic { 3 } else { 1 }, values.len());
        out.push(RefChannel {
            node: ch.target().node().index(),
            path,
            interp,
            cubic,
            times,
            values,
        });
    }
    out
}

/// glTF sampling: clamp outside the keys, hold for STEP, lerp / shortest-path slerp.
fn sample(
    times: &[f32],
    values: &[[f32; 4]],
    interp: AnimInterp,
    path: AnimPath,
    t: f32,
) -> [f32; 4] {
    let n = times.len();
    if t <= times[0] || n == 1 {
        return values[0];
    }
    if t >= times[n - 1] {
        return values[n - 1];
    }
    let k = times.partition_point(|&x| x <= t) - 1;
    if interp == AnimInterp::Step {
        return values[k];
    }
    let u = (t - times[k]) / (times[k + 1] - times[k]);
    match path {
        AnimPath::Rotation => {
            let a = Quat::from_array(values[k]).normalize();
            let b = Quat::from_array(values[k + 1]).normalize();
            a.slerp(b, u).normalize().to_array()
        }
        _ => Vec4::from_array(values[k])
            .lerp(Vec4::from_array(values[k + 1]), u)
            .to_array(),
    }
}

/// glTF CUBICSPLINE sampling (spec Appendix C): clamp outside the keys, Hermite
/// spline inside with tangents times the key interval; rotations normalised.
fn sample_cubic(times: &[f32], triples: &[[f32; 4]], path: AnimPath, t: f32) -> [f32; 4] {
    let n = times.len();
    let value = |k: usize| Vec4::from_array(triples[3 * k + 1]);
    let out = if t <= times[0] || n == 1 {
        value(0)
    } else if t >= times[n - 1] {
        value(n - 1)
    } else {
        let k = times.partition_point(|&x| x <= t) - 1;
        let dt = times[k + 1] - times[k];
        let u = (t - times[k]) / dt;
        let (u2, u3) = (u * u, u * u * u);
        value(k) * (2.0 * u3 - 3.0 * u2 + 1.0)
            + Vec4::from_array(triples[3 * k + 2]) * dt * (u3 - 2.0 * u2 + u)
            + value(k + 1) * (-2.0 * u3 + 3.0 * u2)
            + Vec4::from_array(triples[3 * (k + 1)]) * dt * (u3 - u2)
    };
    match path {
        AnimPath::Rotation => out.normalize().to_array(),
        _ => out.to_array(),
    }
}

type Trs = (Vec3, Quat, Vec3);
/// A clip (None = rest pose), the reference channels of its animation, and a time.
type Pose<'a> = (Option<&'a Clip>, Option<Vec<RefChannel>>, f32);

fn trs_matrix((t, r, s): Trs) -> Mat4 {
    Mat4::from_scale_rotation_translation(s, r, t)
}

fn set(trs: &mut Trs, path: AnimPath, v: [f32; 4]) {
    match path {
        AnimPath::Translation => trs.0 = Vec3::new(v[0], v[1], v[2]),
        AnimPath::Rotation => trs.1 = Quat::from_array(v).normalize(),
        AnimPath::Scale => trs.2 = Vec3::new(v[0], v[1], v[2]),
    }
}

/// World matrix of every node with the animation applied at `t` (None = rest pose).
fn reference_world(g: &Gltf, channels: Option<&[RefChannel]>, t: f32) -> Vec<Mat4> {
    let mut local: Vec<Mat4> = g
        .doc
        .nodes()
        .map(|n| match n.transform() {
            gltf::scene::Transform::Matrix { matrix } => Mat4::from_cols_array_2d(&matrix),
            gltf::scene::Transform::Decomposed {
                translation,
                rotation,
                scale,
            } => trs_matrix((
                Vec3::from(translation),
                Quat::from_array(rotation),
                Vec3::from(scale),
            )),
        })
        .collect();
    if let Some(channels) = channels {
        let mut trs: Vec<Trs> = g
            .doc
            .nodes()
            .map(|n| {
                let (t, r, s) = n.transform().decomposed();
                (Vec3::from(t), Quat::from_array(r), Vec3::from(s))
            })
            .collect();
        for c in channels {
            let v = if c.cubic {
                sample_cubic(&c.times, &c.values, c.path, t)
            } else {
                sample(&c.times, &c.values, c.interp, c.path, t)
            };
            set(&mut trs[c.node], c.path, v);
            local[c.node] = trs_matrix(trs[c.node]);
        }
    }
    let mut world = vec![Mat4::IDENTITY; local.len()];
    fn visit(n: gltf::Node, parent: Mat4, local: &[Mat4], world: &mut [Mat4]) {
        world[n.index()] = parent * local[n.index()];
        for c in n.children() {
            visit(c, world[n.index()], local, world);
        }
    }
    let scene = g
        .doc
        .default_scene()
        .or_else(|| g.doc.scenes().next())
        .unwrap();
    for n in scene.nodes() {
        visit(n, Mat4::IDENTITY, &local, &mut world);
    }
    world
}

/// Runtime evaluation of the export: SKEL bind TRS overridden by the clip's channels,
/// composed up the parent chain.
fn runtime_globals(joints: &[GpuJoint], clip: Option<&Clip>, t: f32) -> Vec<Mat4> {
    let mut trs: Vec<Trs> = joints
        .iter()
        .map(|j| {
            (
                Vec3::from_array(j.bind_t),
                Quat::from_array(j.bind_r),
                Vec3::from_array(j.bind_s),
            )
        })
        .collect();
    if let Some(clip) = clip {
        for ch in &clip.channels {
            let times: Vec<f32> = ch.keys.iter().map(|k| k.time).collect();
            let values: Vec<[f32; 4]> = ch.keys.iter().map(|k| k.value).collect();
            let v = sample(&times, &values, ch.interp, ch.path, t);
            set(&mut trs[ch.joint as usize], ch.path, v);
        }
    }
    (0..joints.len())
        .map(|mut j| {
            let mut m = trs_matrix(trs[j]);
            let mut guard = 0;
            while joints[j].parent >= 0 {
                j = joints[j].parent as usize;
                m = trs_matrix(trs[j]) * m;
                guard += 1;
                assert!(guard <= joints.len(), "parent cycle in SKEL");
            }
            m
        })
        .collect()
}

fn close(a: Vec3, b: Vec3, scale: f32) -> bool {
    (a - b).length() <= 2e-4 * scale.max(1.0)
}

/// Sample times: a dense grid over the clip plus every key time and points just
/// before and after each key (where STEP jumps).
fn sample_times(refs: &[RefChannel], duration: f32) -> Vec<f32> {
    let mut out: Vec<f32> = (0..=97).map(|i| duration * i as f32 / 97.0).collect();
    for c in refs {
        for &t in &c.times {
            out.extend([
                t,
                t + 1e-3 * duration.max(1e-3),
                (t - 1e-3 * duration.max(1e-3)).max(0.0),
            ]);
        }
    }
    out
}

/// What one file yields for both checks.
struct Export {
    skeleton: Skeleton,
    clips: hanim::HAnim,
}

/// Where the tests get their [`Scene`]: assetc's importer, or a minimal conversion
/// written here (nodes, skins, skinning attributes, animations) so that the stages can be
/// checked on real data independently of the importer.
#[derive(Clone, Copy)]
enum SceneSource {
    Importer,
    TestConversion,
}

fn scene_of(path: &Path, g: &Gltf, source: SceneSource) -> Scene {
    match source {
        SceneSource::Importer => import_gltf(path, "test/asset", &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        SceneSource::TestConversion => convert(g),
    }
}

fn convert(g: &Gltf) -> Scene {
    let buf = |b: gltf::Buffer| Some(&g.buffers[b.index()][..]);
    let mut nodes: Vec<sc::Node> = g
        .doc
        .nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            sc::Node {
                name: n.name().map(str::to_string),
                parent: None,
                children: n.children().map(|c| c.index()).collect(),
                translation: Vec3::from(t),
                rotation: Quat::from_array(r),
                scale: Vec3::from(s),
                local_matrix: Mat4::from_cols_array_2d(&n.transform().matrix()),
                world_matrix: Mat4::IDENTITY,
                mesh: n.mesh().map(|m| m.index()),
                skin: n.skin().map(|s| s.index()),
                in_scene: false,
            }
        })
        .collect();
    for i in 0..nodes.len() {
        for c in nodes[i].children.clone() {
            nodes[c].parent = Some(i);
        }
    }
    let world = reference_world(g, None, 0.0);
    let scene_def = g
        .doc
        .default_scene()
        .or_else(|| g.doc.scenes().next())
        .unwrap();
    let roots: Vec<usize> = scene_def.nodes().map(|n| n.index()).collect();
    let mut stack = roots.clone();
    while let Some(n) = stack.pop() {
        nodes[n].in_scene = true;
        nodes[n].world_matrix = world[n];
        stack.extend(nodes[n].children.iter().copied());
    }
    let meshes = g
        .doc
        .meshes()
        .map(|m| sc::Mesh {
            name: None,
            primitives: m
                .primitives()
                .map(|p| {
                    let r = p.reader(buf);
                    let positions: Vec<[f32; 3]> = r.read_positions().unwrap().collect();
                    let (mut joints, mut weights) = (Vec::new(), Vec::new());
                    let mut set = 0;
                    while let (Some(j), Some(w)) = (r.read_joints(set), r.read_weights(set)) {
                        joints.push(j.into_u16().collect());
                        weights.push(w.into_f32().collect());
                        set += 1;
                    }
                    sc::Primitive {
                        gltf_path: format!("meshes[{}].primitives[{}]", m.index(), p.index()),
                        indices: (0..positions.len() as u32).collect(),
                        positions,
                        joints,
                        weights,
                        ..Default::default()
                    }
                })
                .collect(),
        })
        .collect();
    let skins = g
        .doc
        .skins()
        .map(|s| {
            let joints: Vec<usize> = s.joints().map(|j| j.index()).collect();
            let ibms = match s.reader(buf).read_inverse_bind_matrices() {
                Some(it) => it.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
                None => vec![Mat4::IDENTITY; joints.len()],
            };
            sc::Skin {
                gltf_path: format!("skins[{}]", s.index()),
                name: s.name().map(str::to_string),
                joints,
                inverse_bind_matrices: ibms,
                skeleton: s.skeleton().map(|n| n.index()),
            }
        })
        .collect();
    let animations = g
        .doc
        .animations()
        .map(|a| sc::Animation {
            name: a.name().map(str::to_string),
            channels: a
                .channels()
                .map(|c| {
                    let r = c.reader(buf);
                    let times: Vec<f32> = r.read_inputs().unwrap().collect();
                    let (path, components, values): (sc::ChannelPath, usize, Vec<f32>) =
                        match r.read_outputs().unwrap() {
                            ReadOutputs::Translations(it) => {
                                (sc::ChannelPath::Translation, 3, it.flatten().collect())
                            }
                            ReadOutputs::Scales(it) => {
                                (sc::ChannelPath::Scale, 3, it.flatten().collect())
                            }
                            ReadOutputs::Rotations(it) => (
                                sc::ChannelPath::Rotation,
                                4,
                                it.into_f32().flatten().collect(),
                            ),
                            ReadOutputs::MorphTargetWeights(it) => {
                                let v: Vec<f32> = it.into_f32().collect();
                                let n = v.len() / times.len().max(1);
                                (sc::ChannelPath::Weights, n, v)
                            }
                        };
                    sc::Channel {
                        gltf_path: format!("animations[{}].channels[{}]", a.index(), c.index()),
                        node: c.target().node().index(),
                        path,
                        interpolation: match c.sampler().interpolation() {
                            Interpolation::Step => sc::Interpolation::Step,
                            Interpolation::Linear => sc::Interpolation::Linear,
                            Interpolation::CubicSpline => sc::Interpolation::CubicSpline,
                        },
                        times,
                        values,
                        components,
                    }
                })
                .collect(),
        })
        .collect();
    Scene {
        source_ref: "test/asset".into(),
        meshes,
        nodes,
        roots,
        skins,
        animations,
        ..Default::default()
    }
}

fn export(path: &Path, g: &Gltf, source: SceneSource) -> Option<(Scene, Export)> {
    let scene = scene_of(path, g, source);
    let Some((skeleton, _)) = build_skeleton(&scene).unwrap() else {
        if !scene.animations.is_empty() {
            assert!(!warn_without_skeleton(&scene).is_empty());
        }
        return None;
    };
    let (anim, _warnings) = build_hanim(&scene, &skeleton, &AnimationSettings::default()).unwrap();
    let bytes = hanim::write(&anim).unwrap();
    let problems = hanim::validate(&bytes, Some(skeleton.joints.len() as u32));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    let clips = hanim::read(&bytes).unwrap();
    Some((scene, Export { skeleton, clips }))
}

fn clip_for<'a>(clips: &'a hanim::HAnim, animation: &gltf::Animation) -> Option<&'a Clip> {
    let name = match animation.name() {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => format!("animation_{}", animation.index()),
    };
    clips.clips.iter().find(|c| c.name == name)
}

/// Scale of the rig, for tolerances: the largest joint distance from the origin.
fn rig_scale(g: &Gltf) -> f32 {
    reference_world(g, None, 0.0)
        .iter()
        .map(|m| m.w_axis.truncate().length())
        .fold(1.0, f32::max)
}

#[test]
fn clips_reproduce_the_gltf_joint_transforms_with_test_scene() {
    clips_reproduce_the_gltf_joint_transforms(SceneSource::TestConversion);
}

#[test]
fn clips_reproduce_the_gltf_joint_transforms_with_importer() {
    clips_reproduce_the_gltf_joint_transforms(SceneSource::Importer);
}

#[test]
fn skinned_vertices_match_the_gltf_pose_with_test_scene() {
    skinned_vertices_match_the_gltf_pose(SceneSource::TestConversion);
}

#[test]
fn skinned_vertices_match_the_gltf_pose_with_importer() {
    skinned_vertices_match_the_gltf_pose(SceneSource::Importer);
}

fn clips_reproduce_the_gltf_joint_transforms(source: SceneSource) {
    let Some(root) = corpus() else {
        return;
    };
    let mut checked = 0;
    for path in skinned_or_animated_files(&root) {
        let g = load(&path);
        let Some((_, ex)) = export(&path, &g, source) else {
            continue;
        };
        let scale = rig_scale(&g);
        let joint_nodes = &ex.skeleton.joint_nodes;
        // Rest pose first: SKEL alone must give the glTF world matrices.
        let world = reference_world(&g, None, 0.0);
        let rest = runtime_globals(&ex.skeleton.joints, None, 0.0);
        for (j, &n) in joint_nodes.iter().enumerate() {
            assert!(
                rest[j].abs_diff_eq(world[n], 2e-4 * scale),
                "{}: rest joint {j}",
                path.display()
            );
        }
        let mut expected_clips = 0;
        for animation in g.doc.animations() {
            let refs = reference_channels(&g, &animation);
            if !refs.iter().any(|c| joint_nodes.contains(&c.node)) {
                assert!(clip_for(&ex.clips, &animation).is_none());
                continue;
            }
            expected_clips += 1;
            let clip = clip_for(&ex.clips, &animation).expect("clip for a joint animation");
            let duration = refs
                .iter()
                .flat_map(|c| c.times.last())
                .fold(0.0f32, |a, &b| a.max(b));
            assert_eq!(clip.duration, duration);
            for t in sample_times(&refs, duration) {
                let world = reference_world(&g, Some(&refs), t);
                let globals = runtime_globals(&ex.skeleton.joints, Some(clip), t);
                for (j, &n) in joint_nodes.iter().enumerate() {
                    // Compare where the joint frame sends a few points: position and
                    // orientation/scale of the frame, in the rig's units.
                    for p in [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z] {
                        let (a, b) = (globals[j].transform_point3(p), world[n].transform_point3(p));
                        assert!(
                            close(a, b, scale),
                            "{} clip {:?} t={t} joint {j}: {a} vs {b}",
                            path.display(),
                            clip.name
                        );
                    }
                }
                checked += 1;
            }
        }
        assert_eq!(ex.clips.clips.len(), expected_clips, "{}", path.display());
    }
    println!("checked {checked} poses");
}

fn skinned_vertices_match_the_gltf_pose(source: SceneSource) {
    let Some(root) = corpus() else {
        return;
    };
    let mut checked = 0usize;
    for path in skinned_or_animated_files(&root) {
        let g = load(&path);
        let Some((scene, ex)) = export(&path, &g, source) else {
            continue;
        };
        let scale = rig_scale(&g);
        let skin = g.doc.skins().nth(ex.skeleton.skin).unwrap();
        let ibms: Vec<Mat4> = match skin
            .reader(|b| Some(&g.buffers[b.index()]))
            .read_inverse_bind_matrices()
        {
            Some(it) => it.map(|m| Mat4::from_cols_array_2d(&m)).collect(),
            None => vec![Mat4::IDENTITY; skin.joints().count()],
        };
        let skin_joints: Vec<usize> = skin.joints().map(|n| n.index()).collect();
        let mut poses: Vec<Pose> = vec![(None, None, 0.0)];
        for animation in g.doc.animations() {
            if let Some(clip) = clip_for(&ex.clips, &animation) {
                for f in [0.0, 0.37, 0.81] {
                    poses.push((
                        Some(clip),
                        Some(reference_channels(&g, &animation)),
                        clip.duration * f,
                    ));
                }
            }
        }
        for inst in scene.primitive_instances() {
            let node = g.doc.nodes().nth(inst.node).unwrap();
            let prim = node
                .mesh()
                .unwrap()
                .primitives()
                .nth(inst.primitive)
                .unwrap();
            let reader = prim.reader(|b| Some(&g.buffers[b.index()]));
            let positions: Vec<Vec3> = reader.read_positions().unwrap().map(Vec3::from).collect();
            let skinned_here = node.skin().map(|s| s.index()) == Some(ex.skeleton.skin);
            let influences: Vec<Vec<(usize, f32)>> = if skinned_here {
                let mut per_vertex = vec![Vec::new(); positions.len()];
                let mut set = 0;
                while let (Some(j), Some(w)) = (reader.read_joints(set), reader.read_weights(set)) {
                    for (v, (j, w)) in j.into_u16().zip(w.into_f32()).enumerate() {
                        for k in 0..4 {
                            if w[k] > 0.0 {
                                per_vertex[v].push((j[k] as usize, w[k]));
                            }
                        }
                    }
                    set += 1;
                }
                per_vertex
            } else {
                Vec::new()
            };
            let sp = skin_primitive(&scene, inst, &ex.skeleton).unwrap();
            assert_eq!(sp.vertices.len(), positions.len());
            for v in &sp.vertices {
                assert!((v.weights.iter().sum::<f32>() - 1.0).abs() < 1e-6);
                assert!(v
                    .joints
                    .iter()
                    .all(|&j| (j as usize) < ex.skeleton.joints.len()));
            }
            for (clip, refs, t) in &poses {
                let world = reference_world(&g, refs.as_deref(), *t);
                let globals = runtime_globals(&ex.skeleton.joints, *clip, *t);
                for (v, &p) in positions.iter().enumerate() {
                    let expected = if skinned_here {
                        // At most 4 influences survive the export; compare only vertices
                        // whose source has no more (glTF data with more is approximated).
                        if influences[v].len() > 4 {
                            continue;
                        }
                        let total: f32 = influences[v].iter().map(|e| e.1).sum();
                        if total <= 0.0 {
                            continue;
                        }
                        influences[v].iter().fold(Vec3::ZERO, |acc, &(j, w)| {
                            acc + (world[skin_joints[j]] * ibms[j]).transform_point3(p)
                                * (w / total)
                        })
                    } else {
                        world[inst.node].transform_point3(p)
                    };
                    let local = sp.position_transform.transform_point3(p);
                    let sv = sp.vertices[v];
                    let got = (0..4).fold(Vec3::ZERO, |acc, k| {
                        let j = sv.joints[k] as usize;
                        let ibm = Mat4::from_cols_array(&ex.skeleton.joints[j].inverse_bind);
                        acc + (globals[j] * ibm).transform_point3(local) * sv.weights[k]
                    });
                    assert!(
                        close(got, expected, scale),
                        "{} {:?} t={t} vertex {v}: {got} vs {expected}",
                        path.display(),
                        clip.map(|c| c.name.clone())
                    );
                    checked += 1;
                }
            }
        }
    }
    println!("checked {checked} vertex poses");
}
