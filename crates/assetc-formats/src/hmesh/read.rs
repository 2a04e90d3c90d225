//! The zero-copy `.hmesh` reader.

use std::borrow::Cow;

use bytemuck::Pod;

use super::clod::{self, ClusterLod};
use super::{
    chunk, FourCc, GpuJoint, GpuSkinVertex, GpuVertex, HMesh, HMeshError, Lods, MeshBounds,
    MeshDesc, MeshLod, Meshlet, MeshletBounds, MeshletTriangle, Skinning, SubMesh,
    DESC_FLAG_TANGENTS, ENTRY_SIZE, HEADER_SIZE, MAGIC, PAYLOAD_ALIGN, VERSION, VERTEX_STRIDE,
};
use crate::bytes::Reader;

type ClodOffsets = [u64; clod::tag::ALL.len()];

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
    /// Calls `f(i, index)` for every position `i` in `range` (clamped to the length), in
    /// order: one loop per index width rather than a dynamic iterator's call per index,
    /// for the validator's passes over millions of indices.
    pub fn for_each_in(&self, range: std::ops::Range<usize>, mut f: impl FnMut(usize, u32)) {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        match self {
            Self::U16(s) => {
                for (i, &v) in s[start..end].iter().enumerate() {
                    f(start + i, u32::from(v));
                }
            }
            Self::U32(s) => {
                for (i, &v) in s[start..end].iter().enumerate() {
                    f(start + i, v);
                }
            }
        }
    }
    /// Calls `f(i, index)` for every index not below `limit`, in order: a fold the
    /// compiler vectorises answers first, and only indices that hold such a value are
    /// walked one by one to name them (the validator's pass over millions of indices).
    pub fn for_each_not_below(&self, limit: u32, mut f: impl FnMut(usize, u32)) {
        let all_below = match self {
            Self::U16(s) => s.iter().fold(true, |ok, &v| ok & (u32::from(v) < limit)),
            Self::U32(s) => all_below(s, limit),
        };
        if !all_below {
            self.for_each_in(0..self.len(), |i, v| {
                if v >= limit {
                    f(i, v)
                }
            });
        }
    }
    pub fn to_u32_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }
}

/// Whether every value is below `limit`, in a loop the compiler can vectorise.
fn all_below(values: &[u32], limit: u32) -> bool {
    values.iter().fold(true, |ok, &v| ok & (v < limit))
}

/// [`Indices::for_each_not_below`] for a list of `u32` (MLVR, LODI).
pub(super) fn for_each_not_below(values: &[u32], limit: u32, mut f: impl FnMut(usize, u32)) {
    if !all_below(values, limit) {
        for (i, &v) in values.iter().enumerate() {
            if v >= limit {
                f(i, v);
            }
        }
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
    /// UV1S: the second UV set, one per vertex.
    pub uv1: Option<Cow<'a, [[f32; 2]]>>,
    /// The cluster LOD chunks (copied out of the file: they are read far less often than
    /// drawn, and a renderer uploads the payloads themselves).
    pub cluster_lod: Option<ClusterLod>,
    /// Payload offsets of the cluster LOD chunks, indexed like `clod::tag::ALL`.
    pub(super) clod_offsets: ClodOffsets,
    /// File offset of each known chunk's payload, indexed like `chunk::KNOWN`.
    offsets: [u64; 15],
}

/// One entry of the chunk table, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    pub(super) fourcc: FourCc,
    pub(super) flags: u32,
    pub(super) offset: u64,
    pub(super) size: u64,
    /// Where the entry itself sits in the file.
    pub(super) at: u64,
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

pub(super) struct Header {
    pub(super) chunk_count: u32,
    pub(super) flags: u32,
    pub(super) reserved: [u64; 2],
}

pub(super) fn read_header(bytes: &[u8]) -> Result<Header, HMeshError> {
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
pub(super) fn read_entries(bytes: &[u8], count: u32) -> Vec<Entry> {
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

pub(super) fn check_entry_bounds(e: &Entry, len: u64) -> Result<(), HMeshError> {
    if e.offset.checked_add(e.size).is_none_or(|end| end > len) {
        return Err(HMeshError::ChunkOutOfBounds {
            entry_offset: e.at,
            fourcc: e.fourcc,
            offset: e.offset,
            size: e.size,
            len,
        });
    }
    if !e.offset.is_multiple_of(PAYLOAD_ALIGN) {
        return Err(HMeshError::ChunkMisaligned {
            entry_offset: e.at,
            fourcc: e.fourcc,
            offset: e.offset,
        });
    }
    Ok(())
}

/// Known chunks by `chunk::KNOWN` index; unknown ones are skipped unchecked.
fn locate_known(bytes: &[u8], entries: &[Entry]) -> Result<[Option<Entry>; 15], HMeshError> {
    let mut found: [Option<Entry>; 15] = [None; 15];
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
        let mut offsets = [0u64; 15];
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

        let uv1 = match found[14] {
            Some(_) => Some(cast(sized(14, desc.vertex_count.into(), 8)?)),
            None => None,
        };

        let (cluster_lod, clod_offsets) = match clod::parse(bytes, &entries, desc.submesh_count)? {
            Some((lod, offsets)) => (Some(lod), offsets),
            None => (None, [0; clod::tag::ALL.len()]),
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
            uv1,
            cluster_lod,
            clod_offsets,
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
            uv1: self.uv1.as_ref().map(|u| u.to_vec()),
            cluster_lod: self.cluster_lod.clone(),
        }
    }

    /// File offset of a known chunk's payload (0 when absent).
    pub(super) fn chunk_offset(&self, fourcc: FourCc) -> u64 {
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
