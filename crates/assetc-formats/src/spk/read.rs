//! Reader and validator. [`open`] refuses any structural fault; payload faults stay with
//! their entry (see the module docs of `spk`).

use std::collections::HashMap;

use super::inflate::inflate_exact;
use super::{
    check_path, Compression, SpkEntry, SpkEntryError, SpkError, HEADER_SIZE, MAGIC,
    MAX_COMPRESSION_RATIO, MAX_DECOMPRESSED_ENTRY_BYTES, MAX_TOC_BYTES, TOC_ENTRY_FIXED_SIZE,
    VERSION,
};
use crate::bytes::Reader;
use crate::hash::fnv1a64_raw;
use crate::Problem;

/// An opened archive borrowing the file's bytes.
#[derive(Debug, Clone)]
pub struct SpkArchive<'a> {
    bytes: &'a [u8],
    toc_offset: u64,
    entries: Vec<SpkEntry>,
    by_hash: HashMap<u64, usize>,
}

/// Which entry to read: by path (looked up by its FNV-1a hash, as SparkEngine does) or by
/// TOC index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryRef<'p> {
    Path(&'p str),
    Index(usize),
}

impl<'p> From<&'p str> for EntryRef<'p> {
    fn from(p: &'p str) -> Self {
        Self::Path(p)
    }
}
impl<'p> From<&'p String> for EntryRef<'p> {
    fn from(p: &'p String) -> Self {
        Self::Path(p)
    }
}
impl From<usize> for EntryRef<'_> {
    fn from(i: usize) -> Self {
        Self::Index(i)
    }
}

/// Parses the header and TOC and checks every structural rule; the first fault found is
/// returned. Entry payloads are not inflated here.
pub fn open(bytes: &[u8]) -> Result<SpkArchive<'_>, SpkError> {
    let mut faults = Vec::new();
    let parsed = parse(bytes, &mut faults);
    if let Some(first) = faults.into_iter().next() {
        return Err(first);
    }
    let Some(parsed) = parsed else {
        // parse returns None only after recording a fault; kept total for safety.
        return Err(SpkError::TooShort { len: bytes.len() });
    };
    let by_hash = parsed
        .entries
        .iter()
        .map(|e| (e.path_hash, e.index))
        .collect();
    Ok(SpkArchive {
        bytes,
        toc_offset: parsed.toc_offset,
        entries: parsed.entries,
        by_hash,
    })
}

/// Every rule the archive breaks, including each entry's payload (budget, stream, size) and
/// the writer rule [S6]. Empty means valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let mut faults = Vec::new();
    let parsed = parse(bytes, &mut faults);
    let mut problems: Vec<Problem> = faults.iter().map(to_problem).collect();
    let Some(parsed) = parsed else {
        return problems;
    };
    // [S2]: SparkEngine looks paths up with their case, but a case-insensitive file
    // system (an extraction, a mod folder) holds one of two such entries. assetc's writer
    // refuses them; an archive that has them still opens.
    let mut folded: HashMap<String, &str> = HashMap::new();
    for e in &parsed.entries {
        match folded.get(&e.path.to_ascii_lowercase()) {
            Some(&first) if first != e.path => problems.push(Problem::new(
                SpkError::CaseClash {
                    first: first.to_owned(),
                    second: e.path.clone(),
                }
                .to_string(),
            )),
            Some(_) => {}
            None => {
                folded.insert(e.path.to_ascii_lowercase(), &e.path);
            }
        }
    }
    for (entry, sound) in parsed.entries.iter().zip(&parsed.sound) {
        if !sound {
            continue;
        }
        if let Err(e) = read_payload(bytes, entry) {
            problems.push(Problem::at(entry.data_offset, e.to_string()));
        }
        let saves_enough =
            u64::from(entry.compressed_size) < u64::from(entry.original_size) * 95 / 100;
        if entry.compression == Compression::Deflate && !saves_enough {
            problems.push(Problem::at(
                entry.data_offset,
                format!(
                    "entry {:?} is deflated from {} to {} bytes, saving under 5% [S6]",
                    entry.path, entry.original_size, entry.compressed_size
                ),
            ));
        }
    }
    problems
}

fn to_problem(fault: &SpkError) -> Problem {
    match fault.offset() {
        Some(o) => Problem::at(o, fault.to_string()),
        None => Problem::new(fault.to_string()),
    }
}

