//! The incremental-build cache: one record per source, kept in the output folder.
//!
//! A source is fresh when its settings and encoder version are unchanged and every input
//! (the glTF, its buffers and images) is unchanged: size and modification time first,
//! content hashes only when those moved. The cache is written after the outputs, so a
//! killed build leaves at worst stale records, which the next run simply rebuilds.

use crate::formats::hash::{fnv1a64_raw, fnv1a64_raw_continue};
use crate::formats::hman::{EntryKind, ManifestEntry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

pub const CACHE_NAME: &str = ".assetc-cache.json";

/// Changes whenever output bytes could change for the same inputs and settings.
pub const ENCODER_VERSION: &str = concat!("assetc ", env!("CARGO_PKG_VERSION"), " cache 1");

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputStamp {
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: u128,
    pub hash: u64,
}

impl InputStamp {
    pub fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        let bytes = std::fs::read(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            hash: fnv1a64_raw(&bytes),
        })
    }

    /// Whether the file still holds what was stamped: size and time, else its content.
    fn still_matches(&self) -> Option<InputStamp> {
        let meta = std::fs::metadata(&self.path).ok()?;
        if meta.len() == self.size && mtime_ns(&meta) == self.mtime_ns {
            return Some(self.clone());
        }
        if meta.len() != self.size {
            return None;
        }
        let bytes = std::fs::read(&self.path).ok()?;
        (fnv1a64_raw(&bytes) == self.hash).then(|| InputStamp {
            mtime_ns: mtime_ns(&meta),
            ..self.clone()
        })
    }
}

fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedEntry {
    pub hash: u64,
    pub kind: u8,
    pub srgb: bool,
    pub path: String,
}

impl CachedEntry {
    pub fn from_entry(e: &ManifestEntry) -> Self {
        Self {
            hash: e.hash,
            kind: e.kind as u8,
            srgb: e.srgb,
            path: e.path.clone(),
        }
    }
    pub fn to_entry(&self) -> Option<ManifestEntry> {
        let kind = match self.kind {
            0 => EntryKind::Texture,
            1 => EntryKind::Mesh,
            2 => EntryKind::MaterialTable,
            5 => EntryKind::RawFile,
            6 => EntryKind::Animation,
            _ => return None,
        };
        Some(ManifestEntry {
            hash: self.hash,
            kind,
            srgb: self.srgb,
            path: self.path.clone(),
            file: None,
        })
    }
}

/// What the cache remembers of one source's last successful build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssetRecord {
    pub settings_hash: u64,
    pub inputs: Vec<InputStamp>,
    /// Output files relative to the output root, textures included.
    pub outputs: Vec<String>,
    pub manifest: Vec<CachedEntry>,
    pub warnings: Vec<String>,
    pub stats: super::asset::AssetStats,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub encoder: String,
    /// Keyed by the source's path relative to the input root.
    pub assets: BTreeMap<String, AssetRecord>,
}

impl Cache {
    /// Loads the cache of an output folder; a missing, unreadable or foreign-version cache
    /// is an empty one (everything rebuilds).
    pub fn load(output: &Path) -> Cache {
        let Ok(text) = std::fs::read_to_string(output.join(CACHE_NAME)) else {
            return Cache::default();
        };
        match serde_json::from_str::<Cache>(&text) {
            Ok(c) if c.encoder == ENCODER_VERSION => c,
            _ => Cache::default(),
        }
    }

    pub fn save(&self, output: &Path) -> std::io::Result<()> {
        let mut cache = self.clone();
        cache.encoder = ENCODER_VERSION.to_string();
        let text = serde_json::to_string(&cache).map_err(std::io::Error::other)?;
        super::output::write_atomic(&output.join(CACHE_NAME), text.as_bytes()).map(|_| ())
    }

    /// The record of `source` when it is still fresh: same settings, unchanged inputs and
    /// every output still present. Returns it with refreshed time stamps.
    pub fn fresh_record(
        &self,
        source: &str,
        settings_hash: u64,
        output: &Path,
    ) -> Option<AssetRecord> {
        let record = self.assets.get(source)?;
        if record.settings_hash != settings_hash {
            return None;
        }
        let inputs = record
            .inputs
            .iter()
            .map(InputStamp::still_matches)
            .collect::<Option<Vec<_>>>()?;
        if !record.outputs.iter().all(|o| output.join(o).is_file()) {
            return None;
        }
        Some(AssetRecord {
            inputs,
            ..record.clone()
        })
    }
}

/// Hash of everything in the settings that can change an asset's output.
pub fn settings_hash(settings: &super::asset::AssetSettings) -> u64 {
    let text = format!("{settings:?}");
    fnv1a64_raw_continue(fnv1a64_raw(ENCODER_VERSION.as_bytes()), text.as_bytes())
}
