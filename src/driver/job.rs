//! One source's way through a build, as one record that moves through its states:
//! discovered, then fresh (its outputs are current), fetched (from the remote cache) or
//! compiled (built or failed), then written and recorded in the new cache. The driver keeps
//! one `AssetJob` per source instead of vectors that must stay index-aligned, and every
//! [`AssetReport`] is made here, from the state.

use super::cache::{self, AssetRecord, Cache, CachedEntry, FileStamp, SettingsKey};
use super::code::{DiagnosticCode, Failure};
use super::discover::Source;
use super::events::{whole_ms, AssetStatus, Reporter};
use super::freshness::Checked;
use super::remote::{Fetched, SourceKey};
use super::texture_store::{TextureResult, TextureStore};
use super::{finish, guard, manifest, AssetReport, BuildError};
use crate::kinds::asset::{AssetSettings, CompiledAsset};
use crate::output;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(super) struct AssetJob {
    pub source: Source,
    pub settings: AssetSettings,
    /// Its `<file>.meta.toml` is wrong: compiling it is failing with this.
    pub settings_error: Option<Failure>,
    /// The settings' part of its cache key.
    pub settings_key: SettingsKey,
    /// While watching, the record of its last good build: kept as it is if it fails.
    pub last_good: Option<Arc<AssetRecord>>,
    /// Its key in the remote cache, when one is in use and it has to be built.
    pub remote_key: Option<SourceKey>,
    /// Its inputs' sizes and times taken before it was compiled (empty unless compiled).
    pub stats_before: Vec<cache::StatBefore>,
    pub state: JobState,
    /// How long its fetch or its compilation took.
    pub elapsed: Duration,
    /// When fresh, its outputs' stamps as the freshness check refreshed them.
    pub fresh_stamps: Vec<(String, FileStamp)>,
    /// When fresh, its report: made once, when it was found fresh, and kept for the
    /// build's report.
    pub fresh_report: Option<AssetReport>,
}

pub(super) enum JobState {
    /// Found by discovery and neither fresh nor fetched (yet): to be compiled.
    Discovered,
    /// Its outputs from an earlier build are current.
    Fresh(Arc<AssetRecord>),
    /// The remote cache had it.
    Fetched(Fetched),
    /// Compiled here: built, failed, or not attempted after an earlier failure.
    Compiled(Result<CompiledAsset, Failure>),
}

/// How a source is to be treated before anything is compiled.
pub(super) struct JobPlan<'a> {
    pub old_cache: &'a Cache,
    /// Whether the old cache may vouch for anything (`--no-cache` and stale caches not).
    pub trust_cache: bool,
    /// Whether a failing asset keeps its last good outputs (while watching).
    pub keep_failed_outputs: bool,
}

impl AssetJob {
    /// A discovered source, fresh when the cache vouches for its outputs (`checked`, made
    /// with the plan's cache; never when `collides`: its outputs would be another
    /// source's).
    pub fn new(source: Source, checked: Checked, plan: &JobPlan, collides: bool) -> Self {
        let Checked {
            settings,
            settings_key,
            fresh,
            settings_error,
        } = checked;
        let (fresh, fresh_stamps) = match fresh.filter(|_| plan.trust_cache && !collides) {
            Some(f) => (Some(f.record), f.output_stamps),
            None => (None, Vec::new()),
        };
        let last_good = (plan.keep_failed_outputs && plan.trust_cache)
            .then(|| plan.old_cache.assets.get(&source.rel_path).cloned())
            .flatten();
        Self {
            source,
            settings,
            settings_error,
            settings_key,
            last_good,
            remote_key: None,
            stats_before: Vec::new(),
            state: fresh.map_or(JobState::Discovered, JobState::Fresh),
            elapsed: Duration::ZERO,
            fresh_stamps,
            fresh_report: None,
        }
    }

    pub fn is_discovered(&self) -> bool {
        matches!(self.state, JobState::Discovered)
    }

    pub fn is_fresh(&self) -> bool {
        matches!(self.state, JobState::Fresh(_))
    }

    /// Whether building it may encode a texture to UASTC, as its kind says.
    pub fn may_encode_uastc(&self) -> bool {
        (crate::kinds::kind(self.source.kind).may_encode_uastc)(&self.settings)
    }

    pub fn fetched(&self) -> Option<&Fetched> {
        match &self.state {
            JobState::Fetched(got) => Some(got),
            _ => None,
        }
    }

