//! The kinds of asset a build compiles, in one registry.
//!
//! A kind says which sources are its own ([`Recognise`]), how one source becomes its
//! output files ([`AssetKind::compile`]) and what it writes (for `--help`, `init` and the
//! docs). Discovery asks [`kind_of_file`] and [`kind_of_folder`]; the driver calls the
//! kind's `compile` and handles every kind's files alike (cache, remote cache, manifest,
//! validation, reports). Adding a kind is a module here plus one line in [`KINDS`].

pub mod asset;
pub mod audio;
pub mod cubemap;
pub mod embed;
pub mod font;
mod gpu_ready;
pub mod lut;
pub mod model;
pub mod settings;
pub mod shader;
pub mod source;
pub mod tables;
pub mod texture;

use crate::kinds::asset::{AssetError, AssetSettings, CompiledAsset};
use crate::kinds::source::Source;
use std::path::Path;

/// Which kind a source is; stored in the cache's settings key, so a file that changes
/// kind (a new `embed` glob) is rebuilt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KindId {
    Model,
    Texture,
    Cubemap,
    Lut,
    Embed,
    Font,
    Shader,
    Audio,
}

/// How a kind recognises its sources by name (lower-cased before matching).
#[derive(Debug, Clone, Copy)]
pub enum Recognise {
    /// Files whose name ends with one of these (`.lut.cube`, `.png`).
    FileSuffixes(&'static [&'static str]),
    /// Folders whose name ends with this (`.env`); the folder is one source.
    FolderSuffix(&'static str),
    /// Files named by the build's `embed` globs (they win over every other kind).
    EmbedGlobs,
}

/// How a kind names its outputs after its source (see [`Source::runtime_ref`] and
/// [`Source::claimed_output`]).
#[derive(Debug, Clone, Copy)]
pub struct OutputNaming {
    /// The ref keeps the source's extension (a cubemap folder's `.env`).
    pub ref_keeps_extension: bool,
    /// Bytes a file name of the ref leaves free for the extension its outputs add: a ref
    /// too long for that is shortened (docs/formats.md "Long names").
    pub extension_room: usize,
    /// The output path no two sources may share.
    pub claims: Claim,
}

/// The output path a source claims, for collisions between sources.
#[derive(Debug, Clone, Copy)]
pub enum Claim {
    /// Its runtime ref (a model's outputs are `<ref>.*`).
    Ref,
    /// Its own relative path (an embedded file is written where it is).
    SourcePath,
    /// Its ref with this appended (`.ktx2`; `/` for a folder of outputs).
    RefWith(&'static str),
}

/// What a kind's compile step gets besides the source.
pub struct CompileContext<'a> {
    pub input_root: &'a Path,
    pub settings: &'a AssetSettings,
}

/// One kind of asset.
pub struct AssetKind {
    pub id: KindId,
    /// Its name in messages, `--help` and JSON (`texture`, `cubemap`).
    pub name: &'static str,
    pub recognise: Recognise,
    /// Its sources, for `--help` and the docs.
    pub sources: &'static str,
    /// What it writes, for `--help` and the docs.
    pub outputs: &'static str,
    /// How its outputs are named after the source.
    pub naming: OutputNaming,
    /// Compiles one source entirely in memory; nothing is written until it succeeded.
    pub compile: fn(&Source, &CompileContext) -> Result<CompiledAsset, AssetError>,
}

/// Every kind, in the order names are tried: the longer suffix (`.lut.cube`) before any
/// shorter one it could be mistaken for.
pub static KINDS: &[&AssetKind] = &[
    &embed::KIND,
    &cubemap::KIND,
    &lut::KIND,
    &font::KIND,
    &model::KIND,
    &texture::KIND,
    &shader::KIND,
    &audio::KIND,
];

/// The registered kind with this id.
pub fn kind(id: KindId) -> &'static AssetKind {
    KINDS
        .iter()
        .copied()
        .find(|k| k.id == id)
        .unwrap_or(&model::KIND)
}

/// The kind of a file by its name, when one claims it (embeds are matched by glob
/// elsewhere).
pub fn kind_of_file(file_name: &str) -> Option<KindId> {
    let lower = file_name.to_ascii_lowercase();
    KINDS.iter().find_map(|k| match k.recognise {
        Recognise::FileSuffixes(suffixes) => suffixes
            .iter()
            .any(|s| lower.len() > s.len() && lower.ends_with(s))
            .then_some(k.id),
        _ => None,
    })
}

/// The kind of a folder that is one source as a whole (`sky.env/`).
pub fn kind_of_folder(folder_name: &str) -> Option<KindId> {
    let lower = folder_name.to_ascii_lowercase();
    KINDS.iter().find_map(|k| match k.recognise {
        Recognise::FolderSuffix(s) => (lower.len() > s.len() && lower.ends_with(s)).then_some(k.id),
        _ => None,
    })
}

/// A table of the kinds for `--help` and the docs: name, sources, outputs.
pub fn help_table() -> String {
    KINDS
        .iter()
        .map(|k| format!("  {:<9} {}  ->  {}", k.name, k.sources, k.outputs))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pick_the_kind_that_owns_them() {
        assert_eq!(kind_of_file("Chair.GLB"), Some(KindId::Model));
        assert_eq!(kind_of_file("scene.gltf"), Some(KindId::Model));
        assert_eq!(kind_of_file("ui/Button.PNG"), Some(KindId::Texture));
        assert_eq!(kind_of_file("sky.exr"), Some(KindId::Texture));
        assert_eq!(kind_of_file("grade.lut.cube"), Some(KindId::Lut));
        assert_eq!(kind_of_file("ui/Inter.TTF"), Some(KindId::Font));
        assert_eq!(kind_of_file("NimbusSans.otf"), Some(KindId::Font));
        // A `.cube` that is not named as a LUT is no kind of ours.
        assert_eq!(kind_of_file("mesh.cube"), None);
        assert_eq!(kind_of_file("notes.txt"), None);
        assert_eq!(kind_of_file("post/Bloom.WGSL"), Some(KindId::Shader));
        assert_eq!(kind_of_file("lit.frag"), Some(KindId::Shader));
        assert_eq!(kind_of_file("common.glsl"), Some(KindId::Shader));
        assert_eq!(kind_of_file("sfx/Hit.WAV"), Some(KindId::Audio));
        assert_eq!(kind_of_file("bell.oga"), Some(KindId::Audio));
        // A bare extension is not a name.
        assert_eq!(kind_of_file(".png"), None);
        assert_eq!(kind_of_folder("Sky.ENV"), Some(KindId::Cubemap));
        assert_eq!(kind_of_folder("env"), None);
        assert_eq!(kind_of_folder("models"), None);
    }

    #[test]
    fn every_kind_is_registered_once() {
        for id in [
            KindId::Model,
            KindId::Texture,
            KindId::Cubemap,
            KindId::Lut,
            KindId::Embed,
            KindId::Font,
            KindId::Shader,
            KindId::Audio,
        ] {
            assert_eq!(KINDS.iter().filter(|k| k.id == id).count(), 1, "{id:?}");
            assert_eq!(kind(id).id, id);
        }
    }
}
