//! Write: every fetched and built file, each asset recorded in the new cache and in the
//! build's report.

use super::compile::Compiled;
use super::Build;
use crate::driver::cache::{self, Cache};
use crate::driver::discover::Source;
use crate::driver::job::{self, AssetJob, Written};
use crate::driver::texture_store::TextureResult;
use crate::driver::{BuildError, BuildReport};
use std::collections::BTreeMap;
use std::path::Path;

/// What the build wrote.
pub(in crate::driver) struct Wrote {
    /// Every asset's report, in source order.
    pub report: BuildReport,
    /// The records of every asset of this build (and of other shards', as they were).
    pub new_cache: Cache,
    /// Whether the cache's intent was saved: when not, the file still holds the old
    /// cache (see [`save_intent`]).
    pub intent_saved: bool,
}

pub(in crate::driver) fn write(
    build: &Build,
    jobs: &mut [AssetJob],
    compiled: &Compiled,
    other_shards: &[Source],
    ignored: Vec<(String, usize)>,
) -> Result<Wrote, BuildError> {
    let (opts, old_cache) = (build.opts, &build.old_cache);
    let intent_saved = save_intent(old_cache, jobs, &compiled.textures, &opts.output)?;
    let mut report = BuildReport {
        textures_encoded: compiled.textures_encoded,
        ignored,
        ..Default::default()
    };
    let mut new_cache = Cache::default();
    for source in other_shards {
        if let Some(record) = old_cache
            .assets
            .get(&source.rel_path)
            .filter(|_| build.trust_cache)
        {
            job::carry_stamps(old_cache, &record.outputs, &opts.output, &mut new_cache);
            new_cache
                .assets
                .insert(source.rel_path.clone(), record.clone());
        }
    }
    let written = Written {
        old_cache,
        textures: &compiled.textures,
        output: &opts.output,
        reads: &compiled.reads,
    };
    for job in jobs.iter_mut() {
        job.write_and_record(&written, &mut new_cache)?;
        report
            .assets
            .extend(job.fresh_report.take().or_else(|| job.report()));
    }
    // Standalone images, cubemaps, LUTs and font atlases are encoded by their own kind,
    // not by the texture store: counted too, so the summary counts every `.ktx2` encoded.
    let shared: std::collections::BTreeSet<String> = compiled
        .textures
        .keys()
        .map(|&id| crate::targets::texture_rel_path(id))
        .collect();
    report.textures_encoded += report.own_textures_built(&shared);
    Ok(Wrote {
        report,
        new_cache,
        intent_saved,
    })
}

/// Saves the cache's intent before anything is written (see [`cache`]): a build killed
/// from here on leaves a cache that vouches only for files it does not touch. Returns
/// whether it was saved: when every source is fresh and nothing is about to be written,
/// the intent is the cache on disk already (a no-op build leaves the file alone).
fn save_intent(
    old: &Cache,
    jobs: &[AssetJob],
    textures: &BTreeMap<u64, TextureResult>,
    output: &Path,
) -> Result<bool, BuildError> {
    let rebuilt: Vec<&str> = jobs
        .iter()
        .filter(|job| !job.is_fresh())
        .map(|job| job.source.rel_path.as_str())
        .collect();
    let built = jobs.iter().filter_map(AssetJob::built).flat_map(|asset| {
        job::asset_files(asset, textures)
            .map(|(rel, _)| rel)
            .collect::<Vec<_>>()
    });
    let fetched = jobs
        .iter()
        .filter_map(AssetJob::fetched)
        .flat_map(|got| got.files.iter().map(|(rel, _)| rel.clone()));
    let about_to_write: Vec<String> = built.chain(fetched).collect();
    if rebuilt.is_empty() && about_to_write.is_empty() && old.is_current() {
        return Ok(false);
    }
    old.intent(rebuilt, about_to_write)
        .save(output)
        .map(|()| true)
        .map_err(|source| BuildError::Write {
            path: output.join(cache::CACHE_NAME),
            source,
        })
}
