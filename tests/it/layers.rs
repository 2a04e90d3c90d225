//! The layers inside a crate: the crates of the workspace are layers the compiler enforces,
//! but the modules inside one crate can reach each other freely. This reads every
//! `crate::<module>` path of the driver crate (`src/`) and of the core
//! (`crates/assetc-core/src/`) and fails when two top-level modules reach each other,
//! directly or through others (docs/architecture.md "Layers").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules whose edges are not checked: the crate roots and the binaries,
/// which sit on top of everything.
const ROOTS: &[&str] = &["lib", "main", "bin", "cli"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its unit tests: tests may use anything.
fn without_tests(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Every module named right after `crate::`, including each of a `crate::{a, b::c}` group.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        // `assetc_core::` and the like end in `crate::` too only when preceded by an
        // identifier character: those are other crates' paths.
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: at depth 0, after `{` or `,`.
            let mut depth = 0;
            let mut expect_name = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect_name = true,
                    c if expect_name && depth == 0 && !c.is_whitespace() => {
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            found.insert(name);
                        }
                        expect_name = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Edges between top-level modules of the crate whose sources are at `src`.
fn module_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap();
        let name = rel.file_name().unwrap().to_string_lossy();
        // Unit-test files and corpus tuning runs are tests too.
        if name == "tests.rs" || name.ends_with("_tests.rs") || name == "tuning.rs" {
            continue;
        }
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if ROOTS.contains(&top.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code: String = without_tests(&text)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for target in crate_paths(&code) {
            if target != top {
                edges.entry(top.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// A cycle through `start`, as the list of modules on it, if there is one.
fn cycle_through(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        edges: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in edges.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(edges, start, next, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    walk(edges, start, start, &mut path, &mut seen).then_some(path)
}

fn assert_no_cycle(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let edges = module_edges(src);
    for module in edges.keys() {
        if let Some(cycle) = cycle_through(&edges, module) {
            panic!(
                "{}: modules reach each other: {} -> {module}",
                src.display(),
                cycle.join(" -> ")
            );
        }
    }
    edges
}

#[test]
fn the_driver_crates_modules_form_layers() {
    let edges = assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    // The ones the layering rests on (docs/architecture.md): the kinds, options and
    // outcome sit below the driver, and nothing below the driver reaches up to it.
    for low in [
        "kinds", "options", "outcome", "output", "config", "report", "pack",
    ] {
        let reaches = edges.get(low).cloned().unwrap_or_default();
        assert!(
            !reaches.contains("driver"),
            "{low} reaches the driver: {reaches:?}"
        );
    }
    assert!(edges["driver"].contains("kinds"), "the scan sees paths");
}

#[test]
fn the_cores_modules_form_layers() {
    let edges =
        assert_no_cycle(&Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/assetc-core/src"));
    assert!(
        !edges.get("scene").is_some_and(|e| e.contains("pipeline")),
        "the scene is below the pipeline"
    );
    assert!(edges["pipeline"].contains("scene"), "the scan sees paths");
}

#[test]
fn the_scan_finds_a_cycle_and_every_path_form() {
    let code = "use crate::{a::X, b::{c, d}, e};\nfn f() { crate::g::h(); assetc_core::x(); }";
    assert_eq!(
        crate_paths(code),
        ["a", "b", "e", "g"].iter().map(|s| s.to_string()).collect()
    );
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    assert_eq!(cycle_through(&edges, "a"), None);
    edges.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycle_through(&edges, "a"),
        Some(vec!["a".into(), "b".into(), "c".into()])
    );
}
