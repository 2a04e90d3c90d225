//! The `.wgsl` files that define an import path (`#define_import_path a::b`) below the
//! input tree and `[shader] import_paths`, by that path: what naga_oil-style `#import`
//! lines name. Read by the composer and by the kind's list of each source's inputs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

/// Files that define an import path, by path, below some folders.
pub type Index = HashMap<String, PathBuf>;

/// Indexes of the folders searched, kept for the process (a build composes many shaders
/// with the same folders); one that misses a module is made again before the module is
/// said to be missing, and every file is checked to still define its path when read.
pub fn index_of(roots: &[PathBuf], fresh: bool) -> Arc<Index> {
    static INDEXES: OnceLock<Mutex<HashMap<Vec<PathBuf>, Arc<Index>>>> = OnceLock::new();
    let memo = INDEXES.get_or_init(Default::default);
    if !fresh {
        if let Some(index) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(roots) {
            return index.clone();
        }
    }
    let mut index = Index::new();
    // The input tree first, then the import folders in order: the first file to define a
    // path is the one used.
    for root in roots {
        for entry in walkdir::WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            .filter_map(Result::ok)
        {
            let is_wgsl = entry.file_type().is_file()
                && entry
                    .path()
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("wgsl"));
            if !is_wgsl {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            if let Some(name) = defined_import_path(&text) {
                index
                    .entry(name.to_string())
                    .or_insert_with(|| entry.path().to_path_buf());
            }
        }
    }
    let index = Arc::new(index);
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(roots.to_vec(), index.clone());
    index
}

/// The path a `#define_import_path` line defines.
pub fn defined_import_path(text: &str) -> Option<&str> {
    text.lines().find_map(|l| {
        l.trim_start()
            .strip_prefix("#define_import_path")
            .map(str::trim)
            .filter(|n| !n.is_empty())
    })
}

