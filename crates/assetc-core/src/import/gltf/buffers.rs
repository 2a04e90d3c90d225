//! Buffers and bufferViews: the GLB container, `data:` and external buffers, and the byte
//! slice behind every bufferView (meshopt-compressed views are decoded here, once).
//!
//! The GLB container is parsed by hand because the `gltf` crate's parser underflows on a
//! header length below 12 and rejects unknown chunk types that the spec says to skip.

use super::{bad, dangling, over_limit, paths, Ctx, Res};
use std::borrow::Cow;
use std::collections::HashMap;

pub struct Glb<'a> {
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// Why a file is not a GLB container we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlbError {
    #[error("truncated GLB header")]
    TruncatedHeader,
    #[error("GLB version {0}, expected 2")]
    Version(u32),
    #[error("GLB header length {length} does not fit the file of {file_len} bytes")]
    Length { length: usize, file_len: usize },
    #[error("truncated chunk header")]
    TruncatedChunkHeader,
    #[error("chunk {index} of {len} bytes runs past the end")]
    ChunkPastEnd { index: usize, len: usize },
    #[error("first chunk is not JSON")]
    FirstNotJson,
    #[error("more than one JSON chunk")]
    SecondJson,
    #[error("BIN chunk is not the second chunk")]
    MisplacedBin,
    #[error("no JSON chunk")]
    NoJson,
}

pub fn parse_glb(data: &[u8]) -> Result<Glb<'_>, GlbError> {
    let version = u32_at(data, 4).ok_or(GlbError::TruncatedHeader)?;
    if version != 2 {
        return Err(GlbError::Version(version));
    }
    let length = u32_at(data, 8).ok_or(GlbError::TruncatedHeader)? as usize;
    if length < 12 || length > data.len() {
        return Err(GlbError::Length {
            length,
            file_len: data.len(),
        });
    }
    let data = &data[..length];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while at < data.len() {
        let chunk_len = u32_at(data, at).ok_or(GlbError::TruncatedChunkHeader)? as usize;
        let chunk_type = u32_at(data, at + 4).ok_or(GlbError::TruncatedChunkHeader)?;
        let start = at + 8;
        let end = start
            .checked_add(chunk_len)
            .filter(|&e| e <= data.len())
            .ok_or(GlbError::ChunkPastEnd {
                index,
                len: chunk_len,
            })?;
        let body = &data[start..end];
        match (index, chunk_type) {
            (0, CHUNK_JSON) => json = Some(body),
            (0, _) => return Err(GlbError::FirstNotJson),
            (1, CHUNK_BIN) => bin = Some(body),
            (_, CHUNK_JSON) => return Err(GlbError::SecondJson),
            (_, CHUNK_BIN) => return Err(GlbError::MisplacedBin),
            // Unknown chunk types are skipped, as the GLB spec requires.
            _ => {}
        }
        index += 1;
        // Chunks are 4-byte aligned; a writer that did not pad still gets read.
        at = end
            .checked_add(3)
            .map_or(end, |e| (e & !3).min(data.len()).max(end));
    }
    let json = json.ok_or(GlbError::NoJson)?;
    Ok(Glb { json, bin })
}

/// Raw bytes of every referenced buffer, plus decoded meshopt bufferViews.
pub struct BufferData<'blob> {
    /// The GLB's BIN chunk is borrowed from the file's bytes, not copied (28 MB for a
    /// million-triangle field); other buffers are read or decoded into their own.
    buffers: Vec<Option<Cow<'blob, [u8]>>>,
    decoded_views: HashMap<usize, Vec<u8>>,
    /// Bytes charged against the total accessor byte limit so far.
    pub charged: u64,
}

impl<'blob> BufferData<'blob> {
    pub fn load(ctx: &Ctx, blob: Option<&'blob [u8]>) -> Res<Self> {
        let root = ctx.root;
        let mut used = vec![false; root.buffers.len()];
        for view in &root.buffer_views {
            // A compressed view reads its source buffer; its own `buffer` is the fallback,
            // which may have no data at all.
            let source =
                super::meshopt::extension_of(view).map_or(view.buffer.value(), |ext| ext.buffer);
            if let Some(u) = used.get_mut(source) {
                *u = true;
            }
        }
        let mut buffers = Vec::with_capacity(root.buffers.len());
        for (i, buffer) in root.buffers.iter().enumerate() {
            let path = format!("buffers[{i}]");
            if !used.get(i).copied().unwrap_or(false) {
                buffers.push(None);
                continue;
            }
            let declared = buffer.byte_length.0;
            let bytes = match &buffer.uri {
                None if i == 0 && blob.is_some() => blob.map(Cow::Borrowed),
                // A buffer without data: a meshopt fallback, only reachable through
                // compressed views; reading it directly is reported at the view.
                None => None,
                Some(uri) => Some(Cow::Owned(load_uri(ctx, &path, uri)?)),
            };
            if let Some(b) = &bytes {
                if (b.len() as u64) < declared {
                    return bad(
                        path,
                        format!(
                            "byteLength is {declared} but the data holds only {} bytes",
                            b.len()
                        ),
                    );
                }
            }
            buffers.push(bytes);
        }
        let mut data = Self {
            buffers,
            decoded_views: HashMap::new(),
            charged: 0,
        };
        for (i, view) in root.buffer_views.iter().enumerate() {
            if let Some(ext) = super::meshopt::extension_of(view) {
                let path = format!("bufferViews[{i}]");
                let size = ext.decoded_size(&path)?;
                data.charge(ctx, &path, size)?;
                let src = data.slice(ext.buffer, ext.byte_offset, ext.byte_length, &path)?;
                let decoded = super::meshopt::decode(&ext, src, &path)?;
                data.decoded_views.insert(i, decoded);
            }
        }
        Ok(data)
    }