impl<'a> SpkArchive<'a> {
    /// Entries in TOC order (the writer's order is sorted by path).
    pub fn entries(&self) -> &[SpkEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn toc_offset(&self) -> u64 {
        self.toc_offset
    }

    /// The index of `path`, matched by hash and then by the stored path itself.
    pub fn find(&self, path: &str) -> Option<usize> {
        let index = *self.by_hash.get(&fnv1a64_raw(path.as_bytes()))?;
        (self.entries.get(index)?.path == path).then_some(index)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.find(path).is_some()
    }

    /// The entry's content. Refuses a compressed entry outside the budget [S12] before
    /// allocating and inflates with the output bounded to OriginalSize. An empty entry
    /// reads as empty content [S14].
    pub fn read_entry<'p>(&self, which: impl Into<EntryRef<'p>>) -> Result<Vec<u8>, SpkEntryError> {
        let index = match which.into() {
            EntryRef::Path(path) => self.find(path).ok_or_else(|| SpkEntryError::NotFound {
                path: path.to_owned(),
            })?,
            EntryRef::Index(index) => index,
        };
        let entry = self.entries.get(index).ok_or(SpkEntryError::NoSuchIndex {
            index,
            count: self.entries.len(),
        })?;
        read_payload(self.bytes, entry)
    }
}

/// [S12], checked from the TOC alone so a refused entry costs no allocation.
fn check_budget(entry: &SpkEntry) -> Result<(), SpkEntryError> {
    if entry.compression == Compression::Stored {
        return Ok(());
    }
    let path = || entry.path.clone();
    if entry.original_size > MAX_DECOMPRESSED_ENTRY_BYTES {
        return Err(SpkEntryError::OverBudget {
            path: path(),
            original_size: entry.original_size,
        });
    }
    if entry.compressed_size == 0 && entry.original_size != 0 {
        return Err(SpkEntryError::EmptyPayload {
            path: path(),
            original_size: entry.original_size,
        });
    }
    if u64::from(entry.original_size) > u64::from(entry.compressed_size) * MAX_COMPRESSION_RATIO {
        return Err(SpkEntryError::RatioExceeded {
            path: path(),
            original_size: entry.original_size,
            compressed_size: entry.compressed_size,
        });
    }
    Ok(())
}

fn read_payload(bytes: &[u8], entry: &SpkEntry) -> Result<Vec<u8>, SpkEntryError> {
    check_budget(entry)?;
    let out_of_bounds = || SpkEntryError::OutOfBounds {
        path: entry.path.clone(),
        offset: entry.data_offset,
        size: entry.compressed_size,
    };
    let start = usize::try_from(entry.data_offset).map_err(|_| out_of_bounds())?;
    let end = usize::try_from(entry.data_end()).map_err(|_| out_of_bounds())?;
    let blob = bytes.get(start..end).ok_or_else(out_of_bounds)?;
    let data = match entry.compression {
        Compression::Stored => blob.to_vec(),
        Compression::Deflate => {
            inflate_exact(blob, entry.original_size as usize).map_err(|fault| {
                SpkEntryError::Inflate {
                    path: entry.path.clone(),
                    offset: entry.data_offset,
                    fault,
                }
            })?
        }
    };
    Ok(data)
}

struct Parsed {
    toc_offset: u64,
    entries: Vec<SpkEntry>,
    /// Per entry: no structural fault touches it, so its payload can be judged alone.
    sound: Vec<bool>,
}

struct Header {
    file_count: u32,
    toc_offset: u64,
    toc_size: u32,
    toc_raw_size: u32,
}

fn read_header(bytes: &[u8], faults: &mut Vec<SpkError>) -> Option<Header> {
    let mut r = Reader::new(bytes);
    let (
        Ok(magic),
        Ok(version),
        Ok(file_count),
        Ok(reserved),
        Ok(toc_offset),
        Ok(toc_size),
        Ok(toc_raw_size),
    ) = (
        r.array::<4>("magic"),
        r.u32("Version"),
        r.u32("FileCount"),
        r.u32("Reserved"),
        r.u64("TOCOffset"),
        r.u32("TOCSize"),
        r.u32("TOCRawSize"),
    )
    else {
        faults.push(SpkError::TooShort { len: bytes.len() });
        return None;
    };
    if magic != MAGIC {
        faults.push(SpkError::BadMagic { found: magic });
        return None;
    }
    if version != VERSION {
        // Another version may lay the file out differently: read no further.
        faults.push(SpkError::BadVersion { found: version });
        return None;
    }
    if reserved != 0 {
        faults.push(SpkError::ReservedNonZero { found: reserved });
    }
    Some(Header {
        file_count,
        toc_offset,
        toc_size,
        toc_raw_size,
    })
}

