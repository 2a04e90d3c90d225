//! The global manifest `assets.hman`, written last.

use crate::formats::hman::{self, EntryKind, Manifest, ManifestEntry};

pub const MANIFEST_NAME: &str = "assets.hman";

/// The manifest entry of a file: textures by content id, everything else by the id of
/// its output path.
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
    }
}

/// Builds the sorted, deduplicated, collision-checked manifest bytes.
pub fn manifest_bytes(entries: Vec<ManifestEntry>) -> Result<Vec<u8>, hman::HManError> {
    Ok(hman::write(&Manifest::from_entries(entries)?))
}
