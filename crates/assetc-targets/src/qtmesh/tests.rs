use super::*;
use crate::formats::qtmesh::{attr, component};
use crate::scene::{Material, Mesh, MorphTarget, Node, Primitive, TextureRef};
use glam::{Mat4, Quat, Vec3};

fn node(name: &str, mesh: Option<usize>, translation: Vec3) -> Node {
    Node {
        name: Some(name.into()),
        parent: None,
        children: Vec::new(),
        translation,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
        local_matrix: Mat4::from_translation(translation),
        world_matrix: Mat4::from_translation(translation),
        mesh,
        skin: None,
        in_scene: true,
    }
}

/// A quad given as six unindexed vertices (two of them repeated).
fn quad_primitive(material: Option<usize>) -> Primitive {
    let corners = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let order = [0usize, 1, 2, 0, 2, 3];
    Primitive {
        gltf_path: "meshes[0].primitives[0]".into(),
        positions: order.iter().map(|&i| corners[i]).collect(),
        normals: Some(vec![[0.0, 0.0, 1.0]; 6]),
        uv0: Some(
            order
                .iter()
                .map(|&i| [corners[i][0], corners[i][1]])
                .collect(),
        ),
        indices: (0..6).collect(),
        indexed: false,
        material,
        ..Default::default()
    }
}

/// Two nodes share mesh 0 ("Quad.001", two primitives); a third node is unnamed and uses
/// mesh 1 (no name, a morph target); mesh 2 is used by no node.
fn scene() -> Scene {
    let mut with_target = quad_primitive(None);
    with_target.targets = vec![MorphTarget {
        positions: Some(vec![[0.0, 0.0, 0.5]; 6]),
        ..Default::default()
    }];
    let mut second = quad_primitive(Some(1));
    second.positions.iter_mut().for_each(|p| p[2] = 2.0);
    let mut unnamed = node("", Some(1), Vec3::ZERO);
    unnamed.name = None;
    Scene {
        source_ref: "models/quad".into(),
        meshes: vec![
            Mesh {
                name: Some("Quad.001".into()),
                primitives: vec![quad_primitive(Some(0)), second],
            },
            Mesh {
                name: None,
                primitives: vec![with_target],
            },
            Mesh {
                name: Some("unused".into()),
                primitives: vec![quad_primitive(None)],
            },
        ],
        nodes: vec![
            node("A", Some(0), Vec3::new(1.0, 2.0, 3.0)),
            node("B", Some(0), Vec3::ZERO),
            unnamed,
        ],
        roots: vec![0, 1, 2],
        materials: vec![
            Material {
                name: Some("Red".into()),
                base_color_factor: [1.0, 0.0, 0.0, 1.0],
                ..Default::default()
            },
            Material {
                name: Some("Textured".into()),
                base_color_texture: Some(TextureRef {
                    image: 0,
                    ..TextureRef::default()
                }),
                ..Default::default()
            },
        ],
        images: vec![crate::scene::Image {
            gltf_path: "images[0]".into(),
            name: Some("albedo".into()),
            uri: None,
            mime_type: Some("image/png".into()),
            source: ImageSource::Embedded,
            bytes: std::sync::Arc::new(b"\x89PNG fake".to_vec()),
        }],
        ..Default::default()
    }
}

fn file<'a>(out: &'a TargetOutput, rel: &str) -> &'a [u8] {
    &out.files
        .iter()
        .find(|f| f.rel_path == rel)
        .unwrap_or_else(|| {
            let names: Vec<_> = out.files.iter().map(|f| &f.rel_path).collect();
            panic!("{rel} not in {names:?}")
        })
        .bytes
}

