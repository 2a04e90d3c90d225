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
pub use crate::options::shard;
pub mod texture_store;
pub mod verify;

mod finish;
mod freshness;
mod job;
mod remote_steps;
mod schedule;
mod script;

use crate::kinds::asset::AssetSettings;
use crate::output;
use cache::{Cache, CachedEntry};
use discover::{discover, input_root, DiscoverRules, Source};
use events::{whole_ms, AssetStatus, Event, Reporter, SilentReporter};
use job::{AssetJob, JobState};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use crate::kinds::asset::Target;
pub use script::ScriptError;

/// Discovery is the driver's: the options type lives below it, with its other methods.
impl BuildOptions {
    /// The embed and ignore globs and the folders discovery must not walk.
    pub fn discover_rules(&self) -> Result<DiscoverRules, BuildError> {
        let mut embed = globset::GlobSetBuilder::new();
        for pattern in &self.embed {
            let glob = globset::Glob::new(pattern)
                .map_err(|e| BuildError::Config(format!("embed: `{pattern}`: {e}")))?;
            embed.add(glob);
        }
        let mut ignore = globset::GlobSetBuilder::new();
        for rule in self.rules.iter().filter(|r| r.ignore) {
            // The matcher was compiled from a valid glob; its text compiles again.
            if let Ok(glob) = globset::Glob::new(rule.matcher.glob().glob()) {
                ignore.add(glob);
            }
        }
        let built =
            |b: globset::GlobSetBuilder| b.build().map_err(|e| BuildError::Config(e.to_string()));
        Ok(DiscoverRules {
            embed: built(embed)?,
            ignore: built(ignore)?,
            exclude: vec![self.output.clone()],
        })
    }
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

