//! glTF extensions a real file may require, on corpus models rewritten by glTF-Transform
//! (npm `@gltf-transform/cli`): `KHR_draco_mesh_compression` (`draco`), `EXT_texture_webp`
//! (`webp`) and `EXT_mesh_gpu_instancing` (`instance`), plus instancing written by hand,
//! broken Draco streams and a required extension that is still unknown.

use crate::common;

use assetc::formats::{hmat, hmesh};
use common::*;
use std::path::{Path, PathBuf};

/// Small exact textures: these tests are about what reaches the files, not encoding time.
const QUICK_TEXTURES: &str = "[texture]\nformat = \"rgba8\"\nmax_size = 16\nmipmaps = false\n";

/// Builds `input` into `runtime` (quick textures); the output of the command.
fn build(input: &Path, runtime: &Path) -> std::process::Output {
    let config = runtime.with_extension("toml");
    std::fs::write(&config, QUICK_TEXTURES).unwrap();
    assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        runtime.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ])
}

fn built(input: &Path, runtime: &Path) {
    let out = build(input, runtime);
    assert!(
        out.status.success(),
        "build of {} failed: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let check = assetc(&["check", runtime.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// A folder holding only `file`, named `name` (the model's ref is its stem).
fn alone(dir: &Path, folder: &str, file: &Path, name: &str) -> PathBuf {
    let input = dir.join(folder);
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(file, input.join(name)).unwrap();
    input
}

fn read_hmesh(path: &Path) -> hmesh::HMesh {
    hmesh::read(&std::fs::read(path).unwrap()).unwrap()
}

fn positions(mesh: &hmesh::HMesh) -> Vec<[f32; 3]> {
    mesh.vertices.iter().map(|v| v.position).collect()
}

/// The largest distance from a point of `a` to its nearest point of `b`.
fn farthest_from(a: &[[f32; 3]], b: &[[f32; 3]]) -> f32 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| {
                    let d = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
                    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
                })
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
}

/// Draco at 14-bit positions: gltf-transform quantizes each mesh's positions on a grid
/// over its bounding box's largest side `L` (`--quantization-volume mesh`), a step of
/// `L / (2^14 - 1)`; a decoded component is at most half a step from the source's, a
/// position at most `sqrt(3) / 2` steps. The torus has one mesh under an identity node,
/// so the built positions are the source's: every decoded vertex lies within that of an
/// uncompressed one and the other way round, with the triangles all there.
#[test]
fn draco_positions_match_the_uncompressed_build_within_the_quantization_step() {
    let Some(corpus) = corpus("draco_positions") else {
        return;
    };
    let Some(cli) = gltf_transform("draco_positions") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = corpus.join("gltf/torus/torus.gltf");
    let draco = dir.path().join("torus-draco.glb");
    run_gltf_transform(
        &cli,
        &[
            "draco",
            source.to_str().unwrap(),
            draco.to_str().unwrap(),
            "--quantize-position",
            "14",
        ],
    );
    let (json, _) = glb_split(&std::fs::read(&draco).unwrap());
    assert_eq!(
        json["extensionsRequired"],
        serde_json::json!(["KHR_draco_mesh_compression"]),
        "gltf-transform wrote Draco"
    );

    let plain_in = alone(dir.path(), "plain", &source, "torus.gltf");
    let draco_in = alone(dir.path(), "draco", &draco, "torus.glb");
    built(&plain_in, &dir.path().join("plain-out"));
    built(&draco_in, &dir.path().join("draco-out"));
    let plain = read_hmesh(&dir.path().join("plain-out/torus.hmesh"));
    let decoded = read_hmesh(&dir.path().join("draco-out/torus.hmesh"));

    let (lo, hi) = (plain.bounds.aabb_min, plain.bounds.aabb_max);
    let side = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f32::max);
    let step = side / ((1 << 14) - 1) as f32;
    // Half a step per component, and float rounding of the dequantization on top.
    let tolerance = 3f32.sqrt() / 2.0 * step * 1.01;
    let (p, d) = (positions(&plain), positions(&decoded));
    let there = farthest_from(&d, &p);
    let back = farthest_from(&p, &d);
    assert!(
        there <= tolerance && back <= tolerance,
        "decoded positions {there} / {back} from the source's, over the 14-bit tolerance {tolerance}"
    );
    assert!(there > 0.0, "positions were quantized, so some moved");
    assert_eq!(
        decoded.indices.len(),
        plain.indices.len(),
        "every triangle decoded"
    );
    for a in 0..3 {
        assert!((decoded.bounds.aabb_min[a] - lo[a]).abs() <= tolerance);
        assert!((decoded.bounds.aabb_max[a] - hi[a]).abs() <= tolerance);
    }
}

