//! The layers inside a crate: the crates of the workspace are layers the compiler enforces,
//! but the modules and files inside one crate can reach each other freely. This reads
//! every `crate::`, `super::` and `self::` path of every crate of the workspace (`src/` and
//! `crates/*/src/`) and fails when two files reach each other, directly or through others,
//! at any depth, or when two top-level modules do (docs/architecture.md "Layers").

mod cycle;
mod files;
mod paths;

use cycle::find_cycle;
use files::{graph_of, is_scanned, read_crate, FileName, Graph};
use paths::{code_of, paths_in, Base};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules whose edges are not checked: the crate roots and the binaries,
/// which sit on top of everything.
const ROOTS: &[&str] = &["lib", "main", "bin", "cli"];

/// The `src/` of every crate of the workspace.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let src = entry.path().join("src");
        if src.is_dir() {
            found.push(src);
        }
    }
    found.sort();
    found
}

/// Edges between the top-level modules of a crate (its files by path below `src/`),
/// from the `crate::` paths of each module's files.
fn top_level_edges(sources: &BTreeMap<FileName, String>) -> Graph {
    let mut edges = Graph::new();
    for (file, text) in sources.iter().filter(|(f, _)| is_scanned(f)) {
        let top = file
            .split('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".rs");
        if ROOTS.contains(&top) {
            continue;
        }
        for path in paths_in(&code_of(text)).into_iter() {
            let Some(target) = path.names.first().filter(|_| path.base == Base::Crate) else {
                continue;
            };
            if target != top {
                edges
                    .entry(top.to_string())
                    .or_default()
                    .insert(target.clone());
            }
        }
    }
    edges
}

/// Panics naming the cycle of `graph`, if it has one.
fn assert_acyclic(src: &Path, what: &str, graph: &Graph) {
    if let Some(cycle) = find_cycle(graph) {
        panic!(
            "{}: {what} reach each other: {} -> {}",
            src.display(),
            cycle.join(" -> "),
            cycle[0]
        );
    }
}

fn top_level_layers(src: &Path) -> Graph {
    let edges = top_level_edges(&read_crate(src));
    assert_acyclic(src, "top-level modules", &edges);
    edges
}

#[test]
fn no_two_files_of_any_crate_reach_each_other() {
    for src in crate_sources() {
        let graph = graph_of(&read_crate(&src));
        assert!(!graph.is_empty(), "{}: the scan sees paths", src.display());
        assert_acyclic(&src, "files", &graph);
    }
}

#[test]
fn the_top_level_modules_of_every_crate_form_layers() {
    let sources = crate_sources();
    assert_eq!(sources.len(), 4, "{sources:?}");
    for src in sources {
        top_level_layers(&src);
    }
}

#[test]
fn the_driver_sits_above_what_it_drives() {
    let edges = top_level_layers(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
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
fn the_scene_sits_below_the_pipeline() {
    let edges =
        top_level_layers(&Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/assetc-core/src"));
    assert!(
        !edges.get("scene").is_some_and(|e| e.contains("pipeline")),
        "the scene is below the pipeline"
    );
    assert!(edges["pipeline"].contains("scene"), "the scan sees paths");
}

fn names(path: &str) -> Vec<String> {
    path.split("::").map(String::from).collect()
}

#[test]
fn the_scan_reads_every_path_form() {
    let code = "use crate::{a::X, b::{c, d as e}, f};\n\
                pub(in crate::g) fn h() { crate::i::j::<u8>(); assetc_core::k(); }\n\
                use super::{self as up, super::l::M};\nuse self::n::*;\n\
                // crate::in_a_comment\n";
    let found: Vec<(Base, Vec<String>)> = paths_in(&code_of(code))
        .into_iter()
        .map(|p| (p.base, p.names))
        .collect();
    let expected = [
        (Base::Crate, "a::X"),
        (Base::Crate, "b::c"),
        (Base::Crate, "b::d"),
        (Base::Crate, "f"),
        (Base::Crate, "g"),
        (Base::Crate, "i::j"),
        (Base::Super, "self"),
        (Base::Super, "super::l::M"),
        (Base::SelfModule, "n"),
    ]
    .map(|(base, path)| (base, names(path)));
    assert_eq!(found, expected);
}

#[test]
fn the_cycle_finder_names_the_cycle_and_only_a_real_one() {
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    graph.entry("a").or_default().insert("b");
    graph.entry("b").or_default().insert("c");
    graph.entry("a").or_default().insert("c");
    assert_eq!(find_cycle(&graph), None, "a diamond is no cycle");
    graph.entry("c").or_default().insert("b");
    assert_eq!(find_cycle(&graph), Some(vec!["b", "c"]));
    graph.entry("c").or_default().insert("c");
    graph.entry("b").or_default().remove("c");
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["c"]),
        "a node reaching itself"
    );
}

#[test]
fn sibling_files_that_use_each_other_are_a_cycle_and_a_parent_and_child_are_not() {
    let crate_of = |files: &[(&str, &str)]| -> BTreeMap<FileName, String> {
        files
            .iter()
            .map(|(f, code)| (f.to_string(), code.to_string()))
            .collect()
    };
    let layered = crate_of(&[
        ("lib.rs", "pub mod a;\nuse crate::a::x::X;"),
        ("a/mod.rs", "mod x;\nmod y;\nuse self::x::X;\npub struct Z;"),
        ("a/x.rs", "use super::y::Y;\nuse super::Z;\npub struct X;"),
        ("a/y.rs", "use crate::a::Z;\npub struct Y;"),
    ]);
    let graph = graph_of(&layered);
    assert_eq!(
        graph.get("a/x.rs").cloned().unwrap_or_default(),
        BTreeSet::from(["a/y.rs".to_string(), "a/mod.rs".to_string()])
    );
    assert!(!graph.contains_key("a/mod.rs"), "{graph:?}");
    assert_eq!(find_cycle(&graph), None, "{graph:?}");

    let mut circular = layered;
    circular.insert(
        "a/y.rs".into(),
        "use crate::a::{x::{self, X}, Z};\npub struct Y;".into(),
    );
    assert_eq!(
        find_cycle(&graph_of(&circular)),
        Some(vec!["a/x.rs".to_string(), "a/y.rs".to_string()])
    );
}
