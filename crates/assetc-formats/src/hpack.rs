//! `.hpack` v2: the original assetc's single-file bundle, so engines built on its SDK
//! (`ReadPackToc`, `ValidatePack`) open what `assetc pack --format hpack` writes.
//!
//! Layout: a 24-byte header, a table of contents sorted by path bytes, then every payload
//! at its 16-byte-aligned offset, zero-padded. Payloads are stored as they are (no
//! compression), so an engine can map the file and read each entry in place.
//!
//! Hand-written: the container is the original assetc's own and no crate reads or writes
//! it. [`read`] refuses what would make a lookup wrong or unsafe (layout, order, ranges);
//! [`validate`] also reports the rules a reader can live without (path hygiene, case
//! clashes, alignment, overlaps, kinds, padding).

mod format;
mod validate;
mod write;

#[cfg(test)]
mod tests;

pub use format::FORMAT;
pub use validate::validate;
pub use write::write;

use thiserror::Error;

use super::bytes::Reader;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HPAK");
pub const VERSION: u32 = 2;
pub const HEADER_SIZE: usize = 24;
/// offset u64, size u64, kind u8, pathLen u16: the bytes of a table entry before its path.
pub const TOC_ENTRY_FIXED_SIZE: usize = 19;
/// Every payload starts at a multiple of this, counted from the start of the file.
pub const ALIGN: u64 = 16;

/// An entry's `kind` byte: what its extension says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PackKind {
    Other = 0,
    Mesh = 1,
    Material = 2,
    Manifest = 3,
    Animation = 4,
    Texture = 5,
    Shader = 6,
    Font = 7,
}

impl PackKind {
    /// Every kind, in byte order.
    pub const ALL: [PackKind; 8] = [
        Self::Other,
        Self::Mesh,
        Self::Material,
        Self::Manifest,
        Self::Animation,
        Self::Texture,
        Self::Shader,
        Self::Font,
    ];

    /// The kind of `path`. The suffix is compared as it is, case included, because the
    /// SDK's `PackKindOf` does: `A.HMESH` is `Other` there, and an engine filtering by
    /// kind must see the byte we wrote agree with it.
    pub fn of_path(path: &str) -> Self {
        Self::ALL[1..]
            .iter()
            .copied()
            .find(|k| k.extension().is_some_and(|ext| path.ends_with(ext)))
            .unwrap_or(Self::Other)
    }

    pub fn from_u8(v: u8) -> Option<Self> {
        Self::ALL.get(usize::from(v)).copied()
    }

    /// The extension (with its dot) that gives this kind; `None` for `Other`.
    pub fn extension(self) -> Option<&'static str> {
        Some(match self {
            Self::Other => return None,
            Self::Mesh => ".hmesh",
            Self::Material => ".hmat",
            Self::Manifest => ".hman",
            Self::Animation => ".hanim",
            Self::Texture => ".ktx2",
            Self::Shader => ".spv",
            Self::Font => ".hfont",
        })
    }

    /// A stable lower-case name for listings and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Other => "other",
            Self::Mesh => "mesh",
            Self::Material => "material",
            Self::Manifest => "manifest",
            Self::Animation => "animation",
            Self::Texture => "texture",
            Self::Shader => "shader",
            Self::Font => "font",
        }
    }
}

/// Name of a stored kind byte, including ones no version defines.
pub fn kind_name(kind: u8) -> String {
    PackKind::from_u8(kind).map_or_else(|| format!("unknown ({kind})"), |k| k.name().into())
}

/// One file to bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HPackEntry {
    /// UTF-8, `/`-separated, relative to the packed folder.
    pub path: String,
    /// Must be `PackKind::of_path(&path)`; [`HPackEntry::new`] sets it so.
    pub kind: u8,
    pub data: Vec<u8>,
}

impl HPackEntry {
    pub fn new(path: impl Into<String>, data: Vec<u8>) -> Self {
        let path = path.into();
        let kind = PackKind::of_path(&path) as u8;
        Self { path, kind, data }
    }
}

