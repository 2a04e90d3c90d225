//! Every corpus glTF imports; a few files are checked against counts derived independently
//! from their JSON (a Python walk of the default scene summing `indices.count / 3`).

use crate::common;

use assetc::import::{import_gltf, ImportOptions};
use assetc::scene::Scene;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus_gltf("import_corpus")
}

fn import(root: &Path, rel: &str) -> Scene {
    import_gltf(&root.join(rel), rel, &ImportOptions::new(root))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn instance_triangles(scene: &Scene) -> usize {
    scene
        .primitive_instances()
        .into_iter()
        .map(|i| scene.primitive(i).triangle_count())
        .sum()
}

/// Structural sanity every imported scene must have, whatever the file.
fn assert_sane(name: &str, scene: &Scene) {
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        for prim in &mesh.primitives {
            let n = prim.vertex_count();
            assert!(n > 0 || prim.indices.is_empty(), "{name} mesh {mi}: empty");
            assert_eq!(prim.indices.len() % 3, 0, "{name} {}", prim.gltf_path);
            assert!(
                prim.indices.iter().all(|&i| (i as usize) < n),
                "{name} {}: index out of range",
                prim.gltf_path
            );
            assert!(prim.positions.iter().flatten().all(|v| v.is_finite()));
            for attr_len in [
                prim.normals.as_ref().map(Vec::len),
                prim.tangents.as_ref().map(Vec::len),
                prim.uv0.as_ref().map(Vec::len),
                prim.uv1.as_ref().map(Vec::len),
                prim.colors.as_ref().map(Vec::len),
            ]
            .into_iter()
            .flatten()
            {
                assert_eq!(attr_len, n, "{name} {}", prim.gltf_path);
            }
            assert_eq!(prim.joints.len(), prim.weights.len());
            if let Some(m) = prim.material {
                assert!(m < scene.materials.len());
            }
        }
    }
    for (i, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            assert_eq!(scene.nodes[c].parent, Some(i), "{name} nodes[{c}]");
        }
    }
    for &r in &scene.roots {
        assert!(scene.nodes[r].in_scene && scene.nodes[r].parent.is_none());
    }
    for skin in &scene.skins {
        assert_eq!(skin.joints.len(), skin.inverse_bind_matrices.len());
    }
    for anim in &scene.animations {
        for ch in &anim.channels {
            let per_key = if ch.interpolation == assetc::scene::Interpolation::CubicSpline {
                3
            } else {
                1
            };
            assert_eq!(ch.values.len(), ch.times.len() * per_key * ch.components);
        }
    }
}

#[test]
fn every_corpus_file_imports() {
    let Some(root) = corpus() else { return };
    let files = common::gltf_files(&root);
    assert!(files.len() >= 20, "only {} corpus files found", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap_or(file).to_string_lossy();
        match import_gltf(file, &rel, &ImportOptions::new(&root)) {
            Ok(scene) => {
                assert_sane(&rel, &scene);
                assert!(
                    instance_triangles(&scene) > 0 || scene.meshes.is_empty(),
                    "{rel}: meshes but no triangle in the scene"
                );
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(
        failures.is_empty(),
        "imports failed:\n{}",
        failures.join("\n")
    );
}

#[test]
fn triangle_counts_match_the_json() {
    let Some(root) = corpus() else { return };
    for (rel, expected) in [
        ("FlightHelmet/FlightHelmet.gltf", 94_722),
        ("terrain/terrain.glb", 31_422),
        ("MixedLightingExample/MixedLightingExample.gltf", 40_898),
        ("torus/torus.gltf", 3_072),
        ("animated/MorphStressTest.gltf", 2_412),
    ] {
        assert_eq!(instance_triangles(&import(&root, rel)), expected, "{rel}");
    }
}

#[test]
fn flight_helmet_images_are_external_files_inside_the_root() {
    let Some(root) = corpus() else { return };
    let scene = import(&root, "FlightHelmet/FlightHelmet.gltf");
    assert_eq!(scene.materials.len(), 6);
    assert_eq!(scene.images.len(), 15);
    for image in &scene.images {
        match &image.source {
            assetc::scene::ImageSource::File(p) => {
                assert!(p.is_file(), "{}", p.display());
                assert!(image.bytes.is_empty());
            }
            other => panic!("{}: {other:?}", image.gltf_path),
        }
    }
}

#[test]
fn fox_has_one_skin_of_24_joints_and_3_animations() {
    let Some(root) = corpus() else { return };
    let scene = import(&root, "animated/Fox.glb");
    assert_eq!(scene.skins.len(), 1);
    assert_eq!(scene.skins[0].joints.len(), 24);
    assert_eq!(scene.animations.len(), 3);
    // Fox's one skinned primitive carries one JOINTS/WEIGHTS set.
    let inst = scene.primitive_instances();
    assert!(inst.iter().any(|&i| scene.primitive(i).joints.len() == 1));
    for ch in scene.animations.iter().flat_map(|a| &a.channels) {
        if ch.path == assetc::scene::ChannelPath::Rotation {
            for q in ch.values.chunks_exact(4) {
                let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
                assert!((len - 1.0).abs() < 1e-4);
            }
        }
    }
}

#[test]
fn pirate_meshopt_positions_fill_the_accessor_bounds() {
    let Some(root) = corpus() else { return };
    let scene = import(&root, "pirate/pirate.glb");
    // accessors[0] (POSITION of the one primitive) is UNSIGNED_SHORT, not normalized, with
    // min [0,0,0] and max [13081,16383,3915] in the JSON: decoded values must lie in that
    // box and reach both corners, which a wrong meshopt decode would not.
    let prim = &scene.meshes[0].primitives[0];
    assert_eq!(prim.vertex_count(), 2887);
    let max = [13081.0, 16383.0, 3915.0];
    for axis in 0..3 {
        let values = prim.positions.iter().map(|p| p[axis]);
        let (lo, hi) = values.fold((f32::MAX, f32::MIN), |(l, h), v| (l.min(v), h.max(v)));
        assert_eq!((lo, hi), (0.0, max[axis]), "axis {axis}");
    }
    // The node scale dequantizes: world-space size is about 1.9 units tall.
    let world = scene.nodes[0].world_matrix;
    let top = world.transform_point3(glam::Vec3::new(0.0, 16383.0, 0.0));
    let bottom = world.transform_point3(glam::Vec3::ZERO);
    assert!(((top - bottom).length() - 16383.0 * 0.000_116_282_18).abs() < 1e-3);
}

#[test]
fn external_image_outside_the_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("models");
    std::fs::create_dir(&sub).unwrap();
    let gltf = r#"{"asset":{"version":"2.0"},"images":[{"uri":"..%2F..%2Fsecret.png"}]}"#;
    std::fs::write(sub.join("a.gltf"), gltf).unwrap();
    let err = import_gltf(
        &sub.join("a.gltf"),
        "models/a",
        &ImportOptions::new(dir.path()),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("a.gltf") && err.contains("images[0]"), "{err}");
    assert!(err.contains("..%2F..%2Fsecret.png"), "{err}");
    // Inside the root, a missing file is fine: the texture stage reports it.
    let ok = r#"{"asset":{"version":"2.0"},"images":[{"uri":"tex%20one.png"}]}"#;
    std::fs::write(sub.join("b.gltf"), ok).unwrap();
    let scene = import_gltf(
        &sub.join("b.gltf"),
        "models/b",
        &ImportOptions::new(dir.path()),
    )
    .unwrap();
    assert_eq!(
        scene.images[0].source,
        assetc::scene::ImageSource::File(std::path::absolute(sub.join("tex one.png")).unwrap())
    );
}
