//! The kinds of asset a build compiles, in one registry.
//!
//! A kind says which sources are its own ([`Recognise`]), how one source becomes its
//! output files ([`AssetKind::compile`]) and what it writes (for `--help`, `init` and the
//! docs). Discovery asks [`kind_of_file`] and [`kind_of_folder`]; the driver calls the
//! kind's `compile` and handles every kind's files alike (cache, remote cache, manifest,
//! validation, reports). Adding a kind is a module here plus one line in [`with_kinds`].

pub mod asset;
pub mod key;
pub mod settings;
pub mod source;
pub mod tables;

/// The one registry of kinds: each kind's id, its module (whose `KIND` describes it), and
/// the build.toml tables it owns (`[name]`: its settings type), in the order names are
/// tried: a longer suffix (`.lut.cube`) before any shorter one it could be mistaken for.
/// Calls `$callback! { $args [Id module [table: Type, ...], ...] }`.
macro_rules! with_kinds {
    ($callback:ident! { $($args:tt)* }) => {
        $callback! { $($args)* [
            Embed embed [],
            Cubemap cubemap [],
            Lut lut [],
            Font font [font: $crate::kinds::font::settings::FontSettings,],
            Model model [
                mesh: $crate::pipeline::MeshSettings,
                animation: $crate::rig::hanim::AnimationSettings,
                bmd1: $crate::targets::bmd1::Bmd1Settings,
                qtmesh: $crate::targets::qtmesh::QtTargetSettings,
            ],
            Texture texture [texture: $crate::pipeline::textures::TextureSettings,],
            Shader shader [shader: $crate::kinds::shader::settings::ShaderSettings,],
            Audio audio [audio: $crate::kinds::audio::settings::AudioSettings,],
        ] }
    };
}

pub(crate) use with_kinds;

macro_rules! registry {
    ([$($id:ident $module:ident [$($tables:tt)*],)*]) => {
        $(pub mod $module;)*

        /// Which kind a source is; in the cache's settings key (by name), so a file that
        /// changes kind (a new `embed` glob) is rebuilt.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum KindId {
            $($id,)*
        }

        /// Every kind, in the order names are tried.
        pub static KINDS: &[&AssetKind] = &[$(&$module::KIND,)*];

        /// Every kind's id, in the registry's order.
        pub const KIND_IDS: &[KindId] = &[$(KindId::$id,)*];
    };
}

with_kinds!(registry! {});

use crate::kinds::asset::{AssetError, AssetSettings, CompiledAsset};
use crate::kinds::key::KeyText;
use crate::kinds::source::Source;
use std::path::{Path, PathBuf};

/// How a kind recognises its sources by name (lower-cased before matching).
#[derive(Debug, Clone, Copy)]
pub enum Recognise {
    /// Files whose name ends with one of these (`.lut.cube`, `.png`).
    FileSuffixes(&'static [&'static str]),
    /// Folders whose name ends with this (`.env`); the folder is one source.
    FolderSuffix(&'static str),
    /// Files named by the build's `embed` globs: over another kind only when a pattern
    /// names its files (`driver::discover::embed_wins`).
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
    /// `[limits]`: each kind refuses a source whose estimated needs exceed them.
    pub limits: &'a crate::limits::Limits,
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
    /// Adds the settings tables `compile` reads to its key ([`key`]): nothing else of the
    /// build's settings can change its outputs, so nothing else rebuilds it.
    pub settings_key: fn(&AssetSettings, &mut KeyText),
    /// The crates that encode or decode its bytes, whose versions are in its key.
    pub encoders: &'static [&'static str],
    /// The files a source names besides itself (a glTF's buffers and images, a shader's
    /// imported modules), read cheaply from the source: they are its inputs, compiled with
    /// it, not sources of their own.
    pub referenced_files: Option<fn(&Source) -> Vec<PathBuf>>,
    /// Whether the files its sources name may be sources of its own kind that are then
    /// only inputs (a shader module that others import is built as a part of them);
    /// otherwise its sources are never taken as another source's input.
    pub names_own_kind: bool,
    /// Whether listing a source's named files is cheap next to compiling it (a `.gltf`'s
    /// JSON, yes; a `.glb` would be read whole): the build's order then weighs them too.
    pub names_files_cheaply: fn(&Path) -> bool,
    /// Whether its outputs are the source's bytes as they are, never checked as the format
    /// their extension names.
    pub copies_as_is: bool,
    /// Whether compiling a source with these settings may encode a texture to UASTC: the
    /// encoder's one-time set-up then starts on a spare core at the start of the build.
    pub may_encode_uastc: fn(&AssetSettings) -> bool,
}

impl AssetKind {
    /// Whether its sources are never taken as another source's input: a source that names
    /// files of its own (a model) or one the build's `embed` globs name is built as itself
    /// even when a model also uses it.
    pub fn stands_alone(&self) -> bool {
        (self.referenced_files.is_some() && !self.names_own_kind)
            || matches!(self.recognise, Recognise::EmbedGlobs)
    }

    /// Bytes its compile of `source` reads: the file, plus the files it names (a `.gltf`
    /// is a few KB of JSON beside megabytes of images), for the build's order.
    pub fn work_estimate(&self, source: &Source) -> u64 {
        let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        let named: u64 = match (self.names_files_cheaply)(&source.abs_path) {
            true => self
                .referenced_files
                .map_or(0, |files| files(source).iter().map(|p| size(p)).sum()),
            false => 0,
        };
        size(&source.abs_path) + named
    }
}

/// The kind of the files the build's `embed` globs name (they win over every other kind);
/// also the placeholder kind of files no kind claims, which are listed and never compiled.
pub fn embedded_kind() -> KindId {
    KINDS
        .iter()
        .find(|k| matches!(k.recognise, Recognise::EmbedGlobs))
        .map_or(KindId::Embed, |k| k.id)
}

/// For kinds that read no settings table (an embedded file is copied as it is).
pub fn reads_no_settings(_: &AssetSettings, _: &mut KeyText) {}

/// For kinds whose sources name no other file.
pub fn names_no_files(_: &Path) -> bool {
    false
}

/// For kinds that never encode UASTC.
pub fn never_encodes_uastc(_: &AssetSettings) -> bool {
    false
}

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
        assert_eq!(KIND_IDS.len(), KINDS.len());
        for &id in KIND_IDS {
            assert_eq!(KINDS.iter().filter(|k| k.id == id).count(), 1, "{id:?}");
            assert_eq!(kind(id).id, id);
        }
    }
}