#[test]
fn layout_names_and_mesh_contents() {
    let out = build_qtmesh(
        &scene(),
        &QtTargetSettings::default(),
        &MeshSettings::default(),
    )
    .unwrap();
    let mut names: Vec<&str> = out.files.iter().map(|f| f.rel_path.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "models/quad.qt/Quad.qml",
            "models/quad.qt/maps/albedo.png",
            "models/quad.qt/meshes/meshes_1__mesh.mesh",
            "models/quad.qt/meshes/quad_001_mesh.mesh",
        ],
        "one file per used mesh, the shared one once, the unused one not at all"
    );
    assert_eq!(
        file(&out, "models/quad.qt/maps/albedo.png"),
        b"\x89PNG fake"
    );

    let quad = qtmesh::read(file(&out, "models/quad.qt/meshes/quad_001_mesh.mesh")).unwrap();
    let (_, m) = &quad.meshes[0];
    assert_eq!(m.version, 7);
    let attrs: Vec<&str> = m
        .vertex_buffer
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(attrs, [attr::POSITION, attr::NORMAL, attr::UV0]);
    // Welding turns each 6-vertex quad into 4 vertices.
    assert_eq!(m.vertex_buffer.vertex_count(), 8);
    assert_eq!(m.index_buffer.component_type, component::U16);
    let subsets: Vec<(&str, u32, u32)> = m
        .subsets
        .iter()
        .map(|s| (s.name.as_str(), s.offset, s.count))
        .collect();
    assert_eq!(subsets, [("Red", 0, 6), ("Textured", 6, 6)]);
    assert_eq!(m.subsets[1].bounds_min, [0.0, 0.0, 2.0]);
    assert_eq!(m.subsets[1].bounds_max, [1.0, 1.0, 2.0]);
    assert!(m.target_buffer.is_none());
    // The quad's glTF UVs equal its x and y; Qt's origin is bottom-left, so each vertex
    // stores (x, 1 - y).
    let uv = m.vertex_buffer.entries[2].offset as usize;
    for v in 0..8 {
        let p = floats(
            &m.vertex_buffer.data,
            v * m.vertex_buffer.stride as usize,
            3,
        );
        let t = floats(
            &m.vertex_buffer.data,
            v * m.vertex_buffer.stride as usize + uv,
            2,
        );
        assert_eq!(t, [p[0], 1.0 - p[1]], "vertex {v}");
    }

    let morph = qtmesh::read(file(&out, "models/quad.qt/meshes/meshes_1__mesh.mesh")).unwrap();
    let mesh = &morph.meshes[0].1;
    let tb = mesh.target_buffer.as_ref().expect("targets");
    assert_eq!(tb.target_count, 1);
    assert_eq!(tb.entries.len(), 1);
    assert_eq!(tb.entries[0].name, attr::POSITION);
    // Qt wants the complete target position: the vertex's own plus the glTF delta
    // (0, 0, 0.5), one 16-byte texel per vertex.
    let vb = &mesh.vertex_buffer;
    assert_eq!(vb.vertex_count(), 4);
    for v in 0..4 {
        let p = floats(&vb.data, v * vb.stride as usize, 3);
        let target = floats(&tb.data, 16 * v, 4);
        assert_eq!(target, [p[0], p[1], p[2] + 0.5, 0.0], "vertex {v}");
    }
}

fn floats(data: &[u8], at: usize, n: usize) -> Vec<f32> {
    (0..n)
        .map(|k| {
            let o = at + 4 * k;
            f32::from_le_bytes([data[o], data[o + 1], data[o + 2], data[o + 3]])
        })
        .collect()
}

/// The QML file of `scene` built with default settings.
fn quad_qml(scene: &Scene) -> String {
    let out = build_qtmesh(
        scene,
        &QtTargetSettings::default(),
        &MeshSettings::default(),
    )
    .unwrap();
    String::from_utf8(file(&out, "models/quad.qt/Quad.qml").to_vec()).unwrap()
}

#[test]
fn qml_places_nodes_materials_and_maps() {
    let qml = quad_qml(&scene());
    for needle in [
        "position: Qt.vector3d(1, 2, 3)",
        "source: \"meshes/quad_001_mesh.mesh\"",
        "objectName: \"nodes[2]\"",
        "baseColor: \"#ffff0000\"",
        "source: \"maps/albedo.png\"",
        "baseColorMap: albedo_png_texture",
        "MorphTarget.Position",
    ] {
        assert!(qml.contains(needle), "{needle:?} missing from:\n{qml}");
    }
    assert_eq!(qml.matches("meshes/quad_001_mesh.mesh").count(), 2);
    let ids: Vec<&str> = qml
        .lines()
        .filter_map(|l| l.trim().strip_prefix("id: "))
        .collect();
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "QML ids must be unique: {ids:?}");
    let opens = qml.matches('{').count();
    assert_eq!(opens, qml.matches('}').count());
}