fn read_toc(bytes: &[u8], h: &Header, faults: &mut Vec<SpkError>) -> Option<Vec<u8>> {
    let file_len = bytes.len() as u64;
    let toc_end = h.toc_offset.checked_add(u64::from(h.toc_size));
    if h.toc_offset < HEADER_SIZE as u64 || toc_end != Some(file_len) {
        faults.push(SpkError::TocPlacement {
            offset: h.toc_offset,
            size: h.toc_size,
            file_len,
        });
        return None;
    }
    if h.toc_size == h.toc_raw_size {
        faults.push(SpkError::TocNotCompressed {
            offset: h.toc_offset,
            size: h.toc_size,
        });
        return None;
    }
    if h.file_count == 0 {
        faults.push(SpkError::NoEntries);
        return None;
    }
    let min = u64::from(h.file_count) * TOC_ENTRY_FIXED_SIZE as u64;
    let max = u64::from(h.file_count) * (TOC_ENTRY_FIXED_SIZE as u64 + u64::from(u16::MAX));
    let raw = u64::from(h.toc_raw_size);
    if raw < min || raw > max || h.toc_raw_size > MAX_TOC_BYTES {
        faults.push(SpkError::TocRawSizeImplausible {
            raw_size: h.toc_raw_size,
            file_count: h.file_count,
            min,
            max,
        });
        return None;
    }
    let Some(packed) = usize::try_from(h.toc_offset)
        .ok()
        .and_then(|o| bytes.get(o..))
    else {
        faults.push(SpkError::TocPlacement {
            offset: h.toc_offset,
            size: h.toc_size,
            file_len,
        });
        return None;
    };
    match inflate_exact(packed, h.toc_raw_size as usize) {
        Ok(raw) => Some(raw),
        Err(fault) => {
            faults.push(SpkError::TocInflate {
                offset: h.toc_offset,
                fault,
            });
            None
        }
    }
}

fn parse(bytes: &[u8], faults: &mut Vec<SpkError>) -> Option<Parsed> {
    let header = read_header(bytes, faults)?;
    let toc = read_toc(bytes, &header, faults)?;
    let mut r = Reader::new(&toc);
    let mut entries = Vec::new();
    let mut sound = Vec::new();
    for index in 0..header.file_count as usize {
        let toc_pos = r.pos();
        let Some((entry, compression_byte, path_bytes)) = read_toc_entry(&mut r, index) else {
            faults.push(SpkError::TocTruncated { index, toc_pos });
            return None;
        };
        let ok = check_entry(
            &entry,
            compression_byte,
            path_bytes,
            header.toc_offset,
            faults,
        );
        entries.push(entry);
        sound.push(ok);
    }
    if r.remaining() != 0 {
        faults.push(SpkError::TocTrailing {
            extra: r.remaining(),
        });
    }
    check_duplicates(&entries, &mut sound, faults);
    check_tiling(&entries, &mut sound, header.toc_offset, faults);
    Some(Parsed {
        toc_offset: header.toc_offset,
        entries,
        sound,
    })
}

fn read_toc_entry<'t>(r: &mut Reader<'t>, index: usize) -> Option<(SpkEntry, u8, &'t [u8])> {
    let path_hash = r.u64("PathHash").ok()?;
    let data_offset = r.u64("DataOffset").ok()?;
    let compressed_size = r.u32("CompressedSize").ok()?;
    let original_size = r.u32("OriginalSize").ok()?;
    let compression_byte = r.u8("Compression").ok()?;
    let path_len = r.u16("PathLength").ok()?;
    let path_bytes = r.bytes(usize::from(path_len), "Path").ok()?;
    let entry = SpkEntry {
        index,
        path: String::from_utf8_lossy(path_bytes).into_owned(),
        path_hash,
        data_offset,
        compressed_size,
        original_size,
        // An unknown byte is recorded as a fault; Stored keeps the entry printable.
        compression: Compression::from_byte(compression_byte).unwrap_or(Compression::Stored),
    };
    Some((entry, compression_byte, path_bytes))
}

