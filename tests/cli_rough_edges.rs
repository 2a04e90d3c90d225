//! What a new user trips over, each checked as they would meet it: exit codes and messages
//! for a missing input, `--fail-fast`'s counts, JSON from `check` and `clean`, `init` in a
//! folder that has assets, a `.glb` that is not one, and what `--verify` says it did.

mod common;

use common::*;
use std::path::Path;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_missing_input_is_a_usage_error_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nothere");
    let m = missing.to_str().unwrap();
    for args in [
        vec!["check", m],
        vec!["info", m],
        vec!["clean", m],
        vec!["inspect", m],
        vec!["preview", m],
        vec!["pack", m],
        vec!["pack", "list", m],
        vec!["pack", "check", m],
        vec!["pack", "extract", m, "-o", "x"],
    ] {
        let o = assetc(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let text = stderr(&o);
        assert_eq!(
            text.matches("does not exist").count(),
            1,
            "{args:?}: {text}"
        );
        assert!(!text.contains("os error"), "{args:?}: {text}");
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains("removed"),
            "{args:?}"
        );
    }
}

#[test]
fn fail_fast_counts_what_it_did_not_build_apart_from_what_failed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    for i in 0..5 {
        std::fs::write(src.join(format!("broken{i}.gltf")), "{ not json").unwrap();
    }
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out").to_str().unwrap(),
        "--no-config",
        "--fail-fast",
        "-j",
        "1",
        "--message-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let finished: serde_json::Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == "build-finished")
        .unwrap();
    // One thread: the first broken source fails, the four after it are not attempted.
    assert_eq!(
        (finished["failed"].as_u64(), finished["skipped"].as_u64()),
        (Some(1), Some(4)),
        "{text}"
    );
    let human = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out2").to_str().unwrap(),
        "--no-config",
        "--fail-fast",
        "-j",
        "1",
    ]);
    let text = stderr(&human);
    assert!(
        text.contains("1 failed, 4 not built (--fail-fast)"),
        "{text}"
    );
    assert!(text.contains("could not compile 1 asset(s)"), "{text}");
}

#[test]
fn check_and_clean_speak_json_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        samples().join("box").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A damaged file: check reports it with its file, then a summary object.
    let hmesh = out.join("box.hmesh");
    let mut bytes = std::fs::read(&hmesh).unwrap();
    bytes.truncate(bytes.len() - 7);
    std::fs::write(&hmesh, bytes).unwrap();
    let o = assetc(&["check", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let problem = lines.iter().find(|v| v["reason"] == "problem").unwrap();
    assert!(
        problem["file"].as_str().unwrap().ends_with("box.hmesh"),
        "{problem}"
    );
    assert!(!problem["message"].as_str().unwrap().is_empty());
    let last = lines.last().unwrap();
    assert_eq!(last["reason"], "check-finished");
    assert_eq!(last["success"], false);
    assert!(last["problems"].as_u64().unwrap() >= 1);

    let o = assetc(&["clean", out.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["reason"], "clean-finished");
    assert!(!out.exists());
}

#[test]
fn init_keeps_an_existing_assets_folder_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(assets.join("mine.txt"), "mine").unwrap();
    let o = assetc(&["init", dir.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kept the existing"), "{text}");
    let names: Vec<_> = std::fs::read_dir(&assets)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        names,
        ["mine.txt"],
        "nothing written into the user's folder"
    );
}

#[test]
fn random_bytes_named_glb_are_a_wrong_glb_header() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("noise.glb"),
        [0x13u8, 0x37, 0xc0, 0xde, 1, 2, 3, 4],
    )
    .unwrap();
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("out").to_str().unwrap(),
        "--no-config",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = stderr(&o);
    assert!(
        text.contains("GLB header is wrong") && text.contains("13 37 c0 de"),
        "{text}"
    );
    assert!(!text.contains("JSON"), "{text}");
}

#[test]
fn verify_says_what_it_verified() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        samples().join("box").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--verify",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    // box: .hmesh, .hmat, one texture, the manifest.
    let files = ["box.hmesh", "box.hmat", "assets.hman"]
        .iter()
        .filter(|f| Path::new(&out).join(f).is_file())
        .count()
        + std::fs::read_dir(out.join("tex")).unwrap().count();
    assert!(
        text.contains(&format!("verified: {files} written files")),
        "{text}"
    );
}
