//! SparkPak `.spk` archives (seed 004, conventions [S1]-[S13]): writer, reader, validator and
//! SparkEngine's VFS layering of base and patch archives.
//!
//! Hand-written because SparkPak is SparkEngine's own container and no crate reads it; the
//! zlib streams inside it go through `flate2`.
//!
//! Layout: a 32-byte header, the entry blobs tiling `[0x20, TOCOffset)` in path order, then
//! the zlib-compressed TOC ending the file. A structural fault (header, TOC, tiling, paths,
//! duplicates) makes [`open`] fail; a fault in one entry's payload (the decompression budget
//! [S12], a corrupt or wrongly sized stream) fails only
//! [`SpkArchive::read_entry`] for that entry, as SparkEngine's `SparkPakReader::ReadFile` does.

mod format;
mod inflate;
mod layers;
mod path;
mod read;
mod write;

#[cfg(test)]
mod tests;

pub use format::FORMAT;
pub use inflate::InflateFault;
pub use layers::{layer_paths, plan_patch, read_layered, LayeredPath, LayeredReadError, PatchPlan};
pub use path::{check_path, PathFault};
pub use read::{open, validate, EntryRef, SpkArchive};
pub use write::{assemble_raw, write, RawTocEntry, SpkWriter};

use thiserror::Error;

pub const MAGIC: [u8; 4] = *b"SPK1";
pub const VERSION: u32 = 1;
pub const HEADER_SIZE: usize = 32;
/// Bytes of a TOC entry before its path.
pub const TOC_ENTRY_FIXED_SIZE: usize = 27;
/// [S12]: the most output one compressed entry may declare.
pub const MAX_DECOMPRESSED_ENTRY_BYTES: u32 = 256 * 1024 * 1024;
/// [S12]: the largest OriginalSize / CompressedSize a compressed entry may declare.
pub const MAX_COMPRESSION_RATIO: u64 = 100_000;
/// SparkEngine refuses a TOC above this (kMaxTocBytes), compressed or not.
pub const MAX_TOC_BYTES: u32 = 256 * 1024 * 1024;
/// The zlib level the writer always uses, so the same input gives the same bytes.
pub const COMPRESSION_LEVEL: u32 = 9;

/// How an entry's blob is stored (the TOC's `Compression` byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Compression {
    Stored,
    /// One zlib stream (RFC 1950) [S3].
    Deflate,
}

impl Compression {
    pub fn from_byte(b: u8) -> Option<Self> {
        match b {
            0 => Some(Self::Stored),
            1 => Some(Self::Deflate),
            _ => None,
        }
    }
    pub fn to_byte(self) -> u8 {
        match self {
            Self::Stored => 0,
            Self::Deflate => 1,
        }
    }
}

/// One TOC entry as parsed, in TOC order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpkEntry {
    /// Position in the TOC.
    pub index: usize,
    pub path: String,
    pub path_hash: u64,
    pub data_offset: u64,
    pub compressed_size: u32,
    pub original_size: u32,
    pub compression: Compression,
}

impl SpkEntry {
    /// End of the entry's blob; cannot overflow because both parts are bounded by u64/u32.
    pub fn data_end(&self) -> u64 {
        self.data_offset
            .saturating_add(u64::from(self.compressed_size))
    }
}