    pub fn run_with(&self, reporter: &dyn Reporter) -> Result<BuildReport, BuildError> {
        let started = Instant::now();
        let opts = &self.options;
        if let Some(e) = &self.config_error {
            return Err(BuildError::Config(e.clone()));
        }
        if !opts.input.exists() {
            return Err(BuildError::MissingInput(opts.input.clone()));
        }
        let root = input_root(&opts.input);
        // Before anything below the output is swept or written.
        output::check_output_folder(&opts.output, &root)?;
        // One pool for the whole build, the freshness checks included: `-j` bounds them
        // too (they ran on rayon's global pool, one thread a core), and no second set of
        // threads is started.
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(j) = opts.jobs {
            pool = pool.num_threads(j.max(1));
        }
        let pool = pool.build().map_err(|e| BuildError::Pool(e.to_string()))?;
        // The cache is read while the input folder is walked: neither needs the other,
        // and each was a stretch of a no-op rebuild on one core. Loaded even with
        // --no-cache: what it lists as written may need removing.
        let (old_cache, discovered) = pool
            .install(|| rayon::join(|| Cache::load_any(&opts.output), || discover_sources(opts)));
        let trust_cache = opts.use_cache && old_cache.is_current();
        let hashes = freshness::SettingsHashes::default();
        let (sources, other_shards, ignored, mut checked) = pool.install(|| {
            assets_of_this_build(
                discovered?,
                opts,
                &old_cache,
                trust_cache,
                &hashes,
                reporter,
            )
        })?;
        std::fs::create_dir_all(&opts.output).map_err(|source| BuildError::Write {
            path: opts.output.clone(),
            source,
        })?;
        output::remove_stale_temporaries(&opts.output);

        let collisions = output_collisions(&sources);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let plan = job::JobPlan {
            old_cache: &old_cache,
            trust_cache,
            keep_failed_outputs: opts.keep_failed_outputs,
        };
        // Models were checked while their inputs were listed; the rest are checked here,
        // in parallel (a stat of each input and output).
        let unchecked: Vec<(String, freshness::Checked)> = pool.install(|| {
            sources
                .par_iter()
                .filter(|s| !checked.contains_key(&s.rel_path))
                .map(|s| {
                    let c = freshness::check(s, opts, &old_cache, trust_cache, &hashes);
                    (s.rel_path.clone(), c)
                })
                .collect()
        });
        checked.extend(unchecked);
        let mut jobs: Vec<AssetJob> = sources
            .into_iter()
            .map(|source| {
                let check = checked.remove(&source.rel_path).unwrap_or_else(|| {
                    freshness::check(&source, opts, &old_cache, trust_cache, &hashes)
                });
                let collides = collisions.contains_key(&source.rel_path);
                AssetJob::new(source, check, &plan, collides)
            })
            .collect();
        reporter.event(&Event::BuildStarted {
            assets: jobs.len(),
            to_build: jobs.iter().filter(|job| !job.is_fresh()).count(),
        });
        // A fresh asset's report is made once: announced now, kept for the build's report.
        let mut fresh_reports: Vec<Option<AssetReport>> = pool.install(|| {
            jobs.par_iter()
                .map(|job| job.is_fresh().then(|| job.report()).flatten())
                .collect()
        });
        for (job, report) in jobs.iter().zip(&fresh_reports) {
            if let Some(report) = report {
                finish::report_finished(reporter, &job.source, report, 0);
            }
        }
        let remote = opts.remote_cache.as_ref().and_then(|url| {
            remote::RemoteCache::open(url, opts.remote_mode, opts.remote_max_blob_bytes, reporter)
        });
        remote_steps::key_sources(&pool, remote.as_ref(), &mut jobs, &collisions);
        // --no-cache rebuilds everything: nothing is fetched (what is built is still
        // uploaded).
        remote_steps::fetch_all(
            opts.use_cache,
            &pool,
            remote.as_ref(),
            &mut jobs,
            &root,
            reporter,
        );
        // Content-addressed: a texture file the cache vouches for is that texture already.
        let vouched = |rel: &str| trust_cache && old_cache.vouched(rel, &opts.output).is_some();
        let textures = texture_store::TextureStore::new(&opts.output, &vouched);
        let seeded = remote_steps::seed_textures(&textures, &jobs);

        // Every input is stamped by the bytes its compile read (see cache::ReadLog).
        let reads = cache::ReadLog::start();
        let compiler = job::Compiler {
            root: &root,
            old_cache: &old_cache,
            collisions: &collisions,
            textures: &textures,
            fail_fast: opts.fail_fast.then_some(&stop),
            reporter,
        };
        // The UASTC encoder's one-time set-up (about 20 ms) would otherwise run inside the
        // first texture's encode, which for a model comes after its geometry, at the end
        // of the build; a core is spare while the first sources are read.
        if jobs
            .iter()
            .any(|job| job.is_discovered() && job.may_encode_uastc())
        {
            pool.spawn(crate::pipeline::textures::prepare_uastc_encoder);
        }
        // Largest first, so that the longest asset does not start last and run alone.
        let compile_discovered = |jobs: &mut [AssetJob]| {
            pool.install(|| schedule::largest_first(jobs, |job| compiler.compile(job)))
        };
        compile_discovered(&mut jobs);
        // A fetched asset that passed its own checks may still clash with the rest of the
        // build (an output path or manifest id of another asset, a folder where it would
        // write a file): it is built here instead, and so on until nothing clashes (each
        // round builds at least one more asset here).
        if let Some(remote) = &remote {
            loop {
                let refused = remote_steps::clashes(&jobs, &opts.output);
                if refused.is_empty() {
                    break;
                }
                for (i, why) in refused {
                    let job = &mut jobs[i];
                    remote.refuse(&job.source, &why, reporter);
                    job.state = JobState::Discovered;
                    // One more asset to build: its fetch already counted as done.
                    reporter.event(&Event::Progress {
                        added: 1,
                        done: 0,
                        name: job.source.rel_path.clone(),
                    });
                }
                compile_discovered(&mut jobs);
            }
        }
        remote_steps::report_fetched(reporter, &jobs);

        let texture_results = textures.into_results();
        let intent_saved = save_intent(&old_cache, &jobs, &texture_results, &opts.output)?;
        let textures_encoded = texture_results
            .iter()
            .filter(|(id, r)| matches!(r, Ok(Some(_))) && !seeded.contains(id))
            .count();

        let mut report = BuildReport {
            textures_encoded,
            ignored,
            ..Default::default()
        };
        let mut new_cache = Cache::default();
        for source in &other_shards {
            if let Some(record) = old_cache
                .assets
                .get(&source.rel_path)
                .filter(|_| trust_cache)
            {
                job::carry_stamps(&old_cache, &record.outputs, &opts.output, &mut new_cache);
                new_cache
                    .assets
                    .insert(source.rel_path.clone(), record.clone());
            }
        }
        let written = job::Written {
            old_cache: &old_cache,
            textures: &texture_results,
            output: &opts.output,
            reads: &reads,
        };
        for (job, fresh_report) in jobs.iter_mut().zip(&mut fresh_reports) {
            job.write_and_record(&written, &mut new_cache)?;
            report
                .assets
                .extend(fresh_report.take().or_else(|| job.report()));
        }

        if let Some(remote) = &remote {
            remote_steps::upload_built(
                &pool,
                remote,
                &remote_steps::Built {
                    jobs: &jobs,
                    textures: &texture_results,
                    cache: &new_cache,
                    root: &root,
                    output: &opts.output,
                },
                reporter,
            );
            report.fetched_bytes = remote.fetched_bytes();
            report.uploaded_bytes = remote.uploaded_bytes();
        }
        let same_records = new_cache.same_records(&old_cache);
        // The new cache stamps only files its records list as outputs (every stamp is put
        // there for a recorded output), so when the last build's records and stamps are
        // the same and it left nothing pending, it named no file this build does not
        // produce: nothing to look for.
        let nothing_orphaned = opts.use_cache && same_records && old_cache.pending.is_empty();
        if !nothing_orphaned {
            report.removed = remove_orphans(&old_cache, &new_cache, &opts.output, opts.use_cache);
        }
        // The cache as the file still holds it when this build has not written it (no
        // intent saved): unchanged records are then not written again.
        let on_disk = (!intent_saved).then_some(&old_cache);
        if opts.shard.is_some() {
            // A shard's tree is partial: its manifest would be wrong. The final plain
            // build writes it.
            save_cache(&new_cache, &opts.output, on_disk)?;
            finish_event(reporter, &report, started);
            return Ok(report);
        }
        write_manifest(opts, &old_cache, same_records, &mut new_cache)?;
        save_cache(&new_cache, &opts.output, on_disk)?;
        // The build's bookkeeping is freed on a worker while the caller goes on: a record
        // per source in each cache and a job per source, freed one allocation at a time,
        // were the last 1.5 ms of a 1,000-source no-op rebuild on the caller's thread.
        pool.spawn(move || drop((old_cache, new_cache, jobs)));
        report.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
        report_verify_and_pack(opts, &mut report)?;
        finish_event(reporter, &report, started);
        Ok(report)
    }
}

