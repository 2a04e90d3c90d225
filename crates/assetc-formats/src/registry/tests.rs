use super::*;
use std::collections::BTreeSet;

/// Every kind, written out so that a new variant fails to compile here (the match in
/// `position`) until the registry test knows it.
const ALL_KINDS: [FormatKind; 14] = [
    FormatKind::HMesh,
    FormatKind::HMat,
    FormatKind::HAnim,
    FormatKind::HMan,
    FormatKind::Ktx2,
    FormatKind::QtMesh,
    FormatKind::Bmd1,
    FormatKind::Spk,
    FormatKind::HPack,
    FormatKind::HFont,
    FormatKind::Spirv,
    FormatKind::Wav,
    FormatKind::OggVorbis,
    FormatKind::Wgsl,
];

fn position(kind: FormatKind) -> usize {
    match kind {
        FormatKind::HMesh => 0,
        FormatKind::HMat => 1,
        FormatKind::HAnim => 2,
        FormatKind::HMan => 3,
        FormatKind::Ktx2 => 4,
        FormatKind::QtMesh => 5,
        FormatKind::Bmd1 => 6,
        FormatKind::Spk => 7,
        FormatKind::HPack => 8,
        FormatKind::HFont => 9,
        FormatKind::Spirv => 10,
        FormatKind::Wav => 11,
        FormatKind::OggVorbis => 12,
        FormatKind::Wgsl => 13,
    }
}

#[test]
fn every_kind_has_exactly_one_descriptor() {
    for (i, kind) in ALL_KINDS.iter().enumerate() {
        assert_eq!(position(*kind), i, "ALL_KINDS is out of step with {kind:?}");
        let lines = FORMATS.iter().filter(|f| f.kind == *kind).count();
        assert_eq!(lines, 1, "{kind:?} has {lines} lines in FORMATS");
        assert!(std::ptr::eq(by_kind(*kind), kind.format()));
        assert_eq!(by_kind(*kind).kind, *kind);
    }
    assert_eq!(FORMATS.len(), ALL_KINDS.len());
}

#[test]
fn extensions_are_unique_lower_case_and_found_by_path() {
    let mut seen = BTreeSet::new();
    for f in FORMATS {
        assert!(!f.extensions.is_empty(), "{} has no extension", f.name);
        for ext in f.extensions {
            assert!(seen.insert(*ext), ".{ext} is claimed twice");
            assert!(
                !ext.is_empty() && !ext.contains('.') && *ext == ext.to_ascii_lowercase(),
                "{ext:?} must be lower case without the dot"
            );
            for name in [format!("a/b/x.{ext}"), format!("X.{}", ext.to_uppercase())] {
                let path = Path::new(&name);
                assert_eq!(FormatKind::from_path(path), Some(f.kind), "{name}");
                assert!(by_path(path).is_some_and(|found| std::ptr::eq(found, *f)));
            }
        }
    }
    for name in ["x.png", "x.qml", "x", "hmesh", "x.hmesh.tmp", ".hmesh"] {
        assert_eq!(FormatKind::from_path(Path::new(name)), None, "{name}");
    }
}

#[test]
fn manifest_entry_kinds_name_one_format_each() {
    for kind in EntryKind::ALL {
        let formats: Vec<&str> = FORMATS
            .iter()
            .filter(|f| f.entry_kinds.contains(&kind))
            .map(|f| f.name)
            .collect();
        // A sound is written as PCM or Ogg Vorbis, told apart by the file's extension.
        let expected = match kind {
            EntryKind::RawFile => 0,
            EntryKind::Audio => 2,
            _ => 1,
        };
        assert_eq!(
            formats.len(),
            expected,
            "{kind:?} is the kind of {formats:?}"
        );
    }
    assert_eq!(
        by_entry_kind(EntryKind::ColourLut).map(|f| f.kind),
        Some(FormatKind::Ktx2)
    );
    assert_eq!(
        by_entry_kind(EntryKind::Mesh).map(|f| f.kind),
        Some(FormatKind::HMesh)
    );
    assert!(by_entry_kind(EntryKind::RawFile).is_none());
}

/// Files the crate's own writers make, one per format that has a writer needing no
/// fixture, are recognised by their signature alone and pass their own validator.
#[test]
fn written_files_carry_their_magic() {
    use crate::{hanim, hfont, hman, hmat, hpack, ktx2, qtmesh, spk, wav};
    let texture = {
        let mut img = ktx2::Ktx2Image {
            format: ktx2::PixelFormat::Rgba8,
            srgb: false,
            has_alpha: true,
            width: 2,
            height: 2,
            depth: 0,
            faces: 1,
            levels: vec![],
            zstd_level: None,
        };
        img.levels = (0..img.full_mip_count())
            .map(|l| vec![0; img.level_bytes(l).unwrap() as usize])
            .collect();
        ktx2::write(&img).unwrap()
    };
    let sound = wav::write(
        &wav::WavSpec {
            format: wav::SampleFormat::Pcm16,
            channels: 1,
            sample_rate: 8_000,
            channel_mask: 0,
        },
        wav::Samples::Pcm16(&[0; 8]),
    )
    .unwrap();
    let font = hfont::HFont {
        header: hfont::HFontHeader {
            distance_range: 4.0,
            edge_value: 0.5,
            atlas_width: 16,
            atlas_height: 16,
            ..Default::default()
        },
        glyphs: vec![hfont::Glyph::default()],
        kerning: vec![],
    };
    let files = [
        (FormatKind::HMat, hmat::write(&hmat::HMat::default())),
        (
            FormatKind::HAnim,
            hanim::write(&hanim::HAnim::default()).unwrap(),
        ),
        (
            FormatKind::HMan,
            hman::write(&hman::Manifest::default()).unwrap(),
        ),
        (FormatKind::HFont, hfont::write(&font).unwrap()),
        (FormatKind::HPack, hpack::write(&[]).unwrap()),
        (
            FormatKind::Spk,
            spk::write(&[("a.txt".to_owned(), b"x".to_vec())]).unwrap(),
        ),
        (
            FormatKind::QtMesh,
            qtmesh::write(&qtmesh::QtMeshFile::default(), qtmesh::NEWEST_MESH_VERSION).unwrap(),
        ),
        (FormatKind::Ktx2, texture),
        (FormatKind::Wav, sound),
    ];
    for (kind, bytes) in &files {
        let found = by_magic(bytes).map(|f| f.kind);
        assert_eq!(found, Some(*kind), "{kind:?} written is read as {found:?}");
        assert!(kind.format().matches_magic(bytes));
        let others = FORMATS.iter().filter(|f| f.matches_magic(bytes)).count();
        assert_eq!(others, 1, "{kind:?}'s bytes match {others} signatures");
    }
}

#[test]
fn an_empty_file_is_no_format_of_ours() {
    for f in FORMATS {
        assert!(!f.matches_magic(&[]), "{}", f.name);
        assert!(
            !(f.validate)(&[]).is_empty(),
            "{} validates 0 bytes",
            f.name
        );
        assert!((f.describe)(&[]).is_err(), "{} describes 0 bytes", f.name);
    }
    assert!(by_magic(b"not a file of ours").is_none());
}
