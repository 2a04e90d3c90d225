//! Decoding one level of our `.ktx2` files to RGBA8 (for the preview, the report and
//! foreign `.ktx2` sources): UASTC through the Basis Universal
//! transcoder, BC1/BC3/BC4/BC5/BC6H/BC7 through `bcdec_rs` (BC4 as grey, BC5 as a normal
//! with Z rebuilt), ASTC LDR through `texture2ddecoder`, RGBA8 as stored, RGBA16F and BC6H
//! tone mapped;
//! cubemaps and 3D textures laid out as one picture.

use crate::formats::ktx2::{AstcBlock, Ktx2, PixelFormat};

mod error;
pub mod tonemap;
pub mod unfold;

pub use error::LevelDecodeError;

/// An RGBA8 picture, sampled with nearest filtering and repeat wrapping: what a decoded
/// level is, and what the preview's rasteriser draws with.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Texture {
    /// The texel under (u, v); v = 0 is the top row (glTF and KTX2 "rd" orientation).
    pub fn sample(&self, u: f32, v: f32) -> [u8; 4] {
        let (w, h) = (self.width as f32, self.height as f32);
        let x = ((u - u.floor()) * w) as u32;
        let y = ((v - v.floor()) * h) as u32;
        let (x, y) = (x.min(self.width - 1), y.min(self.height - 1));
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }
}

/// The first level whose picture is no larger than `max_side` on either side (the last
/// one if none is). A cubemap's picture is its 4x3 cross; a 3D texture is measured by one
/// slice, since its strip is read slice by slice and smaller levels blend slices.
pub fn level_for_size(ktx: &Ktx2, max_side: u32) -> usize {
    let (columns, rows) = if ktx.is_cube() { (4, 3) } else { (1, 1) };
    (0..ktx.levels.len())
        .find(|&i| {
            let (w, h) = ktx.level_size(i);
            u64::from(w) * columns <= u64::from(max_side)
                && u64::from(h) * rows <= u64::from(max_side)
        })
        .unwrap_or(ktx.levels.len().saturating_sub(1))
}

/// Short name of the pixel format, for reports.
pub fn format_name(ktx: &Ktx2) -> String {
    match ktx.pixel_format() {
        Some((PixelFormat::Astc(block), srgb)) => {
            format!("ASTC {}{}", block.name(), if srgb { " sRGB" } else { "" })
        }
        Some((f, srgb)) => {
            let name = match f {
                PixelFormat::Uastc => "UASTC",
                PixelFormat::Bc1 => "BC1",
                PixelFormat::Bc3 => "BC3",
                PixelFormat::Bc4 => "BC4",
                PixelFormat::Bc5 => "BC5",
                PixelFormat::Bc6h => "BC6H",
                PixelFormat::Bc7 => "BC7",
                PixelFormat::Astc(_) => "ASTC",
                PixelFormat::Rgba8 => "RGBA8",
                PixelFormat::Rgba16f => "RGBA16F",
            };
            format!("{name}{}", if srgb { " sRGB" } else { "" })
        }
        None => format!("vkFormat {}", ktx.vk_format),
    }
}

