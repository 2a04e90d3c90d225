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

use std::borrow::Cow;
use std::fmt;

use bytemuck::{Pod, Zeroable};
use thiserror::Error;

use super::bytes::{Reader, WriteLe};
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

    /// Every chunk this version defines, in the order writers emit them; the first
    /// `REQUIRED` are present in every file.
    pub const KNOWN: [FourCc; 14] = [
        DESC, BNDS, VTXS, IDXS, MLET, MLVR, MLTR, MLBN, MTRL, SUBM, SKIN, SKEL, LODI, LODT,
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
            | Self::BadLodTable { offset, .. } => Some(*offset),
            Self::MissingChunk { .. } | Self::UnpairedChunk { .. } | Self::Inconsistent(_) => None,
        }
    }
}

impl From<HMeshError> for Problem {
    fn from(e: HMeshError) -> Self {
        Problem {
            offset: e.offset(),
            message: e.to_string(),
        }
    }
}

fn align16(pos: u64) -> u64 {
    pos.div_ceil(PAYLOAD_ALIGN) * PAYLOAD_ALIGN
}

// ---------------------------------------------------------------------------------------
// Writer

/// Serialises a mesh. DESC is derived from the data; fails when the parts disagree in
/// size (the semantic rules are `validate`'s job, so a writer bug can still be caught).
pub fn write(mesh: &HMesh) -> Result<Vec<u8>, HMeshError> {
    let desc = describe(mesh)?;
    let index_bytes: Cow<'_, [u8]> = if desc.index_width == 2 {
        let mut narrow = Vec::with_capacity(mesh.indices.len() * 2);
        for (i, &index) in mesh.indices.iter().enumerate() {
            let v = u16::try_from(index).map_err(|_| {
                HMeshError::Inconsistent(format!(
                    "index {i} is {index}, which does not fit the 16-bit index buffer used for {} vertices",
                    mesh.vertices.len()
                ))
            })?;
            narrow.put_u16(v);
        }
        Cow::Owned(narrow)
    } else {
        Cow::Borrowed(bytemuck::cast_slice(&mesh.indices))
    };

    let mut chunks: Vec<(FourCc, Cow<'_, [u8]>)> = vec![
        (chunk::DESC, Cow::Borrowed(bytemuck::bytes_of(&desc))),
        (chunk::BNDS, Cow::Borrowed(bytemuck::bytes_of(&mesh.bounds))),
        (
            chunk::VTXS,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.vertices)),
        ),
        (chunk::IDXS, index_bytes),
        (
            chunk::MLET,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlets)),
        ),
        (
            chunk::MLVR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_vertices)),
        ),
        (
            chunk::MLTR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_triangles)),
        ),
        (
            chunk::MLBN,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_bounds)),
        ),
        (
            chunk::MTRL,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.materials)),
        ),
        (
            chunk::SUBM,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.submeshes)),
        ),
    ];
    if let Some(skin) = &mesh.skinning {
        chunks.push((
            chunk::SKIN,
            Cow::Borrowed(bytemuck::cast_slice(&skin.vertices)),
        ));
        chunks.push((
            chunk::SKEL,
            Cow::Borrowed(bytemuck::cast_slice(&skin.joints)),
        ));
    }
    if let Some(lods) = &mesh.lods {
        chunks.push((
            chunk::LODI,
            Cow::Borrowed(bytemuck::cast_slice(&lods.indices)),
        ));
        let mut table = Vec::with_capacity(8 + lods.ranges.len() * 8);
        table.put_u32(lods.lod_count);
        table.put_u32(desc.submesh_count);
        table.extend_from_slice(bytemuck::cast_slice(&lods.ranges));
        chunks.push((chunk::LODT, Cow::Owned(table)));
    }
    let refs: Vec<(FourCc, &[u8])> = chunks.iter().map(|(c, d)| (*c, d.as_ref())).collect();
    Ok(assemble(&refs))
}

/// Lays out header, chunk table and 16-aligned payloads in the given order.
fn assemble(chunks: &[(FourCc, &[u8])]) -> Vec<u8> {
    let table_end = HEADER_SIZE + ENTRY_SIZE * chunks.len() as u64;
    let mut offsets = Vec::with_capacity(chunks.len());
    let mut end = table_end;
    for (_, data) in chunks {
        let start = align16(end);
        offsets.push(start);
        end = start + data.len() as u64;
    }
    let mut out = Vec::with_capacity(usize::try_from(end).unwrap_or(0));
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(chunks.len() as u32);
    out.put_u32(0);
    out.put_u64(0);
    out.put_u64(0);
    for ((fourcc, data), offset) in chunks.iter().zip(&offsets) {
        out.put_u32(fourcc.0);
        out.put_u32(0);
        out.put_u64(*offset);
        out.put_u64(data.len() as u64);
    }
    for (_, data) in chunks {
        out.pad_to(PAYLOAD_ALIGN as usize);
        out.extend_from_slice(data);
    }
    out
}

