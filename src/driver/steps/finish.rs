//! Finish: the HTML report, `--verify` and the archive of a whole build, then the build's
//! last event.

use super::write::Wrote;
use super::Build;
use crate::driver::events::{whole_ms, AssetStatus, Event, Reporter};
use crate::driver::job::AssetJob;
use crate::driver::{archive_path, verify, BuildError, BuildOptions, BuildReport};
use crate::output;
use std::time::Instant;

/// The build's report, once its last event is sent. A shard's build stops at its cache:
/// the final plain build reports, verifies and packs the whole tree.
pub(in crate::driver) fn finish(
    build: Build,
    jobs: Vec<AssetJob>,
    wrote: Wrote,
) -> Result<BuildReport, BuildError> {
    let Build {
        opts,
        reporter,
        pool,
        old_cache,
        started,
        ..
    } = build;
    let Wrote {
        mut report,
        new_cache,
        ..
    } = wrote;
    if opts.shard.is_none() {
        // The build's bookkeeping is freed on a worker while the caller goes on: a record
        // per source in each cache and a job per source, freed one allocation at a time,
        // were the end of a large no-op rebuild on the caller's thread.
        pool.spawn(move || drop((old_cache, new_cache, jobs)));
        report.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        report_verify_and_pack(opts, &mut report)?;
    }
    finish_event(reporter, &report, started);
    Ok(report)
}

/// After the manifest: the HTML report, `--verify`, and the archive of a successful build.
fn report_verify_and_pack(opts: &BuildOptions, report: &mut BuildReport) -> Result<(), BuildError> {
    if opts.report {
        report.report_page = Some(crate::report::write_report(&opts.output, report)?);
    }
    if opts.verify {
        let (problems, validated) = verify::verify_tree_counted(&opts.output);
        report.verify_problems = problems.iter().map(ToString::to_string).collect();
        report.verified_files = Some(validated);
    }
    let archive_format = match (opts.pack_spk, opts.pack_hpack) {
        (true, _) => Some("spk"),
        (false, true) => Some("hpack"),
        (false, false) => None,
    };
    if let Some(format) = archive_format.filter(|_| report.success()) {
        let archive = archive_path(&opts.output, format);
        let bytes = match format {
            "spk" => crate::pack::pack_dir(&opts.output, None),
            _ => crate::pack::pack_dir_hpack(&opts.output),
        }
        .map_err(|e| BuildError::Pack(e.to_string()))?;
        output::write_atomic(&archive, &bytes).map_err(|source| BuildError::Write {
            path: archive.clone(),
            source,
        })?;
        if opts.verify {
            let written = std::fs::read(&archive).unwrap_or_default();
            let problems = match format {
                "spk" => crate::formats::spk::validate(&written),
                _ => crate::formats::hpack::validate(&written),
            };
            report.verify_problems.extend(
                problems
                    .into_iter()
                    .map(|p| format!("{}: {p}", archive.display())),
            );
        }
        report.archive = Some(archive);
    }
    Ok(())
}

fn finish_event(reporter: &dyn Reporter, report: &BuildReport, started: Instant) {
    reporter.event(&Event::BuildFinished {
        success: report.success(),
        built: report.count(AssetStatus::Built),
        fresh: report.count(AssetStatus::Fresh),
        fetched: report.count(AssetStatus::Fetched),
        fetched_bytes: report.fetched_bytes,
        uploaded_bytes: report.uploaded_bytes,
        failed: report.failed(),
        skipped: report.count(AssetStatus::Skipped),
        textures_encoded: report.textures_encoded,
        removed: report.removed,
        time_ms: whole_ms(started.elapsed()),
        verify_problems: report.verify_problems.clone(),
        verified_files: report.verified_files,
        error: None,
    });
}
