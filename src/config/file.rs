//! The shape of `build.toml`: the top level, `[presets.NAME]` and `[[rules]]`.

use super::tables::{settings_layer, Partial};
use crate::kinds::asset::Target;
use crate::kinds::tables::{tables_of_kinds, with_settings_tables};
use crate::options::remote::RemoteMode;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use toml::Spanned;

/// Archive formats `pack` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PackFormat {
    /// SparkPak: `<output>.spk`.
    Spk,
    /// The original assetc's bundle: `<output>.hpack`.
    Hpack,
}

with_settings_tables!(settings_layer! {
    /// The whole `build.toml`.
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    Config {
        /// Source folder, relative to the file's folder.
        pub input: Option<PathBuf>,
        /// Output folder, relative to the file's folder.
        pub output: Option<PathBuf>,
        /// Runtime targets for every source.
        pub targets: Option<Vec<Target>>,
        /// Bundle the output into an archive after the build.
        pub pack: Option<PackFormat>,
        /// Also write the HTML build report (`--report`, docs/preview.md).
        pub report: Option<bool>,
        /// Files copied byte for byte and registered as raw files: globs relative to the
        /// input folder (`["levels/*.json", "config/**"]`).
        #[serde(default)]
        pub embed: Vec<Spanned<String>>,
        /// `assets.hman` version: 2 (default, with sizes and digests) or 1 (the original
        /// assetc's layout, for engines built on its SDK).
        pub manifest_version: Option<Spanned<u32>>,
        /// Name outputs with the source's case (`Props/Crate.glb` -> `Props/Crate.hmesh`)
        /// instead of lower case; manifest ids are the same either way.
        pub keep_case: Option<bool>,
        /// The shared remote cache (docs/scale.md).
        #[serde(default)]
        pub cache: CacheTable,
        /// What one asset may cost the machine (`src/limits.rs`).
        #[serde(default)]
        pub limits: crate::limits::LimitsTable,
        #[serde(default)]
        pub rules: Vec<Rule>,
        #[serde(default)]
        pub presets: BTreeMap<String, Preset>,
        /// `[platforms.NAME]`: one runtime tree per platform, `<output>/NAME/`.
        #[serde(default)]
        pub platforms: BTreeMap<String, Platform>,
        /// The file itself, for messages.
        #[serde(skip)]
        pub path: PathBuf,
        /// The file's text, to place warnings found after parsing (a rule matching nothing).
        #[serde(skip)]
        pub text: String,
        /// The folder the file was found in: relative paths in it are relative to this.
        #[serde(skip)]
        pub base_dir: PathBuf,
    }
});

/// `[cache]`: the shared remote cache.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheTable {
    /// `http(s)://` (WebDAV), `s3://BUCKET/PREFIX` or `redis://HOST:PORT/DB`.
    pub remote: Option<Spanned<String>>,
    /// `read`, `write` or `readwrite`.
    pub mode: Option<RemoteMode>,
    /// The largest output file fetched from the remote cache, in bytes (default 1 GiB):
    /// a record naming a larger one is a miss, and that asset is built here.
    pub max_blob_bytes: Option<u64>,
}

/// `[platforms.NAME]`: what one platform's tree changes of the settings resolved for
/// the top level (its texture formats).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    #[serde(default)]
    pub texture: Partial<crate::pipeline::textures::TextureSettings>,
}

with_settings_tables!(settings_layer! {
    /// `[presets.NAME]`, chosen with `--preset NAME`.
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    Preset {
        pub output: Option<PathBuf>,
        pub targets: Option<Vec<Target>>,
    }
});

with_settings_tables!(settings_layer! {
    /// `[[rules]]`: settings for the sources whose path matches a glob.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    Rule {
        /// Glob over the source path relative to the input folder (`characters/**/*.glb`).
        #[serde(rename = "match")]
        pub pattern: Spanned<String>,
        /// Matching files are neither compiled nor reported as ignored.
        #[serde(default)]
        pub ignore: bool,
    }
});
