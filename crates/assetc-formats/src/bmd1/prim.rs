//! Triangle and quad entries [B11]-[B13], and splitting meshes to the 1024-vertex limit.

use super::vertex::Vertex;
use std::collections::HashMap;
use thiserror::Error;

/// Most vertices one MeshDef may hold [B12].
pub const MAX_MESH_VERTICES: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    Triangle([u16; 3]),
    /// Drawn as (v0, v1, v2) and (v0, v2, v3).
    Quad([u16; 4]),
}

impl Primitive {
    pub fn indices(&self) -> &[u16] {
        match self {
            Self::Triangle(v) => v,
            Self::Quad(v) => v,
        }
    }
}

/// Mesh flag bits 1:0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VertexListKind {
    Only64 = 0,
    Variable = 1,
    Only128 = 2,
    Only96 = 3,
}

/// Mesh flag bits 3:2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TriangleListKind {
    /// Only 32-bit triangles.
    Tri32 = 0,
    /// 32/64-bit triangles and quads.
    Variable = 1,
    /// Only 64-bit triangles.
    Tri64 = 2,
    /// 64-bit triangles and quads; `n_tris` counts entries.
    TriQuad64 = 3,
}

impl VertexListKind {
    pub fn from_bits(bits: u32) -> Self {
        match bits & 3 {
            0 => Self::Only64,
            1 => Self::Variable,
            2 => Self::Only128,
            _ => Self::Only96,
        }
    }
    pub fn allows(self, size: usize) -> bool {
        match self {
            Self::Only64 => size == 8,
            Self::Variable => true,
            Self::Only128 => size == 16,
            Self::Only96 => size == 12,
        }
    }
    /// The fixed-size kind when every record has one size, else `Variable`.
    pub fn smallest_for(vertices: &[Vertex]) -> Self {
        let sizes = |n| vertices.iter().all(|v| v.encoding.size() == n);
        if sizes(8) {
            Self::Only64
        } else if sizes(12) {
            Self::Only96
        } else if sizes(16) {
            Self::Only128
        } else {
            Self::Variable
        }
    }
}

