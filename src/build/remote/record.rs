//! The small JSON records stored beside the blobs.

use super::key::Digest;
use crate::build::asset::AssetStats;
use crate::build::cache::{is_plain_relative, CachedEntry};
use serde::{Deserialize, Serialize};

/// Stands for the source's absolute path at the start of a stored warning: each machine
/// puts its own path back.
const SOURCE_MARK: &str = "{source}";

/// Under a source key: the other files the source read, relative to the input root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepsRecord {
    pub inputs: Vec<String>,
}

/// One output file: where it goes below the output root, and the blob that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFile {
    pub path: String,
    pub size: u64,
    /// xxh3-128 of the bytes, 32 hex digits; names the blob.
    pub digest: String,
}

/// Under a content key: everything the local cache records of a built asset, but its
/// input stamps (each machine takes its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputRecord {
    pub files: Vec<StoredFile>,
    pub manifest: Vec<CachedEntry>,
    pub warnings: Vec<String>,
    pub stats: AssetStats,
}

impl StoredFile {
    pub fn of(path: &str, bytes: &[u8]) -> Self {
        Self {
            path: path.to_string(),
            size: bytes.len() as u64,
            digest: Digest::of(bytes).hex(),
        }
    }

    /// The blob's digest, when the record's text is well formed.
    pub fn digest(&self) -> Option<Digest> {
        (self.digest.len() == 32)
            .then(|| u128::from_str_radix(&self.digest, 16).ok())
            .flatten()
            .map(Digest)
    }
}

impl OutputRecord {
    /// Whether every path stays inside the output folder and every digest parses: a
    /// damaged or hostile record is a miss, never a write elsewhere.
    pub fn is_sound(&self) -> bool {
        self.files
            .iter()
            .all(|f| is_plain_relative(&f.path) && f.digest().is_some())
    }
}

/// Warnings as stored: the source's absolute path at their start replaced by a mark.
pub fn portable_warnings(warnings: &[String], source_display: &str) -> Vec<String> {
    with_prefix_replaced(warnings, source_display, SOURCE_MARK)
}

/// Stored warnings with this machine's path of the source put back.
pub fn local_warnings(warnings: &[String], source_display: &str) -> Vec<String> {
    with_prefix_replaced(warnings, SOURCE_MARK, source_display)
}

fn with_prefix_replaced(warnings: &[String], from: &str, to: &str) -> Vec<String> {
    warnings
        .iter()
        .map(|w| match w.strip_prefix(from) {
            Some(rest) => format!("{to}{rest}"),
            None => w.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_travel_without_the_machines_path() {
        let w = vec![
            "/a/assets/x.gltf: images[0]: too big".to_string(),
            "other".into(),
        ];
        let stored = portable_warnings(&w, "/a/assets/x.gltf");
        assert_eq!(stored[0], "{source}: images[0]: too big");
        assert_eq!(
            local_warnings(&stored, "/b/in/x.gltf"),
            ["/b/in/x.gltf: images[0]: too big", "other"]
        );
    }

    #[test]
    fn records_leading_outside_the_output_are_unsound() {
        let good = StoredFile::of("tex/a.ktx2", b"abc");
        assert_eq!(good.digest(), Some(Digest::of(b"abc")));
        let mut record = OutputRecord {
            files: vec![good.clone()],
            manifest: Vec::new(),
            warnings: Vec::new(),
            stats: Default::default(),
        };
        assert!(record.is_sound());
        record.files[0].path = "../evil".into();
        assert!(!record.is_sound());
        record.files[0] = StoredFile {
            digest: "zz".into(),
            ..good
        };
        assert!(!record.is_sound());
    }
}
