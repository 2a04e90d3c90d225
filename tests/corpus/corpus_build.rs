//! The corpus of real glTF assets: every file builds, every output validates, and each
//! `.hmesh` holds exactly the source's triangles over all primitive instances.

use crate::common;

use assetc::formats::hmesh;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The JSON chunk of a `.gltf` or `.glb`.
fn gltf_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    let json = if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        &bytes[20..20 + len]
    } else {
        &bytes[..]
    };
    serde_json::from_slice(json).unwrap()
}

/// Triangles over all primitive instances, counted from the JSON alone (an oracle
/// independent of the importer): the default scene (or every scene), each node's mesh,
/// each triangle-mode primitive's index or vertex count.
fn source_triangles(doc: &Value) -> usize {
    let empty = vec![];
    let scenes = doc["scenes"].as_array().unwrap_or(&empty);
    let roots: Vec<usize> = match doc["scene"].as_u64() {
        Some(s) => scenes[s as usize]["nodes"]
            .as_array()
            .unwrap_or(&empty)
            .iter()
            .map(|n| n.as_u64().unwrap() as usize)
            .collect(),
        None => scenes
            .iter()
            .flat_map(|s| s["nodes"].as_array().cloned().unwrap_or_default())
            .map(|n| n.as_u64().unwrap() as usize)
            .collect(),
    };
    let mut stack = roots;
    let mut total = 0;
    while let Some(n) = stack.pop() {
        let node = &doc["nodes"][n];
        if let Some(m) = node["mesh"].as_u64() {
            for p in doc["meshes"][m as usize]["primitives"]
                .as_array()
                .unwrap_or(&empty)
            {
                let count =
                    match p["indices"].as_u64() {
                        Some(a) => doc["accessors"][a as usize]["count"].as_u64().unwrap() as usize,
                        None => doc["accessors"]
                            [p["attributes"]["POSITION"].as_u64().unwrap() as usize]["count"]
                            .as_u64()
                            .unwrap() as usize,
                    };
                total += match p["mode"].as_u64().unwrap_or(4) {
                    4 => count / 3,
                    5 | 6 => count.saturating_sub(2),
                    _ => 0,
                };
            }
        }
        stack.extend(
            node["children"]
                .as_array()
                .unwrap_or(&empty)
                .iter()
                .map(|c| c.as_u64().unwrap() as usize),
        );
    }
    total
}

#[test]
fn corpus_builds_validates_and_keeps_every_triangle() {
    let Some(corpus) = corpus("corpus_builds_validates_and_keeps_every_triangle") else {
        return;
    };
    let input = corpus.join("gltf");
    let out = tempfile::tempdir().unwrap();
    let o = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--verify",
        "--no-config",
        "-q",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "corpus build failed:\n{stderr}");
    let check = assetc(&["check", out.path().to_str().unwrap()]);
    assert!(
        check.status.success(),
        "check:\n{}",
        String::from_utf8_lossy(&check.stdout)
    );

    let mut compared = 0;
    for source in gltf_files(&input) {
        let rel = source.strip_prefix(&input).unwrap().with_extension("hmesh");
        let rel = rel.to_string_lossy().to_lowercase();
        let bytes = std::fs::read(out.path().join(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let view = hmesh::HMeshView::parse(&bytes).unwrap();
        let problems = hmesh::validate(&bytes);
        assert!(problems.is_empty(), "{rel}: {problems:?}");
        let expected = source_triangles(&gltf_json(&source));
        assert_eq!(
            view.desc.index_count as usize / 3,
            expected,
            "{rel}: triangle count"
        );
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} corpus files compared");

    // The whole build packs into a SparkPak archive that extracts to the same bytes.
    let archive = out.path().with_extension("spk");
    let o = assetc(&[
        "pack",
        out.path().to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        o.status.success(),
        "pack: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let extracted = tempfile::tempdir().unwrap();
    let o = assetc(&[
        "pack",
        "extract",
        archive.to_str().unwrap(),
        "-o",
        extracted.path().to_str().unwrap(),
        "-q",
    ]);
    assert!(
        o.status.success(),
        "extract: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let built: Vec<_> = tree(out.path())
        .into_iter()
        // Bookkeeping of the folder, which a pack leaves out.
        .filter(|(n, _)| {
            !n.ends_with(assetc::output::CACHE_NAME) && n != assetc::output::SOURCE_MAP_NAME
        })
        .collect();
    assert_eq!(
        tree(extracted.path()),
        built,
        "extracted archive differs from the build"
    );
    std::fs::remove_file(&archive).unwrap();
}
