//! A line of text drawn from an `.hfont` and its atlas, the way an engine's shader would:
//! one quad per glyph from its plane rectangle, the pen moved by advances and kerning, and
//! coverage from the distance field sampled bilinearly (the median of RGB for an MSDF).
//!
//! Layout, in pixels of the picture: the pen starts `margin = ceil(px / 4)` from the left
//! edge, on a baseline `margin + ceil(ascent * px)` from the top; the picture ends a margin
//! past the last glyph and `ceil(-descent * px)` plus a margin below the baseline. Black
//! text on white.

use super::{Preview, PreviewError};
use crate::formats::hfont::{self, HFont};
use crate::formats::ktx2::{self, PixelFormat};
use std::path::Path;

/// Text drawn when none is given: a pangram, and pairs most fonts kern.
pub const DEFAULT_TEXT: &str = "Sphinx of black quartz, judge my vow. AV To 0123";
/// Pixels per em when no size is given.
pub const DEFAULT_PX: u32 = 48;
/// Longest text drawn, in characters.
pub const MAX_TEXT_CHARS: usize = 1024;
/// Largest side of a text picture, and its largest area (a 64 MiB framebuffer).
pub const MAX_SIDE: u32 = 16384;
pub const MAX_PIXELS: u64 = 1 << 24;
/// Coverage is `smoothstep(-W, W, d)` of the distance `d` in pixels from the pixel's
/// centre: with W = 0.5 it is 0 and 1 where a one-pixel box filter of a straight edge is.
const EDGE_HALF_WIDTH: f32 = 0.5;

/// Where the text goes in the picture.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextLayout {
    pub width: u32,
    pub height: u32,
    /// The pen's start, in pixels from the left edge.
    pub pen_x: f32,
    /// The baseline, in pixels from the top edge.
    pub baseline: f32,
}

/// One glyph quad in pixels (y down) with its atlas rectangle.
#[derive(Debug, Clone, Copy)]
struct Quad {
    left: f32,
    top: f32,
    right: f32,
    bottom: f32,
    glyph: hfont::Glyph,
}

/// The picture's size and origin for `text` at `px` pixels per em.
pub fn layout(font: &HFont, text: &str, px: u32) -> Result<TextLayout, TextError> {
    Ok(place(font, text, px)?.0)
}

/// Why a text cannot be drawn with a font, or a font's atlas does not match it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextError {
    #[error("the text size must be at least 1 pixel per em")]
    ZeroSize,
    #[error("the text has {0} characters, at most {MAX_TEXT_CHARS}")]
    TooLong(usize),
    #[error("the font has no glyphs")]
    NoGlyphs,
    #[error(
        "the text would be a {width}x{height} picture at {px} px per em (at most {MAX_SIDE} \
         on a side and {MAX_PIXELS} pixels): use a shorter text or a smaller size"
    )]
    TooBig { width: f32, height: f32, px: u32 },
    #[error("the atlas is {width}x{height} but the .hfont says {header_width}x{header_height}")]
    AtlasSize {
        width: u32,
        height: u32,
        header_width: u16,
        header_height: u16,
    },
    #[error("the atlas holds {held} bytes, not {width}x{height} RGBA8")]
    AtlasBytes {
        held: usize,
        width: u32,
        height: u32,
    },
}

