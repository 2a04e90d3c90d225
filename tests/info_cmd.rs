//! `assetc info`: tables for people (no Rust debug output), JSON lines with `--json`.

mod common;

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
