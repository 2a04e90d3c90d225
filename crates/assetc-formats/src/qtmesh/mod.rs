//! Qt Quick 3D `.mesh` files: reader (container version 1, mesh versions 3 to 7), writer
//! (mesh version 7 for current Qt, version 5 for Qt 6.4 and older), validator and a
//! `meshdebug`-style dump.
//!
//! Hand-written because no crate implements this niche format. The layout follows
//! seed 002, corrected where real Balsam 6.4 and 6.12 output differs from it (each such
//! place says so in a comment): we write what Qt writes and read both readings.
//!
//! In memory a mesh always uses the version 7 representation: morph targets live in
//! [`QtMesh::target_buffer`], never as `attr_tpos0`-style vertex attributes. The reader
//! converts older files; the version 5 writer converts back.

mod describe;
mod format;
mod morph;
mod read;
mod validate;
mod write;

#[cfg(test)]
mod tests;

use super::bytes::OutOfBounds;
use thiserror::Error;

pub use describe::describe;
pub use format::FORMAT;
pub use morph::LegacyMorphError;
pub use read::read;
pub use validate::validate;
pub use write::write;

/// `MultiMeshFooter::fileId`.
pub const CONTAINER_FILE_ID: u32 = 555_777_497;
/// The only container version there is.
pub const CONTAINER_VERSION: u32 = 1;
/// `MeshDataHeader::fileId`.
pub const MESH_FILE_ID: u32 = 3_365_961_549;
pub const OLDEST_MESH_VERSION: u16 = 3;
pub const NEWEST_MESH_VERSION: u16 = 7;

/// Component type codes as stored in the file (kept raw so unknown values survive a round trip).
pub mod component {
    pub const U8: u32 = 1;
    pub const I8: u32 = 2;
    pub const U16: u32 = 3;
    pub const I16: u32 = 4;
    pub const U32: u32 = 5;
    pub const I32: u32 = 6;
    pub const U64: u32 = 7;
    pub const I64: u32 = 8;
    pub const F16: u32 = 9;
    pub const F32: u32 = 10;
    pub const F64: u32 = 11;

    /// Byte size of one component, `None` for a code the format does not define.
    pub fn size(code: u32) -> Option<u32> {
        Some(match code {
            U8 | I8 => 1,
            U16 | I16 | F16 => 2,
            U32 | I32 | F32 => 4,
            U64 | I64 | F64 => 8,
            _ => return None,
        })
    }

    /// The name Qt's `meshdebug` prints for a component type.
    pub fn qt_name(code: u32) -> &'static str {
        match code {
            U8 => "UnsignedInteger8",
            I8 => "Integer8",
            U16 => "UnsignedInteger16",
            I16 => "Integer16",
            U32 => "UnsignedInteger32",
            I32 => "Integer32",
            U64 => "UnsignedInteger64",
            I64 => "Integer64",
            F16 => "Float16",
            F32 => "Float32",
            F64 => "Float64",
            _ => "Unknown",
        }
    }
}

/// Draw mode codes.
pub mod draw_mode {
    pub const POINTS: u32 = 1;
    pub const TRIANGLES: u32 = 7;
    pub const PATCHES: u32 = 8;
}

/// Winding codes.
pub mod winding {
    pub const CLOCKWISE: u32 = 1;
    pub const COUNTER_CLOCKWISE: u32 = 2;
}

/// Attribute names Qt Quick 3D understands.
pub mod attr {
    pub const POSITION: &str = "attr_pos";
    pub const NORMAL: &str = "attr_norm";
    pub const UV0: &str = "attr_uv0";
    pub const UV1: &str = "attr_uv1";
    /// Generated lightmap UVs (Balsam's `--generateLightmapUV`).
    pub const LIGHTMAP_UV: &str = "attr_lightmapuv";
    pub const TANGENT: &str = "attr_textan";
    pub const BINORMAL: &str = "attr_binormal";
    pub const JOINTS: &str = "attr_joints";
    pub const WEIGHTS: &str = "attr_weights";
    /// Real Qt files (Balsam 6.4 and 6.12) use this name; seed 002 says `attr_colors`.
    pub const COLOR: &str = "attr_color";
    /// The seed's spelling, accepted on read and renamed to [`COLOR`].
    pub const COLOR_SEED_SPELLING: &str = "attr_colors";
}

/// A whole `.mesh` file: the meshes in container-entry order, each with its `meshId`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QtMeshFile {
    pub meshes: Vec<(u32, QtMesh)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct QtMesh {
    /// The version the mesh was read from. [`write`] ignores it and uses its own argument.
    pub version: u16,
    /// `MeshDataHeader::headerFlags`, unused by Qt and kept as read.
    pub header_flags: u16,
    pub draw_mode: u32,
    pub winding: u32,
    pub vertex_buffer: VertexBuffer,
    pub index_buffer: IndexBuffer,
    pub subsets: Vec<Subset>,
    pub target_buffer: Option<TargetBuffer>,
}

