//! Usage and configuration errors: exit code 2 (a failed asset is 1), `build.toml:LINE:COL`
//! in words a user knows, and JSON objects with `--message-format json`.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A project folder with `build.toml` = `config` and one sample model in `assets/`.
fn project(config: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("build.toml"), config).unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir(&assets).unwrap();
    std::fs::copy(samples().join("strip.gltf"), assets.join("strip.gltf")).unwrap();
    let root = dir.path().to_path_buf();
    (dir, root)
}

fn build_in(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["build"];
    args.extend_from_slice(extra);
    assetc_in(dir, &args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn config_errors_exit_2_and_point_at_line_and_column() {
    for (config, place, words) in [
        // A misspelt key: the nearest real one is suggested.
        (
            "[texture]\nmax_sise = 512\n",
            "build.toml:2:",
            "did you mean `max_size`?",
        ),
        // A wrong type, in words rather than Rust types.
        (
            "[texture]\nmax_size = 1.5\n",
            "build.toml:2:12:",
            "expected a whole number",
        ),
        (
            "[mesh]\noptimize = 1\n",
            "build.toml:2:12:",
            "expected true or false",
        ),
        // Out of range.
        (
            "[texture]\nquality = 2.0\n",
            "build.toml:2:11:",
            "quality must be a number from 0 to 1",
        ),
        (
            "[texture]\nmax_size = 0\n",
            "build.toml:2:12:",
            "max_size must be at least 1",
        ),
        (
            "[texture]\nbc7_rdo_lambda = -1.0\n",
            "build.toml:2:18:",
            "bc7_rdo_lambda must be a number from 0 (off) to 10, got -1",
        ),
        // Syntax.
        ("[mesh\n", "build.toml:1:", ""),
    ] {
        let (_d, dir) = project(config);
        let o = build_in(&dir, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{config:?}: {err}");
        assert!(err.contains(place), "{config:?}: {err}");
        assert!(err.contains(words), "{config:?}: {err}");
        assert!(
            !err.contains("u32") && !err.contains("f32"),
            "{config:?}: {err}"
        );
        assert!(!dir.join("runtime").exists(), "nothing is built");
    }
}

#[test]
fn unknown_preset_and_missing_input_exit_2_but_a_failed_asset_exits_1() {
    let (_d, dir) = project("[presets.mobile]\ntexture.max_size = 512\n");
    let o = build_in(&dir, &["--preset", "mobil"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did you mean `mobile`?"),
        "{}",
        stderr(&o)
    );

    let o = build_in(&dir, &["no-such-folder"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no-such-folder"), "{}", stderr(&o));

    std::fs::write(dir.join("assets/broken.gltf"), "{ not json").unwrap();
    let o = build_in(&dir, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("broken.gltf"), "{}", stderr(&o));
}

#[test]
fn config_errors_and_warnings_are_json_with_message_format_json() {
    let (_d, dir) = project("[texture]\nquality = 2.0\n");
    let o = build_in(&dir, &["--message-format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout:?}"));
    // The one shape of every diagnostic, config errors included.
    assert_eq!(v["reason"], "diagnostic", "{v}");
    let d = &v["diagnostic"];
    assert_eq!(d["severity"], "error", "{d}");
    assert_eq!(d["code"], "config", "{d}");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(2), Some(11)),
        "{d}"
    );
    assert!(d["file"].as_str().unwrap().ends_with("build.toml"), "{d}");
    assert!(d["message"].as_str().unwrap().contains("quality"), "{d}");

    let (_d, dir) = project("[[rules]]\nmatch = \"characters/**\"\nmesh.optimize = false\n");
    let o = build_in(&dir, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("build.toml:2:9: rules: `characters/**` matches no source"),
        "{}",
        stderr(&o)
    );
    let o = build_in(&dir, &["--message-format", "json", "--no-cache"]);
    assert_eq!(o.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let warning = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["diagnostic"]["severity"] == "warning")
        .unwrap_or_else(|| panic!("no warning object in {stdout}"));
    assert_eq!(warning["diagnostic"]["code"], "config");
    assert_eq!(warning["diagnostic"]["line"].as_u64(), Some(2));
}
