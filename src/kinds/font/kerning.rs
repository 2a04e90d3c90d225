//! Kerning between the glyphs of a charset: GPOS pair adjustments of the `kern` feature
//! (formats 1 and 2) and the legacy `kern` table; GPOS wins for a pair both name.
//!
//! One table serves every script, so the lookups are those of every `kern` feature of
//! the font (applied in lookup order and summed, as a shaper applies them); within one
//! lookup the first subtable that applies to a pair decides it, as OpenType says. Only the
//! first glyph's x advance (valueRecord1.xAdvance) is kerning in the `.hfont` sense: a
//! placement moves one glyph only, which a table of advances cannot say.

use std::collections::BTreeMap;
use ttf_parser::gpos::{PairAdjustment, PositioningSubtable};
use ttf_parser::{Face, GlyphId, Tag};

/// Kerning of glyph pairs in font units.
pub type GlyphKerning = BTreeMap<(GlyphId, GlyphId), i32>;

/// The kerning among `glyphs` (distinct, sorted); pairs of zero are left out.
pub fn kerning(face: &Face, glyphs: &[GlyphId]) -> GlyphKerning {
    let gpos = gpos_kerning(face, glyphs);
    let mut out = legacy_kerning(face, glyphs);
    // GPOS decides every pair it has an applicable subtable for, zero included.
    for (pair, value) in gpos {
        out.insert(pair, value);
    }
    out.retain(|_, v| *v != 0);
    out
}

/// Pairs a GPOS `kern` feature decides, with their summed values.
fn gpos_kerning(face: &Face, glyphs: &[GlyphId]) -> GlyphKerning {
    let mut total = GlyphKerning::new();
    let Some(gpos) = face.tables().gpos else {
        return total;
    };
    let kern = Tag::from_bytes(b"kern");
    let mut lookups: Vec<u16> = gpos
        .features
        .into_iter()
        .filter(|f| f.tag == kern)
        .flat_map(|f| f.lookup_indices)
        .collect();
    lookups.sort_unstable();
    lookups.dedup();
    let mut decided = vec![false; glyphs.len()];
    for index in lookups {
        let Some(lookup) = gpos.lookups.get(index) else {
            continue;
        };
        let pairs: Vec<PairAdjustment> = lookup
            .subtables
            .into_iter::<PositioningSubtable>()
            .filter_map(|s| match s {
                PositioningSubtable::Pair(p) => Some(p),
                _ => None,
            })
            .collect();
        if pairs.is_empty() {
            continue;
        }
        for &left in glyphs {
            decided.iter_mut().for_each(|d| *d = false);
            for subtable in &pairs {
                apply_subtable(subtable, left, glyphs, &mut decided, &mut total);
            }
        }
    }
    total
}

/// Adds the values of one pair subtable for `left` to `total`, for the right glyphs no
/// earlier subtable of the lookup decided.
fn apply_subtable(
    subtable: &PairAdjustment,
    left: GlyphId,
    glyphs: &[GlyphId],
    decided: &mut [bool],
    total: &mut GlyphKerning,
) {
    let Some(coverage_index) = subtable.coverage().get(left) else {
        return;
    };
    match subtable {
        PairAdjustment::Format1 { sets, .. } => {
            let Some(set) = sets.get(coverage_index) else {
                return;
            };
            for (i, &right) in glyphs.iter().enumerate() {
                if decided[i] {
                    continue;
                }
                // A pair set applies only to the second glyphs it lists.
                if let Some((first, _)) = set.get(right) {
                    decided[i] = true;
                    *total.entry((left, right)).or_insert(0) += i32::from(first.x_advance);
                }
            }
        }
        PairAdjustment::Format2 {
            classes, matrix, ..
        } => {
            let class1 = classes.0.get(left);
            for (i, &right) in glyphs.iter().enumerate() {
                if decided[i] {
                    continue;
                }
                // A class pair applies to any covered first glyph, zero or not.
                if let Some((first, _)) = matrix.get((class1, classes.1.get(right))) {
                    decided[i] = true;
                    *total.entry((left, right)).or_insert(0) += i32::from(first.x_advance);
                }
            }
        }
    }
}

/// Horizontal kerning of the legacy `kern` table, summed over its subtables.
fn legacy_kerning(face: &Face, glyphs: &[GlyphId]) -> GlyphKerning {
    let mut total = GlyphKerning::new();
    let Some(kern) = face.tables().kern else {
        return total;
    };
    for subtable in kern.subtables {
        if !subtable.horizontal
            || subtable.variable
            || subtable.has_cross_stream
            || subtable.has_state_machine
        {
            continue;
        }
        if let ttf_parser::kern::Format::Format0(table) = &subtable.format {
            // Walking the table's pairs costs its size, not the charset's square.
            for pair in table.pairs {
                let (l, r) = (pair.left(), pair.right());
                if glyphs.binary_search(&l).is_ok() && glyphs.binary_search(&r).is_ok() {
                    *total.entry((l, r)).or_insert(0) += i32::from(pair.value);
                }
            }
            continue;
        }
        for &l in glyphs {
            for &r in glyphs {
                if let Some(v) = subtable.glyphs_kerning(l, r).filter(|&v| v != 0) {
                    *total.entry((l, r)).or_insert(0) += i32::from(v);
                }
            }
        }
    }
    total
}
