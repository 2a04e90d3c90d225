//! The build driver's side of the remote cache: key the sources that need building, fetch
//! what the remote holds before compiling anything, write fetched assets like built ones,
//! and publish what was built here.

use super::asset::{AssetSettings, CompiledAsset};
use super::cache::{AssetRecord, Cache, CachedEntry, FileStamp};
use super::code::Failure;
use super::discover::Source;
use super::events::{whole_ms, AssetStatus, Reporter};
use super::remote::{self, Fetched, RemoteCache, SourceKey};
use super::texture_store::{TextureResult, TextureStore};
use super::{finish, output, AssetReport, BuildError};
use crate::formats::hman::EntryKind;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
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

/// Fetches every keyed source the remote holds (when `wanted`), ticking progress as each
/// arrives; returns them with the time each took. They are reported as finished by
/// [`report_fetched`], once the build has checked that none clashes with another asset.
pub(super) fn fetch_all(
    wanted: bool,
    pool: &rayon::ThreadPool,
    remote: Option<&RemoteCache>,
    sources: &[Source],
    keys: &[Option<SourceKey>],
    root: &Path,
    reporter: &dyn Reporter,
) -> (Vec<Option<Fetched>>, Vec<u64>) {
    let Some(remote) = remote.filter(|_| wanted) else {
        return (keys.iter().map(|_| None).collect(), vec![0; keys.len()]);
    };
    pool.install(|| {
        (0..sources.len())
            .into_par_iter()
            .map(|i| {
                let Some(key) = keys[i].as_ref() else {
                    return (None, 0);
                };
                let t = Instant::now();
                let got = remote.fetch(key, &sources[i], root, reporter);
                if got.is_some() {
                    finish::progress(reporter, 0, &sources[i].rel_path);
                }
                (got, whole_ms(t.elapsed()))
            })
            .unzip()
    })
}

/// Reports every fetched asset as finished.
pub(super) fn report_fetched(
    reporter: &dyn Reporter,
    sources: &[Source],
    fetched: &[Option<Fetched>],
    times_ms: &[u64],
) {
    for (i, got) in fetched.iter().enumerate() {
        if let Some(got) = got {
            let report = fetched_report(&sources[i], got);
            finish::report_finished(reporter, &sources[i], &report, times_ms[i]);
        }
    }
}

/// What one asset of the build writes: its output paths and manifest entries.
struct Claims {
    paths: Vec<String>,
    entries: Vec<CachedEntry>,
}

