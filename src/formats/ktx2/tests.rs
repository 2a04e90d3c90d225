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

const ALL: [PixelFormat; 5] = [
    PixelFormat::Uastc,
    PixelFormat::Bc1,
    PixelFormat::Bc3,
    PixelFormat::Bc7,
    PixelFormat::Rgba8,
];

#[test]
fn round_trip_every_format() {
    for format in ALL {
        for srgb in [false, true] {
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
                        PixelFormat::Bc3.block().level_bytes(w, h, 0, 1).unwrap()
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
    assert!(matches!(
        read(&bytes),
        Err(Ktx2Error::Level { level: 0, .. })
    ));
}

#[test]
fn validator_reports_layout_problems() {
    let bytes = write(&image(PixelFormat::Rgba8, false, false)).unwrap();
    let k = read(&bytes).unwrap();
    // Swap the index entries of levels 0 and 1 data order: store largest first instead.
    let mut b = bytes.clone();
    let kvd_at = k.kvd_offset as usize;
    // Rename KTXorientation's value to "ru".
    let pos = b[kvd_at..].windows(3).position(|w| w == b"rd\0").unwrap() + kvd_at;
    b[pos + 1] = b'u';
    let problems = validate(&b);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].message.contains(KEY_ORIENTATION));

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
        fn any_size_round_trips(w in 1u32..70, h in 1u32..70, f in 0usize..5, zstd: bool, mips: bool) {
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
            let _ = read(&data);
            let _ = validate(&data);
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
        Err(Ktx2Error::Level { level: 1, .. })
    ));
    assert!(!validate(&cut).is_empty());
}
