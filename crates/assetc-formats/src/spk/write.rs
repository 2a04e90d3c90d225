//! The deterministic writer: entries sorted by path bytes, blobs in that order from 0x20,
//! a fixed zlib level, deflate only when it saves >= 5% [S6].

use std::collections::BTreeMap;
use std::io::Write;

use flate2::write::ZlibEncoder;

use super::{
    check_path, Compression, SpkError, HEADER_SIZE, MAGIC, MAX_COMPRESSION_RATIO,
    MAX_DECOMPRESSED_ENTRY_BYTES, MAX_TOC_BYTES, VERSION,
};
use crate::bytes::WriteLe;
use crate::hash::fnv1a64_raw;

/// Collects entries and writes the archive; the order of `add` calls does not matter.
#[derive(Debug, Default, Clone)]
pub struct SpkWriter {
    entries: BTreeMap<String, Vec<u8>>,
}

impl SpkWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one entry, refusing paths [S7] forbids, repeats and paths that differ from an
    /// earlier one only in case [S2]. Empty data is an ordinary entry [S14].
    pub fn add(&mut self, path: impl Into<String>, data: Vec<u8>) -> Result<(), SpkError> {
        let path = path.into();
        check_entry(&path, &data)?;
        if self.entries.contains_key(&path) {
            return Err(SpkError::DuplicateInput { path });
        }
        if let Some(first) = self.entries.keys().find(|p| p.eq_ignore_ascii_case(&path)) {
            return Err(SpkError::CaseClash {
                first: first.clone(),
                second: path,
            });
        }
        self.entries.insert(path, data);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn finish(&self) -> Result<Vec<u8>, SpkError> {
        let items: Vec<(&str, &[u8])> = self
            .entries
            .iter()
            .map(|(p, d)| (p.as_str(), d.as_slice()))
            .collect();
        encode(&items)
    }
}

/// Writes an archive of `entries` (any order; the bytes depend only on the set).
pub fn write(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, SpkError> {
    let mut items: Vec<(&str, &[u8])> = Vec::with_capacity(entries.len());
    for (path, data) in entries {
        check_entry(path, data)?;
        items.push((path.as_str(), data.as_slice()));
    }
    items.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if let Some(pair) = items.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(SpkError::DuplicateInput {
            path: pair[0].0.to_owned(),
        });
    }
    check_case_clash(items.iter().map(|i| i.0))?;
    encode(&items)
}

/// [S2]: two paths that differ only in case would give a case-insensitive lookup two
/// candidates; the first pair in lower-cased order is reported.
fn check_case_clash<'a>(paths: impl Iterator<Item = &'a str>) -> Result<(), SpkError> {
    let mut folded: Vec<(String, &str)> = paths.map(|p| (p.to_ascii_lowercase(), p)).collect();
    folded.sort();
    match folded.windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => Err(SpkError::CaseClash {
            first: w[0].1.to_owned(),
            second: w[1].1.to_owned(),
        }),
        None => Ok(()),
    }
}

fn check_entry(path: &str, data: &[u8]) -> Result<(), SpkError> {
    check_path(path.as_bytes()).map_err(|fault| SpkError::InvalidPath {
        path: path.to_owned(),
        fault,
    })?;
    if u32::try_from(data.len()).is_err() {
        return Err(SpkError::EntryTooLarge {
            path: path.to_owned(),
            size: data.len(),
        });
    }
    Ok(())
}

fn zlib(data: &[u8], level: u32) -> Result<Vec<u8>, SpkError> {
    let mut enc = ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
    enc.write_all(data)
        .map_err(|e| SpkError::Compress(e.to_string()))?;
    enc.finish().map_err(|e| SpkError::Compress(e.to_string()))
}

/// Deflated bytes when deflating pays [S6] and the result passes SparkEngine's read budget
/// [S12] (a larger entry is stored, since stored entries skip the budget).
fn deflate_if_worth_it(data: &[u8]) -> Result<Option<Vec<u8>>, SpkError> {
    let original = data.len() as u64;
    if original > u64::from(MAX_DECOMPRESSED_ENTRY_BYTES) {
        return Ok(None);
    }
    let packed = zlib(data, super::COMPRESSION_LEVEL)?;
    let compressed = packed.len() as u64;
    let saves_enough = compressed < original * 95 / 100;
    let within_ratio = original <= compressed * MAX_COMPRESSION_RATIO;
    Ok((saves_enough && within_ratio).then_some(packed))
}

