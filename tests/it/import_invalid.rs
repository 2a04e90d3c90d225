//! The Khronos glTF-Validator's bad inputs: each either imports or fails with a message
//! naming the file; none may panic or hang.

use crate::common;

use assetc::import::{import_gltf, ImportOptions};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus_invalid("import_invalid")
}

fn num_errors(file: &Path) -> Option<u64> {
    report(file)?.get("issues")?.get("numErrors")?.as_u64()
}

fn report(file: &Path) -> Option<serde_json::Value> {
    let mut report = file.as_os_str().to_owned();
    report.push(".report.json");
    let text = std::fs::read_to_string(report).ok()?;
    serde_json::from_str(&text).ok()
}

/// The codes of the validator's errors (severity 0) for `file`.
fn error_codes(file: &Path) -> Vec<String> {
    let Some(report) = report(file) else {
        return Vec::new();
    };
    report["issues"]["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["severity"] == 0)
                .filter_map(|m| m["code"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

enum Outcome {
    Ok { sane: Result<(), String> },
    Err(String),
    Panicked(String),
}

/// What "sane" means for data produced from a file the validator rejects: everything the
/// stages index with is in range and every float is finite.
fn sanity(scene: &assetc::scene::Scene) -> Result<(), String> {
    for prim in scene.meshes.iter().flat_map(|m| &m.primitives) {
        let n = prim.vertex_count();
        if prim.indices.len() % 3 != 0 || prim.indices.iter().any(|&i| i as usize >= n) {
            return Err(format!("{}: bad indices", prim.gltf_path));
        }
        if prim.positions.iter().flatten().any(|v| !v.is_finite()) {
            return Err(format!("{}: non-finite position", prim.gltf_path));
        }
        if prim.material.is_some_and(|m| m >= scene.materials.len()) {
            return Err(format!("{}: bad material", prim.gltf_path));
        }
    }
    for node in &scene.nodes {
        if node.children.iter().any(|&c| c >= scene.nodes.len()) {
            return Err("node child out of range".into());
        }
        if node.mesh.is_some_and(|m| m >= scene.meshes.len()) {
            return Err("node mesh out of range".into());
        }
    }
    for ch in scene.animations.iter().flat_map(|a| &a.channels) {
        if ch.node >= scene.nodes.len() || ch.times.iter().any(|t| !t.is_finite()) {
            return Err(format!("{}: bad channel", ch.gltf_path));
        }
    }
    Ok(())
}

fn run(file: PathBuf, root: PathBuf) -> Outcome {
    let result = std::panic::catch_unwind(|| {
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        import_gltf(&file, &rel, &ImportOptions::new(&root))
    });
    match result {
        Ok(Ok(scene)) => Outcome::Ok {
            sane: sanity(&scene),
        },
        Ok(Err(e)) => Outcome::Err(e.to_string()),
        Err(payload) => Outcome::Panicked(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    }
}

/// Validator errors that leave nothing sound to import: a node cycle, broken JSON, broken
/// GLB framing. A file with one of these is refused; the others (bounds that disagree with
/// the data, unused or ignorable parts) may import when what assetc reads is sane.
const MUST_REFUSE: [&str; 9] = [
    "NODE_LOOP",
    "INVALID_JSON",
    "GLB_INVALID_MAGIC",
    "GLB_INVALID_VERSION",
    "GLB_LENGTH_TOO_SMALL",
    "GLB_UNEXPECTED_END_OF_HEADER",
    "GLB_UNEXPECTED_END_OF_CHUNK_HEADER",
    "GLB_UNEXPECTED_END_OF_CHUNK_DATA",
    "GLB_CHUNK_TOO_BIG",
];

#[test]
fn invalid_inputs_never_panic_or_hang() {
    let Some(root) = corpus() else { return };
    let files = common::gltf_files(&root);
    assert!(files.len() > 100, "only {} files found", files.len());

    // Panics are expected to be caught; keep their default messages out of the output.
    std::panic::set_hook(Box::new(|_| {}));
    let (mut ok, mut errors, mut ok_despite_errors) = (0, 0, 0);
    // Each rule to enforce must be met by some file, or the check below tests nothing.
    let present: std::collections::BTreeSet<String> =
        files.iter().flat_map(|f| error_codes(f)).collect();
    for code in MUST_REFUSE {
        assert!(present.contains(code), "no corpus file breaks {code}");
    }
    let mut problems = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let validator_errors = num_errors(&file);
        // No time limit: a hang shows as a test that never ends, not as a flaky timeout.
        match run(file.clone(), root.clone()) {
            Outcome::Ok { sane } => {
                ok += 1;
                if validator_errors.unwrap_or(0) > 0 {
                    ok_despite_errors += 1;
                    let codes = error_codes(&file);
                    if let Some(code) = codes.iter().find(|c| MUST_REFUSE.contains(&c.as_str())) {
                        problems.push(format!(
                            "{name}: imported although the validator reports {code}"
                        ));
                    }
                }
                if let Err(why) = sane {
                    problems.push(format!("{name}: imported insane data: {why}"));
                }
            }
            Outcome::Err(message) => {
                errors += 1;
                let file_name = file.file_name().map(|n| n.to_string_lossy().to_string());
                if !file_name.is_some_and(|n| message.contains(&n)) {
                    problems.push(format!("{name}: error does not name the file: {message}"));
                }
            }
            Outcome::Panicked(msg) => problems.push(format!("{name}: PANIC {msg}")),
        }
    }
    let _ = std::panic::take_hook();
    eprintln!(
        "invalid corpus: {ok} imported ({ok_despite_errors} of them despite validator errors), \
         {errors} refused"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
