//! The kinds of a manifest entry (`.hman`), below every format: a format's descriptor names
//! the entry kinds its files take without depending on the manifest's own module.

/// What a manifest entry points at: the nine kinds of the contract, and the plain WGSL
/// shaders of `[shader] outputs` (9, ours: docs/formats.md), by their stored byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EntryKind {
    Texture = 0,
    Mesh = 1,
    MaterialTable = 2,
    ColourLut = 3,
    Shader = 4,
    /// A file copied byte for byte by an `embed` glob.
    RawFile = 5,
    Animation = 6,
    Font = 7,
    Audio = 8,
    /// One entry point as plain WGSL text (`<ref>/<entryPoint>.wgsl`), for WebGPU: not in
    /// the shared contract's list, which has SPIR-V shaders only (kind 4).
    WgslShader = 9,
}

impl EntryKind {
    /// Every kind, in byte order.
    pub const ALL: [EntryKind; 10] = [
        Self::Texture,
        Self::Mesh,
        Self::MaterialTable,
        Self::ColourLut,
        Self::Shader,
        Self::RawFile,
        Self::Animation,
        Self::Font,
        Self::Audio,
        Self::WgslShader,
    ];

    pub fn from_u8(v: u8) -> Option<Self> {
        Self::ALL.get(usize::from(v)).copied()
    }

    /// A stable lower-case name for tables and JSON (not the Rust variant name, so renaming
    /// a variant does not change what tools parse).
    pub fn name(self) -> &'static str {
        match self {
            Self::Texture => "texture",
            Self::Mesh => "mesh",
            Self::MaterialTable => "material_table",
            Self::ColourLut => "colour_lut",
            Self::Shader => "shader",
            Self::RawFile => "raw_file",
            Self::Animation => "animation",
            Self::Font => "font",
            Self::Audio => "audio",
            Self::WgslShader => "wgsl_shader",
        }
    }
}

impl std::fmt::Display for EntryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
