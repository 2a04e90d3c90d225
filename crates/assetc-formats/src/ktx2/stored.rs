//! A KTX2 container whose levels assetc did not encode: a GPU-ready input passed through
//! (any vkFormat, layout and supercompression, its DFD and key/values kept) or a DDS
//! file's surfaces. The levels are written as they are stored, so nothing is decoded.

use super::{
    read_with, BlockInfo, Dfd, Ktx2Error, ReadOptions, HEADER_SIZE, IDENTIFIER, KEY_WRITER,
    LEVEL_INDEX_ENTRY_SIZE, SUPERCOMPRESSION_NONE,
};
use crate::bytes::WriteLe;

/// One level as stored: its bytes (supercompressed or not) and `uncompressedByteLength`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLevel {
    pub bytes: Vec<u8>,
    pub uncompressed_byte_length: u64,
}

/// A KTX2 file's parts as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKtx2 {
    pub vk_format: u32,
    pub type_size: u32,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    pub layer_count: u32,
    pub face_count: u32,
    pub supercompression: u32,
    /// The whole DFD as stored, `dfdTotalSize` first.
    pub dfd: Vec<u8>,
    /// Key/value pairs; written sorted by key, whatever their order here.
    pub key_values: Vec<(String, Vec<u8>)>,
    pub supercompression_global_data: Vec<u8>,
    /// Level 0 first.
    pub levels: Vec<StoredLevel>,
}

impl StoredKtx2 {
    /// The parts of a file the reader accepts (every level within the file, of the size
    /// its header implies, supercompressed levels inflating to that size), levels as
    /// stored. Nothing is inflated into memory.
    pub fn from_file(bytes: &[u8]) -> Result<Self, Ktx2Error> {
        let ktx = read_with(bytes, &ReadOptions::layout_only())?;
        let dfd_start = ktx.dfd_offset as usize;
        let dfd_length = bytes
            .get(dfd_start..dfd_start + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| Ktx2Error::invalid(dfd_start, "DFD runs past the end of the file"))?;
        let dfd = bytes
            .get(dfd_start..dfd_start + dfd_length)
            .ok_or_else(|| Ktx2Error::invalid(dfd_start, "DFD runs past the end of the file"))?
            .to_vec();
        // The reader checked each level's range against the file.
        let levels = ktx
            .levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let start = usize::try_from(l.byte_offset).ok();
                let end = start.and_then(|s| s.checked_add(usize::try_from(l.byte_length).ok()?));
                let data = start
                    .zip(end)
                    .and_then(|(s, e)| bytes.get(s..e))
                    .ok_or_else(|| Ktx2Error::level(i, "runs past the end of the file"))?;
                Ok(StoredLevel {
                    bytes: data.to_vec(),
                    uncompressed_byte_length: l.uncompressed_byte_length,
                })
            })
            .collect::<Result<_, Ktx2Error>>()?;
        Ok(Self {
            vk_format: ktx.vk_format,
            type_size: ktx.type_size,
            width: ktx.width,
            height: ktx.height,
            depth: ktx.depth,
            layer_count: ktx.layer_count,
            face_count: ktx.face_count,
            supercompression: ktx.supercompression,
            dfd,
            key_values: ktx.key_values,
            supercompression_global_data: ktx.supercompression_global_data,
            levels,
        })
    }

    /// Sets `KTXwriter` when the file names no writer (our validator asks for one); a
    /// writer already named is kept, as the levels are still its work.
    pub fn name_writer_if_missing(&mut self, writer: &str) {
        let named = self
            .key_values
            .iter()
            .any(|(k, v)| k == KEY_WRITER && v.first().is_some_and(|&b| b != 0));
        if !named {
            self.key_values.retain(|(k, _)| k != KEY_WRITER);
            let mut value = writer.as_bytes().to_vec();
            value.push(0);
            self.key_values.push((KEY_WRITER.to_owned(), value));
        }
    }
}

