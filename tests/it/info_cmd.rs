//! `assetc info`: tables for people (no Rust debug output), JSON lines with `--json`.

use crate::common;

fn built_samples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let built = common::assetc(&[
        "build",
        common::samples().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(built.status.success(), "{built:?}");
    dir
}

#[test]
fn info_prints_tables_for_people() {
    let dir = built_samples();
    let out = dir.path().join("out");
    let info = common::assetc(&["info", out.to_str().unwrap()]);
    assert!(info.status.success(), "{info:?}");
    let text = String::from_utf8_lossy(&info.stdout);
    for heading in ["meshes (", "material tables (", "textures (", "sources ("] {
        assert!(text.contains(heading), "no {heading:?} table:\n{text}");
    }
    assert!(text.contains("GPU memory"), "{text}");
    // Every compiled mesh of the tree has its row.
    for entry in walkdir::WalkDir::new(&out).into_iter().flatten() {
        let rel = entry
            .path()
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.ends_with(".hmesh") {
            assert!(text.contains(&rel), "{rel} missing:\n{text}");
        }
    }
    for debug in ["Some(", "None", "FileInfo", "[]"] {
        assert!(!text.contains(debug), "debug output {debug:?}:\n{text}");
    }
}

#[test]
fn info_json_is_one_object_per_line() {
    let dir = built_samples();
    let out = dir.path().join("out");
    let info = common::assetc(&["info", out.to_str().unwrap(), "--json"]);
    assert!(info.status.success(), "{info:?}");
    let text = String::from_utf8_lossy(&info.stdout);
    let reasons: Vec<String> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON object per line");
            v["reason"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert!(reasons.iter().any(|r| r == "file"), "{reasons:?}");
    assert!(reasons.iter().any(|r| r == "source"), "{reasons:?}");
    assert_eq!(reasons.last().map(String::as_str), Some("totals"));
}

#[test]
fn info_counts_every_file_and_the_joints_a_clip_animates() {
    // `info` once counted only the runtime formats it reads: a Qt target's `.qml` and
    // `maps/*.png` were left out of the file count, and the `.hanim` joints column was
    // blank. The fox is skinned and animated; the Qt target writes QML and maps.
    let Some(corpus) = common::corpus("info_counts_every_file_and_the_joints_a_clip_animates")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(corpus.join("gltf/animated/Fox.glb"), input.join("fox.glb")).unwrap();
    let out = dir.path().join("out");
    let built = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "-q",
        "--target",
        "hmesh",
        "--target",
        "qtmesh",
    ]);
    assert!(built.status.success(), "{built:?}");
    let info = common::assetc(&["info", out.to_str().unwrap(), "--json"]);
    assert!(info.status.success(), "{info:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&info.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let files: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["reason"] == "file")
        .map(|l| &l["info"])
        .collect();
    let on_disk: Vec<String> = walkdir::WalkDir::new(&out)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let rel = e.path().strip_prefix(&out).unwrap();
            rel.to_string_lossy().replace('\\', "/")
        })
        .collect();
    let listed: Vec<String> = files
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, on_disk);
    assert!(listed.iter().any(|p| p.ends_with(".qml")), "{listed:?}");
    let totals = &lines.last().unwrap()["totals"];
    assert_eq!(totals["files"], on_disk.len());

    let row = |suffix: &str| {
        *files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("no {suffix} in {listed:?}"))
    };
    let skeleton = row("fox.hmesh")["joints"].as_u64().unwrap();
    let animated = row("fox.hanim")["joints"].as_u64().unwrap();
    assert!(
        animated > 0 && animated <= skeleton,
        "{animated} joints animated of {skeleton}"
    );
    let text = common::assetc(&["info", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("joints animated"), "{text}");
}

#[test]
fn inspect_shows_bmd_and_spk_as_tables_and_typed_json() {
    // `inspect` on .bmd and .spk printed Rust debug text (`Some("strip/default")`,
    // `SpkEntry { .. }`), and --json gave every value as a string.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let config = dir.path().join("bmd.toml");
    // The samples' terrain is past what the loader-compatible reading can hold.
    std::fs::write(&config, "[bmd1]\ncompat = \"spec\"\n").unwrap();
    let built = common::assetc(&[
        "build",
        common::samples().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "-q",
        "--target",
        "bmd1",
    ]);
    assert!(built.status.success(), "{built:?}");
    let archive = dir.path().join("game.spk");
    let packed = common::assetc(&[
        "pack",
        out.to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
        "-q",
    ]);
    assert!(packed.status.success(), "{packed:?}");
    let bmd = out.join("strip.bmd");
    for file in [&bmd, &archive] {
        let text = common::assetc(&["inspect", file.to_str().unwrap()]);
        assert!(text.status.success(), "{text:?}");
        let text = String::from_utf8_lossy(&text.stdout);
        for debug in ["Some(", "None", "SpkEntry", "Lod {", "{ "] {
            assert!(!text.contains(debug), "debug output {debug:?}:\n{text}");
        }
    }
    let json = |file: &std::path::Path| -> serde_json::Value {
        let o = common::assetc(&["inspect", file.to_str().unwrap(), "--json"]);
        assert!(o.status.success(), "{o:?}");
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let model = assetc::formats::bmd1::read(&std::fs::read(&bmd).unwrap()).unwrap();
    let doc = json(&bmd);
    let meshes = doc["document"]["tables"]["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), model.meshes.len());
    assert_eq!(meshes[0]["vertices"], model.meshes[0].vertices.len());
    assert_eq!(
        meshes[0]["material"],
        model.meshes[0].material.clone().unwrap()
    );
    assert_eq!(doc["document"]["facts"]["meshes"], model.meshes.len());

    let bytes = std::fs::read(&archive).unwrap();
    let pak = assetc::formats::spk::open(&bytes).unwrap();
    let doc = json(&archive);
    let entries = doc["document"]["tables"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), pak.len());
    for (row, entry) in entries.iter().zip(pak.entries()) {
        assert_eq!(row["path"], entry.path.as_str());
        assert_eq!(row["offset"], entry.data_offset);
        assert_eq!(row["bytes"], entry.original_size);
        assert_eq!(row["stored bytes"], entry.compressed_size);
    }
}
