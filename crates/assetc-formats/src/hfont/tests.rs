use super::*;
use proptest::prelude::*;

fn glyph(codepoint: u32, x: f32) -> Glyph {
    Glyph {
        codepoint,
        advance: 0.5,
        plane_left: -0.1,
        plane_bottom: -0.2,
        plane_right: 0.6,
        plane_top: 0.8,
        uv_left: x,
        uv_top: 0.25,
        uv_right: x + 0.1,
        uv_bottom: 0.5,
    }
}

fn sample() -> HFont {
    HFont {
        header: HFontHeader {
            atlas_tex: 0x0123_4567_89ab_cdef,
            ascent: 0.93,
            descent: -0.24,
            line_gap: 0.03,
            distance_range: 4.0,
            edge_value: 0.5,
            atlas_width: 256,
            atlas_height: 128,
            flags: FLAG_MSDF,
        },
        glyphs: vec![
            glyph(0, 0.0),
            Glyph {
                codepoint: 0x20,
                advance: 0.3,
                ..Default::default()
            },
            glyph(u32::from('A'), 0.2),
            glyph(u32::from('V'), 0.4),
        ],
        kerning: vec![
            KerningPair {
                left: u32::from('A'),
                right: u32::from('V'),
                advance: -0.06,
            },
            KerningPair {
                left: u32::from('V'),
                right: u32::from('A'),
                advance: -0.05,
            },
        ],
    }
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_f32(bytes: &mut [u8], at: usize, v: f32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn messages(bytes: &[u8]) -> String {
    validate(bytes)
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn layout_matches_the_contract() {
    let font = sample();
    let b = write(&font).unwrap();
    assert_eq!(b.len(), 52 + 4 * 40 + 2 * 12);
    assert_eq!(&b[0..4], b"HFNT");
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let f32_at = |at: usize| f32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!((u32_at(4), u32_at(8), u32_at(12)), (1, 4, 2));
    assert_eq!(
        u64::from_le_bytes(b[16..24].try_into().unwrap()),
        0x0123_4567_89ab_cdef
    );
    assert_eq!(
        [f32_at(24), f32_at(28), f32_at(32), f32_at(36), f32_at(40)],
        [0.93, -0.24, 0.03, 4.0, 0.5]
    );
    assert_eq!(&b[44..48], &[0, 1, 128, 0], "atlas 256 x 128 as two u16");
    assert_eq!(u32_at(48), 1);
    // Glyph 2 ('A') starts at 52 + 2*40: codepoint, advance, plane LBRT, uv LTRB.
    let a = 52 + 80;
    assert_eq!(u32_at(a), 0x41);
    assert_eq!(f32_at(a + 4), 0.5);
    assert_eq!([f32_at(a + 8), f32_at(a + 20)], [-0.1, 0.8]);
    assert_eq!([f32_at(a + 24), f32_at(a + 28)], [0.2, 0.25]);
    let k = 52 + 160;
    assert_eq!(
        (u32_at(k), u32_at(k + 4), f32_at(k + 8)),
        (0x41, 0x56, -0.06)
    );
    assert_eq!(read(&b).unwrap(), font);
    assert_eq!(validate(&b), vec![]);
}

#[test]
fn lookups_fall_back_to_notdef_and_find_kerning() {
    let font = sample();
    assert_eq!(font.glyph(u32::from('V')).unwrap().uv_left, 0.4);
    assert_eq!(font.glyph(0x4E2D).unwrap().codepoint, 0);
    assert_eq!(font.kerning(0x41, 0x56), -0.06);
    assert_eq!(font.kerning(0x56, 0x41), -0.05);
    assert_eq!(font.kerning(0x41, 0x41), 0.0);
    assert!(font.glyphs[1].is_blank() && !font.glyphs[2].is_blank());
    assert!(font.is_msdf());
}

#[test]
fn every_rule_is_checked_by_the_validator_and_the_writer() {
    let good = write(&sample()).unwrap();
    let g = |i: usize| 52 + i * 40;
    let k = |i: usize| 52 + 4 * 40 + i * 12;
    type Patch = Box<dyn Fn(&mut Vec<u8>)>;
    let cases: Vec<(Patch, &str, u64)> = vec![
        (
            Box::new(|b| put_f32(b, 28, 0.1)),
            "descent 0.1 is positive",
            28,
        ),
        (
            Box::new(|b| put_f32(b, 24, f32::NAN)),
            "ascent NaN is not finite",
            24,
        ),
        (
            Box::new(|b| put_f32(b, 36, 0.0)),
            "distanceRange 0 is not positive",
            36,
        ),
        (
            Box::new(|b| put_f32(b, 40, 1.5)),
            "edgeValue 1.5 is outside",
            40,
        ),
        (
            Box::new(|b| b[44..46].copy_from_slice(&[0, 0])),
            "atlas size 0x128",
            44,
        ),
        (
            Box::new(|b| put_u32(b, 48, 3)),
            "flags 0x3 set bits other than bit 0",
            48,
        ),
        (
            Box::new(move |b| put_u32(b, g(0), 1)),
            "glyph 0 has codepoint 1",
            52,
        ),
        (
            Box::new(move |b| put_u32(b, g(3), 0x41)),
            "codepoint U+0041 does not follow U+0041",
            g(3) as u64,
        ),
        (
            Box::new(move |b| put_f32(b, g(2) + 4, f32::INFINITY)),
            "metric inf is not finite",
            g(2) as u64,
        ),
        (
            Box::new(move |b| put_f32(b, g(2) + 36, 1.25)),
            "uv 1.25 is outside [0, 1]",
            g(2) as u64,
        ),
        (
            Box::new(move |b| put_f32(b, g(2) + 8, 0.7)),
            "plane rectangle (0.7, -0.2)..(0.6, 0.8) is inverted",
            g(2) as u64,
        ),
        (
            Box::new(move |b| put_u32(b, k(0) + 4, 0x42)),
            "right U+0042 is not a glyph of the font",
            k(0) as u64,
        ),
        (
            Box::new(move |b| put_u32(b, k(1), 0x20)),
            "(U+0020, U+0041) does not follow (U+0041, U+0056)",
            k(1) as u64,
        ),
        (
            Box::new(move |b| put_u32(b, k(0), 0)),
            "left U+0000 is not a glyph",
            k(0) as u64,
        ),
        (
            Box::new(move |b| put_f32(b, k(1) + 8, f32::NAN)),
            "advance NaN is not finite",
            k(1) as u64,
        ),
    ];
    for (patch, expected, offset) in cases {
        let mut b = good.clone();
        patch(&mut b);
        let problems = validate(&b);
        assert!(
            problems
                .iter()
                .any(|p| p.message.contains(expected) && p.offset == Some(offset)),
            "expected {expected:?} at {offset}, got:\n{}",
            messages(&b)
        );
        // The reader only checks structure; the writer refuses what validate rejects.
        let font = read(&b).unwrap();
        assert!(
            matches!(write(&font), Err(HFontError::Invalid(_))),
            "{expected}"
        );
    }
}

#[test]
fn structure_errors_name_their_offset() {
    let good = write(&sample()).unwrap();
    let mut b = good.clone();
    b[0] = b'X';
    assert!(matches!(read(&b), Err(HFontError::BadMagic(_))));
    let mut b = good.clone();
    put_u32(&mut b, 4, 2);
    assert_eq!(read(&b), Err(HFontError::BadVersion(2)));
    let mut b = good.clone();
    b.push(0);
    let p = validate(&b);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].offset, Some(8));
    assert!(p[0].message.contains("the file is 237 bytes"), "{}", p[0]);
    // A forged count is refused by the size check before anything is reserved.
    let mut b = good.clone();
    put_u32(&mut b, 8, u32::MAX);
    put_u32(&mut b, 12, u32::MAX);
    assert!(matches!(
        read(&b),
        Err(HFontError::Malformed { offset: 8, .. })
    ));
    // No glyphs at all: structurally sound (52 bytes), but glyph 0 is required.
    let mut empty = good[..52].to_vec();
    put_u32(&mut empty, 8, 0);
    put_u32(&mut empty, 12, 0);
    assert!(read(&empty).unwrap().glyphs.is_empty());
    assert!(
        messages(&empty).contains("glyphCount is 0"),
        "{}",
        messages(&empty)
    );
}

#[test]
fn every_truncation_is_an_error() {
    let b = write(&sample()).unwrap();
    for len in 0..b.len() {
        assert!(read(&b[..len]).is_err(), "length {len}");
        assert!(!validate(&b[..len]).is_empty(), "length {len}");
    }
}

fn arb_font() -> impl Strategy<Value = HFont> {
    (
        proptest::collection::btree_map(
            1u32..0x11_0000,
            (
                -2.0f32..2.0,
                proptest::array::uniform4(-1.0f32..1.0),
                proptest::array::uniform4(0.0f32..=1.0),
            ),
            0..24,
        ),
        proptest::collection::vec(
            (
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                -0.5f32..0.5,
            ),
            0..16,
        ),
        (
            any::<u64>(),
            0.0f32..2.0,
            -1.0f32..=0.0,
            1u16..,
            1u16..,
            any::<bool>(),
        ),
    )
        .prop_map(
            |(glyphs, pairs, (atlas_tex, ascent, descent, w, h, msdf))| {
                let mut out = vec![Glyph::default()];
                for (cp, (advance, p, uv)) in glyphs {
                    out.push(Glyph {
                        codepoint: cp,
                        advance,
                        plane_left: p[0].min(p[2]),
                        plane_bottom: p[1].min(p[3]),
                        plane_right: p[0].max(p[2]),
                        plane_top: p[1].max(p[3]),
                        uv_left: uv[0].min(uv[2]),
                        uv_top: uv[1].min(uv[3]),
                        uv_right: uv[0].max(uv[2]),
                        uv_bottom: uv[1].max(uv[3]),
                    });
                }
                let named = &out[1..];
                let mut kerning: Vec<KerningPair> = if named.is_empty() {
                    Vec::new()
                } else {
                    pairs
                        .into_iter()
                        .map(|(l, r, advance)| KerningPair {
                            left: named[l.index(named.len())].codepoint,
                            right: named[r.index(named.len())].codepoint,
                            advance,
                        })
                        .collect()
                };
                kerning.sort_by_key(|k| (k.left, k.right));
                kerning.dedup_by_key(|k| (k.left, k.right));
                HFont {
                    header: HFontHeader {
                        atlas_tex,
                        ascent,
                        descent,
                        line_gap: 0.0,
                        distance_range: 4.0,
                        edge_value: 0.5,
                        atlas_width: w,
                        atlas_height: h,
                        flags: u32::from(msdf),
                    },
                    glyphs: out,
                    kerning,
                }
            },
        )
}

proptest! {
    #[test]
    fn round_trips(font in arb_font()) {
        let bytes = write(&font).unwrap();
        prop_assert_eq!(bytes.len() as u64, file_size(font.glyphs.len() as u32, font.kerning.len() as u32));
        prop_assert_eq!(read(&bytes).unwrap(), font.clone());
        prop_assert_eq!(validate(&bytes), vec![]);
        prop_assert_eq!(write(&read(&bytes).unwrap()).unwrap(), bytes);
    }

    #[test]
    fn corruption_never_panics(font in arb_font(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
        let mut bytes = write(&font).unwrap();
        let i = at % bytes.len();
        bytes[i] = byte;
        let _ = read(&bytes);
        let _ = validate(&bytes);
        let cut = cut % (bytes.len() + 1);
        let _ = read(&bytes[..cut]);
        let _ = validate(&bytes[..cut]);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400), magic in any::<bool>()) {
        let mut bytes = bytes;
        if magic && bytes.len() >= 8 {
            bytes[..4].copy_from_slice(b"HFNT");
            bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
        }
        let _ = read(&bytes);
        prop_assert!(read(&bytes).is_ok() || !validate(&bytes).is_empty());
    }
}
