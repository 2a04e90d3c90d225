//! What a new user trips over, each checked as they would meet it: exit codes and messages
//! for a missing input, `--fail-fast`'s counts, JSON from `check` and `clean`, `init` in a
//! folder that has assets, a `.glb` that is not one, and what `--verify` says it did.

use crate::common;

use common::*;
use std::path::Path;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_input_is_a_usage_error_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothere");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["check", m],
        vec!["info", m],
        vec!["inspect", m],
        vec!["preview", m],
        vec!["pack", m],
        vec!["pack", "list", m],
        vec!["pack", "check", m],
        vec!["pack", "extract", m, "-o", "x"],
    ] {
        let o = assetc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let text = stderr(&o);
        assert_eq!(
            text.matches("does not exist").count(),
            1,
            "{args:?}: {text}"
        );
        assert!(!text.contains("os error"), "{args:?}: {text}");
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("removed"),
            "{args:?}"
        );
    }
}

#[test]
fn fail_fast_counts_what_it_did_not_build_apart_from_what_failed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for i in 0..5 {
        std::fs::write(src.join(format!("broken{i}.gltf")), "{ not json").unwrap();
    }
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out").to_str().unwrap(),
        "--no-config",
        "--fail-fast",
        "-j",
        "1",
        "--message-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let finished: serde_json::Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == "build-finished")
        .unwrap();
    // One thread: the first broken source fails, the four after it are not attempted.
    assert_eq!(
        (finished["failed"].as_u64(), finished["skipped"].as_u64()),
        (Some(1), Some(4)),
        "{text}"
    );
    // Each asset's own event says the same as the summary (the skipped ones were
    // reported as failed before the driver kept one state per asset).
    let statuses: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "asset-finished")
        .map(|v| v["status"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        (
            statuses.iter().filter(|s| *s == "failed").count(),
            statuses.iter().filter(|s| *s == "skipped").count()
        ),
        (1, 4),
        "{text}"
    );
    let human = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out2").to_str().unwrap(),
        "--no-config",
        "--fail-fast",
        "-j",
        "1",
    ]);
    let text = stderr(&human);
    assert!(
        text.contains("1 failed, 4 not built (--fail-fast)"),
        "{text}"
    );
    assert!(text.contains("could not compile 1 asset:"), "{text}");
}

#[test]
fn check_and_clean_speak_json_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        samples().join("box").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A damaged file: check reports it with its file, then a summary object.
    let hmesh = out.join("box.hmesh");
    let mut bytes = std::fs::read(&hmesh).unwrap();
    bytes.truncate(bytes.len() - 7);
    std::fs::write(&hmesh, bytes).unwrap();
    let o = assetc(&["check", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let problem = lines.iter().find(|v| v["reason"] == "problem").unwrap();
    assert!(
        problem["file"].as_str().unwrap().ends_with("box.hmesh"),
        "{problem}"
    );
    assert!(!problem["message"].as_str().unwrap().is_empty());
    let last = lines.last().unwrap();
    assert_eq!(last["reason"], "check-finished");
    assert_eq!(last["success"], false);
    assert!(last["problems"].as_u64().unwrap() >= 1);

    let o = assetc(&["clean", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["reason"], "clean-finished");
    assert!(!out.exists());
}

#[test]
fn init_keeps_an_existing_assets_folder_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(assets.join("mine.txt"), "mine").unwrap();
    let o = assetc(&["init", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kept the existing"), "{text}");
    let names: Vec<_> = std::fs::read_dir(&assets)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        names,
        ["mine.txt"],
        "nothing written into the user's folder"
    );
}

#[test]
fn random_bytes_named_glb_are_a_wrong_glb_header() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("noise.glb"),
        [0x13u8, 0x37, 0xc0, 0xde, 1, 2, 3, 4],
    )
    .unwrap();
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out").to_str().unwrap(),
        "--no-config",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = stderr(&o);
    assert!(
        text.contains("GLB header is wrong") && text.contains("13 37 c0 de"),
        "{text}"
    );
    assert!(!text.contains("JSON"), "{text}");
}