/// Draco on a skinned, textured model (Fox: JOINTS_0/WEIGHTS_0 and TEXCOORD_0 in the
/// stream, integer and float attributes): it builds with every triangle and its skin.
#[test]
fn draco_skinned_model_builds_with_its_skin() {
    let Some(corpus) = corpus("draco_skinned") else {
        return;
    };
    let Some(cli) = gltf_transform("draco_skinned") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = corpus.join("gltf/animated/Fox.glb");
    let draco = dir.path().join("fox-draco.glb");
    run_gltf_transform(
        &cli,
        &["draco", source.to_str().unwrap(), draco.to_str().unwrap()],
    );
    let plain_in = alone(dir.path(), "plain", &source, "fox.glb");
    let draco_in = alone(dir.path(), "draco", &draco, "fox.glb");
    built(&plain_in, &dir.path().join("plain-out"));
    built(&draco_in, &dir.path().join("draco-out"));
    let plain = read_hmesh(&dir.path().join("plain-out/fox.hmesh"));
    let decoded = read_hmesh(&dir.path().join("draco-out/fox.hmesh"));
    assert_eq!(decoded.indices.len(), plain.indices.len());
    let (Some(a), Some(b)) = (&plain.skinning, &decoded.skinning) else {
        panic!("both builds are skinned");
    };
    assert_eq!(a.joints.len(), b.joints.len());
    // Weights are quantized (12 bits by default); joints are exact integers.
    let joints: std::collections::BTreeSet<[u16; 4]> =
        b.vertices.iter().map(|v| v.joints).collect();
    assert!(joints
        .iter()
        .flatten()
        .all(|&j| (j as usize) < b.joints.len()));
}

/// EXT_texture_webp: gltf-transform re-encodes the Fox's PNG as WebP and drops the PNG, so
/// the material's base colour texture can only come from the WebP image: the `.hmat`
/// refs a texture that was written.
#[test]
fn webp_texture_is_encoded_and_referenced() {
    let Some(corpus) = corpus("webp_texture") else {
        return;
    };
    let Some(cli) = gltf_transform("webp_texture") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let webp = dir.path().join("fox-webp.glb");
    let source = corpus.join("gltf/animated/Fox.glb");
    run_gltf_transform(
        &cli,
        &["webp", source.to_str().unwrap(), webp.to_str().unwrap()],
    );
    let (json, _) = glb_split(&std::fs::read(&webp).unwrap());
    assert_eq!(
        json["extensionsRequired"],
        serde_json::json!(["EXT_texture_webp"])
    );
    assert!(
        json["images"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["mimeType"] == "image/webp"),
        "only WebP images are left"
    );
    let input = alone(dir.path(), "in", &webp, "fox.glb");
    let runtime = dir.path().join("out");
    built(&input, &runtime);
    let table = hmat::read(&std::fs::read(runtime.join("fox.hmat")).unwrap()).unwrap();
    let id = table.materials[0].base_color_tex;
    assert_ne!(id, 0, "the base colour slot has its texture");
    let texture = runtime.join(format!("tex/{id:016x}.ktx2"));
    assert!(texture.is_file(), "{} was written", texture.display());
}

