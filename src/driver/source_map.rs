//! `assets.map.json`: where each source's outputs went. Output names are derived (lower-
//! cased refs, `tex/<id>.ktx2` for a model's textures, a cubemap folder's `.env` kept), so
//! a tool or an engine's editor that starts from a source path (`models/Fox.glb`) reads
//! here which files and manifest ids it became, instead of re-deriving the naming rules.
//! Written beside `assets.hman` whenever the manifest is, from the same records; it is
//! bookkeeping for tools (not packed, not a runtime file).

use crate::driver::cache::Cache;
use crate::formats::hman::EntryKind;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

pub use crate::output::SOURCE_MAP_NAME;

/// The map's layout version; a change of its fields is a new version.
pub const SOURCE_MAP_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
struct SourceMap<'a> {
    version: u32,
    /// The manifest the ids are entries of.
    manifest: &'static str,
    /// By source path relative to the input folder, as found (case kept).
    sources: BTreeMap<&'a str, MappedSource<'a>>,
}

#[derive(Debug, Serialize)]
struct MappedSource<'a> {
    /// The kind that compiled it (`model`, `texture`, ...).
    kind: &'a str,
    outputs: Vec<MappedOutput<'a>>,
}

#[derive(Debug, Serialize)]
struct MappedOutput<'a> {
    path: &'a str,
    /// The manifest entry's kind and id (16 lower-case hex digits), when the manifest
    /// lists the file (a Qt `.qml` scene or a copied image is not listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    entry: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    srgb: bool,
}

/// The map of every source `cache` holds a record of; `kinds` names each source's kind
/// (a source missing from it is named `unknown`). Sorted by path: the same records give
/// the same bytes.
pub fn source_map_json(cache: &Cache, kinds: &BTreeMap<String, &'static str>) -> Vec<u8> {
    let sources = cache
        .assets
        .iter()
        .map(|(source, record)| {
            // By path: a shader of 20,000 entry points has as many outputs and entries, and
            // a search of the list per output made writing this map quadratic.
            let mut entries = HashMap::with_capacity(record.manifest.len());
            for e in &record.manifest {
                entries.entry(e.path.as_str()).or_insert(e);
            }
            let outputs = record
                .outputs
                .iter()
                .map(|path| {
                    let entry = entries.get(path.as_str()).copied();
                    MappedOutput {
                        path,
                        entry: entry
                            .and_then(|e| EntryKind::from_u8(e.kind))
                            .map(EntryKind::name),
                        id: entry.map(|e| format!("{:016x}", e.hash)),
                        srgb: entry.is_some_and(|e| e.srgb),
                    }
                })
                .collect();
            let kind = kinds.get(source).copied().unwrap_or("unknown");
            (source.as_str(), MappedSource { kind, outputs })
        })
        .collect();
    let map = SourceMap {
        version: SOURCE_MAP_VERSION,
        manifest: crate::output::MANIFEST_NAME,
        sources,
    };
    // Serialising plain strings and numbers into memory cannot fail.
    let mut bytes = serde_json::to_vec_pretty(&map).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