/// Why a path cannot name a file inside the folder a pack is extracted to.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum PathFault {
    #[error("path is empty")]
    Empty,
    #[error("path is {0} bytes, more than a u16 pathLen holds")]
    TooLong(usize),
    #[error("path is not valid UTF-8")]
    NotUtf8,
    #[error("path has control character {0:#04x}")]
    Control(u8),
    #[error("path has a backslash (paths are '/'-separated)")]
    Backslash,
    #[error("path is absolute")]
    Absolute,
    #[error("path has a colon (drive letter or stream name)")]
    Colon,
    #[error("path has an empty segment")]
    EmptySegment,
    #[error("path has a `.` or `..` segment")]
    DotSegment,
}

/// Checks that `path` is a plain relative `/`-separated UTF-8 path that stays inside any
/// folder it is joined to, on Unix and Windows alike.
pub fn check_path(path: &[u8]) -> Result<(), PathFault> {
    if path.is_empty() {
        return Err(PathFault::Empty);
    }
    if path.len() > usize::from(u16::MAX) {
        return Err(PathFault::TooLong(path.len()));
    }
    if std::str::from_utf8(path).is_err() {
        return Err(PathFault::NotUtf8);
    }
    if path[0] == b'/' {
        return Err(PathFault::Absolute);
    }
    for &b in path {
        match b {
            b'\\' => return Err(PathFault::Backslash),
            b':' => return Err(PathFault::Colon),
            0x00..=0x1F | 0x7F => return Err(PathFault::Control(b)),
            _ => {}
        }
    }
    for segment in path.split(|&b| b == b'/') {
        match segment {
            b"" => return Err(PathFault::EmptySegment),
            b"." | b".." => return Err(PathFault::DotSegment),
            _ => {}
        }
    }
    Ok(())
}

/// The form two paths share when a case-insensitive file system (NTFS, APFS) would store
/// them as one file. Full Unicode lower-casing, since those file systems fold more than
/// ASCII.
pub fn case_fold(path: &str) -> String {
    path.to_lowercase()
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HPackError {
    #[error("at byte {offset}: {what} needs {needed} bytes but the file ends at {len}")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        len: u64,
    },
    #[error("at byte 0: magic is {found:#010x}, expected \"HPAK\" ({MAGIC:#010x})")]
    BadMagic { found: u32 },
    #[error("at byte 4: version is {found}, expected {VERSION}")]
    BadVersion { found: u32 },
    #[error("at byte 16: tocBytes {toc_bytes} runs past the end of the file ({len} bytes)")]
    TocPastEnd { toc_bytes: u64, len: u64 },
    #[error("at byte {offset}: table entry {index} does not fit in the {toc_bytes} bytes tocBytes gives the table (count {count} too large or tocBytes too small)")]
    TocOverrun {
        index: u32,
        offset: u64,
        count: u32,
        toc_bytes: u64,
    },
    #[error(
        "at byte {offset}: {extra} bytes of the table (tocBytes {toc_bytes}) follow its last entry"
    )]
    TocSlack {
        offset: u64,
        extra: u64,
        toc_bytes: u64,
    },
    #[error("at byte {offset}: entry {index}: path is not valid UTF-8")]
    PathNotUtf8 { index: usize, offset: u64 },
    #[error("at byte {offset}: entry {index}: path \"{path}\" does not sort after \"{previous}\" (paths are sorted by their bytes, without duplicates)")]
    NotSorted {
        index: usize,
        offset: u64,
        path: String,
        previous: String,
    },
    #[error("at byte {offset}: entry {index} \"{path}\": payload of {size} bytes at {start} runs past the end of the file ({len} bytes)")]
    PayloadPastEnd {
        index: usize,
        offset: u64,
        path: String,
        start: u64,
        size: u64,
        len: u64,
    },
    #[error("\"{path}\": cannot be a pack path: {fault}")]
    InvalidPath { path: String, fault: PathFault },
    #[error("\"{path}\" is given twice")]
    DuplicatePath { path: String },
    #[error("\"{first}\" and \"{second}\" differ only in case; they would overwrite each other on a case-insensitive file system")]
    CaseClash { first: String, second: String },
    #[error("\"{path}\": kind {kind} disagrees with its extension, which gives {expected}")]
    KindMismatch {
        path: String,
        kind: u8,
        expected: u8,
    },
    #[error("{count} entries do not fit the u32 count field")]
    TooManyEntries { count: usize },
}

