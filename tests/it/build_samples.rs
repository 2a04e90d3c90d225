//! End-to-end builds of `assets-sample/`: validity, determinism across thread counts,
//! incremental behaviour and error isolation.

use crate::common;

use assetc::formats::{hman, hmesh};
use common::*;

#[test]
fn samples_build_validate_and_are_deterministic() {
    let out1 = tempfile::tempdir().unwrap();
    let out2 = tempfile::tempdir().unwrap();
    let samples = samples();
    let r1 = assetc(&[
        "build",
        samples.to_str().unwrap(),
        "-o",
        out1.path().to_str().unwrap(),
        "-j",
        "1",
        "--verify",
        "--no-config",
    ]);
    assert!(
        r1.status.success(),
        "{}",
        String::from_utf8_lossy(&r1.stderr)
    );
    let r2 = assetc(&[
        "build",
        samples.to_str().unwrap(),
        "-o",
        out2.path().to_str().unwrap(),
        "-j",
        "2",
        "--verify",
        "--no-config",
    ]);
    assert!(
        r2.status.success(),
        "{}",
        String::from_utf8_lossy(&r2.stderr)
    );
    let (t1, t2) = (tree(out1.path()), tree(out2.path()));
    let names: Vec<&str> = t1.iter().map(|(n, _)| n.as_str()).collect();
    for expected in [
        "assets.hman",
        "box/box.hmesh",
        "box/box.hmat",
        "hierarchy.hmesh",
        "strip.hmesh",
        "terrain/big_terrain.hmesh",
    ] {
        assert!(names.contains(&expected), "missing {expected} in {names:?}");
    }
    // The cache records time stamps of this machine's files; everything else must match.
    let strip = |t: Vec<(String, Vec<u8>)>| {
        t.into_iter()
            .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
            .collect::<Vec<_>>()
    };
    assert!(strip(t1.clone()) == strip(t2), "-j1 and -j2 trees differ");

    let check = assetc(&["check", out1.path().to_str().unwrap()]);
    assert!(
        check.status.success(),
        "check: {}",
        String::from_utf8_lossy(&check.stdout)
    );

    // The big terrain needs 32-bit indices; the box fits 16-bit ones.
    let terrain = std::fs::read(out1.path().join("terrain/big_terrain.hmesh")).unwrap();
    let view = hmesh::HMeshView::parse(&terrain).unwrap();
    assert!(view.desc.vertex_count > 65535);
    assert_eq!(view.desc.index_width, 4);
    assert_eq!(view.desc.index_count as usize / 3, 2 * 256 * 255);
    let boxm = std::fs::read(out1.path().join("box/box.hmesh")).unwrap();
    let view = hmesh::HMeshView::parse(&boxm).unwrap();
    assert_eq!(view.desc.index_width, 2);
    assert_eq!(view.desc.submesh_count, 2);
    assert_eq!(view.desc.material_count, 2);
    assert_eq!(view.desc.index_count, 36);

    // The manifest lists every mesh and material table, sorted by id.
    let manifest = hman::read(&std::fs::read(out1.path().join("assets.hman")).unwrap()).unwrap();
    let paths: Vec<&str> = manifest.entries().iter().map(|e| e.path.as_str()).collect();
    assert!(paths.contains(&"box/box.hmesh") && paths.contains(&"box/box.hmat"));
    assert!(manifest.entries().windows(2).all(|w| w[0].hash < w[1].hash));
}

/// One large normal-mapped mesh is split across threads (the parallel MikkTSpace, meshlet
/// runs, LOD regions beside the vertex-cache optimisation, a sorted weld, parallel
/// per-vertex passes): its files must not depend on the thread count either.
#[test]
fn a_large_mesh_builds_the_same_on_any_thread_count() {
    let src = tempfile::tempdir().unwrap();
    // 180,000 triangles: over the tangent stage's 65,536 for the reference MikkTSpace, three
    // meshlet runs (65,536 each), two LOD regions (131,072).
    assetc::samples::height_field_glb_with(
        &src.path().join("field.glb"),
        301,
        301,
        true,
        assetc::samples::FieldMaterial::NormalMapped,
    )
    .unwrap();
    let trees: Vec<Vec<(String, Vec<u8>)>> = ["1", "2", "3"]
        .iter()
        .map(|jobs| {
            let out = tempfile::tempdir().unwrap();
            let r = assetc(&[
                "build",
                src.path().to_str().unwrap(),
                "-o",
                out.path().to_str().unwrap(),
                "-j",
                jobs,
                "--no-config",
            ]);
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            tree(out.path())
                .into_iter()
                .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
                .collect()
        })
        .collect();
    let mesh = &trees[0].iter().find(|(n, _)| n == "field.hmesh").unwrap().1;
    let mesh = hmesh::read(mesh).unwrap();
    assert!(mesh.has_tangents, "the normal-mapped field gets tangents");
    assert_eq!(mesh.indices.len() / 3, 2 * 300 * 300);
    assert!(trees[0] == trees[1], "-j1 and -j2 differ");
    assert!(trees[0] == trees[2], "-j1 and -j3 differ");
}

