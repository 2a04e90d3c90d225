//! The build driver's side of the remote cache: key the sources that need building, fetch
//! what the remote holds before compiling anything, write fetched assets like built ones,
//! and publish what was built here.

use super::asset::{AssetSettings, CompiledAsset};
use super::cache::{AssetRecord, Cache, FileStamp};
use super::discover::Source;
use super::events::{whole_ms, AssetStatus, Reporter};
use super::remote::{self, Fetched, RemoteCache, SourceKey};
use super::texture_store::{TextureResult, TextureStore};
use super::{finish, output, AssetReport, BuildError};
use crate::formats::hman::EntryKind;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Instant;

/// The remote key of every source that is neither fresh nor in a name collision.
pub(super) fn source_keys(
    pool: &rayon::ThreadPool,
    remote: Option<&RemoteCache>,
    sources: &[Source],
    settings: &[AssetSettings],
    fresh: &[Option<AssetRecord>],
    collisions: &BTreeMap<String, String>,
) -> Vec<Option<SourceKey>> {
    if remote.is_none() {
        return vec![None; sources.len()];
    }
    pool.install(|| {
        (0..sources.len())
            .into_par_iter()
            .map(|i| {
                let wanted = fresh[i].is_none() && !collisions.contains_key(&sources[i].rel_path);
                wanted
                    .then(|| remote::source_key(&settings[i], &sources[i]))
                    .flatten()
            })
            .collect()
    })
}

/// Fetches every keyed source the remote holds (when `wanted`), reporting each as it
/// arrives.
pub(super) fn fetch_all(
    wanted: bool,
    pool: &rayon::ThreadPool,
    remote: Option<&RemoteCache>,
    sources: &[Source],
    keys: &[Option<SourceKey>],
    root: &Path,
    reporter: &dyn Reporter,
) -> Vec<Option<Fetched>> {
    let Some(remote) = remote.filter(|_| wanted) else {
        return keys.iter().map(|_| None).collect();
    };
    pool.install(|| {
        (0..sources.len())
            .into_par_iter()
            .map(|i| {
                let key = keys[i].as_ref()?;
                let t = Instant::now();
                let got = remote.fetch(key, &sources[i], root, reporter)?;
                let report = fetched_report(&sources[i], &got);
                finish::progress(reporter, 0, &sources[i].rel_path);
                finish::report_finished(reporter, &sources[i], &report, whole_ms(t.elapsed()));
                Some(got)
            })
            .collect()
    })
}

/// Hands the fetched textures to the store, so that assets built here do not encode them
/// again; returns their ids.
pub(super) fn seed_textures(
    store: &TextureStore<'_>,
    fetched: &[Option<Fetched>],
) -> BTreeSet<u64> {
    let mut ids = BTreeSet::new();
    for got in fetched.iter().flatten() {
        let texture_paths = got
            .record
            .manifest
            .iter()
            .filter(|e| e.kind == EntryKind::Texture as u8);
        for entry in texture_paths {
            if let Some((_, bytes)) = got.files.iter().find(|(rel, _)| *rel == entry.path) {
                store.seed(entry.hash, bytes.clone());
                ids.insert(entry.hash);
            }
        }
    }
    ids
}

/// Writes a fetched asset's files and records it in the local cache like a built one.
pub(super) fn write_fetched(
    got: &Fetched,
    source: &Source,
    settings_hash: u64,
    out_dir: &Path,
    new_cache: &mut Cache,
) -> Result<AssetReport, BuildError> {
    for (rel, bytes) in &got.files {
        let path = out_dir.join(rel);
        let stamp = output::write_atomic(&path, bytes)
            .and_then(|_| FileStamp::written(&path, bytes))
            .map_err(|source| BuildError::Write { path, source })?;
        new_cache.files.insert(rel.clone(), stamp);
    }
    let record = AssetRecord {
        settings_hash,
        inputs: got.inputs.clone(),
        outputs: outputs_of(got),
        manifest: got.record.manifest.clone(),
        warnings: got.record.warnings.clone(),
        stats: got.record.stats.clone(),
    };
    new_cache.assets.insert(source.rel_path.clone(), record);
    Ok(fetched_report(source, got))
}

fn outputs_of(got: &Fetched) -> Vec<String> {
    let mut outputs: Vec<String> = got.files.iter().map(|(rel, _)| rel.clone()).collect();
    outputs.sort();
    outputs.dedup();
    outputs
}

fn fetched_report(source: &Source, got: &Fetched) -> AssetReport {
    AssetReport {
        source: source.rel_path.clone(),
        status: AssetStatus::Fetched,
        outputs: outputs_of(got),
        warnings: got.record.warnings.clone(),
        error: None,
        stats: got.record.stats.clone(),
        inputs: got.inputs.iter().map(|i| i.path.clone()).collect(),
        times: Default::default(),
        time_ms: 0.0,
    }
}

/// What a build produced, for publishing.
pub(super) struct Built<'a> {
    pub sources: &'a [Source],
    pub keys: &'a [Option<SourceKey>],
    pub compiled: &'a [Option<(Result<CompiledAsset, String>, f64)>],
    pub textures: &'a BTreeMap<u64, TextureResult>,
    /// The local cache as it will be saved: the records of what was built.
    pub cache: &'a Cache,
    pub root: &'a Path,
    pub output: &'a Path,
}

/// Publishes every asset built here (not the failed ones) with all its files, textures
/// included.
pub(super) fn upload_built(
    pool: &rayon::ThreadPool,
    remote: &RemoteCache,
    built: &Built<'_>,
    reporter: &dyn Reporter,
) {
    pool.install(|| {
        (0..built.sources.len()).into_par_iter().for_each(|i| {
            let source = &built.sources[i];
            let (Some(key), Some((Ok(asset), _))) = (&built.keys[i], &built.compiled[i]) else {
                return;
            };
            let Some(record) = built.cache.assets.get(&source.rel_path) else {
                return;
            };
            let Some(files) = files_of(asset, built.textures, built.output) else {
                return;
            };
            let borrowed: Vec<(String, &[u8])> = files
                .iter()
                .map(|(rel, bytes)| (rel.clone(), bytes.as_slice()))
                .collect();
            remote.upload(key, source, built.root, &borrowed, record, reporter);
        })
    });
}

/// Every output of an asset with its bytes: its own files, and its textures as encoded by
/// this build or as found on disk (reused because the local cache vouched for them).
fn files_of(
    asset: &CompiledAsset,
    textures: &BTreeMap<u64, TextureResult>,
    out_dir: &Path,
) -> Option<Vec<(String, Vec<u8>)>> {
    let mut files: Vec<(String, Vec<u8>)> = asset
        .files
        .iter()
        .map(|f| (f.rel_path.clone(), f.bytes.clone()))
        .collect();
    for t in &asset.textures {
        let rel = t.rel_path();
        if files.iter().any(|(r, _)| *r == rel) {
            continue;
        }
        let bytes = match textures.get(&t.job.id)? {
            Ok(Some(bytes)) => bytes.clone(),
            Ok(None) => std::fs::read(out_dir.join(&rel)).ok()?,
            Err(_) => return None,
        };
        files.push((rel, bytes));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Some(files)
}