impl HPackError {
    /// Where in the file the error is, for errors about a file read.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::Truncated { offset, .. }
            | Self::TocOverrun { offset, .. }
            | Self::TocSlack { offset, .. }
            | Self::PathNotUtf8 { offset, .. }
            | Self::NotSorted { offset, .. }
            | Self::PayloadPastEnd { offset, .. } => Some(*offset),
            Self::BadMagic { .. } => Some(0),
            Self::BadVersion { .. } => Some(4),
            Self::TocPastEnd { .. } => Some(16),
            Self::InvalidPath { .. }
            | Self::DuplicatePath { .. }
            | Self::CaseClash { .. }
            | Self::KindMismatch { .. }
            | Self::TooManyEntries { .. } => None,
        }
    }
}

/// One table entry as parsed, in table order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HPackTocEntry {
    /// Position in the table.
    pub index: usize,
    pub path: String,
    pub kind: u8,
    /// From the start of the file.
    pub offset: u64,
    pub size: u64,
}

/// An opened pack: its table, with every payload range known to lie inside `bytes`.
#[derive(Debug, Clone)]
pub struct HPack<'a> {
    bytes: &'a [u8],
    flags: u32,
    entries: Vec<HPackTocEntry>,
}

impl<'a> HPack<'a> {
    /// Entries in table order, which is ascending path-byte order.
    pub fn entries(&self) -> &[HPackTocEntry] {
        &self.entries
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn flags(&self) -> u32 {
        self.flags
    }
    /// The payload of entry `index`.
    pub fn data(&self, index: usize) -> Option<&'a [u8]> {
        let e = self.entries.get(index)?;
        let start = usize::try_from(e.offset).ok()?;
        let end = start.checked_add(usize::try_from(e.size).ok()?)?;
        self.bytes.get(start..end)
    }
    /// The entry stored under exactly `path` (binary search: the table is sorted).
    pub fn find(&self, path: &str) -> Option<&HPackTocEntry> {
        let i = self
            .entries
            .binary_search_by(|e| e.path.as_bytes().cmp(path.as_bytes()))
            .ok()?;
        self.entries.get(i)
    }
}

/// A table entry as stored, before its fields are interpreted.
struct RawEntry<'a> {
    /// File offset of the entry's first byte.
    at: u64,
    offset: u64,
    size: u64,
    kind: u8,
    path: &'a [u8],
}

impl RawEntry<'_> {
    /// File offset of the path bytes.
    fn path_at(&self) -> u64 {
        self.at + TOC_ENTRY_FIXED_SIZE as u64
    }
    /// End of the payload, `None` when it does not fit in a u64.
    fn end(&self) -> Option<u64> {
        self.offset.checked_add(self.size)
    }
}

struct Parsed<'a> {
    flags: u32,
    /// Where the table ends (and the payload region begins).
    toc_end: u64,
    entries: Vec<RawEntry<'a>>,
}

