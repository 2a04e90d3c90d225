//! The build driver: discover sources, compile them in parallel, encode the textures they
//! share once, write everything atomically, then the manifest.
//!
//! ```no_run
//! // In a build.rs: compile the game's assets and let cargo rerun when any input changes.
//! let report = assetc::Builder::new("assets", "target/runtime").run()?;
//! report.print_rerun_if_changed();
//! # Ok::<(), assetc::build::BuildError>(())
//! ```

pub mod asset;
pub mod cache;
pub mod check;
pub mod discover;
pub mod events;
pub mod info;
pub mod manifest;
pub mod output;
pub mod verify;

use asset::{
    compile_asset, texture_rel_path, AssetSettings, AssetStats, CompiledAsset, TextureRequest,
};
use cache::{AssetRecord, Cache, CachedEntry, InputStamp};
use discover::{discover_sources, input_root, Source};
use events::{AssetStatus, Event, Reporter, SilentReporter};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

pub use asset::Target;

/// Changes settings for the sources whose relative path matches a glob (`build.toml`
/// `[[rules]]`); later rules win.
#[derive(Clone)]
pub struct SettingsRule {
    pub matcher: globset::GlobMatcher,
    pub apply: Arc<dyn Fn(&mut AssetSettings) + Send + Sync>,
}

impl std::fmt::Debug for SettingsRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SettingsRule({})", self.matcher.glob())
    }
}

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub input: PathBuf,
    pub output: PathBuf,
    /// Worker threads; `None` uses every core.
    pub jobs: Option<usize>,
    /// Re-read and validate every written file.
    pub verify: bool,
    /// Stop starting new assets after the first failure.
    pub fail_fast: bool,
    /// Skip sources whose inputs and settings are unchanged since the last build.
    pub use_cache: bool,
    /// After a successful build, bundle the output folder into `<output>.spk`.
    pub pack_spk: bool,
    /// Write `<output>/report/index.html` with thumbnails and figures (`--report`).
    pub report: bool,
    pub settings: AssetSettings,
    pub rules: Vec<SettingsRule>,
}

impl BuildOptions {
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        Self {
            input: input.into(),
            output: output.into(),
            jobs: None,
            verify: false,
            fail_fast: false,
            use_cache: true,
            pack_spk: false,
            report: false,
            settings: AssetSettings::default(),
            rules: Vec::new(),
        }
    }

    /// The settings for one source: defaults, then every matching rule in order.
    pub fn settings_for(&self, rel_path: &str) -> AssetSettings {
        let mut s = self.settings.clone();
        for rule in &self.rules {
            if rule.matcher.is_match(rel_path) {
                (rule.apply)(&mut s);
            }
        }
        s
    }
}

/// The outcome of one source.
#[derive(Debug, Clone)]
pub struct AssetReport {
    pub source: String,
    pub status: AssetStatus,
    pub outputs: Vec<String>,
    pub warnings: Vec<String>,
    pub error: Option<String>,
    pub stats: AssetStats,
    pub inputs: Vec<PathBuf>,
    pub times: crate::pipeline::StageTimes,
    /// Wall time of its compilation (0 when fresh).
    pub time_ms: f64,
}

#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub assets: Vec<AssetReport>,
    pub textures_encoded: usize,
    pub removed: usize,
    /// Problems `--verify` found in written files.
    pub verify_problems: Vec<String>,
    /// The archive written with `pack_spk`.
    pub archive: Option<PathBuf>,
    /// The HTML report written with `report`.
    pub report_page: Option<PathBuf>,
}

impl BuildReport {
    pub fn failed(&self) -> usize {
        self.assets
            .iter()
            .filter(|a| a.status == AssetStatus::Failed)
            .count()
    }
    pub fn success(&self) -> bool {
        self.failed() == 0 && self.verify_problems.is_empty()
    }
    /// Every input file of every asset.
    pub fn inputs(&self) -> BTreeSet<PathBuf> {
        self.assets
            .iter()
            .flat_map(|a| a.inputs.iter().cloned())
            .collect()
    }
    /// For build scripts: `cargo:rerun-if-changed=` for every input.
    pub fn print_rerun_if_changed(&self) {
        for input in self.inputs() {
            println!("cargo:rerun-if-changed={}", input.display());
        }
    }
    /// A Makefile-style depfile: every output depends on its asset's inputs.
    pub fn depfile(&self, output_root: &Path) -> String {
        let mut out = String::new();
        for a in self
            .assets
            .iter()
            .filter(|a| a.status != AssetStatus::Failed)
        {
            let targets: Vec<String> = a
                .outputs
                .iter()
                .map(|o| escape_make(&output_root.join(o).display().to_string()))
                .collect();
            let deps: Vec<String> = a
                .inputs
                .iter()
                .map(|i| escape_make(&i.display().to_string()))
                .collect();
            if !targets.is_empty() {
                out.push_str(&format!("{}: {}\n", targets.join(" "), deps.join(" ")));
            }
        }
        out
    }
}