fn describe(mesh: &HMesh) -> Result<MeshDesc, HMeshError> {
    let count = |what: &str, n: usize| {
        u32::try_from(n)
            .map_err(|_| HMeshError::Inconsistent(format!("{n} {what} do not fit a u32 count")))
    };
    let vertex_count = count("vertices", mesh.vertices.len())?;
    let index_count = count("indices", mesh.indices.len())?;
    let meshlet_count = count("meshlets", mesh.meshlets.len())?;
    let submesh_count = count("submeshes", mesh.submeshes.len())?;
    let material_count = count("materials", mesh.materials.len())?;
    if submesh_count == 0 {
        return Err(HMeshError::Inconsistent(
            "a mesh needs at least one submesh".into(),
        ));
    }
    if mesh.meshlet_bounds.len() != mesh.meshlets.len() {
        return Err(HMeshError::Inconsistent(format!(
            "{} meshlet bounds for {} meshlets",
            mesh.meshlet_bounds.len(),
            mesh.meshlets.len()
        )));
    }
    let verts: u64 = mesh
        .meshlets
        .iter()
        .map(|m| u64::from(m.vertex_count))
        .sum();
    let tris: u64 = mesh
        .meshlets
        .iter()
        .map(|m| u64::from(m.triangle_count))
        .sum();
    if verts != mesh.meshlet_vertices.len() as u64 {
        return Err(HMeshError::Inconsistent(format!(
            "meshlets use {verts} meshlet vertices but MLVR holds {}",
            mesh.meshlet_vertices.len()
        )));
    }
    if tris != mesh.meshlet_triangles.len() as u64 {
        return Err(HMeshError::Inconsistent(format!(
            "meshlets use {tris} meshlet triangles but MLTR holds {}",
            mesh.meshlet_triangles.len()
        )));
    }
    if let Some(skin) = &mesh.skinning {
        if skin.vertices.len() != mesh.vertices.len() {
            return Err(HMeshError::Inconsistent(format!(
                "{} skin vertices for {} vertices",
                skin.vertices.len(),
                mesh.vertices.len()
            )));
        }
        count("joints", skin.joints.len())?;
    }
    if let Some(lods) = &mesh.lods {
        count("LOD indices", lods.indices.len())?;
        let rows = u64::from(lods.lod_count) * u64::from(submesh_count);
        if rows != lods.ranges.len() as u64 {
            return Err(HMeshError::Inconsistent(format!(
                "{} LOD ranges for {} levels x {submesh_count} submeshes",
                lods.ranges.len(),
                lods.lod_count
            )));
        }
    }
    Ok(MeshDesc {
        vertex_count,
        index_count,
        meshlet_count,
        submesh_count,
        material_count,
        vertex_stride: VERTEX_STRIDE,
        index_width: if vertex_count <= 65535 { 2 } else { 4 },
        flags: if mesh.has_tangents {
            DESC_FLAG_TANGENTS
        } else {
            0
        },
        meshlet_max_verts: mesh.meshlet_max_verts,
        meshlet_max_tris: mesh.meshlet_max_tris,
    })
}

// ---------------------------------------------------------------------------------------
// Zero-copy reader

/// The index buffer, at the width DESC declares.
#[derive(Debug, Clone, PartialEq)]
pub enum Indices<'a> {
    U16(Cow<'a, [u16]>),
    U32(Cow<'a, [u32]>),
}

impl Indices<'_> {
    pub fn len(&self) -> usize {
        match self {
            Self::U16(s) => s.len(),
            Self::U32(s) => s.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Self::U16(s) => s.get(i).map(|&v| u32::from(v)),
            Self::U32(s) => s.get(i).copied(),
        }
    }
    pub fn iter(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Self::U16(s) => Box::new(s.iter().map(|&v| u32::from(v))),
            Self::U32(s) => Box::new(s.iter().copied()),
        }
    }
    pub fn to_u32_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SkinView<'a> {
    pub vertices: Cow<'a, [GpuSkinVertex]>,
    pub joints: Cow<'a, [GpuJoint]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LodsView<'a> {
    pub lod_count: u32,
    pub indices: Cow<'a, [u32]>,
    /// `[submesh][lod]`, row-major.
    pub ranges: Cow<'a, [MeshLod]>,
}

/// A parsed `.hmesh` whose arrays borrow the file bytes when they are suitably aligned in
/// memory (an mmap or a 16-aligned buffer) and are copied otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct HMeshView<'a> {
    pub desc: MeshDesc,
    pub bounds: MeshBounds,
    pub vertices: Cow<'a, [GpuVertex]>,
    pub indices: Indices<'a>,
    pub meshlets: Cow<'a, [Meshlet]>,
    pub meshlet_vertices: Cow<'a, [u32]>,
    pub meshlet_triangles: Cow<'a, [MeshletTriangle]>,
    pub meshlet_bounds: Cow<'a, [MeshletBounds]>,
    pub materials: Cow<'a, [u64]>,
    pub submeshes: Cow<'a, [SubMesh]>,
    pub skin: Option<SkinView<'a>>,
    pub lods: Option<LodsView<'a>>,
    /// File offset of each known chunk's payload, indexed like `chunk::KNOWN`.
    offsets: [u64; 14],
}

/// One entry of the chunk table, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    fourcc: FourCc,
    flags: u32,
    offset: u64,
    size: u64,
    /// Where the entry itself sits in the file.
    at: u64,
}

fn cast<T: Pod>(bytes: &[u8]) -> Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(slice) => Cow::Borrowed(slice),
        Err(_) => Cow::Owned(
            bytes
                .chunks_exact(std::mem::size_of::<T>())
                .map(bytemuck::pod_read_unaligned)
                .collect(),
        ),
    }
}

struct Header {
    chunk_count: u32,
    flags: u32,
    reserved: [u64; 2],
}

