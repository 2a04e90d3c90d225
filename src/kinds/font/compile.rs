//! One parsed face and a charset into `.hfont` records and the atlas texels.

use super::field::{self, TexelBox};
use super::kerning::kerning;
use super::outline::{outline, Outline};
use super::pack::shelf_pack;
use crate::formats::hfont::{Glyph, HFont, HFontHeader, KerningPair, FLAG_MSDF};
use super::settings::FontSettings;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use ttf_parser::{Face, GlyphId};

/// The normalised atlas value on the outline (see `field`).
pub const EDGE_VALUE: f32 = 0.5;
/// Kerning pairs one font may have: far above real fonts (thousands), it bounds the
/// `.hfont` a huge charset and a class-kerned font could otherwise make.
pub const MAX_KERNING_PAIRS: usize = 1 << 22;
/// Distance evaluations (texels x segments, summed over glyphs) one atlas may cost. An
/// 8192 atlas full of CJK glyphs of a hundred segments is about 2^33; a hostile font of
/// huge outlines stops here instead of running for hours.
pub const MAX_FIELD_WORK: u64 = 1 << 34;

/// What a face compiles to.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledFont {
    pub hfont: HFont,
    /// The atlas's RGBA8 texels, `atlas_size` square, top row first.
    pub atlas: Vec<u8>,
    /// Charset codepoints the font has no glyph for (they draw as `.notdef`).
    pub missing: Vec<u32>,
}

/// A glyph to place: its outline and texel box, when it draws anything.
struct Drawn {
    outline: Outline,
    bx: TexelBox,
}

/// Compiles `face` for `codepoints` (sorted, without 0). `atlas_tex` is the atlas's
/// manifest hash. Errors are messages for the font's `AssetError::Invalid`.
pub fn compile_face(
    face: &Face,
    codepoints: &BTreeSet<u32>,
    settings: &FontSettings,
    atlas_tex: u64,
) -> Result<CompiledFont, FontCompileError> {
    let units_per_em = f64::from(face.units_per_em());
    let glyph_size = f64::from(settings.glyph_size);
    let scale = glyph_size / units_per_em;
    let range = f64::from(settings.spread);
    // Half the range each side: the field reaches its far value at the box's edge.
    let pad = (range / 2.0).ceil() as u32;
    let side = settings.atlas_size;

    // Codepoint 0 is the font's own glyph 0, `.notdef`; a codepoint the cmap maps to
    // glyph 0 is one the font lacks.
    let mut entries: Vec<(u32, GlyphId)> = vec![(0, GlyphId(0))];
    let mut missing = Vec::new();
    for &cp in codepoints {
        match char::from_u32(cp).and_then(|c| face.glyph_index(c)) {
            Some(g) if g.0 != 0 => entries.push((cp, g)),
            _ => missing.push(cp),
        }
    }
    // Each glyph is drawn once, however many codepoints share it (space and no-break
    // space), in the order of its first codepoint.
    let mut glyph_order: Vec<(u32, GlyphId)> = Vec::new();
    let mut seen = BTreeSet::new();
    for &(cp, g) in &entries {
        if seen.insert(g) {
            glyph_order.push((cp, g));
        }
    }
    let mut drawn: BTreeMap<GlyphId, Drawn> = BTreeMap::new();
    for &(cp, g) in &glyph_order {
        let Some(o) = outline(face, g).map_err(|source| FontCompileError::Outline {
            codepoint: cp,
            source,
        })?
        else {
            continue;
        };
        let bx = TexelBox::around(&o, scale, pad);
        if bx.width > side || bx.height > side {
            return Err(FontCompileError::TileTooLarge {
                codepoint: cp,
                width: bx.width,
                height: bx.height,
                side,
                glyph_size: settings.glyph_size,
                spread: settings.spread,
            });
        }
        drawn.insert(g, Drawn { outline: o, bx });
    }

    // Tiles in order of first codepoint, so a charset always packs the same way.
    let tiles: Vec<(u32, GlyphId)> = glyph_order
        .iter()
        .copied()
        .filter(|(_, g)| drawn.contains_key(g))
        .collect();
    let sizes: Vec<(u32, u32)> = tiles
        .iter()
        .map(|(_, g)| drawn.get(g).map_or((0, 0), |d| (d.bx.width, d.bx.height)))
        .collect();
    let placed = shelf_pack(&sizes, side).map_err(|i| FontCompileError::AtlasFull {
        glyphs: tiles.len(),
        side,
        glyph_size: settings.glyph_size,
        spread: settings.spread,
        first_left_out: tiles.get(i).map_or(0, |t| t.0),
        position: i + 1,
    })?;

    let work: u64 = tiles
        .iter()
        .map(|(_, g)| {
            let d = &drawn[g];
            u64::from(d.bx.width) * u64::from(d.bx.height) * d.outline.segment_count() as u64
        })
        .sum();
    if work > MAX_FIELD_WORK {
        return Err(FontCompileError::TooComplex { work });
    }
    // Each field is computed on its own, so running them in parallel gives the same
    // texels whatever the thread count.
    let fields: Vec<field::Tile> = tiles
        .par_iter()
        .map(|(_, g)| {
            let d = &drawn[g];
            field::render(&d.outline, &d.bx, scale, range, settings.msdf)
        })
        .collect();
    // Far outside everywhere no glyph is: 0 in every distance channel; alpha is 255 for
    // an SDF and the true distance (so 0) for an MSDF.
    let background: [u8; 4] = if settings.msdf {
        [0; 4]
    } else {
        [0, 0, 0, 255]
    };
    let row_bytes = side as usize * 4;
    let mut atlas: Vec<u8> = background
        .iter()
        .copied()
        .cycle()
        .take(row_bytes * side as usize)
        .collect();
    let mut rects: BTreeMap<GlyphId, ([f32; 4], [f32; 4])> = BTreeMap::new();
    for (((_, g), tile), &(ax, ay)) in tiles.iter().zip(&fields).zip(&placed) {
        let tile_row = tile.width as usize * 4;
        for (y, row) in tile.rgba.chunks(tile_row.max(1)).enumerate() {
            let at = (ay as usize + y) * row_bytes + ax as usize * 4;
            atlas[at..at + row.len()].copy_from_slice(row);
        }
        let bx = &drawn[g].bx;
        let em = |texels: i64| (texels as f64 / glyph_size) as f32;
        let uv = |texels: u32| (f64::from(texels) / f64::from(side)) as f32;
        rects.insert(
            *g,
            (
                [
                    em(bx.x0),
                    em(bx.y0),
                    em(bx.x0 + i64::from(bx.width)),
                    em(bx.y0 + i64::from(bx.height)),
                ],
                [uv(ax), uv(ay), uv(ax + bx.width), uv(ay + bx.height)],
            ),
        );
    }

    let em = |units: f64| (units / units_per_em) as f32;
    let glyphs: Vec<Glyph> = entries
        .iter()
        .map(|&(cp, g)| {
            let advance = em(f64::from(face.glyph_hor_advance(g).unwrap_or(0)));
            let (plane, uv) = rects.get(&g).copied().unwrap_or_default();
            Glyph {
                codepoint: cp,
                advance,
                plane_left: plane[0],
                plane_bottom: plane[1],
                plane_right: plane[2],
                plane_top: plane[3],
                uv_left: uv[0],
                uv_top: uv[1],
                uv_right: uv[2],
                uv_bottom: uv[3],
            }
        })
        .collect();

    let kerning = kerning_pairs(face, &entries[1..], units_per_em)?;
    let header = HFontHeader {
        atlas_tex,
        ascent: em(f64::from(face.ascender())),
        // Below the baseline whatever sign a damaged font gives it.
        descent: -em(f64::from(face.descender())).abs(),
        line_gap: em(f64::from(face.line_gap())),
        distance_range: settings.spread,
        edge_value: EDGE_VALUE,
        atlas_width: u16::try_from(side).map_err(|_| FontCompileError::AtlasSide(side))?,
        atlas_height: u16::try_from(side).map_err(|_| FontCompileError::AtlasSide(side))?,
        flags: if settings.msdf { FLAG_MSDF } else { 0 },
    };
    Ok(CompiledFont {
        hfont: HFont {
            header,
            glyphs,
            kerning,
        },
        atlas,
        missing,
    })
}

