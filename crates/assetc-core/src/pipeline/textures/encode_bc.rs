//! BC1, BC3, BC4, BC5, BC6H and BC7 through Intel's ISPC Texture Compressor
//! (intel_tex_2), which runs on the calling thread; BC4 and BC5 blocks refined after it
//! ([`bc4_refine`]).

use super::bc4_refine;
use super::bc7_rdo::{self, RdoParams};
use super::{srgb_to_linear, RgbaLevel, TextureFormat, TextureMode};
use intel_tex_2::{bc1, bc3, bc4, bc5, bc6h, bc7, RSurface, RgSurface, RgbaSurface};

/// Copies an image of `texel`-byte texels into a buffer padded to whole 4x4 blocks by
/// repeating the last row and column: the ISPC kernels read full blocks only.
fn padded_bytes(width: u32, height: u32, pixels: &[u8], texel: usize) -> (u32, u32, Vec<u8>) {
    let (w, h) = (width as usize, height as usize);
    let (pw, ph) = (w.next_multiple_of(4), h.next_multiple_of(4));
    let mut out = Vec::with_capacity(pw * ph * texel);
    for y in 0..ph {
        let row = &pixels[y.min(h - 1) * w * texel..][..w * texel];
        out.extend_from_slice(row);
        let last = &row[(w - 1) * texel..];
        for _ in w..pw {
            out.extend_from_slice(last);
        }
    }
    (pw as u32, ph as u32, out)
}

fn padded(level: &RgbaLevel) -> (u32, u32, Vec<u8>) {
    padded_bytes(level.width, level.height, &level.pixels, 4)
}

/// intel_tex_2's view of a padded RGBA8 level.
fn rgba8_surface(width: u32, height: u32, data: &[u8]) -> RgbaSurface<'_> {
    RgbaSurface {
        data,
        width,
        height,
        stride: width * 4,
    }
}

/// The first `n` channels of each RGBA8 texel (BC4 takes R, BC5 takes R and G).
fn channels(rgba: &[u8], n: usize) -> Vec<u8> {
    rgba.chunks_exact(4)
        .flat_map(|p| p[..n].iter().copied())
        .collect()
}

/// intel_tex_2's BC6H settings for a 0..1 quality (the BC7 table's steps: very fast
/// below 0.7, fast, basic from 0.85, slow from 0.95).
fn bc6h_settings(quality: f32) -> bc6h::EncodeSettings {
    match quality {
        q if q >= 0.95 => bc6h::slow_settings(),
        q if q >= 0.85 => bc6h::basic_settings(),
        q if q >= 0.7 => bc6h::fast_settings(),
        _ => bc6h::very_fast_settings(),
    }
}

/// BC6H (unsigned float) blocks of one image of linear RGBA half floats (8 bytes a
/// texel, little-endian f16; negative values must already be clamped to 0).
pub fn encode_bc6h_f16(width: u32, height: u32, rgba_f16: &[u8], quality: f32) -> Vec<u8> {
    let (width, height, data) = padded_bytes(width, height, rgba_f16, 8);
    let surface = RgbaSurface {
        data: &data,
        width,
        height,
        stride: width * 8,
    };
    bc6h::compress_blocks(&bc6h_settings(quality), &surface)
}

/// An RGBA8 level as linear RGBA half floats for BC6H: a colour texture's sRGB values
/// are linearised, any other texture's values become v / 255.
fn ldr_to_f16(level: &RgbaLevel, mode: TextureMode) -> Vec<u8> {
    level
        .pixels
        .chunks_exact(4)
        .flat_map(|p| {
            let v = |i: usize| {
                if mode.is_srgb() && i < 3 {
                    srgb_to_linear(p[i])
                } else {
                    f32::from(p[i]) / 255.0
                }
            };
            [v(0), v(1), v(2), v(3)]
        })
        .flat_map(|v| half::f16::from_f32(v).to_le_bytes())
        .collect()
}