fn read_header(bytes: &[u8]) -> Result<Header, HMeshError> {
    let len = bytes.len() as u64;
    let truncated = |what| HMeshError::Truncated {
        what,
        end: HEADER_SIZE,
        len,
    };
    let mut r = Reader::new(bytes);
    let magic = r.u32("magic").map_err(|_| truncated("file header"))?;
    if magic != MAGIC {
        return Err(HMeshError::BadMagic { found: magic });
    }
    let version = r.u32("version").map_err(|_| truncated("file header"))?;
    if version != VERSION {
        return Err(HMeshError::BadVersion { found: version });
    }
    let mut field = || r.u64("header").map_err(|_| truncated("file header"));
    let counts = field()?;
    let reserved = [field()?, field()?];
    let table_end = HEADER_SIZE + ENTRY_SIZE * (counts & 0xFFFF_FFFF);
    if table_end > len {
        return Err(HMeshError::Truncated {
            what: "chunk table",
            end: table_end,
            len,
        });
    }
    Ok(Header {
        chunk_count: counts as u32,
        flags: (counts >> 32) as u32,
        reserved,
    })
}

/// Reads the chunk table; the header has been checked to leave room for it.
fn read_entries(bytes: &[u8], count: u32) -> Vec<Entry> {
    (0..u64::from(count))
        .filter_map(|i| {
            let at = HEADER_SIZE + ENTRY_SIZE * i;
            let mut r = Reader::at(bytes, usize::try_from(at).ok()?);
            Some(Entry {
                fourcc: FourCc(r.u32("fourcc").ok()?),
                flags: r.u32("chunk flags").ok()?,
                offset: r.u64("chunk offset").ok()?,
                size: r.u64("chunk size").ok()?,
                at,
            })
        })
        .collect()
}

fn check_entry_bounds(e: &Entry, len: u64) -> Result<(), HMeshError> {
    if e.offset.checked_add(e.size).is_none_or(|end| end > len) {
        return Err(HMeshError::ChunkOutOfBounds {
            entry_offset: e.at,
            fourcc: e.fourcc,
            offset: e.offset,
            size: e.size,
            len,
        });
    }
    if e.offset % PAYLOAD_ALIGN != 0 {
        return Err(HMeshError::ChunkMisaligned {
            entry_offset: e.at,
            fourcc: e.fourcc,
            offset: e.offset,
        });
    }
    Ok(())
}

/// Known chunks by `chunk::KNOWN` index; unknown ones are skipped unchecked.
fn locate_known(bytes: &[u8], entries: &[Entry]) -> Result<[Option<Entry>; 14], HMeshError> {
    let mut found: [Option<Entry>; 14] = [None; 14];
    for e in entries {
        let Some(k) = chunk::KNOWN.iter().position(|&c| c == e.fourcc) else {
            continue;
        };
        check_entry_bounds(e, bytes.len() as u64)?;
        if let Some(first) = found[k] {
            return Err(HMeshError::DuplicateChunk {
                fourcc: e.fourcc,
                first: first.at,
                second: e.at,
            });
        }
        found[k] = Some(*e);
    }
    Ok(found)
}

impl<'a> HMeshView<'a> {
    /// Parses the container and checks that every array's size agrees with DESC, so the
    /// typed slices are exactly what DESC announces. Content rules are `validate`'s job.
    pub fn parse(bytes: &'a [u8]) -> Result<HMeshView<'a>, HMeshError> {
        let header = read_header(bytes)?;
        let entries = read_entries(bytes, header.chunk_count);
        let found = locate_known(bytes, &entries)?;
        let mut offsets = [0u64; 14];
        for (slot, e) in offsets.iter_mut().zip(&found) {
            *slot = e.map_or(0, |e| e.offset);
        }
        for (k, e) in found.iter().enumerate().take(chunk::REQUIRED) {
            if e.is_none() {
                return Err(HMeshError::MissingChunk {
                    fourcc: chunk::KNOWN[k],
                });
            }
        }
        // Bounds were checked in locate_known, so these slices cannot fail.
        let payload = |k: usize| -> (&'a [u8], Entry) {
            match found[k] {
                Some(e) => {
                    let start = e.offset as usize;
                    let data = bytes.get(start..start + e.size as usize).unwrap_or(&[]);
                    (data, e)
                }
                None => (
                    &[],
                    Entry {
                        fourcc: chunk::KNOWN[k],
                        flags: 0,
                        offset: 0,
                        size: 0,
                        at: 0,
                    },
                ),
            }
        };
        let sized = |k: usize, count: u64, elem: u64| -> Result<&'a [u8], HMeshError> {
            let (data, e) = payload(k);
            if count.checked_mul(elem) != Some(e.size) {
                return Err(HMeshError::ChunkSize {
                    fourcc: e.fourcc,
                    offset: e.at,
                    size: e.size,
                    expected: format!("{count} x {elem} bytes per DESC"),
                });
            }
            Ok(data)
        };
        let multiple = |k: usize, elem: u64| -> Result<&'a [u8], HMeshError> {
            let (data, e) = payload(k);
            if e.size % elem != 0 {
                return Err(HMeshError::ChunkSize {
                    fourcc: e.fourcc,
                    offset: e.at,
                    size: e.size,
                    expected: format!("a multiple of {elem}"),
                });
            }
            Ok(data)
        };

