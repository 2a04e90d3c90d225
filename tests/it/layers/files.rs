//! The file-level graph of one crate: an edge from a file to the module file one of its
//! paths leads to (the longest prefix of the path that is a module with a file of its
//! own; `super::cache::Cache` from `driver/job.rs` leads to `driver/cache.rs`, an item of
//! `driver/mod.rs` to that file).
//!
//! A module's paths into its own submodules are no edge: the module declares them and
//! holds them (Rust's privacy is built the same way), so a parent and a child that use
//! each other are not a cycle; a child's `super::` paths to its parent are edges.

use super::paths::{code_of, paths_in, Base};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A file's path below the crate's `src/`, with `/` between names (`driver/job.rs`).
pub type FileName = String;

pub type Graph = BTreeMap<FileName, BTreeSet<FileName>>;

/// Unit-test files and corpus tuning runs are tests, which may use anything; `bin/` holds
/// crate roots of their own, one file each.
pub fn is_scanned(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    !(rel.starts_with("bin/")
        || name == "tests.rs"
        || name.ends_with("_tests.rs")
        || name == "tuning.rs")
}

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

/// The module a file holds: `driver/mod.rs` and `driver.rs` hold `driver`, the crate
/// roots the crate itself (no names).
pub fn module_of(file: &str) -> Vec<String> {
    let mut names: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(
        names.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        names.pop();
    }
    names
}

/// The module files of a crate, by module.
pub struct Modules(BTreeMap<Vec<String>, FileName>);

impl Modules {
    pub fn new<'a>(files: impl IntoIterator<Item = &'a FileName>) -> Self {
        let mut by_module = BTreeMap::new();
        for file in files {
            // `lib.rs` before `main.rs`: either root is the crate to a path.
            by_module
                .entry(module_of(file))
                .or_insert_with(|| file.clone());
        }
        Self(by_module)
    }

    /// The file a path from `from` leads to, if it leads into this crate's files.
    pub fn target(&self, from: &str, base: Base, names: &[String]) -> Option<&FileName> {
        let mut module = match base {
            Base::Crate => Vec::new(),
            Base::SelfModule => module_of(from),
            Base::Super => {
                let mut m = module_of(from);
                m.pop()?;
                m
            }
        };
        for name in names {
            match name.as_str() {
                "self" => continue,
                "super" => {
                    module.pop()?;
                }
                _ => {
                    module.push(name.clone());
                    if !self.0.contains_key(&module) {
                        module.pop();
                        break;
                    }
                }
            }
        }
        self.0.get(&module)
    }
}

/// Whether `to` is a module inside `from`'s (or `from`'s own).
fn is_inside(to: &str, from: &str) -> bool {
    module_of(to).starts_with(&module_of(from))
}

/// The edges between the files of `sources` (path below `src/` -> code).
pub fn graph_of(sources: &BTreeMap<FileName, String>) -> Graph {
    let modules = Modules::new(sources.keys());
    let mut graph = Graph::new();
    for (file, text) in sources.iter().filter(|(f, _)| is_scanned(f)) {
        for path in paths_in(&code_of(text)) {
            if let Some(to) = modules.target(file, path.base, &path.names) {
                if to != file && !is_inside(to, file) {
                    graph.entry(file.clone()).or_default().insert(to.clone());
                }
            }
        }
    }
    graph
}

/// Every `.rs` file below `src`, read.
pub fn read_crate(src: &Path) -> BTreeMap<FileName, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(src).unwrap();
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let text = std::fs::read_to_string(&path).unwrap();
            (name, text)
        })
        .collect()
}
