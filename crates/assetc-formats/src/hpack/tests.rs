use super::*;
use crate::bytes::WriteLe;
use proptest::prelude::*;

fn sample_entries() -> Vec<HPackEntry> {
    // Given out of order; one empty file; one path beyond ASCII; every kind.
    vec![
        HPackEntry::new("tex/00000000000000ff.ktx2", vec![5; 40]),
        HPackEntry::new("models/chair.hmesh", b"MESH-AAA".to_vec()),
        HPackEntry::new("assets.hman", b"MANIFEST".to_vec()),
        HPackEntry::new("models/chair.hmat", vec![2; 16]),
        HPackEntry::new("models/chair.hanim", vec![]),
        HPackEntry::new("shaders/bloom/down.spv", vec![6; 17]),
        HPackEntry::new("fonts/sans.hfont", vec![7; 3]),
        HPackEntry::new("scene/niveau-été.json", b"{}".to_vec()),
    ]
}

fn sample() -> Vec<u8> {
    write(&sample_entries()).unwrap()
}

/// One table entry for [`raw`]: offset, size, kind, path.
type RawToc<'a> = (u64, u64, u8, &'a [u8]);

/// A pack assembled field by field, with nothing checked: the header (count = the
/// entries given, flags 0, tocBytes = their size), the table, then `payloads` written at
/// their offsets into a file of `len` zero bytes.
fn raw(toc: &[RawToc], payloads: &[(usize, &[u8])], len: usize) -> Vec<u8> {
    let mut out = Vec::new();
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(toc.len() as u32);
    out.put_u32(0);
    let toc_bytes: usize = toc.iter().map(|t| TOC_ENTRY_FIXED_SIZE + t.3.len()).sum();
    out.put_u64(toc_bytes as u64);
    for &(offset, size, kind, path) in toc {
        out.put_u64(offset);
        out.put_u64(size);
        out.put_u8(kind);
        out.put_u16(path.len() as u16);
        out.extend_from_slice(path);
    }
    assert!(out.len() <= len, "table ends at {}", out.len());
    out.resize(len, 0);
    for &(at, data) in payloads {
        out[at..at + data.len()].copy_from_slice(data);
    }
    out
}

/// Two entries laid out as the writer would: "a.hmesh" (5 bytes at 80) and "b.bin"
/// (3 bytes at 96). The table is 2 x 19 + 7 + 5 = 50 bytes, ending at 74; the file is
/// padded to 112.
fn two(toc: [RawToc; 2]) -> Vec<u8> {
    raw(&toc, &[(80, b"AAAAA"), (96, b"BBB")], 112)
}
const A: RawToc = (80, 5, 1, b"a.hmesh");
const B: RawToc = (96, 3, 0, b"b.bin");

fn messages(bytes: &[u8]) -> Vec<String> {
    validate(bytes).iter().map(ToString::to_string).collect()
}

fn assert_problem(bytes: &[u8], needle: &str) {
    let found = messages(bytes);
    assert!(
        found.iter().any(|m| m.contains(needle)),
        "expected a problem containing {needle:?}, got {found:?}"
    );
}

#[test]
fn round_trip_sorted_aligned_padded() {
    let given = sample_entries();
    let bytes = sample();
    assert_eq!(messages(&bytes), Vec::<String>::new());
    let pack = read(&bytes).unwrap();
    assert_eq!(pack.len(), given.len());
    assert_eq!(pack.flags(), 0);
    let mut expected = given.clone();
    expected.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    for (i, (e, want)) in pack.entries().iter().zip(&expected).enumerate() {
        assert_eq!(e.index, i);
        assert_eq!(e.path, want.path);
        assert_eq!(e.kind, PackKind::of_path(&want.path) as u8);
        assert_eq!(e.size, want.data.len() as u64);
        assert_eq!(e.offset % ALIGN, 0, "{}", e.path);
        assert_eq!(pack.data(i).unwrap(), want.data.as_slice());
        assert_eq!(pack.find(&e.path), Some(e));
    }
    assert_eq!(pack.find("missing"), None);
    assert_eq!(pack.data(given.len()), None);
    // Every payload is padded, the last one too.
    assert_eq!(bytes.len() as u64 % ALIGN, 0);
    let kinds: Vec<u8> = pack.entries().iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [3, 7, 4, 2, 1, 0, 6, 5]);
}

