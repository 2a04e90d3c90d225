//! The global manifest `assets.hman`, written last.

use super::cache;
use crate::formats::hman::{self, EntryKind, FileStamp, Manifest, ManifestEntry};
use std::collections::BTreeMap;
use std::path::Path;

pub use crate::output::MANIFEST_NAME;

/// The manifest entry of a file: textures by content id, everything else by the id of
/// its output path. Its size and digest are taken when the manifest is written.
pub fn entry_for(
    rel_path: &str,
    kind: EntryKind,
    texture_id: Option<u64>,
    srgb: bool,
) -> ManifestEntry {
    ManifestEntry {
        hash: texture_id.unwrap_or_else(|| hman::id_for_path(rel_path)),
        kind,
        srgb,
        path: rel_path.to_string(),
        file: None,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error(transparent)]
    Format(#[from] hman::HManError),
    #[error("{path}: cannot be read to record its size and digest: {source}")]
    Unreadable {
        path: String,
        source: std::io::Error,
    },
}

/// Builds the sorted, deduplicated, collision-checked manifest bytes. Each entry's size
/// and digest are those of the file now in `root`, so the manifest describes exactly what
/// is on disk (it is written after every asset). `known` holds the cache's stamps of the
/// files this build wrote or vouched for (same XXH3-64 digest, taken from the bytes
/// written): those are not read back; any other file is.
pub fn manifest_bytes(
    root: &Path,
    entries: Vec<ManifestEntry>,
    known: &BTreeMap<String, cache::FileStamp>,
    version: u32,
) -> Result<Vec<u8>, ManifestError> {
    let mut stamped = Vec::with_capacity(entries.len());
    for mut e in entries {
        e.file = Some(match known.get(&e.path) {
            Some(stamp) => FileStamp {
                size: stamp.size,
                digest: stamp.hash,
            },
            None => {
                let bytes = std::fs::read(root.join(&e.path)).map_err(|source| {
                    ManifestError::Unreadable {
                        path: e.path.clone(),
                        source,
                    }
                })?;
                FileStamp::of(&bytes)
            }
        });
        stamped.push(e);
    }
    Ok(hman::write_version(
        &Manifest::from_entries(stamped)?,
        version,
    )?)
}
