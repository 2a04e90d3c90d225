use super::*;

fn solid_levels(format: PixelFormat, w: u32, h: u32, levels: u32) -> Vec<Vec<u8>> {
    let block = format.block();
    (0..levels)
        .map(|l| {
            let n = block.level_bytes(w, h, l, 1).unwrap() as usize;
            // Distinct content per level so misplaced levels are caught.
            (0..n)
                .map(|i| (i as u8).wrapping_mul(7).wrapping_add(l as u8))
                .collect()
        })
        .collect()
}

fn image(format: PixelFormat, srgb: bool, zstd: bool) -> Ktx2Image {
    let (w, h) = (13, 6);
    Ktx2Image {
        format,
        srgb,
        has_alpha: true,
        width: w,
        height: h,
        depth: 0,
        faces: 1,
        levels: solid_levels(format, w, h, full_mip_count(w, h)),
        zstd_level: zstd.then_some(3),
    }
}

const ALL: [PixelFormat; 12] = [
    PixelFormat::Uastc,
    PixelFormat::Bc1,
    PixelFormat::Bc3,
    PixelFormat::Bc4,
    PixelFormat::Bc5,
    PixelFormat::Bc6h,
    PixelFormat::Bc7,
    PixelFormat::Rgba8,
    PixelFormat::Rgba16f,
    PixelFormat::Astc(AstcBlock::ALL[0]),
    PixelFormat::Astc(AstcBlock::ALL[4]),
    PixelFormat::Astc(AstcBlock::ALL[12]),
];

#[test]
fn round_trip_every_format() {
    for format in ALL {
        for srgb in [false, true] {
            if srgb && !format.has_srgb() {
                // Refused: see rgba16f_round_trips_with_mips and bc4_bc5_bc6h_are_linear.
                assert!(write(&image(format, srgb, false)).is_err(), "{format:?}");
                continue;
            }
            for zstd in [false, true] {
                let img = image(format, srgb, zstd);
                let bytes = write(&img).unwrap();
                assert_eq!(
                    validate(&bytes),
                    vec![],
                    "{format:?} srgb {srgb} zstd {zstd}"
                );
                let k = read(&bytes).unwrap();
                assert_eq!((k.width, k.height, k.level_count), (13, 6, 4));
                assert_eq!(k.pixel_format(), Some((format, srgb)));
                assert_eq!(k.vk_format, format.vk_format(srgb));
                let data: Vec<Vec<u8>> = k.levels.iter().map(|l| l.data.clone()).collect();
                assert_eq!(data, img.levels);
                assert_eq!(k.key_value_str(KEY_ORIENTATION), Some("rd"));
                assert!(k.key_value_str(KEY_WRITER).unwrap().starts_with("assetc "));
                assert_eq!(k.supercompression, if zstd { 2 } else { 0 });
                // Deterministic.
                assert_eq!(write(&img).unwrap(), bytes);
            }
        }
    }
}

#[test]
fn layout_follows_the_spec() {
    let bytes = write(&image(PixelFormat::Bc7, true, false)).unwrap();
    let k = read(&bytes).unwrap();
    // Level 0 (largest) is stored last, every level 16-byte aligned for BC7.
    assert!(k
        .levels
        .windows(2)
        .all(|w| w[1].byte_offset < w[0].byte_offset));
    assert!(k.levels.iter().all(|l| l.byte_offset % 16 == 0));
    assert_eq!(
        k.levels[0].byte_offset + k.levels[0].byte_length,
        bytes.len() as u64
    );
    // 13x6 BC7: 4x2 blocks of 16 bytes.
    assert_eq!(k.levels[0].byte_length, 4 * 2 * 16);
    assert_eq!(
        k.dfd_offset as usize,
        HEADER_SIZE + 4 * LEVEL_INDEX_ENTRY_SIZE
    );
    assert_eq!(k.dfd.color_model, MODEL_BC7);
    assert_eq!(k.dfd.transfer_function, TRANSFER_SRGB);
    assert_eq!(k.dfd.texel_block_dimensions, [3, 3, 0, 0]);
    assert_eq!(k.dfd.bytes_planes[0], 16);
    // Keys sorted: KTXorientation before KTXwriter.
    assert_eq!(k.key_values[0].0, KEY_ORIENTATION);
    assert_eq!(k.key_values[1].0, KEY_WRITER);
}

#[test]
fn rgba8_srgb_dfd_marks_alpha_linear() {
    let dfd = Dfd::for_format(PixelFormat::Rgba8, true, true);
    assert_eq!(dfd.samples.len(), 4);
    assert_eq!(dfd.samples[3].channel_type, 15 | 0x10);
    assert_eq!(dfd.samples[3].bit_offset, 24);
    assert_eq!(dfd.to_bytes().len(), 4 + 24 + 4 * 16);
    let linear = Dfd::for_format(PixelFormat::Rgba8, false, true);
    assert_eq!(linear.samples[3].channel_type, 15);
}

