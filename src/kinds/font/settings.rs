//! `[font]`: the font kind's build.toml table.

use super::charset::parse_entry;
use crate::kinds::settings::{Section, SettingsError};
use crate::pipeline::SettingRangeError;
use serde::{Deserialize, Serialize};

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
            parse_entry(entry)?;
        }
        Ok(())
    }
}

impl Section for FontSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        self.validate()
    }
}
