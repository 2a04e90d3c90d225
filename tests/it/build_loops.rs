//! Build loops a project relies on: a real `make` and a real `ninja` driven by the depfile,
//! `--watch` resting between saves, and the JSON messages.

use crate::common;

use common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tool on PATH; under `CI=true` its absence fails the test, naming it.
fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let package = if name == "ninja" { "ninja-build" } else { name };
        common::missing(
            "build_loops",
            &format!("`{name}` (Debian package `{package}`)"),
        );
    }
    found
}

/// A project whose source folder name needs escaping (space and colon).
const SRC: &str = "my src:1";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(SRC);
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.join("a.gltf")).unwrap();
    dir
}

/// Appends a space to a glTF: new content (the asset rebuilds) but identical outputs, so
/// the manifest's bytes do not change.
fn edit_keeping_outputs(path: &Path) {
    let mut text = std::fs::read_to_string(path).unwrap();
    text.push(' ');
    std::fs::write(path, text).unwrap();
}

/// Moves the modification times of `paths` (files or folders) just past the manifest's,
/// as a save after the build would: make compares times, and waiting for the clock to
/// move made the outcome depend on the file system's time resolution (kernel file times
/// advance by scheduler ticks). 5 ms later still precedes the next build's manifest,
/// written after at least one more run of make and assetc.
fn saved_after_the_build(dir: &Path, paths: &[&Path]) {
    let built = std::fs::metadata(dir.join("out/assets.hman"))
        .and_then(|m| m.modified())
        .unwrap();
    for path in paths {
        let file = std::fs::File::open(dir.join(path)).unwrap();
        file.set_modified(built + Duration::from_millis(5)).unwrap();
    }
}

/// Runs the tool in `dir`, returning how many times the recipe ran assetc (it echoes a marker).
fn runs(dir: &Path, program: &Path) -> usize {
    let o = Command::new(program).current_dir(dir).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{} failed:\n{text}\n{}",
        program.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    text.lines()
        .filter(|l| l.trim() == "RUNNING-ASSETC")
        .count()
}

/// Edit / no-edit cycles: the rule runs after every change (source edited with the manifest
/// unchanged, source added, build.toml edited) and never when nothing changed.
fn cycles(dir: &Path, program: &Path) {
    assert_eq!(runs(dir, program), 1, "first build");
    assert!(dir.join("out/assets.hman").is_file());
    assert_eq!(runs(dir, program), 0, "nothing changed");
    edit_keeping_outputs(&dir.join(SRC).join("a.gltf"));
    saved_after_the_build(dir, &[&Path::new(SRC).join("a.gltf")]);
    assert_eq!(runs(dir, program), 1, "a.gltf edited");
    assert_eq!(
        runs(dir, program),
        0,
        "the manifest is touched even when its bytes are unchanged"
    );
    std::fs::copy(samples().join("soup.gltf"), dir.join(SRC).join("b.gltf")).unwrap();
    saved_after_the_build(dir, &[&Path::new(SRC).join("b.gltf"), Path::new(SRC)]);
    assert_eq!(runs(dir, program), 1, "b.gltf added");
    assert!(dir.join("out/b.hmesh").is_file());
    assert_eq!(runs(dir, program), 0, "nothing changed after the add");
    std::fs::write(dir.join("build.toml"), "[mesh]\nlod_ratios = []\n").unwrap();
    saved_after_the_build(dir, &[Path::new("build.toml")]);
    assert_eq!(runs(dir, program), 1, "build.toml edited");
    assert_eq!(
        runs(dir, program),
        0,
        "nothing changed after the settings edit"
    );
}

fn assetc_command(depfile: &str) -> String {
    format!(
        "'{}' build '{SRC}' -o out --config build.toml -q --emit-deps {depfile}",
        env!("CARGO_BIN_EXE_assetc")
    )
}

#[test]
fn make_reruns_exactly_when_an_input_changes() {
    let Some(make) = tool("make") else { return };
    let dir = project();
    std::fs::write(dir.path().join("build.toml"), "").unwrap();
    let makefile = format!(
        "out/assets.hman:\n\t@echo RUNNING-ASSETC\n\t{}\n-include build.d\n",
        assetc_command("build.d")
    );
    std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
    cycles(dir.path(), &make);
    let depfile = std::fs::read_to_string(dir.path().join("build.d")).unwrap();
    assert!(depfile.starts_with("out/assets.hman:"), "{depfile}");
    assert!(depfile.contains("my\\ src\\:1/a.gltf"), "{depfile}");
    assert!(depfile.contains("build.toml"), "{depfile}");
}

