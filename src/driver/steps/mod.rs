//! The steps of one build, in the order [`super::Builder::run_with`] takes them: discover
//! the sources, find the fresh ones, fetch from the remote cache, compile, write, upload,
//! the manifest, finish. Each step reads the [`Build`] and hands the next what it made;
//! what belongs to one source travels in its [`super::job::AssetJob`].

pub(super) mod compile;
pub(super) mod finish;
pub(super) mod fresh;
pub(super) mod manifest;
pub(super) mod remote_cache;
pub(super) mod share;
pub(super) mod sources;
pub(super) mod write;

use super::cache::Cache;
use super::discover::{input_root, Discovered};
use super::events::Reporter;
use super::freshness::{Checker, SettingsHashes};
use super::{BuildError, BuildOptions};
use crate::config::meta::MetaFiles;
use crate::output;
use std::path::PathBuf;
use std::time::Instant;

/// What every step of one build reads.
pub(super) struct Build<'a> {
    pub opts: &'a BuildOptions,
    pub reporter: &'a dyn Reporter,
    /// One pool for the whole build, the freshness checks included: `-j` bounds them too,
    /// and no second set of threads is started.
    pub pool: rayon::ThreadPool,
    /// The input folder, which relative source paths are relative to.
    pub root: PathBuf,
    /// The last build's cache, loaded even with `--no-cache`: what it lists as written
    /// may need removing.
    pub old_cache: Cache,
    /// Whether the old cache may vouch for anything (`--no-cache` and stale caches not).
    pub trust_cache: bool,
    pub hashes: SettingsHashes,
    /// The sources with a `<file>.meta.toml` beside them.
    pub meta: MetaFiles,
    /// The other platforms' trees with their caches, when current (`share`).
    pub other_platforms: Vec<(PathBuf, Cache)>,
    pub started: Instant,
}

impl<'a> Build<'a> {
    /// What the freshness checks of this build read.
    pub fn checker(&self) -> Checker<'_> {
        Checker {
            opts: self.opts,
            cache: &self.old_cache,
            trust_cache: self.trust_cache,
            hashes: &self.hashes,
            meta: &self.meta,
        }
    }

    /// Checks the input and output folders, starts the pool, and walks the input folder
    /// while the cache is read: neither needs the other, and each was a stretch of a
    /// no-op rebuild on one core.
    pub fn start(
        opts: &'a BuildOptions,
        reporter: &'a dyn Reporter,
        started: Instant,
    ) -> Result<(Self, Discovered), BuildError> {
        if !opts.input.exists() {
            return Err(BuildError::MissingInput(opts.input.clone()));
        }
        let root = input_root(&opts.input);
        // Before anything below the output is swept or written.
        output::check_output_folder(&opts.output, &root)?;
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(j) = opts.jobs {
            pool = pool.num_threads(j.max(1));
        }
        let pool = pool.build().map_err(|e| BuildError::Pool(e.to_string()))?;
        let (old_cache, discovered) = pool.install(|| {
            rayon::join(
                || Cache::load_any(&opts.output),
                || sources::walk_input(opts),
            )
        });
        let discovered = discovered?;
        let meta = MetaFiles {
            root: root.clone(),
            sources: discovered.with_meta.clone(),
        };
        let other_platforms = opts
            .share_from
            .iter()
            .map(|output| (output.clone(), Cache::load_any(output)))
            .filter(|(_, cache)| cache.is_current())
            .collect();
        let build = Build {
            opts,
            reporter,
            pool,
            root,
            trust_cache: opts.use_cache && old_cache.is_current(),
            old_cache,
            hashes: SettingsHashes::default(),
            meta,
            other_platforms,
            started,
        };
        Ok((build, discovered))
    }
}