    pub fn built(&self) -> Option<&CompiledAsset> {
        match &self.state {
            JobState::Compiled(Ok(asset)) => Some(asset),
            _ => None,
        }
    }

    /// The asset's report in its current state (`None` while only discovered).
    pub fn report(&self) -> Option<AssetReport> {
        let source = &self.source;
        let blank = AssetReport {
            source: source.rel_path.clone(),
            status: AssetStatus::Built,
            outputs: Vec::new(),
            warnings: Vec::new(),
            error: None,
            error_code: None,
            error_site: None,
            error_detail: None,
            error_position: None,
            stats: Default::default(),
            inputs: Vec::new(),
            times: Default::default(),
            time_ms: 0.0,
            made_in_ms: None,
        };
        let recorded = |status, record: &AssetRecord| AssetReport {
            status,
            outputs: record.outputs.clone(),
            warnings: record.warnings.clone(),
            stats: record.stats.clone(),
            inputs: record.inputs.iter().map(|i| i.path.clone()).collect(),
            // Fetched outputs were made elsewhere, in a time not known here.
            made_in_ms: (record.build_us > 0).then(|| record.build_us as f64 / 1000.0),
            ..blank.clone()
        };
        let compile_ms = self.elapsed.as_secs_f64() * 1000.0;
        Some(match &self.state {
            JobState::Discovered => return None,
            JobState::Fresh(record) => recorded(AssetStatus::Fresh, record),
            JobState::Fetched(got) => recorded(
                AssetStatus::Fetched,
                &fetched_record(got, &self.settings_key),
            ),
            JobState::Compiled(Ok(asset)) => AssetReport {
                outputs: asset.output_paths(),
                warnings: asset.warnings.clone(),
                stats: asset.stats.clone(),
                inputs: asset.inputs.clone(),
                times: asset.times.clone(),
                time_ms: compile_ms,
                made_in_ms: Some(compile_ms),
                ..blank
            },
            JobState::Compiled(Err(error)) => {
                let skipped = error.code == DiagnosticCode::Skipped;
                AssetReport {
                    status: match skipped {
                        true => AssetStatus::Skipped,
                        false => AssetStatus::Failed,
                    },
                    // While watching, its last good outputs stay where they are.
                    outputs: match (&self.last_good, skipped) {
                        (Some(record), false) => record.outputs.clone(),
                        _ => Vec::new(),
                    },
                    error: Some(error.message.clone()),
                    error_code: Some(error.code),
                    error_site: error.site.as_deref().cloned(),
                    error_detail: Some(error.detail.clone()),
                    error_position: error.position,
                    inputs: vec![source.abs_path.clone()],
                    time_ms: compile_ms,
                    ..blank
                }
            }
        })
    }

    /// Writes what the asset produced (fetched and built files; fresh outputs stay as
    /// they are) and records it in `new_cache`.
    ///
    /// A fresh asset's stamps move into the new cache, and its record is shared with it:
    /// its report was made when it was found fresh, and nothing reads the stamps from the
    /// job afterwards.
    pub fn write_and_record(
        &mut self,
        written: &Written,
        new_cache: &mut Cache,
    ) -> Result<(), BuildError> {
        let rel = &self.source.rel_path;
        let record: Arc<AssetRecord> = match &self.state {
            JobState::Discovered => return Ok(()),
            JobState::Fresh(record) => {
                // Checked at the start of this build: no need to look at the files again.
                // Its stamps are those of every output it records: none to carry over.
                for (file, stamp) in std::mem::take(&mut self.fresh_stamps) {
                    new_cache.files.entry(file).or_insert(stamp);
                }
                new_cache.assets.insert(rel.clone(), Arc::clone(record));
                return Ok(());
            }
            JobState::Fetched(got) => {
                for (file, bytes) in &got.files {
                    let stamp = write_file(written.output, file, bytes)?;
                    new_cache.files.insert(file.clone(), stamp);
                }
                Arc::new(fetched_record(got, &self.settings_key))
            }
            JobState::Compiled(Ok(asset)) => {
                for (file, bytes) in asset_files(asset, written.textures) {
                    let stamp = write_file(written.output, &file, bytes)?;
                    new_cache.files.insert(file, stamp);
                }
                Arc::new(record_of(
                    asset,
                    &self.settings_key,
                    &self.stats_before,
                    written.reads,
                    self.elapsed,
                ))
            }
            JobState::Compiled(Err(error)) => match &self.last_good {
                Some(record) if error.code != DiagnosticCode::Skipped => Arc::clone(record),
                _ => return Ok(()),
            },
        };
        carry_stamps(
            written.old_cache,
            &record.outputs,
            written.output,
            new_cache,
        );
        new_cache.assets.insert(rel.clone(), record);
        Ok(())
    }

