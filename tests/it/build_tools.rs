//! What build tools rely on: the depfile, the JSON messages and `--watch`.

use crate::common;

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
    // One rule: the manifest (what a Make or ninja rule names as its output) depends on
    // every input; here the output was given absolute, so every path is absolute. Then,
    // as `gcc -MP` writes them, an empty rule per prerequisite.
    let (rule, phony) = text
        .split_once("\n\n")
        .expect("a rule, then the empty rules");
    let (target, deps) = rule.split_once(':').expect("a rule");
    assert_eq!(
        target,
        out.path().join("rt/assets.hman").to_str().unwrap(),
        "{text}"
    );
    let deps: Vec<&str> = deps.split_whitespace().filter(|d| *d != "\\").collect();
    // The box's .gltf, its external .bin and its PNG, and the sample folders.
    for input in [
        "box/box.gltf",
        "box/box.bin",
        "box/checker.png",
        "strip.gltf",
    ] {
        assert!(
            deps.iter().any(|d| d.ends_with(input)),
            "{input} missing:\n{text}"
        );
    }
    assert!(deps.iter().all(|d| d.starts_with('/')), "{text}");
    assert!(
        deps.contains(&samples().to_str().unwrap()),
        "the input folder:\n{text}"
    );
    assert_eq!(rule.matches(':').count(), 1, "one rule:\n{text}");
    let empty_rules: Vec<&str> = phony.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(empty_rules.len(), deps.len(), "{text}");
    for (line, dep) in empty_rules.iter().zip(&deps) {
        assert_eq!(*line, format!("{dep}:"), "an empty rule per prerequisite");
    }
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
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The watcher says "watching ..." once it is registered, after the first build.
    let (tx, watching) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if line.starts_with("watching ") {
                let _ = tx.send(());
            }
        }
    });
    let wait_for = |path: &std::path::Path| {
        let start = Instant::now();
        while !path.is_file() && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(50));
        }
        path.is_file()
    };
    let first = wait_for(&out.path().join("a.hmesh"));
    let ready = watching.recv_timeout(Duration::from_secs(30)).is_ok();
    std::fs::copy(samples().join("hierarchy.gltf"), src.path().join("b.gltf")).unwrap();
    let second = wait_for(&out.path().join("b.hmesh"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first, "the initial build wrote a.hmesh");
    assert!(ready, "the watcher said it was watching");
    assert!(second, "the watcher built the new source b.gltf");
}
