//! HDR images (`.hdr`, `.exr`): decoded to linear f32 RGBA, downscaled and mipmapped in
//! linear float, stored as RGBA16F (exact for every value f16 holds), or as BC6H (unsigned
//! half float blocks, RGB only) when the settings ask for it ([`TextureSettings::hdr_as_bc6h`]).
//!
//! Values f16 cannot hold are clamped at decode, before any filtering: NaN and anything
//! negative (-inf included) become 0, anything above 65504 (+inf included) becomes 65504,
//! the largest finite f16. A light probe has no use for negative light, and one NaN texel
//! would otherwise spread through every mip level it is averaged into.

use super::super::encode_bc::encode_bc6h_f16;
use super::super::fit::fitted_size;
use super::super::float_image::FloatImage;
use super::super::load::{check_dimensions, ImageDecodeError, MAX_PIXELS, MAX_SIDE};
use super::super::{TextureError, TextureSettings};
use super::filter::{half_box, resize_area};
use super::image_error;
use crate::formats::ktx2::{self, Ktx2Image, PixelFormat};
use image::{ImageFormat, ImageReader, Limits};
use std::io::Cursor;

/// The largest finite f16.
pub(super) const F16_MAX: f32 = 65504.0;

/// zstd level of RGBA16F levels, measured on f16 linear-light photographs (docs/textures.md
/// has the sizes and times by level): 12 is the last step before the search gets much
/// slower, and still costs less per texel than block-encoding an LDR texture.
pub(super) const ZSTD_LEVEL_HDR: i32 = 12;

/// Decodes a Radiance `.hdr` or OpenEXR image to linear RGBA f32 (alpha 1 when the file
/// has none), values clamped as the module says. The declared size is checked against
/// [`MAX_SIDE`] / [`MAX_PIXELS`] from the header, before any texel memory is allocated.
pub(super) fn decode(bytes: &[u8], ext: &str) -> Result<FloatImage, ImageDecodeError> {
    // The header is read without the size limits so that an absurd size gets our error,
    // which names it, rather than the decoder's.
    let open = |limited: bool| -> Result<ImageReader<Cursor<&[u8]>>, ImageDecodeError> {
        let mut reader = ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| ImageDecodeError::Unreadable(e.to_string()))?;
        if reader.format().is_none() {
            reader.set_format(if ext.eq_ignore_ascii_case("exr") {
                ImageFormat::OpenExr
            } else {
                ImageFormat::Hdr
            });
        }
        if limited {
            let mut limits = Limits::default();
            limits.max_image_width = Some(MAX_SIDE);
            limits.max_image_height = Some(MAX_SIDE);
            // RGBA f32: 16 bytes a texel at the largest accepted size.
            limits.max_alloc = Some(MAX_PIXELS * 16);
            reader.limits(limits);
        }
        Ok(reader)
    };
    let (w, h) = open(false)?
        .into_dimensions()
        .map_err(|e| ImageDecodeError::UnreadableHeader(e.to_string()))?;
    check_dimensions(w, h)?;
    let mut img = open(true)?
        .decode()
        .map_err(|e| ImageDecodeError::Undecodable(e.to_string()))?
        .into_rgba32f();
    for v in img.iter_mut() {
        *v = clamp_f16(*v);
    }
    Ok(img)
}

/// Clamps to what f16 holds, as the module says.
pub(super) fn clamp_f16(v: f32) -> f32 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, F16_MAX)
    }
}

/// Level 0 (fitted into `settings.max_size` by an area filter) and, when mipmaps are on,
/// every level down to 1x1 by a 2x2 box, all in linear float.
pub(super) fn chain(img: FloatImage, settings: &TextureSettings) -> Vec<FloatImage> {
    let (w, h) = fitted_size(img.width(), img.height(), settings.max_size);
    let mut current = if (w, h) == img.dimensions() {
        img
    } else {
        resize_area(&img, w, h)
    };
    let mut levels = Vec::new();
    while settings.mipmaps && (current.width() > 1 || current.height() > 1) {
        let next = half_box(&current);
        levels.push(current);
        current = next;
    }
    levels.push(current);
    levels
}

/// A level's texels as little-endian f16 (round to nearest even: exact for every value
/// f16 holds).
pub(super) fn to_f16_bytes(img: &FloatImage) -> Vec<u8> {
    img.iter()
        .flat_map(|&v| half::f16::from_f32(clamp_f16(v)).to_le_bytes())
        .collect()
}

/// Whether any texel's alpha is not 1.
pub(super) fn has_alpha(levels: &[FloatImage]) -> bool {
    levels.iter().any(|l| l.pixels().any(|p| p.0[3] != 1.0))
}

/// One HDR image to a complete RGBA16F (or BC6H) `.ktx2`.
pub(super) fn encode_image(
    bytes: &[u8],
    ext: &str,
    settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    let levels = chain(decode(bytes, ext).map_err(image_error)?, settings);
    let (width, height) = levels.first().map_or((0, 0), |l| l.dimensions());
    write(
        width,
        height,
        (1, 0),
        has_alpha(&levels),
        levels.iter().map(|l| level_bytes(l, settings)).collect(),
        settings,
    )
}

/// One level's bytes: RGBA16F texels, or BC6H blocks of them.
pub(super) fn level_bytes(img: &FloatImage, settings: &TextureSettings) -> Vec<u8> {
    let f16 = to_f16_bytes(img);
    if settings.hdr_as_bc6h() {
        encode_bc6h_f16(img.width(), img.height(), &f16, settings.quality())
    } else {
        f16
    }
}

/// Writes RGBA16F (or BC6H, as [`level_bytes`] made them) levels of `(faces, layers)`
/// (faceCount, layerCount: 0 is not an array) as a `.ktx2`. BC6H holds no alpha, so its file never claims any; it is zstd
/// supercompressed unless `bc_zstd` is off, like the other BC formats.
pub(super) fn write(
    width: u32,
    height: u32,
    (faces, layers): (u32, u32),
    has_alpha: bool,
    levels: Vec<Vec<u8>>,
    settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    let bc6h = settings.hdr_as_bc6h();
    let image = Ktx2Image {
        format: if bc6h {
            PixelFormat::Bc6h
        } else {
            PixelFormat::Rgba16f
        },
        srgb: false,
        has_alpha: has_alpha && !bc6h,
        width,
        height,
        depth: 0,
        faces,
        levels,
        zstd_level: if bc6h {
            settings.bc_zstd.then(|| settings.zstd_level())
        } else {
            Some(ZSTD_LEVEL_HDR)
        },
    };
    ktx2::write_layers(&image, layers).map_err(|e| image_error(e.to_string()))
}
