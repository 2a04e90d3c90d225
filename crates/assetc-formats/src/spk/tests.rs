use std::io::Write;

use proptest::prelude::*;

use super::*;
use crate::hash;

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn sample() -> Vec<(String, Vec<u8>)> {
    vec![
        (
            "textures/brick.png".into(),
            (0..=255u8)
                .cycle()
                .take(3000)
                .map(|b| b.wrapping_mul(97))
                .collect(),
        ),
        ("meshes/tree.hmesh".into(), vec![7u8; 10_000]),
        ("a".into(), b"x".to_vec()),
    ]
}

/// Two good stored entries and whatever extra blob/TOC entries a test adds, so that tests
/// can check a hostile entry fails while "good/one" and "good/two" stay readable.
fn with_good(extra_blob: &[u8], extra: Vec<RawTocEntry>) -> Vec<u8> {
    let mut data = b"ONE".to_vec();
    data.extend_from_slice(b"TWO!");
    data.extend_from_slice(extra_blob);
    let mut toc = vec![
        RawTocEntry::new("good/one", 32, 3, 3, 0),
        RawTocEntry::new("good/two", 35, 4, 4, 0),
    ];
    toc.extend(extra);
    assemble_raw(&data, &toc)
}

const EXTRA_AT: u64 = 39;

fn assert_good_readable(a: &SpkArchive<'_>) {
    assert_eq!(a.read_entry("good/one").unwrap(), b"ONE");
    assert_eq!(a.read_entry("good/two").unwrap(), b"TWO!");
}

#[test]
fn round_trip_and_header() {
    let entries = sample();
    let bytes = write(&entries).unwrap();
    assert_eq!(&bytes[0..4], b"SPK1");
    let a = open(&bytes).unwrap();
    let paths: Vec<&str> = a.entries().iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["a", "meshes/tree.hmesh", "textures/brick.png"]);
    for (p, d) in &entries {
        assert_eq!(&a.read_entry(p.as_str()).unwrap(), d);
    }
    // 10000 equal bytes deflate far below 95%; one byte cannot save 5%.
    let tree = &a.entries()[1];
    assert_eq!(
        (tree.compression, tree.original_size),
        (Compression::Deflate, 10_000)
    );
    assert_eq!(a.entries()[0].compression, Compression::Stored);
    assert_eq!(a.entries()[0].data_offset, 32);
    assert_eq!(a.read_entry(0usize).unwrap(), b"x");
    assert!(validate(&bytes).is_empty(), "{:?}", validate(&bytes));
}

#[test]
fn determinism_independent_of_order() {
    let mut entries = sample();
    let first = write(&entries).unwrap();
    entries.reverse();
    assert_eq!(write(&entries).unwrap(), first);
    let mut w = SpkWriter::new();
    for (p, d) in entries.iter().rev() {
        w.add(p.clone(), d.clone()).unwrap();
    }
    assert_eq!(w.finish().unwrap(), first);
}

#[test]
fn writer_refuses_bad_input() {
    let one = |p: &str, d: &[u8]| write(&[(p.to_owned(), d.to_vec())]);
    assert!(matches!(
        one("a/../b", b"x"),
        Err(SpkError::InvalidPath {
            fault: PathFault::DotComponent,
            ..
        })
    ));
    // [S2] paths keep their case; two that differ only in case are refused.
    assert!(one("Tex/A.png", b"x").is_ok());
    let clash = vec![
        ("Tex/A.png".to_owned(), b"1".to_vec()),
        ("tex/a.png".to_owned(), b"2".to_vec()),
    ];
    assert_eq!(
        write(&clash),
        Err(SpkError::CaseClash {
            first: "Tex/A.png".into(),
            second: "tex/a.png".into()
        })
    );
    let mut w = SpkWriter::new();
    w.add("Meshes/Arm.mesh", b"1".to_vec()).unwrap();
    assert!(matches!(
        w.add("meshes/arm.MESH", b"2".to_vec()),
        Err(SpkError::CaseClash { .. })
    ));
    assert_eq!(write(&[]), Err(SpkError::NoEntries));
    let dup = vec![
        ("a".to_owned(), b"1".to_vec()),
        ("a".to_owned(), b"2".to_vec()),
    ];
    assert!(matches!(write(&dup), Err(SpkError::DuplicateInput { .. })));
    let mut w = SpkWriter::new();
    w.add("a", b"1".to_vec()).unwrap();
    assert!(matches!(
        w.add("a", b"2".to_vec()),
        Err(SpkError::DuplicateInput { .. })
    ));
}