#[test]
fn layout_is_the_specs() {
    let bytes = write(&[
        HPackEntry::new("b.bin", b"BBB".to_vec()),
        HPackEntry::new("a.hmesh", b"AAAAA".to_vec()),
    ])
    .unwrap();
    // Header 24 B; table 50 B ending at 74; payloads at 80 (aligned up from 74) and 96
    // (aligned up from 85); the last padded to 112.
    let mut expected = Vec::new();
    expected.extend_from_slice(b"HPAK");
    expected.extend_from_slice(&2u32.to_le_bytes());
    expected.extend_from_slice(&2u32.to_le_bytes());
    expected.extend_from_slice(&0u32.to_le_bytes());
    expected.extend_from_slice(&50u64.to_le_bytes());
    for (offset, size, kind, path) in [(80u64, 5u64, 1u8, "a.hmesh"), (96, 3, 0, "b.bin")] {
        expected.extend_from_slice(&offset.to_le_bytes());
        expected.extend_from_slice(&size.to_le_bytes());
        expected.push(kind);
        expected.extend_from_slice(&(path.len() as u16).to_le_bytes());
        expected.extend_from_slice(path.as_bytes());
    }
    assert_eq!(expected.len(), 74);
    expected.resize(80, 0);
    expected.extend_from_slice(b"AAAAA");
    expected.resize(96, 0);
    expected.extend_from_slice(b"BBB");
    expected.resize(112, 0);
    assert_eq!(bytes, expected);
    assert_eq!(bytes, two([A, B]));
}

#[test]
fn empty_pack_is_its_header() {
    let bytes = write(&[]).unwrap();
    assert_eq!(bytes.len(), HEADER_SIZE);
    assert_eq!(messages(&bytes), Vec::<String>::new());
    assert!(read(&bytes).unwrap().is_empty());
}

#[test]
fn same_files_in_any_order_give_the_same_bytes() {
    let mut entries = sample_entries();
    let first = write(&entries).unwrap();
    entries.reverse();
    assert_eq!(write(&entries).unwrap(), first);
    entries.rotate_left(3);
    assert_eq!(write(&entries).unwrap(), first);
}

#[test]
fn kinds_follow_the_extension_as_the_sdk_does() {
    for (path, kind) in [
        ("a.hmesh", PackKind::Mesh),
        ("a.hmat", PackKind::Material),
        ("assets.hman", PackKind::Manifest),
        ("a.hanim", PackKind::Animation),
        ("tex/x.ktx2", PackKind::Texture),
        ("s/main.spv", PackKind::Shader),
        ("f.hfont", PackKind::Font),
        ("a.json", PackKind::Other),
        ("a.hmesh.bak", PackKind::Other),
        // Case-sensitive, like PackKindOf.
        ("A.HMESH", PackKind::Other),
    ] {
        assert_eq!(PackKind::of_path(path), kind, "{path}");
    }
    for (byte, kind) in PackKind::ALL.iter().enumerate() {
        assert_eq!(PackKind::from_u8(byte as u8), Some(*kind));
    }
    assert_eq!(PackKind::from_u8(8), None);
    assert_eq!(kind_name(9), "unknown (9)");
}

#[test]
fn an_unpadded_last_payload_is_valid() {
    // The original assetc's writer stops right after the last payload.
    let bytes = two([A, B]);
    let unpadded = &bytes[..99];
    assert_eq!(messages(unpadded), Vec::<String>::new());
    assert_eq!(read(unpadded).unwrap().data(1).unwrap(), b"BBB");
    assert_eq!(messages(&bytes), Vec::<String>::new());
}

#[test]
fn writer_refuses_what_the_validator_reports() {
    let e = |p: &str| HPackEntry::new(p, vec![1]);
    for path in [
        "/abs", "a/../b", "a\\b", "a//b", "", "c:/x", "./a", "a/\u{7}",
    ] {
        assert!(
            matches!(write(&[e(path)]), Err(HPackError::InvalidPath { .. })),
            "{path:?}"
        );
    }
    assert!(matches!(
        write(&[e("a.bin"), e("a.bin")]),
        Err(HPackError::DuplicatePath { .. })
    ));
    assert!(matches!(
        write(&[e("Tex/A.bin"), e("tex/a.bin")]),
        Err(HPackError::CaseClash { .. })
    ));
    // Unicode case folds too: NTFS and APFS store these as one file.
    assert!(matches!(
        write(&[e("été.bin"), e("ÉTÉ.bin")]),
        Err(HPackError::CaseClash { .. })
    ));
    let mut wrong = e("a.hmesh");
    wrong.kind = 0;
    assert!(matches!(
        write(&[wrong]),
        Err(HPackError::KindMismatch {
            kind: 0,
            expected: 1,
            ..
        })
    ));
}

