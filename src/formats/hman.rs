//! `.hman` v1: the global manifest (`assets.hman` at the output root), sorted by hash so
//! an engine can binary-search it.
//!
//! Hand-written: the format is our own.

use thiserror::Error;

use super::bytes::{Reader, WriteLe};
use super::hash::fnv1a64;
use super::Problem;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HMAN");
pub const VERSION: u32 = 1;
const HEADER_SIZE: usize = 16;
/// hash u64, kind u8, colorspace u8, pathLen u16.
const ENTRY_FIXED_SIZE: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EntryKind {
    Texture = 0,
    Mesh = 1,
    MaterialTable = 2,
    RawFile = 5,
    Animation = 6,
}

impl EntryKind {
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::Texture,
            1 => Self::Mesh,
            2 => Self::MaterialTable,
            5 => Self::RawFile,
            6 => Self::Animation,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ManifestEntry {
    pub hash: u64,
    pub kind: EntryKind,
    /// Colorspace byte: 1 sRGB, 0 linear.
    pub srgb: bool,
    /// `/`-separated, relative to the output root.
    pub path: String,
}

/// A manifest whose entries are sorted by hash with no two sharing a hash; only
/// `from_entries` and `read` build one, so `write` can rely on that.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    entries: Vec<ManifestEntry>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HManError {
    #[error("hash {hash:016x} is claimed by two different entries: \"{first}\" and \"{second}\"")]
    Collision {
        hash: u64,
        first: String,
        second: String,
    },
    #[error("path \"{path}\" is {len} bytes, more than the 65535 a manifest entry holds")]
    PathTooLong { path: String, len: usize },
    #[error("{count} entries do not fit the u32 count field")]
    TooManyEntries { count: usize },
    #[error("{what} at byte {offset} needs {needed} bytes but the file ends at {len}")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        len: u64,
    },
    #[error("at byte 0: magic is {found:#010x}, expected \"HMAN\" ({MAGIC:#010x})")]
    BadMagic { found: u32 },
    #[error("at byte 4: version is {found}, expected {VERSION}")]
    BadVersion { found: u32 },
    #[error("at byte {offset}: entry kind {kind} is unknown (0, 1, 2, 5 or 6)")]
    UnknownKind { offset: u64, kind: u8 },
    #[error("at byte {offset}: colorspace {value} is neither 0 (linear) nor 1 (sRGB)")]
    BadColorspace { offset: u64, value: u8 },
    #[error("at byte {offset}: path is not valid UTF-8")]
    PathNotUtf8 { offset: u64 },
    #[error("at byte {offset}: hash {hash:016x} does not follow {previous:016x} (entries are sorted by hash, without duplicates)")]
    NotSorted {
        offset: u64,
        hash: u64,
        previous: u64,
    },
    #[error("at byte {offset}: {extra} bytes follow the last entry")]
    TrailingBytes { offset: u64, extra: u64 },
}

impl HManError {
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::Collision { .. } | Self::PathTooLong { .. } | Self::TooManyEntries { .. } => None,
            Self::Truncated { offset, .. }
            | Self::UnknownKind { offset, .. }
            | Self::BadColorspace { offset, .. }
            | Self::PathNotUtf8 { offset }
            | Self::NotSorted { offset, .. }
            | Self::TrailingBytes { offset, .. } => Some(*offset),
            Self::BadMagic { .. } => Some(0),
            Self::BadVersion { .. } => Some(4),
        }
    }
}

/// The manifest id of a mesh, material table, animation or raw file: FNV-1a 64 of its
/// output path with extension (`models/chair.hmesh`).
pub fn id_for_path(path: &str) -> u64 {
    fnv1a64(path)
}