        let desc_bytes = sized(0, 1, 32)?;
        let desc: MeshDesc = bytemuck::pod_read_unaligned(desc_bytes);
        let desc_at = offsets[0];
        if desc.vertex_stride != VERTEX_STRIDE {
            return Err(HMeshError::BadDesc {
                offset: desc_at + 20,
                problem: format!(
                    "vertexStride is {}, expected {VERTEX_STRIDE}",
                    desc.vertex_stride
                ),
            });
        }
        if desc.index_width != 2 && desc.index_width != 4 {
            return Err(HMeshError::BadDesc {
                offset: desc_at + 22,
                problem: format!("indexWidth is {}, expected 2 or 4", desc.index_width),
            });
        }
        let bounds: MeshBounds = bytemuck::pod_read_unaligned(sized(1, 1, 40)?);
        let vertices = cast(sized(2, desc.vertex_count.into(), 28)?);
        let index_data = sized(3, desc.index_count.into(), desc.index_width.into())?;
        let indices = if desc.index_width == 2 {
            Indices::U16(cast(index_data))
        } else {
            Indices::U32(cast(index_data))
        };
        let meshlets = cast(sized(4, desc.meshlet_count.into(), 16)?);
        let meshlet_vertices = cast(multiple(5, 4)?);
        let meshlet_triangles = cast(multiple(6, 3)?);
        let meshlet_bounds = cast(sized(7, desc.meshlet_count.into(), 32)?);
        let materials = cast(sized(8, desc.material_count.into(), 8)?);
        let submeshes = cast(sized(9, desc.submesh_count.into(), 64)?);

        let pair = |a: usize, b: usize| match (found[a].is_some(), found[b].is_some()) {
            (true, false) => Err(HMeshError::UnpairedChunk {
                present: chunk::KNOWN[a],
                missing: chunk::KNOWN[b],
            }),
            (false, true) => Err(HMeshError::UnpairedChunk {
                present: chunk::KNOWN[b],
                missing: chunk::KNOWN[a],
            }),
            (both, _) => Ok(both),
        };
        let skin = if pair(10, 11)? {
            Some(SkinView {
                vertices: cast(sized(10, desc.vertex_count.into(), 24)?),
                joints: cast(multiple(11, 112)?),
            })
        } else {
            None
        };
        let lods = if pair(12, 13)? {
            let indices = cast(multiple(12, 4)?);
            let (table, e) = payload(13);
            let mut r = Reader::new(table);
            let (lod_count, submesh_count) = match (r.u32("lodCount"), r.u32("submeshCount")) {
                (Ok(l), Ok(s)) => (l, s),
                _ => {
                    return Err(HMeshError::ChunkSize {
                        fourcc: chunk::LODT,
                        offset: e.at,
                        size: e.size,
                        expected: "at least the 8-byte LOD table header".into(),
                    })
                }
            };
            if submesh_count != desc.submesh_count {
                return Err(HMeshError::BadLodTable {
                    offset: e.offset + 4,
                    problem: format!(
                        "submeshCount is {submesh_count} but DESC says {}",
                        desc.submesh_count
                    ),
                });
            }
            let rows = u64::from(lod_count) * u64::from(submesh_count);
            if Some(e.size) != rows.checked_mul(8).and_then(|b| b.checked_add(8)) {
                return Err(HMeshError::ChunkSize {
                    fourcc: chunk::LODT,
                    offset: e.at,
                    size: e.size,
                    expected: format!("8 + 8 x {lod_count} levels x {submesh_count} submeshes"),
                });
            }
            Some(LodsView {
                lod_count,
                indices,
                ranges: cast(table.get(8..).unwrap_or(&[])),
            })
        } else {
            None
        };

        Ok(HMeshView {
            desc,
            bounds,
            vertices,
            indices,
            meshlets,
            meshlet_vertices,
            meshlet_triangles,
            meshlet_bounds,
            materials,
            submeshes,
            skin,
            lods,
            offsets,
        })
    }

    /// Copies the view into an owned mesh.
    pub fn to_owned(&self) -> HMesh {
        HMesh {
            bounds: self.bounds,
            vertices: self.vertices.to_vec(),
            indices: self.indices.to_u32_vec(),
            meshlets: self.meshlets.to_vec(),
            meshlet_vertices: self.meshlet_vertices.to_vec(),
            meshlet_triangles: self.meshlet_triangles.to_vec(),
            meshlet_bounds: self.meshlet_bounds.to_vec(),
            materials: self.materials.to_vec(),
            submeshes: self.submeshes.to_vec(),
            has_tangents: self.desc.flags & DESC_FLAG_TANGENTS != 0,
            meshlet_max_verts: self.desc.meshlet_max_verts,
            meshlet_max_tris: self.desc.meshlet_max_tris,
            skinning: self.skin.as_ref().map(|s| Skinning {
                vertices: s.vertices.to_vec(),
                joints: s.joints.to_vec(),
            }),
            lods: self.lods.as_ref().map(|l| Lods {
                lod_count: l.lod_count,
                indices: l.indices.to_vec(),
                ranges: l.ranges.to_vec(),
            }),
        }
    }

    /// File offset of a known chunk's payload (0 when absent).
    fn chunk_offset(&self, fourcc: FourCc) -> u64 {
        chunk::KNOWN
            .iter()
            .position(|&c| c == fourcc)
            .map_or(0, |k| self.offsets[k])
    }
}

/// Reads a whole file into an owned mesh.
pub fn read(bytes: &[u8]) -> Result<HMesh, HMeshError> {
    HMeshView::parse(bytes).map(|v| v.to_owned())
}

// ---------------------------------------------------------------------------------------
// Validator

/// Collects problems, keeping at most a few per rule so a badly broken file cannot make
/// the report (or its memory) grow with the file.
#[derive(Default)]
struct Sink {
    problems: Vec<Problem>,
    per_rule: Vec<(&'static str, usize)>,
}

const REPORTS_PER_RULE: usize = 8;

impl Sink {
    fn report(
        &mut self,
        rule: &'static str,
        offset: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        let seen = match self.per_rule.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.per_rule.push((rule, 1));
                1
            }
        };
        if seen <= REPORTS_PER_RULE {
            self.problems.push(Problem {
                offset,
                message: message(),
            });
        }
    }
    fn at(&mut self, rule: &'static str, offset: u64, message: impl FnOnce() -> String) {
        self.report(rule, Some(offset), message);
    }
    fn finish(mut self) -> Vec<Problem> {
        for (rule, n) in &self.per_rule {
            if *n > REPORTS_PER_RULE {
                self.problems.push(Problem::new(format!(
                    "{} more problems of the kind \"{rule}\" not listed",
                    n - REPORTS_PER_RULE
                )));
            }
        }
        self.problems
    }
}