/// Level `level` (0 = full size) as one RGBA8 picture: a 2D image as it is, a cubemap
/// unfolded into a cross ([`unfold::cube_cross`]), a 3D texture as a strip of its depth
/// slices ([`unfold::slice_strip`]); of an array, the first layer. RGBA16F is tone mapped
/// for display ([`tonemap`]: Reinhard, then sRGB).
pub fn decode_ktx2(ktx: &Ktx2, level: usize) -> Result<Texture, LevelDecodeError> {
    let data = &ktx
        .levels
        .get(level)
        .ok_or(LevelDecodeError::NoSuchLevel {
            levels: ktx.levels.len(),
            level,
        })?
        .data;
    let (width, height) = ktx.level_size(level);
    let (format, _) = ktx
        .pixel_format()
        .ok_or(LevelDecodeError::NotPreviewable(ktx.vk_format))?;
    let image_bytes = format
        .block()
        .level_bytes(width, height, 0, 1)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(LevelDecodeError::LevelTooLarge)?;
    // Images are stored layer, then face, then z slice (KTX 2.0 §3.9): the first layer's
    // faces or slices come first.
    let count = if ktx.is_cube() {
        ktx.face_count as usize
    } else {
        ktx.level_depth(level) as usize
    };
    let needed = image_bytes
        .checked_mul(count)
        .filter(|&n| n <= data.len())
        .ok_or(LevelDecodeError::ShortLevel {
            level,
            held: data.len(),
            count,
            image_bytes,
        })?;
    let images = data[..needed]
        .chunks_exact(image_bytes.max(1))
        .map(|image| {
            decode_image(format, image, width, height).map(|rgba| Texture {
                width,
                height,
                rgba,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LevelDecodeError::InLevel {
            level,
            source: Box::new(e),
        })?;
    if ktx.is_cube() {
        unfold::cube_cross(&images)
    } else if ktx.depth > 0 {
        unfold::slice_strip(&images)
    } else {
        images
            .into_iter()
            .next()
            .ok_or(LevelDecodeError::NoImage { level })
    }
}

/// One image (a face, a slice or a 2D level) as RGBA8.
fn decode_image(
    format: PixelFormat,
    data: &[u8],
    width: u32,
    height: u32,
) -> Result<Vec<u8>, LevelDecodeError> {
    let texels = width as usize * height as usize;
    Ok(match format {
        PixelFormat::Rgba8 => {
            let n = texels * 4;
            data.get(..n)
                .ok_or(LevelDecodeError::ShortRgba8 {
                    held: data.len(),
                    needed: n,
                })?
                .to_vec()
        }
        PixelFormat::Rgba16f => tonemap::rgba16f_to_rgba8(data, texels)?,
        PixelFormat::Uastc => {
            crate::pipeline::textures::decode_uastc_rgba(data, width, height, true)?
        }
        PixelFormat::Bc1 => decode_bc(data, width, height, 8, bcdec_rs::bc1)?,
        PixelFormat::Bc3 => decode_bc(data, width, height, 16, bcdec_rs::bc3)?,
        PixelFormat::Bc7 => decode_bc(data, width, height, 16, bcdec_rs::bc7)?,
        PixelFormat::Bc4 => decode_bc(data, width, height, 8, bc4_rgba)?,
        PixelFormat::Bc5 => decode_bc(data, width, height, 16, bc5_normal_rgba)?,
        PixelFormat::Bc6h => {
            let f16 = decode_bc_texels(data, width, height, 16, 8, bc6h_rgba16f)?;
            tonemap::rgba16f_to_rgba8(&f16, texels)?
        }
        PixelFormat::Astc(block) => astc_rgba(data, width, height, block)?,
    })
}

/// ASTC LDR blocks of a `width` x `height` image as RGBA8 (the decoded 8-bit values; an
/// sRGB file's stay sRGB-encoded, as with the other formats here).
pub fn astc_rgba(
    data: &[u8],
    width: u32,
    height: u32,
    block: AstcBlock,
) -> Result<Vec<u8>, LevelDecodeError> {
    let (w, h) = (width as usize, height as usize);
    let mut bgra = vec![0u32; w * h];
    // texture2ddecoder indexes its tables with fields of the block and panics on some
    // invalid blocks (random bytes reach one within a few thousand): a hostile file is
    // an error here, not a crash. Nothing outside `bgra` is left half-written.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        texture2ddecoder::decode_astc(
            data,
            w,
            h,
            block.width() as usize,
            block.height() as usize,
            &mut bgra,
        )
    }));
    match decoded {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(LevelDecodeError::Astc {
                block: block.name(),
                reason: e.to_string(),
            })
        }
        Err(_) => {
            return Err(LevelDecodeError::InvalidAstc {
                block: block.name(),
            })
        }
    }
    // texture2ddecoder packs a texel as little-endian B, G, R, A.
    Ok(bgra
        .iter()
        .flat_map(|t| {
            let [b, g, r, a] = t.to_le_bytes();
            [r, g, b, a]
        })
        .collect())
}