impl Manifest {
    /// Sorts by hash and drops exact duplicates (one asset registered twice); two
    /// different entries with one hash are a collision and fail.
    pub fn from_entries(mut entries: Vec<ManifestEntry>) -> Result<Manifest, HManError> {
        // The full key makes the order (and so the collision reported) deterministic.
        entries.sort_by(|a, b| {
            (a.hash, &a.path, a.kind, a.srgb).cmp(&(b.hash, &b.path, b.kind, b.srgb))
        });
        entries.dedup();
        if let Some(pair) = entries.windows(2).find(|w| w[0].hash == w[1].hash) {
            let (first, second) = (&pair[0], &pair[1]);
            let describe = |e: &ManifestEntry| {
                if first.path == second.path {
                    format!("{} ({:?}, srgb {})", e.path, e.kind, e.srgb)
                } else {
                    e.path.clone()
                }
            };
            return Err(HManError::Collision {
                hash: first.hash,
                first: describe(first),
                second: describe(second),
            });
        }
        if let Some(e) = entries
            .iter()
            .find(|e| e.path.len() > usize::from(u16::MAX))
        {
            return Err(HManError::PathTooLong {
                path: e.path.clone(),
                len: e.path.len(),
            });
        }
        if u32::try_from(entries.len()).is_err() {
            return Err(HManError::TooManyEntries {
                count: entries.len(),
            });
        }
        Ok(Manifest { entries })
    }

    /// Entries in ascending hash order.
    pub fn entries(&self) -> &[ManifestEntry] {
        &self.entries
    }

    pub fn get(&self, hash: u64) -> Option<&ManifestEntry> {
        let i = self.entries.binary_search_by_key(&hash, |e| e.hash).ok()?;
        self.entries.get(i)
    }
}

pub fn write(manifest: &Manifest) -> Vec<u8> {
    let size: usize = manifest
        .entries
        .iter()
        .map(|e| ENTRY_FIXED_SIZE + e.path.len())
        .sum();
    let mut out = Vec::with_capacity(HEADER_SIZE + size);
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    // from_entries guarantees both fit.
    out.put_u32(manifest.entries.len() as u32);
    out.put_u32(0);
    for e in &manifest.entries {
        out.put_u64(e.hash);
        out.put_u8(e.kind as u8);
        out.put_u8(u8::from(e.srgb));
        out.put_u16(e.path.len() as u16);
        out.extend_from_slice(e.path.as_bytes());
    }
    out
}

/// One entry as stored, before its fields are interpreted.
struct RawEntry<'a> {
    at: u64,
    hash: u64,
    kind: u8,
    colorspace: u8,
    path: &'a [u8],
}

struct Parsed<'a> {
    reserved: u32,
    entries: Vec<RawEntry<'a>>,
}

/// Walks the layout: header, `count` entries, nothing after them.
fn parse(bytes: &[u8]) -> Result<Parsed<'_>, HManError> {
    let len = bytes.len() as u64;
    let mut r = Reader::new(bytes);
    let truncated = |e: super::bytes::OutOfBounds| HManError::Truncated {
        what: e.what,
        offset: e.offset as u64,
        needed: e.needed as u64,
        len,
    };
    let magic = r.u32("header").map_err(truncated)?;
    if magic != MAGIC {
        return Err(HManError::BadMagic { found: magic });
    }
    let version = r.u32("header").map_err(truncated)?;
    if version != VERSION {
        return Err(HManError::BadVersion { found: version });
    }
    let count = r.u32("header").map_err(truncated)?;
    let reserved = r.u32("header").map_err(truncated)?;
    // Every entry takes at least 12 bytes, which bounds the allocation by the file size.
    let plausible = (r.remaining() / ENTRY_FIXED_SIZE).min(count as usize);
    let mut entries = Vec::with_capacity(plausible);
    for _ in 0..count {
        let at = r.pos() as u64;
        let hash = r.u64("entry").map_err(truncated)?;
        let kind = r.u8("entry").map_err(truncated)?;
        let colorspace = r.u8("entry").map_err(truncated)?;
        let path_len = r.u16("entry").map_err(truncated)?;
        let path = r
            .bytes(usize::from(path_len), "entry path")
            .map_err(truncated)?;
        entries.push(RawEntry {
            at,
            hash,
            kind,
            colorspace,
            path,
        });
    }
    if r.remaining() > 0 {
        return Err(HManError::TrailingBytes {
            offset: r.pos() as u64,
            extra: r.remaining() as u64,
        });
    }
    Ok(Parsed { reserved, entries })
}

