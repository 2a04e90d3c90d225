//! `.hfont` v1: font metrics, atlas rectangles and kerning beside a distance-field atlas
//! (`shared/spec/formats.md`, the original assetc's layout, so its SDK reads ours).
//!
//! Hand-written because the layout is our own. [`read`] checks the structure (magic,
//! version, a size exact to the counts); [`validate`] checks the structure and every rule
//! of the contract. [`write`] refuses a font [`validate`] would reject, so a written file
//! is always valid.

mod format;
pub use format::FORMAT;

use super::bytes::{OutOfBounds, Reader, WriteLe};
use super::Problem;
use thiserror::Error;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HFNT");
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 52;
pub const GLYPH_SIZE: usize = 40;
pub const KERNING_SIZE: usize = 12;
/// Header flag: a multi-channel (MSDF, RGB, decoded by the median) atlas; otherwise one
/// channel.
pub const FLAG_MSDF: u32 = 1;
/// Byte offset of the header's flags, for messages.
const FLAGS_OFFSET: u64 = 48;

/// The 52-byte header, counts aside (they follow from the tables).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HFontHeader {
    /// The atlas's manifest hash (fnv1a64 of the font's ref).
    pub atlas_tex: u64,
    /// Em units above the baseline.
    pub ascent: f32,
    /// Em units below the baseline: zero or negative.
    pub descent: f32,
    pub line_gap: f32,
    /// The distance an atlas value spans, in atlas texels: a value `v` is the signed
    /// distance `(v - edge_value) * distance_range` texels, positive inside.
    pub distance_range: f32,
    /// The normalised atlas value on the outline.
    pub edge_value: f32,
    pub atlas_width: u16,
    pub atlas_height: u16,
    pub flags: u32,
}

/// One glyph; every metric in em units.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Glyph {
    /// Unicode scalar value; 0 is the font's `.notdef`, the fallback.
    pub codepoint: u32,
    pub advance: f32,
    /// The quad around the pen on the baseline, y up.
    pub plane_left: f32,
    pub plane_bottom: f32,
    pub plane_right: f32,
    pub plane_top: f32,
    /// Normalised atlas rectangle, top-left origin.
    pub uv_left: f32,
    pub uv_top: f32,
    pub uv_right: f32,
    pub uv_bottom: f32,
}

impl Glyph {
    /// A glyph with nothing to draw (space): zero-area plane and uv rectangles.
    pub fn is_blank(&self) -> bool {
        self.plane_left == self.plane_right || self.plane_bottom == self.plane_top
    }
}

/// `advance` em are added to `left`'s advance when `right` follows it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KerningPair {
    pub left: u32,
    pub right: u32,
    pub advance: f32,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct HFont {
    pub header: HFontHeader,
    /// Sorted strictly by codepoint; glyph 0 has codepoint 0.
    pub glyphs: Vec<Glyph>,
    /// Sorted strictly by (left, right).
    pub kerning: Vec<KerningPair>,
}

impl HFont {
    pub fn is_msdf(&self) -> bool {
        self.header.flags & FLAG_MSDF != 0
    }

    /// The glyph of a codepoint, or glyph 0 (`.notdef`) when the font has none.
    pub fn glyph(&self, codepoint: u32) -> Option<&Glyph> {
        match self
            .glyphs
            .binary_search_by_key(&codepoint, |g| g.codepoint)
        {
            Ok(i) => self.glyphs.get(i),
            Err(_) => self.glyphs.first(),
        }
    }