/// Checks every rule of the `.hmesh` v2 contract. An empty list means the file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let mut sink = Sink::default();
    if validate_container(bytes, &mut sink) {
        match HMeshView::parse(bytes) {
            Ok(view) => validate_content(&view, &mut sink),
            Err(e) => sink.problems.push(e.into()),
        }
    }
    sink.finish()
}

/// Header and chunk table rules. Returns false when the layout is too broken to parse.
fn validate_container(bytes: &[u8], sink: &mut Sink) -> bool {
    let len = bytes.len() as u64;
    let header = match read_header(bytes) {
        Ok(h) => h,
        Err(e) => {
            sink.problems.push(e.into());
            return false;
        }
    };
    if header.flags != 0 {
        sink.at("reserved", 12, || {
            format!("header flags are {:#x}, must be 0", header.flags)
        });
    }
    for (i, r) in header.reserved.iter().enumerate() {
        if *r != 0 {
            sink.at("reserved", 16 + 8 * i as u64, || {
                format!("reserved header field is {r:#x}, must be 0")
            });
        }
    }
    let entries = read_entries(bytes, header.chunk_count);
    let table_end = HEADER_SIZE + ENTRY_SIZE * u64::from(header.chunk_count);
    let mut sound = true;
    let mut in_bounds = Vec::with_capacity(entries.len());
    for e in &entries {
        if e.flags != 0 {
            sink.at("chunk flags", e.at + 4, || {
                format!("chunk {} flags are {:#x}, must be 0", e.fourcc, e.flags)
            });
        }
        match check_entry_bounds(e, len) {
            Ok(()) => in_bounds.push(*e),
            Err(err) => {
                sound = false;
                sink.problems.push(err.into());
            }
        }
    }
    for (i, e) in entries.iter().enumerate() {
        if chunk::KNOWN.contains(&e.fourcc) {
            if let Some(first) = entries[..i].iter().find(|p| p.fourcc == e.fourcc) {
                sound = false;
                sink.problems.push(
                    HMeshError::DuplicateChunk {
                        fourcc: e.fourcc,
                        first: first.at,
                        second: e.at,
                    }
                    .into(),
                );
            }
        }
    }
    // Payloads may come in any order but must not overlap the table or each other, and
    // every byte between them is alignment padding, which is zero.
    in_bounds.sort_by_key(|e| (e.offset, e.size));
    let mut cursor = table_end;
    let mut previous: Option<Entry> = None;
    for e in in_bounds.iter().filter(|e| e.size > 0) {
        if e.offset < cursor {
            let with = previous.map_or("the header or chunk table".to_string(), |p| {
                format!("chunk {}", p.fourcc)
            });
            sink.at("overlap", e.at, || {
                format!("chunk {} payload at {} overlaps {with}", e.fourcc, e.offset)
            });
        } else if let Some(gap) = bytes.get(cursor as usize..e.offset as usize) {
            if let Some(p) = gap.iter().position(|&b| b != 0) {
                sink.at("padding", cursor + p as u64, || {
                    "padding between chunk payloads is not zero".into()
                });
            }
        }
        cursor = cursor.max(e.offset + e.size);
        previous = Some(*e);
    }
    if let Some(p) = bytes
        .get(cursor as usize..)
        .and_then(|tail| tail.iter().position(|&b| b != 0))
    {
        sink.at("padding", cursor + p as u64, || {
            "bytes after the last chunk payload are not zero".into()
        });
    }
    sound
}

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Slack for sphere containment: positions and radii are f32, so allow a few ulps of the
/// magnitudes involved.
fn sphere_slack(b: &MeshBounds) -> f64 {
    let scale = b
        .aabb_min
        .iter()
        .chain(&b.aabb_max)
        .chain(&b.sphere_center)
        .map(|v| f64::from(v.abs()))
        .fold(f64::from(b.sphere_radius.abs()), f64::max);
    1e-5 * scale + 1e-6
}

fn inside_aabb(p: &[f32; 3], b: &MeshBounds) -> bool {
    (0..3).all(|k| p[k] >= b.aabb_min[k] && p[k] <= b.aabb_max[k])
}

fn inside_sphere(p: &[f32; 3], b: &MeshBounds) -> bool {
    let d2: f64 = (0..3)
        .map(|k| (f64::from(p[k]) - f64::from(b.sphere_center[k])).powi(2))
        .sum();
    d2.sqrt() <= f64::from(b.sphere_radius) + sphere_slack(b)
}

fn validate_bounds(b: &MeshBounds, at: u64, what: &str, sink: &mut Sink) -> bool {
    let floats: Vec<f32> =
        bytemuck::cast_slice::<MeshBounds, f32>(std::slice::from_ref(b)).to_vec();
    if !finite(&floats) {
        sink.at("finite", at, || {
            format!("{what} bounds hold a non-finite value")
        });
        return false;
    }
    if (0..3).any(|k| b.aabb_min[k] > b.aabb_max[k]) {
        sink.at("bounds", at, || format!("{what} AABB min exceeds max"));
    }
    if b.sphere_radius < 0.0 {
        sink.at("bounds", at + 36, || {
            format!("{what} sphere radius is negative")
        });
    }
    true
}

