//! A setting rebuilds only the assets whose kind reads it (docs/scale.md "What rebuilds
//! what"): every key of every build.toml table is changed alone after a full build, and
//! the assets that rebuild are exactly those of the kinds that read its table. Then each
//! table is changed in a clean build, and every asset said not to read it must come out
//! byte for byte as with the defaults: a table left out of a kind's key that the kind
//! does read would show here as a changed output.

use crate::common;

use common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One asset of every kind, and a model without images beside one with an image.
fn source_tree(root: &Path, font: &Path) {
    copy_dir(&samples().join("box"), &root.join("box"));
    std::fs::copy(samples().join("strip.gltf"), root.join("strip.gltf")).unwrap();
    // 2:1, so that `texture.cubemap` (a panorama) and `array_layers = 2` both fit it.
    image::RgbImage::from_fn(64, 32, |x, y| {
        image::Rgb([(x * 4) as u8, (y * 8) as u8, 90])
    })
    .save(root.join("icon.png"))
    .unwrap();
    let sky = root.join("sky.env");
    std::fs::create_dir_all(&sky).unwrap();
    for (i, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        let shade = 40 * i as u8;
        image::RgbImage::from_pixel(8, 8, image::Rgb([shade, 255 - shade, 128]))
            .save(sky.join(format!("{face}.png")))
            .unwrap();
    }
    let mut lut = String::from("LUT_3D_SIZE 2\n");
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                lut += &format!("{r} {g} {b}\n");
            }
        }
    }
    std::fs::write(root.join("grade.lut.cube"), lut).unwrap();
    std::fs::create_dir_all(root.join("levels")).unwrap();
    std::fs::write(root.join("levels/one.json"), b"{\"level\": 1}\n").unwrap();
    std::fs::copy(font, root.join("ui.ttf")).unwrap();
    std::fs::write(
        root.join("tint.frag"),
        "#version 450\nlayout(location = 0) out vec4 colour;\n\
         void main() {\n#ifdef BRIGHT\n  colour = vec4(1.0);\n#else\n  colour = vec4(0.5);\n#endif\n}\n",
    )
    .unwrap();
    std::fs::write(root.join("beep.wav"), wav_22050_hz_mono(2_205)).unwrap();
}

/// A 16-bit PCM mono WAV of `frames` frames of a 441 Hz square wave at 22,050 Hz.
fn wav_22050_hz_mono(frames: u32) -> Vec<u8> {
    let data_bytes = frames * 2;
    let mut w = Vec::new();
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_bytes).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&22_050u32.to_le_bytes());
    w.extend_from_slice(&44_100u32.to_le_bytes()); // bytes a second
    w.extend_from_slice(&2u16.to_le_bytes()); // block align
    w.extend_from_slice(&16u16.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_bytes.to_le_bytes());
    for i in 0..frames {
        let v: i16 = if (i / 25) % 2 == 0 { 8_000 } else { -8_000 };
        w.extend_from_slice(&v.to_le_bytes());
    }
    w
}

/// Every key of every table, each with a value other than its default that is valid on
/// its own. `every_key_is_changed_by_the_test` holds this list to the settings' own keys.
const CHANGES: &[(&str, &str, &str)] = &[
    ("mesh", "generate_normals", "false"),
    ("mesh", "generate_tangents", "true"),
    ("mesh", "normal_smoothing_angle", "30.0"),
    ("mesh", "weld_vertices", "false"),
    ("mesh", "weld_threshold", "0.001"),
    ("mesh", "optimize", "false"),
    ("mesh", "meshlet_max_vertices", "32"),
    ("mesh", "meshlet_max_triangles", "64"),
    ("mesh", "meshlet_cone_weight", "0.0"),
    ("mesh", "lod_ratios", "[0.5]"),
    ("mesh", "lod_target_error", "0.1"),
    ("mesh", "bake_transforms", "false"),
    ("mesh", "cluster_lod", "true"),
    ("mesh", "cluster_compress", "true"),
    ("mesh", "cluster_vertex_copies", "true"),
    ("mesh", "generate_lightmap_uvs", "true"),
    ("mesh", "lightmap_resolution", "256"),
    ("texture", "format", "\"rgba8\""),
    ("texture", "astc_block", "\"4x4\""),
    ("texture", "per_class", "true"),
    ("texture", "max_size", "4"),
    ("texture", "mipmaps", "false"),
    ("texture", "mip_filter", "\"lanczos3\""),
    ("texture", "quality", "0.25"),
    ("texture", "bc_zstd", "false"),
    ("texture", "bc7_rdo_lambda", "0.5"),
    ("texture", "mode", "\"linear\""),
    ("texture", "cubemap", "true"),
    ("texture", "missing_images", "\"fail\""),
    ("texture", "array_layers", "2"),
    ("animation", "import", "false"),
    ("animation", "keyframe_reduction", "false"),
    ("animation", "tolerance", "0.01"),
    ("bmd1", "vertex_encoding", "\"128\""),
    ("bmd1", "sample_rate_hz", "15.0"),
    ("bmd1", "position_error", "0.001"),
    ("bmd1", "uv_error", "0.001"),
    ("bmd1", "compat", "\"spec\""),
    ("qtmesh", "mesh_version", "5"),
    ("qtmesh", "naming", "\"qt64\""),
    ("font", "charset", "[\"U+0400-U+0410\"]"),
    ("font", "charset_file", "\"levels/one.json\""),
    ("font", "msdf", "true"),
    ("font", "atlas_size", "1024"),
    ("font", "glyph_size", "24"),
    ("font", "spread", "6.0"),
    ("shader", "defines", "{ BRIGHT = \"\" }"),
    ("shader", "import_paths", "[\"vendor/shaders\"]"),
    ("shader", "outputs", "[\"spirv\", \"wgsl\"]"),
    ("audio", "sample_rate", "48000"),
    ("audio", "bit_depth", "32"),
    ("audio", "force_3d", "true"),
    ("audio", "format", "\"ogg\""),
    ("audio", "compression_quality", "0.5"),
    ("audio", "loudness", "-16.0"),
];

