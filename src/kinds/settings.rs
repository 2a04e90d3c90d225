//! What every build.toml settings table is: its keys are the fields of a serde type
//! (`#[serde(default, deny_unknown_fields)]`), and what the type cannot express is checked
//! by [`Section::check_ranges`]. Each table's type lives with the kind that reads it
//! (`kinds/font/settings.rs`, ...); the one list of tables is `kinds/tables.rs`.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A value of a settings table that the type itself cannot refuse (a range, a charset
/// entry), naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Range(#[from] crate::pipeline::SettingRangeError),
    #[error(transparent)]
    Charset(#[from] super::font::charset::CharsetError),
    #[error("max_size must be at least 1 (pixels)")]
    MaxSizeZero,
    #[error("{MP3_UNAVAILABLE}")]
    Mp3Unavailable,
    #[error("shader.import_paths: `{0}` is not a folder (an empty path)")]
    EmptyImportPath(String),
    #[error("outputs is empty: name \"spirv\", \"wgsl\" or both")]
    NoShaderOutputs,
    #[error("outputs names \"{0}\" twice")]
    RepeatedShaderOutput(&'static str),
}

/// Why `format = "mp3"` is refused.
pub const MP3_UNAVAILABLE: &str = "format = \"mp3\" is not available: no MP3 encoder is built \
     into assetc (use \"ogg\": Ogg Vorbis plays wherever MP3 does in an engine, at a smaller \
     size for the same quality)";

/// A settings type that is one table of build.toml.
pub trait Section: Serialize + DeserializeOwned + Default {
    /// Ranges the type itself cannot express (`quality` in 0..1, ...).
    fn check_ranges(&self) -> Result<(), SettingsError>;
}