/// intel_tex_2's BC7 presets, fastest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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

    /// The lowest quality that picks this preset (the inverse of [`Self::for_quality`]).
    pub fn quality(self) -> f32 {
        match self {
            Self::UltraFast => 0.0,
            Self::VeryFast => 0.25,
            Self::Fast => 0.7,
            Self::Basic => 0.85,
            Self::Slow => 0.95,
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

/// Block-encodes RGBA8 levels in a BC format. BC4 keeps R and BC5 keeps R and G of the
/// stored values; BC6H takes the levels as linear light ([`ldr_to_f16`]).
pub fn encode(
    levels: &[RgbaLevel],
    format: TextureFormat,
    mode: TextureMode,
    has_alpha: bool,
    quality: f32,
) -> Vec<Vec<u8>> {
    let settings = Bc7Preset::for_quality(quality).settings(has_alpha);
    levels
        .iter()
        .map(|level| {
            if format == TextureFormat::Bc6h {
                return encode_bc6h_f16(
                    level.width,
                    level.height,
                    &ldr_to_f16(level, mode),
                    quality,
                );
            }
            let (width, height, data) = padded(level);
            let surface = rgba8_surface(width, height, &data);
            match format {
                TextureFormat::Bc1 => bc1::compress_blocks(&surface),
                TextureFormat::Bc3 => bc3::compress_blocks(&surface),
                TextureFormat::Bc4 => {
                    let r = channels(&data, 1);
                    let mut blocks = bc4::compress_blocks(&RSurface {
                        data: &r,
                        width,
                        height,
                        stride: width,
                    });
                    bc4_refine::refine(&mut blocks, 8, 0, &r, width as usize / 4);
                    blocks
                }
                TextureFormat::Bc5 => {
                    let rg = channels(&data, 2);
                    let mut blocks = bc5::compress_blocks(&RgSurface {
                        data: &rg,
                        width,
                        height,
                        stride: width * 2,
                    });
                    for (half, channel) in [(0, 0), (8, 1)] {
                        let values: Vec<u8> = rg.iter().skip(channel).step_by(2).copied().collect();
                        bc4_refine::refine(&mut blocks, 16, half, &values, width as usize / 4);
                    }
                    blocks
                }
                _ => bc7::compress_blocks(&settings, &surface),
            }
        })
        .collect()
}

/// BC7 with the RDO pass ([`bc7_rdo`]): each level encoded twice, at the quality's
/// preset but at least the basic one, and in mode 6 alone (the pass's alternatives),
/// then the pass over the first against the level's texels padded as the encoders saw
/// them.
///
/// Why at least basic: the pass trades PSNR for bytes, and basic starts about 0.9 dB
/// above very fast (FlightHelmet's 15 textures) for 3.5 times very fast's time, which is
/// small beside the pass's own; from very fast the pass reaches 25% smaller after zstd
/// only at 1.2 dB below plain very fast, from basic at 0.9 dB (docs/textures.md).
pub fn encode_bc7_rdo(
    levels: &[RgbaLevel],
    has_alpha: bool,
    quality: f32,
    params: &RdoParams,
) -> Vec<Vec<u8>> {
    let settings = Bc7Preset::for_quality(quality)
        .max(Bc7Preset::Basic)
        .settings(has_alpha);
    let mut mode6 = Bc7Preset::VeryFast.settings(has_alpha);
    mode6.mode_selection = MODE_6_ONLY;
    levels
        .iter()
        .map(|level| {
            let (width, height, source) = padded(level);
            let surface = rgba8_surface(width, height, &source);
            let mut blocks = bc7::compress_blocks(&settings, &surface);
            let alternatives = bc7::compress_blocks(&mode6, &surface);
            bc7_rdo::optimize_level(
                &mut blocks,
                &alternatives,
                &source,
                width as usize / 4,
                params,
            );
            blocks
        })
        .collect()
}

/// intel_tex_2's `mode_selection` groups are modes 0 and 2, 1 and 3 (with 7), 4 and 5,
/// and 6: this keeps mode 6 alone.
const MODE_6_ONLY: [bool; 4] = [false, false, false, true];
