//! EXT_meshopt_compression: compressed bufferViews decoded into plain bytes with the
//! `meshopt` crate, so that accessor decoding never sees the compression.
//!
//! meshoptimizer's C decoders `assert` on their size arguments (vertex size a multiple of 4
//! up to 256, index size 2 or 4, triangle counts a multiple of 3, filter strides); an assert
//! aborts the process, so every one of those is checked here first.

use super::{bad, Res};
use gltf::json;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshoptView {
    pub buffer: usize,
    #[serde(default)]
    pub byte_offset: u64,
    pub byte_length: u64,
    pub byte_stride: usize,
    pub count: u64,
    pub mode: String,
    #[serde(default)]
    pub filter: Option<String>,
}

const EXTENSION: &str = "EXT_meshopt_compression";

/// The parsed extension of a bufferView. A malformed one counts as absent: the view then
/// reads its fallback buffer, which has no data, and that read reports the view.
pub fn extension_of(view: &json::buffer::View) -> Option<MeshoptView> {
    let value = view.extensions.as_ref()?.others.get(EXTENSION)?;
    serde_json::from_value(value.clone()).ok()
}

impl MeshoptView {
    pub fn decoded_size(&self, path: &str) -> Res<u64> {
        if self.byte_stride == 0 || self.byte_stride > 256 {
            return bad(
                path,
                format!("{EXTENSION} byteStride {} is invalid", self.byte_stride),
            );
        }
        match self.count.checked_mul(self.byte_stride as u64) {
            Some(size) => Ok(size),
            None => bad(path, format!("{EXTENSION} count {} overflows", self.count)),
        }
    }
}

/// Wraps a vertex of `N` bytes so the crate's generic decoder gets a type of that size for
/// every stride the extension allows.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Vertex<const N: usize>([u8; N]);

impl<const N: usize> Default for Vertex<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

/// Why a compressed bufferView does not decode (the extension's name is added by
/// [`decode`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ViewError {
    /// meshoptimizer's own error text.
    #[error("{0}")]
    Codec(String),
    #[error("byteStride {0} is invalid")]
    Stride(usize),
    #[error("TRIANGLES count {0} is not a multiple of 3")]
    PartialTriangle(usize),
    #[error("mode {mode} with byteStride {stride} is invalid")]
    Mode { mode: String, stride: usize },
}

fn decode_vertices<const N: usize>(src: &[u8], count: usize) -> Result<Vec<u8>, ViewError> {
    let v: Vec<Vertex<N>> = ::meshopt::encoding::decode_vertex_buffer(src, count)
        .map_err(|e| ViewError::Codec(e.to_string()))?;
    Ok(v.iter().flat_map(|x| x.0).collect())
}

macro_rules! dispatch_stride {
    ($stride:expr, $src:expr, $count:expr, [$($n:literal)*]) => {
        match $stride {
            $($n => decode_vertices::<$n>($src, $count),)*
            other => Err(ViewError::Stride(other)),
        }
    };
}