    /// Counts `bytes` against the total decode budget before they are allocated.
    pub fn charge(&mut self, ctx: &Ctx, path: &str, bytes: u64) -> Res<()> {
        self.charged = self.charged.saturating_add(bytes);
        if self.charged > ctx.limits.max_total_accessor_bytes {
            return over_limit(
                path,
                format!(
                    "decoded data would exceed {} bytes in total",
                    ctx.limits.max_total_accessor_bytes
                ),
            );
        }
        Ok(())
    }

    fn slice(&self, buffer: usize, offset: u64, length: u64, path: &str) -> Res<&[u8]> {
        let Some(slot) = self.buffers.get(buffer) else {
            return dangling(path, format!("buffer {buffer} does not exist"));
        };
        let Some(bytes) = slot else {
            return bad(path, format!("buffers[{buffer}] has no data"));
        };
        let end = offset.checked_add(length);
        match end {
            Some(end) if end <= bytes.len() as u64 => Ok(&bytes[offset as usize..end as usize]),
            _ => bad(
                path,
                format!(
                    "byte range {offset}+{length} exceeds buffers[{buffer}] of {} bytes",
                    bytes.len()
                ),
            ),
        }
    }

    /// The bytes of `bufferViews[index]` and its declared byte stride.
    pub fn view(&self, ctx: &Ctx, index: usize) -> Res<(&[u8], Option<usize>)> {
        let path = format!("bufferViews[{index}]");
        let Some(view) = ctx.root.buffer_views.get(index) else {
            return dangling(path, "bufferView does not exist");
        };
        let stride = view.byte_stride.map(|s| s.0);
        if let Some(decoded) = self.decoded_views.get(&index) {
            return Ok((decoded, stride));
        }
        let offset = view.byte_offset.map_or(0, |o| o.0);
        let bytes = self.slice(view.buffer.value(), offset, view.byte_length.0, &path)?;
        Ok((bytes, stride))
    }
}

fn load_uri(ctx: &Ctx, path: &str, uri: &str) -> Res<Vec<u8>> {
    if let Some(parsed) = paths::parse_data_uri(uri) {
        return match parsed {
            Ok(d) => Ok(d.bytes),
            Err(reason) => bad(path, reason.to_string()),
        };
    }
    let file = match paths::resolve_relative(ctx, uri) {
        Ok(f) => f,
        Err(reason) => return bad(format!("{path} ({uri})"), reason.to_string()),
    };
    let meta = std::fs::metadata(&file).map_err(|e| super::Bad {
        path: format!("{path} ({uri})"),
        reason: format!("cannot read {}: {e}", file.display()),
        code: crate::code::DiagnosticCode::of_io(&e),
    })?;
    if meta.len() > ctx.limits.max_file_bytes {
        return over_limit(
            format!("{path} ({uri})"),
            format!("{} bytes exceeds the file size limit", meta.len()),
        );
    }
    let bytes = std::fs::read(&file).map_err(|e| super::Bad {
        path: format!("{path} ({uri})"),
        reason: format!("cannot read {}: {e}", file.display()),
        code: crate::code::DiagnosticCode::of_io(&e),
    })?;
    // The inputs' stamps are the bytes read here (the driver's cache, `read_log`).
    crate::read_log::note_read(&file, &meta, &bytes);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(chunks: &[(u32, &[u8])]) -> Vec<u8> {
        let mut body = Vec::new();
        for (ty, data) in chunks {
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(&ty.to_le_bytes());
            body.extend_from_slice(data);
        }
        let mut out = b"glTF".to_vec();
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(12 + body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn glb_json_and_bin_chunks() {
        let file = glb(&[(CHUNK_JSON, b"{}  "), (CHUNK_BIN, &[1, 2, 3, 4])]);
        let g = parse_glb(&file).unwrap();
        assert_eq!(g.json, b"{}  ");
        assert_eq!(g.bin, Some(&[1u8, 2, 3, 4][..]));
    }

    #[test]
    fn glb_skips_unknown_chunks_and_rejects_truncation() {
        let file = glb(&[(CHUNK_JSON, b"{}  "), (0x1234, b"abcd")]);
        assert!(parse_glb(&file).unwrap().bin.is_none());
        for cut in 0..file.len() {
            let mut short = file[..cut].to_vec();
            if short.len() >= 12 {
                short[8..12].copy_from_slice(&(cut as u32).to_le_bytes());
            }
            // Must never panic; most cuts are errors.
            let _ = parse_glb(&short);
        }
        let mut bad_len = file.clone();
        bad_len[8..12].copy_from_slice(&4u32.to_le_bytes());
        assert!(parse_glb(&bad_len).is_err());
    }
}