/// Why a face cannot be compiled with these settings, naming the glyph or setting to
/// change.
#[derive(Debug, thiserror::Error)]
pub enum FontCompileError {
    #[error("glyph of U+{codepoint:04X}: {source}")]
    Outline {
        codepoint: u32,
        source: super::outline::OutlineError,
    },
    #[error(
        "glyph of U+{codepoint:04X} needs a {width}x{height} texel tile but the atlas is \
         {side}x{side}: lower font.glyph_size ({glyph_size}) or font.spread ({spread}), or \
         raise font.atlas_size"
    )]
    TileTooLarge {
        codepoint: u32,
        width: u32,
        height: u32,
        side: u32,
        glyph_size: u32,
        spread: f32,
    },
    #[error(
        "the {glyphs} glyphs drawn do not fit a {side}x{side} atlas at font.glyph_size \
         {glyph_size} and font.spread {spread} (U+{first_left_out:04X}, glyph {position} of \
         them, is the first left out): raise font.atlas_size, or lower font.glyph_size or \
         font.spread, or shrink the charset"
    )]
    AtlasFull {
        glyphs: usize,
        side: u32,
        glyph_size: u32,
        spread: f32,
        first_left_out: u32,
        position: usize,
    },
    #[error(
        "the outlines are too complex for their atlas: {work} distance evaluations (at most \
         {MAX_FIELD_WORK}); lower font.glyph_size or shrink the charset"
    )]
    TooComplex { work: u64 },
    #[error("atlas size {0} is beyond 65535")]
    AtlasSide(u32),
    #[error("more than {MAX_KERNING_PAIRS} kerning pairs among the charset: shrink the charset")]
    TooManyKerningPairs,
}

/// The kerning among `entries` (codepoint, glyph), sorted by (left, right), in em.
fn kerning_pairs(
    face: &Face,
    entries: &[(u32, GlyphId)],
    units_per_em: f64,
) -> Result<Vec<KerningPair>, FontCompileError> {
    let mut codepoints_of: BTreeMap<GlyphId, Vec<u32>> = BTreeMap::new();
    for &(cp, g) in entries {
        codepoints_of.entry(g).or_default().push(cp);
    }
    let glyphs: Vec<GlyphId> = codepoints_of.keys().copied().collect();
    let mut pairs = Vec::new();
    for ((l, r), value) in kerning(face, &glyphs) {
        let advance = (f64::from(value) / units_per_em) as f32;
        for &left in &codepoints_of[&l] {
            for &right in &codepoints_of[&r] {
                pairs.push(KerningPair {
                    left,
                    right,
                    advance,
                });
            }
        }
        if pairs.len() > MAX_KERNING_PAIRS {
            return Err(FontCompileError::TooManyKerningPairs);
        }
    }
    pairs.sort_by_key(|k| (k.left, k.right));
    Ok(pairs)
}