#[test]
fn writer_refuses_wrong_level_sizes() {
    let mut img = image(PixelFormat::Rgba8, false, false);
    img.levels[1].pop();
    assert!(write(&img).is_err());
    img.levels = vec![];
    assert!(write(&img).is_err());
}

#[test]
fn truncation_never_panics() {
    for zstd in [false, true] {
        let bytes = write(&image(PixelFormat::Uastc, false, zstd)).unwrap();
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).is_err(), "prefix {n}");
            assert!(!validate(&bytes[..n]).is_empty());
        }
    }
}

#[test]
fn every_single_byte_corruption_is_handled() {
    let bytes = write(&image(PixelFormat::Bc3, true, true)).unwrap();
    for i in 0..bytes.len() {
        for v in [0u8, 0xff, 0x80] {
            let mut b = bytes.clone();
            b[i] = v;
            // Either an error or a file whose levels still have the declared sizes.
            if let Ok(k) = read(&b) {
                for (l, level) in k.levels.iter().enumerate() {
                    let (w, h) = k.level_size(l);
                    assert_eq!(
                        level.data.len() as u64,
                        PixelFormat::Bc3
                            .block()
                            .level_bytes(w, h, 0, k.level_images(l))
                            .unwrap()
                    );
                }
            }
            let _ = validate(&b);
        }
    }
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn bad_offsets_and_sizes_are_errors() {
    let bytes = write(&image(PixelFormat::Rgba8, false, true)).unwrap();
    // Level 0 offset past the end.
    let mut b = bytes.clone();
    put_u64(&mut b, HEADER_SIZE, u64::MAX - 3);
    assert!(matches!(read(&b), Err(Ktx2Error::Level { level: 0, .. })));
    // A declared uncompressed length that does not match the dimensions.
    let mut b = bytes.clone();
    put_u64(&mut b, HEADER_SIZE + 16, 1 << 40);
    assert!(matches!(read(&b), Err(Ktx2Error::Level { level: 0, .. })));
    // Absurd dimensions: the expected size exceeds the limit before anything is inflated.
    let mut b = bytes.clone();
    b[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
    b[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(read(&b).is_err());
    // Too many levels for the size.
    let mut b = bytes.clone();
    b[40..44].copy_from_slice(&9u32.to_le_bytes());
    assert!(read(&b).is_err());
    // Bad identifier.
    let mut b = bytes;
    b[1] = b'X';
    assert_eq!(read(&b), Err(Ktx2Error::BadIdentifier));
}

#[test]
fn zstd_bomb_is_bounded() {
    // A level whose zstd data inflates far past its declared size is refused.
    let mut img = image(PixelFormat::Rgba8, false, true);
    img.levels.truncate(1);
    let mut bytes = write(&img).unwrap();
    let k = read(&bytes).unwrap();
    let l0 = &k.levels[0];
    let bomb = zstd::bulk::compress(&vec![0u8; 1 << 24], 3).unwrap();
    bytes.truncate(l0.byte_offset as usize);
    bytes.extend_from_slice(&bomb);
    put_u64(&mut bytes, HEADER_SIZE + 8, bomb.len() as u64);
    // Inflating stops one byte past what the level needs.
    assert!(matches!(
        read(&bytes),
        Err(Ktx2Error::Inflate {
            level: 0,
            source: InflateError::Exactly { .. } | InflateError::ZstdShort { .. },
        })
    ));
}

#[test]
fn validator_reports_layout_problems() {
    let bytes = write(&image(PixelFormat::Rgba8, false, false)).unwrap();
    let k = read(&bytes).unwrap();
    // Swap the index entries of levels 0 and 1 data order: store largest first instead.
    let mut b = bytes.clone();
    let kvd_at = k.kvd_offset as usize;
    // Rename KTXorientation's value to "ru": another valid 2D orientation (a GPU-ready
    // input passed through keeps its own), then to "rx", which is none.
    let pos = b[kvd_at..].windows(3).position(|w| w == b"rd\0").unwrap() + kvd_at;
    b[pos + 1] = b'u';
    assert_eq!(validate(&b), vec![]);
    b[pos + 1] = b'x';
    let problems = validate(&b);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains(KEY_ORIENTATION));
    // Without the key (renamed "KTXorientatiox", still sorted before KTXwriter) the
    // orientation is KTX 2.0's default, "rd": valid.
    let mut b = bytes.clone();
    let pos = b[kvd_at..]
        .windows(KEY_ORIENTATION.len())
        .position(|w| w == KEY_ORIENTATION.as_bytes())
        .unwrap()
        + kvd_at;
    b[pos + KEY_ORIENTATION.len() - 1] = b'x';
    assert_eq!(read(&b).unwrap().key_value_str(KEY_ORIENTATION), None);
    assert_eq!(validate(&b), vec![]);

    // A DFD whose transfer function disagrees with vkFormat.
    let mut b = bytes;
    b[k.dfd_offset as usize + 4 + 8 + 2] = TRANSFER_SRGB;
    let problems = validate(&b);
    assert!(
        problems.iter().any(|p| p.message.contains("transfer")),
        "{problems:?}"
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn any_size_round_trips(w in 1u32..70, h in 1u32..70, f in 0usize..ALL.len(), zstd: bool, mips: bool) {
            let format = ALL[f];
            let count = if mips { full_mip_count(w, h) } else { 1 };
            let img = Ktx2Image { format, srgb: false, has_alpha: false, width: w, height: h,
                depth: 0, faces: 1, levels: solid_levels(format, w, h, count), zstd_level: zstd.then_some(1) };
            let bytes = write(&img).unwrap();
            prop_assert_eq!(validate(&bytes), vec![]);
            let k = read(&bytes).unwrap();
            let data: Vec<Vec<u8>> = k.levels.into_iter().map(|l| l.data).collect();
            prop_assert_eq!(data, img.levels);
        }

        #[test]
        fn random_bytes_never_panic(mut data in proptest::collection::vec(any::<u8>(), 0..400)) {
            if data.len() >= 12 { data[..12].copy_from_slice(&IDENTIFIER); }
            // Whatever the reader refuses, the validator must name: `check` relies on it.
            let problems = validate(&data);
            if read(&data).is_err() {
                prop_assert!(!problems.is_empty());
            }
        }
    }
}

/// A valid 128² RGBA8 zstd file with 7 levels whose header then claims 16384²: the
/// shape of the 49 KB file that made `check` hold 1.4 GB.
fn claims_16384_squared() -> Vec<u8> {
    let (w, h) = (128, 128);
    let img = Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: true,
        width: w,
        height: h,
        depth: 0,
        faces: 1,
        levels: solid_levels(PixelFormat::Rgba8, w, h, 7),
        zstd_level: Some(1),
    };
    let mut bytes = write(&img).unwrap();
    bytes[20..24].copy_from_slice(&16384u32.to_le_bytes());
    bytes[24..28].copy_from_slice(&16384u32.to_le_bytes());
    for level in 0..7 {
        let side = 16384u64 >> level;
        put_u64(
            &mut bytes,
            HEADER_SIZE + LEVEL_INDEX_ENTRY_SIZE * level + 16,
            side * side * 4,
        );
    }
    bytes
}

#[test]
fn default_budget_refuses_a_huge_claim_before_inflating() {
    let bytes = claims_16384_squared();
    // Level 0 alone is 16384² x 4 = 1 GiB, twice the 512 MiB default budget.
    let err = read(&bytes).unwrap_err();
    assert!(
        matches!(&err, Ktx2Error::Level { level: 0, message } if message.contains("limit")),
        "{err}"
    );
}

#[test]
fn budget_bounds_what_read_keeps() {
    let img = image(PixelFormat::Rgba8, false, true);
    let bytes = write(&img).unwrap();
    let level0 = img.levels[0].len() as u64;
    let tight = ReadOptions {
        budget: level0 - 1,
        keep_levels: true,
    };
    assert!(matches!(
        read_with(&bytes, &tight),
        Err(Ktx2Error::Level { level: 0, .. })
    ));
    let total: u64 = img.levels.iter().map(|l| l.len() as u64).sum();
    let exact = ReadOptions {
        budget: total,
        keep_levels: true,
    };
    assert_eq!(
        read_with(&bytes, &exact).unwrap().levels[0].data,
        img.levels[0]
    );
    // Uncompressed levels are copies and count against the budget too.
    let plain = write(&image(PixelFormat::Rgba8, false, false)).unwrap();
    assert!(read_with(&plain, &tight).is_err());
}

#[test]
fn layout_only_checks_every_level_but_keeps_none() {
    let img = image(PixelFormat::Rgba8, false, true);
    let bytes = write(&img).unwrap();
    let k = read_with(&bytes, &ReadOptions::layout_only()).unwrap();
    assert_eq!(k.levels.len(), img.levels.len());
    assert!(k.levels.iter().all(|l| l.data.is_empty()));
    // A level whose zstd frame is cut short is still found without keeping data.
    let l1 = &read(&bytes).unwrap().levels[1];
    let mut cut = bytes.clone();
    put_u64(
        &mut cut,
        HEADER_SIZE + LEVEL_INDEX_ENTRY_SIZE + 8,
        l1.byte_length - 1,
    );
    assert!(matches!(
        read_with(&cut, &ReadOptions::layout_only()),
        Err(Ktx2Error::Inflate { level: 1, .. })
    ));
    assert!(!validate(&cut).is_empty());
}

// Cubemaps, 3D textures and RGBA16F.

/// The face colours of the cube tests, in storage order +X -X +Y -Y +Z -Z.
const FACE_COLOURS: [[u8; 4]; 6] = [
    [255, 0, 0, 255],
    [0, 255, 255, 255],
    [0, 255, 0, 255],
    [255, 0, 255, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
];

fn solid_cube(side: u32, levels: u32, zstd: bool) -> Ktx2Image {
    let levels = (0..levels)
        .map(|l| {
            let texels = ((side >> l).max(1) as usize).pow(2);
            FACE_COLOURS.iter().flat_map(|c| c.repeat(texels)).collect()
        })
        .collect();
    Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: true,
        has_alpha: false,
        width: side,
        height: side,
        depth: 0,
        faces: CUBE_FACES,
        levels,
        zstd_level: zstd.then_some(3),
    }
}

#[test]
fn cube_round_trips_with_its_face_order() {
    for zstd in [false, true] {
        let img = solid_cube(8, 4, zstd);
        let bytes = write(&img).unwrap();
        assert_eq!(validate(&bytes), vec![], "zstd {zstd}");
        // Header words as the spec places them: pixelDepth, layerCount, faceCount.
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!((word(28), word(32), word(36)), (0, 0, 6));
        let k = read(&bytes).unwrap();
        assert!(k.is_cube());
        assert_eq!((k.face_count, k.depth, k.levels.len()), (6, 0, 4));
        for (l, level) in k.levels.iter().enumerate() {
            let side = 8usize >> l;
            let face_bytes = side * side * 4;
            assert_eq!(k.level_images(l), 6);
            assert_eq!(level.data.len(), 6 * face_bytes, "level {l}");
            for (f, colour) in FACE_COLOURS.iter().enumerate() {
                let face = &level.data[f * face_bytes..][..face_bytes];
                assert!(
                    face.chunks_exact(4).all(|t| t == colour),
                    "level {l} face {f}"
                );
            }
        }
    }
}

#[test]
fn block_compressed_cube_round_trips() {
    let levels = (0..3)
        .map(|l| {
            let n = PixelFormat::Bc7.block().level_bytes(16, 16, l, 6).unwrap();
            (0..n).map(|i| (i % 251) as u8 ^ l as u8).collect()
        })
        .collect();
    let img = Ktx2Image {
        format: PixelFormat::Bc7,
        srgb: false,
        has_alpha: false,
        width: 16,
        height: 16,
        depth: 0,
        faces: 6,
        levels,
        zstd_level: Some(1),
    };
    let bytes = write(&img).unwrap();
    assert_eq!(validate(&bytes), vec![]);
    let data: Vec<Vec<u8>> = read(&bytes)
        .unwrap()
        .levels
        .into_iter()
        .map(|l| l.data)
        .collect();
    assert_eq!(data, img.levels);
}

/// A 3D RGBA8 texture whose texel (x, y, z) of level l is [x, y, z, l], stored z-major
/// then rows: texel (x, y, z) at ((z * h + y) * w + x) * 4.
fn volume(w: u32, h: u32, d: u32, levels: u32, zstd: bool) -> Ktx2Image {
    let levels = (0..levels)
        .map(|l| {
            let (lw, lh, ld) = ((w >> l).max(1), (h >> l).max(1), level_depth(d, l));
            let mut out = Vec::new();
            for z in 0..ld {
                for y in 0..lh {
                    for x in 0..lw {
                        out.extend_from_slice(&[x as u8, y as u8, z as u8, l as u8]);
                    }
                }
            }
            out
        })
        .collect();
    Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: true,
        width: w,
        height: h,
        depth: d,
        faces: 1,
        levels,
        zstd_level: zstd.then_some(3),
    }
}