#[test]
fn header_problems() {
    let good = two([A, B]);
    let patched = |at: usize, with: &[u8]| {
        let mut b = good.clone();
        b[at..at + with.len()].copy_from_slice(with);
        b
    };
    assert_problem(&patched(0, b"HPAC"), "magic");
    assert_problem(&patched(4, &1u32.to_le_bytes()), "version is 1");
    assert_problem(&patched(12, &1u32.to_le_bytes()), "flags are 0x1");
    // A count larger than the table holds.
    assert_problem(
        &patched(8, &3u32.to_le_bytes()),
        "table entry 2 does not fit",
    );
    assert_problem(&patched(8, &u32::MAX.to_le_bytes()), "does not fit");
    // A table larger than the file, or larger than its entries.
    assert_problem(&patched(16, &89u64.to_le_bytes()), "runs past the end");
    assert_problem(&patched(16, &u64::MAX.to_le_bytes()), "runs past the end");
    assert_problem(&patched(16, &52u64.to_le_bytes()), "2 bytes of the table");
    assert_problem(&good[..20], "header needs 8 bytes");
    // Each of these is also refused by `read`.
    for bad in [
        patched(0, b"HPAC"),
        patched(4, &1u32.to_le_bytes()),
        patched(8, &3u32.to_le_bytes()),
        patched(16, &89u64.to_le_bytes()),
        patched(16, &52u64.to_le_bytes()),
    ] {
        assert!(read(&bad).is_err());
    }
}

#[test]
fn order_and_duplicates() {
    let b_first = two([(80, 5, 0, b"b.bin"), (96, 3, 1, b"a.hmesh")]);
    assert_problem(
        &b_first,
        "entry 1 \"a.hmesh\": path sorts before the previous \"b.bin\"",
    );
    assert!(matches!(
        read(&b_first),
        Err(HPackError::NotSorted { index: 1, .. })
    ));
    let twice = two([(80, 5, 0, b"b.bin"), (96, 3, 0, b"b.bin")]);
    assert_problem(&twice, "entry 1 \"b.bin\": path is listed twice");
    assert!(matches!(read(&twice), Err(HPackError::NotSorted { .. })));
}

#[test]
fn path_problems() {
    // Every path sorts after "a.hmesh" (or is checked on its own as entry 0).
    for (path, why) in [
        (&b"/b.bin"[..], "absolute"),
        (b"b/../x.bin", "`..`"),
        (b"b/./x.bin", "`.`"),
        (b"b\\x.bin", "backslash"),
        (b"b//x.bin", "empty segment"),
        (b"b/x.bin/", "empty segment"),
        (b"b:x.bin", "colon"),
        (b"b\0.bin", "control character"),
        (b"b\xff.bin", "not valid UTF-8"),
    ] {
        let mut toc = [A, B];
        toc[1].3 = path;
        // The table still ends before the first payload at 80.
        let bytes = raw(&toc, &[(80, b"AAAAA"), (96, b"BBB")], 112);
        let found = messages(&bytes);
        assert!(
            found
                .iter()
                .any(|m| m.contains("entry 1") && m.contains(why)),
            "{:?}: {found:?}",
            String::from_utf8_lossy(path)
        );
    }
    // Not UTF-8: `read` refuses it too (its entries hold strings).
    let mut toc = [A, B];
    toc[1].3 = b"b\xff.bin";
    let bytes = raw(&toc, &[], 112);
    assert!(matches!(
        read(&bytes),
        Err(HPackError::PathNotUtf8 { index: 1, .. })
    ));
}

#[test]
fn case_clash() {
    let bytes = two([(80, 5, 0, b"B.bin"), (96, 3, 0, b"b.bin")]);
    assert_problem(
        &bytes,
        "entry 1 \"b.bin\": differs only in case from entry 0 \"B.bin\"",
    );
}

#[test]
fn misaligned_payload() {
    let bytes = two([(88, 5, 1, b"a.hmesh"), B]);
    assert_problem(
        &bytes,
        "entry 0 \"a.hmesh\": payload offset 88 is not a multiple of 16",
    );
}

#[test]
fn overlapping_payloads() {
    // b's payload starts inside a's.
    let bytes = two([(80, 20, 1, b"a.hmesh"), B]);
    assert_problem(
        &bytes,
        "entry 1 \"b.bin\": payload [96, 99) overlaps the payload of entry 0 \"a.hmesh\"",
    );
    // A payload inside the table.
    let bytes = two([(48, 5, 1, b"a.hmesh"), B]);
    assert_problem(
        &bytes,
        "entry 0 \"a.hmesh\": payload [48, 53) overlaps the header and table",
    );
    // One payload shared by two entries is an overlap too.
    let bytes = two([A, (80, 5, 0, b"b.bin")]);
    assert_problem(&bytes, "overlaps the payload of entry 0");
}