fn decode_attributes(src: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, ViewError> {
    dispatch_stride!(stride, src, count, [
        4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112
        116 120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196 200
        204 208 212 216 220 224 228 232 236 240 244 248 252 256
    ])
}

pub fn decode(ext: &MeshoptView, src: &[u8], path: &str) -> Res<Vec<u8>> {
    let count = usize::try_from(ext.count).unwrap_or(usize::MAX);
    let stride = ext.byte_stride;
    let to_bytes =
        |r: Result<Vec<u32>, ::meshopt::Error>, size: usize| -> Result<Vec<u8>, ViewError> {
            let v = r.map_err(|e| ViewError::Codec(e.to_string()))?;
            Ok(v.iter()
                .flat_map(|x| x.to_le_bytes()[..size].to_vec())
                .collect())
        };
    let widen =
        |r: Result<Vec<u16>, ::meshopt::Error>| r.map(|v| v.into_iter().map(u32::from).collect());
    let decoded: Result<Vec<u8>, ViewError> = match (ext.mode.as_str(), stride) {
        ("ATTRIBUTES", _) => decode_attributes(src, count, stride),
        ("TRIANGLES", 2 | 4) if count % 3 != 0 => Err(ViewError::PartialTriangle(count)),
        ("TRIANGLES", 2) => to_bytes(
            widen(::meshopt::encoding::decode_index_buffer::<u16>(src, count)),
            2,
        ),
        ("TRIANGLES", 4) => to_bytes(
            ::meshopt::encoding::decode_index_buffer::<u32>(src, count),
            4,
        ),
        ("INDICES", 2) => to_bytes(
            widen(::meshopt::encoding::decode_index_sequence::<u16>(
                src, count,
            )),
            2,
        ),
        ("INDICES", 4) => to_bytes(
            ::meshopt::encoding::decode_index_sequence::<u32>(src, count),
            4,
        ),
        (mode, _) => Err(ViewError::Mode {
            mode: mode.to_owned(),
            stride,
        }),
    };
    let mut bytes = match decoded {
        Ok(b) => b,
        Err(reason) => return bad(path, format!("{EXTENSION}: {reason}")),
    };
    let filter = ext.filter.as_deref().unwrap_or("NONE");
    if filter != "NONE" && ext.mode != "ATTRIBUTES" {
        return bad(
            path,
            format!("{EXTENSION}: filter {filter} on mode {}", ext.mode),
        );
    }
    match filter {
        "NONE" => {}
        "OCTAHEDRAL" if stride == 4 => {
            filter_in_place::<[i8; 4]>(&mut bytes, ::meshopt::encoding::decode_filter_oct)
        }
        "OCTAHEDRAL" if stride == 8 => {
            filter_in_place::<[i16; 4]>(&mut bytes, ::meshopt::encoding::decode_filter_oct)
        }
        "QUATERNION" if stride == 8 => {
            filter_in_place::<[i16; 4]>(&mut bytes, ::meshopt::encoding::decode_filter_quat)
        }
        "EXPONENTIAL" => filter_in_place::<u32>(&mut bytes, |d| {
            // The exp filter works on each 32-bit value independently, so a single-lane view
            // covers every stride.
            let lanes: &mut [[u32; 1]] = bytemuck::cast_slice_mut(d);
            ::meshopt::encoding::decode_filter_exp(lanes)
        }),
        other => {
            return bad(
                path,
                format!("{EXTENSION}: filter {other} with byteStride {stride} is invalid"),
            )
        }
    }
    Ok(bytes)
}

/// Runs a filter over bytes by copying through an aligned vector of `T`.
fn filter_in_place<T: bytemuck::Pod>(bytes: &mut [u8], filter: impl FnOnce(&mut [T])) {
    let size = std::mem::size_of::<T>();
    let mut items: Vec<T> = bytes
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect();
    filter(&mut items);
    let out: &[u8] = bytemuck::cast_slice(&items);
    bytes[..out.len()].copy_from_slice(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertex_round_trip_through_the_crate_encoder() {
        let verts: Vec<[u16; 6]> = (0..50u16).map(|i| [i, i * 2, 7, i ^ 3, 0, 9]).collect();
        let encoded = ::meshopt::encoding::encode_vertex_buffer(&verts).unwrap();
        let decoded = decode_attributes(&encoded, 50, 12).unwrap();
        assert_eq!(decoded, bytemuck::cast_slice::<_, u8>(&verts));
    }

    #[test]
    fn garbage_input_is_an_error_not_an_abort() {
        let ext = MeshoptView {
            buffer: 0,
            byte_offset: 0,
            byte_length: 5,
            byte_stride: 4,
            count: 4,
            mode: "TRIANGLES".into(),
            filter: None,
        };
        assert!(decode(&ext, &[1, 2, 3, 4, 5], "bufferViews[0]").is_err());
        let ext = MeshoptView {
            mode: "ATTRIBUTES".into(),
            byte_stride: 6,
            ..ext
        };
        assert!(decode(&ext, &[0; 64], "bufferViews[0]").is_err());
    }
}