/// The fetched assets that cannot be written as they are, each with why: a file or a
/// manifest id that another asset of this build (fresh, built or fetched) also claims,
/// other than the same content-addressed texture, or a file whose place on disk holds
/// something other than a regular file (a folder, a link) or lies below one. A hostile
/// or damaged record must cost its own asset a rebuild, never fail the manifest or the
/// writes of the whole build.
pub(super) fn clashes(
    sources: &[Source],
    fresh: &[Option<AssetRecord>],
    compiled: &[Option<(Result<CompiledAsset, Failure>, f64)>],
    fetched: &[Option<Fetched>],
    out_dir: &Path,
) -> Vec<(usize, String)> {
    let claims: Vec<Option<Claims>> = (0..sources.len())
        .map(|i| {
            if let Some(record) = &fresh[i] {
                return Some(Claims {
                    paths: record.outputs.clone(),
                    entries: record.manifest.clone(),
                });
            }
            if let Some(got) = &fetched[i] {
                return Some(Claims {
                    paths: got.files.iter().map(|(p, _)| p.clone()).collect(),
                    entries: got.record.manifest.clone(),
                });
            }
            match &compiled[i] {
                Some((Ok(asset), _)) => Some(Claims {
                    paths: asset.output_paths(),
                    entries: super::manifest_entries_of(asset)
                        .iter()
                        .map(CachedEntry::from_entry)
                        .collect(),
                }),
                _ => None,
            }
        })
        .collect();
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_hash: HashMap<u64, Vec<(usize, &CachedEntry)>> = HashMap::new();
    for (i, c) in claims.iter().enumerate() {
        let Some(c) = c else { continue };
        for p in &c.paths {
            by_path.entry(p.as_str()).or_default().push(i);
        }
        for e in &c.entries {
            by_hash.entry(e.hash).or_default().push((i, e));
        }
    }
    // Folders the build's files go into: a file of a fetched asset must not stand where
    // another asset needs a folder, nor below another asset's file.
    let folders: HashMap<&str, usize> = claims
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((i, c.as_ref()?)))
        .flat_map(|(i, c)| {
            c.paths
                .iter()
                .flat_map(move |p| ancestors(p).map(move |a| (a, i)))
        })
        .collect();
    let mut refused = Vec::new();
    for (i, got) in fetched.iter().enumerate() {
        let (Some(got), Some(c)) = (got, &claims[i]) else {
            continue;
        };
        let entry_of = |path: &str| c.entries.iter().find(|e| e.path == path);
        // Against another fetched asset (as untrusted as this one), a path named after
        // this asset's source and not after the other's is this asset's: the other one is
        // refused in its own turn, and an asset whose record was not tampered with is
        // not rebuilt because another record claims its files.
        let mine = |j: usize, path: &str| {
            fetched[j].is_some()
                && named_after(&sources[i], path)
                && !named_after(&sources[j], path)
        };
        let other_path = c.paths.iter().find_map(|p| {
            by_path
                .get(p.as_str())
                .into_iter()
                .flatten()
                .find(|&&j| {
                    // The same content-addressed texture may be used by many assets.
                    j != i
                        && !mine(j, p)
                        && !(p.starts_with("tex/")
                            && claims[j]
                                .as_ref()
                                .and_then(|cj| cj.entries.iter().find(|e| e.path == **p))
                                == entry_of(p))
                })
                .map(|&j| {
                    format!(
                        "its file `{p}` is also an output of {}",
                        sources[j].rel_path
                    )
                })
        });
        let other_id = || {
            c.entries.iter().find_map(|e| {
                by_hash
                    .get(&e.hash)
                    .into_iter()
                    .flatten()
                    .find(|(j, other)| *j != i && *other != e && !mine(*j, &e.path))
                    .map(|(j, other)| {
                        format!(
                            "its manifest id {:016x} ({}) is also that of {} ({})",
                            e.hash, e.path, other.path, sources[*j].rel_path
                        )
                    })
            })
        };
        let folder_clash = || {
            c.paths.iter().find_map(|p| {
                if let Some(&j) = folders.get(p.as_str()).filter(|&&j| j != i && !mine(j, p)) {
                    return Some(format!(
                        "its file `{p}` stands where {} writes into a folder",
                        sources[j].rel_path
                    ));
                }
                ancestors(p).find_map(|a| {
                    let owners = by_path.get(a)?;
                    let j = *owners.iter().find(|&&j| j != i && !mine(j, p))?;
                    Some(format!(
                        "its file `{p}` lies below `{a}`, a file of {}",
                        sources[j].rel_path
                    ))
                })
            })
        };
        let on_disk = || {
            got.files
                .iter()
                .find_map(|(rel, _)| blocked_on_disk(out_dir, rel))
        };
        if let Some(why) = other_path
            .or_else(other_id)
            .or_else(folder_clash)
            .or_else(on_disk)
        {
            refused.push((i, why));
        }
    }
    refused
}

/// Whether an output path is named after `source`: its claimed output, or its ref with
/// an extension (`models/chair.hmesh`, `models/chair.qt/...`).
fn named_after(source: &Source, path: &str) -> bool {
    path == source.claimed_output()
        || path
            .strip_prefix(source.runtime_ref().as_str())
            .is_some_and(|rest| rest.starts_with('.'))
}

/// The folders `rel` lies in: `a/b/c.x` gives `a` and `a/b`.
fn ancestors(rel: &str) -> impl Iterator<Item = &str> {
    rel.match_indices('/').map(move |(at, _)| &rel[..at])
}

/// Why `rel` cannot be written below `out_dir`, when it cannot: each folder on its way
/// must be a real folder (or not exist yet), and the file itself a regular file (or not
/// exist yet).
fn blocked_on_disk(out_dir: &Path, rel: &str) -> Option<String> {
    let mut path = out_dir.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (n, part) in parts.iter().enumerate() {
        path.push(part);
        let last = n + 1 == parts.len();
        match std::fs::symlink_metadata(&path) {
            Err(_) => return None,
            Ok(m) if last && m.file_type().is_file() => return None,
            Ok(m) if !last && m.file_type().is_dir() => {}
            Ok(m) => {
                return Some(format!(
                    "its file `{rel}` would replace {}, which is {}",
                    path.display(),
                    output::file_type_name(&m.file_type())
                ))
            }
        }
    }
    None
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
        error_code: None,
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
    pub compiled: &'a [Option<(Result<CompiledAsset, Failure>, f64)>],
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
