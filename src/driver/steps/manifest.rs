//! Manifest: the outputs no asset produces any more are removed, `assets.hman` is written
//! for the whole tree (not by a shard: its tree is partial), and the new cache saved.

use super::write::Wrote;
use super::Build;
use crate::driver::cache::{self, Cache, CachedEntry};
use crate::driver::job::AssetJob;
use crate::driver::manifest::{manifest_bytes, MANIFEST_NAME};
use crate::driver::source_map::{source_map_json, SOURCE_MAP_NAME};
use crate::driver::{guard, BuildError, BuildOptions};
use crate::output;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

pub(in crate::driver) fn write_manifest_and_cache(
    build: &Build,
    jobs: &[AssetJob],
    wrote: &mut Wrote,
) -> Result<(), BuildError> {
    let (opts, old_cache) = (build.opts, &build.old_cache);
    let Wrote {
        report,
        new_cache,
        intent_saved,
    } = wrote;
    let same_records = new_cache.same_records(old_cache);
    // The new cache stamps only files its records list as outputs (every stamp is put
    // there for a recorded output), so when the last build's records and stamps are the
    // same and it left nothing pending, it named no file this build does not produce:
    // nothing to look for.
    let nothing_orphaned = opts.use_cache && same_records && old_cache.pending.is_empty();
    if !nothing_orphaned {
        report.removed = remove_orphans(old_cache, new_cache, &opts.output, opts.use_cache);
    }
    // A shard's tree is partial: its manifest would be wrong. The final plain build
    // writes it.
    if opts.shard.is_none() {
        let rewritten = write_manifest(opts, old_cache, same_records, new_cache)?;
        write_source_map(opts, jobs, new_cache, rewritten)?;
    }
    // The cache as the file still holds it when this build has not written it (no
    // intent saved): unchanged records are then not written again.
    let on_disk = (!*intent_saved).then_some(old_cache);
    save_cache(new_cache, &opts.output, on_disk)
}

/// Writes `assets.hman` for the whole output tree, and records its stamp in `new_cache`.
/// It is not made again when the one on disk is what this build would write: the
/// records and output stamps it is made from are the last build's, every file it lists
/// is one the cache vouches for (any other would be read for its digest), it was written
/// in the same version, and it still holds what was written. Making and validating the
/// same manifest was a large share of a no-op rebuild of many models.
/// `same_records`: `new_cache.same_records(old_cache)`. Returns whether it wrote one.
fn write_manifest(
    opts: &BuildOptions,
    old_cache: &Cache,
    same_records: bool,
    new_cache: &mut Cache,
) -> Result<bool, BuildError> {
    let manifest_path = opts.output.join(MANIFEST_NAME);
    let current = old_cache
        .manifest
        .filter(|last| same_records && last.version == opts.manifest_version)
        .filter(|_| {
            new_cache
                .assets
                .values()
                .flat_map(|r| &r.manifest)
                .all(|e| new_cache.files.contains_key(&e.path))
        })
        .and_then(|last| last.stamp.check(&manifest_path));
    if let Some(stamp) = current {
        new_cache.manifest = Some(cache::ManifestStamp {
            version: opts.manifest_version,
            stamp,
        });
        return Ok(false);
    }
    let manifest_entries: Vec<_> = new_cache
        .assets
        .values()
        .flat_map(|r| r.manifest.iter().filter_map(CachedEntry::to_entry))
        .collect();
    let manifest = manifest_bytes(
        &opts.output,
        manifest_entries,
        &new_cache.files,
        opts.manifest_version,
    )
    .map_err(|e| BuildError::Manifest(e.to_string()))?;
    guard::check_output(MANIFEST_NAME, &manifest)
        .map_err(|e| BuildError::Manifest(e.to_string()))?;
    let write_error = |source| BuildError::Write {
        path: manifest_path.clone(),
        source,
    };
    output::write_atomic(&manifest_path, &manifest).map_err(write_error)?;
    new_cache.manifest = Some(cache::ManifestStamp {
        version: opts.manifest_version,
        stamp: cache::FileStamp::written(&manifest_path, &manifest).map_err(write_error)?,
    });
    Ok(true)
}

/// Writes `assets.map.json` from the records the manifest was made from: whenever the
/// manifest is written, and when the map is missing (deleted by hand). A no-op build
/// leaves it alone.
fn write_source_map(
    opts: &BuildOptions,
    jobs: &[AssetJob],
    new_cache: &Cache,
    manifest_rewritten: bool,
) -> Result<(), BuildError> {
    let path = opts.output.join(SOURCE_MAP_NAME);
    if !manifest_rewritten && path.is_file() {
        return Ok(());
    }
    let kinds: BTreeMap<String, &'static str> = jobs
        .iter()
        .map(|job| {
            let kind = crate::kinds::kind(job.source.kind).name;
            (job.source.rel_path.clone(), kind)
        })
        .collect();
    let bytes = source_map_json(new_cache, &kinds);
    output::write_atomic(&path, &bytes)
        .map(|_| ())
        .map_err(|source| BuildError::Write { path, source })
}

/// Saves the new cache; `on_disk` is the cache the file still holds when this build has
/// not written it (no intent saved): unchanged records are then not written again.
fn save_cache(cache: &Cache, output: &Path, on_disk: Option<&Cache>) -> Result<(), BuildError> {
    match on_disk {
        Some(on_disk) => cache.save_if_changed(output, on_disk).map(|_| ()),
        None => cache.save(output),
    }
    .map_err(|source| BuildError::Write {
        path: output.join(cache::CACHE_NAME),
        source,
    })
}

/// Deletes outputs an earlier build recorded or started writing that no current asset
/// produces (deleted, renamed or now failing sources; textures nothing uses any more).
/// Without the cache (`--no-cache`) it also sweeps the runtime files `check` would call
/// unlisted, so that a rebuild from scratch leaves exactly what it produces. Returns how
/// many files it removed.
fn remove_orphans(old: &Cache, new: &Cache, output: &Path, use_cache: bool) -> usize {
    // Hashed, not sorted: every output of the tree passes here on every build, a no-op
    // one too, and only the few stale paths need an order.
    let live: HashSet<&str> = new
        .assets
        .values()
        .flat_map(|r| r.outputs.iter().map(String::as_str))
        .collect();
    let mut stale: BTreeSet<String> = old
        .known_outputs_repeated()
        .filter(|o| !live.contains(o) && cache::is_plain_relative(o))
        .map(String::from)
        .collect();
    if !use_cache {
        stale.extend(
            output::runtime_files(output)
                .into_iter()
                .filter(|o| !live.contains(o.as_str())),
        );
    }
    stale
        .iter()
        .filter(|rel| std::fs::remove_file(output.join(rel)).is_ok())
        .count()
}
