//! What a build is asked to do: folders, threads, caches, archives, and the settings of
//! every source (defaults, then `[[rules]]`). The command line and build.toml (`config`)
//! fill it in; the driver reads it.

pub mod remote;
pub mod shard;

use crate::kinds::asset::AssetSettings;
use std::path::PathBuf;
use std::sync::Arc;

/// Changes settings for the sources whose relative path matches a glob (`build.toml`
/// `[[rules]]`); later rules win.
#[derive(Clone)]
pub struct SettingsRule {
    pub matcher: globset::GlobMatcher,
    pub apply: Arc<dyn Fn(&mut AssetSettings) + Send + Sync>,
    /// `ignore = true`: matching files are neither compiled nor reported as ignored.
    pub ignore: bool,
}

impl std::fmt::Debug for SettingsRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SettingsRule({})", self.matcher.glob())
    }
}

/// `[platforms.NAME]` of build.toml: one runtime tree (`<output>/NAME/`) built with the
/// settings this changes.
#[derive(Clone)]
pub struct PlatformSettings {
    pub name: String,
    pub apply: Arc<dyn Fn(&mut AssetSettings) + Send + Sync>,
}

impl std::fmt::Debug for PlatformSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PlatformSettings({})", self.name)
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
    /// An asset that fails keeps the outputs of its last good build (`--watch`: the game
    /// keeps the asset, and a shared texture is not encoded again on the next good save).
    pub keep_failed_outputs: bool,
    /// Skip sources whose inputs and settings are unchanged since the last build.
    pub use_cache: bool,
    /// After a successful build, bundle the output folder into `<output>.spk`.
    pub pack_spk: bool,
    /// After a successful build, bundle the output folder into `<output>.hpack` (the
    /// original assetc's bundle).
    pub pack_hpack: bool,
    /// Globs (relative to the input folder) of files copied as they are and registered
    /// as raw files (`embed` in build.toml).
    pub embed: Vec<String>,
    /// `assets.hman` version: 2 (default) or 1, the original assetc's layout.
    pub manifest_version: u32,
    /// Write `<output>/report/index.html` with thumbnails and figures (`--report`).
    pub report: bool,
    pub settings: AssetSettings,
    pub rules: Vec<SettingsRule>,
    /// URL of the shared remote cache (`--remote-cache`, `[cache] remote`).
    pub remote_cache: Option<String>,
    pub remote_mode: remote::RemoteMode,
    /// The largest output file fetched from the remote cache (`[cache] max_blob_bytes`);
    /// an asset with a larger one is built here.
    pub remote_max_blob_bytes: u64,
    /// Build only this shard's sources (`--shard I/N`); the manifest is left to a final
    /// plain build.
    pub shard: Option<shard::Shard>,
    /// `[limits]`: what one asset may cost (memory), checked before it is decoded.
    pub limits: crate::limits::Limits,
    /// `[platforms.NAME]`: when any, one tree per platform below `output`.
    pub platforms: Vec<PlatformSettings>,
    /// `--platform NAME`: only this platform's tree.
    pub platform: Option<String>,
    /// Output folders of the same tree for other platforms: an asset whose outputs one
    /// of them holds under the same key is copied from there instead of compiled.
    pub share_from: Vec<PathBuf>,
}

impl BuildOptions {
    pub fn new(input: impl Into<PathBuf>, output: impl Into<PathBuf>) -> Self {
        Self {
            input: input.into(),
            output: output.into(),
            jobs: None,
            verify: false,
            fail_fast: false,
            keep_failed_outputs: false,
            use_cache: true,
            pack_spk: false,
            pack_hpack: false,
            embed: Vec::new(),
            manifest_version: 2,
            report: false,
            settings: AssetSettings::default(),
            rules: Vec::new(),
            remote_cache: None,
            remote_mode: remote::RemoteMode::default(),
            remote_max_blob_bytes: remote::DEFAULT_MAX_BLOB_BYTES,
            shard: None,
            limits: crate::limits::Limits::default(),
            platforms: Vec::new(),
            platform: None,
            share_from: Vec::new(),
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