#[test]
fn incremental_rebuild_skips_unchanged_and_removes_deleted_sources() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    copy_dir(&samples(), src.path());
    std::fs::remove_dir_all(src.path().join("terrain")).unwrap();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "build",
            src.path().to_str().unwrap(),
            "-o",
            out.path().to_str().unwrap(),
            "--no-config",
            "--message-format",
            "json",
        ];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| {
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = assetc(&refs);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let first = run(args(&[]));
    assert_eq!(first.matches("\"status\":\"built\"").count(), 4, "{first}");
    let before = tree(out.path());

    let second = run(args(&[]));
    assert_eq!(
        second.matches("\"status\":\"fresh\"").count(),
        4,
        "{second}"
    );
    assert_eq!(tree(out.path()), before, "a no-op rebuild changes nothing");

    // Touching a file without changing it keeps the asset fresh (content hash matches).
    let strip = src.path().join("strip.gltf");
    let text = std::fs::read(&strip).unwrap();
    std::fs::write(&strip, &text).unwrap();
    let third = run(args(&[]));
    assert_eq!(third.matches("\"status\":\"fresh\"").count(), 4, "{third}");

    // Deleting a source removes its outputs and its manifest entries.
    std::fs::remove_file(src.path().join("hierarchy.gltf")).unwrap();
    let fourth = run(args(&[]));
    assert!(fourth.contains("\"removed\":2"), "{fourth}");
    assert!(!out.path().join("hierarchy.hmesh").exists());
    let manifest = hman::read(&std::fs::read(out.path().join("assets.hman")).unwrap()).unwrap();
    assert!(manifest
        .entries()
        .iter()
        .all(|e| !e.path.starts_with("hierarchy")));

    // --no-cache rebuilds everything and gives the same bytes.
    let fifth = run(args(&["--no-cache"]));
    assert_eq!(fifth.matches("\"status\":\"built\"").count(), 3, "{fifth}");
}

#[test]
fn a_broken_asset_fails_alone_with_a_clear_message() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.path().join("good.gltf")).unwrap();
    std::fs::write(src.path().join("broken.gltf"), b"{\"asset\": {\"version\": \"2.0\"}, \"meshes\": [{\"primitives\": [{\"attributes\": {\"POSITION\": 7}}]}]}").unwrap();
    std::fs::write(
        src.path().join("notjson.glb"),
        b"glTF\x02\x00\x00\x00\xff\xff\xff\xff",
    )
    .unwrap();
    let o = assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--no-config",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("broken.gltf"), "{stderr}");
    assert!(stderr.contains("notjson.glb"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.path().join("good.hmesh").is_file());
    assert!(
        !out.path().join("broken.hmesh").exists() && !out.path().join("notjson.hmesh").exists()
    );
    let leftovers: Vec<_> = tree(out.path())
        .into_iter()
        .filter(|(n, _)| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn usage_errors_exit_with_2() {
    let o = assetc(&["build", "--jobs", "many"]);
    assert_eq!(o.status.code(), Some(2));
    let o = assetc(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

/// An asset's textures are encoded on every thread of the pool, and assets start largest
/// first: on the corpus (FlightHelmet's 15 textures, MixedLightingExample's, models of
/// every size), the tree must still be the same whatever the thread count.
#[test]
fn corpus_textures_build_the_same_on_any_thread_count() {
    let Some(corpus) = corpus_gltf("build_samples") else {
        return;
    };
    let trees: Vec<Vec<(String, Vec<u8>)>> = ["1", "2", "3"]
        .iter()
        .map(|jobs| {
            let out = tempfile::tempdir().unwrap();
            let r = assetc(&[
                "build",
                corpus.to_str().unwrap(),
                "-o",
                out.path().to_str().unwrap(),
                "-j",
                jobs,
                "--no-config",
            ]);
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            tree(out.path())
                .into_iter()
                .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
                .collect()
        })
        .collect();
    let textures = trees[0]
        .iter()
        .filter(|(n, _)| n.ends_with(".ktx2"))
        .count();
    assert!(textures >= 15, "the corpus encodes {textures} textures");
    assert!(trees[0] == trees[1], "-j1 and -j2 differ");
    assert!(trees[0] == trees[2], "-j1 and -j3 differ");
}
