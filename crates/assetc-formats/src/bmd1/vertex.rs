//! BMD1 vertex records: 64-bit, 96-bit (tags F8-FB) and 128-bit (tag FD), [B4]-[B7].

use super::codec::*;
use thiserror::Error;

/// How one vertex is stored. The tag is byte 7 of the record [B4].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VertexEncoding {
    /// 8 bytes: packed XYZ, 11-bit S/T with exponent, bone; no normal, no shade.
    V64,
    /// 12 bytes, bone 0: shade, F8A normal, 12-bit S/T.
    F8,
    /// 12 bytes, bone 0: shade, F8A normal, 11-bit S/T with exponent.
    F9,
    /// 12 bytes: bone, F8A normal, 12-bit S/T; no shade.
    FA,
    /// 12 bytes: bone, F8A normal, 11-bit S/T with exponent; no shade.
    FB,
    /// 16 bytes: binary16 position, shade, bone, F8A normal, 14-bit S/T with exponent.
    FD,
}

impl VertexEncoding {
    pub const ALL: [Self; 6] = [Self::V64, Self::F8, Self::F9, Self::FA, Self::FB, Self::FD];

    pub fn size(self) -> usize {
        match self {
            Self::V64 => 8,
            Self::F8 | Self::F9 | Self::FA | Self::FB => 12,
            Self::FD => 16,
        }
    }
    pub fn has_normal(self) -> bool {
        self != Self::V64
    }
    pub fn has_shade(self) -> bool {
        matches!(self, Self::F8 | Self::F9 | Self::FD)
    }
    /// Whether a bone other than 0 can be stored.
    pub fn has_bone(self) -> bool {
        !matches!(self, Self::F8 | Self::F9)
    }
    /// The record kind of a tag byte, `None` for the reserved tags F0-F7, FC, FE, FF.
    pub fn from_tag(tag: u8) -> Option<Self> {
        Some(match tag {
            0..=0xEF => Self::V64,
            0xF8 => Self::F8,
            0xF9 => Self::F9,
            0xFA => Self::FA,
            0xFB => Self::FB,
            0xFD => Self::FD,
            _ => return None,
        })
    }
}

/// A vertex's values. Values an encoding does not store decode as 0 (normal of a 64-bit
/// vertex, shade of 64-bit/FA/FB vertices); the seed suggests using the normalised
/// bone-relative position as the normal of a 64-bit vertex.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexIn {
    /// Bone-relative position.
    pub position: [f32; 3],
    pub uv: [f32; 2],
    pub normal: [f32; 3],
    /// 0 = base; below 0xF0.
    pub bone: u8,
    /// The seed's "Color/Shade" byte.
    pub shade: u8,
}

/// A decoded vertex with the encoding it is (or will be) stored in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub attrs: VertexIn,
    pub encoding: VertexEncoding,
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum VertexError {
    #[error("position {0:?} is not finite or outside the packed XYZ range (|v| <= 130560)")]
    PositionRange([f32; 3]),
    #[error("position {0:?} is not finite or outside the binary16 range (|v| <= 65504)")]
    HalfRange([f32; 3]),
    #[error("uv {uv:?} is not finite or outside the range of {encoding:?}")]
    UvRange {
        uv: [f32; 2],
        encoding: VertexEncoding,
    },
    #[error("normal {0:?} is not finite")]
    Normal([f32; 3]),
    #[error("bone {bone} cannot be stored in a {encoding:?} vertex")]
    Bone { bone: u8, encoding: VertexEncoding },
    #[error("shade {shade} cannot be stored in a {encoding:?} vertex")]
    Shade { shade: u8, encoding: VertexEncoding },
    #[error("reserved vertex tag {0:#04x}")]
    ReservedTag(u8),
    #[error("binary16 position is Inf or NaN")]
    HalfNotFinite,
    #[error("{encoding:?} vertex needs {needed} bytes, {available} remain")]
    Truncated {
        encoding: VertexEncoding,
        needed: usize,
        available: usize,
    },
}

/// One encoded record, 8, 12 or 16 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodedVertex {
    bytes: [u8; 16],
    len: usize,
}

