//! `assetc build`.

use super::args::{BuildArgs, GlobalArgs};
use super::progress::CliReporter;
use anyhow::Context;
use assetc::build::{BuildOptions, Builder};
use std::process::ExitCode;

pub fn run(args: BuildArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let mut options = BuildOptions::new(&args.input, &args.output);
    options.jobs = args.jobs;
    options.verify = args.verify;
    options.fail_fast = args.fail_fast;
    let reporter = CliReporter::new(&global);
    let report = Builder::from_options(options)
        .run_with(&reporter)
        .with_context(|| format!("building {}", args.input.display()))?;
    for problem in &report.verify_problems {
        eprintln!("verify: {problem}");
    }
    if let Some(depfile) = &args.emit_deps {
        assetc::build::output::write_atomic(depfile, report.depfile(&args.output).as_bytes())
            .with_context(|| format!("writing depfile {}", depfile.display()))?;
    }
    Ok(if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
