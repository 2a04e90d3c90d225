//! The BMD1 target against the corpus: every file builds, validates, and decodes back to
//! the pipeline's geometry within each encoding's precision; skinned files keep their
//! skeleton and play their clips like an independent glTF sampler says they should.

use crate::common;

use assetc::formats::bmd1::{self, Bmd1, BoneKind, VertexEncoding};
use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::MeshSettings;
use assetc::scene::{ChannelPath, Interpolation, Scene};
use assetc::targets::bmd1::{build_bmd1, Bmd1Compat, Bmd1Settings, Bmd1VertexEncoding};
use glam::{Mat3, Mat4, Quat, Vec3};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus_gltf("bmd1_target")
}

fn import(root: &Path, rel: &str) -> Scene {
    let source_ref = rel.rsplit_once('.').map_or(rel, |(a, _)| a).to_lowercase();
    import_gltf(&root.join(rel), &source_ref, &ImportOptions::new(root))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Built for the plain seed reading: these tests check the conversion; the loader's
/// rewrites (mesh order, padding, one more clip frame) are checked in bmd1_loader.rs.
fn build(scene: &Scene, settings: &Bmd1Settings) -> Bmd1 {
    let settings = &Bmd1Settings {
        compat: Bmd1Compat::Spec,
        ..settings.clone()
    };
    let out = build_bmd1(scene, settings, &MeshSettings::default())
        .unwrap_or_else(|e| panic!("{}: {e}", scene.source_ref));
    assert_eq!(out.files.len(), 1, "{}", scene.source_ref);
    let file = &out.files[0];
    assert_eq!(file.rel_path, format!("{}.bmd", scene.source_ref));
    let problems = bmd1::validate(&file.bytes);
    assert!(problems.is_empty(), "{}: {problems:?}", scene.source_ref);
    bmd1::read(&file.bytes).unwrap_or_else(|e| panic!("{}: {e}", scene.source_ref))
}

fn skin_of(scene: &Scene) -> Option<usize> {
    scene
        .nodes
        .iter()
        .filter(|n| n.in_scene && n.mesh.is_some())
        .find_map(|n| n.skin)
}

/// Bind pose of every bone composed from the decoded xforms (parents come first).
fn bind_worlds(m: &Bmd1) -> Vec<Mat4> {
    let mut out: Vec<Mat4> = Vec::new();
    for bone in &m.bones {
        let BoneKind::Normal {
            parent,
            rotation,
            origin,
        } = &bone.kind
        else {
            panic!("the target writes no pseudo-bones");
        };
        let local = if out.is_empty() {
            Mat4::IDENTITY
        } else {
            Mat4::from_rotation_translation(unit(*rotation), Vec3::from(*origin))
        };
        let parent = out
            .get(usize::from(*parent))
            .copied()
            .unwrap_or(Mat4::IDENTITY);
        out.push(parent * local);
    }
    out
}

fn unit(raw: [f32; 4]) -> Quat {
    if raw == [0.0; 4] {
        Quat::IDENTITY
    } else {
        Quat::from_array(raw).normalize()
    }
}

fn extent(points: impl Iterator<Item = Vec3>) -> f32 {
    let (lo, hi) = points.fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(p), h.max(p)));
    (hi - lo).max_element().max(0.0)
}

/// Largest position error of an encoding at `p` as the format defines it: packed XYZ uses
/// the smallest exponent, so its step is at most max|c|/128 and rounding at most half of
/// it; binary16 rounds to 11 significant bits.
fn position_precision(e: VertexEncoding, p: Vec3) -> f32 {
    if e == VertexEncoding::FD {
        p.abs().max_element() / 2048.0 + 1e-7
    } else {
        p.abs().max_element() / 256.0 + 1e-7
    }
}

fn uv_precision(e: VertexEncoding, uv: [f32; 2]) -> f32 {
    let big = uv[0].abs().max(uv[1].abs()).max(1.0);
    match e {
        // 12-bit S/T: 1/2048 steps.
        VertexEncoding::F8 | VertexEncoding::FA => 1.0 / 4096.0 + 1e-6,
        // 14-bit with a power-of-two scale reaching at least twice the largest value.
        VertexEncoding::FD => big / 2048.0,
        // 11-bit with a 4^E scale: step 4^E/1024 with 4^E below 4x the largest value.
        _ => big * 4.0 / 2048.0,
    }
}

struct CornerCheck {
    worst_position: f32,
    triangles: usize,
}