#[test]
fn output_is_deterministic_and_versions_and_naming_apply() {
    let s = scene();
    let a = build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default()).unwrap();
    let b = build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default()).unwrap();
    assert_eq!(a.files, b.files);

    let v5 = QtTargetSettings {
        mesh_version: 5,
        naming: QtNaming::Qt64,
        component_name: Some("QuadScene".into()),
    };
    let out = build_qtmesh(&s, &v5, &MeshSettings::default()).unwrap();
    let m = qtmesh::read(file(&out, "models/quad.qt/meshes/quad_001.mesh")).unwrap();
    assert_eq!(m.meshes[0].1.version, 5);
    assert!(m.meshes[0].1.subsets.iter().all(|s| s.lods.is_empty()));
    file(&out, "models/quad.qt/QuadScene.qml");

    let bad = QtTargetSettings {
        mesh_version: 6,
        ..Default::default()
    };
    assert!(build_qtmesh(&s, &bad, &MeshSettings::default()).is_err());
}

#[test]
fn levels_of_detail_reduce_a_dense_grid() {
    let n = 33u32;
    let positions: Vec<[f32; 3]> = (0..n * n)
        .map(|i| [(i % n) as f32, (i / n) as f32, 0.0])
        .collect();
    let mut indices = Vec::new();
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = y * n + x;
            indices.extend_from_slice(&[i, i + 1, i + n, i + 1, i + n + 1, i + n]);
        }
    }
    let mut s = scene();
    s.meshes[0].primitives = vec![Primitive {
        gltf_path: "meshes[0].primitives[0]".into(),
        normals: Some(vec![[0.0, 0.0, 1.0]; positions.len()]),
        positions,
        indices,
        indexed: true,
        ..Default::default()
    }];
    let out = build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default()).unwrap();
    let f = qtmesh::read(file(&out, "models/quad.qt/meshes/quad_001_mesh.mesh")).unwrap();
    let m = &f.meshes[0].1;
    let sub = &m.subsets[0];
    assert!(!sub.lods.is_empty());
    let total = m.index_buffer.index_count() as u32;
    let mut previous = (sub.count, 0.0f32);
    for lod in &sub.lods {
        assert!(lod.count < previous.0 && lod.count % 3 == 0);
        assert!(lod.offset >= sub.offset + sub.count && lod.offset + lod.count <= total);
        assert!(lod.distance >= previous.1, "distances grow with reduction");
        previous = (lod.count, lod.distance);
    }

    // The same grid with a morph target, or skinned, deforms away from the rest pose
    // the simplifier measured: no levels.
    let grid = s.meshes[0].primitives[0].clone();
    let count = grid.positions.len();
    let mut morphing = grid.clone();
    morphing.targets = vec![MorphTarget {
        positions: Some(vec![[0.0, 0.0, 1.0]; count]),
        ..Default::default()
    }];
    let mut skinned = grid;
    skinned.joints = vec![vec![[0, 0, 0, 0]; count]];
    skinned.weights = vec![vec![[1.0, 0.0, 0.0, 0.0]; count]];
    for deforming in [morphing, skinned] {
        s.meshes[0].primitives = vec![deforming];
        let out = build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default()).unwrap();
        let f = qtmesh::read(file(&out, "models/quad.qt/meshes/quad_001_mesh.mesh")).unwrap();
        assert!(f.meshes[0].1.subsets.iter().all(|s| s.lods.is_empty()));
    }
}

#[test]
fn inconsistent_primitives_are_errors_not_panics() {
    let mut s = scene();
    s.meshes[0].primitives[0].indices[2] = 1000;
    let err = build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("meshes[0]") && err.contains("1000"), "{err}");
    let mut s = scene();
    s.meshes[1].primitives[0].targets[0].positions = Some(vec![[0.0; 3]; 2]);
    assert!(build_qtmesh(&s, &QtTargetSettings::default(), &MeshSettings::default()).is_err());
}