/// An archive-level fault: the archive cannot be written or does not open.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpkError {
    #[error("file is {len} bytes, shorter than the 32-byte header")]
    TooShort { len: usize },
    #[error("bad magic {found:02x?}, expected \"SPK1\"")]
    BadMagic { found: [u8; 4] },
    #[error("unsupported version {found}, expected 1")]
    BadVersion { found: u32 },
    #[error("reserved header field at byte 12 is {found:#x}, must be 0")]
    ReservedNonZero { found: u32 },
    #[error("TOC at offset {offset} of {size} bytes must start after the header and end the {file_len}-byte file")]
    TocPlacement {
        offset: u64,
        size: u32,
        file_len: u64,
    },
    #[error("TOC at offset {offset} is not compressed (TOCSize == TOCRawSize == {size})")]
    TocNotCompressed { offset: u64, size: u32 },
    #[error("archive has no entries (FileCount 0)")]
    NoEntries,
    #[error("TOCRawSize {raw_size} cannot hold {file_count} entries (needs {min}..={max} bytes, at most {MAX_TOC_BYTES})")]
    TocRawSizeImplausible {
        raw_size: u32,
        file_count: u32,
        min: u64,
        max: u64,
    },
    #[error("TOC at offset {offset}: {fault}")]
    TocInflate { offset: u64, fault: InflateFault },
    #[error("TOC entry {index} at TOC byte {toc_pos} runs past TOCRawSize")]
    TocTruncated { index: usize, toc_pos: usize },
    #[error("TOC has {extra} bytes after its last entry; FileCount entries must fill TOCRawSize")]
    TocTrailing { extra: usize },
    #[error("entry {index} path {path:?}: {fault}")]
    BadPath {
        index: usize,
        path: String,
        fault: PathFault,
    },
    #[error("entry {index} {path:?}: PathHash {stored:#018x} is not FNV-1a 64 of the path ({computed:#018x})")]
    HashMismatch {
        index: usize,
        path: String,
        stored: u64,
        computed: u64,
    },
    #[error("entry {index} {path:?}: unknown Compression {value}")]
    UnknownCompression {
        index: usize,
        path: String,
        value: u8,
    },
    #[error("entry {index} {path:?}: stored entry has CompressedSize {compressed} != OriginalSize {original}")]
    StoredSizeMismatch {
        index: usize,
        path: String,
        compressed: u32,
        original: u32,
    },
    #[error("entry {index} {path:?}: data at offset {offset} of {size} bytes lies outside the data area [32, {toc_offset})")]
    BlobOutOfBounds {
        index: usize,
        path: String,
        offset: u64,
        size: u32,
        toc_offset: u64,
    },
    #[error("entry {path:?}: data at offset {offset} overlaps entry {other:?}, which ends at {other_end}")]
    BlobOverlap {
        path: String,
        offset: u64,
        other: String,
        other_end: u64,
    },
    #[error("{len} bytes at offset {offset} belong to no entry; blobs must tile the data area")]
    Gap { offset: u64, len: u64 },
    #[error("entries {first} and {second} both have path {path:?}")]
    DuplicatePath {
        path: String,
        first: usize,
        second: usize,
    },
    #[error("entries {first:?} and {second:?} share PathHash {hash:#018x}")]
    DuplicateHash {
        hash: u64,
        first: String,
        second: String,
    },
    #[error("path {path:?}: {fault}")]
    InvalidPath { path: String, fault: PathFault },
    #[error("paths {first:?} and {second:?} differ only in case [S2]")]
    CaseClash { first: String, second: String },
    #[error("path {path:?} is added twice")]
    DuplicateInput { path: String },
    #[error("entry {path:?} is {size} bytes; an entry holds at most 4294967295")]
    EntryTooLarge { path: String, size: usize },
    #[error("{count} entries do not fit the format")]
    TooManyEntries { count: usize },
    #[error("the TOC would take {size} bytes, over SparkEngine's {MAX_TOC_BYTES}-byte limit")]
    TocTooLarge { size: usize },
    #[error("zlib compression failed: {0}")]
    Compress(String),
}

impl SpkError {
    /// The byte offset in the archive the fault is about, when one applies.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::ReservedNonZero { .. } => Some(12),
            Self::TocPlacement { offset, .. }
            | Self::TocNotCompressed { offset, .. }
            | Self::TocInflate { offset, .. }
            | Self::BlobOutOfBounds { offset, .. }
            | Self::BlobOverlap { offset, .. }
            | Self::Gap { offset, .. } => Some(*offset),
            Self::BadMagic { .. } | Self::TooShort { .. } => Some(0),
            Self::BadVersion { .. } => Some(4),
            _ => None,
        }
    }
}

/// Why one entry cannot be read; the archive and its other entries stay readable.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpkEntryError {
    #[error("no entry {path:?} in the archive")]
    NotFound { path: String },
    #[error("no entry {index}: the archive has {count}")]
    NoSuchIndex { index: usize, count: usize },
    #[error("entry {path:?} declares {original_size} decompressed bytes, over the {MAX_DECOMPRESSED_ENTRY_BYTES}-byte per-entry budget")]
    OverBudget { path: String, original_size: u32 },
    #[error("entry {path:?} declares {original_size} bytes from an empty payload")]
    EmptyPayload { path: String, original_size: u32 },
    #[error("entry {path:?} declares a {original_size}:{compressed_size} expansion, over the {MAX_COMPRESSION_RATIO}:1 cap")]
    RatioExceeded {
        path: String,
        original_size: u32,
        compressed_size: u32,
    },
    #[error("entry {path:?} at offset {offset}: {fault}")]
    Inflate {
        path: String,
        offset: u64,
        fault: InflateFault,
    },
    #[error("entry {path:?} at offset {offset} of {size} bytes lies outside the file")]
    OutOfBounds {
        path: String,
        offset: u64,
        size: u32,
    },
}

impl SpkEntryError {
    /// The entry's path, when the error is about an entry that exists.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::NoSuchIndex { .. } => None,
            Self::NotFound { path }
            | Self::OverBudget { path, .. }
            | Self::EmptyPayload { path, .. }
            | Self::RatioExceeded { path, .. }
            | Self::Inflate { path, .. }
            | Self::OutOfBounds { path, .. } => Some(path),
        }
    }
}
