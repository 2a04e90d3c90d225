//! `assetc pack` end to end: pack a folder, extract it, compare; hostile archives never
//! write outside the destination.
#![cfg(feature = "pipeline")]

use std::fs;
use std::path::{Path, PathBuf};

use assetc::formats::spk::{assemble_raw, RawTocEntry};
use assetc::pack::{check, extract, list, pack_dir, PackError};

fn make_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let files: Vec<(String, Vec<u8>)> = vec![
        (
            "textures/brick.png".into(),
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
                .collect(),
        ),
        ("meshes/lod0/tree.hmesh".into(), vec![0u8; 20_000]),
        ("readme.txt".into(), b"hello sparkpak".to_vec()),
    ];
    for (path, data) in &files {
        let full = root.join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, data).unwrap();
    }
    files
}

/// Every non-folder entry under `root`, relative to it, without following links.
fn all_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn pack_extract_round_trip_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let files = make_tree(&src);
    let bytes = pack_dir(&src, None).unwrap();
    assert_eq!(
        pack_dir(&src, None).unwrap(),
        bytes,
        "same tree, same bytes"
    );
    let archive = tmp.path().join("base.spk");
    fs::write(&archive, &bytes).unwrap();
    assert!(check(&archive).is_empty(), "{:?}", check(&archive));

    let out = tmp.path().join("out");
    let report = extract(&archive, &out).unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(report.written.len(), files.len());
    for (path, data) in &files {
        assert_eq!(&fs::read(out.join(path)).unwrap(), data, "{path}");
    }
    assert_eq!(
        all_files(&out).len(),
        files.len(),
        "no stray temporary files"
    );
}

#[test]
fn paths_are_lower_cased_and_clashes_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir_all(src.join("Tex")).unwrap();
    fs::write(src.join("Tex/Brick.PNG"), b"png").unwrap();
    let archive = tmp.path().join("a.spk");
    fs::write(&archive, pack_dir(&src, None).unwrap()).unwrap();
    let listed = list(&[archive]).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].path, "tex/brick.png");

    fs::write(src.join("Tex/brick.png"), b"other").unwrap();
    assert!(matches!(
        pack_dir(&src, None),
        Err(PackError::CaseClash { .. })
    ));
}

#[test]
fn invalid_source_paths_named() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("ok.bin"), b"1").unwrap();
    fs::write(src.join("con.txt"), b"2").unwrap();
    match pack_dir(&src, None) {
        Err(PackError::InvalidPath { path, .. }) => assert!(path.ends_with("con.txt")),
        other => panic!("{other:?}"),
    }
    fs::remove_file(src.join("con.txt")).unwrap();
    fs::write(src.join("a:b"), b"3").unwrap();
    match pack_dir(&src, None) {
        Err(PackError::InvalidPath { path, .. }) => assert!(path.ends_with("a:b")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn patch_holds_changes_and_wins_when_mounted_last() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_tree(&src);
    let base = tmp.path().join("base.spk");
    fs::write(&base, pack_dir(&src, None).unwrap()).unwrap();
    assert!(matches!(
        pack_dir(&src, Some(&base)),
        Err(PackError::NothingChanged { .. })
    ));

    fs::write(src.join("readme.txt"), b"patched").unwrap();
    fs::write(src.join("new.bin"), b"new").unwrap();
    let patch = tmp.path().join("patch.spk");
    fs::write(&patch, pack_dir(&src, Some(&base)).unwrap()).unwrap();
    let report = extract(&patch, &tmp.path().join("patch-out")).unwrap();
    assert_eq!(report.written, ["new.bin", "readme.txt"]);

    let listed = list(&[base.clone(), patch.clone()]).unwrap();
    let winner = |p: &str| {
        listed
            .iter()
            .find(|e| e.path == p)
            .map(|e| (e.layer, e.shadowed.clone()))
    };
    assert_eq!(winner("readme.txt"), Some((1, vec![0])));
    assert_eq!(winner("new.bin"), Some((1, vec![])));
    assert_eq!(winner("textures/brick.png"), Some((0, vec![])));
    // Mounted the other way round, the base (now last) wins.
    let reversed = list(&[patch, base]).unwrap();
    let layer = |p: &str| reversed.iter().find(|e| e.path == p).map(|e| e.layer);
    assert_eq!(layer("readme.txt"), Some(1));
    assert_eq!(layer("new.bin"), Some(0));
}

#[test]
fn hostile_archive_never_writes_outside() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("dest");
    let archive = tmp.path().join("evil.spk");
    for bad in ["../escape.txt", "/abs.txt", "a\\..\\..\\b", "c:/x", "CON"] {
        let bytes = assemble_raw(b"EVIL", &[RawTocEntry::new(bad, 32, 4, 4, 0)]);
        fs::write(&archive, bytes).unwrap();
        assert!(extract(&archive, &dest).is_err(), "{bad}");
        assert!(!check(&archive).is_empty(), "{bad}");
    }
    let written: Vec<PathBuf> = all_files(tmp.path())
        .into_iter()
        .filter(|p| !p.ends_with("evil.spk"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

#[cfg(unix)]
#[test]
fn symlink_in_destination_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    let dest = tmp.path().join("dest");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(&dest).unwrap();
    std::os::unix::fs::symlink(&outside, dest.join("sub")).unwrap();
    // "sub/x" would land in `outside` through the link; "ok" is fine; "bad" declares 500
    // bytes from an empty payload and fails its budget.
    let toc = [
        RawTocEntry::new("sub/x", 32, 4, 4, 0),
        RawTocEntry::new("ok", 36, 2, 2, 0),
        RawTocEntry::new("bad", 38, 0, 500, 1),
    ];
    let archive = tmp.path().join("a.spk");
    fs::write(&archive, assemble_raw(b"XXXXOK", &toc)).unwrap();
    let report = extract(&archive, &dest).unwrap();
    assert_eq!(report.written, ["ok"]);
    let failed: Vec<&str> = report.failed.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(failed, ["sub/x", "bad"]);
    assert!(
        report.failed[0].1.contains("symbolic link"),
        "{:?}",
        report.failed
    );
    assert_eq!(fs::read(dest.join("ok")).unwrap(), b"OK");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn symlinks_in_source_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(tmp.path().join("secret"), b"s").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret"), src.join("link")).unwrap();
    assert!(matches!(
        pack_dir(&src, None),
        Err(PackError::Symlink { .. })
    ));
}