/// Walks LOD 0 triangle by triangle against the source's instance triangles and checks
/// every corner's position, UV and normal. Returns the worst position error found.
fn check_geometry(scene: &Scene, m: &Bmd1, settings: &Bmd1Settings) -> CornerCheck {
    let lod0 = m.lods[0];
    let meshes = &m.meshes[usize::from(lod0.first_mesh)..][..usize::from(lod0.mesh_count)];
    let mut decoded_corners = Vec::new();
    for mesh in meshes {
        assert!(mesh.vertices.len() <= 1024);
        for p in &mesh.primitives {
            let bmd1::Primitive::Triangle(t) = p else {
                panic!("the target writes no quads");
            };
            decoded_corners.extend(t.iter().map(|&i| mesh.vertices[usize::from(i)]));
        }
    }
    let binds = bind_worlds(m);
    let skin = skin_of(scene);
    let mut worst_position: f32 = 0.0;
    let mut k = 0usize;
    let mut expected_meshes = 0;
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        let node = &scene.nodes[inst.node];
        let skinned = skin.is_some() && node.skin == skin && !prim.joints.is_empty();
        let world = if skinned {
            Mat4::IDENTITY
        } else {
            node.world_matrix
        };
        let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
        let flip = world.determinant() < 0.0;
        let baked: Vec<Vec3> = prim
            .positions
            .iter()
            .map(|p| world.transform_point3(Vec3::from(*p)))
            .collect();
        let bound = settings.position_error * extent(baked.iter().copied());
        expected_meshes += prim.positions.len().div_ceil(1024);
        for tri in prim.indices.chunks_exact(3) {
            let order = if flip {
                [tri[0], tri[2], tri[1]]
            } else {
                [tri[0], tri[1], tri[2]]
            };
            for &src in &order {
                let v = decoded_corners[k];
                k += 1;
                let src = src as usize;
                // A static model has no bones at all; bone 0 is the identity either way.
                let bone_world = binds
                    .get(usize::from(v.attrs.bone))
                    .copied()
                    .unwrap_or(Mat4::IDENTITY);
                let got = bone_world.transform_point3(Vec3::from(v.attrs.position));
                let want = baked[src];
                // Bounds are per component in the bone's space; a bone's rotation can turn
                // such an error box so one world component gets up to sqrt(3) of it.
                let err = if v.attrs.bone == 0 {
                    (got - want).abs().max_element()
                } else {
                    (got - want).length() / 3f32.sqrt()
                };
                let local = Vec3::from(v.attrs.position);
                let mut tol =
                    position_precision(v.encoding, local) + 1e-5 * want.abs().max_element();
                if settings.vertex_encoding == Bmd1VertexEncoding::Auto
                    && v.encoding != VertexEncoding::FD
                {
                    // The auto rule: a smaller record is only used within the bound.
                    tol = tol.min(bound + 1e-5 * want.abs().max_element());
                }
                assert!(
                    err <= tol,
                    "{}: corner {k} {want} decoded {got} ({:?}), error {err} > {tol}",
                    prim.gltf_path,
                    v.encoding
                );
                worst_position = worst_position.max(err / bound.max(f32::MIN_POSITIVE));
                if !skinned {
                    assert_eq!(v.attrs.bone, 0);
                }
                if let Some(uv) = prim.uv0.as_ref().map(|u| u[src]) {
                    let uerr = (uv[0] - v.attrs.uv[0])
                        .abs()
                        .max((uv[1] - v.attrs.uv[1]).abs());
                    let mut utol = uv_precision(v.encoding, uv);
                    if settings.vertex_encoding == Bmd1VertexEncoding::Auto
                        && v.encoding != VertexEncoding::FD
                    {
                        utol = utol.min(settings.uv_error + 1e-6);
                    }
                    assert!(
                        uerr <= utol,
                        "{}: uv {uv:?} decoded {:?} ({:?})",
                        prim.gltf_path,
                        v.attrs.uv,
                        v.encoding
                    );
                }
                let normal_kept = v.encoding != VertexEncoding::V64
                    || settings.vertex_encoding == Bmd1VertexEncoding::Auto;
                if let Some(n) = prim
                    .normals
                    .as_ref()
                    .map(|n| Vec3::from(n[src]))
                    .filter(|_| normal_kept)
                {
                    let want_n = (normal_matrix * n).normalize();
                    let stored = if v.encoding == VertexEncoding::V64 {
                        // The seed's reading: the bone-relative position is the normal.
                        Vec3::from(v.attrs.position)
                    } else {
                        Vec3::from(v.attrs.normal)
                    };
                    let got_n = Mat3::from_mat4(bone_world) * stored.normalize();
                    // F8A keeps 4 fraction bits: each component within 1/32 of itself, plus
                    // 2^-8 where tiny values round to zero, so at most ~2.5 degrees; the
                    // 64-bit rule allows 3 degrees.
                    assert!(
                        got_n.dot(want_n) >= 3.2f32.to_radians().cos(),
                        "{}: normal {want_n} decoded {got_n} ({:?})",
                        prim.gltf_path,
                        v.encoding
                    );
                }
            }
        }
    }
    assert_eq!(
        k,
        decoded_corners.len(),
        "{}: LOD 0 has extra triangles",
        scene.source_ref
    );
    assert!(
        meshes.len() >= expected_meshes,
        "{}: meshes over 1024 vertices were not split",
        scene.source_ref
    );
    CornerCheck {
        worst_position,
        triangles: k / 3,
    }
}