/// After the manifest: the HTML report, `--verify`, and the archive of a successful build.
fn report_verify_and_pack(opts: &BuildOptions, report: &mut BuildReport) -> Result<(), BuildError> {
    if opts.report {
        report.report_page = Some(crate::report::write_report(&opts.output, report)?);
    }
    if opts.verify {
        let (problems, validated) = verify::verify_tree_counted(&opts.output);
        report.verify_problems = problems;
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

/// Writes `assets.hman` for the whole output tree, and records its stamp in `new_cache`.
/// It is not made again when the one on disk is what this build would write: the
/// records and output stamps it is made from are the last build's, every file it lists
/// is one the cache vouches for (any other would be read for its digest), it was written
/// in the same version, and it still holds what was written. A no-op rebuild of 1,000
/// models spent about 9% of its instructions making and validating the same manifest
/// (callgrind).
/// `same_records`: `new_cache.same_records(old_cache)`.
fn write_manifest(
    opts: &BuildOptions,
    old_cache: &Cache,
    same_records: bool,
    new_cache: &mut Cache,
) -> Result<(), BuildError> {
    let manifest_path = opts.output.join(manifest::MANIFEST_NAME);
    let current = old_cache
        .manifest
        .filter(|last| same_records && last.version == opts.manifest_version)
        .filter(|_| {
            new_cache
                .assets
                .values()
                .flat_map(|r| &r.manifest)
                .all(|e| new_cache.files.contains_key(&e.path))
        })
        .and_then(|last| last.stamp.check(&manifest_path));
    if let Some(stamp) = current {
        new_cache.manifest = Some(cache::ManifestStamp {
            version: opts.manifest_version,
            stamp,
        });
        return Ok(());
    }
    let manifest_entries: Vec<_> = new_cache
        .assets
        .values()
        .flat_map(|r| r.manifest.iter().filter_map(CachedEntry::to_entry))
        .collect();
    let manifest = manifest::manifest_bytes(
        &opts.output,
        manifest_entries,
        &new_cache.files,
        opts.manifest_version,
    )
    .map_err(|e| BuildError::Manifest(e.to_string()))?;
    guard::check_output(manifest::MANIFEST_NAME, &manifest)
        .map_err(|e| BuildError::Manifest(e.to_string()))?;
    let write_error = |source| BuildError::Write {
        path: manifest_path.clone(),
        source,
    };
    output::write_atomic(&manifest_path, &manifest).map_err(write_error)?;
    new_cache.manifest = Some(cache::ManifestStamp {
        version: opts.manifest_version,
        stamp: cache::FileStamp::written(&manifest_path, &manifest).map_err(write_error)?,
    });
    Ok(())
}

/// Saves the new cache; `on_disk` is the cache the file still holds when this build has
/// not written it (no intent saved): unchanged records are then not written again.
fn save_cache(cache: &Cache, output: &Path, on_disk: Option<&Cache>) -> Result<(), BuildError> {
    match on_disk {
        Some(on_disk) => cache.save_if_changed(output, on_disk).map(|_| ()),
        None => cache.save(output),
    }
    .map_err(|source| BuildError::Write {
        path: output.join(cache::CACHE_NAME),
        source,
    })
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

/// The sources this build compiles (those of its shard) and those it leaves as they are
/// (another shard's), of those `discovered`, without the files models read; with the files
/// no kind compiles, counted by extension (and reported).
#[allow(clippy::type_complexity)]
fn assets_of_this_build(
    mut discovered: discover::Discovered,
    opts: &BuildOptions,
    old_cache: &Cache,
    trust_cache: bool,
    hashes: &freshness::SettingsHashes,
    reporter: &dyn Reporter,
) -> Result<
    (
        Vec<Source>,
        Vec<Source>,
        Vec<(String, usize)>,
        HashMap<String, freshness::Checked>,
    ),
    BuildError,
> {
    // A model's buffers and images are its inputs, not assets of their own.
    let (used, checked) = model_inputs(&discovered.sources, opts, old_cache, trust_cache, hashes);
    discovered.without_model_inputs(&used);
    let ignored = discovered.unclaimed_by_extension();
    if let Some(message) = discover::unclaimed_summary(&ignored) {
        reporter.event(&Event::Ignored {
            files: ignored.iter().map(|(_, n)| n).sum(),
            by_extension: ignored.clone(),
            message,
        });
    }
    // Another shard's sources are left as they are, records and files alike.
    let (sources, other_shards) = discovered
        .sources
        .into_iter()
        .partition(|s| opts.shard.is_none_or(|shard| shard.contains(&s.rel_path)));
    Ok((sources, other_shards, ignored, checked))
}

/// Every file below the input, by kind (`discover`).
fn discover_sources(opts: &BuildOptions) -> Result<discover::Discovered, BuildError> {
    discover(&opts.input, &opts.discover_rules()?).map_err(|source| BuildError::Scan {
        path: opts.input.clone(),
        source,
    })
}

/// Every file the models among `sources` read, absolute and normalised: from the cache
/// record of a model whose inputs are unchanged, else from its glTF JSON together with
/// the inputs of its last good build (so that while a model is broken, or being saved,
/// its images do not turn into textures of their own). Returns them with each model's
/// check ([`freshness::check`]), which the build keeps.
fn model_inputs(
    sources: &[Source],
    opts: &BuildOptions,
    cache: &Cache,
    trust_cache: bool,
    hashes: &freshness::SettingsHashes,
) -> (HashSet<PathBuf>, HashMap<String, freshness::Checked>) {
    let working_dir = std::env::current_dir().ok();
    let per_model: Vec<(Vec<PathBuf>, (String, freshness::Checked))> = sources
        .par_iter()
        .filter(|s| s.kind == crate::kinds::KindId::Model)
        .map(|s| {
            let checked = freshness::check(s, opts, cache, trust_cache, hashes);
            let files: Vec<PathBuf> = match &checked.fresh {
                Some(fresh) => fresh.record.inputs.iter().map(|i| i.path.clone()).collect(),
                None => {
                    let last_good = cache
                        .assets
                        .get(&s.rel_path)
                        .filter(|_| trust_cache)
                        .into_iter()
                        .flat_map(|r| r.inputs.iter().map(|i| i.path.clone()));
                    crate::kinds::model::referenced_files(&s.abs_path)
                        .into_iter()
                        .chain(last_good)
                        .collect()
                }
            };
            let files = files
                .into_iter()
                .map(|f| discover::normalized_absolute_from(working_dir.as_deref(), &f))
                .collect();
            (files, (s.rel_path.clone(), checked))
        })
        .collect();
    // Only asked whether it holds a path: hashed, since ordering paths compares them
    // component by component (`std::path::compare_components` stood out in a no-op
    // rebuild's profile).
    let mut used = HashSet::new();
    let mut checked = HashMap::with_capacity(per_model.len());
    for (files, (rel, check)) in per_model {
        used.extend(files);
        checked.insert(rel, check);
    }
    (used, checked)
}

/// Sources whose output an earlier source already claims (`a.gltf` beside `a.glb`,
/// `a.png` beside `a.jpg`), mapped to that earlier source: they fail instead of
/// overwriting its outputs.
fn output_collisions(sources: &[Source]) -> BTreeMap<String, String> {
    let mut owner: BTreeMap<String, &str> = BTreeMap::new();
    let mut clashes = BTreeMap::new();
    for s in sources {
        match owner.entry(s.claimed_output()) {
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

/// Saves the cache's intent before anything is written (see [`cache`]): a build killed
/// from here on leaves a cache that vouches only for files it does not touch. Returns
/// whether it was saved: when every source is fresh and nothing is about to be written,
/// the intent is the cache on disk already (a no-op build leaves the file alone).
fn save_intent(
    old: &Cache,
    jobs: &[AssetJob],
    textures: &BTreeMap<u64, texture_store::TextureResult>,
    output: &Path,
) -> Result<bool, BuildError> {
    let rebuilt: Vec<&str> = jobs
        .iter()
        .filter(|job| !job.is_fresh())
        .map(|job| job.source.rel_path.as_str())
        .collect();
    let built = jobs.iter().filter_map(AssetJob::built).flat_map(|asset| {
        job::asset_files(asset, textures)
            .map(|(rel, _)| rel)
            .collect::<Vec<_>>()
    });
    let fetched = jobs
        .iter()
        .filter_map(AssetJob::fetched)
        .flat_map(|got| got.files.iter().map(|(rel, _)| rel.clone()));
    let about_to_write: Vec<String> = built.chain(fetched).collect();
    if rebuilt.is_empty() && about_to_write.is_empty() && old.is_current() {
        return Ok(false);
    }
    old.intent(rebuilt, about_to_write)
        .save(output)
        .map(|()| true)
        .map_err(|source| BuildError::Write {
            path: output.join(cache::CACHE_NAME),
            source,
        })
}

/// Deletes outputs an earlier build recorded or started writing that no current asset
/// produces (deleted, renamed or now failing sources; textures nothing uses any more).
/// Without the cache (`--no-cache`) it also sweeps the runtime files `check` would call
/// unlisted, so that a rebuild from scratch leaves exactly what it produces. Returns how
/// many files it removed.
fn remove_orphans(old: &Cache, new: &Cache, output: &Path, use_cache: bool) -> usize {
    // Hashed, not sorted: every output of the tree passes here on every build, a no-op
    // one too, and only the few stale paths need an order.
    let live: std::collections::HashSet<&str> = new
        .assets
        .values()
        .flat_map(|r| r.outputs.iter().map(String::as_str))
        .collect();
    let mut stale: BTreeSet<String> = old
        .known_outputs_repeated()
        .filter(|o| !live.contains(o) && cache::is_plain_relative(o))
        .map(String::from)
        .collect();
    if !use_cache {
        stale.extend(
            output::runtime_files(output)
                .into_iter()
                .filter(|o| !live.contains(o.as_str())),
        );
    }
    stale
        .iter()
        .filter(|rel| std::fs::remove_file(output.join(rel)).is_ok())
        .count()
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
