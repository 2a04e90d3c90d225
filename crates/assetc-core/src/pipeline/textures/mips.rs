//! Downscaling and the mip chain. Filtering happens in f32: colour in linear light,
//! normals as vectors renormalised per level, linear data as it is, single-channel maps
//! as their red channel. Alpha-tested textures keep level 0's alpha coverage on every
//! level.

use super::fit::fitted_size;
use super::float_image::FloatImage;
use super::load::DecodedImage;
use super::sinc::resize_lanczos;
use super::{MipFilter, TextureMode, TextureSettings};
use image::imageops::{self, FilterType};

/// One level of RGBA8 texels, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbaLevel {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// sRGB byte to linear light, from a table built once (also used by `assetc preview`).
pub fn srgb_to_linear(v: u8) -> f32 {
    static TABLE: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let c = i as f32 / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        })
    })[usize::from(v)]
}

fn linear_to_srgb(c: f32) -> f32 {
    if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    }
}

fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// RGBA8 to filterable floats: colour to linear light, normals to [-1, 1] vectors.
pub(super) fn to_float(level: &RgbaLevel, mode: TextureMode) -> FloatImage {
    let data = level
        .pixels
        .chunks_exact(4)
        .flat_map(|p| {
            let a = f32::from(p[3]) / 255.0;
            match mode {
                TextureMode::Color => [
                    srgb_to_linear(p[0]),
                    srgb_to_linear(p[1]),
                    srgb_to_linear(p[2]),
                    a,
                ],
                TextureMode::Linear => [
                    f32::from(p[0]) / 255.0,
                    f32::from(p[1]) / 255.0,
                    f32::from(p[2]) / 255.0,
                    a,
                ],
                TextureMode::Normal => [
                    f32::from(p[0]) / 127.5 - 1.0,
                    f32::from(p[1]) / 127.5 - 1.0,
                    f32::from(p[2]) / 127.5 - 1.0,
                    a,
                ],
                TextureMode::Single => {
                    let r = f32::from(p[0]) / 255.0;
                    [r, r, r, 1.0]
                }
            }
        })
        .collect();
    // The buffer length is width * height * 4 by construction.
    FloatImage::from_raw(level.width, level.height, data).unwrap_or_else(|| FloatImage::new(1, 1))
}

pub(super) fn from_float(img: &FloatImage, mode: TextureMode) -> RgbaLevel {
    let pixels = img
        .pixels()
        .flat_map(|p| {
            let [r, g, b, a] = p.0;
            match mode {
                TextureMode::Color => [
                    to_u8(linear_to_srgb(r)),
                    to_u8(linear_to_srgb(g)),
                    to_u8(linear_to_srgb(b)),
                    to_u8(a),
                ],
                TextureMode::Linear => [to_u8(r), to_u8(g), to_u8(b), to_u8(a)],
                TextureMode::Single => [to_u8(r), to_u8(r), to_u8(r), 255],
                TextureMode::Normal => {
                    let len = (r * r + g * g + b * b).sqrt();
                    // A vector averaged to nothing (opposite normals) points straight out.
                    let (x, y, z) = if len > 1e-6 {
                        (r / len, g / len, b / len)
                    } else {
                        (0.0, 0.0, 1.0)
                    };
                    [
                        to_u8(x * 0.5 + 0.5),
                        to_u8(y * 0.5 + 0.5),
                        to_u8(z * 0.5 + 0.5),
                        to_u8(a),
                    ]
                }
            }
        })
        .collect();
    RgbaLevel {
        width: img.width(),
        height: img.height(),
        pixels,
    }
}

/// Resize with `filter`. The windowed-sinc filters are our own ([`resize_lanczos`]: no
/// clamping). The triangle filter is `image`'s, whose resize clamps float results to
/// [0, 1], which cut the negative half off normals in [-1, 1] (a map pointing toward -X/-Y
/// came out as +Z on every mip level). Normals are therefore filtered as `n * 0.5 + 0.5`:
/// the triangle's weights are non-negative and sum to 1, so the biased result stays
/// inside [0, 1] and unbiasing it gives exactly the unclamped average.
fn resize(
    img: &FloatImage,
    width: u32,
    height: u32,
    mode: TextureMode,
    filter: MipFilter,
) -> FloatImage {
    match filter {
        MipFilter::Triangle => {}
        MipFilter::Lanczos3 => return resize_lanczos(img, width, height, 3),
        MipFilter::Lanczos4 => return resize_lanczos(img, width, height, 4),
    }
    if mode != TextureMode::Normal {
        return imageops::resize(img, width, height, FilterType::Triangle);
    }
    let mut biased = img.clone();
    for p in biased.pixels_mut() {
        let [x, y, z, a] = p.0;
        p.0 = [x * 0.5 + 0.5, y * 0.5 + 0.5, z * 0.5 + 0.5, a];
    }
    let mut out = imageops::resize(&biased, width, height, FilterType::Triangle);
    for p in out.pixels_mut() {
        let [x, y, z, a] = p.0;
        p.0 = [x * 2.0 - 1.0, y * 2.0 - 1.0, z * 2.0 - 1.0, a];
    }
    out
}