fn escape_make(s: &str) -> String {
    s.replace(' ', "\\ ").replace('#', "\\#").replace('$', "$$")
}

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
    #[error("build report: {0}")]
    Report(#[from] crate::report::ReportError),
}

/// Runs builds; see the module example.
#[derive(Debug, Clone)]
pub struct Builder {
    pub options: BuildOptions,
}

impl Builder {
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        Self {
            options: BuildOptions::new(input, output),
        }
    }
    pub fn from_options(options: BuildOptions) -> Self {
        Self { options }
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

    pub fn run_with(&self, reporter: &dyn Reporter) -> Result<BuildReport, BuildError> {
        let started = Instant::now();
        let opts = &self.options;
        if !opts.input.exists() {
            return Err(BuildError::MissingInput(opts.input.clone()));
        }
        let root = input_root(&opts.input);
        let sources = discover_sources(&opts.input).map_err(|source| BuildError::Scan {
            path: opts.input.clone(),
            source,
        })?;
        reporter.event(&Event::BuildStarted {
            assets: sources.len(),
        });
        std::fs::create_dir_all(&opts.output).map_err(|source| BuildError::Write {
            path: opts.output.clone(),
            source,
        })?;
        output::remove_stale_temporaries(&opts.output);

        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(j) = opts.jobs {
            pool = pool.num_threads(j.max(1));
        }
        let pool = pool.build().map_err(|e| BuildError::Pool(e.to_string()))?;
        let collisions = output_collisions(&sources);
        let stop = std::sync::atomic::AtomicBool::new(false);

        let old_cache = if opts.use_cache {
            Cache::load(&opts.output)
        } else {
            Cache::default()
        };
        let settings: Vec<AssetSettings> = sources
            .iter()
            .map(|s| opts.settings_for(&s.rel_path))
            .collect();
        let hashes: Vec<u64> = settings.iter().map(cache::settings_hash).collect();
        let fresh: Vec<Option<AssetRecord>> = sources
            .iter()
            .zip(&hashes)
            .map(|(s, &h)| {
                if collisions.contains_key(&s.rel_path) {
                    None
                } else {
                    old_cache.fresh_record(&s.rel_path, h, &opts.output)
                }
            })
            .collect();

        let compiled: Vec<Option<(Result<CompiledAsset, String>, f64)>> = pool.install(|| {
            (0..sources.len())
                .into_par_iter()
                .map(|i| {
                    if fresh[i].is_some() {
                        return None;
                    }
                    let source = &sources[i];
                    let t = Instant::now();
                    if opts.fail_fast && stop.load(std::sync::atomic::Ordering::Relaxed) {
                        return Some((Err(format!("{}: skipped after an earlier failure (--fail-fast)", source.abs_path.display())), 0.0));
                    }
                    let result = match collisions.get(&source.rel_path) {
                        Some(other) => Err(format!(
                            "{}: its outputs would overwrite those of {other} (same path without extension)",
                            source.abs_path.display()
                        )),
                        None => compile_asset(source, &root, &settings[i]).map_err(|e| e.to_string()),
                    };
                    if result.is_err() {
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    Some((result, t.elapsed().as_secs_f64() * 1000.0))
                })
                .collect()
        });

        let texture_results = pool.install(|| encode_textures(&compiled, &opts.output));
        let textures_encoded = texture_results
            .values()
            .filter(|r| matches!(r, Ok(Some(_))))
            .count();

        let mut report = BuildReport {
            textures_encoded,
            ..Default::default()
        };
        let mut new_cache = Cache::default();
        for (i, source) in sources.iter().enumerate() {
            let (mut asset_report, time_ms) = match (&fresh[i], &compiled[i]) {
                (Some(record), _) => {
                    new_cache
                        .assets
                        .insert(source.rel_path.clone(), record.clone());
                    (fresh_report(source, record), 0.0)
                }
                (None, Some((result, time_ms))) => {
                    let outcome = result.as_ref().map_err(Clone::clone).and_then(|asset| {
                        for t in &asset.textures {
                            if let Some(Err(e)) = texture_results.get(&t.job.id) {
                                return Err(format!(
                                    "{}: {} {e}",
                                    source.abs_path.display(),
                                    t.job.label
                                ));
                            }
                        }
                        Ok(asset)
                    });
                    let r = match outcome {
                        Ok(asset) => {
                            write_asset(asset, &texture_results, &opts.output)?;
                            new_cache
                                .assets
                                .insert(source.rel_path.clone(), record_of(asset, hashes[i]));
                            built_report(source, asset)
                        }
                        Err(error) => finished_failed(source, error),
                    };
                    (r, *time_ms)
                }
                (None, None) => continue,
            };
            asset_report.time_ms = time_ms;
            reporter.event(&Event::AssetFinished {
                source: asset_report.source.clone(),
                status: asset_report.status,
                outputs: asset_report.outputs.clone(),
                warnings: asset_report.warnings.clone(),
                error: asset_report.error.clone(),
                time_ms,
                stages_ms: if asset_report.status == AssetStatus::Built
                    && !asset_report.outputs.is_empty()
                {
                    asset_report
                        .times
                        .entries()
                        .iter()
                        .map(|(n, d)| (n.to_string(), d.as_secs_f64() * 1000.0))
                        .collect()
                } else {
                    Vec::new()
                },
            });
            report.assets.push(asset_report);
        }

        report.removed = remove_orphans(&old_cache, &new_cache, &opts.output);
        let manifest_entries: Vec<_> = new_cache
            .assets
            .values()
            .flat_map(|r| r.manifest.iter().filter_map(CachedEntry::to_entry))
            .collect();
        let manifest = manifest::manifest_bytes(manifest_entries)
            .map_err(|e| BuildError::Manifest(e.to_string()))?;
        let manifest_path = opts.output.join(manifest::MANIFEST_NAME);
        output::write_atomic(&manifest_path, &manifest).map_err(|source| BuildError::Write {
            path: manifest_path.clone(),
            source,
        })?;

        new_cache
            .save(&opts.output)
            .map_err(|source| BuildError::Write {
                path: opts.output.join(cache::CACHE_NAME),
                source,
            })?;
        if opts.report {
            report.report_page = Some(crate::report::write_report(&opts.output, &report)?);
        }
        if opts.verify {
            report.verify_problems = verify::verify_tree(&opts.output);
        }
        if opts.pack_spk && report.success() {
            let archive = spk_path(&opts.output);
            let bytes = crate::pack::pack_dir(&opts.output, None)
                .map_err(|e| BuildError::Pack(e.to_string()))?;
            output::write_atomic(&archive, &bytes).map_err(|source| BuildError::Write {
                path: archive.clone(),
                source,
            })?;
            if opts.verify {
                let problems =
                    crate::formats::spk::validate(&std::fs::read(&archive).unwrap_or_default());
                report.verify_problems.extend(
                    problems
                        .into_iter()
                        .map(|p| format!("{}: {p}", archive.display())),
                );
            }
            report.archive = Some(archive);
        }
        reporter.event(&Event::BuildFinished {
            success: report.success(),
            built: report
                .assets
                .iter()
                .filter(|a| a.status == AssetStatus::Built)
                .count(),
            fresh: report
                .assets
                .iter()
                .filter(|a| a.status == AssetStatus::Fresh)
                .count(),
            failed: report.failed(),
            textures_encoded: report.textures_encoded,
            removed: report.removed,
            time_ms: started.elapsed().as_secs_f64() * 1000.0,
        });
        Ok(report)
    }
}

/// Sources whose runtime ref an earlier source already claims (`a.gltf` beside `a.glb`),
/// mapped to that earlier source: they fail instead of overwriting its outputs.
fn output_collisions(sources: &[Source]) -> BTreeMap<String, String> {
    let mut owner: BTreeMap<String, &str> = BTreeMap::new();
    let mut clashes = BTreeMap::new();
    for s in sources {
        match owner.entry(s.runtime_ref()) {
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(&s.rel_path);
            }
            std::collections::btree_map::Entry::Occupied(e) => {
                clashes.insert(s.rel_path.clone(), e.get().to_string());
            }
        }
    }
    clashes
}

