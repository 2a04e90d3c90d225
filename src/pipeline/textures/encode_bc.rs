//! BC1, BC3 and BC7 through Intel's ISPC Texture Compressor (intel_tex_2), which runs on
//! the calling thread.

use super::{RgbaLevel, TextureFormat};
use intel_tex_2::{bc1, bc3, bc7, RgbaSurface};

/// Copies a level into a buffer padded to whole 4x4 blocks by repeating the last row and
/// column: the ISPC kernels read full blocks only.
fn padded(level: &RgbaLevel) -> (u32, u32, Vec<u8>) {
    let (w, h) = (level.width as usize, level.height as usize);
    let (pw, ph) = (w.next_multiple_of(4), h.next_multiple_of(4));
    let mut out = Vec::with_capacity(pw * ph * 4);
    for y in 0..ph {
        let row = &level.pixels[y.min(h - 1) * w * 4..][..w * 4];
        out.extend_from_slice(row);
        let last = &row[(w - 1) * 4..];
        for _ in w..pw {
            out.extend_from_slice(last);
        }
    }
    (pw as u32, ph as u32, out)
}

/// intel_tex_2's BC7 presets, fastest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bc7Preset {
    UltraFast,
    VeryFast,
    Fast,
    Basic,
    Slow,
}

impl Bc7Preset {
    pub const ALL: [Self; 5] = [
        Self::UltraFast,
        Self::VeryFast,
        Self::Fast,
        Self::Basic,
        Self::Slow,
    ];

    /// The preset for a 0..1 quality; see [`super::TextureSettings::quality`] for the table.
    pub fn for_quality(quality: f32) -> Self {
        match quality {
            q if q >= 0.95 => Self::Slow,
            q if q >= 0.85 => Self::Basic,
            q if q >= 0.7 => Self::Fast,
            q if q >= 0.25 => Self::VeryFast,
            _ => Self::UltraFast,
        }
    }

    fn settings(self, has_alpha: bool) -> bc7::EncodeSettings {
        match (self, has_alpha) {
            (Self::UltraFast, false) => bc7::opaque_ultra_fast_settings(),
            (Self::VeryFast, false) => bc7::opaque_very_fast_settings(),
            (Self::Fast, false) => bc7::opaque_fast_settings(),
            (Self::Basic, false) => bc7::opaque_basic_settings(),
            (Self::Slow, false) => bc7::opaque_slow_settings(),
            (Self::UltraFast, true) => bc7::alpha_ultra_fast_settings(),
            (Self::VeryFast, true) => bc7::alpha_very_fast_settings(),
            (Self::Fast, true) => bc7::alpha_fast_settings(),
            (Self::Basic, true) => bc7::alpha_basic_settings(),
            (Self::Slow, true) => bc7::alpha_slow_settings(),
        }
    }
}

pub fn encode(
    levels: &[RgbaLevel],
    format: TextureFormat,
    has_alpha: bool,
    preset: Bc7Preset,
) -> Vec<Vec<u8>> {
    let settings = preset.settings(has_alpha);
    levels
        .iter()
        .map(|level| {
            let (width, height, data) = padded(level);
            let surface = RgbaSurface {
                data: &data,
                width,
                height,
                stride: width * 4,
            };
            match format {
                TextureFormat::Bc1 => bc1::compress_blocks(&surface),
                TextureFormat::Bc3 => bc3::compress_blocks(&surface),
                _ => bc7::compress_blocks(&settings, &surface),
            }
        })
        .collect()
}
