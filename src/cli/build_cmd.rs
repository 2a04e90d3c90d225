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
    Ok(options)
}

pub fn run(args: BuildArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let reporter = CliReporter::new(&global);
    let options = match options_from(&args) {
        Ok(o) => o,
        Err(e) => {
            reporter.build_error(&format!("{e:#}"));
            return Err(e);
        }
    };
    let code = build_once(&options, &args, &reporter)?;
    if args.watch {
        super::watch::run_watch(options, &args, &reporter, |options| {
            build_once(options, &args, &reporter).map(|_| ())
        })?;
    }
    Ok(code)
}

/// The build.toml a build with these flags reads, if any (for `--emit-deps` and `--watch`).
pub fn config_path(args: &BuildArgs) -> Option<PathBuf> {
    match (&args.config, args.no_config) {
        (Some(p), _) => Some(p.clone()),
        (None, false) => {
            config::find_config(&std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))
        }
        (None, true) => None,
    }
}

fn build_once(
    options: &BuildOptions,
    args: &BuildArgs,
    reporter: &CliReporter,
) -> anyhow::Result<ExitCode> {
    let report = match Builder::from_options(options.clone()).run_with(reporter) {
        Ok(r) => r,
        Err(e) => {
            let e = anyhow::Error::new(e).context(format!("building {}", options.input.display()));
            reporter.build_error(&format!("{e:#}"));
            return Err(e);
        }
    };
    if let Some(archive) = &report.archive {
        eprintln!("packed {}", archive.display());
    }
    if let Some(depfile) = &args.emit_deps {
        let text = report.depfile(
            &options.output,
            &options.input,
            config_path(args).as_deref(),
        );
        assetc::build::output::write_atomic(depfile, text.as_bytes())
            .with_context(|| format!("writing depfile {}", depfile.display()))?;
        let manifest = options.output.join(assetc::build::manifest::MANIFEST_NAME);
        assetc::build::depfile::touch(&manifest)
            .with_context(|| format!("touching {}", manifest.display()))?;
    }
    Ok(if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
