//! The build driver: discover sources, compile them in parallel, encode the textures they
//! share once, write everything atomically, then the manifest.
//!
//! ```no_run
//! // In a build.rs: compile assets/ into $OUT_DIR/assets with build.toml's settings; cargo
//! // reruns it when a source is added, changed or removed, or the output deleted.
//! let report = assetc::Builder::for_build_script("assets").run_build_script()?;
//! # Ok::<(), assetc::driver::ScriptError>(())
//! ```

pub mod cache;
pub mod check;
/// Depfiles and the reports are the outcome's: the report writer and the CLI read them
/// without the driver.
pub use crate::options::{BuildOptions, SettingsRule};
pub use crate::outcome::{depfile, AssetReport, BuildReport};
/// Diagnostic codes live in the core, where importers decide them.
pub use assetc_core::code;
pub mod discover;
pub mod events;
pub mod guard;
pub mod info;
pub mod manifest;
pub mod remote;
pub mod source_map;
pub use crate::options::shard;
pub mod texture_store;
pub mod verify;

mod finish;
mod freshness;
mod job;
mod platforms;
mod remote_steps;
mod schedule;
mod script;
mod steps;

use crate::kinds::asset::AssetSettings;
use crate::output;
use events::{Reporter, SilentReporter};
use std::path::{Path, PathBuf};
use std::time::Instant;
use steps::Build;

pub use crate::kinds::asset::Target;
pub use script::ScriptError;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("input {0} does not exist")]
    MissingInput(PathBuf),
    #[error("cannot scan {path}: {source}")]
    Scan {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the worker pool: {0}")]
    Pool(String),
    #[error("manifest: {0}")]
    Manifest(String),
    #[error("packing the output: {0}")]
    Pack(String),
    #[error("{0}")]
    Config(String),
    #[error("build report: {0}")]
    Report(#[from] crate::report::ReportError),
    #[error(transparent)]
    OutputFolder(#[from] output::OutputFolderError),
}

/// Runs builds; see the module example.
#[derive(Debug, Clone)]
pub struct Builder {
    pub options: BuildOptions,
    config_file: Option<PathBuf>,
    config_error: Option<String>,
}

impl Builder {
    /// Compiles `input` into `output` with the settings of the build.toml found in the
    /// working directory or a parent (as `assetc build` does); its `input` and `output`
    /// keys are ignored in favour of the arguments.
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        Self::from_options(BuildOptions::new(input, output)).with_found_config()
    }
    /// Exactly these options; no build.toml is read.
    pub fn from_options(options: BuildOptions) -> Self {
        Self {
            options,
            config_file: None,
            config_error: None,
        }
    }
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.options.jobs = Some(jobs);
        self
    }
    pub fn verify(mut self, verify: bool) -> Self {
        self.options.verify = verify;
        self
    }
    pub fn settings(mut self, settings: AssetSettings) -> Self {
        self.options.settings = settings;
        self
    }

    /// Builds without reporting progress.
    pub fn run(&self) -> Result<BuildReport, BuildError> {
        self.run_with(&SilentReporter)
    }

    /// Builds, reporting each step's events to `reporter`: one tree, or one per platform
    /// of `[platforms]` (`<output>/NAME/`), or the one `--platform` names.
    pub fn run_with(&self, reporter: &dyn Reporter) -> Result<BuildReport, BuildError> {
        if let Some(e) = &self.config_error {
            return Err(BuildError::Config(e.clone()));
        }
        let trees = platforms::trees(&self.options).map_err(BuildError::Config)?;
        if trees.is_empty() {
            return build_tree(&self.options, reporter);
        }
        let mut reports = Vec::new();
        for (name, options) in &trees {
            reporter.event(&events::Event::PlatformStarted {
                platform: name.clone(),
                output: options.output.display().to_string(),
            });
            let report = build_tree(options, reporter)?;
            reports.push((name.as_str(), report));
        }
        Ok(platforms::merged(reports))
    }
}

/// Builds one runtime tree.
fn build_tree(options: &BuildOptions, reporter: &dyn Reporter) -> Result<BuildReport, BuildError> {
    let started = Instant::now();
    let (build, discovered) = Build::start(options, reporter, started)?;
    let mut sources = steps::sources::of_this_build(&build, discovered)?;
    let mut jobs = steps::fresh::jobs(&build, &mut sources);
    let remote = steps::remote_cache::fetch(&build, &mut jobs, &sources.collisions);
    steps::share::from_other_platforms(&build, &mut jobs, &sources.collisions);
    let compiled = steps::compile::compile(&build, &mut jobs, remote.as_ref(), &sources.collisions);
    let mut wrote = steps::write::write(
        &build,
        &mut jobs,
        &compiled,
        &sources.other_shards,
        sources.ignored,
    )?;
    steps::remote_cache::upload(
        &build,
        remote.as_ref(),
        &jobs,
        &compiled.textures,
        &wrote.new_cache,
        &mut wrote.report,
    );
    steps::manifest::write_manifest_and_cache(&build, &jobs, &mut wrote)?;
    steps::finish::finish(build, jobs, wrote)
}

/// `<output>.spk` beside the output folder (`runtime/` -> `runtime.spk`).
pub fn spk_path(output: &Path) -> PathBuf {
    archive_path(output, "spk")
}

/// `<output>.<extension>` beside the output folder.
pub fn archive_path(output: &Path, extension: &str) -> PathBuf {
    let mut name = output
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "output".into());
    name.push(".");
    name.push(extension);
    output.with_file_name(name)
}