#[test]
fn every_corpus_gltf_builds_validates_and_decodes_to_the_source() {
    let Some(root) = corpus() else { return };
    let settings = Bmd1Settings::default();
    let mut failures = Vec::new();
    for path in common::gltf_files(&root) {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let scene = import(&root, &rel);
        let source_triangles: usize = scene
            .primitive_instances()
            .into_iter()
            .map(|i| scene.primitive(i).triangle_count())
            .sum();
        match build_bmd1(&scene, &settings, &MeshSettings::default()) {
            Err(e) => failures.push(format!("{rel}: {e}")),
            Ok(out) if out.files.is_empty() => {
                assert_eq!(source_triangles, 0, "{rel}: geometry but no file");
                println!("{rel}: no geometry, no file");
            }
            Ok(_) => {
                let m = build(&scene, &settings);
                let check = check_geometry(&scene, &m, &settings);
                assert_eq!(check.triangles, source_triangles, "{rel}");
                let mut counts = [0usize; 6];
                for v in m.meshes.iter().flat_map(|x| &x.vertices) {
                    counts[VertexEncoding::ALL
                        .iter()
                        .position(|&e| e == v.encoding)
                        .unwrap()] += 1;
                }
                println!(
                    "{rel}: {} meshes, {} LODs, {} bones, {} clips, records V64/F8/F9/FA/FB/FD {counts:?}, worst position error {:.2} of the bound",
                    m.meshes.len(),
                    m.lods.len(),
                    m.bones.len(),
                    m.animations.len(),
                    check.worst_position
                );
            }
        }
    }
    assert!(failures.is_empty(), "failed: {failures:#?}");
}

#[test]
fn forced_encodings_store_every_vertex_in_that_size() {
    let Some(root) = corpus() else { return };
    // Files whose UVs stay inside the 64-bit S/T range (alien.glb's reach -38, which only
    // the 128-bit record holds).
    for rel in ["cube/cube.gltf", "animated/Fox.glb"] {
        let scene = import(&root, rel);
        for (setting, sizes) in [
            (Bmd1VertexEncoding::Bits64, [8, 8]),
            (Bmd1VertexEncoding::Bits96, [12, 12]),
            (Bmd1VertexEncoding::Bits128, [16, 16]),
        ] {
            let settings = Bmd1Settings {
                vertex_encoding: setting,
                ..Default::default()
            };
            let m = build(&scene, &settings);
            assert!(m
                .meshes
                .iter()
                .flat_map(|x| &x.vertices)
                .all(|v| sizes.contains(&v.encoding.size())));
            check_geometry(&scene, &m, &settings);
        }
    }
}

// ---- skeleton and animation ------------------------------------------------------------

