//! The KTX2 reader. Every offset and length is checked against the file before use, and
//! supercompressed levels are inflated only up to the size the header dimensions imply,
//! within a budget for the whole file ([`ReadOptions`]): a tiny file of compressed zeros
//! can declare gigabytes of levels. Validation streams each level through a small buffer
//! and keeps nothing, so checking such a file costs time but no memory.

use super::{
    level_depth, BlockInfo, Dfd, InflateError, Ktx2Error, PixelFormat, CUBE_FACES,
    DEFAULT_INFLATE_BUDGET, HEADER_SIZE, IDENTIFIER, LEVEL_INDEX_ENTRY_SIZE, MAX_LEVEL_BYTES,
    MAX_TOTAL_BYTES, SUPERCOMPRESSION_BASISLZ, SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZLIB,
    SUPERCOMPRESSION_ZSTD,
};
use crate::bytes::Reader;
use std::io::Read as _;

/// How much a read may allocate, and whether level data is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Most bytes of level data the read may hold in memory, summed over all levels
    /// (inflated or copied). A file that needs more is refused before anything is
    /// allocated for it.
    pub budget: u64,
    /// Keep each level's data in [`Level::data`]. When false every level is still
    /// inflated and checked, one buffer at a time, and `data` stays empty; `budget` then
    /// bounds nothing in memory and the work is bounded by [`MAX_TOTAL_BYTES`].
    pub keep_levels: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            budget: DEFAULT_INFLATE_BUDGET,
            keep_levels: true,
        }
    }
}

impl ReadOptions {
    /// Check every level but keep no data: for validators and `inspect`.
    pub fn layout_only() -> Self {
        Self {
            budget: MAX_TOTAL_BYTES,
            keep_levels: false,
        }
    }
}

/// One mip level: the index entry as stored and the level's data, inflated (BasisLZ
/// levels stay as stored, their meaning needs the global data). `data` is empty when
/// read with [`ReadOptions::layout_only`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub byte_offset: u64,
    pub byte_length: u64,
    pub uncompressed_byte_length: u64,
    pub data: Vec<u8>,
}

/// A parsed KTX2 file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ktx2 {
    pub vk_format: u32,
    pub type_size: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub layer_count: u32,
    pub face_count: u32,
    /// `levelCount` as stored (0 asks the loader to generate mips; one level is stored).
    pub level_count: u32,
    pub supercompression: u32,
    pub dfd_offset: u32,
    pub kvd_offset: u32,
    pub sgd_offset: u64,
    pub dfd: Dfd,
    /// Key/value pairs in file order; values as stored (string values keep their NUL).
    pub key_values: Vec<(String, Vec<u8>)>,
    pub supercompression_global_data: Vec<u8>,
    /// Level 0 first.
    pub levels: Vec<Level>,
}