#[test]
fn payload_past_the_end() {
    for (offset, size) in [(96, 17), (112, 1), (u64::MAX - 15, 32), (0, u64::MAX)] {
        let bytes = two([A, (offset, size, 0, b"b.bin")]);
        assert_problem(&bytes, "entry 1 \"b.bin\": payload of");
        assert!(
            matches!(
                read(&bytes),
                Err(HPackError::PayloadPastEnd { index: 1, .. })
            ),
            "{offset} {size}"
        );
    }
}

#[test]
fn kind_disagreeing_with_the_extension() {
    let bytes = two([(80, 5, 0, b"a.hmesh"), B]);
    assert_problem(
        &bytes,
        "entry 0 \"a.hmesh\": kind 0 (other) disagrees with the extension, which gives 1 (mesh)",
    );
    let bytes = two([A, (96, 3, 9, b"b.bin")]);
    assert_problem(&bytes, "kind 9 (unknown (9))");
}

#[test]
fn non_zero_padding() {
    // Between the table and the first payload, between payloads, after the last.
    for at in [74, 79, 85, 95, 99, 111] {
        let mut bytes = two([A, B]);
        bytes[at] = 0xAB;
        assert_problem(&bytes, "padding byte is 0xab");
        assert_eq!(validate(&bytes)[0].offset, Some(at as u64));
    }
}

#[test]
fn bytes_that_belong_to_no_entry() {
    // A 16-byte hole before b's payload, and 16 stray bytes after the last payload.
    let bytes = raw(
        &[A, (112, 3, 0, b"b.bin")],
        &[(80, b"AAAAA"), (112, b"BBB")],
        128,
    );
    assert_problem(&bytes, "16 bytes at 96..112 belong to no entry");
    let mut long = two([A, B]);
    long.resize(128, 0);
    assert_problem(&long, "16 bytes at 112..128 belong to no entry");
}

#[test]
fn every_prefix_of_the_payloads_is_refused() {
    let bytes = sample();
    let pack = read(&bytes).unwrap();
    let last_end = pack
        .entries()
        .iter()
        .map(|e| e.offset + e.size)
        .max()
        .unwrap() as usize;
    for n in 0..bytes.len() {
        let problems = validate(&bytes[..n]);
        if n < last_end {
            assert!(!problems.is_empty(), "prefix {n}");
            assert!(read(&bytes[..n]).is_err(), "prefix {n}");
        } else {
            // Only the last payload's padding is cut.
            assert_eq!(problems, vec![], "prefix {n}");
        }
    }
}

#[test]
fn hostile_counts_do_not_allocate() {
    // count u32::MAX with an empty table: refused at the first entry, no 4-billion-entry
    // reservation.
    let mut bytes = raw(&[], &[], 24);
    bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        read(&bytes),
        Err(HPackError::TocOverrun { index: 0, .. })
    ));
    // pathLen larger than what the table has left.
    let mut bytes = two([A, B]);
    bytes[24 + 17..24 + 19].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(matches!(
        read(&bytes),
        Err(HPackError::TocOverrun { index: 0, .. })
    ));
}

#[test]
fn problems_say_their_offset_once() {
    let mut bytes = sample();
    bytes[0] = b'X';
    let p = &validate(&bytes)[0];
    assert_eq!(p.offset, Some(0));
    assert!(!p.message.starts_with("at byte"), "{p}");
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = validate(&bytes);
        let _ = read(&bytes);
    }

    /// Random tables behind a valid header reach the entry and layout checks.
    #[test]
    fn random_tables_never_panic(
        count in 0u32..6,
        toc_bytes in 0u64..300,
        rest in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let mut bytes = Vec::new();
        bytes.put_u32(MAGIC);
        bytes.put_u32(VERSION);
        bytes.put_u32(count);
        bytes.put_u32(0);
        bytes.put_u64(toc_bytes);
        bytes.extend_from_slice(&rest);
        let problems = validate(&bytes);
        let opened = read(&bytes);
        // The validator is at least as strict as the reader.
        if problems.is_empty() {
            prop_assert!(opened.is_ok());
        }
        if let Ok(pack) = opened {
            for i in 0..pack.len() {
                prop_assert!(pack.data(i).is_some());
            }
        }
    }

    #[test]
    fn bit_flips_never_panic(bit in 0usize..(8 * 400)) {
        let mut b = sample();
        let byte = bit / 8 % b.len();
        b[byte] ^= 1 << (bit % 8);
        let problems = validate(&b);
        if read(&b).is_err() {
            prop_assert!(!problems.is_empty());
        }
    }
}