/// Make with the depfile after a source is deleted (the depfile still names it) and after
/// a failed build: the first reruns the rule instead of "No rule to make target", the
/// second is not called up to date next time.
#[test]
fn make_survives_a_deleted_source_and_never_calls_a_failed_build_done() {
    let Some(make) = tool("make") else { return };
    let dir = project();
    std::fs::write(dir.path().join("build.toml"), "").unwrap();
    let makefile = format!(
        "out/assets.hman:\n\t@echo RUNNING-ASSETC\n\t{}\n-include build.d\n",
        assetc_command("build.d")
    );
    std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
    std::fs::copy(
        samples().join("soup.gltf"),
        dir.path().join(SRC).join("b.gltf"),
    )
    .unwrap();
    assert_eq!(runs(dir.path(), &make), 1, "first build");
    std::fs::remove_file(dir.path().join(SRC).join("b.gltf")).unwrap();
    saved_after_the_build(dir.path(), &[Path::new(SRC)]);
    assert_eq!(
        runs(dir.path(), &make),
        1,
        "b.gltf deleted: the rule reruns"
    );
    assert!(!dir.path().join("out/b.hmesh").exists());
    assert_eq!(runs(dir.path(), &make), 0, "then nothing to do");

    // A broken source: make fails, and keeps failing until it is fixed.
    std::fs::write(dir.path().join(SRC).join("a.gltf"), "{ not json").unwrap();
    saved_after_the_build(dir.path(), &[&Path::new(SRC).join("a.gltf")]);
    let failing = || {
        Command::new(&make)
            .current_dir(dir.path())
            .output()
            .unwrap()
            .status
            .success()
    };
    assert!(!failing(), "the build fails");
    assert!(!failing(), "and is not called up to date the next time");
    std::fs::copy(
        samples().join("strip.gltf"),
        dir.path().join(SRC).join("a.gltf"),
    )
    .unwrap();
    assert_eq!(runs(dir.path(), &make), 1, "fixed: it builds");
    assert_eq!(runs(dir.path(), &make), 0);
}

#[test]
fn ninja_reruns_exactly_when_an_input_changes() {
    let Some(ninja) = tool("ninja") else { return };
    let dir = project();
    std::fs::write(dir.path().join("build.toml"), "").unwrap();
    // No `restat = 1`: assetc touches the manifest itself.
    let build_ninja = format!(
        "rule assetc\n  command = echo RUNNING-ASSETC && {}\n  depfile = build.d\n\
         build out/assets.hman: assetc\n",
        assetc_command("build.d")
    );
    std::fs::write(dir.path().join("build.ninja"), build_ninja).unwrap();
    cycles(dir.path(), &ninja);
}

/// Lines of a child's stdout as they arrive.
pub(crate) fn collect_lines(child: &mut std::process::Child) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let out = child.stdout.take().unwrap();
    let sink = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    lines
}

/// Lines of a child's stderr as they arrive.
pub(crate) fn collect_stderr_lines(child: &mut std::process::Child) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let err = child.stderr.take().unwrap();
    let sink = lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            sink.lock().unwrap().push(line);
        }
    });
    lines
}

pub(crate) fn count(lines: &Mutex<Vec<String>>, needle: &str) -> usize {
    lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains(needle))
        .count()
}

pub(crate) fn wait_until(what: &str, lines: &Mutex<Vec<String>>, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}; output so far:\n{}",
            lines.lock().unwrap().join("\n")
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn watch_rests_until_a_save_and_names_what_it_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.join("a.gltf")).unwrap();
    std::fs::copy(samples().join("soup.gltf"), src.join("b.gltf")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build", "src", "-o", "out", "--no-config", "--watch"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = collect_lines(&mut child);
    let errors = collect_stderr_lines(&mut child);
    let finished = || count(&lines, "finished:");
    wait_until("the first build", &lines, || finished() == 1);
    // Edits are made once the watcher is registered, which it says; not after a guess.
    wait_until("the watcher", &errors, || count(&errors, "watching ") == 1);
    assert!(out.join("a.hmesh").is_file());
    // Idle: the first build's own reads and writes must not start another. A quiet
    // period is the only way to see that nothing happens; it can let a late spurious
    // rebuild through on a slow machine, never fail a correct watcher.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(finished(), 1, "{:#?}", lines.lock().unwrap());

    // An edit in place rebuilds a.gltf only, and says so.
    edit_keeping_outputs(&src.join("a.gltf"));
    wait_until("the rebuild after an edit", &lines, || finished() == 2);
    // An editor that saves by writing a temporary and renaming it over the source.
    std::thread::sleep(Duration::from_secs(1));
    let tmp = src.join(".b.gltf.swp");
    std::fs::copy(samples().join("strip.gltf"), &tmp).unwrap();
    std::fs::rename(&tmp, src.join("b.gltf")).unwrap();
    wait_until("the rebuild after a rename-save", &lines, || {
        finished() == 3
    });
    std::thread::sleep(Duration::from_secs(2));
    child.kill().unwrap();
    child.wait().unwrap();

    let all = lines.lock().unwrap().clone();
    assert_eq!(finished(), 3, "one rebuild per save, then rest:\n{all:#?}");
    let changed: Vec<&String> = all.iter().filter(|l| l.contains("Changed")).collect();
    assert_eq!(changed.len(), 2, "{all:#?}");
    assert!(changed[0].ends_with("a.gltf"), "{all:#?}");
    assert!(changed[1].ends_with("b.gltf"), "{all:#?}");
    // Built lines: both at first, then exactly the saved source each time.
    let built: Vec<&String> = all.iter().filter(|l| l.contains("Built")).collect();
    assert_eq!(built.len(), 4, "{all:#?}");
    assert!(built[2].contains(" a.gltf"), "{all:#?}");
    assert!(built[3].contains(" b.gltf"), "{all:#?}");
}

