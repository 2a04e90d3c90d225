//! Symbolic links cannot lead a build out of its input tree: an image (or buffer) that is
//! a link to a file outside the input root fails its asset, for every target, and nothing
//! of the linked file is read into or copied to the output.
#![cfg(unix)]

use crate::common;

use common::*;
use std::path::Path;

/// `box/` from the samples with `checker.png` replaced by a link to a copy of it outside
/// the input root (a valid image, so only the link's target can be the reason to refuse).
fn tree_with_escaping_image() -> (tempfile::TempDir, tempfile::TempDir) {
    let outside = tempfile::tempdir().unwrap();
    let src = tempfile::tempdir().unwrap();
    copy_dir(&samples().join("box"), src.path());
    let secret = outside.path().join("secret.png");
    std::fs::rename(src.path().join("checker.png"), &secret).unwrap();
    std::os::unix::fs::symlink(&secret, src.path().join("checker.png")).unwrap();
    (src, outside)
}

fn build(src: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "build",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
    ];
    args.extend_from_slice(extra);
    assetc(&args)
}

fn assert_refused(o: &std::process::Output, out: &Path) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the build succeeded: {stderr}");
    assert!(
        stderr.contains("box.gltf") && stderr.contains("outside the input root"),
        "the error names the file and the reason: {stderr}"
    );
    let written: Vec<String> = tree(out).into_iter().map(|(n, _)| n).collect();
    assert!(
        !written
            .iter()
            .any(|n| n.ends_with(".png") || n.ends_with(".ktx2") || n.ends_with(".hmesh")),
        "nothing of the failed asset is written: {written:?}"
    );
}

#[test]
fn an_image_linked_from_outside_the_root_fails_the_default_target() {
    let (src, _outside) = tree_with_escaping_image();
    let out = tempfile::tempdir().unwrap();
    assert_refused(&build(src.path(), out.path(), &[]), out.path());
}

#[test]
fn an_image_linked_from_outside_the_root_is_not_copied_by_qtmesh() {
    let (src, _outside) = tree_with_escaping_image();
    let out = tempfile::tempdir().unwrap();
    assert_refused(
        &build(src.path(), out.path(), &["--target", "qtmesh"]),
        out.path(),
    );
}

#[test]
fn a_link_that_stays_inside_the_root_builds() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&samples().join("box"), src.path());
    std::fs::create_dir(src.path().join("images")).unwrap();
    std::fs::rename(
        src.path().join("checker.png"),
        src.path().join("images/checker.png"),
    )
    .unwrap();
    std::os::unix::fs::symlink("images/checker.png", src.path().join("checker.png")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = build(src.path(), out.path(), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(tree(out.path()).iter().any(|(n, _)| n.ends_with(".ktx2")));
}
