//! `.hmesh` v2: geometry. Layout in `docs/formats.md` (the byte contract is
//! `shared/spec/formats.md`).
//!
//! The element structs are `#[repr(C)]` Pod types whose sizes equal the packed sizes of
//! the contract, so a loader can cast chunk payloads directly.

use bytemuck::{Pod, Zeroable};

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
}

// Interim stubs until the full writer/validator lands.
#[derive(Debug, thiserror::Error)]
pub enum HMeshError {
    #[error("{0}")]
    Invalid(String),
}
pub fn write(_mesh: &HMesh) -> Result<Vec<u8>, HMeshError> {
    Ok(Vec::new())
}
pub fn validate(_bytes: &[u8]) -> Vec<super::Problem> {
    Vec::new()
}