/// Walks the header and the table, which must fill exactly `tocBytes`.
fn parse(bytes: &[u8]) -> Result<Parsed<'_>, HPackError> {
    let len = bytes.len() as u64;
    let mut r = Reader::new(bytes);
    let truncated = |e: super::bytes::OutOfBounds| HPackError::Truncated {
        what: e.what,
        offset: e.offset as u64,
        needed: e.needed as u64,
        len,
    };
    let magic = r.u32("header").map_err(truncated)?;
    if magic != MAGIC {
        return Err(HPackError::BadMagic { found: magic });
    }
    let version = r.u32("header").map_err(truncated)?;
    if version != VERSION {
        return Err(HPackError::BadVersion { found: version });
    }
    let count = r.u32("header").map_err(truncated)?;
    let flags = r.u32("header").map_err(truncated)?;
    let toc_bytes = r.u64("header").map_err(truncated)?;
    let toc_end = usize::try_from(toc_bytes)
        .ok()
        .and_then(|t| t.checked_add(HEADER_SIZE))
        .filter(|&end| end <= bytes.len())
        .ok_or(HPackError::TocPastEnd { toc_bytes, len })?;
    // Reading through a slice that ends with the table keeps every entry inside it.
    let mut toc = Reader::at(&bytes[..toc_end], HEADER_SIZE);
    // Each entry takes at least the fixed bytes, so the table's size bounds the
    // allocation whatever `count` claims.
    let plausible = (toc.remaining() / TOC_ENTRY_FIXED_SIZE).min(count as usize);
    let mut entries = Vec::with_capacity(plausible);
    for index in 0..count {
        let at = toc.pos() as u64;
        let overrun = |_| HPackError::TocOverrun {
            index,
            offset: at,
            count,
            toc_bytes,
        };
        let offset = toc.u64("entry").map_err(overrun)?;
        let size = toc.u64("entry").map_err(overrun)?;
        let kind = toc.u8("entry").map_err(overrun)?;
        let path_len = toc.u16("entry").map_err(overrun)?;
        let path = toc.bytes(usize::from(path_len), "path").map_err(overrun)?;
        entries.push(RawEntry {
            at,
            offset,
            size,
            kind,
            path,
        });
    }
    if toc.remaining() > 0 {
        return Err(HPackError::TocSlack {
            offset: toc.pos() as u64,
            extra: toc.remaining() as u64,
            toc_bytes,
        });
    }
    Ok(Parsed {
        flags,
        toc_end: toc_end as u64,
        entries,
    })
}

/// Opens a pack. Fails on anything that would make a lookup wrong or a payload read
/// unsafe: the header, the table's extent, a path that is not UTF-8, paths out of order
/// or repeated (lookups binary-search), a payload past the end of the file. Everything
/// else is [`validate`]'s.
pub fn read(bytes: &[u8]) -> Result<HPack<'_>, HPackError> {
    let parsed = parse(bytes)?;
    let len = bytes.len() as u64;
    let mut entries: Vec<HPackTocEntry> = Vec::with_capacity(parsed.entries.len());
    for (index, raw) in parsed.entries.iter().enumerate() {
        let path = std::str::from_utf8(raw.path).map_err(|_| HPackError::PathNotUtf8 {
            index,
            offset: raw.path_at(),
        })?;
        if let Some(previous) = entries
            .last()
            .filter(|p| p.path.as_bytes() >= path.as_bytes())
        {
            return Err(HPackError::NotSorted {
                index,
                offset: raw.path_at(),
                path: path.to_owned(),
                previous: previous.path.clone(),
            });
        }
        if raw.end().is_none_or(|end| end > len) {
            return Err(HPackError::PayloadPastEnd {
                index,
                offset: raw.at,
                path: path.to_owned(),
                start: raw.offset,
                size: raw.size,
                len,
            });
        }
        entries.push(HPackTocEntry {
            index,
            path: path.to_owned(),
            kind: raw.kind,
            offset: raw.offset,
            size: raw.size,
        });
    }
    Ok(HPack {
        bytes,
        flags: parsed.flags,
        entries,
    })
}

/// `v` rounded up to the next multiple of [`ALIGN`], saturating at the top of the range.
fn align_up(v: u64) -> u64 {
    v.div_ceil(ALIGN).saturating_mul(ALIGN)
}
