//! An equirectangular panorama resampled into six cube faces.
//!
//! Face directions follow the Vulkan (and KTX) cube map convention, +Y up: the Vulkan
//! spec's "Cube Map Face Selection" table, inverted. For face texel centre (s, t) in
//! [0, 1] (s to the right, t down), u = 2s - 1 and v = 2t - 1, the direction is
//!
//! | face | direction    |
//! |------|--------------|
//! | +X   | ( 1, -v, -u) |
//! | -X   | (-1, -v,  u) |
//! | +Y   | ( u,  1,  v) |
//! | -Y   | ( u, -1, -v) |
//! | +Z   | ( u, -v,  1) |
//! | -Z   | (-u, -v, -1) |
//!
//! The panorama's convention is the Khronos glTF IBL Sampler's (and three.js's): its top
//! row looks straight up (+Y), its bottom row down; its centre column looks along +X and
//! longitude grows towards +Z, so the column at 3/4 of the width looks along +Z, the one at
//! 1/4 along -Z, and the left and right edges meet at -X. In formulas, for a unit
//! direction (x, y, z): column = (0.5 + atan2(z, x) / 2pi) * width, row =
//! acos(y) / pi * height.

use super::super::float_image::FloatImage;
use super::super::load::DecodedImage;
use super::super::mips::{from_float, to_float};
use super::super::{CubeLayout, RgbaLevel, TextureError, TextureMode, TextureSettings};
use super::cube::Faces;
use super::filter::resize_area;
use super::{image_error, Source};
use image::Rgba;
use rayon::prelude::*;
use std::f32::consts::PI;

/// The six faces of a panorama, in file order. Face size: the largest power of two no
/// larger than a quarter of the panorama's width (a face spans a quarter of the
/// horizon) nor than `settings.max_size`. LDR panoramas are resampled in `mode`'s
/// filtering space (linear light for colour), HDR ones as they are.
pub(super) fn faces(
    src: Source,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<Faces, TextureError> {
    let (w, h) = match &src {
        Source::Ldr(img) => (img.width, img.height),
        Source::Hdr(img) => img.dimensions(),
    };
    // A square or 4:3 image under `cubemap = true` was once quietly resampled into a cube
    // of a fraction of its size; only a 2:1 image is an equirectangular panorama.
    CubeLayout::Panorama.aspect_of(w, h).map_err(image_error)?;
    let size = face_size(w, settings.max_size).ok_or_else(|| {
        image_error(format!(
            "panorama is {w}x{h}: it needs a width of at least 4 texels"
        ))
    })?;
    let hdr = matches!(src, Source::Hdr(_));
    let pano = match src {
        Source::Hdr(img) => img,
        Source::Ldr(img) => to_float(
            &RgbaLevel {
                width: img.width,
                height: img.height,
                pixels: img.pixels,
            },
            mode,
        ),
    };
    // Bilinear lookups skip texels when the panorama is much finer than the faces, so it
    // is first brought to about one panorama texel per face texel.
    let pano = if w > 4 * size {
        let nh = ((f64::from(h) * f64::from(4 * size) / f64::from(w)).round() as u32).max(1);
        resize_area(&pano, 4 * size, nh)
    } else {
        pano
    };
    let faces: Vec<FloatImage> = (0..6)
        .into_par_iter()
        .map(|f| {
            let step = 1.0 / size as f32;
            FloatImage::from_fn(size, size, |x, y| {
                let s = (x as f32 + 0.5) * step;
                let t = (y as f32 + 0.5) * step;
                Rgba(sample(&pano, direction(f, s, t)))
            })
        })
        .collect();
    Ok(if hdr {
        Faces::Hdr(faces)
    } else {
        Faces::Ldr(
            faces
                .iter()
                .map(|f| {
                    let level = from_float(f, mode);
                    DecodedImage {
                        width: level.width,
                        height: level.height,
                        pixels: level.pixels,
                    }
                })
                .collect(),
        )
    })
}

/// The face size for a panorama `width` texels wide (see [`faces`]), or None when the
/// panorama is narrower than 4 texels.
pub(super) fn face_size(width: u32, max_size: u32) -> Option<u32> {
    let limit = (width / 4).min(max_size.max(1));
    (limit >= 1).then(|| 1 << limit.ilog2())
}

/// The direction (not normalised) through texel centre (s, t) of face `face` (0..6 in the
/// order +X -X +Y -Y +Z -Z), by the table in the module comment.
pub(super) fn direction(face: usize, s: f32, t: f32) -> [f32; 3] {
    let (u, v) = (2.0 * s - 1.0, 2.0 * t - 1.0);
    match face {
        0 => [1.0, -v, -u],
        1 => [-1.0, -v, u],
        2 => [u, 1.0, v],
        3 => [u, -1.0, -v],
        4 => [u, -v, 1.0],
        _ => [-u, -v, -1.0],
    }
}

/// The panorama bilinearly sampled in direction `dir`: wrapping around in longitude,
/// clamped at the top and bottom rows.
fn sample(pano: &FloatImage, dir: [f32; 3]) -> [f32; 4] {
    let [x, y, z] = dir;
    let len = (x * x + y * y + z * z).sqrt();
    let (x, y, z) = (x / len, y / len, z / len);
    let (w, h) = pano.dimensions();
    let col = (0.5 + z.atan2(x) / (2.0 * PI)) * w as f32 - 0.5;
    let row = (y.clamp(-1.0, 1.0).acos() / PI * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
    let (c0, r0) = (col.floor(), row.floor());
    let (fx, fy) = (col - c0, row - r0);
    let wrap = |c: f32| (c as i64).rem_euclid(i64::from(w)) as u32;
    let (x0, x1) = (wrap(c0), wrap(c0 + 1.0));
    let y0 = r0 as u32;
    let y1 = (y0 + 1).min(h - 1);
    let p = |x, y| pano.get_pixel(x, y).0;
    let (a, b, c, d) = (p(x0, y0), p(x1, y0), p(x0, y1), p(x1, y1));
    std::array::from_fn(|i| {
        let top = a[i] + (b[i] - a[i]) * fx;
        let bottom = c[i] + (d[i] - c[i]) * fx;
        top + (bottom - top) * fy
    })
}
