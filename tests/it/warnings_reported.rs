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
