//! From build.toml and `assetc build` flags to [`BuildOptions`]: defaults, then the file
//! (and its preset), then flags. Every error here is a usage error (exit code 2).

use super::args::BuildArgs;
use super::UsageError;
use assetc::config::{self, ConfigError};
use assetc::driver::discover::{discover, DiscoverRules};
use assetc::driver::BuildOptions;
use assetc::pipeline::textures::MissingImages;
use std::path::PathBuf;

/// The resolved options and the warnings about the configuration (a rule matching no
/// source).
pub struct Resolved {
    pub options: BuildOptions,
    pub warnings: Vec<ConfigError>,
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

/// Resolves the options: defaults, then build.toml (and preset), then flags.
pub fn options_from(args: &BuildArgs) -> Result<Resolved, UsageError> {
    resolve(args).map_err(UsageError)
}

fn resolve(args: &BuildArgs) -> anyhow::Result<Resolved> {
    let mut options = BuildOptions::new("assets", "runtime");
    let config = match config_path(args) {
        Some(path) => {
            let cfg = config::load_config(&path)?;
            cfg.apply_to(&mut options, args.preset.as_deref())?;
            Some(cfg)
        }
        None if args.preset.is_some() => {
            anyhow::bail!("--preset needs a build.toml, and none was found")
        }
        None => None,
    };
    if let Some(i) = &args.input {
        options.input = i.clone();
    }
    if let Some(o) = &args.output {
        options.output = o.clone();
    }
    if !args.targets.is_empty() {
        options.settings.targets = args.targets.clone();
    }
    if let Some(v) = args.qt_mesh_version {
        // The flag sets no naming of its own: 5 brings Qt 6.4's.
        options.settings.qtmesh.set_mesh_version(v, false);
    }
    if args.strict {
        options.settings.texture.missing_images = MissingImages::Fail;
    }
    options.platform = args.platform.clone();
    options.jobs = args.jobs;
    options.verify = args.verify;
    options.fail_fast = args.fail_fast;
    options.use_cache = !args.no_cache;
    match args.pack.as_deref() {
        Some("hpack") => {
            options.pack_hpack = true;
            options.pack_spk = false;
        }
        Some(_) => {
            options.pack_spk = true;
            options.pack_hpack = false;
        }
        None => {}
    }
    options.report |= args.report;
    if let Some(url) = &args.remote_cache {
        options.remote_cache = Some(url.clone());
    }
    if args.no_remote_cache {
        options.remote_cache = None;
    }
    if let Some(mode) = args.remote_cache_mode {
        options.remote_mode = mode;
    }
    if let Some(url) = &options.remote_cache {
        assetc::driver::remote::check_url(url)
            .map_err(|e| anyhow::anyhow!("--remote-cache: {e}"))?;
    }
    options.shard = args.shard;
    if args.shard.is_some() && (options.remote_cache.is_none() || !options.remote_mode.writes()) {
        anyhow::bail!(
            "--shard needs a remote cache it may write to (--remote-cache URL, mode write or \
             readwrite): a shard's assets reach the final build through it"
        );
    }
    if !options.input.exists() {
        anyhow::bail!(
            "input {} does not exist (give a folder or a .gltf/.glb/.obj/.fbx file, or set `input` in build.toml)",
            options.input.display()
        );
    }
    // A build sweeps its output folder: a root or the input's own folder is a usage
    // error, said before anything runs.
    assetc::output::check_output_folder(
        &options.output,
        &assetc::driver::discover::input_root(&options.input),
    )?;
    let warnings = match &config {
        // A single-file input has one source: rules for others are not a mistake.
        Some(cfg) if options.input.is_dir() => {
            // Rules may name any file (an `ignore` rule names files no kind claims).
            let found = discover(&options.input, &DiscoverRules::default()).unwrap_or_default();
            let files: Vec<&str> = found
                .sources
                .iter()
                .chain(&found.unclaimed)
                .map(|s| s.rel_path.as_str())
                .collect();
            cfg.unmatched_rules(files.iter().copied())
        }
        _ => Vec::new(),
    };
    Ok(Resolved { options, warnings })
}