/// The quad scene plus what Balsam also writes: a texture transform, a sun and a camera
/// on their own nodes, initial morph weights and a clip moving node A (LINEAR), turning
/// node B (STEP) and animating the morph weight of node 2.
fn scene_with_extras() -> Scene {
    use crate::scene::{
        Animation, Camera, Channel, ChannelPath, Interpolation, Light, LightKind, NodeWeights,
        Projection, TextureTransform,
    };
    let mut s = scene();
    if let Some(t) = s.materials[1].base_color_texture.as_mut() {
        t.has_transform = true;
        t.transform = Some(TextureTransform {
            offset: [0.25, 0.5],
            rotation: std::f32::consts::FRAC_PI_2,
            scale: [2.0, 3.0],
        });
    }
    s.nodes.push(node("Sun", None, Vec3::new(0.0, 5.0, 0.0)));
    s.nodes.push(node("Eye", None, Vec3::new(0.0, 0.0, 9.0)));
    s.roots.extend([3, 4]);
    s.lights.push(Light {
        node: 3,
        name: Some("Sun".into()),
        kind: LightKind::Directional,
        color: [1.0, 0.5, 0.25],
        intensity: 2.0,
        range: None,
    });
    // Node A draws a mesh and carries a spot light: the light is the Model's child.
    s.lights.push(Light {
        node: 0,
        name: None,
        kind: LightKind::Spot {
            inner_cone: 0.0,
            outer_cone: std::f32::consts::FRAC_PI_4,
        },
        color: [1.0; 3],
        intensity: 0.5,
        range: Some(10.0),
    });
    s.cameras.push(Camera {
        node: 4,
        name: None,
        projection: Projection::Perspective {
            yfov: std::f32::consts::FRAC_PI_4,
            aspect_ratio: None,
            znear: 0.5,
            zfar: Some(100.0),
        },
    });
    s.morph_weights.push(NodeWeights {
        node: 2,
        weights: vec![0.75],
    });
    let channel =
        |node, path, interpolation, times: Vec<f32>, values: Vec<f32>, components| Channel {
            gltf_path: "animations[0].channels[0]".into(),
            node,
            path,
            interpolation,
            times,
            values,
            components,
        };
    s.animations.push(Animation {
        name: Some("Move".into()),
        channels: vec![
            channel(
                0,
                ChannelPath::Translation,
                Interpolation::Linear,
                vec![0.0, 0.5],
                vec![0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
                3,
            ),
            channel(
                1,
                ChannelPath::Rotation,
                Interpolation::Step,
                vec![0.0, 1.0],
                // Identity, then half a turn about Z (x, y, z, w).
                vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0],
                4,
            ),
            // Node B stays where it is: a track that changes nothing is left out.
            channel(
                1,
                ChannelPath::Translation,
                Interpolation::Linear,
                vec![0.0, 1.0],
                vec![0.0; 6],
                3,
            ),
            channel(
                2,
                ChannelPath::Weights,
                Interpolation::Linear,
                vec![0.0, 2.0],
                vec![0.0, 1.0],
                1,
            ),
        ],
    });
    s.animations.push(Animation {
        name: Some("Other".into()),
        channels: vec![channel(
            0,
            ChannelPath::Scale,
            Interpolation::Linear,
            vec![0.0, 1.0],
            vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0],
            3,
        )],
    });
    s
}

