//! Share: an asset that another platform's tree holds under the same key (its settings
//! do not differ between the platforms: a model without images, a sound, a texture a
//! rule gives one format everywhere) is copied from there, not compiled again. Reported
//! as fetched, as from the remote cache.

use super::Build;
use crate::driver::job::{AssetJob, JobState};
use crate::driver::remote::{Fetched, OutputRecord, StoredFile};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Takes every job still to build whose outputs another platform's tree holds under its
/// key, with inputs unchanged, and whose files read back; not with `--no-cache`, and not
/// one in a name collision.
pub(in crate::driver) fn from_other_platforms(
    build: &Build,
    jobs: &mut [AssetJob],
    collisions: &BTreeMap<String, String>,
) {
    if build.other_platforms.is_empty() || !build.opts.use_cache {
        return;
    }
    build.pool.install(|| {
        jobs.par_iter_mut()
            .filter(|job| {
                job.is_discovered()
                    && job.settings_error.is_none()
                    && !collisions.contains_key(&job.source.rel_path)
            })
            .for_each(|job| {
                if let Some(got) = shared(build, job) {
                    job.state = JobState::Fetched(got);
                }
            })
    })
}

/// The outputs of `job` as the first other platform that holds them under its key has
/// them.
fn shared(build: &Build, job: &AssetJob) -> Option<Fetched> {
    build.other_platforms.iter().find_map(|(output, cache)| {
        let (record, _) =
            cache.fresh_record_stamped(&job.source.rel_path, &job.settings_key, output)?;
        let files = record
            .outputs
            .iter()
            .map(|rel| Some((rel.clone(), std::fs::read(output.join(rel)).ok()?)))
            .collect::<Option<Vec<(String, Vec<u8>)>>>()?;
        Some(Fetched {
            record: OutputRecord {
                files: files
                    .iter()
                    .map(|(rel, bytes)| StoredFile::of(rel, bytes))
                    .collect(),
                manifest: record.manifest.clone(),
                warnings: record.warnings.clone(),
                stats: record.stats.clone(),
            },
            inputs: record.inputs.clone(),
            files,
        })
    })
}