#[test]
fn path_rules() {
    for good in [
        "a",
        "textures/brick.png",
        "x/y/z.bin",
        "console.txt",
        "com10",
        "a b/c-d_e.f",
    ] {
        assert_eq!(check_path(good.as_bytes()), Ok(()), "{good}");
    }
    let bad: [(&[u8], PathFault); 12] = [
        (b"", PathFault::Empty),
        (b"../x", PathFault::DotComponent),
        (b"a/./b", PathFault::DotComponent),
        (b"/abs", PathFault::Absolute),
        (b"a//b", PathFault::EmptyComponent),
        (b"a/", PathFault::EmptyComponent),
        (b"a\\b", PathFault::Backslash),
        (b"c:", PathFault::Colon),
        (b"CON", PathFault::DeviceName),
        (b"dir/nul.txt", PathFault::DeviceName),
        (b"a\nb", PathFault::Control(b'\n')),
        ("é".as_bytes(), PathFault::NonAscii(0xC3)),
    ];
    for (path, fault) in bad {
        assert_eq!(check_path(path), Err(fault), "{path:?}");
    }
}

#[test]
fn unsafe_paths_in_toc_refused_naming_entry() {
    for path in ["../x", "/abs", "a\\b", "c:", "CON"] {
        let bytes = with_good(b"Z", vec![RawTocEntry::new(path, EXTRA_AT, 1, 1, 0)]);
        match open(&bytes) {
            Err(SpkError::BadPath {
                index: 2, path: p, ..
            }) => assert_eq!(p, path),
            other => panic!("{path}: {other:?}"),
        }
        assert!(
            validate(&bytes)
                .iter()
                .any(|p| p.message.contains(&format!("{path:?}"))),
            "{path}"
        );
    }
}

#[test]
fn blob_past_end_refused() {
    let bytes = with_good(b"Z", vec![RawTocEntry::new("far", 1 << 40, 1, 1, 0)]);
    match open(&bytes) {
        Err(SpkError::BlobOutOfBounds { path, offset, .. }) => {
            assert_eq!((path.as_str(), offset), ("far", 1 << 40));
        }
        other => panic!("{other:?}"),
    }
    // The unclaimed "Z" is a gap too; validate lists both.
    let problems = validate(&bytes);
    assert!(problems
        .iter()
        .any(|p| p.offset == Some(EXTRA_AT) && p.message.contains("no entry")));
}

#[test]
fn overlap_and_gap_refused() {
    let overlap = with_good(b"", vec![RawTocEntry::new("dup", 34, 2, 2, 0)]);
    match open(&overlap) {
        Err(SpkError::BlobOverlap {
            path,
            other,
            offset,
            ..
        }) => {
            assert_eq!(
                (path.as_str(), other.as_str(), offset),
                ("dup", "good/one", 34)
            );
        }
        other => panic!("{other:?}"),
    }
    let gap = with_good(b"GAPZ", vec![RawTocEntry::new("z", EXTRA_AT + 3, 1, 1, 0)]);
    assert_eq!(
        open(&gap).unwrap_err(),
        SpkError::Gap {
            offset: EXTRA_AT,
            len: 3
        }
    );
}