fn validate_content(v: &HMeshView<'_>, sink: &mut Sink) {
    let d = &v.desc;
    let o_desc = v.chunk_offset(chunk::DESC);
    let vertex_count = d.vertex_count;
    let wide = d.vertex_count > 65535;
    if (d.index_width == 4) != wide {
        sink.at("index width", o_desc + 22, || {
            format!(
                "indexWidth is {} but {} vertices call for {}",
                d.index_width,
                vertex_count,
                if wide { 4 } else { 2 }
            )
        });
    }
    if d.flags & !DESC_FLAG_TANGENTS != 0 {
        sink.at("reserved", o_desc + 23, || {
            format!("DESC flags {:#x} set reserved bits", d.flags)
        });
    }
    if d.submesh_count == 0 {
        sink.at("submeshes", o_desc + 12, || {
            "submeshCount is 0, at least one submesh is required".into()
        });
    }
    if d.index_count % 3 != 0 {
        sink.at("triangles", o_desc + 4, || {
            format!("indexCount {} is not a multiple of 3", d.index_count)
        });
    }

    // Mesh bounds and vertices.
    let o_bnds = v.chunk_offset(chunk::BNDS);
    let bounds_ok = validate_bounds(&v.bounds, o_bnds, "mesh", sink);
    let o_vtxs = v.chunk_offset(chunk::VTXS);
    for (i, vert) in v.vertices.iter().enumerate() {
        let at = o_vtxs + 28 * i as u64;
        if !finite(&vert.position) || !finite(&vert.uv) {
            sink.at("finite", at, || {
                format!("vertex {i} has a non-finite position or UV")
            });
            continue;
        }
        if vert.normal.contains(&i16::MIN) || vert.tangent[1] == i16::MIN {
            sink.at("octahedral", at + 12, || {
                format!("vertex {i} has an octahedral component of -32768, outside the SNORM range the encoding produces")
            });
        }
        if d.flags & DESC_FLAG_TANGENTS == 0 && vert.tangent[0] & 1 != 0 {
            sink.at("tangent", at + 16, || format!("vertex {i}: DESC says no tangents, but the placeholder tangent has negative handedness"));
        }
        if bounds_ok {
            if !inside_aabb(&vert.position, &v.bounds) {
                sink.at("vertex in AABB", at, || {
                    format!("vertex {i} lies outside the mesh AABB")
                });
            }
            if !inside_sphere(&vert.position, &v.bounds) {
                sink.at("vertex in sphere", at, || {
                    format!("vertex {i} lies outside the mesh bounding sphere")
                });
            }
        }
    }

    // Indices.
    let o_idxs = v.chunk_offset(chunk::IDXS);
    let width = u64::from(d.index_width);
    for (i, index) in v.indices.iter().enumerate() {
        if index >= vertex_count {
            sink.at("index range", o_idxs + width * i as u64, || {
                format!("index {i} is {index}, not below vertexCount {vertex_count}")
            });
        }
    }

    validate_submeshes(v, bounds_ok, sink);
    validate_meshlets(v, sink);
    if let Some(skin) = &v.skin {
        validate_skin(v, skin, sink);
    }
    if let Some(lods) = &v.lods {
        validate_lods(v, lods, sink);
    }
}

fn validate_submeshes(v: &HMeshView<'_>, mesh_bounds_ok: bool, sink: &mut Sink) {
    let d = &v.desc;
    let o_subm = v.chunk_offset(chunk::SUBM);
    let mut next_index = 0u64;
    let mut next_meshlet = 0u64;
    let mut next_new_slot = 0u32;
    for (s, sub) in v.submeshes.iter().enumerate() {
        let at = o_subm + 64 * s as u64;
        if u64::from(sub.first_index) != next_index {
            sink.at("submesh tiling", at, || {
                format!("submesh {s} starts at index {}, expected {next_index} (submeshes tile IDXS in order)", sub.first_index)
            });
        }
        if sub.index_count % 3 != 0 {
            sink.at("triangles", at + 4, || {
                format!(
                    "submesh {s} indexCount {} is not a multiple of 3",
                    sub.index_count
                )
            });
        }
        if u64::from(sub.first_meshlet) != next_meshlet {
            sink.at("submesh tiling", at + 8, || {
                format!("submesh {s} starts at meshlet {}, expected {next_meshlet} (submeshes tile MLET in order)", sub.first_meshlet)
            });
        }
        next_index = u64::from(sub.first_index) + u64::from(sub.index_count);
        next_meshlet = u64::from(sub.first_meshlet) + u64::from(sub.meshlet_count);
        if sub.material_slot != NO_MATERIAL {
            if sub.material_slot >= d.material_count {
                sink.at("material slot", at + 16, || {
                    format!(
                        "submesh {s} materialSlot {} is not below materialCount {}",
                        sub.material_slot, d.material_count
                    )
                });
            } else if sub.material_slot == next_new_slot {
                next_new_slot += 1;
            } else if sub.material_slot > next_new_slot {
                sink.at("material order", at + 16, || {
                    format!("submesh {s} uses slot {} before slot {next_new_slot} is used (MTRL is in first-use order)", sub.material_slot)
                });
            }
        }
        if sub.base_vertex != 0 {
            sink.at("base vertex", at + 20, || {
                format!("submesh {s} baseVertex is {}, must be 0", sub.base_vertex)
            });
        }
        let what = format!("submesh {s}");
        if !validate_bounds(&sub.bounds, at + 24, &what, sink) || sub.index_count == 0 {
            continue;
        }
        if mesh_bounds_ok {
            let mb = &v.bounds;
            let inside = (0..3).all(|k| {
                sub.bounds.aabb_min[k] >= mb.aabb_min[k] && sub.bounds.aabb_max[k] <= mb.aabb_max[k]
            });
            if !inside {
                sink.at("submesh AABB", at + 24, || {
                    format!("submesh {s} AABB is not inside the mesh AABB")
                });
            }
        }
        let end = next_index.min(v.indices.len() as u64) as usize;
        let start = (sub.first_index as usize).min(end);
        for i in start..end {
            let Some(p) = v
                .indices
                .get(i)
                .and_then(|ix| v.vertices.get(ix as usize))
                .map(|vert| vert.position)
            else {
                continue;
            };
            if !finite(&p) {
                continue;
            }
            if !inside_aabb(&p, &sub.bounds) {
                sink.at("submesh vertex in AABB", at + 24, || {
                    format!("submesh {s}: vertex of index {i} lies outside the submesh AABB")
                });
            }
            if !inside_sphere(&p, &sub.bounds) {
                sink.at("submesh vertex in sphere", at + 48, || {
                    format!("submesh {s}: vertex of index {i} lies outside the submesh sphere")
                });
            }
        }
    }
    if next_index != u64::from(d.index_count) {
        sink.at("submesh tiling", o_subm, || {
            format!(
                "submeshes cover {next_index} indices, IDXS holds {}",
                d.index_count
            )
        });
    }
    if next_meshlet != u64::from(d.meshlet_count) {
        sink.at("submesh tiling", o_subm, || {
            format!(
                "submeshes cover {next_meshlet} meshlets, MLET holds {}",
                d.meshlet_count
            )
        });
    }
    if next_new_slot < d.material_count {
        sink.at("material order", v.chunk_offset(chunk::MTRL) + 8 * u64::from(next_new_slot), || {
            format!("MTRL slot {next_new_slot} is never used by a submesh (MTRL lists only referenced materials)")
        });
    }
}

