//! What build tools rely on: the depfile, the JSON messages and `--watch`.

mod common;

use common::*;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn depfile_lists_every_input_of_every_output() {
    let out = tempfile::tempdir().unwrap();
    let dep = out.path().join("build.d");
    let o = assetc(&[
        "build",
        samples().to_str().unwrap(),
        "-o",
        out.path().join("rt").to_str().unwrap(),
        "--no-config",
        "-q",
        "--emit-deps",
        dep.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&dep).unwrap();
    // The box's mesh depends on its .gltf, its external .bin and its PNG.
    let line = text
        .lines()
        .find(|l| l.contains("box.hmesh"))
        .expect("a rule for box.hmesh");
    let (targets, deps) = line.split_once(": ").unwrap();
    assert!(
        targets.contains("box.hmat") && targets.contains("tex/"),
        "{line}"
    );
    for input in ["box.gltf", "box.bin", "checker.png"] {
        assert!(deps.contains(input), "{input} missing from {line}");
    }
    assert_eq!(
        text.lines().count(),
        5,
        "one rule per built source:\n{text}"
    );
}

#[test]
fn watch_rebuilds_a_changed_source() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.path().join("a.gltf")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args([
            "build",
            src.path().to_str().unwrap(),
            "-o",
            out.path().to_str().unwrap(),
            "--no-config",
            "--watch",
            "-q",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let wait_for = |path: &std::path::Path| {
        let start = Instant::now();
        while !path.is_file() && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(50));
        }
        path.is_file()
    };
    let first = wait_for(&out.path().join("a.hmesh"));
    // Give the watcher time to start after the first build, then add a source.
    std::thread::sleep(Duration::from_millis(500));
    std::fs::copy(samples().join("hierarchy.gltf"), src.path().join("b.gltf")).unwrap();
    let second = wait_for(&out.path().join("b.hmesh"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first, "the initial build wrote a.hmesh");
    assert!(second, "the watcher built the new source b.gltf");
}
