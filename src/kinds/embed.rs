//! Embedded files: anything named by a top-level `embed` glob of build.toml is copied
//! byte for byte to its own path (case and extension kept) and registered in the
//! manifest as a raw file (kind 5), as the original assetc's `embed:` list does.

use super::texture::read_limited;
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hman::EntryKind;
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use crate::kinds::source::Source;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Embed,
    name: "embed",
    recognise: Recognise::EmbedGlobs,
    sources: "any file matched by a top-level `embed` glob of build.toml",
    outputs: "the file itself, byte for byte, at its own path",
    // Written at its own path; its ref (for the manifest) leaves room as for `.hmesh`.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 6,
        claims: Claim::SourcePath,
    },
    compile,
    settings_key: super::reads_no_settings,
    encoders: &[],
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: true,
    may_encode_uastc: super::never_encodes_uastc,
};

/// Embedded files are loaded whole by games; a multi-GB file here is a mistake.
const MAX_EMBED_FILE_BYTES: u64 = 1 << 30;

fn compile(source: &Source, _context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let bytes = read_limited(&source.abs_path, MAX_EMBED_FILE_BYTES)?;
    Ok(CompiledAsset {
        files: vec![OutputFile::new(
            source.rel_path.clone(),
            bytes,
            EntryKind::RawFile,
        )],
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: Default::default(),
        times: Default::default(),
        inputs: vec![source.abs_path.clone()],
    })
}