fn place(font: &HFont, text: &str, px: u32) -> Result<(TextLayout, Vec<Quad>), TextError> {
    if px == 0 {
        return Err(TextError::ZeroSize);
    }
    let count = text.chars().count();
    if count > MAX_TEXT_CHARS {
        return Err(TextError::TooLong(count));
    }
    let h = &font.header;
    let px_f = px as f32;
    let margin = (px_f / 4.0).ceil();
    let pen_x = margin;
    let baseline = margin + (h.ascent.max(0.0) * px_f).ceil();
    let mut pen = 0.0f32;
    let mut right_most = pen_x;
    let mut previous: Option<u32> = None;
    let mut quads = Vec::new();
    for c in text.chars() {
        let cp = u32::from(c);
        if let Some(p) = previous {
            pen += font.kerning(p, cp);
        }
        let Some(g) = font.glyph(cp) else {
            return Err(TextError::NoGlyphs);
        };
        if !g.is_blank() {
            let q = Quad {
                left: pen_x + (pen + g.plane_left) * px_f,
                right: pen_x + (pen + g.plane_right) * px_f,
                top: baseline - g.plane_top * px_f,
                bottom: baseline - g.plane_bottom * px_f,
                glyph: *g,
            };
            right_most = right_most.max(q.right);
            quads.push(q);
        }
        pen += g.advance;
        previous = Some(cp);
    }
    right_most = right_most.max(pen_x + pen * px_f);
    let width = (right_most + margin).ceil();
    let height = (baseline + (-h.descent).max(0.0) * px_f + margin).ceil();
    let too_big = !(width.is_finite() && height.is_finite())
        || width > MAX_SIDE as f32
        || height > MAX_SIDE as f32
        || (width as u64) * (height as u64) > MAX_PIXELS;
    if too_big {
        return Err(TextError::TooBig { width, height, px });
    }
    let layout = TextLayout {
        width: (width as u32).max(1),
        height: (height as u32).max(1),
        pen_x,
        baseline,
    };
    Ok((layout, quads))
}

/// The atlas's texels, checked against the header.
pub struct Atlas<'a> {
    width: u32,
    height: u32,
    rgba: &'a [u8],
}

impl<'a> Atlas<'a> {
    /// An RGBA8 atlas of the header's size.
    pub fn new(font: &HFont, width: u32, height: u32, rgba: &'a [u8]) -> Result<Self, TextError> {
        let h = &font.header;
        if (width, height) != (u32::from(h.atlas_width), u32::from(h.atlas_height)) {
            return Err(TextError::AtlasSize {
                width,
                height,
                header_width: h.atlas_width,
                header_height: h.atlas_height,
            });
        }
        if rgba.len() as u64 != u64::from(width) * u64::from(height) * 4 {
            return Err(TextError::AtlasBytes {
                held: rgba.len(),
                width,
                height,
            });
        }
        Ok(Self {
            width,
            height,
            rgba,
        })
    }

    /// The stored distance value (0..1) at texel coordinates, bilinear, clamped to the
    /// edge: R for an SDF, the median of R, G, B for an MSDF (each channel interpolated
    /// on its own, as a GPU does, before the median).
    fn sample(&self, x: f32, y: f32, msdf: bool) -> f32 {
        let fx = x - 0.5;
        let fy = y - 0.5;
        let x0 = fx.floor();
        let y0 = fy.floor();
        let (tx, ty) = (fx - x0, fy - y0);
        let clamp = |v: f32, n: u32| (v.max(0.0) as u32).min(n - 1) as usize;
        let xs = [clamp(x0, self.width), clamp(x0 + 1.0, self.width)];
        let ys = [clamp(y0, self.height), clamp(y0 + 1.0, self.height)];
        let mut c = [0.0f32; 3];
        for (j, &yy) in ys.iter().enumerate() {
            for (i, &xx) in xs.iter().enumerate() {
                let w = if i == 0 { 1.0 - tx } else { tx } * if j == 0 { 1.0 - ty } else { ty };
                let at = (yy * self.width as usize + xx) * 4;
                for (k, v) in c.iter_mut().enumerate() {
                    *v += w * f32::from(self.rgba[at + k]);
                }
            }
        }
        let v = if msdf {
            c[0].min(c[1]).max(c[0].max(c[1]).min(c[2]))
        } else {
            c[0]
        };
        v / 255.0
    }
}