impl Default for QtMesh {
    fn default() -> Self {
        Self {
            version: NEWEST_MESH_VERSION,
            header_flags: 0,
            draw_mode: draw_mode::TRIANGLES,
            winding: winding::COUNTER_CLOCKWISE,
            vertex_buffer: VertexBuffer::default(),
            index_buffer: IndexBuffer {
                component_type: component::U32,
                data: Vec::new(),
            },
            subsets: Vec::new(),
            target_buffer: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VertexBuffer {
    pub entries: Vec<VertexEntry>,
    pub stride: u32,
    pub data: Vec<u8>,
}

impl VertexBuffer {
    pub fn vertex_count(&self) -> usize {
        match self.stride {
            0 => 0,
            s => self.data.len() / s as usize,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VertexEntry {
    pub name: String,
    pub component_type: u32,
    pub component_count: u32,
    /// Byte offset within a vertex (vertex buffer) or of target 0's block (target buffer).
    pub offset: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexBuffer {
    pub component_type: u32,
    /// Empty for a non-indexed mesh.
    pub data: Vec<u8>,
}

impl IndexBuffer {
    pub fn index_count(&self) -> usize {
        match component::size(self.component_type) {
            Some(s) => self.data.len() / s as usize,
            None => 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Subset {
    pub name: String,
    /// Indices, or vertices when the mesh has no index buffer.
    pub count: u32,
    /// First index, or first vertex.
    pub offset: u32,
    pub bounds_min: [f32; 3],
    pub bounds_max: [f32; 3],
    /// Width and height; zero before version 5.
    pub lightmap_size_hint: [u32; 2],
    /// Version 6 and later.
    pub lods: Vec<Lod>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Lod {
    pub count: u32,
    pub offset: u32,
    pub distance: f32,
}

/// Morph targets in the version 7 layout: one entry per attribute kind (`attr_pos`,
/// `attr_norm`, `attr_textan`, `attr_binormal`), and data laid out kind-major, then
/// target, then vertex, one 16-byte texel per vertex padded to a square texture, so the
/// block of kind `k`, target `t` starts at `entries[k].offset + t * block_size`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetBuffer {
    pub target_count: u32,
    pub entries: Vec<VertexEntry>,
    pub data: Vec<u8>,
}

/// Bytes of one (kind, target) block for `vertex_count` vertices: Qt stores each block as
/// a square RGBA32F texture layer.
pub fn target_block_size(vertex_count: usize) -> Option<usize> {
    let width = ceil_sqrt(vertex_count);
    width.checked_mul(width)?.checked_mul(16)
}

fn ceil_sqrt(n: usize) -> usize {
    let mut r = (n as f64).sqrt() as usize;
    while r.saturating_mul(r) > n {
        r -= 1;
    }
    while r.saturating_mul(r) < n {
        r += 1;
    }
    r
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum QtMeshError {
    #[error(transparent)]
    OutOfBounds(#[from] OutOfBounds),
    #[error("file is {len} bytes, too short for the 16-byte container footer")]
    TooShort { len: usize },
    #[error("footer fileId is {0}, not {CONTAINER_FILE_ID}: not a Qt Quick 3D .mesh file")]
    BadContainerId(u32),
    #[error("container version is {0}, only version {CONTAINER_VERSION} exists")]
    BadContainerVersion(u32),
    #[error("footer declares {count} mesh entries, which do not fit in a {len}-byte file")]
    TooManyEntries { count: u32, len: usize },
    #[error("mesh {id}: meshOffset {offset} is not inside the mesh area (0..{limit})")]
    MeshOffset { id: u32, offset: u64, limit: usize },
    #[error("mesh {id}: {source}")]
    InMesh {
        id: u32,
        #[source]
        source: Box<QtMeshError>,
    },
    #[error("MeshDataHeader at byte {offset}: fileId is {found}, not {MESH_FILE_ID}")]
    BadMeshId { offset: usize, found: u32 },
    #[error("MeshDataHeader at byte {offset}: mesh version {version} is not supported (3 to 7)")]
    BadMeshVersion { offset: usize, version: u16 },
    #[error("padding after {what} at byte {offset} is not zero: misaligned or corrupt block")]
    BadPadding { what: &'static str, offset: usize },
    #[error("{what} at byte {offset}: {reason}")]
    Invalid {
        what: &'static str,
        offset: usize,
        reason: String,
    },
    #[error("only mesh versions 5 and 7 can be written, not {0}")]
    UnsupportedWriteVersion(u16),
    #[error("cannot write mesh {id}: {reason}")]
    Unwritable { id: u32, reason: LayoutError },
}

/// Why a mesh cannot be laid out as a file of the version asked.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LayoutError {
    #[error("another mesh in the file has the same id")]
    DuplicateId,
    #[error("file larger than 4 GiB")]
    FileOver4GiB,
    #[error("attribute name {0:?} contains a zero byte")]
    ZeroInAttributeName(String),
    #[error("subset name {0:?} contains a zero")]
    ZeroInSubsetName(String),
    #[error("{what} is larger than 4 GiB")]
    Over4GiB { what: &'static str },
    #[error("levels of detail need mesh version 6 or later, not {0}")]
    LodsNeedVersion6(u16),
    #[error(transparent)]
    LegacyMorph(#[from] morph::LegacyMorphError),
}
