//! A mesh whose primitives mix UVs and no UVs: the `.hmesh` must pass `assetc check`
//! (DESC's tangent flag is mesh-wide, the UV primitive's tangents are real).

use crate::common;

use assetc::formats::hmesh;
use base64::Engine;
use common::*;

/// Two triangles in one mesh: the first with UVs mirrored in u (its MikkTSpace tangent has
/// handedness -1, which a "no tangents" DESC would reject), the second without UVs.
fn mixed_uv_gltf() -> String {
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let normals: [[f32; 3]; 3] = [[0.0, 0.0, 1.0]; 3];
    // u grows along +x and v along -y (glTF's v points down): the UV triangle winds
    // clockwise, so MikkTSpace gives handedness -1.
    let uvs: [[f32; 2]; 3] = [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
    let mut data: Vec<u8> = Vec::new();
    data.extend_from_slice(bytemuck::cast_slice(&positions));
    data.extend_from_slice(bytemuck::cast_slice(&normals));
    data.extend_from_slice(bytemuck::cast_slice(&uvs));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&data)
    );
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": data.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 36},
            {"buffer": 0, "byteOffset": 72, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC2"}
        ],
        "meshes": [{"primitives": [
            {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}},
            {"attributes": {"POSITION": 0, "NORMAL": 1}}
        ]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    });
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
fn mixed_uv_primitives_build_to_files_check_accepts() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("mixed.gltf"), mixed_uv_gltf()).unwrap();
    // Neither primitive has a material, so the default ("auto": tangents for normal-mapped
    // primitives only) would make none; the mixed flag logic needs tangents on every
    // primitive with UVs, which `true` asks for.
    let config = src.path().join("build.toml");
    std::fs::write(&config, "[mesh]\ngenerate_tangents = true\n").unwrap();
    let build = assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let check = assetc(&["check", out.path().to_str().unwrap()]);
    assert!(
        check.status.success(),
        "check rejected the output: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );

    let bytes = std::fs::read(out.path().join("mixed.hmesh")).unwrap();
    let mesh = hmesh::read(&bytes).unwrap();
    assert!(
        mesh.has_tangents,
        "the UV primitive's tangents are real, the other has no UVs to need any"
    );
    assert_eq!(mesh.submeshes.len(), 2);
    // The UV primitive's vertices keep their mirrored (handedness -1) tangent: bit 0 of x.
    let first = &mesh.submeshes[0];
    let used: Vec<u32> = mesh.indices
        [first.first_index as usize..(first.first_index + first.index_count) as usize]
        .to_vec();
    assert!(
        used.iter()
            .all(|&v| mesh.vertices[v as usize].tangent[0] & 1 == 1),
        "mirrored UVs give handedness -1"
    );
}
