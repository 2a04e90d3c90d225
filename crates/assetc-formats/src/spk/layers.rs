//! SparkEngine's VFS layering of archives, and patch archives against a base.
//!
//! SparkEngine mounts every `.spk` in `Data/` in sorted file-name order with priority
//! ENGINE + 0, 1, 2, ... and reads a path from the highest priority mount that has it, so
//! the archive mounted LAST wins ("patch archives override base archives"). When the
//! winning entry's read fails, the VFS falls back to the next mount down; an empty entry is a
//! valid override [S14].
//! A patch therefore carries new and changed files only; it cannot delete a base file.

use std::collections::BTreeMap;

use thiserror::Error;

use super::{SpkArchive, SpkEntryError};

/// Who serves one path: layer indices are positions in mount order (0 = mounted first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayeredPath {
    pub path: String,
    /// The last-mounted layer holding the path: the one the VFS reads.
    pub winner: usize,
    /// Earlier layers that also hold it, in fallback order (next below the winner first).
    pub shadowed: Vec<usize>,
}

/// Every path across `layers` (in mount order) with its winning layer, sorted by path.
pub fn layer_paths(layers: &[SpkArchive<'_>]) -> Vec<LayeredPath> {
    let mut holders: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (layer, archive) in layers.iter().enumerate() {
        for entry in archive.entries() {
            holders.entry(entry.path.as_str()).or_default().push(layer);
        }
    }
    holders
        .into_iter()
        .filter_map(|(path, mut found)| {
            let winner = found.pop()?;
            found.reverse();
            Some(LayeredPath {
                path: path.to_owned(),
                winner,
                shadowed: found,
            })
        })
        .collect()
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LayeredReadError {
    #[error("no layer holds {path:?}")]
    NotFound { path: String },
    #[error("every layer holding {path:?} failed to read it: {}", describe(.failures))]
    AllFailed {
        path: String,
        failures: Vec<(usize, SpkEntryError)>,
    },
}

fn describe(failures: &[(usize, SpkEntryError)]) -> String {
    failures
        .iter()
        .map(|(layer, e)| format!("layer {layer}: {e}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads `path` as the VFS does: from the last-mounted layer holding it, falling back to
/// earlier layers when that read fails. Returns the serving layer and the content.
pub fn read_layered(
    layers: &[SpkArchive<'_>],
    path: &str,
) -> Result<(usize, Vec<u8>), LayeredReadError> {
    let mut failures = Vec::new();
    for (layer, archive) in layers.iter().enumerate().rev() {
        if !archive.contains(path) {
            continue;
        }
        match archive.read_entry(path) {
            Ok(data) => return Ok((layer, data)),
            Err(e) => failures.push((layer, e)),
        }
    }
    if failures.is_empty() {
        Err(LayeredReadError::NotFound {
            path: path.to_owned(),
        })
    } else {
        Err(LayeredReadError::AllFailed {
            path: path.to_owned(),
            failures,
        })
    }
}

/// What a patch archive over a base must hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PatchPlan {
    /// New files and files whose content differs from the base (or whose base entry cannot
    /// be read), sorted by path.
    pub entries: Vec<(String, Vec<u8>)>,
    /// Paths identical in the base, left out.
    pub unchanged: Vec<String>,
    /// Base paths absent from the new set: a patch cannot remove them, they stay visible.
    pub not_removable: Vec<String>,
}

/// Splits the complete new content `files` into what a patch over `base` must carry.
pub fn plan_patch(base: &SpkArchive<'_>, files: Vec<(String, Vec<u8>)>) -> PatchPlan {
    let mut plan = PatchPlan::default();
    let mut seen = std::collections::HashSet::new();
    for (path, data) in files {
        seen.insert(path.clone());
        let same = base.contains(&path) && base.read_entry(&path).is_ok_and(|old| old == data);
        if same {
            plan.unchanged.push(path);
        } else {
            plan.entries.push((path, data));
        }
    }
    plan.not_removable = base
        .entries()
        .iter()
        .filter(|e| !seen.contains(&e.path))
        .map(|e| e.path.clone())
        .collect();
    plan.entries.sort_by(|a, b| a.0.cmp(&b.0));
    plan.unchanged.sort();
    plan.not_removable.sort();
    plan
}
