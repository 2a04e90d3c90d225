use super::*;
use crate::formats::hfont::{Glyph, HFontHeader, KerningPair};

const ATLAS: u32 = 32;
/// Atlas texels per em of the test glyph.
const TEXELS_PER_EM: f32 = 20.0;
const RANGE: f32 = 4.0;

/// A font of one glyph, `I`: an ink box [0.1, 0.4] x [0, 0.7] em, in a tile padded by
/// 0.1 em (2 texels) at atlas texel (1, 1), its field computed exactly; `.notdef` blank.
fn box_font(kern: f32, msdf: bool) -> (HFont, Vec<u8>) {
    let (tile_w, tile_h) = (10u32, 18u32);
    let mut rgba: Vec<u8> = [0, 0, 0, 255].repeat((ATLAS * ATLAS) as usize);
    for ty in 0..tile_h {
        for tx in 0..tile_w {
            // Texel centre in em, y up: the tile's top row is plane top 0.8.
            let x = (tx as f32 + 0.5) / TEXELS_PER_EM;
            let y = 0.8 - (ty as f32 + 0.5) / TEXELS_PER_EM;
            let dx = (0.1 - x).max(x - 0.4);
            let dy = (0.0 - y).max(y - 0.7);
            let outside = (dx.max(0.0).powi(2) + dy.max(0.0).powi(2)).sqrt();
            let inside = dx.max(dy).min(0.0);
            let d_texels = -(outside + inside) * TEXELS_PER_EM;
            let v = ((d_texels / RANGE + 0.5).clamp(0.0, 1.0) * 255.0).round() as u8;
            let at = (((1 + ty) * ATLAS + 1 + tx) * 4) as usize;
            rgba[at..at + 3].copy_from_slice(&[v, v, v]);
        }
    }
    let uv = |t: u32| t as f32 / ATLAS as f32;
    let font = HFont {
        header: HFontHeader {
            atlas_tex: 1,
            ascent: 0.8,
            descent: -0.2,
            line_gap: 0.0,
            distance_range: RANGE,
            edge_value: 0.5,
            atlas_width: ATLAS as u16,
            atlas_height: ATLAS as u16,
            flags: u32::from(msdf),
        },
        glyphs: vec![
            Glyph {
                codepoint: 0,
                advance: 0.25,
                ..Default::default()
            },
            Glyph {
                codepoint: u32::from('I'),
                advance: 0.5,
                plane_left: 0.0,
                plane_bottom: -0.1,
                plane_right: 0.5,
                plane_top: 0.8,
                uv_left: uv(1),
                uv_top: uv(1),
                uv_right: uv(1 + tile_w),
                uv_bottom: uv(1 + tile_h),
            },
        ],
        kerning: if kern == 0.0 {
            vec![]
        } else {
            vec![KerningPair {
                left: u32::from('I'),
                right: u32::from('I'),
                advance: kern,
            }]
        },
    };
    (font, rgba)
}

fn draw(font: &HFont, rgba: &[u8], text: &str, px: u32) -> (TextLayout, Vec<u8>) {
    let atlas = Atlas::new(font, ATLAS, ATLAS, rgba).unwrap();
    render_coverage(font, &atlas, text, px).unwrap()
}

fn ink(coverage: &[u8]) -> f32 {
    coverage.iter().map(|&c| f32::from(c) / 255.0).sum()
}

#[test]
fn a_glyph_covers_its_ink_box() {
    let (font, rgba) = box_font(0.0, false);
    let (layout, cov) = draw(&font, &rgba, "I", 40);
    // Margin 10 px; baseline 10 + 0.8 * 40; a 0.2 em descent and a margin below.
    assert_eq!((layout.pen_x, layout.baseline), (10.0, 42.0));
    assert_eq!((layout.width, layout.height), (40, 60));
    let at = |x: usize, y: usize| cov[y * layout.width as usize + x];
    // The ink box is x 14..26, y 14..42 in pixels.
    assert_eq!(at(20, 30), 255);
    // An SDF rounds corners a little: the corner pixel is partly covered.
    assert!(
        at(14, 14) > 128 && at(15, 15) > 240,
        "{} {}",
        at(14, 14),
        at(15, 15)
    );
    assert_eq!(
        (at(13, 30), at(26, 30), at(20, 13), at(20, 42)),
        (0, 0, 0, 0)
    );
    // 12 x 28 pixels of ink; the field's bilinear corners may round off a little.
    let total = ink(&cov);
    assert!((total - 336.0).abs() < 3.0, "{total}");
}

#[test]
fn kerning_moves_the_next_glyph_and_missing_glyphs_draw_notdef() {
    let (plain, rgba) = box_font(0.0, false);
    let (kerned, _) = box_font(-0.1, false);
    let (a, cov_a) = draw(&plain, &rgba, "II", 40);
    let (b, cov_b) = draw(&kerned, &rgba, "II", 40);
    assert_eq!(a.width - b.width, 4, "0.1 em at 40 px per em");
    let row =
        |cov: &[u8], l: &TextLayout| cov[30 * l.width as usize..31 * l.width as usize].to_vec();
    // Second I: ink from 10 + (0.5 + 0.1) * 40 = 34, or 4 px earlier when kerned.
    let (ra, rb) = (row(&cov_a, &a), row(&cov_b, &b));
    assert_eq!((ra[33], ra[34], rb[29], rb[30]), (0, 255, 0, 255));
    assert!((ink(&cov_a) - ink(&cov_b)).abs() < 1.0);
    // 'x' is not in the font: .notdef is blank here and advances 0.25 em.
    let (c, cov_c) = draw(&plain, &rgba, "IxI", 40);
    assert_eq!(c.width, a.width + 10);
    assert!((ink(&cov_c) - ink(&cov_a)).abs() < 1.0);
}

#[test]
fn an_msdf_with_equal_channels_draws_like_an_sdf() {
    let (sdf, rgba) = box_font(0.0, false);
    let (msdf, _) = box_font(0.0, true);
    assert_eq!(draw(&sdf, &rgba, "I", 33), draw(&msdf, &rgba, "I", 33));
}

#[test]
fn bad_atlases_and_texts_are_refused() {
    let (font, rgba) = box_font(0.0, false);
    assert!(Atlas::new(&font, 16, 16, &rgba[..16 * 16 * 4])
        .err()
        .unwrap()
        .to_string()
        .contains("the .hfont says 32x32"));
    assert!(Atlas::new(&font, ATLAS, ATLAS, &rgba[1..]).is_err());
    let long = "I".repeat(MAX_TEXT_CHARS + 1);
    assert!(layout(&font, &long, 10)
        .unwrap_err()
        .to_string()
        .contains("characters"));
    assert!(layout(&font, &"I".repeat(1000), 4000)
        .unwrap_err()
        .to_string()
        .contains("shorter text"));
    assert!(layout(&font, "I", 0).is_err());
}
