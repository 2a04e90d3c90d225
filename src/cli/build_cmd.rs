//! `assetc build`.

use super::args::{BuildArgs, GlobalArgs};
use super::progress::CliReporter;
use anyhow::Context;
use assetc::build::{BuildOptions, Builder};
use assetc::config;
use std::path::PathBuf;
use std::process::ExitCode;

/// Resolves the options: defaults, then build.toml (and preset), then flags.
pub fn options_from(args: &BuildArgs) -> anyhow::Result<BuildOptions> {
    let mut options = BuildOptions::new("assets", "runtime");
    let config_path = match (&args.config, args.no_config) {
        (Some(p), _) => Some(p.clone()),
        (None, false) => {
            config::find_config(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
        }
        (None, true) => None,
    };
    match config_path {
        Some(path) => {
            let cfg = config::load_config(&path)?;
            cfg.apply_to(&mut options, args.preset.as_deref())
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        None if args.preset.is_some() => {
            anyhow::bail!("--preset needs a build.toml, and none was found")
        }
        None => {}
    }
    if let Some(i) = &args.input {
        options.input = i.clone();
    }
    if let Some(o) = &args.output {
        options.output = o.clone();
    }
    if !args.targets.is_empty() {
        options.settings.targets = args
            .targets
            .iter()
            .map(|t| config::parse_target(t))
            .collect::<Result<_, _>>()
            .map_err(anyhow::Error::msg)?;
    }
    if let Some(v) = args.qt_mesh_version {
        if v != 5 && v != 7 {
            anyhow::bail!("--qt-mesh-version must be 5 or 7, got {v}");
        }
        options.settings.qtmesh.mesh_version = v;
        if v == 5 {
            options.settings.qtmesh.naming = assetc::targets::qtmesh::QtNaming::Qt64;
        }
    }
    options.jobs = args.jobs;
    options.verify = args.verify;
    options.fail_fast = args.fail_fast;
    options.use_cache = !args.no_cache;
    if args.pack.is_some() {
        options.pack_spk = true;
    }
    options.report |= args.report;
    Ok(options)
}

pub fn run(args: BuildArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let options = options_from(&args)?;
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
    if let Some(page) = &report.report_page {
        eprintln!("report {}", page.display());
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