fn validate_meshlets(v: &HMeshView<'_>, sink: &mut Sink) {
    let d = &v.desc;
    let o_mlet = v.chunk_offset(chunk::MLET);
    let o_mltr = v.chunk_offset(chunk::MLTR);
    let o_mlbn = v.chunk_offset(chunk::MLBN);
    let mlvr_len = v.meshlet_vertices.len() as u64;
    let mltr_len = v.meshlet_triangles.len() as u64;
    let mut next_vertex = 0u64;
    let mut next_triangle = 0u64;
    for (m, ml) in v.meshlets.iter().enumerate() {
        let at = o_mlet + 16 * m as u64;
        if u64::from(ml.vertex_offset) != next_vertex
            || u64::from(ml.triangle_offset) != next_triangle
        {
            sink.at("meshlet packing", at, || {
                format!("meshlet {m} starts at vertex {} / triangle {}, expected {next_vertex} / {next_triangle} (MLVR and MLTR are dense, in meshlet order)", ml.vertex_offset, ml.triangle_offset)
            });
        }
        let v_end = u64::from(ml.vertex_offset) + u64::from(ml.vertex_count);
        let t_end = u64::from(ml.triangle_offset) + u64::from(ml.triangle_count);
        next_vertex = v_end;
        next_triangle = t_end;
        if ml.vertex_count > d.meshlet_max_verts || ml.triangle_count > d.meshlet_max_tris {
            sink.at("meshlet limits", at, || {
                format!(
                    "meshlet {m} has {} vertices / {} triangles, over the DESC limits {} / {}",
                    ml.vertex_count, ml.triangle_count, d.meshlet_max_verts, d.meshlet_max_tris
                )
            });
        }
        if v_end > mlvr_len {
            sink.at("meshlet range", at, || {
                format!("meshlet {m} vertex range ends at {v_end}, past MLVR's {mlvr_len} entries")
            });
        }
        if t_end > mltr_len {
            sink.at("meshlet range", at + 8, || {
                format!(
                    "meshlet {m} triangle range ends at {t_end}, past MLTR's {mltr_len} triangles"
                )
            });
            continue;
        }
        let tris = v
            .meshlet_triangles
            .get(ml.triangle_offset as usize..t_end as usize)
            .unwrap_or(&[]);
        for (t, tri) in tris.iter().enumerate() {
            if tri.0.iter().any(|&l| u32::from(l) >= ml.vertex_count) {
                let t_at = o_mltr + 3 * (u64::from(ml.triangle_offset) + t as u64);
                sink.at("meshlet local index", t_at, || {
                    format!("meshlet {m} triangle {t} {:?} uses a local index not below its {} vertices", tri.0, ml.vertex_count)
                });
            }
        }
    }
    if next_vertex != mlvr_len || next_triangle != mltr_len {
        sink.at("meshlet packing", v.chunk_offset(chunk::MLVR), || {
            format!("meshlets use {next_vertex} vertices / {next_triangle} triangles but MLVR / MLTR hold {mlvr_len} / {mltr_len}")
        });
    }
    let o_mlvr = v.chunk_offset(chunk::MLVR);
    for (i, &g) in v.meshlet_vertices.iter().enumerate() {
        if g >= d.vertex_count {
            sink.at("meshlet vertex", o_mlvr + 4 * i as u64, || {
                format!(
                    "MLVR entry {i} is {g}, not below vertexCount {}",
                    d.vertex_count
                )
            });
        }
    }
    for (m, b) in v.meshlet_bounds.iter().enumerate() {
        let fl = [
            b.center[0],
            b.center[1],
            b.center[2],
            b.radius,
            b.cone_axis[0],
            b.cone_axis[1],
            b.cone_axis[2],
            b.cone_cutoff,
        ];
        if !finite(&fl) {
            sink.at("finite", o_mlbn + 32 * m as u64, || {
                format!("meshlet {m} bounds hold a non-finite value")
            });
        } else if b.radius < 0.0 {
            sink.at("bounds", o_mlbn + 32 * m as u64 + 12, || {
                format!("meshlet {m} radius is negative")
            });
        }
    }
}

