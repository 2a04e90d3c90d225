//! A build killed with SIGKILL part-way leaves a tree that the next run completes to
//! exactly what a clean build writes.

mod common;

use common::*;
use std::process::Command;
use std::time::Duration;

#[test]
fn killed_build_is_completed_by_the_next_run() {
    let src = tempfile::tempdir().unwrap();
    copy_dir(&samples(), src.path());
    // Several copies of the largest sample so the kill lands mid-build.
    for i in 0..4 {
        std::fs::copy(
            samples().join("terrain/big_terrain.glb"),
            src.path().join(format!("terrain/copy{i}.glb")),
        )
        .unwrap();
    }
    let killed = tempfile::tempdir().unwrap();
    let clean = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args([
            "build",
            src.path().to_str().unwrap(),
            "-o",
            killed.path().to_str().unwrap(),
            "-j",
            "1",
            "--no-config",
            "-q",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    let again = assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        killed.path().to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let reference = assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        clean.path().to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(reference.status.success());
    let strip = |t: Vec<(String, Vec<u8>)>| {
        t.into_iter()
            .filter(|(n, _)| !n.ends_with(".assetc-cache.json"))
            .collect::<Vec<_>>()
    };
    let (a, b) = (strip(tree(killed.path())), strip(tree(clean.path())));
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(&a),
        names(&b),
        "the completed tree has exactly the clean build's files (no temporaries)"
    );
    assert!(a == b, "the completed tree's files equal the clean build's");
    let check = assetc(&["check", killed.path().to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}
