//! The `build.toml` tables of the kinds that are not models or textures: `[font]`,
//! `[shader]` and `[audio]`. Every field is a key (see `config/tables.rs`); rules and
//! presets set them like any other table.

use crate::pipeline::SettingRangeError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A value of a settings table that the type itself cannot refuse (a range, a charset
/// entry), naming the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Range(#[from] SettingRangeError),
    #[error(transparent)]
    Charset(#[from] super::font::charset::CharsetError),
    #[error("max_size must be at least 1 (pixels)")]
    MaxSizeZero,
}

/// `[font]`: how `.ttf`/`.otf` sources become an `.hfont` and its distance-field atlas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FontSettings {
    /// Codepoints added to the default charset (printable ASCII and Latin-1), as
    /// `"U+0400-U+04FF"` ranges or single `"U+20AC"` codepoints.
    pub charset: Vec<String>,
    /// A UTF-8 text file (relative to the input folder) whose every character is added.
    pub charset_file: String,
    /// A multi-channel (MSDF, RGB) atlas instead of a one-channel SDF: sharp corners at
    /// large sizes.
    pub msdf: bool,
    /// Width and height of the atlas in texels (a power of two).
    pub atlas_size: u32,
    /// Glyph size in the atlas, in texels per em.
    pub glyph_size: u32,
    /// Distance-field spread in atlas texels (the distance range a shader sees).
    pub spread: f32,
}

impl Default for FontSettings {
    fn default() -> Self {
        Self {
            charset: Vec::new(),
            charset_file: String::new(),
            msdf: false,
            atlas_size: 512,
            glyph_size: 32,
            spread: 4.0,
        }
    }
}

impl FontSettings {
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !self.atlas_size.is_power_of_two() || !(64..=8192).contains(&self.atlas_size) {
            return Err(SettingRangeError::new(
                "atlas_size",
                "be a power of two from 64 to 8192",
                self.atlas_size,
            )
            .into());
        }
        if !(8..=256).contains(&self.glyph_size) {
            return Err(SettingRangeError::new(
                "glyph_size",
                "be 8..=256 texels per em",
                self.glyph_size,
            )
            .into());
        }
        if !(self.spread.is_finite() && self.spread >= 1.0 && self.spread <= 64.0) {
            return Err(SettingRangeError::new("spread", "be 1..=64 texels", self.spread).into());
        }
        for entry in &self.charset {
            super::font::charset::parse_entry(entry)?;
        }
        Ok(())
    }
}

/// `[shader]`: how `.wgsl` and GLSL sources become SPIR-V.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShaderSettings {
    /// Preprocessor defines for GLSL sources (`NAME = "VALUE"`; an empty value defines
    /// the name alone).
    pub defines: BTreeMap<String, String>,
}

/// `[audio]`: how `.wav .ogg .oga .mp3 .flac` sources become PCM `.wav` (seed 004's
/// AudioSettings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AudioSettings {
    /// Output sample rate in Hz (resampled when the source differs).
    pub sample_rate: u32,
    /// 16 (signed integer PCM) or 32 (IEEE float).
    pub bit_depth: u32,
    /// Mix down to mono (the mean of the channels), for positional (3D) sounds.
    pub force_3d: bool,
}

impl Default for AudioSettings {
    fn default() -> Self {
        Self {
            sample_rate: 44_100,
            bit_depth: 16,
            force_3d: false,
        }
    }
}

impl AudioSettings {
    pub fn validate(&self) -> Result<(), SettingRangeError> {
        if !(8_000..=192_000).contains(&self.sample_rate) {
            return Err(SettingRangeError::new(
                "sample_rate",
                "be 8000..=192000 Hz",
                self.sample_rate,
            ));
        }
        if !matches!(self.bit_depth, 16 | 32) {
            return Err(SettingRangeError::new(
                "bit_depth",
                "be 16 (integer) or 32 (float)",
                self.bit_depth,
            ));
        }
        Ok(())
    }
}