/// Reads a manifest. Fails on anything that would break lookups (layout, unknown kinds,
/// order); path rules are left to `validate`.
pub fn read(bytes: &[u8]) -> Result<Manifest, HManError> {
    let parsed = parse(bytes)?;
    let mut entries = Vec::with_capacity(parsed.entries.len());
    let mut previous: Option<u64> = None;
    for raw in parsed.entries {
        if let Some(previous) = previous.filter(|&p| raw.hash <= p) {
            return Err(HManError::NotSorted {
                offset: raw.at,
                hash: raw.hash,
                previous,
            });
        }
        previous = Some(raw.hash);
        let kind = EntryKind::from_u8(raw.kind).ok_or(HManError::UnknownKind {
            offset: raw.at + 8,
            kind: raw.kind,
        })?;
        if raw.colorspace > 1 {
            return Err(HManError::BadColorspace {
                offset: raw.at + 9,
                value: raw.colorspace,
            });
        }
        let path = std::str::from_utf8(raw.path).map_err(|_| HManError::PathNotUtf8 {
            offset: raw.at + 12,
        })?;
        entries.push(ManifestEntry {
            hash: raw.hash,
            kind,
            srgb: raw.colorspace == 1,
            path: path.to_owned(),
        });
    }
    Ok(Manifest { entries })
}

/// Why a manifest path is not a plain relative `/`-separated path, if it is not.
fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.contains('\\') {
        return Some("contains '\\' (paths are '/'-separated)");
    }
    if path.contains('\0') {
        return Some("contains a NUL byte");
    }
    if path.starts_with('/') {
        return Some("is absolute");
    }
    let mut parts = path.split('/');
    if parts.clone().next().is_some_and(|p| p.ends_with(':')) {
        return Some("starts with a drive prefix");
    }
    parts.find_map(|p| match p {
        "" => Some("has an empty component"),
        "." => Some("has a '.' component"),
        ".." => Some("has a '..' component"),
        _ => None,
    })
}

/// Checks every rule of the `.hman` v1 contract. An empty list means the file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let parsed = match parse(bytes) {
        Ok(p) => p,
        Err(e) => {
            return vec![Problem {
                offset: e.offset(),
                message: e.to_string(),
            }]
        }
    };
    let mut problems = Vec::new();
    if parsed.reserved != 0 {
        problems.push(Problem::at(
            12,
            format!("reserved header field is {:#x}, must be 0", parsed.reserved),
        ));
    }
    let mut previous: Option<u64> = None;
    let mut paths: Vec<(&[u8], u64)> = Vec::with_capacity(parsed.entries.len());
    for (i, e) in parsed.entries.iter().enumerate() {
        let mut bad = |field: u64, msg: String| {
            problems.push(Problem::at(e.at + field, format!("entry {i}: {msg}")))
        };
        if let Some(p) = previous.filter(|&p| e.hash <= p) {
            let why = if e.hash == p {
                "duplicates"
            } else {
                "is below"
            };
            bad(0, format!("hash {:016x} {why} the previous {p:016x} (entries are sorted strictly ascending)", e.hash));
        }
        previous = Some(e.hash);
        paths.push((e.path, e.at));
        let kind = EntryKind::from_u8(e.kind);
        if kind.is_none() {
            bad(8, format!("kind {} is unknown (0, 1, 2, 5 or 6)", e.kind));
        }
        if e.colorspace > 1 {
            bad(
                9,
                format!(
                    "colorspace {} is neither 0 (linear) nor 1 (sRGB)",
                    e.colorspace
                ),
            );
        }
        let Ok(path) = std::str::from_utf8(e.path) else {
            bad(12, "path is not valid UTF-8".into());
            continue;
        };
        if let Some(why) = path_problem(path) {
            bad(12, format!("path \"{path}\" {why}"));
        }
        match kind {
            Some(EntryKind::Texture) => {
                let expected = format!("tex/{:016x}.ktx2", e.hash);
                if path != expected {
                    bad(
                        12,
                        format!("texture path \"{path}\" should be \"{expected}\""),
                    );
                }
            }
            Some(_) if id_for_path(path) != e.hash => {
                bad(
                    0,
                    format!(
                        "hash {:016x} is not fnv1a64(\"{path}\") = {:016x}",
                        e.hash,
                        id_for_path(path)
                    ),
                );
            }
            _ => {}
        }
    }
    paths.sort();
    for w in paths.windows(2) {
        if w[0].0 == w[1].0 {
            problems.push(Problem::at(
                w[1].1 + 12,
                format!(
                    "path \"{}\" is listed twice",
                    String::from_utf8_lossy(w[1].0)
                ),
            ));
        }
    }
    problems
}