/// Encodes every texture id any successful asset needs, once. `Ok(None)` means the file
/// already exists (textures are content-addressed, so an existing file is current).
fn encode_textures(
    compiled: &[Option<(Result<CompiledAsset, String>, f64)>],
    output: &Path,
) -> BTreeMap<u64, Result<Option<Vec<u8>>, String>> {
    let mut unique: BTreeMap<u64, &TextureRequest> = BTreeMap::new();
    for (result, _) in compiled.iter().flatten() {
        if let Ok(asset) = result {
            for t in &asset.textures {
                unique.entry(t.job.id).or_insert(t);
            }
        }
    }
    let jobs: Vec<(u64, &TextureRequest)> = unique.into_iter().collect();
    jobs.par_iter()
        .map(|(id, req)| {
            let path = output.join(texture_rel_path(*id));
            if path.is_file() {
                return (*id, Ok(None));
            }
            let result = crate::pipeline::textures::encode_texture(
                &req.job.bytes,
                req.job.mime_type.as_deref(),
                req.job.mode,
                req.job.alpha_cutoff,
                &req.settings,
            )
            .map(Some)
            .map_err(|e| e.named(&req.job.label).to_string());
            (*id, result)
        })
        .collect()
}

fn write_asset(
    asset: &CompiledAsset,
    textures: &BTreeMap<u64, Result<Option<Vec<u8>>, String>>,
    output: &Path,
) -> Result<(), BuildError> {
    for t in &asset.textures {
        if let Some(Ok(Some(bytes))) = textures.get(&t.job.id) {
            let path = output.join(t.rel_path());
            output::write_atomic(&path, bytes)
                .map_err(|source| BuildError::Write { path, source })?;
        }
    }
    for f in &asset.files {
        let path = output.join(&f.rel_path);
        output::write_atomic(&path, &f.bytes)
            .map_err(|source| BuildError::Write { path, source })?;
    }
    Ok(())
}