/// An independent glTF sampler for the LINEAR/STEP files the skinned tests use.
fn node_worlds(scene: &Scene, anim: Option<usize>, time: f32) -> Vec<Mat4> {
    let mut locals: Vec<(Vec3, Quat, Vec3, bool)> = scene
        .nodes
        .iter()
        .map(|n| (n.translation, n.rotation, n.scale, false))
        .collect();
    if let Some(a) = anim {
        for c in &scene.animations[a].channels {
            assert_ne!(
                c.interpolation,
                Interpolation::CubicSpline,
                "test sampler is linear only"
            );
            let n = c.components;
            let i = c.times.partition_point(|&t| t <= time);
            let (k0, k1, u) = if i == 0 {
                (0, 0, 0.0)
            } else if i >= c.times.len() {
                (c.times.len() - 1, c.times.len() - 1, 0.0)
            } else {
                let (t0, t1) = (c.times[i - 1], c.times[i]);
                (i - 1, i, (time - t0) / (t1 - t0))
            };
            let u = if c.interpolation == Interpolation::Step {
                0.0
            } else {
                u
            };
            let a = &c.values[k0 * n..][..n];
            let b = &c.values[k1 * n..][..n];
            let entry = &mut locals[c.node];
            entry.3 = true;
            match c.path {
                ChannelPath::Translation => {
                    entry.0 = Vec3::from_slice(a).lerp(Vec3::from_slice(b), u)
                }
                ChannelPath::Scale => entry.2 = Vec3::from_slice(a).lerp(Vec3::from_slice(b), u),
                ChannelPath::Rotation => {
                    entry.1 = Quat::from_slice(a)
                        .normalize()
                        .slerp(Quat::from_slice(b).normalize(), u)
                }
                ChannelPath::Weights => {}
            }
        }
    }
    let mut worlds = vec![Mat4::IDENTITY; scene.nodes.len()];
    fn visit(
        scene: &Scene,
        locals: &[(Vec3, Quat, Vec3, bool)],
        n: usize,
        parent: Mat4,
        out: &mut [Mat4],
    ) {
        let (t, r, s, animated) = locals[n];
        let local = if animated {
            Mat4::from_scale_rotation_translation(s, r, t)
        } else {
            scene.nodes[n].local_matrix
        };
        out[n] = parent * local;
        for &c in &scene.nodes[n].children {
            visit(scene, locals, c, out[n], out);
        }
    }
    for (i, n) in scene.nodes.iter().enumerate() {
        if n.parent.is_none() {
            visit(scene, &locals, i, Mat4::IDENTITY, &mut worlds);
        }
    }
    worlds
}