    /// The output paths and manifest entries the asset claims, when it has outputs.
    pub fn claims(&self) -> Option<(Vec<String>, Vec<CachedEntry>)> {
        match &self.state {
            JobState::Fresh(record) => Some((record.outputs.clone(), record.manifest.clone())),
            JobState::Fetched(got) => Some((
                got.files.iter().map(|(p, _)| p.clone()).collect(),
                got.record.manifest.clone(),
            )),
            JobState::Compiled(Ok(asset)) => Some((
                asset.output_paths(),
                manifest_entries_of(asset)
                    .iter()
                    .map(CachedEntry::from_entry)
                    .collect(),
            )),
            _ => None,
        }
    }
}

/// What compiling needs besides the job itself.
pub(super) struct Compiler<'a> {
    pub root: &'a Path,
    pub old_cache: &'a Cache,
    /// Sources whose outputs an earlier source claims, with that source.
    pub collisions: &'a BTreeMap<String, String>,
    pub textures: &'a TextureStore<'a>,
    /// With `--fail-fast`: set by the first failure, after which nothing is attempted.
    pub fail_fast: Option<&'a AtomicBool>,
    pub reporter: &'a dyn Reporter,
    pub limits: &'a crate::limits::Limits,
}

impl Compiler<'_> {
    /// Compiles a discovered asset (its textures included) and reports it finished.
    pub fn compile(&self, job: &mut AssetJob) {
        let started = Instant::now();
        let result = match self.fail_fast {
            Some(stop) if stop.load(Ordering::Relaxed) => Err(Failure::of_source(
                DiagnosticCode::Skipped,
                job.source.abs_path.display(),
                FAIL_FAST_SKIP,
            )),
            _ => self.compile_attempted(job),
        };
        if let (Err(_), Some(stop)) = (&result, self.fail_fast) {
            stop.store(true, Ordering::Relaxed);
        }
        job.state = JobState::Compiled(result);
        job.elapsed = started.elapsed();
        if let Some(report) = job.report() {
            finish::report_finished(self.reporter, &job.source, &report, whole_ms(job.elapsed));
        }
    }

    fn compile_attempted(&self, job: &mut AssetJob) -> Result<CompiledAsset, Failure> {
        let source = &job.source;
        job.stats_before = cache::stat_inputs_before(
            &source.abs_path,
            self.old_cache.assets.get(&source.rel_path).map(|r| &**r),
        );
        let result = match self.collisions.get(&source.rel_path) {
            _ if let Some(error) = &job.settings_error => Err(error.clone()),
            Some(other) => Err(Failure::of_source(
                DiagnosticCode::OutputCollision,
                source.abs_path.display(),
                format!(
                    "its outputs would overwrite those of {other} (same path without extension)"
                ),
            )),
            None => guard::compile_guarded(source, self.root, &job.settings, self.limits),
        };
        finish::with_textures(result, self.textures, source, self.reporter).map_err(|e| match &job
            .last_good
        {
            Some(_) => e.noted("its last good outputs are kept while watching"),
            None => e,
        })
    }
}

/// The message of an asset `--fail-fast` did not attempt (reported as skipped, not failed).
const FAIL_FAST_SKIP: &str = "not built: skipped after an earlier failure (--fail-fast)";

/// What writing needs besides the job itself.
pub(super) struct Written<'a> {
    pub old_cache: &'a Cache,
    pub textures: &'a BTreeMap<u64, TextureResult>,
    pub output: &'a Path,
    pub reads: &'a cache::ReadLog,
}

/// A fetched asset's local cache record, as if built here with `settings_key`.
fn fetched_record(got: &Fetched, settings_key: &SettingsKey) -> AssetRecord {
    let outputs = fetched_outputs(got);
    AssetRecord {
        settings_hash: settings_key.for_outputs(&outputs),
        inputs: got.inputs.clone(),
        outputs,
        manifest: got.record.manifest.clone(),
        warnings: got.record.warnings.clone(),
        stats: got.record.stats.clone(),
        build_us: 0,
    }
}

