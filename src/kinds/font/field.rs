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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::font::outline::polygon;

    /// The stored value of texel (x, y), top row first, channel c.
    fn at(t: &Tile, x: u32, y: u32, c: usize) -> u8 {
        t.rgba[((y * t.width + x) * 4) as usize + c]
    }

    /// An L-shaped glyph in font units, wound either way: the sign comes from the fill,
    /// not the winding.
    fn l_shape(clockwise: bool) -> Outline {
        let mut p = vec![
            [0.0, 0.0],
            [100.0, 0.0],
            [100.0, 20.0],
            [20.0, 20.0],
            [20.0, 60.0],
            [0.0, 60.0],
        ];
        if clockwise {
            p.reverse();
        }
        polygon(&p)
    }

    #[test]
    fn distances_are_measured_from_the_outline_inside_positive() {
        // 0.2 texels per unit: the L is 20 x 12 texels, padded by 2.
        let o = l_shape(false);
        let bx = TexelBox::around(&o, 0.2, 2);
        assert_eq!(
            bx,
            TexelBox {
                x0: -2,
                y0: -2,
                width: 24,
                height: 16
            }
        );
        let t = render(&o, &bx, 0.2, 4.0, false);
        assert_eq!((t.width, t.height), (24, 16));
        // Texel centres: column x is at (x - 2 + 0.5) texels, row y (top first) at
        // (16 - 1 - y - 2 + 0.5) texels up from the glyph's origin.
        // Inside the foot, 1.5 texels from the bottom edge: (1.5 / 4 + 0.5) * 255.
        let foot = at(&t, 10, 12, 0);
        assert!((i32::from(foot) - 223).abs() <= 1, "{foot}");
        // 1.5 texels below the bottom edge, outside.
        assert!((i32::from(at(&t, 10, 15, 0)) - 32).abs() <= 1);
        // Far outside (beyond range / 2 of every edge): 0; deep inside the corner: clamped.
        assert_eq!(at(&t, 20, 2, 0), 0);
        // SDF: the same value in R, G and B, opaque alpha.
        assert!(t
            .rgba
            .chunks(4)
            .all(|p| p[0] == p[1] && p[1] == p[2] && p[3] == 255));
        assert_eq!(render(&l_shape(true), &bx, 0.2, 4.0, false), t);
    }

    #[test]
    fn an_msdf_median_agrees_with_the_sdf_away_from_corners() {
        let o = l_shape(false);
        let bx = TexelBox::around(&o, 0.2, 2);
        let sdf = render(&o, &bx, 0.2, 4.0, false);
        let msdf = render(&o, &bx, 0.2, 4.0, true);
        let median = |p: &[u8]| p[0].min(p[1]).max(p[0].max(p[1]).min(p[2]));
        // Along the middle of the foot's straight bottom edge every channel is the distance.
        for y in 11..16 {
            let i = ((y * msdf.width + 10) * 4) as usize;
            let m = median(&msdf.rgba[i..i + 4]);
            assert!(m.abs_diff(at(&sdf, 10, y, 0)) <= 1, "row {y}");
        }
        // Inside and outside agree everywhere (the sign of the field).
        for (a, b) in msdf.rgba.chunks(4).zip(sdf.rgba.chunks(4)) {
            let (m, s) = (median(a), b[0]);
            if s.abs_diff(128) > 40 {
                assert_eq!(m > 127, s > 127);
            }
        }
        // Alpha holds the true distance: the SDF's value.
        for (a, b) in msdf.rgba.chunks(4).zip(sdf.rgba.chunks(4)) {
            assert!(a[3].abs_diff(b[0]) <= 1);
        }
    }
}
