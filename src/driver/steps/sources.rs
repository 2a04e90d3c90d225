//! Discover: the sources this build compiles, out of every file below the input.

use super::Build;
use crate::driver::discover::{self, discover, DiscoverRules, Discovered, Source};
use crate::driver::events::Event;
use crate::driver::freshness::{self, Checked};
use crate::driver::{BuildError, BuildOptions};
use crate::output;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

/// Discovery is the driver's: the options type lives below it, with its other methods.
impl BuildOptions {
    /// The embed and ignore globs and the folders discovery must not walk.
    pub fn discover_rules(&self) -> Result<DiscoverRules, BuildError> {
        let mut embed = globset::GlobSetBuilder::new();
        let mut embed_named = globset::GlobSetBuilder::new();
        for pattern in &self.embed {
            let glob = globset::Glob::new(pattern)
                .map_err(|e| BuildError::Config(format!("embed: `{pattern}`: {e}")))?;
            if discover::names_its_files(pattern) {
                embed_named.add(glob.clone());
            }
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
            embed_named: built(embed_named)?,
            ignore: built(ignore)?,
            exclude: vec![self.output.clone()],
            keep_case: self.settings.keep_case,
        })
    }
}

/// Every file below the input, by kind (`discover`).
pub(in crate::driver) fn walk_input(opts: &BuildOptions) -> Result<Discovered, BuildError> {
    discover(&opts.input, &opts.discover_rules()?).map_err(|source| BuildError::Scan {
        path: opts.input.clone(),
        source,
    })
}

/// The sources of a build, out of those discovered.
pub(in crate::driver) struct Sources {
    /// Those this build compiles (those of its shard).
    pub own: Vec<Source>,
    /// Another shard's, left as they are, records and files alike.
    pub other_shards: Vec<Source>,
    /// The files no kind compiles, counted by extension.
    pub ignored: Vec<(String, usize)>,
    /// The freshness checks made while the sources were told apart (the models').
    pub checked: HashMap<String, Checked>,
    /// Sources whose output an earlier source already claims, mapped to that source.
    pub collisions: BTreeMap<String, String>,
}

/// The sources this build compiles and those it leaves as they are (another shard's), of
/// those `discovered`, without the files models read; with the files no kind compiles,
/// counted by extension (and reported). Makes the output folder, clear of the temporary
/// files of a killed build.
pub(in crate::driver) fn of_this_build(
    build: &Build,
    mut discovered: Discovered,
) -> Result<Sources, BuildError> {
    let opts = build.opts;
    // A model's buffers and images are its inputs, not assets of their own.
    let (used, checked) = build
        .pool
        .install(|| model_inputs(build, &discovered.sources));
    discovered.without_model_inputs(&used);
    if let Some(message) = discover::embed_overruled_summary(&discovered.embed_overruled) {
        build.reporter.event(&Event::EmbedOverruled {
            files: discovered
                .embed_overruled
                .iter()
                .map(|s| s.rel_path.clone())
                .collect(),
            message,
        });
    }
    let unused = discover::unused_settings_files(&discovered.with_meta, &discovered.sources);
    let is_file = |rel: &str| opts.input.join(rel).is_file();
    if let Some(message) = discover::unused_settings_summary(&unused, is_file) {
        build.reporter.event(&Event::UnusedSettings {
            files: unused,
            message,
        });
    }
    let ignored = discovered.unclaimed_by_extension();
    if let Some(message) = discover::unclaimed_summary(&ignored) {
        build.reporter.event(&Event::Ignored {
            files: ignored.iter().map(|(_, n)| n).sum(),
            by_extension: ignored.clone(),
            message,
        });
    }
    let (own, other_shards): (Vec<Source>, Vec<Source>) = discovered
        .sources
        .into_iter()
        .partition(|s| opts.shard.is_none_or(|shard| shard.contains(&s.rel_path)));
    std::fs::create_dir_all(&opts.output).map_err(|source| BuildError::Write {
        path: opts.output.clone(),
        source,
    })?;
    output::remove_stale_temporaries(&opts.output);
    let collisions = output_collisions(&own);
    Ok(Sources {
        own,
        other_shards,
        ignored,
        checked,
        collisions,
    })
}

/// Every file the sources that name files of their own (models) read, absolute and
/// normalised: from the cache record of one whose inputs are unchanged, else from what its
/// kind lists (a glTF's JSON) together with
/// the inputs of its last good build (so that while a model is broken, or being saved,
/// its images do not turn into textures of their own). Returns them with each model's
/// check ([`freshness::check`]), which the build keeps.
fn model_inputs(build: &Build, sources: &[Source]) -> (HashSet<PathBuf>, HashMap<String, Checked>) {
    let (cache, trust_cache) = (&build.old_cache, build.trust_cache);
    let checker = build.checker();
    let working_dir = std::env::current_dir().ok();
    let per_model: Vec<(Vec<PathBuf>, (String, Checked))> = sources
        .par_iter()
        .filter_map(|s| Some((s, crate::kinds::kind(s.kind).referenced_files?)))
        .map(|(s, referenced_files)| {
            let checked = freshness::check(s, &checker);
            let files: Vec<PathBuf> = match &checked.fresh {
                // A shader's last build read only the modules its `@if`s took; the others
                // it names are modules all the same.
                Some(fresh) if crate::kinds::kind(s.kind).names_own_kind => fresh
                    .record
                    .inputs
                    .iter()
                    .map(|i| i.path.clone())
                    .chain(referenced_files(s))
                    .collect(),
                Some(fresh) => fresh.record.inputs.iter().map(|i| i.path.clone()).collect(),
                None => {
                    let last_good = cache
                        .assets
                        .get(&s.rel_path)
                        .filter(|_| trust_cache)
                        .into_iter()
                        .flat_map(|r| r.inputs.iter().map(|i| i.path.clone()));
                    referenced_files(s).into_iter().chain(last_good).collect()
                }
            };
            // A source's inputs list the source first: it is not its own input (a shader
            // that names files of its own kind would otherwise drop itself).
            let own = discover::normalized_absolute_from(working_dir.as_deref(), &s.abs_path);
            let files = files
                .into_iter()
                .map(|f| discover::normalized_absolute_from(working_dir.as_deref(), &f))
                .filter(|f| *f != own)
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
        // With `keep_case`, compared without case: `A.png` and `a.png` would still be one
        // file on a case-insensitive file system.
        let claim = match s.keep_case {
            true => s.claimed_output().to_lowercase(),
            false => s.claimed_output(),
        };
        match owner.entry(claim) {
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