fn check_skinned(rel: &str) {
    let Some(root) = corpus() else { return };
    let scene = import(&root, rel);
    let settings = Bmd1Settings::default();
    let m = build(&scene, &settings);
    let skin = &scene.skins[skin_of(&scene).unwrap()];

    // Bones: base + one per joint, names and parents as the node tree says.
    assert_eq!(m.bones.len(), skin.joints.len() + 1, "{rel}");
    let bone_of_node = |node: usize| {
        m.bones
            .iter()
            .position(|b| match (&b.name, &scene.nodes[node].name) {
                (Some(a), Some(b)) => a == b,
                (Some(a), None) => *a == format!("joint_{node}"),
                _ => false,
            })
    };
    for &node in &skin.joints {
        let bone = bone_of_node(node).unwrap_or_else(|| panic!("{rel}: no bone for node {node}"));
        let mut ancestor = scene.nodes[node].parent;
        while let Some(a) = ancestor.filter(|a| !skin.joints.contains(a)) {
            ancestor = scene.nodes[a].parent;
        }
        let want_parent = ancestor.map_or(0, |a| bone_of_node(a).unwrap());
        let BoneKind::Normal { parent, .. } = m.bones[bone].kind else {
            unreachable!()
        };
        assert_eq!(
            usize::from(parent),
            want_parent,
            "{rel}: parent of bone {bone}"
        );
    }

    // Every skinned vertex (LOD 0) with its source bind position, in corner order.
    let binds = bind_worlds(&m);
    let lod0 = m.lods[0];
    let meshes = &m.meshes[usize::from(lod0.first_mesh)..][..usize::from(lod0.mesh_count)];
    let corners: Vec<bmd1::Vertex> = meshes
        .iter()
        .flat_map(|mesh| {
            mesh.primitives.iter().flat_map(move |p| {
                p.indices()
                    .iter()
                    .map(move |&i| mesh.vertices[usize::from(i)])
            })
        })
        .collect();
    let mut skinned = Vec::new(); // (local position, bone, joint, bind position)
    let mut k = 0;
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        for &src in &prim.indices {
            let v = corners[k];
            k += 1;
            if prim.joints.is_empty() {
                continue;
            }
            let src = src as usize;
            let (mut best, mut joint) = (f32::MIN, 0u16);
            for (js, ws) in prim.joints.iter().zip(&prim.weights) {
                for (&j, &w) in js[src].iter().zip(&ws[src]) {
                    if w > best {
                        best = w;
                        joint = j;
                    }
                }
            }
            let joint = usize::from(joint);
            assert_eq!(
                Some(usize::from(v.attrs.bone)),
                bone_of_node(skin.joints[joint]),
                "{rel}: bone of a vertex"
            );
            skinned.push((
                Vec3::from(v.attrs.position),
                usize::from(v.attrs.bone),
                joint,
                Vec3::from(prim.positions[src]),
            ));
        }
    }
    assert!(!skinned.is_empty(), "{rel}: no skinned vertex");
    let size = extent(skinned.iter().map(|s| s.3));
    let largest_translation = m
        .bones
        .iter()
        .map(|b| match b.kind {
            BoneKind::Normal { origin, .. } => Vec3::from(origin).abs().max_element(),
            _ => 0.0,
        })
        .fold(0.0, f32::max);

    // Bind pose reproduces the glTF bind positions.
    for &(local, bone, _, bind) in &skinned {
        let got = binds[bone].transform_point3(local);
        assert!(
            (got - bind).length() <= 2.0 * size / 1024.0 + 1e-4 * size,
            "{rel}: bind pose {bind} decoded {got}"
        );
    }

    // Clips: pose the decoded bones and compare with glTF single-bone skinning.
    assert_eq!(m.animations.len(), scene.animations.len());
    for (ai, anim) in m.animations.iter().enumerate() {
        assert!(anim.looping);
        assert_eq!(anim.rate_quarter_hz, 120, "30 Hz");
        let hz = f32::from(anim.rate_quarter_hz) / 4.0;
        let n = usize::from(anim.frame_count);
        let mut worst: f32 = 0.0;
        for frame in [0, n / 3, n / 2, 2 * n / 3, n - 1] {
            let time = frame as f32 / hz;
            let locals = bmd1::sample_pose(&m.bones, anim, frame as f32);
            let mut poses: Vec<Mat4> = Vec::new();
            for (b, bone) in m.bones.iter().enumerate() {
                let BoneKind::Normal { parent, .. } = bone.kind else {
                    unreachable!()
                };
                let t = locals[b];
                let local = Mat4::from_scale_rotation_translation(
                    Vec3::from(t.scale),
                    Quat::from_array(t.rotation),
                    Vec3::from(t.translation),
                );
                let parent = if b == 0 {
                    Mat4::IDENTITY
                } else {
                    poses[usize::from(parent)]
                };
                poses.push(parent * local);
            }
            let worlds = node_worlds(&scene, Some(ai), time);
            for &(local, bone, joint, bind) in &skinned {
                let want = (worlds[skin.joints[joint]] * skin.inverse_bind_matrices[joint])
                    .transform_point3(bind);
                let got = poses[bone].transform_point3(local);
                // Per bone, after error feedback: the rotation is within 0.03 rad (best-scale
                // F8A) plus what dropping keys may add (1/64 per normalised component, under
                // 0.07 rad), so a point d away from its bone moves at most 0.1 d; translations
                // within the position bound plus packed-XYZ rounding (1/256 of the largest).
                let tol = 0.1 * local.length()
                    + size / 1024.0
                    + largest_translation / 256.0
                    + 1e-4 * size;
                let err = (got - want).length();
                worst = worst.max(err / size);
                assert!(
                    err <= tol,
                    "{rel} clip {ai} frame {frame}: want {want} got {got} ({err} > {tol})"
                );
            }
        }
        println!(
            "{rel} clip {} ({n} frames): worst error {:.4} of the model size",
            anim.name, worst
        );
    }
}

#[test]
fn fox_skeleton_and_clips_match_the_gltf() {
    check_skinned("animated/Fox.glb");
}

#[test]
fn simple_skin_skeleton_and_clip_match_the_gltf() {
    check_skinned("SimpleSkin/SimpleSkin.gltf");
}

// ---- hand-made scenes: errors and repairs ------------------------------------------------

fn node(name: Option<&str>, parent: Option<usize>, children: Vec<usize>) -> assetc::scene::Node {
    assetc::scene::Node {
        name: name.map(str::to_string),
        parent,
        children,
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
        local_matrix: Mat4::IDENTITY,
        world_matrix: Mat4::IDENTITY,
        mesh: None,
        skin: None,
        in_scene: true,
    }
}

