//! Colour LUTs: `<name>.lut.cube` (the Adobe/Resolve 3D LUT text format) becomes a 3D
//! `.ktx2` (manifest kind 3).

use super::texture::read_limited;
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hman::EntryKind;
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use crate::kinds::source::Source;
use crate::pipeline::textures::encode_lut;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Lut,
    name: "lut",
    recognise: Recognise::FileSuffixes(&[".lut.cube"]),
    sources: "<name>.lut.cube (Adobe/Resolve 3D LUT)",
    outputs: "<name>.lut.ktx2 (3D, R8G8B8A8_UNORM)",
    // `<ref>.ktx2`.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 5,
        claims: Claim::RefWith(".ktx2"),
    },
    compile,
    // The LUT's encoding is fixed by the format (docs/formats.md): no table changes it.
    settings_key: super::reads_no_settings,
    encoders: &[],
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: super::never_encodes_uastc,
};

/// A 256³ LUT, the largest size accepted, is about 16.8 M lines of three numbers; this
/// leaves room for long number spellings and comments.
const MAX_LUT_FILE_BYTES: u64 = 1 << 30;

fn compile(source: &Source, _context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let path = source.abs_path.display().to_string();
    let bytes = read_limited(&source.abs_path, MAX_LUT_FILE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|e| AssetError::Invalid {
        path: path.clone(),
        message: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
    })?;
    // The parser's error names the line: `file.lut.cube:12: ...`.
    let ktx2 = encode_lut(&text).map_err(|e| AssetError::InvalidText {
        path: path.clone(),
        position: crate::code::TextPosition {
            line: e.line,
            column: None,
        },
        message: e.message.clone(),
    })?;
    let reference = source.runtime_ref();
    let file = OutputFile {
        manifest_id: Some(crate::formats::hash::fnv1a64(&reference)),
        ..OutputFile::new(format!("{reference}.ktx2"), ktx2, EntryKind::ColourLut)
    };
    Ok(CompiledAsset {
        files: vec![file],
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: Default::default(),
        times: Default::default(),
        inputs: vec![source.abs_path.clone()],
    })
}
