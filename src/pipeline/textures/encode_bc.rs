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

fn bc7_settings(quality: f32, has_alpha: bool) -> bc7::EncodeSettings {
    match (quality, has_alpha) {
        (q, false) if q >= 0.9 => bc7::opaque_slow_settings(),
        (q, false) if q >= 0.6 => bc7::opaque_basic_settings(),
        (q, false) if q >= 0.3 => bc7::opaque_fast_settings(),
        (_, false) => bc7::opaque_very_fast_settings(),
        (q, true) if q >= 0.9 => bc7::alpha_slow_settings(),
        (q, true) if q >= 0.6 => bc7::alpha_basic_settings(),
        (q, true) if q >= 0.3 => bc7::alpha_fast_settings(),
        (_, true) => bc7::alpha_very_fast_settings(),
    }
}

pub fn encode(
    levels: &[RgbaLevel],
    format: TextureFormat,
    has_alpha: bool,
    quality: f32,
) -> Vec<Vec<u8>> {
    let settings = bc7_settings(quality, has_alpha);
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
