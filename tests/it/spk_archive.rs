//! `assetc pack` end to end: pack a folder, extract it, compare; hostile archives never
//! write outside the destination.
#![cfg(feature = "pipeline")]

use std::fs;
use std::path::{Path, PathBuf};

use assetc::formats::spk::{assemble_raw, Compression, RawTocEntry};
use assetc::pack::{check, extract, list, pack_dir, pack_tree, PackError};

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
fn paths_keep_their_case_and_case_clashes_are_refused() {
    // A packed Qt build: its QML names meshes/mesh_armLeft_mesh.mesh and Alien.qml.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir_all(src.join("meshes")).unwrap();
    fs::write(src.join("meshes/mesh_armLeft_mesh.mesh"), b"mesh").unwrap();
    fs::write(src.join("Alien.qml"), b"qml").unwrap();
    let archive = tmp.path().join("a.spk");
    fs::write(&archive, pack_dir(&src, None).unwrap()).unwrap();
    let listed: Vec<String> = list(std::slice::from_ref(&archive))
        .unwrap()
        .into_iter()
        .map(|e| e.path)
        .collect();
    assert_eq!(listed, ["Alien.qml", "meshes/mesh_armLeft_mesh.mesh"]);
    let out = tmp.path().join("out");
    assert!(extract(&archive, &out).unwrap().failed.is_empty());
    assert_eq!(
        fs::read(out.join("meshes/mesh_armLeft_mesh.mesh")).unwrap(),
        b"mesh"
    );
    assert_eq!(fs::read(out.join("Alien.qml")).unwrap(), b"qml");

    fs::write(src.join("meshes/mesh_armleft_mesh.mesh"), b"other").unwrap();
    match pack_dir(&src, None) {
        Err(PackError::CaseClash { first, second }) => {
            let names = [first, second].map(|p| p.file_name().unwrap().to_owned());
            assert!(
                names.contains(&"mesh_armLeft_mesh.mesh".into()),
                "{names:?}"
            );
            assert!(
                names.contains(&"mesh_armleft_mesh.mesh".into()),
                "{names:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn empty_files_are_packed_listed_extracted_and_checked() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_tree(&src);
    fs::write(src.join("override.cfg"), b"").unwrap();
    let packed = pack_tree(&src, None).unwrap();
    assert_eq!(packed.warnings.len(), 1, "{:?}", packed.warnings);
    assert!(packed.warnings[0].starts_with("override.cfg: empty file"));
    let archive = tmp.path().join("a.spk");
    fs::write(&archive, &packed.bytes).unwrap();
    assert!(check(&archive).is_empty(), "{:?}", check(&archive));
    let listed = list(std::slice::from_ref(&archive)).unwrap();
    let empty = listed.iter().find(|e| e.path == "override.cfg").unwrap();
    assert_eq!((empty.original_size, empty.compressed_size), (0, 0));
    let out = tmp.path().join("out");
    let report = extract(&archive, &out).unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(fs::read(out.join("override.cfg")).unwrap(), b"");
}

#[test]
fn a_patch_warns_about_each_base_file_it_cannot_delete() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_tree(&src);
    let base = tmp.path().join("base.spk");
    fs::write(&base, pack_dir(&src, None).unwrap()).unwrap();
    fs::remove_file(src.join("readme.txt")).unwrap();
    fs::remove_file(src.join("meshes/lod0/tree.hmesh")).unwrap();
    fs::write(src.join("new.bin"), b"new").unwrap();
    let packed = pack_tree(&src, Some(&base)).unwrap();
    let named: Vec<&str> = packed
        .warnings
        .iter()
        .map(|w| w.split(':').next().unwrap())
        .collect();
    assert_eq!(named, ["meshes/lod0/tree.hmesh", "readme.txt"]);
    assert!(packed.warnings.iter().all(|w| w.contains("cannot delete")));
}

/// `assetc pack list … | head`: stdout closed after the first line.
#[cfg(unix)]
#[test]
fn a_closed_stdout_never_panics() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // 3000 list lines are far more than a pipe buffer holds.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir_all(&src).unwrap();
    // Enough lines to overflow the pipe buffer after the reader has gone.
    for i in 0..3000 {
        fs::write(src.join(format!("file_{i:05}.txt")), format!("{i}")).unwrap();
    }
    let archive = tmp.path().join("a.spk");
    fs::write(&archive, pack_dir(&src, None).unwrap()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["pack", "list"])
        .arg(&archive)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(13),
        "ended by SIGPIPE, like any filter"
    );
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

/// `assetc pack <args>` through the binary: (exit code, stdout, stderr).
fn pack_cli(args: &[&str]) -> (Option<i32>, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_assetc"))
        .arg("pack")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn entries_differing_only_in_case_are_reported_and_extracted_once() {
    // `pack` refuses such a tree [S2]; an archive from elsewhere may still hold both.
    // `check` said 0 problems and `extract` wrote both: on a case-insensitive file
    // system the second overwrote the first.
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("dup.spk");
    let toc = [
        RawTocEntry::new("Dup.txt", 32, 5, 5, 0),
        RawTocEntry::new("dup.txt", 37, 5, 5, 0),
        RawTocEntry::new("other.txt", 42, 2, 2, 0),
    ];
    fs::write(&archive, assemble_raw(b"firstlowerok", &toc)).unwrap();
    let problems: Vec<String> = check(&archive).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("\"Dup.txt\" and \"dup.txt\" differ only in case"),
        "{problems:?}"
    );
    let dest = tmp.path().join("out");
    let report = extract(&archive, &dest).unwrap();
    assert_eq!(report.written, ["Dup.txt", "other.txt"]);
    assert_eq!(report.failed.len(), 1, "{:?}", report.failed);
    assert_eq!(report.failed[0].0, "dup.txt");
    assert!(report.failed[0]
        .1
        .contains("differs only in case from Dup.txt"));
    assert_eq!(fs::read(dest.join("Dup.txt")).unwrap(), b"first");
    let (code, _, _) = pack_cli(&["check", archive.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    // A name using all 255 bytes a file system allows extracts too (its temporary
    // sibling once did not fit).
    let long = format!("{}.txt", "n".repeat(251));
    let toc = [RawTocEntry::new(&long, 32, 2, 2, 0)];
    let long_archive = tmp.path().join("long.spk");
    fs::write(&long_archive, assemble_raw(b"ok", &toc)).unwrap();
    let report = extract(&long_archive, &tmp.path().join("long")).unwrap();
    assert_eq!(
        report.written,
        std::slice::from_ref(&long),
        "{:?}",
        report.failed
    );
    let out = tmp.path().join("cli");
    let (code, _, stderr) = pack_cli(&[
        "extract",
        archive.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{stderr}");
}

/// The archive with byte `at` (from the start of the entry `path`'s blob) flipped.
fn flip(bytes: &[u8], path: &str, at: u64) -> Vec<u8> {
    let pak = assetc::formats::spk::open(bytes).unwrap();
    let entry = &pak.entries()[pak.find(path).unwrap()];
    let mut out = bytes.to_vec();
    out[(entry.data_offset + at) as usize] ^= 0x10;
    out
}

#[test]
fn a_flipped_byte_is_caught_where_the_format_allows_and_said_where_it_is_not() {
    // SparkPak keeps no checksum of an entry. A deflated entry's zlib stream has its
    // Adler-32; a stored one has nothing, unless the archive is a packed build whose
    // assets.hman lists the file's size and XXH3 digest. `check` passed a flipped byte in
    // a stored entry and `extract` wrote the corrupt file with exit 0.
    let tmp = tempfile::tempdir().unwrap();
    let built = tmp.path().join("built");
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets-sample");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build", "-q"])
        .arg(samples)
        .arg("-o")
        .arg(&built)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = pack_dir(&built, None).unwrap();
    let pak = assetc::formats::spk::open(&bytes).unwrap();
    let stored = pak
        .entries()
        .iter()
        .find(|e| {
            e.compression == Compression::Stored && e.path.ends_with(".hmat") && e.original_size > 4
        })
        .expect("a stored material table")
        .path
        .clone();
    let deflated = pak
        .entries()
        .iter()
        .find(|e| e.compression == Compression::Deflate && e.path.ends_with(".hmesh"))
        .expect("a deflated mesh")
        .path
        .clone();
    let archive = tmp.path().join("game.spk");
    fs::write(&archive, &bytes).unwrap();
    let (code, _, stderr) = pack_cli(&["check", archive.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("entries verified"), "{stderr}");
    assert!(!stderr.contains("cannot be verified"), "{stderr}");

    for (path, what) in [(&stored, "stored"), (&deflated, "deflated")] {
        let corrupt = tmp.path().join(format!("{what}.spk"));
        fs::write(&corrupt, flip(&bytes, path, 3)).unwrap();
        let (code, stdout, _) = pack_cli(&["check", corrupt.to_str().unwrap()]);
        assert_eq!(code, Some(1), "{what}: {stdout}");
        assert!(stdout.contains(path.as_str()), "{what}: {stdout}");
        let dest = tmp.path().join(format!("out-{what}"));
        let report = extract(&corrupt, &dest).unwrap();
        let failed: Vec<&str> = report.failed.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(failed, [path.as_str()], "{what}");
        assert!(
            !dest.join(path).exists(),
            "{what}: the corrupt file was written"
        );
        let (code, _, _) = pack_cli(&[
            "extract",
            corrupt.to_str().unwrap(),
            "-o",
            dest.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(1), "{what}");
    }
    let listed = check(&tmp.path().join("stored.spk"));
    assert!(
        listed.iter().any(|p| p
            .to_string()
            .contains("does not match the size and digest assets.hman lists")),
        "{listed:?}"
    );

    // Without a manifest nothing vouches for a stored entry: the byte goes unnoticed, and
    // `check` says so instead of implying the archive is sound.
    let plain = tmp.path().join("plain");
    make_tree(&plain);
    let bytes = pack_dir(&plain, None).unwrap();
    let corrupt = tmp.path().join("plain.spk");
    fs::write(&corrupt, flip(&bytes, "readme.txt", 0)).unwrap();
    let (code, _, stderr) = pack_cli(&["check", corrupt.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("1 stored entries cannot be verified: SparkPak keeps no checksum"),
        "{stderr}"
    );
}