#[test]
fn json_messages_carry_structured_diagnostics_and_always_finish() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(samples().join("strip.gltf"), src.join("good.gltf")).unwrap();
    // An index accessor that does not exist.
    let mut bad: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(samples().join("strip.gltf")).unwrap())
            .unwrap();
    bad["meshes"][0]["primitives"][0]["indices"] = serde_json::json!(99);
    std::fs::write(src.join("bad.gltf"), bad.to_string()).unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--message-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Sources start largest first, so good.gltf's warnings may come before the error.
    let diag = messages
        .iter()
        .find(|m| m["reason"] == "diagnostic" && m["diagnostic"]["severity"] == "error")
        .expect("an error diagnostic");
    let d = &diag["diagnostic"];
    assert_eq!(d["file"], "bad.gltf", "{d}");
    let path = d["gltf_path"].as_str().unwrap_or_default();
    assert!(
        path.contains("meshes[0].primitives[0]") && path.contains("accessors[99]"),
        "the glTF path names the reference and the accessor: {d}"
    );
    // The file and the place are fields of their own, not repeated in the text.
    let message = d["message"].as_str().unwrap();
    assert!(
        !message.contains("bad.gltf") && !message.contains("accessors[99]"),
        "{d}"
    );
    let last = messages.last().unwrap();
    assert_eq!(last["reason"], "build-finished");
    assert_eq!(last["failed"], 1);
    assert!(last["time_ms"].is_u64(), "times are integers: {last}");

    // A build that cannot start still ends with build-finished.
    let o = assetc(&[
        "build",
        dir.path().join("missing").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--message-format",
        "json",
    ]);
    assert!(!o.status.success());
    let last: serde_json::Value = serde_json::from_str(
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .last()
            .expect("a message"),
    )
    .unwrap();
    assert_eq!(last["reason"], "build-finished");
    assert_eq!(last["success"], false);
    assert!(
        last["error"].as_str().unwrap().contains("missing"),
        "{last}"
    );
}

#[test]
fn watch_keeps_the_last_good_outputs_of_an_asset_that_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    copy_dir(&samples().join("box"), &src.join("box"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build", "src", "-o", "out", "--no-config", "--watch"])
        .args(["--message-format", "json"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = collect_lines(&mut child);
    let finished = || count(&lines, "\"build-finished\"");
    wait_until("the first build", &lines, || finished() == 1);
    let good: Vec<(String, Vec<u8>)> = tree(&out)
        .into_iter()
        .filter(|(p, _)| p.starts_with("box/") || p.starts_with("tex/"))
        .collect();
    assert!(good.iter().any(|(p, _)| p == "box/box.hmesh"), "{good:?}");
    assert!(good.iter().any(|(p, _)| p.starts_with("tex/")), "{good:?}");

    // The artist saves a broken file: the asset fails, the game keeps the last good one.
    std::fs::write(src.join("box/box.gltf"), "{ not json").unwrap();
    wait_until("the failed rebuild", &lines, || finished() == 2);
    let now: Vec<(String, Vec<u8>)> = tree(&out)
        .into_iter()
        .filter(|(p, _)| p.starts_with("box/") || p.starts_with("tex/"))
        .collect();
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    // (A broken model's image stays its input: it does not become a texture of its own.)
    assert_eq!(
        names(&now),
        names(&good),
        "the last good outputs (and the texture) are kept"
    );
    assert!(now == good, "with the same bytes");
    let manifest =
        assetc::formats::hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    assert!(manifest.entries().iter().any(|e| e.path == "box/box.hmesh"));
    let said = lines
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("\"failed\"") && l.contains("kept while watching"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said,
        "the failure says the outputs were kept: {:#?}",
        lines.lock().unwrap()
    );
}