fn coverage(alpha: impl Iterator<Item = u8>, cutoff: f32, count: usize) -> f32 {
    let above = alpha.filter(|&a| f32::from(a) / 255.0 > cutoff).count();
    above as f32 / count.max(1) as f32
}

/// Scales `level`'s alpha so the fraction of texels above `cutoff` matches `target`
/// (alpha-to-coverage preservation: a bisection on the scale, as in Castaño's method).
fn preserve_coverage(level: &mut RgbaLevel, cutoff: f32, target: f32) {
    let texels = level.pixels.len() / 4;
    let original: Vec<u8> = level.pixels.iter().skip(3).step_by(4).copied().collect();
    let scaled = |s: f32| {
        original
            .iter()
            .map(move |&a| to_u8(f32::from(a) / 255.0 * s))
    };
    let (mut lo, mut hi) = (0.0f32, 4.0f32);
    let mut best = 1.0f32;
    let mut best_err = (coverage(scaled(1.0), cutoff, texels) - target).abs();
    for _ in 0..12 {
        let mid = 0.5 * (lo + hi);
        let c = coverage(scaled(mid), cutoff, texels);
        let err = (c - target).abs();
        if err < best_err {
            best = mid;
            best_err = err;
        }
        if c < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for (p, a) in level.pixels.chunks_exact_mut(4).zip(scaled(best)) {
        p[3] = a;
    }
}

/// Level 0 (downscaled to `settings.max_size` when larger) and, when mipmaps are on, every
/// level down to 1x1. Level 0 keeps the source texels exactly when no downscale is needed.
pub fn build_levels(
    source: DecodedImage,
    mode: TextureMode,
    alpha_cutoff: Option<f32>,
    settings: &TextureSettings,
) -> Vec<RgbaLevel> {
    let mut level0 = RgbaLevel {
        width: source.width,
        height: source.height,
        pixels: source.pixels,
    };
    if mode == TextureMode::Single {
        // Level 0 skips the float round trip when no downscale is needed, so the red
        // channel is replicated here too.
        for p in level0.pixels.chunks_exact_mut(4) {
            p.copy_from_slice(&[p[0], p[0], p[0], 255]);
        }
    }
    let (w, h) = fitted_size(level0.width, level0.height, settings.max_size);
    let mut current = None;
    if (w, h) != (level0.width, level0.height) {
        let f = resize(&to_float(&level0, mode), w, h, mode, settings.mip_filter);
        level0 = from_float(&f, mode);
        current = Some(f);
    }
    let target = alpha_cutoff.map(|c| {
        (
            c,
            coverage(
                level0.pixels.iter().skip(3).step_by(4).copied(),
                c,
                level0.pixels.len() / 4,
            ),
        )
    });
    let mut levels = vec![level0];
    if !settings.mipmaps {
        return levels;
    }
    let mut current = match current {
        Some(c) => c,
        None => to_float(&levels[0], mode),
    };
    while current.width() > 1 || current.height() > 1 {
        let (nw, nh) = ((current.width() / 2).max(1), (current.height() / 2).max(1));
        // `image`'s triangle filter at exactly half size is the tent 1/8, 3/8, 3/8, 1/8
        // per axis (its support grows with the scale), not a 2x2 box.
        let mut next = resize(&current, nw, nh, mode, settings.mip_filter);
        if mode == TextureMode::Normal {
            for p in next.pixels_mut() {
                let [x, y, z, a] = p.0;
                let len = (x * x + y * y + z * z).sqrt();
                if len > 1e-6 {
                    p.0 = [x / len, y / len, z / len, a];
                }
            }
        }
        let mut level = from_float(&next, mode);
        if let Some((cutoff, target)) = target {
            preserve_coverage(&mut level, cutoff, target);
        }
        levels.push(level);
        current = next;
    }
    levels
}