/// Writes the container: identifier, header, level index, DFD, key/value data (sorted),
/// supercompression global data (8-aligned), then the levels smallest first, aligned to
/// lcm(texel block size, 4) without supercompression (spec 3.9.7). Deterministic.
pub fn write_stored(file: &StoredKtx2) -> Result<Vec<u8>, Ktx2Error> {
    let level_count = file.levels.len();
    if level_count == 0 {
        return Err(Ktx2Error::Write("no levels".into()));
    }
    let alignment = if file.supercompression == SUPERCOMPRESSION_NONE {
        let dfd = Dfd::parse(&file.dfd, 0)?;
        BlockInfo::for_vk_format(file.vk_format, &dfd).map_or(4, |b| b.alignment() as usize)
    } else {
        1
    };
    let mut sorted: Vec<&(String, Vec<u8>)> = file.key_values.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut kvd = Vec::new();
    for (key, value) in sorted {
        kvd.put_u32((key.len() + 1 + value.len()) as u32);
        kvd.extend_from_slice(key.as_bytes());
        kvd.push(0);
        kvd.extend_from_slice(value);
        kvd.pad_to(4);
    }
    let dfd_offset = HEADER_SIZE + LEVEL_INDEX_ENTRY_SIZE * level_count;
    let kvd_offset = dfd_offset + file.dfd.len();
    let sgd = &file.supercompression_global_data;
    let sgd_offset = if sgd.is_empty() {
        0
    } else {
        (kvd_offset + kvd.len()).next_multiple_of(8)
    };
    let mut cursor = if sgd.is_empty() {
        kvd_offset + kvd.len()
    } else {
        sgd_offset + sgd.len()
    };
    let mut offsets = vec![0usize; level_count];
    for i in (0..level_count).rev() {
        cursor = cursor.next_multiple_of(alignment);
        offsets[i] = cursor;
        cursor += file.levels[i].bytes.len();
    }

    let mut out = Vec::with_capacity(cursor);
    out.extend_from_slice(&IDENTIFIER);
    for v in [
        file.vk_format,
        file.type_size,
        file.width,
        file.height,
        file.depth,
        file.layer_count,
        file.face_count,
        level_count as u32,
        file.supercompression,
        dfd_offset as u32,
        file.dfd.len() as u32,
        if kvd.is_empty() { 0 } else { kvd_offset as u32 },
        kvd.len() as u32,
    ] {
        out.put_u32(v);
    }
    out.put_u64(sgd_offset as u64);
    out.put_u64(sgd.len() as u64);
    for (level, offset) in file.levels.iter().zip(&offsets) {
        out.put_u64(*offset as u64);
        out.put_u64(level.bytes.len() as u64);
        out.put_u64(level.uncompressed_byte_length);
    }
    out.extend_from_slice(&file.dfd);
    out.extend_from_slice(&kvd);
    if !sgd.is_empty() {
        out.resize(sgd_offset, 0);
        out.extend_from_slice(sgd);
    }
    for i in (0..level_count).rev() {
        out.resize(offsets[i], 0);
        out.extend_from_slice(&file.levels[i].bytes);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktx2::{read, validate, write, Ktx2Image, PixelFormat, CUBE_FACES};

    fn cube(zstd_level: Option<i32>) -> Vec<u8> {
        let image = Ktx2Image {
            format: PixelFormat::Rgba8,
            srgb: true,
            has_alpha: false,
            width: 4,
            height: 4,
            depth: 0,
            faces: CUBE_FACES,
            levels: (0..3u8)
                .map(|i| {
                    let side = 4usize >> i;
                    (0..side * side * 4 * 6).map(|t| t as u8 ^ i).collect()
                })
                .collect(),
            zstd_level,
        };
        write(&image).unwrap()
    }

    #[test]
    fn our_own_files_come_back_byte_for_byte() {
        // Same layout rules as the writer (levels smallest first, aligned, no global
        // data): reading a file's parts and writing them again changes nothing.
        for zstd in [None, Some(3)] {
            let bytes = cube(zstd);
            let stored = StoredKtx2::from_file(&bytes).unwrap();
            assert_eq!(stored.face_count, 6);
            assert_eq!(stored.levels.len(), 3);
            assert_eq!(write_stored(&stored).unwrap(), bytes);
        }
    }

    #[test]
    fn an_array_keeps_its_layers_and_a_missing_writer_is_named() {
        let single = StoredKtx2::from_file(&cube(None)).unwrap();
        // Three layers of the cube: each level holds layers x faces images.
        let mut array = single.clone();
        array.layer_count = 3;
        for level in &mut array.levels {
            level.bytes = level.bytes.repeat(3);
            level.uncompressed_byte_length = level.bytes.len() as u64;
        }
        array.key_values.retain(|(k, _)| k != KEY_WRITER);
        array.name_writer_if_missing("assetc test");
        let bytes = write_stored(&array).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        let k = read(&bytes).unwrap();
        assert_eq!((k.layer_count, k.face_count, k.levels.len()), (3, 6, 3));
        assert_eq!(k.levels[1].data.len(), 2 * 2 * 4 * 6 * 3);
        assert_eq!(k.key_value_str(KEY_WRITER), Some("assetc test"));
        // A writer already named is kept.
        let mut named = array.clone();
        named.name_writer_if_missing("someone else");
        assert_eq!(named, array);
    }

    #[test]
    fn a_truncated_file_is_refused() {
        let bytes = cube(None);
        let cut = &bytes[..bytes.len() - 1];
        assert!(StoredKtx2::from_file(cut).is_err());
    }
}