impl TriangleListKind {
    pub fn from_bits(bits: u32) -> Self {
        match bits & 3 {
            0 => Self::Tri32,
            1 => Self::Variable,
            2 => Self::Tri64,
            _ => Self::TriQuad64,
        }
    }
    pub fn allows_quads(self) -> bool {
        matches!(self, Self::Variable | Self::TriQuad64)
    }
    /// 32-bit triangles when there are no quads, else the variable list (32-bit triangles,
    /// 32-bit quads below index 128, 64-bit quads otherwise): the smallest list [B12].
    pub fn smallest_for(primitives: &[Primitive]) -> Self {
        if primitives.iter().any(|p| matches!(p, Primitive::Quad(_))) {
            Self::Variable
        } else {
            Self::Tri32
        }
    }
    /// The `n_tris` value of a list [B11].
    pub fn count(self, primitives: &[Primitive]) -> usize {
        match self {
            Self::TriQuad64 => primitives.len(),
            _ => primitives
                .iter()
                .map(|p| match p {
                    Primitive::Triangle(_) => 1,
                    Primitive::Quad(_) => 2,
                })
                .sum(),
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PrimitiveError {
    #[error("a quad is not allowed in a {0:?} list")]
    QuadNotAllowed(TriangleListKind),
    #[error("index {0} does not fit a {1:?} list entry")]
    IndexTooLarge(u16, TriangleListKind),
    #[error("entry tag {tag} is not allowed in a {kind:?} list")]
    TagNotAllowed { tag: u32, kind: TriangleListKind },
    #[error("entry has non-zero Tag2 bits")]
    Tag2,
    #[error("entry needs {needed} bytes, {available} remain")]
    Truncated { needed: usize, available: usize },
}

/// The smallest entry the list kind allows for `p`, as (value, byte length) [B13].
pub fn encode_primitive(
    p: &Primitive,
    kind: TriangleListKind,
) -> Result<(u64, usize), PrimitiveError> {
    use TriangleListKind::*;
    let fits = |bits: u32| p.indices().iter().all(|&i| u32::from(i) < (1 << bits));
    let big = p.indices().iter().copied().max().unwrap_or(0);
    match (p, kind) {
        (Primitive::Quad(_), Tri32 | Tri64) => Err(PrimitiveError::QuadNotAllowed(kind)),
        (Primitive::Triangle([a, b, c]), Tri32 | Variable) if fits(10) => {
            let v = (u64::from(*c) << 22) | (u64::from(*b) << 12) | (u64::from(*a) << 2);
            Ok((v, 4))
        }
        (Primitive::Triangle(_), Tri32) => Err(PrimitiveError::IndexTooLarge(big, kind)),
        (Primitive::Quad([a, b, c, d]), Variable) if fits(7) => {
            let v = (u64::from(*d) << 23)
                | (u64::from(*c) << 16)
                | (u64::from(*b) << 9)
                | (u64::from(*a) << 2)
                | 1;
            Ok((v, 4))
        }
        (Primitive::Triangle([a, b, c]), _) => {
            let v = (u64::from(*c) << 42) | (u64::from(*b) << 22) | (u64::from(*a) << 2) | 2;
            Ok((v, 8))
        }
        (Primitive::Quad([a, b, c, d]), _) if fits(15) => {
            let v = (u64::from(*d) << 47)
                | (u64::from(*c) << 32)
                | (u64::from(*b) << 17)
                | (u64::from(*a) << 2)
                | 3;
            Ok((v, 8))
        }
        (Primitive::Quad(_), _) => Err(PrimitiveError::IndexTooLarge(big, kind)),
    }
}

/// Decodes the entry at the start of `bytes`, returning it with its byte length.
pub fn decode_primitive(
    bytes: &[u8],
    kind: TriangleListKind,
) -> Result<(Primitive, usize), PrimitiveError> {
    let word = |n: usize| -> Result<u64, PrimitiveError> {
        let b = bytes.get(..n).ok_or(PrimitiveError::Truncated {
            needed: n,
            available: bytes.len(),
        })?;
        Ok(b.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    };
    let low = word(4)?;
    let tag = (low & 3) as u32;
    let allowed = match kind {
        TriangleListKind::Tri32 => tag == 0,
        TriangleListKind::Variable => true,
        TriangleListKind::Tri64 => tag == 2,
        TriangleListKind::TriQuad64 => tag >= 2,
    };
    if !allowed {
        return Err(PrimitiveError::TagNotAllowed { tag, kind });
    }
    let field = |v: u64, shift: u32, bits: u32| ((v >> shift) & ((1 << bits) - 1)) as u32;
    // Indices wider than u16 cannot be below the 1024-vertex limit; saturate so the
    // range check against n_vtx reports them.
    let idx = |x: u32| u16::try_from(x).unwrap_or(u16::MAX);
    Ok(match tag {
        0 => (
            Primitive::Triangle(
                [field(low, 2, 10), field(low, 12, 10), field(low, 22, 10)].map(idx),
            ),
            4,
        ),
        1 => {
            if low >> 30 != 0 {
                return Err(PrimitiveError::Tag2);
            }
            let q = [
                field(low, 2, 7),
                field(low, 9, 7),
                field(low, 16, 7),
                field(low, 23, 7),
            ];
            (Primitive::Quad(q.map(idx)), 4)
        }
        _ => {
            let v = word(8)?;
            if v >> 62 != 0 {
                return Err(PrimitiveError::Tag2);
            }
            if tag == 2 {
                let t = [field(v, 2, 20), field(v, 22, 20), field(v, 42, 20)];
                (Primitive::Triangle(t.map(idx)), 8)
            } else {
                let q = [
                    field(v, 2, 15),
                    field(v, 17, 15),
                    field(v, 32, 15),
                    field(v, 47, 15),
                ];
                (Primitive::Quad(q.map(idx)), 8)
            }
        }
    })
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("primitive {primitive} uses vertex {index}, but there are {vertex_count} vertices")]
pub struct SplitError {
    pub primitive: usize,
    pub index: usize,
    pub vertex_count: usize,
}

/// One piece of a split mesh, small enough for a MeshDef.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshPiece {
    pub vertices: Vec<Vertex>,
    pub primitives: Vec<Primitive>,
}

/// A primitive of a mesh before splitting, with indices of any size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourcePrimitive {
    Triangle([u32; 3]),
    Quad([u32; 4]),
}

/// Splits a mesh of any size into pieces of at most 1024 vertices, keeping primitive order;
/// vertices shared across a cut are duplicated.
pub fn split_mesh(
    vertices: &[Vertex],
    primitives: &[SourcePrimitive],
) -> Result<Vec<MeshPiece>, SplitError> {
    let mut pieces = Vec::new();
    let mut local: HashMap<u32, u16> = HashMap::new();
    let mut piece_vertices: Vec<Vertex> = Vec::new();
    let mut piece_prims: Vec<Primitive> = Vec::new();
    for (pi, prim) in primitives.iter().enumerate() {
        let corners: &[u32] = match prim {
            SourcePrimitive::Triangle(v) => v,
            SourcePrimitive::Quad(v) => v,
        };
        if let Some(&index) = corners.iter().find(|&&i| i as usize >= vertices.len()) {
            return Err(SplitError {
                primitive: pi,
                index: index as usize,
                vertex_count: vertices.len(),
            });
        }
        let new = corners
            .iter()
            .enumerate()
            .filter(|&(k, i)| !local.contains_key(i) && !corners[..k].contains(i))
            .count();
        if piece_vertices.len() + new > MAX_MESH_VERTICES {
            pieces.push(MeshPiece {
                vertices: std::mem::take(&mut piece_vertices),
                primitives: std::mem::take(&mut piece_prims),
            });
            local.clear();
        }
        let mut mapped = [0u16; 4];
        for (slot, &index) in mapped.iter_mut().zip(corners) {
            *slot = match local.get(&index) {
                Some(&l) => l,
                None => {
                    let l = piece_vertices.len() as u16;
                    piece_vertices.extend(vertices.get(index as usize).copied());
                    local.insert(index, l);
                    l
                }
            };
        }
        piece_prims.push(match prim {
            SourcePrimitive::Quad(_) => Primitive::Quad(mapped),
            SourcePrimitive::Triangle(_) => Primitive::Triangle([mapped[0], mapped[1], mapped[2]]),
        });
    }
    if !piece_prims.is_empty() {
        pieces.push(MeshPiece {
            vertices: piece_vertices,
            primitives: piece_prims,
        });
    }
    Ok(pieces)
}