impl EncodedVertex {
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

fn normal_bits(n: [f32; 3]) -> Result<u32, VertexError> {
    if n.iter().any(|c| !c.is_finite()) {
        return Err(VertexError::Normal(n));
    }
    let [x, y, z] = n.map(|c| u32::from(f8a_encode(c)));
    Ok((z << 16) | (y << 8) | x)
}

fn normal_decode(bits: u32) -> [f32; 3] {
    [bits, bits >> 8, bits >> 16].map(|b| f8a_decode(b as u8))
}

pub fn encode_vertex(v: &VertexIn, encoding: VertexEncoding) -> Result<EncodedVertex, VertexError> {
    use VertexEncoding::*;
    if v.bone >= 0xF0 || (v.bone != 0 && !encoding.has_bone()) {
        return Err(VertexError::Bone {
            bone: v.bone,
            encoding,
        });
    }
    if v.shade != 0 && !encoding.has_shade() {
        return Err(VertexError::Shade {
            shade: v.shade,
            encoding,
        });
    }
    let uv_err = VertexError::UvRange { uv: v.uv, encoding };
    let mut bytes = [0u8; 16];
    match encoding {
        FD => {
            let mut org = 0u64;
            for (i, &c) in v.position.iter().enumerate() {
                let h = half_encode(c).ok_or(VertexError::HalfRange(v.position))?;
                org |= u64::from(h) << (16 * i);
            }
            let first = (0xFDu64 << 56) | (u64::from(v.shade) << 48) | org;
            let (st, e) = st14_encode(v.uv).ok_or(uv_err)?;
            let second = (u64::from(v.bone) << 56)
                | (u64::from(normal_bits(v.normal)?) << 32)
                | (u64::from(e) << 28)
                | u64::from(st);
            bytes[..8].copy_from_slice(&first.to_le_bytes());
            bytes[8..].copy_from_slice(&second.to_le_bytes());
        }
        _ => {
            let xyz = xyz_encode(v.position).ok_or(VertexError::PositionRange(v.position))?;
            let st_bits = match encoding {
                F8 | FA => st12_encode(v.uv).ok_or(uv_err)?,
                _ => {
                    let (st, e) = st11_encode(v.uv).ok_or(uv_err)?;
                    (e << 22) | st
                }
            };
            let tag = match encoding {
                V64 => v.bone,
                F8 => 0xF8,
                F9 => 0xF9,
                FA => 0xFA,
                _ => 0xFB,
            };
            let first = (u64::from(tag) << 56) | (u64::from(st_bits) << 32) | u64::from(xyz);
            bytes[..8].copy_from_slice(&first.to_le_bytes());
            if encoding != V64 {
                let top = if encoding.has_shade() {
                    v.shade
                } else {
                    v.bone
                };
                let second = (u32::from(top) << 24) | normal_bits(v.normal)?;
                bytes[8..12].copy_from_slice(&second.to_le_bytes());
            }
        }
    }
    Ok(EncodedVertex {
        bytes,
        len: encoding.size(),
    })
}

/// Decodes the record at the start of `bytes`; its size is `encoding.size()`.
pub fn decode_vertex(bytes: &[u8]) -> Result<Vertex, VertexError> {
    use VertexEncoding::*;
    let first = match bytes.get(..8) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        None => {
            return Err(VertexError::Truncated {
                encoding: V64,
                needed: 8,
                available: bytes.len(),
            })
        }
    };
    let tag = (first >> 56) as u8;
    let encoding = VertexEncoding::from_tag(tag).ok_or(VertexError::ReservedTag(tag))?;
    let record = bytes.get(..encoding.size()).ok_or(VertexError::Truncated {
        encoding,
        needed: encoding.size(),
        available: bytes.len(),
    })?;
    let mut attrs = VertexIn::default();
    let low = first as u32;
    let high = (first >> 32) as u32;
    match encoding {
        FD => {
            let mut second = [0u8; 8];
            second.copy_from_slice(record.get(8..16).unwrap_or(&[0; 8]));
            let second = u64::from_le_bytes(second);
            for (i, c) in attrs.position.iter_mut().enumerate() {
                *c = half_decode((first >> (16 * i)) as u16).ok_or(VertexError::HalfNotFinite)?;
            }
            attrs.shade = (first >> 48) as u8;
            attrs.bone = (second >> 56) as u8;
            attrs.normal = normal_decode((second >> 32) as u32);
            let st = second as u32;
            attrs.uv = st14_decode(st & 0x3FFF, (st >> 14) & 0x3FFF, (st >> 28) & 0xF);
        }
        _ => {
            attrs.position = xyz_decode(low);
            attrs.uv = match encoding {
                F8 | FA => st12_decode(high & 0xFF_FFFF),
                _ => st11_decode(high & 0x7FF, (high >> 11) & 0x7FF, (high >> 22) & 3),
            };
            if encoding == V64 {
                attrs.bone = tag;
            } else {
                let mut second = [0u8; 4];
                second.copy_from_slice(record.get(8..12).unwrap_or(&[0; 4]));
                let second = u32::from_le_bytes(second);
                attrs.normal = normal_decode(second);
                if encoding.has_shade() {
                    attrs.shade = (second >> 24) as u8;
                } else {
                    attrs.bone = (second >> 24) as u8;
                }
            }
        }
    }
    if attrs.bone >= 0xF0 {
        return Err(VertexError::Bone {
            bone: attrs.bone,
            encoding,
        });
    }
    Ok(Vertex { attrs, encoding })
}

/// Largest per-component absolute error an encoding gives over a vertex set.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct EncodingError {
    pub position: f32,
    pub uv: f32,
}

/// Bounds for [`pick_encoding`], per component, in model units and texture units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ErrorBound {
    pub position: f32,
    pub uv: f32,
}

/// Encodes and decodes every vertex; fails with the first vertex (index) the encoding
/// cannot hold at all.
pub fn encoding_error(
    vertices: &[VertexIn],
    encoding: VertexEncoding,
) -> Result<EncodingError, (usize, VertexError)> {
    let mut worst = EncodingError::default();
    for (i, v) in vertices.iter().enumerate() {
        let encoded = encode_vertex(v, encoding).map_err(|e| (i, e))?;
        let back = decode_vertex(encoded.as_bytes()).map_err(|e| (i, e))?.attrs;
        for (a, b) in v.position.iter().zip(back.position) {
            worst.position = worst.position.max((a - b).abs());
        }
        for (a, b) in v.uv.iter().zip(back.uv) {
            worst.uv = worst.uv.max((a - b).abs());
        }
    }
    Ok(worst)
}

/// The `auto` rule: the smallest record (64 < 96 < 128 bits; among 96-bit ones F8, F9, FA,
/// FB in that order) that stores every vertex's bone and shade exactly, has normals when
/// `needs_normals`, and keeps every position and UV component within `bound`.
pub fn pick_encoding(
    vertices: &[VertexIn],
    bound: ErrorBound,
    needs_normals: bool,
) -> Option<VertexEncoding> {
    VertexEncoding::ALL
        .into_iter()
        .filter(|e| e.has_normal() || !needs_normals)
        .find(|&e| {
            encoding_error(vertices, e)
                .is_ok_and(|err| err.position <= bound.position && err.uv <= bound.uv)
        })
}