#[test]
fn toc_inflating_to_wrong_size_refused() {
    let good = with_good(b"", vec![]);
    let raw = u32::from_le_bytes(good[28..32].try_into().unwrap());
    for claimed in [raw - 1, raw + 1] {
        let mut bytes = good.clone();
        bytes[28..32].copy_from_slice(&claimed.to_le_bytes());
        match open(&bytes) {
            Err(SpkError::TocInflate { offset, fault }) => {
                assert_eq!(offset, EXTRA_AT);
                let expected_fault = if claimed < raw {
                    matches!(fault, InflateFault::TooLong { .. })
                } else {
                    matches!(fault, InflateFault::TooShort { .. })
                };
                assert!(expected_fault, "{fault:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn header_faults() {
    let good = with_good(b"", vec![]);
    let mut magic = good.clone();
    magic[0] = b'X';
    assert!(matches!(open(&magic), Err(SpkError::BadMagic { .. })));
    let mut version = good.clone();
    version[4] = 2;
    assert_eq!(
        open(&version).unwrap_err(),
        SpkError::BadVersion { found: 2 }
    );
    let mut count = good.clone();
    count[8] = 3; // FileCount 3 with 2 entries in the TOC
    assert!(matches!(
        open(&count),
        Err(SpkError::TocRawSizeImplausible { .. } | SpkError::TocTruncated { .. })
    ));
    let mut extra = good.clone();
    extra.push(0);
    assert!(matches!(open(&extra), Err(SpkError::TocPlacement { .. })));
    let mut uncompressed = good.clone();
    let toc_size = uncompressed[24..28].to_vec();
    uncompressed[28..32].copy_from_slice(&toc_size);
    assert!(matches!(
        open(&uncompressed),
        Err(SpkError::TocNotCompressed { .. })
    ));
}

#[test]
fn every_truncation_fails_cleanly() {
    let bytes = write(&sample()).unwrap();
    for len in 0..bytes.len() {
        assert!(open(&bytes[..len]).is_err(), "len {len}");
        assert!(!validate(&bytes[..len]).is_empty(), "len {len}");
    }
}

#[test]
fn zip_bomb_stopped_by_exact_size_inflate() {
    // 8 MiB of zeros deflates to about 8 KiB but claims only 100 bytes of output.
    let bomb = zlib(&vec![0u8; 8 << 20]);
    let n = bomb.len() as u32;
    let bytes = with_good(&bomb, vec![RawTocEntry::new("bomb", EXTRA_AT, n, 100, 1)]);
    let a = open(&bytes).unwrap();
    match a.read_entry("bomb") {
        Err(SpkEntryError::Inflate {
            path,
            offset,
            fault: InflateFault::TooLong { expected: 100 },
        }) => {
            assert_eq!((path.as_str(), offset), ("bomb", EXTRA_AT));
        }
        other => panic!("{other:?}"),
    }
    assert_good_readable(&a);
}

#[test]
fn budget_refuses_before_inflating() {
    let small = zlib(b"hello");
    let n = small.len() as u32;
    let cases = [
        // Over 256 MiB declared.
        (
            RawTocEntry::new("huge", EXTRA_AT, n, MAX_DECOMPRESSED_ENTRY_BYTES + 1, 1),
            "huge",
        ),
        // Ratio: 13 bytes may expand to at most 1.3 MB.
        (
            RawTocEntry::new("ratio", EXTRA_AT, n, n * 100_000 + 1, 1),
            "ratio",
        ),
    ];
    for (entry, name) in cases {
        let bytes = with_good(&small, vec![entry]);
        let a = open(&bytes).unwrap();
        let err = a.read_entry(name).unwrap_err();
        let expected = match name {
            "huge" => matches!(err, SpkEntryError::OverBudget { .. }),
            _ => matches!(err, SpkEntryError::RatioExceeded { .. }),
        };
        assert!(expected, "{err:?}");
        assert_eq!(err.path(), Some(name));
        assert_good_readable(&a);
        assert!(validate(&bytes).iter().any(|p| p.message.contains(name)));
    }
    // Exactly at the ratio is allowed by the budget (and then fails on size, not budget).
    let bytes = with_good(
        &small,
        vec![RawTocEntry::new("edge", EXTRA_AT, n, n * 100_000, 1)],
    );
    let err = open(&bytes).unwrap().read_entry("edge").unwrap_err();
    assert!(
        matches!(
            err,
            SpkEntryError::Inflate {
                fault: InflateFault::TooShort { .. },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn zero_byte_payload_with_size_fails_alone() {
    let bytes = with_good(b"", vec![RawTocEntry::new("ghost", EXTRA_AT, 0, 1000, 1)]);
    let a = open(&bytes).unwrap();
    assert_eq!(
        a.read_entry("ghost").unwrap_err(),
        SpkEntryError::EmptyPayload {
            path: "ghost".into(),
            original_size: 1000
        }
    );
    assert_good_readable(&a);
    // [S14] A stored zero-byte entry (as SparkEngine's writer makes) is an ordinary,
    // valid, empty entry.
    let bytes = with_good(b"", vec![RawTocEntry::new("nothing", EXTRA_AT, 0, 0, 0)]);
    let a = open(&bytes).unwrap();
    assert_eq!(a.read_entry("nothing").unwrap(), b"");
    assert!(validate(&bytes).is_empty(), "{:?}", validate(&bytes));
    // Deflate of empty input is a valid 8-byte stream inflating to nothing.
    let empty = zlib(b"");
    let bytes = with_good(
        &empty,
        vec![RawTocEntry::new("void", EXTRA_AT, empty.len() as u32, 0, 1)],
    );
    assert_eq!(open(&bytes).unwrap().read_entry("void").unwrap(), b"");
}

#[test]
fn empty_files_are_written_stored_and_read_back() {
    let files = vec![
        ("a.txt".to_owned(), b"abc".to_vec()),
        ("empty.bin".to_owned(), Vec::new()),
        ("z.txt".to_owned(), b"z".to_vec()),
    ];
    let bytes = write(&files).unwrap();
    assert!(validate(&bytes).is_empty(), "{:?}", validate(&bytes));
    let a = open(&bytes).unwrap();
    let e = &a.entries()[a.find("empty.bin").unwrap()];
    assert_eq!((e.original_size, e.compressed_size), (0, 0));
    assert_eq!(e.compression, Compression::Stored);
    for (path, data) in &files {
        assert_eq!(&a.read_entry(path.as_str()).unwrap(), data, "{path}");
    }
}

#[test]
fn corrupt_and_trailing_streams_fail_alone() {
    let mut stream = zlib(b"payload payload payload");
    stream.push(0xAA);
    let n = stream.len() as u32;
    let bytes = with_good(&stream, vec![RawTocEntry::new("tail", EXTRA_AT, n, 23, 1)]);
    let a = open(&bytes).unwrap();
    assert!(matches!(
        a.read_entry("tail"),
        Err(SpkEntryError::Inflate {
            fault: InflateFault::TrailingInput { extra: 1 },
            ..
        })
    ));
    let garbage = b"not zlib at all";
    let bytes = with_good(garbage, vec![RawTocEntry::new("junk", EXTRA_AT, 15, 15, 1)]);
    let a = open(&bytes).unwrap();
    assert!(matches!(
        a.read_entry("junk"),
        Err(SpkEntryError::Inflate {
            fault: InflateFault::Corrupt(_),
            ..
        })
    ));
    assert_good_readable(&a);
    let cut = zlib(&[5u8; 1000]);
    let half = &cut[..cut.len() / 2];
    let bytes = with_good(
        half,
        vec![RawTocEntry::new(
            "cut",
            EXTRA_AT,
            half.len() as u32,
            1000,
            1,
        )],
    );
    let err = open(&bytes).unwrap().read_entry("cut").unwrap_err();
    assert!(matches!(err, SpkEntryError::Inflate { .. }), "{err:?}");
}

#[test]
fn duplicates_and_hash_mismatch_refused() {
    let dup_path = with_good(b"Z", vec![RawTocEntry::new("good/one", EXTRA_AT, 1, 1, 0)]);
    assert!(matches!(
        open(&dup_path),
        Err(SpkError::DuplicatePath {
            first: 0,
            second: 2,
            ..
        })
    ));
    let mut same_hash = RawTocEntry::new("other", EXTRA_AT, 1, 1, 0);
    same_hash.path_hash = hash::fnv1a64_raw(b"good/one");
    let bytes = with_good(b"Z", vec![same_hash]);
    let problems = validate(&bytes);
    assert!(
        problems
            .iter()
            .any(|p| p.message.contains("share PathHash")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.message.contains("is not FNV-1a")),
        "{problems:?}"
    );
}

#[test]
fn unknown_compression_and_stored_size_mismatch() {
    let bytes = with_good(b"Z", vec![RawTocEntry::new("z", EXTRA_AT, 1, 1, 7)]);
    assert!(matches!(
        open(&bytes),
        Err(SpkError::UnknownCompression { value: 7, .. })
    ));
    let bytes = with_good(b"Z", vec![RawTocEntry::new("z", EXTRA_AT, 1, 9, 0)]);
    assert!(matches!(
        open(&bytes),
        Err(SpkError::StoredSizeMismatch { .. })
    ));
}

#[test]
fn validate_flags_deflate_that_saves_too_little() {
    let data = b"abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
    let packed = zlib(&data);
    assert!(packed.len() * 100 >= data.len() * 95);
    let bytes = with_good(
        &packed,
        vec![RawTocEntry::new(
            "z",
            EXTRA_AT,
            packed.len() as u32,
            data.len() as u32,
            1,
        )],
    );
    let a = open(&bytes).unwrap();
    assert_eq!(a.read_entry("z").unwrap(), data);
    assert!(validate(&bytes).iter().any(|p| p.message.contains("[S6]")));
}

#[test]
fn later_layer_wins_and_reads_fall_back() {
    let base = write(&[
        ("a".into(), b"base-a".to_vec()),
        ("b".into(), b"base-b".to_vec()),
    ])
    .unwrap();
    let patch = write(&[
        ("b".into(), b"patch-b".to_vec()),
        ("c".into(), b"patch-c".to_vec()),
    ])
    .unwrap();
    // A third layer whose "a" cannot be read: the VFS falls back to the base's "a".
    let broken = with_good(b"", vec![RawTocEntry::new("a", EXTRA_AT, 0, 5, 1)]);
    let layers = [
        open(&base).unwrap(),
        open(&patch).unwrap(),
        open(&broken).unwrap(),
    ];
    let listed = layer_paths(&layers);
    let winners: Vec<(&str, usize, &[usize])> = listed
        .iter()
        .map(|l| (l.path.as_str(), l.winner, l.shadowed.as_slice()))
        .collect();
    assert_eq!(
        winners,
        [
            ("a", 2, &[0][..]),
            ("b", 1, &[0][..]),
            ("c", 1, &[][..]),
            ("good/one", 2, &[][..]),
            ("good/two", 2, &[][..])
        ]
    );
    assert_eq!(
        read_layered(&layers, "b").unwrap(),
        (1, b"patch-b".to_vec())
    );
    assert_eq!(read_layered(&layers, "a").unwrap(), (0, b"base-a".to_vec()));
    assert!(matches!(
        read_layered(&layers, "zzz"),
        Err(LayeredReadError::NotFound { .. })
    ));
}

#[test]
fn patch_plan_keeps_new_and_changed_only() {
    let base = write(&[
        ("a".into(), b"same".to_vec()),
        ("b".into(), b"old".to_vec()),
        ("gone".into(), b"x".to_vec()),
    ])
    .unwrap();
    let base = open(&base).unwrap();
    let plan = plan_patch(
        &base,
        vec![
            ("b".into(), b"new".to_vec()),
            ("a".into(), b"same".to_vec()),
            ("c".into(), b"added".to_vec()),
        ],
    );
    assert_eq!(
        plan.entries,
        [
            ("b".to_owned(), b"new".to_vec()),
            ("c".to_owned(), b"added".to_vec())
        ]
    );
    assert_eq!(plan.unchanged, ["a"]);
    assert_eq!(plan.not_removable, ["gone"]);
}

fn path_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec("[a-z0-9_][a-z0-9_.-]{0,7}", 1..4)
        .prop_map(|parts| parts.join("/"))
        .prop_filter("valid", |p| check_path(p.as_bytes()).is_ok())
}

fn payload_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 1..2000),
        (any::<u8>(), 1usize..5000).prop_map(|(b, n)| vec![b; n]),
        (1usize..4000).prop_map(|n| (0..n).map(|i| (i % 7) as u8).collect()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn prop_round_trip(files in proptest::collection::btree_map(path_strategy(), payload_strategy(), 1..12)) {
        let entries: Vec<(String, Vec<u8>)> = files.clone().into_iter().rev().collect();
        let bytes = write(&entries).unwrap();
        let a = open(&bytes).unwrap();
        prop_assert_eq!(a.len(), files.len());
        for (p, d) in &files {
            prop_assert_eq!(&a.read_entry(p.as_str()).unwrap(), d);
        }
        for e in a.entries() {
            // [S6] as written: deflate only when it saves at least 5%.
            if e.compression == Compression::Deflate {
                prop_assert!(u64::from(e.compressed_size) < u64::from(e.original_size) * 95 / 100);
            }
        }
        prop_assert!(validate(&bytes).is_empty());
    }

    #[test]
    fn prop_corruption_never_panics(pos in any::<prop::sample::Index>(), val in any::<u8>()) {
        let mut bytes = write(&sample()).unwrap();
        let i = pos.index(bytes.len());
        bytes[i] ^= val | 1;
        // Whatever the reader refuses (the archive or one entry), the validator must
        // name: `pack check` relies on it.
        let refused = match open(&bytes) {
            Ok(a) => (0..a.len()).filter(|&i| a.read_entry(i).is_err()).count() > 0,
            Err(_) => true,
        };
        let problems = validate(&bytes);
        if refused {
            prop_assert!(!problems.is_empty(), "byte {i} ^ {val:#x} refused but unseen");
        }
    }
}
