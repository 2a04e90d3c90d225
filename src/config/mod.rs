//! `build.toml`: project settings, per-source rules and presets.
//!
//! Settings resolve in this order, later winning: built-in defaults, the top-level
//! `[mesh]`/`[texture]`/`[animation]`/`[bmd1]`/`[qtmesh]` tables, the selected preset,
//! every `[[rules]]` entry whose `match` glob matches the source's path (in file order),
//! then command-line flags, then the source's own `<file>.meta.toml` ([`meta`]).
//! `[platforms.NAME]` tables make one tree per platform, each with its texture keys
//! overlaid after the flags and before the rules (`driver::platforms`).
//!
//! The tables' keys are the fields of the pipeline's settings types (`MeshSettings`,
//! `TextureSettings`, ...), which derive `Deserialize`: see [`tables`].

mod error;
mod file;
pub mod meta;
mod resolve;
mod suggest;
pub(crate) mod tables;

pub use error::ConfigError;
pub use file::{CacheTable, Config, PackFormat, Platform, Preset, Rule};
pub use resolve::{parse_target, UnknownTarget};
pub use suggest::{edit_distance, nearest};
pub use tables::{Partial, Section};

use std::path::{Path, PathBuf};

pub const CONFIG_NAME: &str = "build.toml";

/// Finds `build.toml` in `start` or its ancestors.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|d| d.join(CONFIG_NAME))
        .find(|p| p.is_file())
}

/// Reads and checks a config file.
pub fn load_config(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::new(path, format!("cannot read: {e}")))?;
    let mut config = parse_config(&text, path)?;
    config.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(config)
}

/// Parses config text. Every error carries the line and column of the offending key or
/// value and, for misspelt names, the nearest valid one.
pub fn parse_config(text: &str, path: &Path) -> Result<Config, ConfigError> {
    let mut config: Config =
        toml::from_str(text).map_err(|e| ConfigError::from_toml(path, text, &e))?;
    config.check_tables(path, text)?;
    config
        .limits
        .limits()
        .map_err(|(span, m)| ConfigError::at(path, text, span.start, m))?;
    if let Some(url) = &config.cache.remote {
        crate::options::remote::check_url(url.get_ref()).map_err(|e| {
            ConfigError::at(path, text, url.span().start, format!("cache.remote: {e}"))
        })?;
    }
    for preset in config.presets.values() {
        preset.check_tables(path, text)?;
    }
    for (name, platform) in &config.platforms {
        let place = |message: String| match error::key_offset(text, text.len(), name) {
            Some(at) => ConfigError::at(path, text, at, message),
            None => ConfigError::new(path, message),
        };
        if !is_folder_name(name) {
            return Err(place(format!(
                "platforms: `{name}` names its output folder, so it is letters, digits, `-` \
                 and `_`"
            )));
        }
        platform
            .texture
            .check(&format!("platforms.{name}.texture"), path, text)?;
    }
    for rule in &config.rules {
        globset::Glob::new(rule.pattern.get_ref()).map_err(|e| {
            ConfigError::at(
                path,
                text,
                rule.pattern.span().start,
                format!(
                    "rules: `{}` is not a valid glob: {}",
                    rule.pattern.get_ref(),
                    e.kind()
                ),
            )
        })?;
        rule.check_tables(path, text)?;
    }
    config.path = path.to_path_buf();
    config.text = text.to_string();
    Ok(config)
}

/// A platform's name is a folder of the output: one plain name, the same on every system.
fn is_folder_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests;
