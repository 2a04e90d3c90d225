//! Fresh: every source becomes a job, fresh when the cache vouches for its outputs; the
//! fresh ones are reported finished at once.

use super::sources::Sources;
use super::Build;
use crate::driver::discover::Source;
use crate::driver::events::Event;
use crate::driver::finish;
use crate::driver::freshness::{self, Checked};
use crate::driver::job::{AssetJob, JobPlan};
use rayon::prelude::*;

/// The jobs of `sources.own`, which it takes, in source order, with the checks already
/// made in `sources.checked`.
pub(in crate::driver) fn jobs(build: &Build, sources: &mut Sources) -> Vec<AssetJob> {
    let (opts, old_cache, trust_cache) = (build.opts, &build.old_cache, build.trust_cache);
    let checker = build.checker();
    let check = |s: &Source| freshness::check(s, &checker);
    let Sources {
        own,
        checked,
        collisions,
        ..
    } = sources;
    // Models were checked while their inputs were listed; the rest are checked here, in
    // parallel (a stat of each input and output).
    let unchecked: Vec<(String, Checked)> = build.pool.install(|| {
        own.par_iter()
            .filter(|s| !checked.contains_key(&s.rel_path))
            .map(|s| (s.rel_path.clone(), check(s)))
            .collect()
    });
    checked.extend(unchecked);
    let plan = JobPlan {
        old_cache,
        trust_cache,
        keep_failed_outputs: opts.keep_failed_outputs,
    };
    let mut jobs: Vec<AssetJob> = std::mem::take(own)
        .into_iter()
        .map(|source| {
            let source_check = checked
                .remove(&source.rel_path)
                .unwrap_or_else(|| check(&source));
            let collides = collisions.contains_key(&source.rel_path);
            AssetJob::new(source, source_check, &plan, collides)
        })
        .collect();
    build.reporter.event(&Event::BuildStarted {
        assets: jobs.len(),
        to_build: jobs.iter().filter(|job| !job.is_fresh()).count(),
    });
    // A fresh asset's report is made once: announced now, kept for the build's report.
    build.pool.install(|| {
        jobs.par_iter_mut()
            .for_each(|job| job.fresh_report = job.is_fresh().then(|| job.report()).flatten())
    });
    for job in &jobs {
        if let Some(report) = &job.fresh_report {
            finish::report_finished(build.reporter, &job.source, report, 0);
        }
    }
    jobs
}