/// Sorted, checked, unique entries to archive bytes.
fn encode(items: &[(&str, &[u8])]) -> Result<Vec<u8>, SpkError> {
    if items.is_empty() {
        return Err(SpkError::NoEntries);
    }
    let file_count =
        u32::try_from(items.len()).map_err(|_| SpkError::TooManyEntries { count: items.len() })?;
    let mut blobs: Vec<u8> = Vec::new();
    let mut toc: Vec<RawTocEntry> = Vec::with_capacity(items.len());
    for &(path, data) in items {
        let offset = (HEADER_SIZE + blobs.len()) as u64;
        let (compression, stored) = match deflate_if_worth_it(data)? {
            Some(packed) => (Compression::Deflate, packed),
            None => (Compression::Stored, data.to_vec()),
        };
        blobs.extend_from_slice(&stored);
        toc.push(RawTocEntry {
            path_hash: fnv1a64_raw(path.as_bytes()),
            data_offset: offset,
            compressed_size: stored.len() as u32,
            original_size: data.len() as u32,
            compression: compression.to_byte(),
            path: path.as_bytes().to_vec(),
        });
    }
    let raw_toc = encode_toc(&toc);
    if raw_toc.len() > MAX_TOC_BYTES as usize {
        return Err(SpkError::TocTooLarge {
            size: raw_toc.len(),
        });
    }
    let packed_toc = compress_toc(&raw_toc)?;
    Ok(assemble(
        file_count,
        0,
        &blobs,
        &packed_toc,
        raw_toc.len() as u32,
    ))
}

/// [S4] needs TOCSize != TOCRawSize; should one level land on exactly the raw size, a
/// fixed fallback sequence keeps the output deterministic.
fn compress_toc(raw_toc: &[u8]) -> Result<Vec<u8>, SpkError> {
    for level in [super::COMPRESSION_LEVEL, 6, 1, 0] {
        let packed = zlib(raw_toc, level)?;
        if packed.len() != raw_toc.len() {
            return Ok(packed);
        }
    }
    Err(SpkError::Compress(format!(
        "every level compresses the {}-byte TOC to its own size",
        raw_toc.len()
    )))
}

fn assemble(
    file_count: u32,
    reserved: u32,
    blobs: &[u8],
    packed_toc: &[u8],
    raw_len: u32,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE + blobs.len() + packed_toc.len());
    out.extend_from_slice(&MAGIC);
    out.put_u32(VERSION);
    out.put_u32(file_count);
    out.put_u32(reserved);
    out.put_u64((HEADER_SIZE + blobs.len()) as u64);
    out.put_u32(packed_toc.len() as u32);
    out.put_u32(raw_len);
    out.extend_from_slice(blobs);
    out.extend_from_slice(packed_toc);
    out
}

/// A TOC entry with every field as given, for building archives the writer would refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTocEntry {
    pub path_hash: u64,
    pub data_offset: u64,
    pub compressed_size: u32,
    pub original_size: u32,
    pub compression: u8,
    pub path: Vec<u8>,
}

impl RawTocEntry {
    /// An entry with the hash of its path; the other fields as given.
    pub fn new(
        path: &str,
        data_offset: u64,
        compressed: u32,
        original: u32,
        compression: u8,
    ) -> Self {
        Self {
            path_hash: fnv1a64_raw(path.as_bytes()),
            data_offset,
            compressed_size: compressed,
            original_size: original,
            compression,
            path: path.as_bytes().to_vec(),
        }
    }
}

fn encode_toc(toc: &[RawTocEntry]) -> Vec<u8> {
    let mut raw = Vec::new();
    for e in toc {
        raw.put_u64(e.path_hash);
        raw.put_u64(e.data_offset);
        raw.put_u32(e.compressed_size);
        raw.put_u32(e.original_size);
        raw.put_u8(e.compression);
        raw.put_u16(e.path.len() as u16);
        raw.extend_from_slice(&e.path);
    }
    raw
}

/// Builds an archive exactly as told, without any check: header with FileCount =
/// `toc.len()`, `data` from 0x20, then the zlib-compressed TOC. For tests and tools that
/// need malformed archives; never use it to write real content.
pub fn assemble_raw(data: &[u8], toc: &[RawTocEntry]) -> Vec<u8> {
    let raw_toc = encode_toc(toc);
    let packed = compress_toc(&raw_toc).unwrap_or_default();
    assemble(toc.len() as u32, 0, data, &packed, raw_toc.len() as u32)
}