const MODELS: &[&str] = &["box/box.gltf", "strip.gltf"];

/// The sources a change of `table` (`table.key` where a key is read apart from its table)
/// rebuilds under the default targets (`hmesh` only).
fn rebuilt_by(table: &str) -> BTreeSet<&'static str> {
    let set: &[&str] = match table {
        // Models only read it (a missing image fails them or leaves its slots empty), and
        // each of them, with images or without.
        "texture.missing_images" => &["box/box.gltf", "icon.png", "sky.env", "strip.gltf"],
        "mesh" | "animation" | "targets" => MODELS,
        // The model with an image encodes it; the one without has no texture to encode.
        "texture" => &["box/box.gltf", "icon.png", "sky.env"],
        // Tables of targets the build does not run.
        "bmd1" | "qtmesh" => &[],
        "font" => &["ui.ttf"],
        "shader" => &["tint.frag"],
        "audio" => &["beep.wav"],
        other => panic!("no expectation for table [{other}]"),
    };
    set.iter().copied().collect()
}

struct Tree {
    _dir: tempfile::TempDir,
    input: std::path::PathBuf,
    config: std::path::PathBuf,
}

fn tree(font: &Path) -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("assets");
    source_tree(&input, font);
    let config = dir.path().join("build.toml");
    Tree {
        input,
        config,
        _dir: dir,
    }
}

