//! `assetc build`.

use super::args::{BuildArgs, GlobalArgs};
use super::progress::CliReporter;
use anyhow::Context;
use assetc::driver::{BuildOptions, Builder};
use std::process::ExitCode;

pub fn run(args: BuildArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let reporter = CliReporter::new(&global);
    let options = match super::options::options_from(&args) {
        Ok(resolved) => {
            for w in &resolved.warnings {
                super::diagnostics::config_warning(&global, w);
            }
            resolved.options
        }
        Err(e) => return Err(finish_with_error(&reporter, e.into())),
    };
    if args.watch {
        return super::watch::run_watch(
            options,
            &args,
            &reporter,
            |options| build_once(options, &args, &reporter),
            |options| build_once(options, &args, &reporter).map(|_| ()),
        );
    }
    build_once(&options, &args, &reporter)
}

fn build_once(
    options: &BuildOptions,
    args: &BuildArgs,
    reporter: &CliReporter,
) -> anyhow::Result<ExitCode> {
    // With `[platforms]` the tree whose manifest Make and ninja watch is the one
    // `--platform` names: a depfile has one target.
    let tree = match (&options.platform, options.platforms.is_empty()) {
        (_, true) => options.output.clone(),
        (Some(platform), false) => options.output.join(platform),
        (None, false) if args.emit_deps.is_some() => anyhow::bail!(
            "--emit-deps writes the depfile of one tree: with [platforms] in build.toml, \
             name it with --platform NAME"
        ),
        (None, false) => options.output.clone(),
    };
    let report = match Builder::from_options(options.clone()).run_with(reporter) {
        Ok(r) => r,
        Err(e) => {
            let e = anyhow::Error::new(e).context(format!("building {}", options.input.display()));
            return Err(finish_with_error(reporter, e));
        }
    };
    if let Some(page) = &report.report_page {
        eprintln!("report {}", page.display());
    }
    if let Some(archive) = &report.archive {
        eprintln!("packed {}", archive.display());
    }
    let manifest = tree.join(assetc::driver::manifest::MANIFEST_NAME);
    if let Some(depfile) = &args.emit_deps {
        let text = report.depfile(
            &tree,
            &options.input,
            super::options::config_path(args).as_deref(),
        );
        assetc::output::write_atomic(depfile, text.as_bytes())
            .with_context(|| format!("writing depfile {}", depfile.display()))?;
        assetc::driver::depfile::touch(&manifest)
            .with_context(|| format!("touching {}", manifest.display()))?;
    }
    if !report.success() && manifest.is_file() {
        // Make and ninja compare times: a failed build must not leave the manifest newer
        // than its inputs, or the next run would call the failed tree up to date.
        assetc::driver::depfile::mark_out_of_date(&manifest)
            .with_context(|| format!("marking {} out of date", manifest.display()))?;
    }
    Ok(if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

/// Prints the error that ended the build, then (JSON) the closing `build-finished`, so
/// that it stays the last message; the error comes back marked as printed.
fn finish_with_error(reporter: &CliReporter, error: anyhow::Error) -> anyhow::Error {
    let format = if reporter.is_json() {
        super::args::MessageFormat::Json
    } else {
        super::args::MessageFormat::Human
    };
    super::diagnostics::command_error(format, &error);
    reporter.build_error(&format!("{error:#}"));
    super::Reported(error).into()
}