/// A texture naming both an image-format extension and a core `source` uses the
/// extension's image; without any extension reader the core source is the fallback.
#[test]
fn webp_image_is_preferred_to_the_fallback_source() {
    let dir = tempfile::tempdir().unwrap();
    let png = tiny_png([255, 0, 0, 255]);
    let webp = tiny_webp([0, 0, 255, 255]);
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_texture_webp"],
        "images": [
            {"uri": "fallback.png"},
            {"uri": "chosen.webp"}
        ],
        "textures": [{"source": 0, "extensions": {"EXT_texture_webp": {"source": 1}}}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "meshes": [], "nodes": [], "scenes": [{"nodes": []}], "scene": 0
    });
    std::fs::write(dir.path().join("fallback.png"), png).unwrap();
    std::fs::write(dir.path().join("chosen.webp"), webp).unwrap();
    let path = dir.path().join("m.gltf");
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
    let scene =
        assetc::import::import_gltf(&path, "m", &assetc::import::ImportOptions::new(dir.path()))
            .unwrap();
    let image = scene.materials[0]
        .base_color_texture
        .as_ref()
        .unwrap()
        .image;
    assert_eq!(image, 1, "the WebP image, not the fallback");
    assert!(
        scene.materials[0].unsupported_extensions.is_empty(),
        "{:?}",
        scene.materials[0].unsupported_extensions
    );
}

fn tiny_png(rgba: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba(rgba))
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn tiny_webp(rgba: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba(rgba))
        .write_to(
            &mut std::io::Cursor::new(&mut out),
            image::ImageFormat::WebP,
        )
        .unwrap();
    out
}

/// The corpus cube (`cube.gltf` + `cube.bin`) with its node drawn by
/// EXT_mesh_gpu_instancing at `translations`, scaled by 2 on the instances; the cube's
/// node keeps its own transform.
fn instanced_cube(corpus: &Path, dir: &Path, translations: &[[f32; 3]]) -> PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(corpus.join("gltf/cube/cube.bin"), input.join("cube.bin")).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("gltf/cube/cube.gltf")).unwrap())
            .unwrap();
    let mut bytes: Vec<u8> = translations
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let scale_offset = bytes.len();
    for _ in translations {
        for f in [2.0f32; 3] {
            bytes.extend_from_slice(&f.to_le_bytes());
        }
    }
    use base64::Engine;
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let buffers = json["buffers"].as_array_mut().unwrap();
    buffers.push(serde_json::json!({"uri": uri, "byteLength": bytes.len()}));
    let buffer = buffers.len() - 1;
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": buffer, "byteOffset": 0, "byteLength": scale_offset}));
    views.push(serde_json::json!({"buffer": buffer, "byteOffset": scale_offset, "byteLength": scale_offset}));
    let view = views.len() - 2;
    let accessors = json["accessors"].as_array_mut().unwrap();
    let n = translations.len();
    accessors.push(
        serde_json::json!({"bufferView": view, "componentType": 5126, "count": n, "type": "VEC3"}),
    );
    accessors.push(serde_json::json!({"bufferView": view + 1, "componentType": 5126, "count": n, "type": "VEC3"}));
    let accessor = accessors.len() - 2;
    let node = json["nodes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|n| n.get("mesh").is_some())
        .expect("the cube has a mesh node");
    node["extensions"] = serde_json::json!({"EXT_mesh_gpu_instancing": {"attributes": {
        "TRANSLATION": accessor, "SCALE": accessor + 1, "_ID": accessor}}});
    json["extensionsUsed"] = serde_json::json!(["EXT_mesh_gpu_instancing"]);
    json["extensionsRequired"] = serde_json::json!(["EXT_mesh_gpu_instancing"]);
    std::fs::write(input.join("cube.gltf"), serde_json::to_vec(&json).unwrap()).unwrap();
    input
}

