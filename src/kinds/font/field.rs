//! One glyph's distance field, computed from its outline (fdsm, after Chlumský's msdfgen),
//! never by blurring a bitmap.
//!
//! Encoding (both kinds): a texel holds `d / range + 0.5` for the signed distance `d` in
//! texels from its centre to the outline, positive inside, clamped to [0, 1] and stored
//! as u8. So the edge is 0.5 and `range` texels span the whole scale.
//! - SDF: the true distance in R, G and B; A = 255.
//! - MSDF: three pseudo-distances in R, G, B (their median is the edge); A holds the true
//!   distance (an "MTSDF"), which effects such as outlines and glows want.

use super::outline::Outline;
use fdsm::bezier::scanline::FillRule;
use fdsm::correct_error::{correct_error_mtsdf, ErrorCorrectionConfig};
use fdsm::generate::{generate_mtsdf, generate_sdf};
use fdsm::render::{correct_sign_mtsdf, correct_sign_sdf};
use fdsm::shape::Shape;
use image::{ImageBuffer, Luma, Rgba};

/// msdfgen's default corner angle (3 radians) as the sine fdsm's edge colouring takes.
const CORNER_SIN_ALPHA: f64 = 0.141_120_008_059_867_2;
/// Edge colouring is seeded; a fixed seed keeps the atlas the same from build to build.
const COLOURING_SEED: u64 = 0x6173_7365_7463;

/// A glyph's rectangle on the texel grid of its em square at the atlas's scale: texel
/// `x` covers font units `[(x0 + x) / scale, (x0 + x + 1) / scale]`, y up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexelBox {
    pub x0: i64,
    pub y0: i64,
    pub width: u32,
    pub height: u32,
}

impl TexelBox {
    /// The outline's bounds on the texel grid, grown by `pad` texels on every side so the
    /// field falls to its far value before the edge of the box.
    pub fn around(outline: &Outline, scale: f64, pad: u32) -> Self {
        let pad = i64::from(pad);
        let lo = |v: f32| (f64::from(v) * scale).floor() as i64 - pad;
        let hi = |v: f32| (f64::from(v) * scale).ceil() as i64 + pad;
        let (x0, y0) = (lo(outline.min[0]), lo(outline.min[1]));
        let (x1, y1) = (hi(outline.max[0]), hi(outline.max[1]));
        Self {
            x0,
            y0,
            width: u32::try_from(x1 - x0).unwrap_or(u32::MAX),
            height: u32::try_from(y1 - y0).unwrap_or(u32::MAX),
        }
    }
}

/// A glyph's field as RGBA8 rows, top row first (the atlas's orientation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tile {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// The distance field of `outline` over `bx`, `scale` texels per font unit.
pub fn render(outline: &Outline, bx: &TexelBox, scale: f64, range: f64, msdf: bool) -> Tile {
    let shape = outline.to_shape(scale, [bx.x0 as f64, bx.y0 as f64]);
    let (w, h) = (bx.width, bx.height);
    // Fields are computed in f32 and rounded once, rather than truncated to u8 by fdsm.
    let texels: Vec<[f32; 4]> = if msdf {
        let coloured = Shape::edge_coloring_simple(shape, CORNER_SIN_ALPHA, COLOURING_SEED);
        let prepared = coloured.prepare();
        let mut img: ImageBuffer<Rgba<f32>, Vec<f32>> = ImageBuffer::new(w, h);
        generate_mtsdf(&prepared, range, &mut img);
        // fdsm: error correction needs the signs as generated, so it comes first.
        correct_error_mtsdf(
            &mut img,
            &coloured,
            &prepared,
            range,
            &ErrorCorrectionConfig::default(),
        );
        correct_sign_mtsdf(&mut img, &prepared, FillRule::Nonzero);
        img.pixels().map(|p| p.0).collect()
    } else {
        let prepared = shape.prepare();
        let mut img: ImageBuffer<Luma<f32>, Vec<f32>> = ImageBuffer::new(w, h);
        generate_sdf(&prepared, range, &mut img);
        correct_sign_sdf(&mut img, &prepared, FillRule::Nonzero);
        img.pixels()
            .map(|p| [p.0[0], p.0[0], p.0[0], 1.0])
            .collect()
    };
    let q = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let mut rgba = Vec::with_capacity(texels.len() * 4);
    // fdsm's rows run y up like the outline; the atlas's run top down.
    for row in texels.chunks(w.max(1) as usize).rev() {
        for t in row {
            rgba.extend(t.iter().map(|&v| q(v)));
        }
    }
    Tile {
        width: w,
        height: h,
        rgba,
    }
}
