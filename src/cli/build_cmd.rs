//! `assetc build`.

use super::args::{BuildArgs, GlobalArgs};
use super::progress::CliReporter;
use anyhow::Context;
use assetc::build::{BuildOptions, Builder};
use std::process::ExitCode;

pub fn run(args: BuildArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let super::options::Resolved { options, warnings } = super::options::options_from(&args)?;
    for w in &warnings {
        super::diagnostics::config_warning(&global, w);
    }
    let reporter = CliReporter::new(&global);
    let code = build_once(&options, &args, &reporter)?;
    if args.watch {
        let (input, output) = (options.input.clone(), options.output.clone());
        super::watch::watch(&input, &output, || {
            if let Err(e) = build_once(&options, &args, &reporter) {
                eprintln!("error: {e:#}");
            }
        })?;
    }
    Ok(code)
}

fn build_once(
    options: &BuildOptions,
    args: &BuildArgs,
    reporter: &CliReporter,
) -> anyhow::Result<ExitCode> {
    let report = Builder::from_options(options.clone())
        .run_with(reporter)
        .with_context(|| format!("building {}", options.input.display()))?;
    for problem in &report.verify_problems {
        eprintln!("verify: {problem}");
    }
    if let Some(archive) = &report.archive {
        eprintln!("packed {}", archive.display());
    }
    if let Some(depfile) = &args.emit_deps {
        assetc::build::output::write_atomic(depfile, report.depfile(&options.output).as_bytes())
            .with_context(|| format!("writing depfile {}", depfile.display()))?;
    }
    Ok(if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