/// N instances bake to N copies of the cube: N times its triangles, and bounds that are
/// the union of the instances' (each a cube scaled by 2 about its translation, then placed
/// by the node's transform, identity for the corpus cube).
#[test]
fn instances_bake_to_one_copy_each_within_the_bounds_of_all() {
    let Some(corpus) = corpus("instancing_baked") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    built(&corpus.join("gltf/cube"), &one);
    let cube = read_hmesh(&one.join("cube.hmesh"));
    let translations = [
        [0.0, 0.0, 0.0],
        [10.0, 0.0, 0.0],
        [0.0, -7.0, 0.0],
        [3.0, 4.0, 25.0],
        [-5.0, 1.0, -2.0],
    ];
    let input = instanced_cube(&corpus, dir.path(), &translations);
    let many = dir.path().join("many");
    let out = build(&input, &many);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("_ID") || {
            let report = std::fs::read_to_string(many.join("assets.map.json")).unwrap_or_default();
            report.contains("_ID")
        },
        "the dropped per-instance attribute is warned about: {stderr}"
    );
    let mesh = read_hmesh(&many.join("cube.hmesh"));
    assert_eq!(
        mesh.indices.len(),
        translations.len() * cube.indices.len(),
        "one copy of the cube's triangles per instance"
    );
    assert_eq!(
        mesh.submeshes.len(),
        translations.len() * cube.submeshes.len()
    );
    let (lo, hi) = (cube.bounds.aabb_min, cube.bounds.aabb_max);
    for a in 0..3 {
        let want_min = translations
            .iter()
            .map(|t| t[a] + 2.0 * lo[a])
            .fold(f32::INFINITY, f32::min);
        let want_max = translations
            .iter()
            .map(|t| t[a] + 2.0 * hi[a])
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            (mesh.bounds.aabb_min[a] - want_min).abs() < 1e-4,
            "axis {a}"
        );
        assert!(
            (mesh.bounds.aabb_max[a] - want_max).abs() < 1e-4,
            "axis {a}"
        );
    }
}

/// gltf-transform's `instance` turns the cake's five nodes drawing one candle mesh into
/// one node with five instances: the baked model is the same triangles in the same place.
#[test]
fn gltf_transform_instances_build_like_the_nodes_they_replace() {
    let Some(corpus) = corpus("instancing_gltf_transform") else {
        return;
    };
    let Some(cli) = gltf_transform("instancing_gltf_transform") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = corpus.join("gltf/AlienCake/cakeBirthday.glb");
    let instanced = dir.path().join("cake-instanced.glb");
    run_gltf_transform(
        &cli,
        &[
            "instance",
            source.to_str().unwrap(),
            instanced.to_str().unwrap(),
        ],
    );
    let (json, _) = glb_split(&std::fs::read(&instanced).unwrap());
    let instancing_nodes = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["extensions"]["EXT_mesh_gpu_instancing"].is_object())
        .count();
    assert!(instancing_nodes >= 1, "gltf-transform wrote instancing");
    let plain_in = alone(dir.path(), "plain", &source, "cake.glb");
    let inst_in = alone(dir.path(), "inst", &instanced, "cake.glb");
    built(&plain_in, &dir.path().join("plain-out"));
    built(&inst_in, &dir.path().join("inst-out"));
    let plain = read_hmesh(&dir.path().join("plain-out/cake.hmesh"));
    let inst = read_hmesh(&dir.path().join("inst-out/cake.hmesh"));
    assert_eq!(inst.indices.len(), plain.indices.len());
    for a in 0..3 {
        assert!((inst.bounds.aabb_min[a] - plain.bounds.aabb_min[a]).abs() < 1e-4);
        assert!((inst.bounds.aabb_max[a] - plain.bounds.aabb_max[a]).abs() < 1e-4);
    }
}