/// Coverage (0..255) of `text` at `px` pixels per em, one byte per pixel, rows top down.
pub fn render_coverage(
    font: &HFont,
    atlas: &Atlas,
    text: &str,
    px: u32,
) -> Result<(TextLayout, Vec<u8>), TextError> {
    let (layout, quads) = place(font, text, px)?;
    let (w, h) = (layout.width as usize, layout.height as usize);
    let mut coverage = vec![0u8; w * h];
    let msdf = font.is_msdf();
    let (aw, ah) = (atlas.width as f32, atlas.height as f32);
    let range = font.header.distance_range;
    let edge = font.header.edge_value;
    for q in &quads {
        let g = &q.glyph;
        // Screen pixels per atlas texel, from the quad's size on both.
        let texels_wide = (g.uv_right - g.uv_left) * aw;
        let px_per_texel = (q.right - q.left) / texels_wide.max(f32::MIN_POSITIVE);
        let x_start = q.left.floor().max(0.0) as usize;
        let y_start = q.top.floor().max(0.0) as usize;
        let x_end = (q.right.ceil().max(0.0) as usize).min(w);
        let y_end = (q.bottom.ceil().max(0.0) as usize).min(h);
        for y in y_start..y_end {
            let cy = y as f32 + 0.5;
            let v = g.uv_top + (cy - q.top) / (q.bottom - q.top) * (g.uv_bottom - g.uv_top);
            if !(g.uv_top..=g.uv_bottom).contains(&v) {
                continue;
            }
            for x in x_start..x_end {
                let cx = x as f32 + 0.5;
                let u = g.uv_left + (cx - q.left) / (q.right - q.left) * (g.uv_right - g.uv_left);
                if !(g.uv_left..=g.uv_right).contains(&u) {
                    continue;
                }
                let s = atlas.sample(u * aw, v * ah, msdf);
                let d = (s - edge) * range * px_per_texel;
                let c = smoothstep(-EDGE_HALF_WIDTH, EDGE_HALF_WIDTH, d);
                let c = (c * 255.0).round() as u8;
                let out = &mut coverage[y * w + x];
                // Overlapping quads (kerned pairs, padding) keep the stronger ink.
                *out = (*out).max(c);
            }
        }
    }
    Ok((layout, coverage))
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Black text on white from a coverage buffer.
pub fn coverage_image(layout: &TextLayout, coverage: &[u8]) -> Option<image::RgbaImage> {
    let rgba = coverage
        .iter()
        .flat_map(|&c| {
            let v = 255 - c;
            [v, v, v, 255]
        })
        .collect();
    image::RgbaImage::from_raw(layout.width, layout.height, rgba)
}

/// Draws `text` from the `.hfont` at `path` and the atlas beside it (the same path with
/// `.ktx2`, where a build writes it).
pub fn preview_font(path: &Path, text: &str, px: u32) -> Result<Preview, PreviewError> {
    let bytes = std::fs::read(path).map_err(|e| PreviewError::io(path, e))?;
    let font = hfont::read(&bytes).map_err(|e| PreviewError::read(path, e))?;
    if let Some(p) = hfont::validate(&bytes).first() {
        return Err(PreviewError::read(path, p));
    }
    let atlas_path = path.with_extension("ktx2");
    let atlas_bytes = std::fs::read(&atlas_path).map_err(|e| PreviewError::io(&atlas_path, e))?;
    let ktx = ktx2::read(&atlas_bytes).map_err(|e| PreviewError::read(&atlas_path, e))?;
    if ktx.pixel_format() != Some((PixelFormat::Rgba8, false)) || ktx.face_count != 1 {
        return Err(PreviewError::read(
            &atlas_path,
            "a font atlas is one linear RGBA8 image",
        ));
    }
    let level = ktx
        .levels
        .first()
        .ok_or_else(|| PreviewError::read(&atlas_path, "the atlas has no level"))?;
    let atlas = Atlas::new(&font, ktx.width, ktx.height.max(1), &level.data)
        .map_err(|e| PreviewError::read(&atlas_path, e))?;
    let (layout, coverage) = render_coverage(&font, &atlas, text, px)
        .map_err(|e| PreviewError::Option(e.to_string()))?;
    let image = coverage_image(&layout, &coverage)
        .ok_or_else(|| PreviewError::read(path, "text picture has the wrong size"))?;
    Ok(Preview {
        image,
        triangles: 0,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