    /// The kerning between two codepoints in em (0 when the pair is not listed).
    pub fn kerning(&self, left: u32, right: u32) -> f32 {
        self.kerning
            .binary_search_by_key(&(left, right), |k| (k.left, k.right))
            .map_or(0.0, |i| self.kerning[i].advance)
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum HFontError {
    #[error("truncated .hfont: {0}")]
    Truncated(#[from] OutOfBounds),
    #[error("not a .hfont file (magic {0:#010x})")]
    BadMagic(u32),
    #[error("unsupported .hfont version {0} (expected 1)")]
    BadVersion(u32),
    #[error("at byte {offset}: {message}")]
    Malformed { offset: u64, message: String },
    /// A font [`write`] refuses: it breaks a rule of the format.
    #[error("{0}")]
    Invalid(String),
}

/// The file size the counts ask for (u64: forged counts cannot overflow it).
pub fn file_size(glyph_count: u32, kerning_count: u32) -> u64 {
    HEADER_SIZE as u64
        + u64::from(glyph_count) * GLYPH_SIZE as u64
        + u64::from(kerning_count) * KERNING_SIZE as u64
}

/// Serialises `font`, refusing one that breaks a rule of the format.
pub fn write(font: &HFont) -> Result<Vec<u8>, HFontError> {
    let too_many = |what: &str| HFontError::Invalid(format!("too many {what} for a u32 count"));
    let glyph_count = u32::try_from(font.glyphs.len()).map_err(|_| too_many("glyphs"))?;
    let kerning_count = u32::try_from(font.kerning.len()).map_err(|_| too_many("kerning pairs"))?;
    if let Some(p) = rule_problems(font).into_iter().next() {
        return Err(HFontError::Invalid(p.message));
    }
    let h = &font.header;
    let mut out = Vec::with_capacity(file_size(glyph_count, kerning_count) as usize);
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(glyph_count);
    out.put_u32(kerning_count);
    out.put_u64(h.atlas_tex);
    for v in [
        h.ascent,
        h.descent,
        h.line_gap,
        h.distance_range,
        h.edge_value,
    ] {
        out.put_f32(v);
    }
    out.put_u16(h.atlas_width);
    out.put_u16(h.atlas_height);
    out.put_u32(h.flags);
    for g in &font.glyphs {
        out.put_u32(g.codepoint);
        for v in glyph_floats(g) {
            out.put_f32(v);
        }
    }
    for k in &font.kerning {
        out.put_u32(k.left);
        out.put_u32(k.right);
        out.put_f32(k.advance);
    }
    Ok(out)
}

/// The nine floats of a glyph in file order.
fn glyph_floats(g: &Glyph) -> [f32; 9] {
    [
        g.advance,
        g.plane_left,
        g.plane_bottom,
        g.plane_right,
        g.plane_top,
        g.uv_left,
        g.uv_top,
        g.uv_right,
        g.uv_bottom,
    ]
}

/// Reads a `.hfont`, checking its structure (magic, version, size exact to the counts).
/// The rules on values are [`validate`]'s business.
pub fn read(bytes: &[u8]) -> Result<HFont, HFontError> {
    let mut r = Reader::new(bytes);
    let magic = r.u32("magic")?;
    if magic != MAGIC {
        return Err(HFontError::BadMagic(magic));
    }
    let version = r.u32("version")?;
    if version != VERSION {
        return Err(HFontError::BadVersion(version));
    }
    let glyph_count = r.u32("glyphCount")?;
    let kerning_count = r.u32("kerningCount")?;
    let header = HFontHeader {
        atlas_tex: r.u64("atlasTex")?,
        ascent: r.f32("ascent")?,
        descent: r.f32("descent")?,
        line_gap: r.f32("lineGap")?,
        distance_range: r.f32("distanceRange")?,
        edge_value: r.f32("edgeValue")?,
        atlas_width: r.u16("atlasWidth")?,
        atlas_height: r.u16("atlasHeight")?,
        flags: r.u32("flags")?,
    };
    // Checked before reading the tables, so a forged count never reserves memory.
    let expected = file_size(glyph_count, kerning_count);
    if bytes.len() as u64 != expected {
        return Err(HFontError::Malformed {
            offset: 8,
            message: format!(
                "the file is {} bytes but {glyph_count} glyphs and {kerning_count} kerning pairs make {expected}",
                bytes.len()
            ),
        });
    }
    let mut glyphs = Vec::with_capacity(glyph_count as usize);
    for _ in 0..glyph_count {
        glyphs.push(Glyph {
            codepoint: r.u32("glyph codepoint")?,
            advance: r.f32("glyph advance")?,
            plane_left: r.f32("glyph planeLeft")?,
            plane_bottom: r.f32("glyph planeBottom")?,
            plane_right: r.f32("glyph planeRight")?,
            plane_top: r.f32("glyph planeTop")?,
            uv_left: r.f32("glyph uvLeft")?,
            uv_top: r.f32("glyph uvTop")?,
            uv_right: r.f32("glyph uvRight")?,
            uv_bottom: r.f32("glyph uvBottom")?,
        });
    }
    let mut kerning = Vec::with_capacity(kerning_count as usize);
    for _ in 0..kerning_count {
        kerning.push(KerningPair {
            left: r.u32("kerning left")?,
            right: r.u32("kerning right")?,
            advance: r.f32("kerning advance")?,
        });
    }
    Ok(HFont {
        header,
        glyphs,
        kerning,
    })
}

/// Every rule `bytes` breaks; empty when the file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    match read(bytes) {
        Ok(font) => rule_problems(&font),
        Err(HFontError::Malformed { offset, message }) => vec![Problem::at(offset, message)],
        Err(HFontError::Truncated(e)) => {
            vec![Problem::at(e.offset as u64, format!("truncated: {e}"))]
        }
        Err(e) => vec![Problem::at(0, e.to_string())],
    }
}

fn glyph_offset(i: usize) -> u64 {
    (HEADER_SIZE + i * GLYPH_SIZE) as u64
}

fn kerning_offset(glyphs: usize, i: usize) -> u64 {
    (HEADER_SIZE + glyphs * GLYPH_SIZE + i * KERNING_SIZE) as u64
}

/// The rules of the contract on a font's values, each broken one a problem at the offset
/// of the field (or record) it is about.
fn rule_problems(font: &HFont) -> Vec<Problem> {
    let mut problems = Vec::new();
    let h = &font.header;
    let header_floats = [
        (24, "ascent", h.ascent),
        (28, "descent", h.descent),
        (32, "lineGap", h.line_gap),
        (36, "distanceRange", h.distance_range),
        (40, "edgeValue", h.edge_value),
    ];
    for (at, name, v) in header_floats {
        if !v.is_finite() {
            problems.push(Problem::at(at, format!("{name} {v} is not finite")));
        }
    }
    if h.descent > 0.0 {
        problems.push(Problem::at(
            28,
            format!(
                "descent {} is positive (it is below the baseline)",
                h.descent
            ),
        ));
    }
    if h.distance_range <= 0.0 {
        problems.push(Problem::at(
            36,
            format!("distanceRange {} is not positive", h.distance_range),
        ));
    }
    if !(0.0..=1.0).contains(&h.edge_value) {
        problems.push(Problem::at(
            40,
            format!("edgeValue {} is outside [0, 1]", h.edge_value),
        ));
    }
    if h.atlas_width == 0 || h.atlas_height == 0 {
        problems.push(Problem::at(
            44,
            format!("atlas size {}x{} is empty", h.atlas_width, h.atlas_height),
        ));
    }
    if h.flags & !FLAG_MSDF != 0 {
        problems.push(Problem::at(
            FLAGS_OFFSET,
            format!("flags {:#x} set bits other than bit 0", h.flags),
        ));
    }
    match font.glyphs.first() {
        None => problems.push(Problem::at(
            8,
            "glyphCount is 0 (glyph 0, .notdef, is required)",
        )),
        Some(g) if g.codepoint != 0 => problems.push(Problem::at(
            glyph_offset(0),
            format!(
                "glyph 0 has codepoint {} (it must be 0, the .notdef)",
                g.codepoint
            ),
        )),
        Some(_) => {}
    }
    for (i, g) in font.glyphs.iter().enumerate() {
        problems.extend(glyph_problem(g).map(|m| {
            Problem::at(
                glyph_offset(i),
                format!("glyph {i} (U+{:04X}): {m}", g.codepoint),
            )
        }));
        if let Some(prev) = i.checked_sub(1).map(|p| font.glyphs[p].codepoint) {
            if g.codepoint <= prev {
                problems.push(Problem::at(
                    glyph_offset(i),
                    format!(
                        "glyph {i}: codepoint U+{:04X} does not follow U+{prev:04X} (glyphs are sorted strictly by codepoint)",
                        g.codepoint
                    ),
                ));
            }
        }
    }
    let sorted = font
        .glyphs
        .windows(2)
        .all(|w| w[0].codepoint < w[1].codepoint);
    let present = |cp: u32| {
        if sorted {
            font.glyphs
                .binary_search_by_key(&cp, |g| g.codepoint)
                .is_ok()
        } else {
            font.glyphs.iter().any(|g| g.codepoint == cp)
        }
    };
    let n = font.glyphs.len();
    for (i, k) in font.kerning.iter().enumerate() {
        let at = kerning_offset(n, i);
        if !k.advance.is_finite() {
            problems.push(Problem::at(
                at,
                format!("kerning pair {i}: advance {} is not finite", k.advance),
            ));
        }
        for (side, cp) in [("left", k.left), ("right", k.right)] {
            if cp == 0 || !present(cp) {
                problems.push(Problem::at(
                    at,
                    format!("kerning pair {i}: {side} U+{cp:04X} is not a glyph of the font"),
                ));
            }
        }
        if let Some(prev) = i.checked_sub(1).map(|p| &font.kerning[p]) {
            if (k.left, k.right) <= (prev.left, prev.right) {
                problems.push(Problem::at(
                    at,
                    format!(
                        "kerning pair {i}: (U+{:04X}, U+{:04X}) does not follow (U+{:04X}, U+{:04X}) (pairs are sorted strictly by left, then right)",
                        k.left, k.right, prev.left, prev.right
                    ),
                ));
            }
        }
    }
    problems
}

/// The first rule a glyph's values break, if any.
fn glyph_problem(g: &Glyph) -> Option<String> {
    let floats = glyph_floats(g);
    if let Some(v) = floats.iter().find(|v| !v.is_finite()) {
        return Some(format!("metric {v} is not finite"));
    }
    let uv = &floats[5..];
    if let Some(v) = uv.iter().find(|v| !(0.0..=1.0).contains(*v)) {
        return Some(format!("uv {v} is outside [0, 1]"));
    }
    if g.plane_left > g.plane_right || g.plane_bottom > g.plane_top {
        return Some(format!(
            "plane rectangle ({}, {})..({}, {}) is inverted",
            g.plane_left, g.plane_bottom, g.plane_right, g.plane_top
        ));
    }
    if g.uv_left > g.uv_right || g.uv_top > g.uv_bottom {
        return Some(format!(
            "uv rectangle ({}, {})..({}, {}) is inverted (top-left origin)",
            g.uv_left, g.uv_top, g.uv_right, g.uv_bottom
        ));
    }
    None
}

#[cfg(test)]
mod tests;