/// Instances past the triangle limit fail the model as a resource limit naming the node,
/// before any copy is made.
#[test]
fn instanced_triangles_over_the_limit_fail_naming_the_node() {
    let Some(corpus) = corpus("instancing_limit") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = instanced_cube(&corpus, dir.path(), &[[0.0; 3]; 4]);
    let options = assetc::import::ImportOptions {
        input_root: input.clone(),
        limits: assetc::import::ImportLimits {
            max_instanced_triangles: 12 * 3,
            ..Default::default()
        },
    };
    let error =
        assetc::import::import_gltf(&input.join("cube.gltf"), "cube", &options).unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("extensions.EXT_mesh_gpu_instancing"),
        "{text}"
    );
    assert!(text.contains("resource limit"), "{text}");
    assert!(text.contains("48"), "4 instances of 12 triangles: {text}");
}

/// A broken Draco stream fails its model alone, naming the primitive; the model beside it
/// builds.
#[test]
fn broken_draco_stream_fails_that_model_alone_naming_the_primitive() {
    let Some(corpus) = corpus("draco_broken") else {
        return;
    };
    let Some(cli) = gltf_transform("draco_broken") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let draco = dir.path().join("torus-draco.glb");
    run_gltf_transform(
        &cli,
        &[
            "draco",
            corpus.join("gltf/torus/torus.gltf").to_str().unwrap(),
            draco.to_str().unwrap(),
        ],
    );
    let (json, bin) = glb_split(&std::fs::read(&draco).unwrap());
    let ext = &json["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"];
    let view = &json["bufferViews"][ext["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().unwrap() as usize;
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    // Not a Draco stream: its "DRACO" magic overwritten.
    let mut bad_magic = bin.clone();
    bad_magic[start..start + 5].copy_from_slice(b"XXXXX");
    std::fs::write(input.join("bad_magic.glb"), glb_join(&json, &bad_magic)).unwrap();
    // Cut short: the second half of the stream is zeros.
    let mut cut = bin.clone();
    cut[start + len / 2..start + len].fill(0);
    std::fs::write(input.join("cut.glb"), glb_join(&json, &cut)).unwrap();
    std::fs::copy(corpus.join("gltf/cube/cube.gltf"), input.join("cube.gltf")).unwrap();
    std::fs::copy(corpus.join("gltf/cube/cube.bin"), input.join("cube.bin")).unwrap();

    let runtime = dir.path().join("out");
    let out = build(&input, &runtime);
    assert_eq!(out.status.code(), Some(1), "assets failed: exit code 1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    for name in ["bad_magic.glb", "cut.glb"] {
        let line = stderr
            .lines()
            .find(|l| l.contains(name) && l.contains("meshes[0].primitives[0]"))
            .unwrap_or_else(|| panic!("{name} fails naming its primitive: {stderr}"));
        assert!(line.contains("KHR_draco_mesh_compression"), "{line}");
        let stem = name.trim_end_matches(".glb");
        assert!(
            !runtime.join(format!("{stem}.hmesh")).exists(),
            "no partial output for {name}"
        );
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        runtime.join("cube.hmesh").is_file(),
        "the other model builds"
    );
}

/// A required extension assetc still does not read fails the file naming it.
#[test]
fn unknown_required_extension_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let gltf = r#"{"asset":{"version":"2.0"},"extensionsUsed":["EXT_lights_image_based"],
                  "extensionsRequired":["EXT_lights_image_based"]}"#;
    let path = dir.path().join("ibl.gltf");
    std::fs::write(&path, gltf).unwrap();
    let err = assetc::import::import_gltf(
        &path,
        "ibl",
        &assetc::import::ImportOptions::new(dir.path()),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: extension EXT_lights_image_based is required but not supported",
            path.display()
        )
    );
}