#[test]
fn verify_says_what_it_verified() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        samples().join("box").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--verify",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    // box: .hmesh, .hmat, one texture, the manifest.
    let files = ["box.hmesh", "box.hmat", "assets.hman"]
        .iter()
        .filter(|f| Path::new(&out).join(f).is_file())
        .count()
        + std::fs::read_dir(out.join("tex")).unwrap().count();
    assert!(
        text.contains(&format!("verified: {files} written files")),
        "{text}"
    );
}

/// `asset-finished` events of a JSON build, sorted by source (assets finish in any order).
fn finished_events(o: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "asset-finished")
        .map(|v| (v["source"].as_str().unwrap_or_default().to_owned(), v))
        .collect::<std::collections::BTreeMap<String, serde_json::Value>>()
        .into_values()
        .collect()
}

#[test]
fn meshes_too_small_to_simplify_warn_nothing_and_fresh_assets_repeat_their_warnings() {
    // The samples' small meshes cannot be simplified: their LOD levels are stored empty
    // ("reuse the previous level"). That is normal: `info` and `inspect` state it, the
    // build does not warn of it. A fresh asset's event once had `warnings: [..]` beside
    // `diagnostics: []`.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (s, o) = (samples(), out.to_str().unwrap().to_owned());
    let args = [
        "build",
        s.to_str().unwrap(),
        "-o",
        &o,
        "--no-config",
        "--message-format",
        "json",
    ];
    let first = assetc(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let second = assetc(&args);
    assert!(second.status.success(), "{}", stderr(&second));
    let built = finished_events(&first);
    let fresh = finished_events(&second);
    assert_eq!(built.len(), 5, "{built:#?}");
    for (b, f) in built.iter().zip(&fresh) {
        let source = b["source"].as_str().unwrap();
        assert_eq!(b["status"], "built", "{source}");
        assert_eq!(f["status"], "fresh", "{source}");
        for event in [b, f] {
            assert_eq!(event["warnings"], b["warnings"], "{source}");
            let warnings = event["warnings"].as_array().unwrap();
            assert!(
                warnings
                    .iter()
                    .all(|w| !w.as_str().unwrap().contains("LOD")),
                "{source}: {event:#}"
            );
            let diagnostics = event["diagnostics"].as_array().unwrap();
            assert_eq!(diagnostics.len(), warnings.len(), "{source}: {event:#}");
            for (d, w) in diagnostics.iter().zip(warnings) {
                assert_eq!(d["severity"], "warning");
                assert_eq!(d["file"], source);
                assert!(w
                    .as_str()
                    .unwrap()
                    .ends_with(d["message"].as_str().unwrap()));
            }
        }
    }
}

/// A one-triangle glTF whose buffer is `bin` (written beside it as `<name>.bin`) with the
/// three positions, then three u16 indices; `edit` changes the JSON before it is written.
fn triangle_gltf(
    dir: &Path,
    name: &str,
    indices: [u16; 3],
    edit: impl FnOnce(&mut serde_json::Value),
) {
    let mut bin = Vec::new();
    for v in [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.]] {
        for c in v {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in indices {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 0]);
    std::fs::write(dir.join(format!("{name}.bin")), &bin).unwrap();
    let mut json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"uri": format!("{name}.bin"), "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    });
    edit(&mut json);
    std::fs::write(dir.join(format!("{name}.gltf")), json.to_string()).unwrap();
}

#[test]
fn error_codes_come_from_the_kind_of_failure_not_its_wording() {
    // Codes were picked by substrings of the message: a dangling `mesh 5 does not exist`
    // was called `missing-file`, while a buffer file that is not there (the OS says "No such
    // file or directory") had no code at all.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    triangle_gltf(&src, "good", [0, 1, 2], |_| {});
    triangle_gltf(&src, "out_of_range", [0, 1, 7], |_| {});
    triangle_gltf(&src, "dangling", [0, 1, 2], |j| {
        j["nodes"][0]["mesh"] = 5.into()
    });
    triangle_gltf(&src, "missing_buffer", [0, 1, 2], |j| {
        j["buffers"][0]["uri"] = "nothere.bin".into()
    });
    triangle_gltf(&src, "unknown_extension", [0, 1, 2], |j| {
        j["extensionsRequired"] = serde_json::json!(["EXT_lights_image_based"])
    });
    triangle_gltf(&src, "missing_image", [0, 1, 2], |j| {
        j["images"] = serde_json::json!([{"uri": "nothere.png"}]);
        j["textures"] = serde_json::json!([{"source": 0}]);
        j["materials"] =
            serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
        j["meshes"][0]["primitives"][0]["material"] = 0.into();
    });
    std::fs::write(src.join("broken_json.gltf"), "{").unwrap();
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
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let codes: std::collections::BTreeMap<String, String> = finished_events(&o)
        .iter()
        .map(|e| {
            let error = e["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["severity"] == "error");
            let code = error.map_or("none".to_owned(), |d| {
                d["code"].as_str().unwrap_or("no code").to_owned()
            });
            (e["source"].as_str().unwrap().to_owned(), code)
        })
        .collect();
    let expected: std::collections::BTreeMap<String, String> = [
        ("broken_json.gltf", "invalid-source"),
        ("dangling.gltf", "dangling-reference"),
        ("unknown_extension.gltf", "unsupported-extension"),
        ("good.gltf", "none"),
        ("missing_buffer.gltf", "missing-file"),
        // A missing texture image builds the model without it (`--strict` fails it).
        ("missing_image.gltf", "none"),
        ("out_of_range.gltf", "index-out-of-range"),
    ]
    .iter()
    .map(|(s, c)| (s.to_string(), c.to_string()))
    .collect();
    assert_eq!(codes, expected);
    let missing_image = finished_events(&o)
        .into_iter()
        .find(|e| e["source"] == "missing_image.gltf")
        .unwrap();
    let warning_codes: Vec<&serde_json::Value> = missing_image["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning")
        .map(|d| &d["code"])
        .collect();
    assert_eq!(warning_codes, ["missing-file"], "{missing_image:#}");
}

#[test]
fn a_rule_with_ignore_silences_its_files_and_only_those() {
    // `[[rules]] ignore = true` is documented (build.toml.example) but was never tested.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("art")).unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.join("strip.gltf")).unwrap();
    std::fs::write(src.join("art/a.psd"), b"8BPS").unwrap();
    std::fs::write(src.join("art/b.psd"), b"8BPS").unwrap();
    std::fs::write(src.join("notes.txt"), b"todo").unwrap();
    let config = dir.path().join("build.toml");
    let build = |config_text: &str| {
        std::fs::write(&config, config_text).unwrap();
        let o = assetc(&[
            "build",
            src.to_str().unwrap(),
            "-o",
            dir.path().join("out").to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--message-format",
            "json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["diagnostic"]["code"] == "ignored-files")
            .map(|v| v["diagnostic"]["message"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let before = build("");
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(before[0].contains("ignored 3 files"), "{before:?}");
    let after = build("[[rules]]\nmatch = \"**/*.psd\"\nignore = true\n");
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(
        after[0].contains("ignored 1 file")
            && after[0].contains(".txt")
            && !after[0].contains(".psd"),
        "{after:?}"
    );
    let all = build("[[rules]]\nmatch = \"**/*.psd\"\nignore = true\n\n[[rules]]\nmatch = \"*.txt\"\nignore = true\n");
    assert!(all.is_empty(), "nothing left to report: {all:?}");
}
