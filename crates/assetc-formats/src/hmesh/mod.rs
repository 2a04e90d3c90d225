//! `.hmesh` v2: geometry. Layout in `docs/formats.md` (the byte contract is
//! `shared/spec/formats.md`).
//!
//! The element structs are `#[repr(C)]` Pod types whose sizes equal the packed sizes of
//! the contract, so a loader can cast chunk payloads directly.
//!
//! The container is our own, so it is hand-written here: no crate knows it. The writer and
//! the zero-copy view cast Pod structs to and from bytes, which matches the little-endian
//! byte contract only on little-endian hosts (the seed's C++ loader makes the same
//! assumption with a static_assert), hence the compile-time check below.

use std::fmt;

use bytemuck::{Pod, Zeroable};
use thiserror::Error;

use super::Problem;

#[cfg(target_endian = "big")]
compile_error!(
    ".hmesh views cast little-endian payloads in place; big-endian hosts are unsupported"
);

pub const MAGIC: u32 = u32::from_le_bytes(*b"HMSH");
pub const VERSION: u32 = 2;
pub const VERTEX_STRIDE: u16 = 28;
pub const NO_MATERIAL: u32 = 0xFFFF_FFFF;
/// DESC.flags bit 0: the tangents in VTXS are real (generated or imported).
pub const DESC_FLAG_TANGENTS: u8 = 1;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct MeshDesc {
    pub vertex_count: u32,
    pub index_count: u32,
    pub meshlet_count: u32,
    pub submesh_count: u32,
    pub material_count: u32,
    pub vertex_stride: u16,
    pub index_width: u8,
    pub flags: u8,
    pub meshlet_max_verts: u32,
    pub meshlet_max_tris: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct MeshBounds {
    pub aabb_min: [f32; 3],
    pub aabb_max: [f32; 3],
    pub sphere_center: [f32; 3],
    pub sphere_radius: f32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuVertex {
    pub position: [f32; 3],
    /// Octahedral, SNORM.
    pub normal: [i16; 2],
    /// Octahedral; bit 0 of x holds the handedness (1 = negative).
    pub tangent: [i16; 2],
    pub uv: [f32; 2],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct Meshlet {
    pub vertex_offset: u32,
    pub vertex_count: u32,
    pub triangle_offset: u32,
    pub triangle_count: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct MeshletTriangle(pub [u8; 3]);

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct MeshletBounds {
    pub center: [f32; 3],
    pub radius: f32,
    pub cone_axis: [f32; 3],
    pub cone_cutoff: f32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct SubMesh {
    pub first_index: u32,
    pub index_count: u32,
    pub first_meshlet: u32,
    pub meshlet_count: u32,
    pub material_slot: u32,
    pub base_vertex: u32,
    pub bounds: MeshBounds,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuSkinVertex {
    pub joints: [u16; 4],
    pub weights: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct GpuJoint {
    /// Column-major.
    pub inverse_bind: [f32; 16],
    pub bind_t: [f32; 3],
    /// xyzw, unit length.
    pub bind_r: [f32; 4],
    pub bind_s: [f32; 3],
    /// -1 for a root.
    pub parent: i32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct MeshLod {
    pub first_index: u32,
    pub index_count: u32,
}

const _: () = {
    assert!(std::mem::size_of::<MeshDesc>() == 32);
    assert!(std::mem::size_of::<MeshBounds>() == 40);
    assert!(std::mem::size_of::<GpuVertex>() == 28);
    assert!(std::mem::size_of::<Meshlet>() == 16);
    assert!(std::mem::size_of::<MeshletTriangle>() == 3);
    assert!(std::mem::size_of::<MeshletBounds>() == 32);
    assert!(std::mem::size_of::<SubMesh>() == 64);
    assert!(std::mem::size_of::<GpuSkinVertex>() == 24);
    assert!(std::mem::size_of::<GpuJoint>() == 112);
    assert!(std::mem::size_of::<MeshLod>() == 8);
};

/// Skinning data: SKIN (parallel to the vertices) and SKEL.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skinning {
    pub vertices: Vec<GpuSkinVertex>,
    pub joints: Vec<GpuJoint>,
}

/// Reduced levels: LODI and LODT. `ranges` is `[submesh][lod]` row-major, `lod_count` per
/// submesh; lod 0 is LOD1.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lods {
    pub lod_count: u32,
    pub indices: Vec<u32>,
    pub ranges: Vec<MeshLod>,
}

/// A whole `.hmesh` in memory. Counts, index width and strides are derived when writing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HMesh {
    pub bounds: MeshBounds,
    pub vertices: Vec<GpuVertex>,
    /// Written as u16 exactly when `vertices.len() <= 65535`.
    pub indices: Vec<u32>,
    pub meshlets: Vec<Meshlet>,
    pub meshlet_vertices: Vec<u32>,
    pub meshlet_triangles: Vec<MeshletTriangle>,
    pub meshlet_bounds: Vec<MeshletBounds>,
    /// MTRL: material ref hashes in first-use order.
    pub materials: Vec<u64>,
    pub submeshes: Vec<SubMesh>,
    pub has_tangents: bool,
    pub meshlet_max_verts: u32,
    pub meshlet_max_tris: u32,
    pub skinning: Option<Skinning>,
    pub lods: Option<Lods>,
    /// UV1S: the second UV set, parallel to `vertices` (glTF TEXCOORD_1); `None` writes
    /// no chunk.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// assetc's optional cluster LOD chunks (`mesh.cluster_lod`); `None` writes none.
    pub cluster_lod: Option<clod::ClusterLod>,
}

const HEADER_SIZE: u64 = 32;
const ENTRY_SIZE: u64 = 24;
const PAYLOAD_ALIGN: u64 = 16;

/// A chunk id: four ASCII bytes in file order, read as a little-endian u32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FourCc(pub u32);

impl FourCc {
    pub const fn new(tag: &[u8; 4]) -> Self {
        Self(u32::from_le_bytes(*tag))
    }
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0.to_le_bytes();
        if b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
            b.iter().try_for_each(|&c| write!(f, "{}", char::from(c)))
        } else {
            write!(f, "{:#010x}", self.0)
        }
    }
}

/// The chunk ids of `.hmesh` v2.
pub mod chunk {
    use super::FourCc;
    pub const DESC: FourCc = FourCc::new(b"DESC");
    pub const BNDS: FourCc = FourCc::new(b"BNDS");
    pub const VTXS: FourCc = FourCc::new(b"VTXS");
    pub const IDXS: FourCc = FourCc::new(b"IDXS");
    pub const MLET: FourCc = FourCc::new(b"MLET");
    pub const MLVR: FourCc = FourCc::new(b"MLVR");
    pub const MLTR: FourCc = FourCc::new(b"MLTR");
    pub const MLBN: FourCc = FourCc::new(b"MLBN");
    pub const MTRL: FourCc = FourCc::new(b"MTRL");
    pub const SUBM: FourCc = FourCc::new(b"SUBM");
    pub const SKIN: FourCc = FourCc::new(b"SKIN");
    pub const SKEL: FourCc = FourCc::new(b"SKEL");
    pub const LODI: FourCc = FourCc::new(b"LODI");
    pub const LODT: FourCc = FourCc::new(b"LODT");
    pub const UV1S: FourCc = FourCc::new(b"UV1S");

    /// Every chunk this version defines, in the order writers emit them; the first
    /// `REQUIRED` are present in every file. UV1S came later than the others and is
    /// written last, so the earlier chunks keep their places in existing files.
    pub const KNOWN: [FourCc; 15] = [
        DESC, BNDS, VTXS, IDXS, MLET, MLVR, MLTR, MLBN, MTRL, SUBM, SKIN, SKEL, LODI, LODT, UV1S,
    ];
    pub const REQUIRED: usize = 10;
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HMeshError {
    #[error("{what} ends at byte {end} but the file is only {len} bytes")]
    Truncated {
        what: &'static str,
        end: u64,
        len: u64,
    },
    #[error("at byte 0: magic is {found:#010x}, expected \"HMSH\" ({MAGIC:#010x})")]
    BadMagic { found: u32 },
    #[error("at byte 4: version is {found}, expected {VERSION}")]
    BadVersion { found: u32 },
    #[error("at byte {entry_offset}: chunk {fourcc} payload [{offset}, {offset}+{size}) lies outside the {len}-byte file")]
    ChunkOutOfBounds {
        entry_offset: u64,
        fourcc: FourCc,
        offset: u64,
        size: u64,
        len: u64,
    },
    #[error(
        "at byte {entry_offset}: chunk {fourcc} payload offset {offset} is not a multiple of 16"
    )]
    ChunkMisaligned {
        entry_offset: u64,
        fourcc: FourCc,
        offset: u64,
    },
    #[error("at byte {second}: chunk {fourcc} is listed a second time (first at byte {first})")]
    DuplicateChunk {
        fourcc: FourCc,
        first: u64,
        second: u64,
    },
    #[error("required chunk {fourcc} is missing")]
    MissingChunk { fourcc: FourCc },
    #[error("chunk {present} is present without its companion {missing}")]
    UnpairedChunk { present: FourCc, missing: FourCc },
    #[error("at byte {offset}: chunk {fourcc} is {size} bytes, expected {expected}")]
    ChunkSize {
        fourcc: FourCc,
        offset: u64,
        size: u64,
        expected: String,
    },
    #[error("at byte {offset}: DESC {problem}")]
    BadDesc { offset: u64, problem: String },
    #[error("at byte {offset}: LODT {problem}")]
    BadLodTable { offset: u64, problem: String },
    #[error("at byte {offset}: cluster LOD {problem}")]
    BadClusterLod { offset: u64, problem: String },
    #[error("cannot write .hmesh: {0}")]
    Inconsistent(String),
}

impl HMeshError {
    /// The byte offset the error is about, when it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::Truncated { len, .. } => Some(*len),
            Self::BadMagic { .. } => Some(0),
            Self::BadVersion { .. } => Some(4),
            Self::ChunkOutOfBounds { entry_offset, .. }
            | Self::ChunkMisaligned { entry_offset, .. } => Some(*entry_offset),
            Self::DuplicateChunk { second, .. } => Some(*second),
            Self::ChunkSize { offset, .. }
            | Self::BadDesc { offset, .. }
            | Self::BadLodTable { offset, .. }
            | Self::BadClusterLod { offset, .. } => Some(*offset),
            Self::MissingChunk { .. } | Self::UnpairedChunk { .. } | Self::Inconsistent(_) => None,
        }
    }
}

impl From<HMeshError> for Problem {
    fn from(e: HMeshError) -> Self {
        Problem::from_error(e.offset(), &e)
    }
}

fn align16(pos: u64) -> u64 {
    pos.div_ceil(PAYLOAD_ALIGN) * PAYLOAD_ALIGN
}

pub mod clod;
mod format;
pub mod lod_fact;
mod read;
mod sink;
mod validate;
mod write;

pub use format::FORMAT;
pub use read::{read, HMeshView, Indices, LodsView, SkinView};
pub use validate::validate;
pub use write::write;

#[cfg(test)]
mod tests;
