//! `assetc pack --format hpack` end to end: the original assetc's bundle of a folder, listed,
//! extracted byte for byte and checked; hostile bundles never write outside the destination.
#![cfg(feature = "pipeline")]

use crate::common;

use std::fs;
use std::path::Path;

use assetc::formats::hpack::{self, PackKind};
use assetc::pack::pack_dir_hpack;

/// A compiled-looking tree, with the files a pack leaves out: the build cache, an earlier
/// bundle and a SparkPak archive.
fn make_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let files: Vec<(String, Vec<u8>)> = vec![
        ("assets.hman".into(), b"MANIFEST".to_vec()),
        ("models/chair.hmesh".into(), vec![1; 1000]),
        ("models/chair.hmat".into(), vec![2; 96]),
        ("models/chair.hanim".into(), Vec::new()),
        (
            "tex/0123456789abcdef.ktx2".into(),
            (0..5000u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
        ("shaders/bloom/down.spv".into(), vec![3; 33]),
        ("fonts/Sans.hfont".into(), vec![4; 52]),
        ("scene/Level.json".into(), b"{\"a\": 1}".to_vec()),
    ];
    for (path, data) in &files {
        write(&root.join(path), data);
    }
    write(&root.join(assetc::output::CACHE_NAME), b"assetc cache");
    write(&root.join(assetc::output::LEGACY_CACHE_NAME), b"{}");
    write(&root.join("old/runtime.hpack"), b"HPAK stale");
    write(&root.join("game.spk"), b"SPK1 stale");
    files
}

fn write(path: &Path, data: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, data).unwrap();
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = common::assetc(args);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A bundle assembled field by field from (path, kind, data), payloads 16-aligned after
/// the table: what a hostile or broken writer could produce.
fn craft(entries: &[(&str, u8, &[u8])]) -> Vec<u8> {
    let toc: usize = entries.iter().map(|e| 19 + e.0.len()).sum();
    let mut offsets = Vec::new();
    let mut cursor = (24 + toc).div_ceil(16) * 16;
    for e in entries {
        offsets.push(cursor);
        cursor = (cursor + e.2.len()).div_ceil(16) * 16;
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"HPAK");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(toc as u64).to_le_bytes());
    for (e, &offset) in entries.iter().zip(&offsets) {
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(e.2.len() as u64).to_le_bytes());
        out.push(e.1);
        out.extend_from_slice(&(e.0.len() as u16).to_le_bytes());
        out.extend_from_slice(e.0.as_bytes());
    }
    for (e, &offset) in entries.iter().zip(&offsets) {
        out.resize(offset, 0);
        out.extend_from_slice(e.2);
    }
    out.resize(cursor, 0);
    out
}

