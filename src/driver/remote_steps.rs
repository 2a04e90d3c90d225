//! The build driver's side of the remote cache: key the sources that need building, fetch
//! what the remote holds before compiling anything, write fetched assets like built ones,
//! and publish what was built here.

use super::cache::{Cache, CachedEntry};
use super::discover::Source;
use super::events::{whole_ms, Reporter};
use super::finish;
use super::job::{self, AssetJob, JobState};
use super::remote::{self, RemoteCache};
use super::texture_store::{TextureResult, TextureStore};
use crate::formats::hman::EntryKind;
use crate::kinds::asset::CompiledAsset;
use crate::output;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::Instant;

/// Keys every source that is to be built and not in a name collision.
pub(super) fn key_sources(
    pool: &rayon::ThreadPool,
    remote: Option<&RemoteCache>,
    jobs: &mut [AssetJob],
    collisions: &BTreeMap<String, String>,
) {
    if remote.is_none() {
        return;
    }
    pool.install(|| {
        jobs.par_iter_mut()
            .filter(|job| {
                job.is_discovered()
                    && job.settings_error.is_none()
                    && !collisions.contains_key(&job.source.rel_path)
            })
            .for_each(|job| job.remote_key = remote::source_key(&job.settings, &job.source));
    })
}

/// Fetches every keyed source the remote holds (when `wanted`), ticking progress as each
/// arrives. They are reported as finished by [`report_fetched`], once the build has
/// checked that none clashes with another asset.
pub(super) fn fetch_all(
    wanted: bool,
    pool: &rayon::ThreadPool,
    remote: Option<&RemoteCache>,
    jobs: &mut [AssetJob],
    root: &Path,
    reporter: &dyn Reporter,
) {
    let Some(remote) = remote.filter(|_| wanted) else {
        return;
    };
    pool.install(|| {
        jobs.par_iter_mut().for_each(|job| {
            let Some(key) = job.remote_key.as_ref() else {
                return;
            };
            let t = Instant::now();
            if let Some(got) = remote.fetch(key, &job.source, root, reporter) {
                finish::progress(reporter, 0, &job.source.rel_path);
                job.state = JobState::Fetched(got);
                job.elapsed = t.elapsed();
            }
        })
    })
}

/// Reports every fetched asset as finished.
pub(super) fn report_fetched(reporter: &dyn Reporter, jobs: &[AssetJob]) {
    for job in jobs.iter().filter(|job| job.fetched().is_some()) {
        if let Some(report) = job.report() {
            finish::report_finished(reporter, &job.source, &report, whole_ms(job.elapsed));
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
pub(super) fn clashes(jobs: &[AssetJob], out_dir: &Path) -> Vec<(usize, String)> {
    let claims: Vec<Option<Claims>> = jobs
        .iter()
        .map(|job| {
            let (paths, entries) = job.claims()?;
            Some(Claims { paths, entries })
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
    for (i, job) in jobs.iter().enumerate() {
        let (Some(got), Some(c)) = (job.fetched(), &claims[i]) else {
            continue;
        };
        let entry_of = |path: &str| c.entries.iter().find(|e| e.path == path);
        // Against another fetched asset (as untrusted as this one), a path named after
        // this asset's source and not after the other's is this asset's: the other one is
        // refused in its own turn, and an asset whose record was not tampered with is
        // not rebuilt because another record claims its files.
        let mine = |j: usize, path: &str| {
            jobs[j].fetched().is_some()
                && named_after(&job.source, path)
                && !named_after(&jobs[j].source, path)
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
                        jobs[j].source.rel_path
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
                            e.hash, e.path, other.path, jobs[*j].source.rel_path
                        )
                    })
            })
        };
        let folder_clash = || {
            c.paths.iter().find_map(|p| {
                if let Some(&j) = folders.get(p.as_str()).filter(|&&j| j != i && !mine(j, p)) {
                    return Some(format!(
                        "its file `{p}` stands where {} writes into a folder",
                        jobs[j].source.rel_path
                    ));
                }
                ancestors(p).find_map(|a| {
                    let owners = by_path.get(a)?;
                    let j = *owners.iter().find(|&&j| j != i && !mine(j, p))?;
                    Some(format!(
                        "its file `{p}` lies below `{a}`, a file of {}",
                        jobs[j].source.rel_path
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
pub(super) fn seed_textures(store: &TextureStore<'_>, jobs: &[AssetJob]) -> BTreeSet<u64> {
    let mut ids = BTreeSet::new();
    for got in jobs.iter().filter_map(AssetJob::fetched) {
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

/// What a build produced, for publishing.
pub(super) struct Built<'a> {
    pub jobs: &'a [AssetJob],
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
        built.jobs.par_iter().for_each(|job| {
            let source = &job.source;
            let Some((key, asset)) = job::publishable(job) else {
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