/// Builds with `config` as build.toml; returns each source's status.
fn build(tree: &Tree, out: &Path, config: &str) -> BTreeMap<String, String> {
    let config = format!("embed = [\"levels/*.json\"]\n{config}");
    std::fs::write(&tree.config, &config).unwrap();
    let o = assetc(&[
        "build",
        tree.input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        tree.config.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "config {config:?}:\n{log}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    log.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "asset-finished")
        .map(|v| {
            (
                v["source"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn setting(table: &str, key: &str, value: &str) -> String {
    format!("[{table}]\n{key} = {value}\n")
}

#[test]
fn every_key_is_changed_by_the_test() {
    // build.toml.example shows every key of every table (tests/it/settings_effects.rs
    // holds it to the settings types); `texture.mode`, `qtmesh.naming` and
    // `audio.loudness` commented out, being unset by default.
    let example: toml::Table = include_str!("../../build.toml.example").parse().unwrap();
    let mut every: BTreeSet<(String, String)> = [
        ("texture", "mode"),
        ("qtmesh", "naming"),
        ("audio", "loudness"),
    ]
    .iter()
    .map(|(t, k)| (t.to_string(), k.to_string()))
    .collect();
    for (table, value) in &example {
        // `[cache]` and `[limits]` are the build's, not a source's settings.
        let per_source = !matches!(table.as_str(), "cache" | "limits");
        if let (toml::Value::Table(keys), true) = (value, per_source) {
            every.extend(keys.keys().map(|k| (table.clone(), k.clone())));
        }
    }
    let changed: BTreeSet<(String, String)> = CHANGES
        .iter()
        .map(|(t, k, _)| (t.to_string(), k.to_string()))
        .collect();
    assert_eq!(changed, every, "CHANGES must name every key of every table");
}

#[test]
fn a_setting_rebuilds_only_the_assets_whose_kind_reads_it() {
    let Some(font) = dejavu("settings_keys") else {
        return;
    };
    let tree = tree(&font);
    let out = tree.input.parent().unwrap().join("out");
    let first = build(&tree, &out, "");
    assert_eq!(first.len(), 9, "one asset of each kind: {first:?}");
    assert!(first.values().all(|s| s == "built"), "{first:?}");

    let mut changes: Vec<(String, String)> = CHANGES
        .iter()
        .map(|(table, key, value)| {
            let read_apart = (*table, *key) == ("texture", "missing_images");
            let name = match read_apart {
                true => format!("{table}.{key}"),
                false => table.to_string(),
            };
            (name, setting(table, key, value))
        })
        .collect();
    changes.push((
        "targets".to_string(),
        "targets = [\"hmesh\", \"bmd1\"]\n".to_string(),
    ));
    // Every kind's output names follow it: every source rebuilds.
    changes.push(("keep_case".to_string(), "keep_case = true\n".to_string()));
    let every_source: BTreeSet<&str> = first.keys().map(String::as_str).collect();
    for (table, config) in &changes {
        // Each change from a tree built with the defaults: the change, then back.
        for (pass, config) in [("changed", config.as_str()), ("restored", "")] {
            let statuses = build(&tree, &out, config);
            let rebuilt: BTreeSet<&str> = statuses
                .iter()
                .filter(|(_, s)| *s == "built")
                .map(|(source, _)| source.as_str())
                .collect();
            let expected = match table.as_str() {
                "keep_case" => every_source.clone(),
                other => rebuilt_by(other),
            };
            assert_eq!(
                rebuilt, expected,
                "{pass} {config:?} rebuilt these; every other asset must stay fresh: {statuses:?}"
            );
        }
    }
}

/// A table changed as a whole, every key at once (where the keys allow it together).
fn whole_table(table: &str) -> String {
    let mut text = format!("[{table}]\n");
    for (t, key, value) in CHANGES.iter().filter(|(t, ..)| *t == table) {
        // One combination that is valid: `cubemap` and `array_layers` exclude each other,
        // and with `mode` the cube's faces would not show their own class.
        let skip = matches!(
            (*t, *key),
            ("texture", "cubemap") | ("texture", "mode") | ("texture", "array_layers")
        );
        if !skip {
            text += &format!("{key} = {value}\n");
        }
    }
    text
}

#[test]
fn a_table_outside_a_kinds_key_leaves_its_outputs_byte_identical() {
    let Some(font) = dejavu("settings_keys") else {
        return;
    };
    let tree = tree(&font);
    let scratch = tempfile::tempdir().unwrap();
    let defaults_out = scratch.path().join("defaults");
    build(&tree, &defaults_out, "");
    let defaults = without_cache(common::tree(&defaults_out));
    for table in [
        "mesh",
        "texture",
        "animation",
        "bmd1",
        "qtmesh",
        "font",
        "shader",
        "audio",
    ] {
        let out = scratch.path().join(table);
        let statuses = build(&tree, &out, &whole_table(table));
        assert!(statuses.values().all(|s| s == "built"), "{statuses:?}");
        let changed = without_cache(common::tree(&out));
        let readers = rebuilt_by(table);
        // Outputs of the sources that do not read the table: everything but the readers'
        // own files (and shared textures, which only a reader of [texture] writes), and
        // the manifest and the source map, which list every output.
        let of_readers = |path: &str| {
            path == "assets.hman"
                || path == "assets.map.json"
                || path.starts_with("tex/")
                || readers.iter().any(|source| {
                    // `<ref>.<ext>`, or a folder of outputs (`tint/main.spv`).
                    let stem = source.split('.').next().unwrap_or(source);
                    path.starts_with(&format!("{stem}.")) || path.starts_with(&format!("{stem}/"))
                })
        };
        let unread = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
            files
                .iter()
                .filter(|(path, _)| !of_readers(path))
                .cloned()
                .collect()
        };
        let (before, after) = (unread(&defaults), unread(&changed));
        assert!(!before.is_empty(), "[{table}]: outputs outside its readers");
        assert_eq!(
            before.iter().map(|f| &f.0).collect::<Vec<_>>(),
            after.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "[{table}] changed which files the other kinds write"
        );
        for ((path, a), (_, b)) in before.iter().zip(&after) {
            assert!(
                a == b,
                "[{table}] changed {path}, whose kind does not read it"
            );
        }
        // And the readers' outputs do change (the table is read at all).
        if !readers.is_empty() && !matches!(table, "animation") {
            let of = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
                files
                    .iter()
                    .filter(|(p, _)| of_readers(p))
                    .cloned()
                    .collect()
            };
            assert_ne!(of(&defaults), of(&changed), "[{table}] changed nothing");
        }
    }
}

fn without_cache(files: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    files
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".assetc-cache") && !path.starts_with("report/"))
        .collect()
}