/// The rules one TOC entry must meet on its own; true when it meets them all.
fn check_entry(
    e: &SpkEntry,
    compression_byte: u8,
    path_bytes: &[u8],
    toc_offset: u64,
    faults: &mut Vec<SpkError>,
) -> bool {
    let before = faults.len();
    let (index, path) = (e.index, || e.path.clone());
    if let Err(fault) = check_path(path_bytes) {
        faults.push(SpkError::BadPath {
            index,
            path: path(),
            fault,
        });
    }
    let computed = fnv1a64_raw(path_bytes);
    if computed != e.path_hash {
        faults.push(SpkError::HashMismatch {
            index,
            path: path(),
            stored: e.path_hash,
            computed,
        });
    }
    if Compression::from_byte(compression_byte).is_none() {
        faults.push(SpkError::UnknownCompression {
            index,
            path: path(),
            value: compression_byte,
        });
    } else if e.compression == Compression::Stored && e.compressed_size != e.original_size {
        faults.push(SpkError::StoredSizeMismatch {
            index,
            path: path(),
            compressed: e.compressed_size,
            original: e.original_size,
        });
    }
    if e.data_offset < HEADER_SIZE as u64 || e.data_end() > toc_offset {
        faults.push(SpkError::BlobOutOfBounds {
            index,
            path: path(),
            offset: e.data_offset,
            size: e.compressed_size,
            toc_offset,
        });
    }
    faults.len() == before
}

/// [S13]: lookups go by hash, so a repeated hash (or path) makes one entry unreachable.
fn check_duplicates(entries: &[SpkEntry], sound: &mut [bool], faults: &mut Vec<SpkError>) {
    let mut by_path: HashMap<&str, usize> = HashMap::new();
    let mut by_hash: HashMap<u64, usize> = HashMap::new();
    for e in entries {
        if let Some(&first) = by_path.get(e.path.as_str()) {
            faults.push(SpkError::DuplicatePath {
                path: e.path.clone(),
                first,
                second: e.index,
            });
            mark_unsound(sound, [first, e.index]);
        } else if let Some(&first) = by_hash.get(&e.path_hash) {
            faults.push(SpkError::DuplicateHash {
                hash: e.path_hash,
                first: entries
                    .get(first)
                    .map(|f| f.path.clone())
                    .unwrap_or_default(),
                second: e.path.clone(),
            });
            mark_unsound(sound, [first, e.index]);
        }
        by_path.entry(e.path.as_str()).or_insert(e.index);
        by_hash.entry(e.path_hash).or_insert(e.index);
    }
}

fn mark_unsound<const N: usize>(sound: &mut [bool], indices: [usize; N]) {
    for i in indices {
        if let Some(s) = sound.get_mut(i) {
            *s = false;
        }
    }
}

/// [S1]: the blobs, in offset order, cover `[0x20, TOCOffset)` exactly once.
fn check_tiling(
    entries: &[SpkEntry],
    sound: &mut [bool],
    toc_offset: u64,
    faults: &mut Vec<SpkError>,
) {
    let mut placed: Vec<&SpkEntry> = entries
        .iter()
        .filter(|e| e.data_offset >= HEADER_SIZE as u64 && e.data_end() <= toc_offset)
        .collect();
    placed.sort_by_key(|e| (e.data_offset, e.data_end(), e.index));
    let mut cursor = HEADER_SIZE as u64;
    let mut previous: Option<&SpkEntry> = None;
    for e in placed {
        if e.data_offset < cursor {
            let other = previous.map(|p| p.path.clone()).unwrap_or_default();
            faults.push(SpkError::BlobOverlap {
                path: e.path.clone(),
                offset: e.data_offset,
                other,
                other_end: cursor,
            });
            mark_unsound(sound, [e.index]);
            if let Some(p) = previous {
                mark_unsound(sound, [p.index]);
            }
        } else if e.data_offset > cursor {
            faults.push(SpkError::Gap {
                offset: cursor,
                len: e.data_offset - cursor,
            });
        }
        if e.data_end() >= cursor {
            cursor = e.data_end();
            previous = Some(e);
        }
    }
    if cursor < toc_offset {
        faults.push(SpkError::Gap {
            offset: cursor,
            len: toc_offset - cursor,
        });
    }
}