fn manifest_entries_of(asset: &CompiledAsset) -> Vec<crate::formats::hman::ManifestEntry> {
    use crate::formats::hman::EntryKind;
    use crate::pipeline::textures::TextureMode;
    let mut out: Vec<_> = asset
        .files
        .iter()
        .map(|f| manifest::entry_for(&f.rel_path, f.kind, None, false))
        .collect();
    out.extend(asset.textures.iter().map(|t| {
        manifest::entry_for(
            &t.rel_path(),
            EntryKind::Texture,
            Some(t.job.id),
            t.job.mode == TextureMode::Color,
        )
    }));
    out
}

fn built_report(source: &Source, asset: &CompiledAsset) -> AssetReport {
    AssetReport {
        source: source.rel_path.clone(),
        status: AssetStatus::Built,
        outputs: asset.output_paths(),
        warnings: asset.warnings.clone(),
        error: None,
        stats: asset.stats.clone(),
        inputs: asset.inputs.clone(),
        times: asset.times.clone(),
        time_ms: 0.0,
    }
}

fn finished_failed(source: &Source, error: String) -> AssetReport {
    AssetReport {
        source: source.rel_path.clone(),
        status: AssetStatus::Failed,
        outputs: Vec::new(),
        warnings: Vec::new(),
        error: Some(error),
        stats: AssetStats::default(),
        inputs: vec![source.abs_path.clone()],
        times: Default::default(),
        time_ms: 0.0,
    }
}

/// The cache record of a freshly built asset.
fn record_of(asset: &CompiledAsset, settings_hash: u64) -> AssetRecord {
    let outputs = asset.output_paths();
    let mut manifest: Vec<CachedEntry> = manifest_entries_of(asset)
        .iter()
        .map(CachedEntry::from_entry)
        .collect();
    manifest.sort_by(|a, b| (a.hash, &a.path).cmp(&(b.hash, &b.path)));
    manifest.dedup();
    AssetRecord {
        settings_hash,
        // An input that vanished between import and now gets an empty stamp, which never
        // matches again: the asset simply rebuilds next time.
        inputs: asset
            .inputs
            .iter()
            .map(|p| {
                InputStamp::of(p).unwrap_or(InputStamp {
                    path: p.clone(),
                    size: u64::MAX,
                    mtime_ns: 0,
                    hash: 0,
                })
            })
            .collect(),
        outputs,
        manifest,
        warnings: asset.warnings.clone(),
        stats: asset.stats.clone(),
    }
}

fn fresh_report(source: &Source, record: &AssetRecord) -> AssetReport {
    AssetReport {
        source: source.rel_path.clone(),
        status: AssetStatus::Fresh,
        outputs: record.outputs.clone(),
        warnings: record.warnings.clone(),
        error: None,
        stats: record.stats.clone(),
        inputs: record.inputs.iter().map(|i| i.path.clone()).collect(),
        times: Default::default(),
        time_ms: 0.0,
    }
}

/// Deletes outputs the previous build recorded that no current asset produces (deleted,
/// renamed or now failing sources; textures nothing uses any more). Returns how many.
fn remove_orphans(old: &Cache, new: &Cache, output: &Path) -> usize {
    let live: BTreeSet<&str> = new
        .assets
        .values()
        .flat_map(|r| r.outputs.iter().map(String::as_str))
        .collect();
    let mut removed = 0;
    let stale: BTreeSet<&str> = old
        .assets
        .values()
        .flat_map(|r| r.outputs.iter().map(String::as_str))
        .filter(|o| !live.contains(o))
        .collect();
    for rel in stale {
        if std::fs::remove_file(output.join(rel)).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// `<output>.spk` beside the output folder (`runtime/` -> `runtime.spk`).
pub fn spk_path(output: &Path) -> PathBuf {
    let mut name = output
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "output".into());
    name.push(".spk");
    output.with_file_name(name)
}
