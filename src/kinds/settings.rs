//! The `build.toml` tables of the kinds that are not models or textures: `[font]`,
//! `[shader]` and `[audio]`. Every field is a key (see `config/tables.rs`); rules and
//! presets set them like any other table.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

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
    pub fn validate(&self) -> Result<(), String> {
        if !self.atlas_size.is_power_of_two() || !(64..=8192).contains(&self.atlas_size) {
            return Err(format!(
                "atlas_size must be a power of two from 64 to 8192, got {}",
                self.atlas_size
            ));
        }
        if !(8..=256).contains(&self.glyph_size) {
            return Err(format!(
                "glyph_size must be 8..=256 texels per em, got {}",
                self.glyph_size
            ));
        }
        if !(self.spread.is_finite() && self.spread >= 1.0 && self.spread <= 64.0) {
            return Err(format!("spread must be 1..=64 texels, got {}", self.spread));
        }
        for entry in &self.charset {
            parse_charset_entry(entry)?;
        }
        Ok(())
    }
}

/// One `font.charset` entry: `"U+20AC"` or `"U+0400-U+04FF"` (hex digits, either case).
pub fn parse_charset_entry(entry: &str) -> Result<RangeInclusive<u32>, String> {
    let bad = |why: &str| format!("font.charset entry \"{entry}\": {why}");
    let one = |s: &str| -> Result<u32, String> {
        let s = s.trim();
        let hex = s
            .strip_prefix("U+")
            .or_else(|| s.strip_prefix("u+"))
            .ok_or_else(|| bad("expected U+XXXX or U+XXXX-U+YYYY"))?;
        if hex.is_empty() || hex.len() > 6 {
            return Err(bad("expected 1 to 6 hex digits after U+"));
        }
        let cp = u32::from_str_radix(hex, 16).map_err(|_| bad("not a hex number"))?;
        if cp > 0x10_FFFF {
            return Err(bad("beyond U+10FFFF"));
        }
        Ok(cp)
    };
    let range = match entry.split_once('-') {
        Some((a, b)) => one(a)?..=one(b)?,
        None => {
            let cp = one(entry)?;
            cp..=cp
        }
    };
    if range.start() > range.end() {
        return Err(bad("the range ends before it starts"));
    }
    Ok(range)
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
    pub fn validate(&self) -> Result<(), String> {
        if !(8_000..=192_000).contains(&self.sample_rate) {
            return Err(format!(
                "sample_rate must be 8000..=192000 Hz, got {}",
                self.sample_rate
            ));
        }
        if !matches!(self.bit_depth, 16 | 32) {
            return Err(format!(
                "bit_depth must be 16 (integer) or 32 (float), got {}",
                self.bit_depth
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_single_codepoints_or_ranges() {
        assert_eq!(parse_charset_entry("U+20AC"), Ok(0x20AC..=0x20AC));
        assert_eq!(parse_charset_entry("u+0400-U+04ff"), Ok(0x400..=0x4FF));
        assert_eq!(parse_charset_entry(" U+41 - U+5A "), Ok(0x41..=0x5A));
        for bad in [
            "20AC",
            "U+",
            "U+XYZ",
            "U+110000",
            "U+0500-U+0400",
            "U+1234567",
        ] {
            let e = parse_charset_entry(bad).unwrap_err();
            assert!(e.contains(&format!("\"{bad}\"")), "{e}");
        }
    }
}