/// One BC4 block as grey RGBA8 (R replicated, alpha 255).
pub fn bc4_rgba(block: &[u8], out: &mut [u8], pitch: usize) {
    let mut r = [0u8; 16];
    bcdec_rs::bc4(block, &mut r, 4, false);
    for (i, &v) in r.iter().enumerate() {
        out[(i / 4) * pitch + (i % 4) * 4..][..4].copy_from_slice(&[v, v, v, 255]);
    }
}

/// One BC5 block as a normal map's RGBA8: X and Y as stored, Z = sqrt(1 - x² - y²) with
/// x, y = stored * 2 - 1 (0 when x² + y² > 1), stored back as z * 0.5 + 0.5.
pub fn bc5_normal_rgba(block: &[u8], out: &mut [u8], pitch: usize) {
    let mut rg = [0u8; 32];
    bcdec_rs::bc5(block, &mut rg, 8, false);
    for i in 0..16 {
        let (r, g) = (rg[i * 2], rg[i * 2 + 1]);
        out[(i / 4) * pitch + (i % 4) * 4..][..4].copy_from_slice(&[r, g, bc5_z(r, g), 255]);
    }
}

/// The stored Z (z * 0.5 + 0.5 as 0..255) of a normal whose X and Y are stored as `r`, `g`.
pub fn bc5_z(r: u8, g: u8) -> u8 {
    let x = f32::from(r) / 255.0 * 2.0 - 1.0;
    let y = f32::from(g) / 255.0 * 2.0 - 1.0;
    let z = (1.0 - x * x - y * y).max(0.0).sqrt();
    ((z * 0.5 + 0.5) * 255.0).round() as u8
}

/// One BC6H block as RGBA16F texels (little-endian half floats, alpha 1.0).
pub fn bc6h_rgba16f(block: &[u8], out: &mut [u8], pitch: usize) {
    let mut rgb = [0u16; 48];
    bcdec_rs::bc6h_half(block, &mut rgb, 12, false);
    for i in 0..16 {
        let texel = [rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], 0x3C00];
        let at = (i / 4) * pitch + (i % 4) * 8;
        for (c, v) in texel.iter().enumerate() {
            out[at + c * 2..][..2].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Decodes 4x4 blocks into a padded RGBA8 image, then crops it to the level's size.
fn decode_bc(
    blocks: &[u8],
    width: u32,
    height: u32,
    block_bytes: usize,
    decode: fn(&[u8], &mut [u8], usize),
) -> Result<Vec<u8>, LevelDecodeError> {
    decode_bc_texels(blocks, width, height, block_bytes, 4, decode)
}

/// Decodes 4x4 blocks into a padded image of `texel`-byte texels, then crops it to the
/// level's size.
fn decode_bc_texels(
    blocks: &[u8],
    width: u32,
    height: u32,
    block_bytes: usize,
    texel: usize,
    decode: fn(&[u8], &mut [u8], usize),
) -> Result<Vec<u8>, LevelDecodeError> {
    let (bw, bh) = (width.div_ceil(4) as usize, height.div_ceil(4) as usize);
    if blocks.len() < bw * bh * block_bytes {
        return Err(LevelDecodeError::ShortBlocks {
            held: blocks.len(),
            width,
            height,
            needed: bw * bh * block_bytes,
        });
    }
    let pitch = bw * 4 * texel;
    let mut padded = vec![0u8; pitch * bh * 4];
    for by in 0..bh {
        for bx in 0..bw {
            let block = &blocks[(by * bw + bx) * block_bytes..][..block_bytes];
            decode(block, &mut padded[by * 4 * pitch + bx * 4 * texel..], pitch);
        }
    }
    let row = width as usize * texel;
    Ok((0..height as usize)
        .flat_map(|y| padded[y * pitch..][..row].iter().copied())
        .collect())
}