#[test]
fn qml_writes_transforms_lights_cameras_weights_and_timelines() {
    let qml = quad_qml(&scene_with_extras());
    let has = |needle: &str| assert!(qml.contains(needle), "{needle:?} missing from:\n{qml}");
    has("import QtQuick.Timeline\n");
    // Offset (0.25, 0.5) in Qt's flipped V is (0.25, -0.5) about the pivot (0, 1);
    // a quarter turn is 90 degrees.
    for line in [
        "pivotV: 1",
        "positionU: 0.25",
        "positionV: -0.5",
        "rotationUV: 90",
        "scaleU: 2",
        "scaleV: 3",
    ] {
        has(&format!("        {line}\n"));
    }
    // The sun: colour * intensity = (2, 1, 0.5), so brightness 2 and colour halved.
    has("    DirectionalLight {\n        id: sun\n        objectName: \"Sun\"\n        position: Qt.vector3d(0, 5, 0)\n        color: \"#ff8040\"\n        brightness: 2\n");
    has("    PerspectiveCamera {\n        id: eye\n");
    let fov: f32 = qml
        .lines()
        .find_map(|l| l.trim().strip_prefix("fieldOfView: "))
        .and_then(|v| v.parse().ok())
        .expect("fieldOfView");
    assert!(
        (fov - 45.0).abs() < 1e-4,
        "glTF's vertical yfov in degrees: {fov}"
    );
    has("        clipNear: 0.5\n        clipFar: 100\n    }\n");
    // Intensity 0.5 is below Balsam's least brightness (1), so the colour is dimmed.
    has("            textured_material\n        ]\n        SpotLight {\n            color: \"#808080\"\n            brightness: 1\n            coneAngle: 90\n            innerConeAngle: 0\n            quadraticFade: 10000\n        }\n    }\n");
    // Node 2's one morph target, with its initial weight, referenced by its Model.
    has("    MorphTarget {\n        id: nodes_2__morphtarget0\n        objectName: \"target 0\"\n        attributes: MorphTarget.Position\n        weight: 0.75\n    }\n");
    has("        morphTargets: [\n            nodes_2__morphtarget0\n        ]\n");
    // The first clip plays; frames are milliseconds.
    has("        objectName: \"Move\"\n        property real framesPerSecond: 1000\n        startFrame: 0\n        endFrame: 2000\n        currentFrame: 0\n        enabled: true\n");
    has("            target: a\n            property: \"position\"\n            Keyframe { frame: 0; value: Qt.vector3d(0, 0, 0) }\n            Keyframe { frame: 500; value: Qt.vector3d(1, 2, 3) }\n");
    // STEP: the first rotation is held until just before the second key.
    has("            target: b\n            property: \"rotation\"\n            Keyframe { frame: 0; value: Qt.quaternion(1, 0, 0, 0) }\n            Keyframe { frame: 999.99; value: Qt.quaternion(1, 0, 0, 0) }\n            Keyframe { frame: 1000; value: Qt.quaternion(0, 0, 0, 1) }\n");
    has("            target: nodes_2__morphtarget0\n            property: \"weight\"\n            Keyframe { frame: 0; value: 0 }\n            Keyframe { frame: 2000; value: 1 }\n");
    assert!(
        !qml.contains("target: b\n            property: \"position\""),
        "{qml}"
    );
    // The second clip is written but does not play.
    has("        objectName: \"Other\"\n");
    assert_eq!(qml.matches("enabled: false").count(), 1, "{qml}");
    assert_eq!(qml.matches("running: true").count(), 1, "{qml}");
    let ids: Vec<&str> = qml
        .lines()
        .filter_map(|l| l.trim().strip_prefix("id: "))
        .collect();
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "QML ids must be unique: {ids:?}");
    assert_eq!(qml.matches('{').count(), qml.matches('}').count());
}

#[test]
fn qml_textures_carry_their_samplers_as_balsam_writes_them() {
    use crate::scene::{Sampler, Wrap};
    let mut s = scene();
    let textured = &mut s.materials[1];
    if let Some(t) = textured.base_color_texture.as_mut() {
        t.sampler = Sampler {
            wrap_s: Wrap::ClampToEdge,
            wrap_t: Wrap::MirroredRepeat,
            mag_nearest: true,
        };
    }
    // The same image with glTF's default sampler must be a Texture of its own.
    textured.emissive_texture = Some(TextureRef {
        image: 0,
        ..TextureRef::default()
    });
    let qml = quad_qml(&s);
    let textures: Vec<&str> = qml.split("    Texture {\n").skip(1).collect();
    assert_eq!(textures.len(), 2, "{qml}");
    // Balsam 6.12's order and spelling (run on a glTF with these samplers).
    assert!(
        textures[0].contains(
            "        tilingModeHorizontal: Texture.ClampToEdge\n        \
             tilingModeVertical: Texture.MirroredRepeat\n        \
             magFilter: Texture.Nearest\n        generateMipmaps: true\n"
        ),
        "{qml}"
    );
    // Repeat and linear are Qt's defaults, and Balsam leaves them out.
    let plain = textures[1].split("\n    }").next().unwrap_or_default();
    assert!(
        !plain.contains("tilingMode") && !plain.contains("magFilter"),
        "{qml}"
    );
}
