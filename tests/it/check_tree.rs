//! `assetc check` sees damage the validators cannot: a flipped byte inside vertex data
//! or a texture level changes the file's XXH3-64 digest recorded in `assets.hman` v2,
//! and a truncated file is reported once, with its name.

use crate::common;

use assetc::formats::hman;
use common::*;
use std::path::Path;

fn build(out: &Path) {
    let o = assetc(&[
        "build",
        samples().to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn check(out: &Path) -> Vec<String> {
    let o = assetc(&["check", out.to_str().unwrap(), "-q"]);
    let lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(o.status.success(), lines.is_empty(), "{lines:?}");
    lines
}

/// The first file of the tree with this extension.
fn first(out: &Path, ext: &str) -> std::path::PathBuf {
    let rel = tree(out)
        .into_iter()
        .map(|(rel, _)| rel)
        .find(|rel| rel.ends_with(ext))
        .unwrap_or_else(|| panic!("the sample build wrote no {ext} file"));
    out.join(rel)
}

#[test]
fn manifest_records_size_and_digest_of_every_file() {
    let out = tempfile::tempdir().unwrap();
    build(out.path());
    assert_eq!(check(out.path()), Vec::<String>::new());
    let m = hman::read(&std::fs::read(out.path().join("assets.hman")).unwrap()).unwrap();
    assert_eq!(m.version(), 2);
    for e in m.entries() {
        let bytes = std::fs::read(out.path().join(&e.path)).unwrap();
        assert_eq!(e.file, Some(hman::FileStamp::of(&bytes)), "{}", e.path);
    }
}

#[test]
fn flipped_vertex_byte_and_texture_byte_are_reported() {
    let out = tempfile::tempdir().unwrap();
    build(out.path());
    // A byte inside VTXS: the UV of the first vertex, a value no rule constrains.
    let mesh = first(out.path(), ".hmesh");
    let mut bytes = std::fs::read(&mesh).unwrap();
    // The chunk table (32-byte header, 24-byte entries: fourcc, flags, offset, size)
    // says where VTXS starts; +20 is the first vertex's UV.
    let count = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let vtxs = (0..count)
        .map(|i| &bytes[32 + 24 * i..56 + 24 * i])
        .find(|e| &e[..4] == b"VTXS")
        .map(|e| u64::from_le_bytes(e[8..16].try_into().unwrap()) as usize)
        .expect("a VTXS chunk");
    let at = vtxs + 20;
    bytes[at] ^= 0x01;
    std::fs::write(&mesh, &bytes).unwrap();
    // The last byte of a texture: inside its level data.
    let texture = first(out.path(), ".ktx2");
    let mut tex = std::fs::read(&texture).unwrap();
    let last = tex.len() - 1;
    tex[last] ^= 0x80;
    std::fs::write(&texture, &tex).unwrap();

    let problems = check(out.path());
    // No validator rule constrains a UV: only the manifest's digest can see that flip.
    let name = mesh.display().to_string();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with(&name) && p.contains("differs")),
        "{name} not reported: {problems:?}"
    );
    // The texture's flip breaks its zstd stream, which the validator reports; the digest
    // check then does not repeat it (each damaged file once).
    let name = texture.display().to_string();
    assert_eq!(
        problems.iter().filter(|p| p.starts_with(&name)).count(),
        1,
        "{name} not reported once: {problems:?}"
    );
}

#[test]
fn truncated_file_is_reported_once_with_its_name() {
    let out = tempfile::tempdir().unwrap();
    build(out.path());
    let mesh = first(out.path(), ".hmesh");
    let bytes = std::fs::read(&mesh).unwrap();
    std::fs::write(&mesh, &bytes[..80]).unwrap();
    let problems = check(out.path());
    let name = mesh.display().to_string();
    // One problem, from the validator (what is broken, where), naming the file: the
    // manifest's size check does not repeat it.
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with(&name), "{problems:?}");
    assert!(
        !problems[0].contains("at byte 80: at byte 80"),
        "{problems:?}"
    );
    assert!(!problems[0].contains("records"), "{problems:?}");
}