#[test]
fn volume_4x4x4_round_trips() {
    for zstd in [false, true] {
        let img = volume(4, 4, 4, 3, zstd);
        assert_eq!(img.full_mip_count(), 3);
        let bytes = write(&img).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        let k = read(&bytes).unwrap();
        assert_eq!((k.depth, k.face_count, k.levels.len()), (4, 1, 3));
        assert_eq!(
            (0..3).map(|l| k.level_depth(l)).collect::<Vec<_>>(),
            [4, 2, 1]
        );
        for (l, level) in k.levels.iter().enumerate() {
            let side = 4usize >> l;
            assert_eq!(level.data.len(), side * side * side * 4);
            for z in 0..side {
                for y in 0..side {
                    for x in 0..side {
                        let at = ((z * side + y) * side + x) * 4;
                        assert_eq!(
                            &level.data[at..at + 4],
                            &[x as u8, y as u8, z as u8, l as u8]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn deep_volume_takes_its_mip_count_from_depth() {
    // 2x2x8: four levels (2x2x8, 1x1x4, 1x1x2, 1x1x1) though 2x2 alone has two.
    let img = volume(2, 2, 8, 4, true);
    assert_eq!(full_mip_count(2, 2), 2);
    assert_eq!(full_mip_count_3d(2, 2, 8), 4);
    let bytes = write(&img).unwrap();
    assert_eq!(validate(&bytes), vec![]);
    let k = read(&bytes).unwrap();
    let sizes: Vec<usize> = k.levels.iter().map(|l| l.data.len()).collect();
    assert_eq!(sizes, [2 * 2 * 8 * 4, 4 * 4, 2 * 4, 4]);
    let mut five = volume(2, 2, 8, 4, true);
    five.levels.push(vec![0; 4]);
    assert!(matches!(write(&five), Err(Ktx2Error::Write(_))));
}

/// Half-float bits of a few exact values.
const HALF_ONE: u16 = 0x3C00;
const HALF_TWO: u16 = 0x4000;
const HALF_MINUS_HALF: u16 = 0xB800;

#[test]
fn rgba16f_round_trips_with_mips() {
    let (w, h) = (13, 6);
    let levels: Vec<Vec<u8>> = (0..full_mip_count(w, h))
        .map(|l| {
            let texels = ((w >> l).max(1) * (h >> l).max(1)) as usize;
            [HALF_ONE, HALF_TWO, HALF_MINUS_HALF, l as u16]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
                .repeat(texels)
        })
        .collect();
    for zstd in [false, true] {
        let img = Ktx2Image {
            format: PixelFormat::Rgba16f,
            srgb: false,
            has_alpha: true,
            width: w,
            height: h,
            depth: 0,
            faces: 1,
            levels: levels.clone(),
            zstd_level: zstd.then_some(3),
        };
        let bytes = write(&img).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        let k = read(&bytes).unwrap();
        assert_eq!(k.vk_format, 97);
        assert_eq!(k.type_size, 2);
        assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba16f, false)));
        assert_eq!(k.levels.len(), 4);
        assert_eq!(k.levels[0].data.len(), 13 * 6 * 8);
        let data: Vec<Vec<u8>> = k.levels.iter().map(|l| l.data.clone()).collect();
        assert_eq!(data, levels);
        if !zstd {
            // lcm(8, 4): every level on an 8-byte boundary.
            assert!(k.levels.iter().all(|l| l.byte_offset % 8 == 0));
        }
        // The DFD of VK_FORMAT_R16G16B16A16_SFLOAT (Khronos Data Format spec).
        let d = &k.dfd;
        assert_eq!(
            (d.color_model, d.color_primaries, d.transfer_function),
            (MODEL_RGBSDA, 1, TRANSFER_LINEAR)
        );
        assert_eq!(d.texel_block_dimensions, [0; 4]);
        assert_eq!(d.bytes_planes[0], 8);
        let channels: Vec<u8> = d.samples.iter().map(|s| s.channel_type).collect();
        assert_eq!(channels, [0xC0, 0xC1, 0xC2, 0xCF]);
        for (i, s) in d.samples.iter().enumerate() {
            assert_eq!((s.bit_offset, s.bit_length), (16 * i as u16, 15));
            assert_eq!((s.lower, s.upper), (0xBF80_0000, 0x3F80_0000));
        }
    }
}

#[test]
fn rgba16f_dfd_and_type_size_are_checked() {
    let img = image(PixelFormat::Rgba16f, false, false);
    let bytes = write(&img).unwrap();
    let k = read(&bytes).unwrap();
    // typeSize 1 is wrong for half floats.
    let mut b = bytes.clone();
    b[16..20].copy_from_slice(&1u32.to_le_bytes());
    let problems = validate(&b);
    assert!(
        problems.iter().any(|p| p.message.contains("typeSize")),
        "{problems:?}"
    );
    // The red sample without its FLOAT qualifier: an unsigned-normalized descriptor.
    let first_sample = k.dfd_offset as usize + 4 + 24;
    let mut b = bytes.clone();
    b[first_sample + 3] = 0;
    let problems = validate(&b);
    assert!(
        problems.iter().any(|p| p.message.contains("samples")),
        "{problems:?}"
    );
    // sampleUpper of 0xFFFF (an integer range) instead of 1.0f.
    let mut b = bytes;
    b[first_sample + 12..first_sample + 16].copy_from_slice(&0xFFFFu32.to_le_bytes());
    assert!(!validate(&b).is_empty());
}

#[test]
fn writer_refuses_shapes_it_does_not_write() {
    let refused = |img: Ktx2Image, what: &str| match write(&img) {
        Err(Ktx2Error::Write(m)) => m,
        other => panic!("{what}: {other:?}"),
    };
    let mut cube = solid_cube(8, 1, false);
    cube.faces = 3;
    assert!(refused(cube, "faces 3").contains("faceCount 3"));

    let mut cube = solid_cube(8, 1, false);
    cube.height = 4;
    cube.levels = vec![vec![0; 8 * 4 * 4 * 6]];
    assert!(refused(cube, "8x4 cube").contains("square"));

    let mut cube = solid_cube(8, 1, false);
    cube.depth = 2;
    assert!(refused(cube, "cube with depth").contains("depth"));

    for format in [PixelFormat::Bc7, PixelFormat::Uastc, PixelFormat::Bc1] {
        let img = Ktx2Image {
            format,
            srgb: false,
            has_alpha: false,
            width: 4,
            height: 4,
            depth: 4,
            faces: 1,
            levels: vec![vec![0; format.block().bytes as usize * 4]],
            zstd_level: None,
        };
        assert!(refused(img, format.name()).contains("3D"));
    }

    let mut hdr = image(PixelFormat::Rgba16f, false, false);
    hdr.srgb = true;
    assert!(refused(hdr, "sRGB RGBA16F").contains("sRGB"));

    // A level holding one face too few.
    let mut cube = solid_cube(8, 2, false);
    cube.levels[1].truncate(4 * 4 * 4 * 5);
    refused(cube, "short cube level");
    // A 3D level sized as if depth did not halve.
    let mut vol = volume(4, 4, 4, 2, false);
    vol.levels[1] = vec![0; 2 * 2 * 4 * 4];
    refused(vol, "3D level 1 with 4 slices");
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn validator_refuses_a_non_square_cube() {
    // An 8x24 2D image holds exactly the bytes of six 8x4 faces; relabel it a cube.
    let img = Ktx2Image {
        width: 8,
        height: 24,
        levels: vec![vec![7; 8 * 24 * 4]],
        ..image(PixelFormat::Rgba8, false, false)
    };
    let mut bytes = write(&img).unwrap();
    set_u32(&mut bytes, 24, 4);
    set_u32(&mut bytes, 36, 6);
    let k = read(&bytes).unwrap();
    assert_eq!((k.width, k.height, k.face_count), (8, 4, 6));
    let problems = validate(&bytes);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains("square"));
}

#[test]
fn validator_refuses_face_count_3() {
    let mut bytes = write(&image(PixelFormat::Rgba8, false, false)).unwrap();
    set_u32(&mut bytes, 36, 3);
    assert!(read(&bytes).is_err());
    let problems = validate(&bytes);
    assert!(
        problems.iter().any(|p| p.message.contains("faceCount 3")),
        "{problems:?}"
    );
}

#[test]
fn validator_refuses_a_bc7_volume() {
    // An 8x32 BC7 image holds exactly the blocks of four 8x8 slices; relabel it 8x8x4.
    let img = Ktx2Image {
        width: 8,
        height: 32,
        levels: vec![vec![3; 2 * 8 * 16]],
        ..image(PixelFormat::Bc7, false, false)
    };
    let mut bytes = write(&img).unwrap();
    set_u32(&mut bytes, 24, 8);
    set_u32(&mut bytes, 28, 4);
    assert_eq!(read(&bytes).unwrap().depth, 4);
    let problems = validate(&bytes);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains("3D"), "{problems:?}");
}

/// A small valid zstd file of `img`'s shape whose header then claims `w`x`h`x`depth`
/// with `levels` levels (the level index is left as written: the claim must be refused
/// from the header before any level is looked at).
fn claiming(img: &Ktx2Image, w: u32, h: u32, depth: u32, levels: u32) -> Vec<u8> {
    let mut bytes = write(img).unwrap();
    set_u32(&mut bytes, 20, w);
    set_u32(&mut bytes, 24, h);
    set_u32(&mut bytes, 28, depth);
    set_u32(&mut bytes, 40, levels);
    bytes
}

#[test]
fn huge_cube_claims_are_refused_before_inflating() {
    let cube = solid_cube(64, 7, true);
    // Six faces of 16384² RGBA8: level 0 alone is 6 GiB.
    let err = read(&claiming(&cube, 16384, 16384, 0, 7)).unwrap_err();
    assert!(
        matches!(&err, Ktx2Error::Level { level: 0, message } if message.contains("limit")),
        "{err}"
    );
    assert!(!validate(&claiming(&cube, 16384, 16384, 0, 7)).is_empty());
    // Six faces of 4096²: level 0 is 384 MiB and level 1 96 MiB; a 400 MiB budget is
    // crossed at level 1, which is found from the header, not by inflating level 0.
    let bytes = claiming(&cube, 4096, 4096, 0, 7);
    let options = ReadOptions {
        budget: 400 << 20,
        keep_levels: true,
    };
    let err = read_with(&bytes, &options).unwrap_err();
    assert!(
        matches!(&err, Ktx2Error::Level { level: 1, message } if message.contains("limit")),
        "{err}"
    );
}

#[test]
fn huge_volume_claims_are_refused_before_inflating() {
    let vol = volume(4, 4, 4, 3, true);
    // 512³ RGBA8: level 0 is the whole 512 MiB default budget, level 1 crosses it.
    let err = read(&claiming(&vol, 512, 512, 512, 3)).unwrap_err();
    assert!(
        matches!(&err, Ktx2Error::Level { level: 1, message } if message.contains("limit")),
        "{err}"
    );
    // Depth and layers at their u32 maximum do not overflow the size arithmetic.
    let mut bytes = claiming(&vol, 4, 4, u32::MAX, 3);
    set_u32(&mut bytes, 32, u32::MAX);
    assert!(read(&bytes).is_err());
    assert!(!validate(&bytes).is_empty());
}

mod shapes {
    use super::*;
    use proptest::prelude::*;

    /// Header words that matter: small, boundary and arbitrary values.
    fn word() -> impl Strategy<Value = u32> {
        prop_oneof![
            Just(0u32),
            Just(1),
            Just(6),
            2u32..70,
            Just(16384),
            Just(u32::MAX),
            any::<u32>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_cube_or_volume_round_trips(side in 1u32..24, d in 1u32..12, cube: bool, hdr: bool,
                                          mips: bool, zstd: bool) {
            let format = if hdr { PixelFormat::Rgba16f } else { PixelFormat::Rgba8 };
            let (faces, depth) = if cube { (6, 0) } else { (1, d) };
            let mut img = Ktx2Image { format, srgb: false, has_alpha: true, width: side,
                height: side, depth, faces, levels: vec![], zstd_level: zstd.then_some(1) };
            let count = if mips { img.full_mip_count() } else { 1 };
            img.levels = (0..count)
                .map(|l| {
                    let n = img.level_bytes(l).unwrap() as usize;
                    (0..n).map(|i| (i as u8).wrapping_mul(13).wrapping_add(l as u8)).collect()
                })
                .collect();
            let bytes = write(&img).unwrap();
            prop_assert_eq!(validate(&bytes), vec![]);
            let k = read(&bytes).unwrap();
            prop_assert_eq!((k.face_count, k.depth), (faces, depth));
            let data: Vec<Vec<u8>> = k.levels.into_iter().map(|l| l.data).collect();
            prop_assert_eq!(data, img.levels);
        }

        #[test]
        fn random_headers_never_panic(words in proptest::collection::vec(word(), 17),
                                      base in 0usize..3, zstd: bool) {
            let img = match base {
                0 => solid_cube(8, 4, zstd),
                1 => volume(4, 4, 4, 3, zstd),
                _ => image(PixelFormat::Rgba16f, false, zstd),
            };
            let mut bytes = write(&img).unwrap();
            // vkFormat .. kvdByteLength: every u32 of the header after the identifier.
            for (i, w) in words.iter().enumerate().take(13) {
                set_u32(&mut bytes, 12 + 4 * i, *w);
            }
            let _ = read(&bytes);
            let _ = read_with(&bytes, &ReadOptions::layout_only());
            let _ = validate(&bytes);
            // Only the shape words (depth, layers, faces, levels) changed.
            let mut bytes = write(&img).unwrap();
            for (i, w) in words.iter().enumerate().take(4) {
                set_u32(&mut bytes, 28 + 4 * i, *w);
            }
            if let Ok(k) = read(&bytes) {
                for (l, level) in k.levels.iter().enumerate() {
                    let (w, h) = k.level_size(l);
                    let block = BlockInfo::for_vk_format(k.vk_format, &k.dfd).unwrap();
                    prop_assert_eq!(Some(level.data.len() as u64),
                        block.level_bytes(w, h, l as u32, k.level_images(l)));
                }
            }
            let _ = validate(&bytes);
        }
    }
}

#[test]
fn bc4_bc5_bc6h_are_linear_with_their_own_dfd() {
    use super::dfd::{MODEL_BC4, MODEL_BC5, MODEL_BC6H};
    for (format, vk, model, block_bytes) in [
        (PixelFormat::Bc4, 139, MODEL_BC4, 8),
        (PixelFormat::Bc5, 141, MODEL_BC5, 16),
        (PixelFormat::Bc6h, 143, MODEL_BC6H, 16),
    ] {
        let e = write(&image(format, true, false)).unwrap_err();
        assert!(e.to_string().contains("no sRGB vkFormat"), "{e}");
        let bytes = write(&image(format, false, false)).unwrap();
        let k = read(&bytes).unwrap();
        assert_eq!((k.vk_format, k.dfd.color_model), (vk, model));
        assert_eq!(k.dfd.transfer_function, TRANSFER_LINEAR);
        assert_eq!(u32::from(k.dfd.bytes_planes[0]), block_bytes);
        assert_eq!(format.block().bytes, block_bytes);
        // Another BC format's DFD under this vkFormat is reported.
        // (One of the same sample count, so the file's layout is unchanged.)
        let other = match format {
            PixelFormat::Bc4 => PixelFormat::Bc6h,
            PixelFormat::Bc5 => PixelFormat::Bc3,
            _ => PixelFormat::Bc4,
        };
        let wrong = Dfd::for_format(other, false, false).to_bytes();
        let good = Dfd::for_format(format, false, false).to_bytes();
        let at = bytes
            .windows(good.len())
            .position(|w| w == good.as_slice())
            .unwrap();
        if wrong.len() == good.len() {
            let mut bad = bytes.clone();
            bad[at..at + good.len()].copy_from_slice(&wrong);
            assert!(
                !validate(&bad).is_empty(),
                "{format:?} with {other:?}'s DFD"
            );
        }
    }
    // BC5 is two samples, RED at bit 0 and GREEN at bit 64; BC6H one FLOAT sample 0..1.
    let bc5 = Dfd::for_format(PixelFormat::Bc5, false, false);
    let s: Vec<_> = bc5
        .samples
        .iter()
        .map(|s| (s.bit_offset, s.bit_length, s.channel_type))
        .collect();
    assert_eq!(s, vec![(0, 63, 0), (64, 63, 1)]);
    let bc6h = Dfd::for_format(PixelFormat::Bc6h, false, false);
    assert_eq!(bc6h.samples.len(), 1);
    assert_eq!(bc6h.samples[0].channel_type, QUALIFIER_FLOAT);
    assert_eq!(
        (bc6h.samples[0].lower, bc6h.samples[0].upper),
        (0, 0x3F80_0000)
    );
}

/// vkFormats from the Vulkan registry (VK_FORMAT_ASTC_*_UNORM_BLOCK / _SRGB_BLOCK) and the
/// DFD Khronos' dfdutils writes for them: colour model ASTC (162), the footprint minus one,
/// 16 bytes, one 128-bit sample.
#[test]
fn astc_formats_have_vulkan_numbers_and_khronos_dfd() {
    for (name, w, h, unorm) in [
        ("4x4", 4, 4, 157),
        ("5x4", 5, 4, 159),
        ("5x5", 5, 5, 161),
        ("6x6", 6, 6, 165),
        ("8x8", 8, 8, 171),
        ("10x10", 10, 10, 179),
        ("12x12", 12, 12, 183),
    ] {
        let block = AstcBlock::from_name(name).unwrap();
        assert_eq!((block.width(), block.height(), block.name()), (w, h, name));
        let format = PixelFormat::Astc(block);
        assert_eq!(format.vk_format(false), unorm);
        assert_eq!(format.vk_format(true), unorm + 1);
        assert_eq!(PixelFormat::from_vk_format(unorm, 0), Some((format, false)));
        assert_eq!(
            PixelFormat::from_vk_format(unorm + 1, 0),
            Some((format, true))
        );
        for srgb in [false, true] {
            let dfd = Dfd::for_format(format, srgb, true);
            assert_eq!(dfd.color_model, MODEL_ASTC);
            assert_eq!(dfd.texel_block_dimensions, [w as u8 - 1, h as u8 - 1, 0, 0]);
            assert_eq!(dfd.bytes_planes[0], 16);
            let s: Vec<_> = dfd
                .samples
                .iter()
                .map(|s| (s.bit_offset, s.bit_length, s.channel_type, s.lower, s.upper))
                .collect();
            assert_eq!(s, vec![(0, 127, 0, 0, u32::MAX)]);
            let transfer = if srgb { TRANSFER_SRGB } else { TRANSFER_LINEAR };
            assert_eq!(dfd.transfer_function, transfer);
        }
    }
    assert_eq!(AstcBlock::from_name("7x7"), None);
    // 3D (185+) and HDR ASTC are not ours; past 12x12 SRGB nothing is ASTC.
    assert_eq!(PixelFormat::from_vk_format(185, 0), None);
    assert_eq!(PixelFormat::from_vk_format(156, 0), None);
    // A 13x6 image in 6x6 blocks: 3 x 1 blocks at level 0.
    let six = PixelFormat::Astc(AstcBlock::default());
    assert_eq!(six.block().level_bytes(13, 6, 0, 1), Some(3 * 16));
    // The DFD of another block size under this vkFormat is reported.
    let bytes = write(&image(six, true, false)).unwrap();
    assert_eq!(validate(&bytes), vec![]);
    let good = Dfd::for_format(six, true, true).to_bytes();
    let wrong = Dfd::for_format(PixelFormat::Astc(AstcBlock::ALL[0]), true, true).to_bytes();
    let at = bytes
        .windows(good.len())
        .position(|w| w == good.as_slice())
        .unwrap();
    let mut bad = bytes.clone();
    bad[at..at + good.len()].copy_from_slice(&wrong);
    assert!(!validate(&bad).is_empty(), "6x6 file with a 4x4 DFD");
}