/// KHR_texture_basisu: the corpus cube with a base colour texture whose only image is an
/// ETC1S KTX2 written by Basis Universal's own encoder (and a PNG fallback `source` that
/// is a different picture). The model builds, its `.hmat` refs a texture that was
/// written, and that texture was made from the KTX2: the PNG is never read (it is not
/// even there).
#[test]
fn basisu_texture_is_read_from_the_extension_image() {
    let Some(corpus) = corpus("basisu_texture") else {
        return;
    };
    let Some(basisu) = basisu_cli("basisu_texture") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let png = dir.path().join("colour.png");
    image::RgbaImage::from_fn(16, 16, |x, y| {
        image::Rgba([(x * 16) as u8, (y * 16) as u8, 90, 255])
    })
    .save(&png)
    .unwrap();
    let ktx2 = input.join("colour.ktx2");
    let run = std::process::Command::new(&basisu)
        .arg("-ktx2")
        .arg(&png)
        .arg("-output_file")
        .arg(&ktx2)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success() && ktx2.is_file(), "{run:?}");
    std::fs::copy(corpus.join("gltf/cube/cube.bin"), input.join("cube.bin")).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("gltf/cube/cube.gltf")).unwrap())
            .unwrap();
    json["images"] = serde_json::json!([
        {"uri": "fallback_not_there.png"},
        {"uri": "colour.ktx2", "mimeType": "image/ktx2"}
    ]);
    json["textures"] =
        serde_json::json!([{"source": 0, "extensions": {"KHR_texture_basisu": {"source": 1}}}]);
    json["materials"] =
        serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    for mesh in json["meshes"].as_array_mut().unwrap() {
        for p in mesh["primitives"].as_array_mut().unwrap() {
            p["material"] = 0.into();
        }
    }
    json["extensionsUsed"] = serde_json::json!(["KHR_texture_basisu"]);
    json["extensionsRequired"] = serde_json::json!(["KHR_texture_basisu"]);
    std::fs::write(input.join("cube.gltf"), serde_json::to_vec(&json).unwrap()).unwrap();

    let runtime = dir.path().join("out");
    let out = build(&input, &runtime);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("fallback_not_there"),
        "the fallback image is not read: {stderr}"
    );
    let table = hmat::read(&std::fs::read(runtime.join("cube.hmat")).unwrap()).unwrap();
    let id = table.materials[0].base_color_tex;
    assert_ne!(id, 0, "the base colour slot has its texture");
    assert!(runtime.join(format!("tex/{id:016x}.ktx2")).is_file());
}

/// KHR_materials_pbrSpecularGlossiness required: the material has no metallic-roughness
/// fallback and is converted (diffuse -> base colour, metallic 0, roughness
/// 1 - glossiness); merely used, the metallic-roughness material is kept.
#[test]
fn required_specular_glossiness_is_converted() {
    let dir = tempfile::tempdir().unwrap();
    let material = serde_json::json!({
        "pbrMetallicRoughness": {"baseColorFactor": [0.1, 0.1, 0.1, 1.0], "metallicFactor": 0.7},
        "extensions": {"KHR_materials_pbrSpecularGlossiness": {
            "diffuseFactor": [0.5, 0.25, 1.0, 0.75], "glossinessFactor": 0.8,
            "specularFactor": [1.0, 0.0, 0.0]}}
    });
    let import = |required: bool| {
        let mut json = serde_json::json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["KHR_materials_pbrSpecularGlossiness"],
            "materials": [material.clone()],
            "scenes": [{"nodes": []}], "scene": 0
        });
        if required {
            json["extensionsRequired"] = serde_json::json!(["KHR_materials_pbrSpecularGlossiness"]);
        }
        let path = dir.path().join(format!("sg{required}.gltf"));
        std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
        assetc::import::import_gltf(&path, "sg", &assetc::import::ImportOptions::new(dir.path()))
            .unwrap()
            .materials
            .remove(0)
    };
    let converted = import(true);
    assert_eq!(converted.base_color_factor, [0.5, 0.25, 1.0, 0.75]);
    assert_eq!(converted.metallic_factor, 0.0);
    assert!((converted.roughness_factor - 0.2).abs() < 1e-6);
    assert!(converted
        .unsupported_extensions
        .iter()
        .any(|e| e.contains("specular colour")));
    let kept = import(false);
    assert_eq!(kept.base_color_factor, [0.1, 0.1, 0.1, 1.0]);
    assert_eq!(kept.metallic_factor, 0.7);
}
