//! Decoding one level of our `.ktx2` files to RGBA8: UASTC through the Basis Universal
//! transcoder, BC1/BC3/BC7 through `bcdec_rs`, RGBA8 as stored.

use super::raster::Texture;
use crate::formats::ktx2::{Ktx2, PixelFormat};

/// The first level no larger than `max_side` on either side (the last one if none is).
pub fn level_for_size(ktx: &Ktx2, max_side: u32) -> usize {
    (0..ktx.levels.len())
        .find(|&i| {
            let (w, h) = ktx.level_size(i);
            w <= max_side && h <= max_side
        })
        .unwrap_or(ktx.levels.len().saturating_sub(1))
}

/// Short name of the pixel format, for reports.
pub fn format_name(ktx: &Ktx2) -> String {
    match ktx.pixel_format() {
        Some((f, srgb)) => {
            let name = match f {
                PixelFormat::Uastc => "UASTC",
                PixelFormat::Bc1 => "BC1",
                PixelFormat::Bc3 => "BC3",
                PixelFormat::Bc7 => "BC7",
                PixelFormat::Rgba8 => "RGBA8",
                PixelFormat::Rgba16f => "RGBA16F",
            };
            format!("{name}{}", if srgb { " sRGB" } else { "" })
        }
        None => format!("vkFormat {}", ktx.vk_format),
    }
}

/// Level `level` (0 = full size) as RGBA8.
pub fn decode_ktx2(ktx: &Ktx2, level: usize) -> Result<Texture, String> {
    let data = &ktx
        .levels
        .get(level)
        .ok_or_else(|| format!("has {} mip level(s), not level {level}", ktx.levels.len()))?
        .data;
    let (width, height) = ktx.level_size(level);
    let (format, _) = ktx
        .pixel_format()
        .ok_or_else(|| format!("vkFormat {} cannot be previewed", ktx.vk_format))?;
    let rgba = match format {
        PixelFormat::Rgba8 => {
            let n = width as usize * height as usize * 4;
            data.get(..n)
                .ok_or_else(|| format!("level {level} holds {} bytes, not {n}", data.len()))?
                .to_vec()
        }
        PixelFormat::Uastc => {
            crate::pipeline::textures::decode_uastc_rgba(data, width, height, true)
                .map_err(|e| format!("level {level}: {e}"))?
        }
        PixelFormat::Bc1 => decode_bc(data, width, height, 8, bcdec_rs::bc1)?,
        PixelFormat::Bc3 => decode_bc(data, width, height, 16, bcdec_rs::bc3)?,
        PixelFormat::Bc7 => decode_bc(data, width, height, 16, bcdec_rs::bc7)?,
        PixelFormat::Rgba16f => return Err("RGBA16F previews are not decoded yet".into()),
    };
    Ok(Texture {
        width,
        height,
        rgba,
    })
}

/// Decodes 4x4 blocks into a padded RGBA8 image, then crops it to the level's size.
fn decode_bc(
    blocks: &[u8],
    width: u32,
    height: u32,
    block_bytes: usize,
    decode: fn(&[u8], &mut [u8], usize),
) -> Result<Vec<u8>, String> {
    let (bw, bh) = (width.div_ceil(4) as usize, height.div_ceil(4) as usize);
    if blocks.len() < bw * bh * block_bytes {
        return Err(format!(
            "{} bytes of blocks for {width}x{height}, expected {}",
            blocks.len(),
            bw * bh * block_bytes
        ));
    }
    let pitch = bw * 16;
    let mut padded = vec![0u8; pitch * bh * 4];
    for by in 0..bh {
        for bx in 0..bw {
            let block = &blocks[(by * bw + bx) * block_bytes..][..block_bytes];
            decode(block, &mut padded[by * 4 * pitch + bx * 16..], pitch);
        }
    }
    let row = width as usize * 4;
    Ok((0..height as usize)
        .flat_map(|y| padded[y * pitch..][..row].iter().copied())
        .collect())
}