/// One triangle on node 0; with `joint_names`, skinned to a chain of joints (nodes 1..).
fn scene_with(positions: Vec<[f32; 3]>, joint_names: Option<Vec<Option<&str>>>) -> Scene {
    let mut nodes = vec![node(Some("mesh"), None, vec![])];
    nodes[0].mesh = Some(0);
    let mut prim = assetc::scene::Primitive {
        gltf_path: "meshes[0].primitives[0]".into(),
        positions,
        indices: vec![0, 1, 2],
        indexed: true,
        ..Default::default()
    };
    let mut roots = vec![0];
    let mut skins = Vec::new();
    if let Some(names) = joint_names {
        let n = names.len();
        for (i, name) in names.into_iter().enumerate() {
            let parent = (i > 0).then_some(i);
            let children = if i + 1 < n { vec![i + 2] } else { vec![] };
            nodes.push(node(name, parent, children));
        }
        roots.push(1);
        nodes[0].skin = Some(0);
        skins.push(assetc::scene::Skin {
            gltf_path: "skins[0]".into(),
            name: None,
            joints: (1..=n).collect(),
            inverse_bind_matrices: vec![Mat4::IDENTITY; n],
            skeleton: None,
        });
        prim.joints = vec![vec![[0, 0, 0, 0]; 3]];
        prim.weights = vec![vec![[1.0, 0.0, 0.0, 0.0]; 3]];
    }
    Scene {
        source_ref: "test/made".into(),
        meshes: vec![assetc::scene::Mesh {
            name: None,
            primitives: vec![prim],
        }],
        nodes,
        roots,
        skins,
        ..Default::default()
    }
}

fn triangle() -> Vec<[f32; 3]> {
    vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
}

#[test]
fn more_joints_than_bone_ids_is_an_error_naming_the_skin() {
    let names: Vec<Option<&str>> = vec![None; 240];
    let scene = scene_with(triangle(), Some(names));
    let err = build_bmd1(&scene, &Bmd1Settings::default(), &MeshSettings::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("skins[0]") && text.contains("239"),
        "{text}"
    );

    // 239 joints is the most that fits: bone 0 plus ids 1..=239.
    let scene = scene_with(triangle(), Some(vec![None; 239]));
    let out = build_bmd1(&scene, &Bmd1Settings::default(), &MeshSettings::default()).unwrap();
    let m = bmd1::read(&out.files[0].bytes).unwrap();
    assert_eq!(m.bones.len(), 240);
}

#[test]
fn empty_and_duplicate_bone_names_are_repaired_with_warnings() {
    let scene = scene_with(triangle(), Some(vec![Some("a"), Some("a"), None, Some("")]));
    let out = build_bmd1(&scene, &Bmd1Settings::default(), &MeshSettings::default()).unwrap();
    assert!(bmd1::validate(&out.files[0].bytes).is_empty());
    let m = bmd1::read(&out.files[0].bytes).unwrap();
    let names: Vec<&str> = m.bones[1..]
        .iter()
        .map(|b| b.name.as_deref().unwrap())
        .collect();
    // Joint nodes are 1..=4; unnamed ones are named after their node.
    assert_eq!(names, ["a", "a_1", "joint_3", "joint_4"]);
    assert_eq!(
        out.warnings
            .iter()
            .filter(|w| w.to_string().contains("bone name"))
            .count(),
        3,
        "{:?}",
        out.warnings
    );
}

#[test]
fn positions_no_record_holds_are_an_error_naming_the_primitive() {
    // Beyond binary16 (65504) but inside packed XYZ (130560): 128-bit alone cannot hold it.
    let far = vec![[0.0, 0.0, 0.0], [100_000.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let forced = Bmd1Settings {
        vertex_encoding: Bmd1VertexEncoding::Bits128,
        ..Default::default()
    };
    let err = build_bmd1(
        &scene_with(far.clone(), None),
        &forced,
        &MeshSettings::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("meshes[0].primitives[0]: vertex"),
        "{err}"
    );
    // Auto falls back to the record that holds it rather than failing.
    let out = build_bmd1(
        &scene_with(far, None),
        &Bmd1Settings::default(),
        &MeshSettings::default(),
    )
    .unwrap();
    assert!(bmd1::validate(&out.files[0].bytes).is_empty());
    // Beyond every record: an error, not a panic.
    let beyond = vec![[0.0, 0.0, 0.0], [1.0e6, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let err = build_bmd1(
        &scene_with(beyond, None),
        &Bmd1Settings::default(),
        &MeshSettings::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("meshes[0].primitives[0]"), "{err}");
}

#[test]
fn bad_settings_are_rejected() {
    let bad = Bmd1Settings {
        sample_rate_hz: 100.0,
        ..Default::default()
    };
    assert!(build_bmd1(
        &scene_with(triangle(), None),
        &bad,
        &MeshSettings::default()
    )
    .is_err());
}
