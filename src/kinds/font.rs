//! Fonts: a `.ttf` or `.otf` becomes `<ref>.hfont` (metrics, atlas rectangles, kerning;
//! manifest kind 7, named by its path) and its distance-field atlas `<ref>.ktx2`
//! (manifest kind 0, named by the ref, which the `.hfont`'s atlasTex holds).

use crate::code::DiagnosticCode;
use crate::code::Warning;
pub mod charset;
mod compile;
mod field;
mod kerning;
mod outline;
mod pack;
pub mod settings;

pub use compile::{compile_face, CompiledFont, EDGE_VALUE};

use super::texture::read_limited;
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hash::fnv1a64;
use crate::formats::hman::EntryKind;
use crate::formats::{hfont, ktx2};
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use crate::kinds::source::Source;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Font,
    name: "font",
    recognise: Recognise::FileSuffixes(&[".ttf", ".otf"]),
    sources: ".ttf .otf (TrueType, OpenType CFF)",
    outputs: "<ref>.hfont + its distance-field atlas <ref>.ktx2",
    // `<ref>.hfont` and `<ref>.ktx2`: the atlas name is the one claimed.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 6,
        claims: Claim::RefWith(".ktx2"),
    },
    compile,
    settings_key: |settings, key| key.table("font", &settings.font),
    encoders: &["ttf-parser", "fdsm", "zstd"],
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: super::never_encodes_uastc,
};

/// Largest font file read: a full CJK font is 20-30 MB; a bigger file is a mistake.
pub const MAX_FONT_FILE_BYTES: u64 = 256 << 20;
/// zstd level of the atlas: a distance field is smooth and mostly empty, and one atlas
/// per font is little work even at a deep level.
const ZSTD_LEVEL_ATLAS: i32 = 19;
/// Charset codepoints a missing-glyph warning names before it counts the rest.
const WARNING_RANGES: usize = 48;

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let display = source.abs_path.display().to_string();
    let invalid = |message: String| AssetError::Invalid {
        path: display.clone(),
        message,
    };
    let settings = &context.settings.font;
    settings.validate().map_err(|e| invalid(e.to_string()))?;
    let bytes = read_limited(&source.abs_path, MAX_FONT_FILE_BYTES)?;
    let face = ttf_parser::Face::parse(&bytes, 0)
        .map_err(|e| invalid(format!("not a TrueType/OpenType font: {e}")))?;
    let tables = face.tables();
    if tables.glyf.is_none() && tables.cff.is_none() && tables.cff2.is_none() {
        return Err(invalid(
            "has no outlines (no readable glyf, CFF or CFF2 table): the file is damaged or \
             truncated, or a bitmap-only font"
                .into(),
        ));
    }
    if tables.cmap.is_none() {
        return Err(invalid(
            "has no readable cmap table: no character can be found in it".into(),
        ));
    }
    let set = charset::resolve(&settings.charset, &settings.charset_file, context.input_root).map_err(|e| invalid(e.to_string()))?;
    let reference = source.runtime_ref();
    let atlas_id = fnv1a64(&reference);
    let font = compile_face(&face, &set.codepoints, settings, atlas_id)
        .map_err(|e| invalid(e.to_string()))?;

    let mut warnings: Vec<Warning> = Vec::new();
    if !font.missing.is_empty() {
        warnings.push(Warning::new(
            DiagnosticCode::MissingGlyphs,
            format!(
                "the font has no glyph for {} codepoint(s) of the charset, drawn as .notdef: {}",
                font.missing.len(),
                charset::describe(&font.missing, WARNING_RANGES)
            ),
        ));
    }
    let hfont_bytes = hfont::write(&font.hfont).map_err(|e| invalid(e.to_string()))?;
    let side = settings.atlas_size;
    let atlas = ktx2::write(&ktx2::Ktx2Image {
        format: ktx2::PixelFormat::Rgba8,
        // Distances, not colours: sampled as they are stored.
        srgb: false,
        // An MSDF atlas keeps the true distance in alpha; an SDF's alpha is constant.
        has_alpha: settings.msdf,
        width: side,
        height: side,
        depth: 0,
        faces: 1,
        // One level: a mip of a distance field is a field of another size, which the
        // plane rectangles do not describe; a shader antialiases with the range instead.
        levels: vec![font.atlas],
        zstd_level: Some(ZSTD_LEVEL_ATLAS),
    })
    .map_err(|e| invalid(format!("atlas: {e}")))?;
    let atlas_file = OutputFile {
        manifest_id: Some(atlas_id),
        ..OutputFile::new(format!("{reference}.ktx2"), atlas, EntryKind::Texture)
    };
    let hfont_file = OutputFile::new(format!("{reference}.hfont"), hfont_bytes, EntryKind::Font);
    let mut inputs = vec![source.abs_path.clone()];
    inputs.extend(set.file);
    Ok(CompiledAsset {
        files: vec![hfont_file, atlas_file],
        textures: Vec::new(),
        warnings,
        stats: Default::default(),
        times: Default::default(),
        inputs,
    })
}
