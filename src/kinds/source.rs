//! A source of a build: a file, or a folder a kind owns as a whole, and the runtime ref its
//! outputs are named after.

use super::KindId;
use crate::targets::file_names::fit_ref;
use std::path::PathBuf;

/// A source found under the input root: a file, or a folder a kind owns as a whole.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// Path relative to the input root, `/`-separated, as found (case kept).
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub kind: KindId,
}

impl Source {
    /// The runtime ref: relative path without extension, lower-cased (`models/chair`).
    /// A cubemap folder keeps its `.env` (formats.md); an embedded file has no ref but
    /// its own path. A name too long for a file name once the kind's extension is added
    /// is shortened by [`fit_ref`].
    pub fn runtime_ref(&self) -> String {
        let (reference, extension) = match self.kind {
            KindId::Cubemap => (self.rel_path.replace('\\', "/").to_lowercase(), ".ktx2"),
            KindId::Texture | KindId::Lut => (runtime_ref(&self.rel_path), ".ktx2"),
            // Models write `<ref>.hmesh` / `.hanim`, the longest of their extensions;
            // every other kind appends no more than that.
            _ => (runtime_ref(&self.rel_path), ".hmesh"),
        };
        fit_ref(&reference, extension.len())
    }
    /// The output path its outputs are named after, for collisions: `<ref>.ktx2` for
    /// textures, its own path for an embedded file, the ref for a model (whose outputs
    /// are `<ref>.*`).
    pub fn claimed_output(&self) -> String {
        match self.kind {
            KindId::Model => self.runtime_ref(),
            KindId::Embed => self.rel_path.clone(),
            // A font claims its atlas's name (its `.hfont` goes with it).
            KindId::Texture | KindId::Cubemap | KindId::Lut | KindId::Font => {
                format!("{}.ktx2", self.runtime_ref())
            }
            // Its outputs are `<ref>/<entryPoint>.spv`: two shaders of one ref share them.
            KindId::Shader => format!("{}/", self.runtime_ref()),
            KindId::Audio => format!("{}.wav", self.runtime_ref()),
        }
    }
    /// `<runtime ref>.<ext>`: the output path of this source's file of that kind.
    pub fn output_rel(&self, ext: &str) -> String {
        format!("{}.{ext}", self.runtime_ref())
    }
}

/// Runtime ref of a relative path: extension dropped, lower-cased, `/`-separated.
pub fn runtime_ref(rel_path: &str) -> String {
    let unified = rel_path.replace('\\', "/");
    let without_ext = match unified.rfind('.') {
        Some(dot) if !unified[dot..].contains('/') => &unified[..dot],
        _ => unified.as_str(),
    };
    without_ext.to_lowercase()
}
