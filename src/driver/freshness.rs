//! Whether each source is fresh, decided once per build.
//!
//! A no-op rebuild is this and nothing else, so it is kept to what the question needs: the
//! settings of a source hashed once per distinct settings (most trees have one or a few:
//! a rule's settings are shared by every source it matches), and each input and output
//! stat-ed once (the stamps the check refreshes are the ones the new cache records).

use super::cache::{self, AssetRecord, Cache, FileStamp, SettingsKey};
use super::code::{DiagnosticCode, Failure};
use super::discover::Source;
use super::BuildOptions;
use crate::config::meta::MetaFiles;
use crate::kinds::asset::AssetSettings;
use crate::kinds::{self, KindId};
use std::sync::Mutex;

/// What a source is built with, and its cache record when that is still fresh.
pub(super) struct Checked {
    pub settings: AssetSettings,
    pub settings_key: SettingsKey,
    pub fresh: Option<Fresh>,
    /// Its `<file>.meta.toml` is wrong: the asset fails with this, and nothing vouches
    /// for it.
    pub settings_error: Option<Failure>,
}

/// A fresh record and its outputs' stamps, refreshed by the check.
pub(super) struct Fresh {
    pub record: std::sync::Arc<AssetRecord>,
    pub output_stamps: Vec<(String, FileStamp)>,
}

/// Distinct settings the memo keeps; past them a settings hash is computed each time
/// (a tree with that many different settings is not made of shared rules).
const DISTINCT_SETTINGS_KEPT: usize = 32;

/// [`cache::settings_key`] computed once per distinct (kind, settings): the hash
/// serialises the settings to JSON, which was the largest share of a no-op rebuild's
/// own CPU after the stat calls (perf).
#[derive(Default)]
pub(super) struct SettingsHashes {
    seen: Mutex<Vec<(KindId, AssetSettings, SettingsKey)>>,
}

impl SettingsHashes {
    pub fn of(&self, kind: KindId, settings: &AssetSettings) -> SettingsKey {
        // A poisoned memo is still a list of correct hashes.
        let found = {
            let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            seen.iter()
                .find(|(k, s, _)| *k == kind && s == settings)
                .map(|(_, _, h)| *h)
        };
        if let Some(hash) = found {
            return hash;
        }
        let hash = cache::settings_key(kind, settings);
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() < DISTINCT_SETTINGS_KEPT {
            seen.push((kind, settings.clone(), hash));
        }
        hash
    }
}

/// What a source's settings are made of besides build.toml: the files beside sources.
pub(super) struct Checker<'a> {
    pub opts: &'a BuildOptions,
    pub cache: &'a Cache,
    /// Whether the old cache may vouch for anything (false: never).
    pub trust_cache: bool,
    pub hashes: &'a SettingsHashes,
    pub meta: &'a MetaFiles,
}

/// The settings of `source` (build.toml's, then its `.meta.toml`'s) and whether the
/// cache vouches for its last build.
pub(super) fn check(source: &Source, checker: &Checker) -> Checked {
    let Checker {
        opts,
        cache,
        trust_cache,
        hashes,
        meta,
    } = *checker;
    let mut settings = opts.settings_for(&source.rel_path);
    let settings_error = meta
        .apply(&source.rel_path, kinds::kind(source.kind), &mut settings)
        .err()
        .map(|e| {
            let display = source.abs_path.display();
            Failure::of_source(DiagnosticCode::Config, display, e.to_string())
        });
    let settings_key = hashes.of(source.kind, &settings);
    let fresh = (trust_cache && settings_error.is_none())
        .then(|| cache.fresh_record_stamped(&source.rel_path, &settings_key, &opts.output))
        .flatten()
        .map(|(record, output_stamps)| Fresh {
            record,
            output_stamps,
        });
    Checked {
        settings,
        settings_key,
        fresh,
        settings_error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_gives_what_settings_key_gives_for_each_distinct_settings() {
        let hashes = SettingsHashes::default();
        let plain = AssetSettings::default();
        let mut other = AssetSettings::default();
        other.mesh.lod_ratios = vec![0.5];
        for _ in 0..3 {
            for (kind, s) in [
                (KindId::Model, &plain),
                (KindId::Model, &other),
                (KindId::Texture, &plain),
            ] {
                assert_eq!(hashes.of(kind, s), cache::settings_key(kind, s));
            }
        }
        // Each distinct pair hashed and kept once.
        assert_eq!(hashes.seen.lock().unwrap().len(), 3);
        assert_ne!(
            hashes.of(KindId::Model, &plain),
            hashes.of(KindId::Model, &other)
        );
    }
}