fn validate_skin(v: &HMeshView<'_>, skin: &SkinView<'_>, sink: &mut Sink) {
    let o_skin = v.chunk_offset(chunk::SKIN);
    let o_skel = v.chunk_offset(chunk::SKEL);
    let joint_count = skin.joints.len();
    for (i, sv) in skin.vertices.iter().enumerate() {
        let at = o_skin + 24 * i as u64;
        if let Some(j) = sv.joints.iter().find(|&&j| usize::from(j) >= joint_count) {
            sink.at("joint index", at, || {
                format!("skin vertex {i} uses joint {j}, not below jointCount {joint_count}")
            });
        }
        if !finite(&sv.weights) || sv.weights.iter().any(|&w| w < 0.0) {
            sink.at("weights", at + 8, || {
                format!("skin vertex {i} has a negative or non-finite weight")
            });
            continue;
        }
        let sum: f64 = sv.weights.iter().map(|&w| f64::from(w)).sum();
        if (sum - 1.0).abs() > 1e-3 {
            sink.at("weights", at + 8, || {
                format!("skin vertex {i} weights sum to {sum}, not 1")
            });
        }
    }
    for (j, joint) in skin.joints.iter().enumerate() {
        let at = o_skel + 112 * j as u64;
        let floats: Vec<f32> = joint
            .inverse_bind
            .iter()
            .chain(&joint.bind_t)
            .chain(&joint.bind_r)
            .chain(&joint.bind_s)
            .copied()
            .collect();
        if !finite(&floats) {
            sink.at("finite", at, || {
                format!("joint {j} holds a non-finite value")
            });
        } else {
            let len: f64 = joint
                .bind_r
                .iter()
                .map(|&c| f64::from(c).powi(2))
                .sum::<f64>()
                .sqrt();
            if (len - 1.0).abs() > 1e-3 {
                sink.at("bind rotation", at + 76, || {
                    format!("joint {j} bindR has length {len}, not 1")
                });
            }
        }
        let parent = joint.parent;
        if parent != -1 && (parent < 0 || parent as usize >= joint_count || parent as usize == j) {
            sink.at("joint parent", at + 104, || format!("joint {j} parent is {parent}; must be -1 or another joint's index below {joint_count}"));
        }
        if joint.pad != 0 {
            sink.at("reserved", at + 108, || {
                format!("joint {j} pad is {:#x}, must be 0", joint.pad)
            });
        }
    }
    if let Some(j) = first_joint_in_cycle(&skin.joints) {
        sink.at("joint cycle", o_skel + 112 * j as u64 + 104, || {
            format!("joint {j} is its own ancestor (parent cycle)")
        });
    }
}

/// Walks parent links once per joint (linear time); invalid parents end a chain.
fn first_joint_in_cycle(joints: &[GpuJoint]) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let parent_of = |j: usize| {
        let p = joints.get(j)?.parent;
        usize::try_from(p).ok().filter(|&p| p < joints.len())
    };
    let mut marks = vec![Mark::New; joints.len()];
    let mut path = Vec::new();
    for start in 0..joints.len() {
        let mut j = Some(start);
        while let Some(cur) = j {
            match marks[cur] {
                Mark::Done => break,
                Mark::OnPath => return Some(cur),
                Mark::New => {
                    marks[cur] = Mark::OnPath;
                    path.push(cur);
                    j = parent_of(cur);
                }
            }
        }
        for p in path.drain(..) {
            marks[p] = Mark::Done;
        }
    }
    None
}

fn validate_lods(v: &HMeshView<'_>, lods: &LodsView<'_>, sink: &mut Sink) {
    let o_lodt = v.chunk_offset(chunk::LODT);
    let o_lodi = v.chunk_offset(chunk::LODI);
    if lods.lod_count == 0 {
        sink.at("lod table", o_lodt, || {
            "LODT lists 0 levels; omit LODI/LODT when there are no LODs".into()
        });
    }
    let lodi_len = lods.indices.len() as u64;
    let per = lods.lod_count.max(1) as usize;
    for (r, range) in lods.ranges.iter().enumerate() {
        let at = o_lodt + 8 + 8 * r as u64;
        let (s, l) = (r / per, r % per);
        if range.index_count % 3 != 0 {
            sink.at("lod range", at + 4, || {
                format!(
                    "submesh {s} LOD{} indexCount {} is not a multiple of 3",
                    l + 1,
                    range.index_count
                )
            });
        }
        let end = u64::from(range.first_index) + u64::from(range.index_count);
        if end > lodi_len {
            sink.at("lod range", at, || {
                format!(
                    "submesh {s} LOD{} range ends at {end}, past LODI's {lodi_len} indices",
                    l + 1
                )
            });
        }
    }
    for (i, &index) in lods.indices.iter().enumerate() {
        if index >= v.desc.vertex_count {
            sink.at("index range", o_lodi + 4 * i as u64, || {
                format!(
                    "LODI index {i} is {index}, not below vertexCount {}",
                    v.desc.vertex_count
                )
            });
        }
    }
}