#[test]
fn pack_list_extract_check_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("runtime");
    let files = make_tree(&src);
    // The format follows the `.hpack` extension of -o.
    let bundle = tmp.path().join("game.hpack");
    let (code, _, err) = run(&["pack", s(&src), "-o", s(&bundle)]);
    assert_eq!(code, 0, "{err}");
    let bytes = fs::read(&bundle).unwrap();
    assert_eq!(&bytes[..4], b"HPAK");
    assert_eq!(hpack::validate(&bytes), vec![]);

    // Exactly the tree's files: no cache, no packs.
    let pack = hpack::read(&bytes).unwrap();
    let mut expected: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    expected.sort_unstable();
    let packed: Vec<&str> = pack.entries().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(packed, expected);

    // `list`: a header row, then one line per file with its size and kind.
    let (code, out, err) = run(&["pack", "list", s(&bundle)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), files.len() + 1, "{out}");
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["size", "kind", "path"], "{out}");
    for (path, data) in &files {
        let line = out
            .lines()
            .find(|l| l.ends_with(&format!(" {path}")))
            .unwrap_or_else(|| panic!("{path} not listed:\n{out}"));
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(fields[0], data.len().to_string(), "{line}");
        assert_eq!(fields[1], PackKind::of_path(path).name(), "{line}");
    }
    let (code, json, _) = run(&["pack", "list", s(&bundle), "--message-format", "json"]);
    assert_eq!(code, 0);
    let mesh: serde_json::Value = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .find(|v: &serde_json::Value| v["path"] == "models/chair.hmesh")
        .unwrap();
    assert_eq!(mesh["kind"], "mesh");
    assert_eq!(mesh["size"], 1000);

    // `extract`: the same bytes, nothing else.
    let out_dir = tmp.path().join("out");
    let (code, _, err) = run(&["pack", "extract", s(&bundle), "-o", s(&out_dir)]);
    assert_eq!(code, 0, "{err}");
    let extracted = common::tree(&out_dir);
    let mut want = files.clone();
    want.sort();
    assert_eq!(extracted, want);

    let (code, _, err) = run(&["pack", "check", s(&bundle)]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn same_tree_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("runtime");
    make_tree(&src);
    let first = pack_dir_hpack(&src).unwrap();
    assert_eq!(pack_dir_hpack(&src).unwrap(), first);
    // `--format hpack` without -o writes DIR.hpack, the same bytes as the library.
    let (code, _, err) = run(&["pack", s(&src), "--format", "hpack", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(src.with_extension("hpack")).unwrap(), first);
    // A bundle written into the tree itself is left out of the next one.
    let inside = src.join("runtime.hpack");
    let (code, _, err) = run(&["pack", s(&src), "-o", s(&inside), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(&inside).unwrap(), first);
    let (code, _, err) = run(&["pack", s(&src), "-o", s(&inside), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read(&inside).unwrap(), first);
}

#[test]
fn check_fails_on_damage_and_names_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("runtime");
    make_tree(&src);
    let good = pack_dir_hpack(&src).unwrap();

    // One flipped header byte (the version): exit 1.
    let mut flipped = good.clone();
    flipped[4] ^= 0x01;
    let broken = tmp.path().join("broken.hpack");
    fs::write(&broken, &flipped).unwrap();
    let (code, out, _) = run(&["pack", "check", s(&broken)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("version is 3"), "{out}");
    // A flipped magic still reads as an .hpack by its extension, and fails as one.
    let mut flipped = good.clone();
    flipped[0] ^= 0x20;
    fs::write(&broken, &flipped).unwrap();
    let (code, out, _) = run(&["pack", "check", s(&broken)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected \"HPAK\""), "{out}");

    // A crafted `../x` entry: exit 1, naming it.
    let evil = tmp.path().join("evil.hpack");
    fs::write(&evil, craft(&[("../x", 0, b"boo"), ("ok.bin", 0, b"ok")])).unwrap();
    let (code, out, _) = run(&["pack", "check", s(&evil)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("entry 0 \"../x\""), "{out}");
}

#[test]
fn hostile_bundles_never_write_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("dest");
    let evil = tmp.path().join("evil.hpack");
    let sibling = format!(
        "../{}/escaped",
        tmp.path().file_name().unwrap().to_str().unwrap()
    );
    for bad in [
        "../x",
        "/abs.bin",
        "a/../../b",
        "a\\..\\..\\c",
        "c:/d",
        sibling.as_str(),
    ] {
        fs::write(&evil, craft(&[(bad, 0, b"boo"), ("zz.bin", 0, b"ok")])).unwrap();
        let (code, _, err) = run(&["pack", "extract", s(&evil), "-o", s(&dest)]);
        assert_eq!(code, 1, "{bad}: {err}");
        assert!(err.contains(bad), "{bad}: {err}");
        assert_eq!(fs::read(dest.join("zz.bin")).unwrap(), b"ok", "{bad}");
    }
    let mut stray: Vec<String> = common::tree(tmp.path())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    stray.retain(|p| p != "evil.hpack" && p != "dest/zz.bin");
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn paths_equal_up_to_case_are_not_both_extracted() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("case.hpack");
    fs::write(
        &bundle,
        craft(&[("A.bin", 0, b"upper"), ("a.bin", 0, b"lower")]),
    )
    .unwrap();
    let (code, out, _) = run(&["pack", "check", s(&bundle)]);
    assert_eq!(code, 1);
    assert!(out.contains("differs only in case"), "{out}");
    let dest = tmp.path().join("dest");
    let (code, _, err) = run(&["pack", "extract", s(&bundle), "-o", s(&dest)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("a.bin") && err.contains("differs only in case"),
        "{err}"
    );
    // The first stays as it was; the second never overwrote it.
    assert_eq!(fs::read(dest.join("A.bin")).unwrap(), b"upper");
    assert_eq!(common::tree(&dest).len(), 1);
}

#[test]
fn base_is_refused_for_hpack_and_layers_for_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("runtime");
    make_tree(&src);
    let spk = tmp.path().join("base.spk");
    let (code, _, err) = run(&["pack", s(&src), "-o", s(&spk), "-q"]);
    assert_eq!(code, 0, "{err}");
    let bundle = tmp.path().join("game.hpack");
    let (code, _, err) = run(&["pack", s(&src), "-o", s(&bundle), "--base", s(&spk)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--base") && err.contains("hpack"), "{err}");
    assert!(!bundle.exists());
    // The patch API refuses it too.
    assert!(matches!(
        assetc::pack::pack_tree_as(&src, assetc::pack::ArchiveFormat::HPack, Some(&spk)),
        Err(assetc::pack::PackError::BaseNeedsSpk)
    ));

    let (code, _, err) = run(&["pack", s(&src), "-o", s(&bundle), "-q"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["pack", "list", s(&spk), s(&bundle)]);
    assert_eq!(code, 2, "{err}");
    // A renamed bundle is still an .hpack: dispatch is by magic.
    let renamed = tmp.path().join("game.bin");
    fs::copy(&bundle, &renamed).unwrap();
    let (code, out, err) = run(&["pack", "list", s(&renamed)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("models/chair.hmesh"), "{out}");
    let (code, _, err) = run(&["pack", "check", s(&renamed)]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn assetc_check_and_inspect_validate_an_hpack() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("runtime");
    make_tree(&src);
    let tree = tmp.path().join("tree");
    fs::create_dir_all(&tree).unwrap();
    let mut bytes = pack_dir_hpack(&src).unwrap();
    bytes[12] = 1; // flags must be 0
    fs::write(tree.join("game.hpack"), &bytes).unwrap();
    let (code, out, _) = run(&["check", s(&tree)]);
    assert_eq!(code, 1);
    assert!(
        out.lines()
            .any(|l| l.contains("game.hpack") && l.contains("flags are 0x1")),
        "{out}"
    );
    let (code, out, _) = run(&["inspect", s(&tree.join("game.hpack"))]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("models/chair.hmesh"), "{out}");
    assert!(out.contains("PROBLEM"), "{out}");
}
