//! Runtime formats: plain structs, writers, readers and validators.
//!
//! A crate of its own, so that the compiler enforces the layer: nothing here can depend on
//! the importers, the pipeline or the driver, and an engine that loads what assetc writes
//! links only this (or `assetc` with `default-features = false`, which re-exports it as
//! `assetc::formats`).
//! The container formats are hand-written because they are our own (or, for BMD1, Qt
//! `.mesh`, SparkPak and the original assetc's `.hpack`, niche formats no crate
//! implements); the KTX2 container is written here too because the crates that read KTX2
//! do not write it.

pub mod bmd1;
pub mod bytes;
pub mod describe;
pub mod entry_kind;
pub mod format;
pub mod hanim;
pub mod hash;
pub mod hfont;
pub mod hman;
pub mod hmat;
pub mod hmesh;
pub mod hpack;
pub mod ktx2;
pub mod octahedral;
pub mod qtmesh;
pub mod registry;
pub mod spirv;
pub mod spk;
pub mod vorbis;
pub mod wav;
pub mod wgsl;

/// A file's format, recognised from its extension; [`format::Format`] says the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormatKind {
    HMesh,
    HMat,
    HAnim,
    HMan,
    Ktx2,
    QtMesh,
    Bmd1,
    Spk,
    HPack,
    HFont,
    Spirv,
    /// PCM `.wav` (the audio kind's output; `.wav` sources are never validated as such).
    Wav,
    /// Ogg Vorbis `.ogg` (the audio kind's compressed output).
    OggVorbis,
    /// Plain WGSL `.wgsl` (the shader kind's output for WebGPU, one entry point a file).
    Wgsl,
}

impl FormatKind {
    pub fn from_path(path: &std::path::Path) -> Option<Self> {
        registry::by_path(path).map(|f| f.kind)
    }

    /// This kind's descriptor in [`registry::FORMATS`].
    pub fn format(self) -> &'static format::Format {
        registry::by_kind(self)
    }
}

/// One rule a file breaks, as found by a validator. An empty list means the file is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Byte offset in the file the problem is about, when one applies.
    pub offset: Option<u64>,
    pub message: String,
}

impl Problem {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            offset: None,
            message: message.into(),
        }
    }
    pub fn at(offset: u64, message: impl Into<String>) -> Self {
        Self {
            offset: Some(offset),
            message: message.into(),
        }
    }
    /// A reader error as a problem. Error messages name their offset themselves ("at byte
    /// N: ..."); that prefix moves into `offset` so `Display` does not say it twice.
    pub fn from_error(offset: Option<u64>, error: &dyn std::fmt::Display) -> Self {
        let message = error.to_string();
        let message = match offset {
            Some(o) => message
                .strip_prefix(&format!("at byte {o}: "))
                .map(str::to_owned)
                .unwrap_or(message),
            None => message,
        };
        Self { offset, message }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.offset {
            Some(o) => write!(f, "at byte {o}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
