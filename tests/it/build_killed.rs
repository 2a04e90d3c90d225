//! Builds killed while writing, and output trees changed behind the cache's back: the next
//! build always leaves exactly what a clean build writes, and `check` finds nothing.
//!
//! The kill is deterministic: `ASSETC_TEST_ABORT_AFTER_WRITES=N` makes the build abort
//! (no cleanup, as with SIGKILL) right after its N-th file is renamed into place.

use crate::common;

use common::*;
use std::path::Path;
use std::process::Command;

const ABORT_AFTER_WRITES: &str = "ASSETC_TEST_ABORT_AFTER_WRITES";

fn build(src: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "build",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "-q",
    ];
    args.extend_from_slice(extra);
    assetc(&args)
}

/// Runs a build that aborts after `writes` files; returns whether it was cut short.
fn build_killed_after(src: &Path, out: &Path, writes: usize, extra: &[&str]) -> bool {
    let mut args = vec![
        "build".to_string(),
        src.display().to_string(),
        "-o".into(),
        out.display().to_string(),
        "-j".into(),
        "1".into(),
        "-q".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let status = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(&args)
        .env(ABORT_AFTER_WRITES, writes.to_string())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    !status.success()
}

/// The tree without the cache file (its time stamps differ between runs).
fn runtime_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    tree(root)
        .into_iter()
        .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
        .collect()
}

fn assert_same_tree(got: &Path, want: &Path) {
    let (a, b) = (runtime_tree(got), runtime_tree(want));
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&a),
        names(&b),
        "the tree has exactly the clean build's files"
    );
    assert!(a == b, "the tree's files equal the clean build's");
}

fn assert_check_clean(out: &Path) {
    let check = assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

fn sources() -> tempfile::TempDir {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&samples(), src.path());
    src
}

#[test]
fn killed_build_is_completed_by_the_next_run() {
    let src = sources();
    let (killed, clean) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(build_killed_after(
        src.path(),
        killed.path(),
        3,
        &["--no-config"]
    ));
    // Its first write is the cache's intent, then two runtime files.
    let written = runtime_tree(killed.path()).len();
    assert_eq!(written, 2, "the killed build wrote {written} runtime files");

    let again = build(src.path(), killed.path(), &["--no-config"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(build(src.path(), clean.path(), &["--no-config"])
        .status
        .success());
    assert_same_tree(killed.path(), clean.path());
    assert_check_clean(killed.path());
}

/// The scenario of issue 14: build with defaults, start a build with other settings into
/// the same folder and kill it while it writes, rebuild with defaults.
#[test]
fn killed_build_with_other_settings_leaves_nothing_the_next_build_calls_fresh() {
    let src = sources();
    let other = src.path().join("other.toml");
    std::fs::write(
        &other,
        "[texture]\nformat = \"rgba8\"\n[mesh]\nlod_ratios = []\n",
    )
    .unwrap();
    let other = other.to_str().unwrap();
    let (out, clean) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(build(src.path(), clean.path(), &["--no-config"])
        .status
        .success());

    // Kill at several points of the other build's writing, until it writes too few
    // files to be killed.
    let mut kill_points = 0;
    for writes in [1, 2, 3, 5, 8, 13, 21, 34] {
        let o = build(src.path(), out.path(), &["--no-config"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        if !build_killed_after(src.path(), out.path(), writes, &["--config", other]) {
            break;
        }
        kill_points += 1;
        let o = build(src.path(), out.path(), &["--no-config"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_same_tree(out.path(), clean.path());
        assert_check_clean(out.path());
    }
    assert!(kill_points >= 4, "only {kill_points} kill points");
}

#[test]
fn outputs_changed_behind_the_cache_are_rebuilt() {
    let src = sources();
    let (out, clean) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(build(src.path(), out.path(), &["--no-config"])
        .status
        .success());
    assert!(build(src.path(), clean.path(), &["--no-config"])
        .status
        .success());
    let tree = runtime_tree(out.path());
    let mesh = tree.iter().find(|(n, _)| n.ends_with(".hmesh")).unwrap();
    let texture = tree.iter().find(|(n, _)| n.ends_with(".ktx2")).unwrap();
    // Same sizes, other bytes: only the content tells.
    for (name, bytes) in [mesh, texture] {
        let mut damaged = bytes.clone();
        let mid = damaged.len() / 2;
        damaged[mid] ^= 0xff;
        std::fs::write(out.path().join(name), damaged).unwrap();
    }
    let o = build(src.path(), out.path(), &["--no-config"]);
    assert!(o.status.success());
    assert_same_tree(out.path(), clean.path());
}

#[test]
fn no_cache_rebuilds_textures_and_removes_what_the_build_does_not_produce() {
    let src = sources();
    let (out, clean) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(build(src.path(), out.path(), &["--no-config"])
        .status
        .success());
    assert!(build(src.path(), clean.path(), &["--no-config"])
        .status
        .success());
    // A texture damaged in place, a stray texture and a stray mesh, with the cache gone.
    let tree = runtime_tree(out.path());
    let texture = tree.iter().find(|(n, _)| n.ends_with(".ktx2")).unwrap();
    std::fs::write(out.path().join(&texture.0), b"not a texture").unwrap();
    std::fs::write(out.path().join("tex/00000000deadbeef.ktx2"), b"stray").unwrap();
    std::fs::write(out.path().join("gone.hmesh"), b"stray").unwrap();
    std::fs::remove_file(out.path().join(assetc::output::CACHE_NAME)).unwrap();
    let o = build(src.path(), out.path(), &["--no-config", "--no-cache"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_same_tree(out.path(), clean.path());
    assert_check_clean(out.path());
}