impl Ktx2 {
    pub fn key_value(&self, key: &str) -> Option<&[u8]> {
        self.key_values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    /// A key's value as text, without the terminating NUL.
    pub fn key_value_str(&self, key: &str) -> Option<&str> {
        let v = self.key_value(key)?;
        std::str::from_utf8(v.strip_suffix(&[0]).unwrap_or(v)).ok()
    }

    /// The assetc pixel format and sRGB flag, when the file holds one.
    pub fn pixel_format(&self) -> Option<(PixelFormat, bool)> {
        let (f, srgb) = PixelFormat::from_vk_format(self.vk_format, self.dfd.color_model)?;
        Some((
            f,
            srgb || (f == PixelFormat::Uastc && self.dfd.transfer_function == super::TRANSFER_SRGB),
        ))
    }

    /// Width and height of level `i`.
    pub fn level_size(&self, i: usize) -> (u32, u32) {
        let s = (i as u32).min(31);
        ((self.width >> s).max(1), (self.height >> s).max(1))
    }

    /// Depth slices in level `i`: 1 for 2D images and cubemaps (pixelDepth 0), else
    /// max(1, pixelDepth >> i).
    pub fn level_depth(&self, i: usize) -> u32 {
        level_depth(self.depth, i.min(31) as u32)
    }

    /// Images stored in level `i`: layers x faces x that level's depth slices, face-major
    /// then z (spec 3.9).
    pub fn level_images(&self, i: usize) -> u64 {
        u64::from(self.layer_count.max(1))
            .saturating_mul(u64::from(self.face_count))
            .saturating_mul(u64::from(self.level_depth(i)))
    }

    pub fn is_cube(&self) -> bool {
        self.face_count == CUBE_FACES
    }
}

fn range(
    offset: u64,
    length: u64,
    file_len: usize,
    what: &str,
) -> Result<std::ops::Range<usize>, Ktx2Error> {
    let end = offset
        .checked_add(length)
        .filter(|&e| e <= file_len as u64)
        .ok_or_else(|| {
            Ktx2Error::invalid(
                offset.min(usize::MAX as u64) as usize,
                format!("{what} ({length} bytes at {offset}) runs past the end of the file ({file_len} bytes)"),
            )
        })?;
    Ok(offset as usize..end as usize)
}

/// Parses a KTX2 file and inflates its levels, within the default budget.
pub fn read(bytes: &[u8]) -> Result<Ktx2, Ktx2Error> {
    read_with(bytes, &ReadOptions::default())
}

/// Parses a KTX2 file; `options` bounds what it may inflate and says what it keeps.
pub fn read_with(bytes: &[u8], options: &ReadOptions) -> Result<Ktx2, Ktx2Error> {
    let mut r = Reader::new(bytes);
    if r.array::<12>("identifier")? != IDENTIFIER {
        return Err(Ktx2Error::BadIdentifier);
    }
    let vk_format = r.u32("vkFormat")?;
    let type_size = r.u32("typeSize")?;
    let width = r.u32("pixelWidth")?;
    let height = r.u32("pixelHeight")?;
    let depth = r.u32("pixelDepth")?;
    let layer_count = r.u32("layerCount")?;
    let face_count = r.u32("faceCount")?;
    let level_count = r.u32("levelCount")?;
    let supercompression = r.u32("supercompressionScheme")?;
    let dfd_offset = r.u32("dfdByteOffset")?;
    let dfd_length = r.u32("dfdByteLength")?;
    let kvd_offset = r.u32("kvdByteOffset")?;
    let kvd_length = r.u32("kvdByteLength")?;
    let sgd_offset = r.u64("sgdByteOffset")?;
    let sgd_length = r.u64("sgdByteLength")?;

    if width == 0 {
        return Err(Ktx2Error::invalid(20, "pixelWidth is 0"));
    }
    if face_count != 1 && face_count != CUBE_FACES {
        return Err(Ktx2Error::invalid(
            36,
            format!("faceCount {face_count} is neither 1 nor 6"),
        ));
    }
    let max_dim = width.max(height).max(depth);
    let max_levels = 32 - max_dim.leading_zeros();
    if level_count > max_levels {
        return Err(Ktx2Error::invalid(
            40,
            format!("levelCount {level_count} exceeds the {max_levels} levels a {width}x{height}x{depth} image has"),
        ));
    }
    if supercompression > SUPERCOMPRESSION_ZLIB {
        return Err(Ktx2Error::Unsupported(format!(
            "supercompressionScheme {supercompression}"
        )));
    }
    let stored_levels = level_count.max(1) as usize;
    range(
        HEADER_SIZE as u64,
        (stored_levels * LEVEL_INDEX_ENTRY_SIZE) as u64,
        bytes.len(),
        "level index",
    )?;

    let dfd_range = range(dfd_offset.into(), dfd_length.into(), bytes.len(), "DFD")?;
    let dfd = Dfd::parse(&bytes[dfd_range], dfd_offset as usize)?;
    let kvd_range = range(
        kvd_offset.into(),
        kvd_length.into(),
        bytes.len(),
        "key/value data",
    )?;
    let key_values = parse_key_values(&bytes[kvd_range], kvd_offset as usize)?;
    let sgd_range = range(
        sgd_offset,
        sgd_length,
        bytes.len(),
        "supercompression global data",
    )?;
    let supercompression_global_data = bytes[sgd_range].to_vec();

    let block = BlockInfo::for_vk_format(vk_format, &dfd);
    if block.is_none() && supercompression != SUPERCOMPRESSION_BASISLZ {
        return Err(Ktx2Error::Unsupported(format!(
            "vkFormat {vk_format} with DFD colour model {} has no known block size",
            dfd.color_model
        )));
    }
    // Every level's size from the header alone (faces, layers and that level's depth
    // slices), so that a header claiming more than the limits is refused before any
    // level is copied or inflated.
    let expected: Vec<Option<u64>> = (0..stored_levels)
        .map(|i| {
            let Some(b) = block else { return Ok(None) };
            // Layers and depth are u32 each: their product may not fit in u64.
            let images = u64::from(layer_count.max(1))
                .checked_mul(u64::from(face_count))
                .and_then(|n| n.checked_mul(u64::from(level_depth(depth, i as u32))));
            images
                .and_then(|images| b.level_bytes(width, height, i as u32, images))
                .filter(|&n| n <= MAX_LEVEL_BYTES)
                .map(Some)
                .ok_or_else(|| {
                    Ktx2Error::level(
                        i,
                        format!(
                            "a {width}x{height} level of {layer_count} layer(s), {face_count} face(s) and depth {depth} exceeds the {MAX_LEVEL_BYTES}-byte limit"
                        ),
                    )
                })
        })
        .collect::<Result<_, _>>()?;

    // Bytes of level data held (kept levels) and bytes inflated (all levels).
    let mut held: u64 = 0;
    let limit = if options.keep_levels {
        options.budget.min(MAX_TOTAL_BYTES)
    } else {
        MAX_TOTAL_BYTES
    };
    if supercompression == SUPERCOMPRESSION_ZSTD || supercompression == SUPERCOMPRESSION_ZLIB {
        let mut total: u64 = 0;
        for (i, n) in expected.iter().enumerate() {
            total += n.unwrap_or(0);
            if total > limit {
                return Err(Ktx2Error::level(
                    i,
                    format!("levels inflate to {total} bytes or more, past the {limit}-byte limit"),
                ));
            }
        }
    }
    let mut levels = Vec::with_capacity(stored_levels);
    for i in 0..stored_levels {
        let mut e = Reader::at(bytes, HEADER_SIZE + i * LEVEL_INDEX_ENTRY_SIZE);
        let byte_offset = e.u64("level byteOffset")?;
        let byte_length = e.u64("level byteLength")?;
        let uncompressed_byte_length = e.u64("level uncompressedByteLength")?;
        let data_range = range(byte_offset, byte_length, bytes.len(), "level data")
            .map_err(|err| Ktx2Error::level(i, err.to_string()))?;
        let stored = &bytes[data_range];

        let expected = expected[i];
        let data = match supercompression {
            SUPERCOMPRESSION_NONE => {
                if Some(byte_length) != expected || uncompressed_byte_length != byte_length {
                    return Err(Ktx2Error::level(
                        i,
                        format!(
                            "byteLength {byte_length} / uncompressedByteLength {uncompressed_byte_length}, the level needs {}",
                            expected.unwrap_or(0)
                        ),
                    ));
                }
                keep(stored, options, &mut held, limit, i)?
            }
            SUPERCOMPRESSION_BASISLZ => {
                if uncompressed_byte_length != 0 {
                    return Err(Ktx2Error::level(
                        i,
                        "BasisLZ levels must declare uncompressedByteLength 0",
                    ));
                }
                keep(stored, options, &mut held, limit, i)?
            }
            _ => {
                let expected = expected.unwrap_or(0);
                if uncompressed_byte_length != expected {
                    return Err(Ktx2Error::level(
                        i,
                        format!("uncompressedByteLength {uncompressed_byte_length}, the level needs {expected}"),
                    ));
                }
                // The sum of these sizes was checked against the limit above.
                if options.keep_levels {
                    inflate(stored, supercompression, expected as usize)
                        .map_err(|source| Ktx2Error::Inflate { level: i, source })?
                } else {
                    inflate_and_discard(stored, supercompression, expected)
                        .map_err(|source| Ktx2Error::Inflate { level: i, source })?;
                    Vec::new()
                }
            }
        };
        levels.push(Level {
            byte_offset,
            byte_length,
            uncompressed_byte_length,
            data,
        });
    }

    Ok(Ktx2 {
        vk_format,
        type_size,
        width,
        height,
        depth,
        layer_count,
        face_count,
        level_count,
        supercompression,
        dfd_offset,
        kvd_offset,
        sgd_offset,
        dfd,
        key_values,
        supercompression_global_data,
        levels,
    })
}

/// A stored level's bytes, copied when the options keep levels and the budget allows.
fn keep(
    stored: &[u8],
    options: &ReadOptions,
    held: &mut u64,
    limit: u64,
    level: usize,
) -> Result<Vec<u8>, Ktx2Error> {
    if !options.keep_levels {
        return Ok(Vec::new());
    }
    *held += stored.len() as u64;
    if *held > limit {
        return Err(Ktx2Error::level(
            level,
            format!("level data reaches {held} bytes, past the {limit}-byte limit"),
        ));
    }
    Ok(stored.to_vec())
}

/// Inflates one level through a fixed buffer, checking that it yields exactly
/// `expected` bytes (reading at most one byte more), and keeps nothing.
fn inflate_and_discard(stored: &[u8], scheme: u32, expected: u64) -> Result<(), InflateError> {
    let produced = if scheme == SUPERCOMPRESSION_ZSTD {
        let decoder = zstd::stream::read::Decoder::with_buffer(stored)
            .map_err(|e| InflateError::ZstdCorrupt(e.to_string()))?;
        std::io::copy(&mut decoder.take(expected + 1), &mut std::io::sink()).map_err(|e| {
            InflateError::ZstdShort {
                expected,
                reason: e.to_string(),
            }
        })?
    } else {
        let decoder = flate2::read::ZlibDecoder::new(stored);
        std::io::copy(&mut decoder.take(expected + 1), &mut std::io::sink())
            .map_err(|e| InflateError::ZlibCorrupt(e.to_string()))?
    };
    if produced != expected {
        return Err(InflateError::AtLeast { produced, expected });
    }
    Ok(())
}

/// Inflates one level to exactly `expected` bytes, reading at most one byte more to
/// detect data that would inflate further.
fn inflate(stored: &[u8], scheme: u32, expected: usize) -> Result<Vec<u8>, InflateError> {
    let out = if scheme == SUPERCOMPRESSION_ZSTD {
        // Bulk decompression refuses to grow past the capacity it is given.
        zstd::bulk::decompress(stored, expected).map_err(|e| InflateError::ZstdShort {
            expected: expected as u64,
            reason: e.to_string(),
        })?
    } else {
        let mut out = Vec::with_capacity(expected);
        flate2::read::ZlibDecoder::new(stored)
            .take(expected as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| InflateError::ZlibCorrupt(e.to_string()))?;
        out
    };
    if out.len() != expected {
        return Err(InflateError::Exactly {
            produced: out.len() as u64,
            expected: expected as u64,
        });
    }
    Ok(out)
}

/// Key/value data (spec 3.11): `length | key NUL value | padding to 4`.
fn parse_key_values(kvd: &[u8], base: usize) -> Result<Vec<(String, Vec<u8>)>, Ktx2Error> {
    let mut r = Reader::new(kvd);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        let at = base + r.pos();
        let len = r.u32("key/value length")? as usize;
        let entry = r.bytes(len, "key/value entry").map_err(|_| {
            Ktx2Error::invalid(
                at,
                format!("key/value entry of {len} bytes runs past the key/value data"),
            )
        })?;
        let nul = entry
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| Ktx2Error::invalid(at, "key without a terminating NUL"))?;
        let key = std::str::from_utf8(&entry[..nul])
            .map_err(|_| Ktx2Error::invalid(at, "key is not UTF-8"))?;
        out.push((key.to_string(), entry[nul + 1..].to_vec()));
        let padding = (4 - len % 4) % 4;
        r.skip(padding.min(r.remaining()), "key/value padding")?;
    }
    Ok(out)
}
