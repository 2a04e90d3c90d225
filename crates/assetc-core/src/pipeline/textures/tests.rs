use super::*;
use crate::formats::ktx2;

fn png(width: u32, height: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(width, height, |x, y| image::Rgba(f(x, y)));
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

fn settings(format: TextureFormat) -> TextureSettings {
    TextureSettings {
        format,
        ..TextureSettings::default()
    }
}

#[test]
fn rgba8_level0_is_pixel_exact_and_chain_complete() {
    let src = png(9, 5, |x, y| [(x * 20) as u8, (y * 40) as u8, 7, 200]);
    for mode in [TextureMode::Color, TextureMode::Linear] {
        let ktx = encode_texture(
            &src,
            Some("image/png"),
            mode,
            None,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap();
        assert_eq!(ktx2::validate(&ktx), vec![]);
        let k = ktx2::read(&ktx).unwrap();
        assert_eq!(k.levels.len(), 4); // 9x5, 4x2, 2x1, 1x1
        let decoded = image::load_from_memory(&src).unwrap().to_rgba8().into_raw();
        assert_eq!(k.levels[0].data, decoded);
        assert_eq!(
            k.pixel_format(),
            Some((ktx2::PixelFormat::Rgba8, mode == TextureMode::Color))
        );
    }
}

#[test]
fn colour_mips_filter_in_linear_light() {
    // Alternating black and white columns: the 1x1 average in linear light is 0.5, which
    // is sRGB 188, not the 128 a gamma-space average gives.
    let src = png(2, 2, |x, _| {
        if x == 0 {
            [0, 0, 0, 255]
        } else {
            [255, 255, 255, 255]
        }
    });
    let k = ktx2::read(
        &encode_texture(
            &src,
            None,
            TextureMode::Color,
            None,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(&k.levels[1].data[..3], &[188, 188, 188]);
    let k = ktx2::read(
        &encode_texture(
            &src,
            None,
            TextureMode::Linear,
            None,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(&k.levels[1].data[..3], &[128, 128, 128]);
}

#[test]
fn normal_mips_are_renormalised() {
    // Two normals tilted 45 degrees in opposite x directions average to +z, length 1.
    let src = png(2, 1, |x, _| {
        if x == 0 {
            [37, 128, 218, 255]
        } else {
            [218, 128, 218, 255]
        }
    });
    for mip_filter in MipFilter::ALL {
        let s = TextureSettings {
            mip_filter,
            ..settings(TextureFormat::Rgba8)
        };
        let k = ktx2::read(&encode_texture(&src, None, TextureMode::Normal, None, &s).unwrap())
            .unwrap();
        let p = &k.levels[1].data;
        let v: Vec<f32> = p[..3].iter().map(|&c| f32::from(c) / 127.5 - 1.0).collect();
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        assert!((len - 1.0).abs() < 0.02, "{mip_filter:?}: {v:?}");
        assert_eq!(p[2], 255, "{mip_filter:?}");
    }
}

/// Every level of a detailed normal map, with every filter, holds unit vectors (up to the
/// 8-bit rounding of each component: |len - 1| <= sqrt(3) * 0.5 / 127.5 < 0.007, 0.01
/// asserted), Lanczos' overshoot included.
#[test]
fn normal_mips_are_unit_length_with_every_filter() {
    let src = png(37, 29, |x, y| {
        let (a, b) = ((x as f32 * 0.9).sin() * 0.7, (y as f32 * 1.3).cos() * 0.6);
        let z = (1.0 - a * a - b * b).max(0.0).sqrt();
        let n = [a, b, z].map(|c| ((c * 0.5 + 0.5) * 255.0).round() as u8);
        [n[0], n[1], n[2], 255]
    });
    for mip_filter in MipFilter::ALL {
        let s = TextureSettings {
            mip_filter,
            max_size: 32,
            ..settings(TextureFormat::Rgba8)
        };
        let k = ktx2::read(&encode_texture(&src, None, TextureMode::Normal, None, &s).unwrap())
            .unwrap();
        assert_eq!(k.levels.len(), 6, "32x25 .. 1x1");
        for (i, level) in k.levels.iter().enumerate() {
            for texel in level.data.chunks_exact(4) {
                let v = normal_of(texel);
                let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                assert!((len - 1.0).abs() < 0.01, "{mip_filter:?} level {i}: {v:?}");
            }
        }
    }
}

/// What a windowed sinc is for: detail below the new Nyquist frequency keeps its
/// contrast. A sine of period 8 texels (amplitude 100, range 200 at level 0) halved to
/// period 4: level 1's texels sit at phases 22.5 + 90k degrees, so even a perfect filter
/// shows a range of 200 * sin(67.5 deg) = 184.8 there. `image`'s triangle at an exact
/// half is the tent 1/8, 3/8, 3/8, 1/8 per axis, whose response at this frequency is
/// 0.75 cos(pi/8) + 0.25 cos(3pi/8) = 0.789: a range of 145.8. Lanczos' response at half
/// the new Nyquist frequency is within a few percent of 1 (>= 179 asserted, 0.97 of
/// 184.8; measured 187 and 185: Lanczos-3 overshoots its passband by about 1%).
#[test]
fn lanczos_mips_keep_more_contrast_than_triangle() {
    let src = png(64, 8, |x, _| {
        let v = 128.0 + 100.0 * (x as f32 * std::f32::consts::TAU / 8.0).sin();
        [v as u8, v as u8, v as u8, 255]
    });
    let range = |filter| {
        let s = TextureSettings {
            mip_filter: filter,
            ..settings(TextureFormat::Rgba8)
        };
        let k = ktx2::read(&encode_texture(&src, None, TextureMode::Linear, None, &s).unwrap())
            .unwrap();
        // Level 1 is 32x4; skip the border columns the kernel truncates.
        let row: Vec<u8> = k.levels[1]
            .data
            .chunks_exact(4)
            .take(32)
            .map(|p| p[0])
            .collect();
        let inner = &row[4..28];
        i32::from(*inner.iter().max().unwrap()) - i32::from(*inner.iter().min().unwrap())
    };
    let (tri, l3, l4) = (
        range(MipFilter::Triangle),
        range(MipFilter::Lanczos3),
        range(MipFilter::Lanczos4),
    );
    eprintln!("level-1 range of period-8 stripes: triangle {tri}, lanczos3 {l3}, lanczos4 {l4}");
    assert!((144..=148).contains(&tri), "triangle {tri}");
    assert!(l3 >= 179 && l4 >= 179, "lanczos3 {l3}, lanczos4 {l4}");
}

/// Decodes an RGBA8 normal texel to a vector in [-1, 1].
fn normal_of(texel: &[u8]) -> [f32; 3] {
    [0, 1, 2].map(|i| f32::from(texel[i]) / 127.5 - 1.0)
}

#[test]
fn normal_mips_keep_negative_directions() {
    // Every texel is (-0.6, -0.6, 0.53): pointing toward -X and -Y. Filtering in [-1, 1]
    // floats through a resize that clamps to [0, 1] turned every mip level into (0, 0, 1)
    // (bytes 128, 128, 255). A uniform map must keep its one normal on every level, both
    // through the mip chain and through the max_size downscale.
    let src = png(8, 8, |_, _| [51, 51, 195, 255]);
    let want = normal_of(&[51, 51, 195]);
    for (max_size, mip_filter) in [8, 4]
        .into_iter()
        .flat_map(|m| MipFilter::ALL.map(|f| (m, f)))
    {
        let k = ktx2::read(
            &encode_texture(
                &src,
                None,
                TextureMode::Normal,
                None,
                &TextureSettings {
                    max_size,
                    mip_filter,
                    ..settings(TextureFormat::Rgba8)
                },
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(k.levels.len(), if max_size == 8 { 4 } else { 3 });
        for (i, level) in k.levels.iter().enumerate() {
            for texel in level.data.chunks_exact(4) {
                let got = normal_of(texel);
                for c in 0..3 {
                    assert!(
                        (got[c] - want[c]).abs() < 0.02,
                        "max_size {max_size} {mip_filter:?} level {i}: {got:?}, want {want:?}"
                    );
                }
            }
        }
    }
    // A -X half and a +Y half: level 1 of a 2x1 map sums them, so the result points
    // toward -X and +Y equally (bytes below and above 128), not toward +Y only.
    let src = png(2, 1, |x, _| {
        if x == 0 {
            [37, 128, 218, 255]
        } else {
            [128, 218, 218, 255]
        }
    });
    let k = ktx2::read(
        &encode_texture(
            &src,
            None,
            TextureMode::Normal,
            None,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap(),
    )
    .unwrap();
    let v = normal_of(&k.levels[1].data);
    assert!(v[0] < -0.3 && v[1] > 0.3, "{v:?}");
    assert!((v[0] + v[1]).abs() < 0.02, "{v:?}");
}

#[test]
fn alpha_coverage_is_preserved() {
    // Scattered opaque texels (about one in three): box-filtered mips average them to
    // alpha near 0.33, so without correction almost nothing stays above a 0.5 cutoff.
    let hash = |x: u32, y: u32| {
        (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)).wrapping_mul(2_654_435_761) >> 16
    };
    let src = png(32, 32, |x, y| {
        [255, 255, 255, if hash(x, y) % 3 == 0 { 255 } else { 0 }]
    });
    let cov = |d: &[u8]| {
        d.chunks(4)
            .filter(|p| f32::from(p[3]) / 255.0 > 0.5)
            .count() as f32
            / (d.len() / 4) as f32
    };
    for mip_filter in MipFilter::ALL {
        let s = TextureSettings {
            mip_filter,
            ..settings(TextureFormat::Rgba8)
        };
        let plain =
            ktx2::read(&encode_texture(&src, None, TextureMode::Color, None, &s).unwrap()).unwrap();
        let kept =
            ktx2::read(&encode_texture(&src, None, TextureMode::Color, Some(0.5), &s).unwrap())
                .unwrap();
        let target = cov(&kept.levels[0].data);
        assert!(target > 0.2 && target < 0.5, "{target}");
        for level in 1..3 {
            let (p, k) = (
                cov(&plain.levels[level].data),
                cov(&kept.levels[level].data),
            );
            assert!(
                (k - target).abs() <= 0.1,
                "{mip_filter:?} level {level}: kept {k}, target {target}"
            );
            assert!(
                (p - target).abs() > (k - target).abs(),
                "{mip_filter:?} level {level}: plain {p}, kept {k}"
            );
        }
    }
}

#[test]
fn grey_and_16_bit_pngs_convert() {
    let grey = image::ImageBuffer::<image::LumaA<u16>, _>::from_fn(4, 4, |x, _| {
        image::LumaA([x as u16 * 20000, 65535])
    });
    let mut bytes = Vec::new();
    grey.write_to(
        &mut std::io::Cursor::new(&mut bytes),
        image::ImageFormat::Png,
    )
    .unwrap();
    let d = decode_image(&bytes, None).unwrap();
    // 16-bit 20000 -> 8-bit round(20000 / 257) = 78, replicated into RGB.
    assert_eq!(&d.pixels[4..8], &[78, 78, 78, 255]);
}

#[test]
fn downscale_keeps_aspect() {
    let src = png(64, 16, |_, _| [1, 2, 3, 255]);
    let s = TextureSettings {
        max_size: 32,
        ..settings(TextureFormat::Rgba8)
    };
    let k =
        ktx2::read(&encode_texture(&src, None, TextureMode::Linear, None, &s).unwrap()).unwrap();
    assert_eq!((k.width, k.height, k.levels.len()), (32, 8, 6));
    assert_eq!(fit::fitted_size(4000, 3, 1000), (1000, 1));
}

#[test]
fn bad_images_are_errors() {
    assert!(encode_texture(
        b"not an image",
        None,
        TextureMode::Color,
        None,
        &TextureSettings::default()
    )
    .is_err());
    let src = png(8, 8, |_, _| [0; 4]);
    assert!(encode_texture(
        &src[..src.len() / 2],
        None,
        TextureMode::Color,
        None,
        &TextureSettings::default()
    )
    .is_err());
    // A PNG header declaring 100000 x 100000 is refused from the header.
    let mut huge = png(1, 1, |_, _| [0; 4]);
    huge[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    huge[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let err = decode_image(&huge, None).unwrap_err().to_string();
    assert!(
        err.contains("100000") || err.contains("limit") || err.contains("header"),
        "{err}"
    );
}

#[test]
fn every_format_encodes_and_validates_deterministically() {
    let src = png(21, 10, |x, y| {
        [(x * 12) as u8, (y * 25) as u8, ((x * y) % 256) as u8, 255]
    });
    for format in [
        TextureFormat::Uastc,
        TextureFormat::Bc7,
        TextureFormat::Bc1,
        TextureFormat::Bc3,
        TextureFormat::Rgba8,
    ] {
        let s = settings(format);
        let a = encode_texture(&src, None, TextureMode::Color, None, &s).unwrap();
        assert_eq!(ktx2::validate(&a), vec![], "{format:?}");
        assert_eq!(ktx2::read(&a).unwrap().levels.len(), 5);
        assert_eq!(
            encode_texture(&src, None, TextureMode::Color, None, &s).unwrap(),
            a,
            "{format:?}"
        );
    }
}

#[test]
fn ktx2_sources_pass_through_only_when_they_match() {
    let src = png(4, 4, |_, _| [9; 4]);
    let rgba8 = settings(TextureFormat::Rgba8);
    let ktx = encode_texture(&src, None, TextureMode::Color, None, &rgba8).unwrap();
    assert_eq!(
        encode_texture(&ktx, Some("image/ktx2"), TextureMode::Color, None, &rgba8).unwrap(),
        ktx
    );
    // Another format or colour space: decoded and encoded again.
    let uastc = encode_texture(
        &ktx,
        Some("image/ktx2"),
        TextureMode::Linear,
        None,
        &TextureSettings::default(),
    )
    .unwrap();
    assert_eq!(
        ktx2::read(&uastc).unwrap().pixel_format(),
        Some((ktx2::PixelFormat::Uastc, false))
    );
    assert!(encode_texture(
        &ktx[..ktx.len() - 1],
        Some("image/ktx2"),
        TextureMode::Color,
        None,
        &TextureSettings::default()
    )
    .is_err());
}

#[test]
fn ids_change_with_what_changes_the_output() {
    let s = TextureSettings::default();
    let base = texture_id(b"abc", TextureMode::Color, None, &s);
    assert_ne!(base, texture_id(b"abd", TextureMode::Color, None, &s));
    assert_ne!(base, texture_id(b"abc", TextureMode::Linear, None, &s));
    assert_ne!(base, texture_id(b"abc", TextureMode::Color, Some(0.5), &s));
    assert_ne!(
        base,
        texture_id(
            b"abc",
            TextureMode::Color,
            None,
            &settings(TextureFormat::Bc7)
        )
    );
    assert_ne!(
        base,
        texture_id(
            b"abc",
            TextureMode::Color,
            None,
            &TextureSettings { quality: 0.25, ..s }
        )
    );
    // Quality does not change RGBA8 output, so it does not change its id.
    let r = settings(TextureFormat::Rgba8);
    assert_eq!(
        texture_id(b"abc", TextureMode::Color, None, &r),
        texture_id(
            b"abc",
            TextureMode::Color,
            None,
            &TextureSettings { quality: 0.1, ..r }
        )
    );
    // The id starts as FNV-1a of the bytes followed by the mode name.
    let ktx = [&ktx2::IDENTIFIER[..], b"x"].concat();
    let expected = crate::formats::hash::fnv1a64_raw(&[&ktx[..], b"color"].concat());
    assert_eq!(texture_id(&ktx, TextureMode::Color, None, &s), expected);
}

#[test]
fn quality_knob_is_monotonic_and_default_is_fast() {
    let qualities: Vec<f32> = (0..=20).map(|i| i as f32 / 20.0).collect();
    for pair in qualities.windows(2) {
        let (lo, hi) = (
            UastcKnobs::for_quality(pair[0]),
            UastcKnobs::for_quality(pair[1]),
        );
        assert!(lo.pack_level <= hi.pack_level, "{pair:?}");
        // More quality never means a stronger RDO (None is "no RDO", the weakest).
        match (lo.rdo_lambda, hi.rdo_lambda) {
            (Some(a), Some(b)) => assert!(a >= b, "{pair:?}"),
            (None, Some(_)) => panic!("RDO switched on as quality rises: {pair:?}"),
            _ => {}
        }
        let order = |p: Bc7Preset| Bc7Preset::ALL.iter().position(|&q| q == p);
        assert!(
            order(Bc7Preset::for_quality(pair[0])) <= order(Bc7Preset::for_quality(pair[1])),
            "{pair:?}"
        );
    }
    let default = TextureSettings::default();
    assert_eq!(
        default.uastc_knobs(),
        UastcKnobs {
            pack_level: 0,
            rdo_lambda: None
        }
    );
    assert_eq!(default.bc7_preset(), Bc7Preset::VeryFast);
    // Out-of-range and NaN qualities fall back into 0..1 instead of reaching the codecs.
    let nan = TextureSettings {
        quality: f32::NAN,
        ..default
    };
    assert_eq!(nan.uastc_knobs(), default.uastc_knobs());
    let high = TextureSettings {
        quality: 7.0,
        ..default
    };
    assert_eq!(high.uastc_knobs(), UastcKnobs::for_quality(1.0));
    // RDO output is zstd'd harder than plain blocks: that is where its gain is collected.
    let rdo = TextureSettings {
        quality: 0.1,
        ..default
    };
    assert!(rdo.uastc_knobs().rdo_lambda.is_some());
    assert!(rdo.zstd_level() > default.zstd_level());
}

#[test]
fn lower_uastc_quality_gives_smaller_files() {
    // Smooth gradients with mild texture: RDO can make neighbouring blocks share bit
    // patterns that zstd then finds, which plain level 0 blocks do not.
    let src = png(64, 64, |x, y| {
        let n = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) >> 28;
        [(x * 3 + n) as u8, (y * 3) as u8, ((x + y) * 2) as u8, 255]
    });
    let size = |quality: f32| {
        let s = TextureSettings {
            quality,
            ..TextureSettings::default()
        };
        let file = encode_texture(&src, None, TextureMode::Color, None, &s).unwrap();
        assert_eq!(ktx2::validate(&file), vec![]);
        file.len()
    };
    let (rdo, plain) = (size(0.0), size(DEFAULT_QUALITY));
    assert!(rdo < plain, "RDO {rdo} bytes, plain {plain} bytes");
}
