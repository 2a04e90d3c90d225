//! The `.hfont` descriptor: a font's header and first glyphs as `inspect` and `info` show
//! them.

use super::{HFont, MAGIC, VERSION};
use crate::describe::{hex, size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::hman::EntryKind;
use crate::FormatKind;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HFont,
    name: ".hfont",
    extensions: &["hfont"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    entry_kinds: &[EntryKind::Font],
    validate: super::validate,
    describe,
    stats,
    tally: None,
};

/// Glyphs listed by `inspect`: the first few are enough to see the layout; `--json` has
/// the counts and header.
const GLYPH_ROWS: usize = 8;

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    Ok(Description::Document(document(bytes)?))
}

fn document(bytes: &[u8]) -> Result<Document, ReadError> {
    let f = super::read(bytes)?;
    let h = &f.header;
    let mut doc = Document::new(format!(".hfont v{VERSION} ({})", size(bytes.len() as u64)));
    doc.fact("glyphs", f.glyphs.len());
    doc.fact("kerning pairs", f.kerning.len());
    doc.fact(
        "atlas",
        format!(
            "{} x {} {}, id {}",
            h.atlas_width,
            h.atlas_height,
            if f.is_msdf() {
                "MSDF (RGB, median)"
            } else {
                "SDF (one channel)"
            },
            hex(h.atlas_tex)
        ),
    );
    doc.fact(
        "distance",
        format!(
            "range {} texels, edge value {:.3}",
            h.distance_range, h.edge_value
        ),
    );
    doc.fact(
        "line (em)",
        format!(
            "ascent {:.4}, descent {:.4}, line gap {:.4}",
            h.ascent, h.descent, h.line_gap
        ),
    );
    let t = doc.table(
        "glyphs",
        &[
            "codepoint",
            "char",
            "advance",
            "plane (l b r t)",
            "uv (l t r b)",
        ],
    );
    for g in f.glyphs.iter().take(GLYPH_ROWS) {
        let ch = char::from_u32(g.codepoint)
            .filter(|c| !c.is_control())
            .map_or_else(|| ".notdef".to_string(), |c| format!("{c:?}"));
        t.row(vec![
            format!("U+{:04X}", g.codepoint),
            ch,
            format!("{:.4}", g.advance),
            format!(
                "{:.3} {:.3} {:.3} {:.3}",
                g.plane_left, g.plane_bottom, g.plane_right, g.plane_top
            ),
            format!(
                "{:.4} {:.4} {:.4} {:.4}",
                g.uv_left, g.uv_top, g.uv_right, g.uv_bottom
            ),
        ]);
    }
    if f.glyphs.len() > GLYPH_ROWS {
        t.row(vec![
            format!("... {} more", f.glyphs.len() - GLYPH_ROWS),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    Ok(doc)
}

/// `191 glyphs, 1304 kerning pairs, SDF 512x512`.
fn summary(f: &HFont) -> String {
    format!(
        "{} glyphs, {} kerning pairs, {} {}x{}",
        f.glyphs.len(),
        f.kerning.len(),
        if f.is_msdf() { "MSDF" } else { "SDF" },
        f.header.atlas_width,
        f.header.atlas_height
    )
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    Ok(Stats {
        font: Some(summary(&super::read(bytes)?)),
        ..Stats::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hfont::{write, Glyph, HFontHeader, FLAG_MSDF};

    #[test]
    fn shows_the_header_and_the_first_glyphs() {
        let mut font = HFont {
            header: HFontHeader {
                atlas_tex: 0xabc,
                ascent: 0.9,
                descent: -0.25,
                line_gap: 0.1,
                distance_range: 4.0,
                edge_value: 0.5,
                atlas_width: 512,
                atlas_height: 512,
                flags: FLAG_MSDF,
            },
            glyphs: vec![Glyph::default()],
            kerning: vec![],
        };
        for cp in 0x41..0x4B {
            font.glyphs.push(Glyph {
                codepoint: cp,
                advance: 0.6,
                ..Default::default()
            });
        }
        let bytes = write(&font).unwrap();
        let doc = document(&bytes).unwrap();
        assert_eq!(doc.fact_value("glyphs"), Some("11"));
        assert_eq!(doc.fact_value("kerning pairs"), Some("0"));
        assert_eq!(
            doc.fact_value("atlas"),
            Some("512 x 512 MSDF (RGB, median), id 0000000000000abc")
        );
        assert_eq!(
            doc.fact_value("distance"),
            Some("range 4 texels, edge value 0.500")
        );
        let rows = &doc.tables[0].rows;
        assert_eq!(rows.len(), GLYPH_ROWS + 1);
        assert_eq!(
            (rows[0][0].as_str(), rows[0][1].as_str()),
            ("U+0000", ".notdef")
        );
        assert_eq!(
            (rows[1][0].as_str(), rows[1][1].as_str()),
            ("U+0041", "'A'")
        );
        assert_eq!(rows[GLYPH_ROWS][0], "... 3 more");
        assert_eq!(
            stats(&bytes).unwrap().font.as_deref(),
            Some("11 glyphs, 0 kerning pairs, MSDF 512x512")
        );
    }
}
