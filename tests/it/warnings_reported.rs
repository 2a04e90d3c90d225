//! Every stage's warnings reach the user: the mesh stage's skin repairs appear in the
//! human output and in `--message-format json`.

use crate::common;

use common::*;
use std::path::Path;

/// A skinned triangle whose third vertex has no weight at all: the skinning stage binds it
/// rigidly to joint 0 and says so (a warning of the mesh stage, `MeshBuild.warnings`).
fn write_unweighted_skin(dir: &Path) {
    let mut bin = Vec::new();
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    bin.extend_from_slice(&[0u8; 12]); // JOINTS_0: joint 0 everywhere
    for w in [[1.0f32, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0; 4]] {
        for c in w {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    assert_eq!(bin.len(), 96);
    std::fs::write(dir.join("skin.bin"), &bin).unwrap();
    let gltf = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0, 1]}],
  "nodes": [{"mesh": 0, "skin": 0}, {"name": "root"}],
  "skins": [{"joints": [1]}],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
  "buffers": [{"uri": "skin.bin", "byteLength": 96}],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 36},
    {"buffer": 0, "byteOffset": 36, "byteLength": 12},
    {"buffer": 0, "byteOffset": 48, "byteLength": 48}
  ],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
     "min": [0, 0, 0], "max": [1, 1, 0]},
    {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
    {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"}
  ]
}"#;
    std::fs::write(dir.join("skin.gltf"), gltf).unwrap();
}

const REPAIR: &str = "vertices without weight were bound rigidly to joint 0";

#[test]
fn mesh_stage_warnings_reach_human_and_json_output() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    write_unweighted_skin(&src);
    let src = src.to_str().unwrap();

    let out = dir.path().join("human");
    let o = assetc(&["build", src, "-o", out.to_str().unwrap(), "--no-config"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(REPAIR))
        .unwrap_or_else(|| panic!("no skin repair warning in:\n{stderr}"));
    assert!(line.starts_with("warning: "), "{line}");
    assert!(
        line.contains("skin.gltf") && line.contains("meshes[0].primitives[0]"),
        "the warning names the file and the glTF path: {line}"
    );

    let out = dir.path().join("json");
    let o = assetc(&[
        "build",
        src,
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--message-format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let with_warning: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("every line is JSON"))
        .filter(|v| v["reason"] == "diagnostic" && v.to_string().contains(REPAIR))
        .collect();
    assert_eq!(
        with_warning.len(),
        1,
        "the warning once, as JSON:\n{stdout}"
    );
}

/// Sources that each raise warnings of another stage (the node and mesh importers, the
/// model kind, the skinning stage): every warning reaches JSON with a code of its kind,
/// and with its place in `gltf_path` rather than in its text.
#[test]
fn every_warning_carries_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    write_unweighted_skin(&src);
    let strip: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples().join("strip.gltf")).unwrap())
            .unwrap();
    let variant = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut j = strip.clone();
        edit(&mut j);
        std::fs::write(src.join(name), j.to_string()).unwrap();
    };
    // Not unit length: normalised (repaired).
    variant("rotated.gltf", &|j| {
        j["nodes"][0]["rotation"] = serde_json::json!([0.0, 0.0, 0.0, 2.0]);
    });
    // An application attribute no runtime format holds (not exported).
    variant("extra_attribute.gltf", &|j| {
        j["meshes"][0]["primitives"][0]["attributes"]["_TEMPERATURE"] = 0.into();
    });
    // Points only: skipped (not exported), then no triangle to write (nothing written).
    variant("points.gltf", &|j| {
        j["meshes"][0]["primitives"][0]["mode"] = 0.into();
    });
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--message-format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let warnings: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("every line is JSON"))
        .filter(|v| v["reason"] == "diagnostic" && v["diagnostic"]["severity"] == "warning")
        .map(|v| v["diagnostic"].clone())
        .collect();
    let mut codes = std::collections::BTreeSet::new();
    for w in &warnings {
        let code = w["code"].as_str().unwrap_or_else(|| panic!("no code: {w}"));
        codes.insert(code.to_owned());
    }
    for expected in ["repaired", "not-exported", "nothing-written"] {
        assert!(
            codes.contains(expected),
            "no {expected} warning in:\n{stdout}"
        );
    }
    let rotation = warnings
        .iter()
        .find(|w| w["file"] == "rotated.gltf")
        .unwrap_or_else(|| panic!("no warning for rotated.gltf in:\n{stdout}"));
    assert_eq!(rotation["code"], "repaired", "{rotation}");
    assert_eq!(rotation["gltf_path"], "nodes[0]", "{rotation}");
}