fn fetched_outputs(got: &Fetched) -> Vec<String> {
    let mut outputs: Vec<String> = got.files.iter().map(|(rel, _)| rel.clone()).collect();
    outputs.sort();
    outputs.dedup();
    outputs
}

/// Outputs from this size on are hashed on a thread of their own while they are written
/// (a million-triangle `.hmesh` is 41 MB, whose hash would otherwise follow its write on
/// the one thread that writes every output); below it a thread costs more than it saves.
const HASH_BESIDE_WRITE_BYTES: usize = 4 << 20;

fn write_file(output: &Path, rel: &str, bytes: &[u8]) -> Result<FileStamp, BuildError> {
    let path = output.join(rel);
    let (written, hash) = if bytes.len() >= HASH_BESIDE_WRITE_BYTES {
        std::thread::scope(|scope| {
            let hash = scope.spawn(|| assetc_core::read_log::content_hash(bytes));
            let written = output::write_atomic(&path, bytes);
            let hash = hash
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (written, hash)
        })
    } else {
        (
            output::write_atomic(&path, bytes),
            assetc_core::read_log::content_hash(bytes),
        )
    };
    written
        .and_then(|_| FileStamp::written_hashed(&path, hash))
        .map_err(|source| BuildError::Write { path, source })
}

/// An asset's files to write: the textures encoded for it (not those reused from disk),
/// then its own files.
pub(super) fn asset_files<'a>(
    asset: &'a CompiledAsset,
    textures: &'a BTreeMap<u64, TextureResult>,
) -> impl Iterator<Item = (String, &'a [u8])> {
    let encoded = asset
        .textures
        .iter()
        .filter_map(|t| match textures.get(&t.job.id) {
            Some(Ok(Some(bytes))) => Some((t.rel_path(), bytes.as_slice())),
            _ => None,
        });
    let files = asset
        .files
        .iter()
        .map(|f| (f.rel_path.clone(), f.bytes.as_slice()));
    encoded.chain(files)
}

/// Copies into `new` the stamps `old` holds for `outputs` not stamped yet (fresh assets,
/// textures reused as they are), when the files still hold what was stamped.
pub(super) fn carry_stamps(old: &Cache, outputs: &[String], output: &Path, new: &mut Cache) {
    for rel in outputs {
        if !new.files.contains_key(rel) {
            if let Some(stamp) = old.vouched(rel, output) {
                new.files.insert(rel.clone(), stamp);
            }
        }
    }
}

pub(super) fn manifest_entries_of(
    asset: &CompiledAsset,
) -> Vec<crate::formats::hman::ManifestEntry> {
    use crate::formats::hman::EntryKind;
    use crate::pipeline::textures::TextureMode;
    let mut out: Vec<_> = asset
        .files
        .iter()
        .map(|f| manifest::entry_for(&f.rel_path, f.kind, f.manifest_id, f.srgb))
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

/// The cache record of a freshly built asset; `before` are the stamps taken before it was
/// imported.
fn record_of(
    asset: &CompiledAsset,
    settings_key: &SettingsKey,
    before: &[cache::StatBefore],
    reads: &cache::ReadLog,
    compile_time: Duration,
) -> AssetRecord {
    let outputs = asset.output_paths();
    let mut manifest: Vec<CachedEntry> = manifest_entries_of(asset)
        .iter()
        .map(CachedEntry::from_entry)
        .collect();
    manifest.sort_by(|a, b| (a.hash, &a.path).cmp(&(b.hash, &b.path)));
    manifest.dedup();
    AssetRecord {
        settings_hash: settings_key.for_outputs(&outputs),
        // An input that vanished or changed during the build gets a stamp that never
        // matches again: the asset simply rebuilds next time.
        inputs: cache::stamps_after(&asset.inputs, before, reads),
        outputs,
        manifest,
        warnings: asset.warnings.clone(),
        stats: asset.stats.clone(),
        build_us: u64::try_from(compile_time.as_micros()).unwrap_or(u64::MAX),
    }
}

/// Whether the remote steps may publish the job: built here, and keyed.
pub(super) fn publishable(job: &AssetJob) -> Option<(&SourceKey, &CompiledAsset)> {
    Some((job.remote_key.as_ref()?, job.built()?))
}
