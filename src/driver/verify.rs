//! Re-reading written files with the format validators (`--verify`, `assetc check`).

use crate::formats::registry::by_path;
use crate::formats::{hman, FormatKind, Problem};
use std::path::Path;

/// Validates one file by its extension. `None` when the extension is not one of ours.
pub fn validate_file(path: &Path) -> Option<Vec<Problem>> {
    let format = by_path(path)?;
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Some(vec![Problem::new(format!("cannot read: {e}"))]),
    };
    Some((format.validate)(&bytes))
}

/// Validates bytes as the given format.
pub fn validate_bytes(kind: FormatKind, bytes: &[u8]) -> Vec<Problem> {
    (kind.format().validate)(bytes)
}

/// One problem of a compiled tree: the file it is about (as messages name it) and what is
/// wrong there, kept apart so that JSON output and the cross-file pass read the file
/// without parsing the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeProblem {
    pub file: String,
    pub message: String,
}

impl TreeProblem {
    pub fn new(file: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Self {
            file: file.into(),
            message: message.to_string(),
        }
    }
}

/// `file: message`, as people read it.
impl std::fmt::Display for TreeProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// Validates every file of ours below `root`; one problem per rule broken, naming the file.
/// Files the manifest lists as embedded are skipped: they are copies of sources (a `.wav`
/// or `.ktx2` named by an `embed` glob), which the build never claimed to be ours.
pub fn verify_tree(root: &Path) -> Vec<TreeProblem> {
    verify_tree_counted(root).0
}

/// [`verify_tree`], also counting the files it validated.
pub fn verify_tree_counted(root: &Path) -> (Vec<TreeProblem>, usize) {
    let mut problems = Vec::new();
    let mut validated = 0;
    let embedded = embedded_files(root);
    for entry in walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        if !entry.file_type().is_file() || embedded.contains(entry.path()) {
            continue;
        }
        if let Some(found) = validate_file(entry.path()) {
            validated += 1;
            problems.extend(
                found
                    .into_iter()
                    .map(|p| TreeProblem::new(entry.path().display().to_string(), p)),
            );
        }
    }
    (problems, validated)
}

/// The files `root`'s manifest lists as embedded (none when it has no readable manifest).
fn embedded_files(root: &Path) -> std::collections::BTreeSet<std::path::PathBuf> {
    let Some(manifest) = std::fs::read(root.join(super::manifest::MANIFEST_NAME))
        .ok()
        .and_then(|b| hman::read(&b).ok())
    else {
        return Default::default();
    };
    manifest
        .entries()
        .iter()
        .filter(|e| e.kind == hman::EntryKind::RawFile)
        .map(|e| root.join(&e.path))
        .collect()
}
