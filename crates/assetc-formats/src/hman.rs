//! `.hman` v2: the global manifest (`assets.hman` at the output root), sorted by hash so
//! an engine can binary-search it. Each v2 entry carries its file's size and XXH3-64
//! digest so a loader or `assetc check` can see a truncated or altered file without
//! decoding it; version 1 (the same entries without them) is still read, and written on
//! request for engines built on the original assetc's SDK, whose `ReadHMan` reads only it.
//!
//! Hand-written: the format is our own. The digest comes from `xxhash-rust`.

mod format;
pub use format::FORMAT;

use thiserror::Error;

use super::bytes::{Reader, WriteLe};
use super::hash::fnv1a64;
use super::Problem;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HMAN");
/// The version `write` produces.
pub const VERSION: u32 = 2;
/// The previous version, still read: entries without size and digest.
pub const VERSION_1: u32 = 1;
const HEADER_SIZE: usize = 16;
/// v1: hash u64, kind u8, colorspace u8, pathLen u16.
const ENTRY_FIXED_SIZE_V1: usize = 12;
/// v2: the v1 fields, then size u64 and digest u64.
const ENTRY_FIXED_SIZE_V2: usize = 28;

/// Fixed part of one entry in a manifest of `version` (1 or 2).
fn entry_fixed_size(version: u32) -> usize {
    if version == VERSION_1 {
        ENTRY_FIXED_SIZE_V1
    } else {
        ENTRY_FIXED_SIZE_V2
    }
}

/// What a v2 entry records about its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileStamp {
    /// Length in bytes.
    pub size: u64,
    /// XXH3-64 with seed 0 of the whole file.
    pub digest: u64,
}

impl FileStamp {
    pub fn of(bytes: &[u8]) -> Self {
        Self {
            size: bytes.len() as u64,
            digest: xxhash_rust::xxh3::xxh3_64(bytes),
        }
    }
}

pub use crate::entry_kind::EntryKind;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ManifestEntry {
    pub hash: u64,
    pub kind: EntryKind,
    /// Colorspace byte: 1 sRGB, 0 linear.
    pub srgb: bool,
    /// `/`-separated, relative to the output root.
    pub path: String,
    /// Size and digest of the file; `None` for an entry read from a v1 manifest or not yet
    /// stamped (`write` requires it).
    pub file: Option<FileStamp>,
}

/// A manifest whose entries are sorted by hash with no two sharing a hash; only
/// `from_entries` and `read` build one, so `write` can rely on that.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    entries: Vec<ManifestEntry>,
    /// The version read (1 or 2); `from_entries` makes a current one.
    version: u32,
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
    #[error("at byte {offset}: {what} needs {needed} bytes but the file ends at {len}")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        len: u64,
    },
    #[error("at byte 0: magic is {found:#010x}, expected \"HMAN\" ({MAGIC:#010x})")]
    BadMagic { found: u32 },
    #[error("at byte 4: version is {found}, expected {VERSION_1} or {VERSION}")]
    BadVersion { found: u32 },
    #[error("cannot write manifest version {version}: only {VERSION_1} and {VERSION} exist")]
    UnsupportedVersion { version: u32 },
    #[error("entry \"{path}\" has no file size and digest, which version {VERSION} needs")]
    Unstamped { path: String },
    #[error("at byte {offset}: entry kind {kind} is unknown (0 to 8)")]
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
            Self::Collision { .. }
            | Self::PathTooLong { .. }
            | Self::TooManyEntries { .. }
            | Self::UnsupportedVersion { .. }
            | Self::Unstamped { .. } => None,
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
            (a.hash, &a.path, a.kind, a.srgb, a.file)
                .cmp(&(b.hash, &b.path, b.kind, b.srgb, b.file))
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
        Ok(Manifest {
            entries,
            version: VERSION,
        })
    }

    /// The format version: 2, or 1 for an old manifest read back (no sizes or digests).
    pub fn version(&self) -> u32 {
        self.version
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

/// Writes a version 2 manifest; every entry needs its file stamp.
pub fn write(manifest: &Manifest) -> Result<Vec<u8>, HManError> {
    write_version(manifest, VERSION)
}

/// Writes `manifest` as `version` 1 or 2. Version 1 is the original assetc's layout (each
/// entry ends after its path), so its stamps are dropped and need not exist; version 2
/// needs every entry's stamp. Entries and their order are the same in both.
pub fn write_version(manifest: &Manifest, version: u32) -> Result<Vec<u8>, HManError> {
    if version != VERSION && version != VERSION_1 {
        return Err(HManError::UnsupportedVersion { version });
    }
    let fixed = entry_fixed_size(version);
    let size: usize = manifest.entries.iter().map(|e| fixed + e.path.len()).sum();
    let mut out = Vec::with_capacity(HEADER_SIZE + size);
    out.put_u32(MAGIC);
    out.put_u32(version);
    // from_entries guarantees both fit.
    out.put_u32(manifest.entries.len() as u32);
    out.put_u32(0);
    for e in &manifest.entries {
        out.put_u64(e.hash);
        out.put_u8(e.kind as u8);
        out.put_u8(u8::from(e.srgb));
        out.put_u16(e.path.len() as u16);
        if version == VERSION {
            let file = e.file.ok_or_else(|| HManError::Unstamped {
                path: e.path.clone(),
            })?;
            out.put_u64(file.size);
            out.put_u64(file.digest);
        }
        out.extend_from_slice(e.path.as_bytes());
    }
    Ok(out)
}

/// One entry as stored, before its fields are interpreted.
struct RawEntry<'a> {
    at: u64,
    hash: u64,
    kind: u8,
    colorspace: u8,
    file: Option<FileStamp>,
    /// Where the path starts, relative to `at` (12 in v1, 28 in v2).
    path_at: u64,
    path: &'a [u8],
}

struct Parsed<'a> {
    version: u32,
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
    if version != VERSION && version != VERSION_1 {
        return Err(HManError::BadVersion { found: version });
    }
    let count = r.u32("header").map_err(truncated)?;
    let reserved = r.u32("header").map_err(truncated)?;
    let fixed = entry_fixed_size(version);
    // Every entry takes at least `fixed` bytes, which bounds the allocation by the file
    // size whatever `count` claims.
    let plausible = (r.remaining() / fixed).min(count as usize);
    let mut entries = Vec::with_capacity(plausible);
    for _ in 0..count {
        let at = r.pos() as u64;
        let hash = r.u64("entry").map_err(truncated)?;
        let kind = r.u8("entry").map_err(truncated)?;
        let colorspace = r.u8("entry").map_err(truncated)?;
        let path_len = r.u16("entry").map_err(truncated)?;
        let file = if version == VERSION_1 {
            None
        } else {
            Some(FileStamp {
                size: r.u64("entry size").map_err(truncated)?,
                digest: r.u64("entry digest").map_err(truncated)?,
            })
        };
        let path = r
            .bytes(usize::from(path_len), "entry path")
            .map_err(truncated)?;
        entries.push(RawEntry {
            at,
            hash,
            kind,
            colorspace,
            file,
            path_at: fixed as u64,
            path,
        });
    }
    if r.remaining() > 0 {
        return Err(HManError::TrailingBytes {
            offset: r.pos() as u64,
            extra: r.remaining() as u64,
        });
    }
    Ok(Parsed {
        version,
        reserved,
        entries,
    })
}

/// Reads a manifest. Fails on anything that would break lookups (layout, unknown kinds,
/// order); path rules are left to `validate`.
pub fn read(bytes: &[u8]) -> Result<Manifest, HManError> {
    let parsed = parse(bytes)?;
    let version = parsed.version;
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
            offset: raw.at + raw.path_at,
        })?;
        entries.push(ManifestEntry {
            hash: raw.hash,
            kind,
            srgb: raw.colorspace == 1,
            path: path.to_owned(),
            file: raw.file,
        });
    }
    Ok(Manifest { entries, version })
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

/// Which field an id problem is reported at.
#[derive(PartialEq)]
enum IdField {
    Hash,
    Path,
}

/// Why `hash` is not the id the contract gives an entry of `kind` at `path`, if it is not.
/// Content-addressed textures live at `tex/<id hex>.ktx2`; the standalone kinds hash their
/// ref (the path without `.ktx2` / `.spv`); everything else hashes its full path.
fn id_problem(kind: EntryKind, hash: u64, path: &str) -> Option<(IdField, String)> {
    let ref_of = |ext: &str| path.strip_suffix(ext).map(id_for_path);
    match kind {
        EntryKind::Texture => {
            let content = format!("tex/{hash:016x}.ktx2");
            (path != content && ref_of(".ktx2") != Some(hash)).then(|| {
                (
                    IdField::Path,
                    format!(
                        "texture path \"{path}\" should be \"{content}\" (a content id) or a .ktx2 whose ref hashes to {hash:016x}"
                    ),
                )
            })
        }
        EntryKind::ColourLut | EntryKind::Shader => {
            let ext = if kind == EntryKind::Shader {
                ".spv"
            } else {
                ".ktx2"
            };
            match ref_of(ext) {
                None => Some((
                    IdField::Path,
                    format!("{kind} path \"{path}\" does not end in {ext}"),
                )),
                Some(id) if id != hash => Some((
                    IdField::Hash,
                    format!(
                        "hash {hash:016x} is not fnv1a64 of \"{path}\" without {ext} = {id:016x}"
                    ),
                )),
                Some(_) => None,
            }
        }
        _ => (id_for_path(path) != hash).then(|| {
            (
                IdField::Hash,
                format!(
                    "hash {hash:016x} is not fnv1a64(\"{path}\") = {:016x}",
                    id_for_path(path)
                ),
            )
        }),
    }
}

/// Checks every rule of the `.hman` v1/v2 contract that the file alone shows (whether
/// sizes and digests match the files is `assetc check`'s job). An empty list means the
/// file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let parsed = match parse(bytes) {
        Ok(p) => p,
        Err(e) => return vec![Problem::from_error(e.offset(), &e)],
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
    let path_at = entry_fixed_size(parsed.version) as u64;
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
            bad(8, format!("kind {} is unknown (0 to 8)", e.kind));
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
            bad(e.path_at, "path is not valid UTF-8".into());
            continue;
        };
        if let Some(why) = path_problem(path) {
            bad(e.path_at, format!("path \"{path}\" {why}"));
        }
        if let Some((field, why)) = kind.and_then(|k| id_problem(k, e.hash, path)) {
            bad(if field == IdField::Path { e.path_at } else { 0 }, why);
        }
    }
    paths.sort();
    for w in paths.windows(2) {
        if w[0].0 == w[1].0 {
            problems.push(Problem::at(
                w[1].1 + path_at,
                format!(
                    "path \"{}\" is listed twice",
                    String::from_utf8_lossy(w[1].0)
                ),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::WriteLe;
    use proptest::prelude::*;

    fn entry(path: &str, kind: EntryKind, content: &[u8]) -> ManifestEntry {
        ManifestEntry {
            hash: id_for_path(path),
            kind,
            srgb: false,
            path: path.into(),
            file: Some(FileStamp::of(content)),
        }
    }

    fn sample() -> Manifest {
        // Id 1 sorts first whatever the path ids are.
        let texture_id = 1;
        Manifest::from_entries(vec![
            entry("models/chair.hmesh", EntryKind::Mesh, b"mesh bytes"),
            ManifestEntry {
                hash: texture_id,
                kind: EntryKind::Texture,
                srgb: true,
                path: format!("tex/{texture_id:016x}.ktx2"),
                file: Some(FileStamp::of(b"texture")),
            },
            entry("models/chair.hmat", EntryKind::MaterialTable, b""),
        ])
        .unwrap()
    }

    #[test]
    fn v2_round_trips_with_sizes_and_digests() {
        let m = sample();
        let bytes = write(&m).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        let back = read(&bytes).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.version(), 2);
        // 16-byte header, then three 28-byte fixed parts and the paths.
        let paths: usize = m.entries().iter().map(|e| e.path.len()).sum();
        assert_eq!(bytes.len(), 16 + 3 * 28 + paths);
        let mesh = back.get(id_for_path("models/chair.hmesh")).unwrap();
        assert_eq!(mesh.file.unwrap().size, 10);
    }

    #[test]
    fn digest_is_xxh3_64_with_seed_0() {
        // Reference value of XXH3-64 (seed 0) for the empty input, from the xxHash
        // specification's test vectors.
        assert_eq!(FileStamp::of(b"").digest, 0x2d06_8005_38d3_94c2);
        assert_ne!(FileStamp::of(b"a").digest, FileStamp::of(b"b").digest);
    }

    #[test]
    fn writing_needs_every_stamp() {
        let mut e = entry("a.hmesh", EntryKind::Mesh, b"x");
        e.file = None;
        let m = Manifest::from_entries(vec![e]).unwrap();
        assert!(matches!(write(&m), Err(HManError::Unstamped { path }) if path == "a.hmesh"));
    }

    /// The v1 layout of formats.md: entries without size and digest.
    fn v1_bytes(entries: &[(u64, u8, u8, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        out.put_u32(MAGIC);
        out.put_u32(1);
        out.put_u32(entries.len() as u32);
        out.put_u32(0);
        for (hash, kind, cs, path) in entries {
            out.put_u64(*hash);
            out.put_u8(*kind);
            out.put_u8(*cs);
            out.put_u16(path.len() as u16);
            out.extend_from_slice(path.as_bytes());
        }
        out
    }

    #[test]
    fn reads_version_1_without_stamps() {
        let path = "models/chair.hmesh";
        // The 83-byte example of docs/formats.md's v1 section, in v1 layout.
        let tex = "tex/0123456789abcdef.ktx2";
        let bytes = v1_bytes(&[
            (0x0123_4567_89ab_cdef, 0, 1, tex),
            (id_for_path(path), 1, 0, path),
        ]);
        assert_eq!(bytes.len(), 16 + 12 + 25 + 12 + 18);
        assert_eq!(validate(&bytes), vec![]);
        let m = read(&bytes).unwrap();
        assert_eq!(m.version(), 1);
        assert_eq!(m.entries().len(), 2);
        assert!(m.entries().iter().all(|e| e.file.is_none()));
        assert_eq!(m.entries()[1].path, path);
        assert!(m.entries()[0].srgb);
    }

    #[test]
    fn version_1_on_request_round_trips_without_stamps() {
        let m = sample();
        let bytes = write_version(&m, 1).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        // The v1 layout: version 1 in the header, 12-byte fixed parts, nothing after a path.
        assert_eq!(bytes[4..8], 1u32.to_le_bytes());
        let paths: usize = m.entries().iter().map(|e| e.path.len()).sum();
        assert_eq!(bytes.len(), 16 + 3 * 12 + paths);
        let back = read(&bytes).unwrap();
        assert_eq!(back.version(), 1);
        let unstamped: Vec<ManifestEntry> = m
            .entries()
            .iter()
            .map(|e| ManifestEntry {
                file: None,
                ..e.clone()
            })
            .collect();
        assert_eq!(back.entries(), unstamped.as_slice());
        // Stamps are not needed for v1, and a v1 manifest read back writes as v1 again.
        assert_eq!(write_version(&back, 1).unwrap(), bytes);
        assert!(matches!(write(&back), Err(HManError::Unstamped { .. })));
        // Version 2 on request is `write`.
        assert_eq!(write_version(&m, 2).unwrap(), write(&m).unwrap());
    }

    #[test]
    fn version_1_matches_the_hand_built_layout() {
        let m = sample();
        let expected: Vec<(u64, u8, u8, &str)> = m
            .entries()
            .iter()
            .map(|e| (e.hash, e.kind as u8, u8::from(e.srgb), e.path.as_str()))
            .collect();
        assert_eq!(write_version(&m, 1).unwrap(), v1_bytes(&expected));
    }

    #[test]
    fn only_versions_1_and_2_are_written() {
        for version in [0, 3, u32::MAX] {
            assert!(matches!(
                write_version(&sample(), version),
                Err(HManError::UnsupportedVersion { version: v }) if v == version
            ));
        }
    }

    /// An entry of `kind` named and hashed as formats.md's standalone kinds are.
    fn of_kind(kind: EntryKind) -> ManifestEntry {
        let (path, hashed) = match kind {
            EntryKind::Texture => ("ui/button.ktx2", "ui/button"),
            EntryKind::ColourLut => ("grade/warm.lut.ktx2", "grade/warm.lut"),
            EntryKind::Shader => ("shaders/bloom/down.spv", "shaders/bloom/down"),
            EntryKind::Mesh => ("models/chair.hmesh", "models/chair.hmesh"),
            EntryKind::MaterialTable => ("models/chair.hmat", "models/chair.hmat"),
            EntryKind::RawFile => ("scene/Level.json", "scene/Level.json"),
            EntryKind::Animation => ("models/chair.hanim", "models/chair.hanim"),
            EntryKind::Font => ("fonts/sans.hfont", "fonts/sans.hfont"),
            EntryKind::Audio => ("sfx/hit.wav", "sfx/hit.wav"),
            EntryKind::WgslShader => ("shaders/bloom/down.wgsl", "shaders/bloom/down.wgsl"),
        };
        ManifestEntry {
            hash: id_for_path(hashed),
            ..entry(path, kind, b"x")
        }
    }

    #[test]
    fn ids_follow_each_kinds_rule() {
        let problems =
            |e: ManifestEntry| validate(&write(&Manifest::from_entries(vec![e]).unwrap()).unwrap());
        // A shader hashes its ref without `.spv`, not its path.
        let mut shader = of_kind(EntryKind::Shader);
        shader.hash = id_for_path(&shader.path);
        assert!(problems(shader)
            .iter()
            .any(|p| p.message.contains("without .spv")));
        // A colour LUT is a .ktx2.
        let mut lut = of_kind(EntryKind::ColourLut);
        lut.path = "grade/warm.lut.cube".into();
        assert!(problems(lut)
            .iter()
            .any(|p| p.message.contains("does not end in .ktx2")));
        // A standalone texture hashing its full path (extension included) is wrong.
        let mut texture = of_kind(EntryKind::Texture);
        texture.hash = id_for_path(&texture.path);
        assert!(problems(texture)
            .iter()
            .any(|p| p.message.contains("texture path")));
        // Audio hashes its full path, like the by-path kinds.
        let mut audio = of_kind(EntryKind::Audio);
        audio.hash = id_for_path("sfx/hit");
        assert!(problems(audio)
            .iter()
            .any(|p| p.message.contains("is not fnv1a64")));
    }

    #[test]
    fn all_ten_kinds_round_trip_with_distinct_names() {
        let entries: Vec<ManifestEntry> = EntryKind::ALL.iter().map(|&k| of_kind(k)).collect();
        for (byte, kind) in EntryKind::ALL.iter().enumerate() {
            assert_eq!(*kind as u8 as usize, byte);
            assert_eq!(EntryKind::from_u8(byte as u8), Some(*kind));
        }
        assert_eq!(EntryKind::from_u8(10), None);
        let mut names: Vec<&str> = EntryKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 10);
        let m = Manifest::from_entries(entries).unwrap();
        for version in [1, 2] {
            let bytes = write_version(&m, version).unwrap();
            assert_eq!(validate(&bytes), vec![], "v{version}");
            let kinds: Vec<EntryKind> = read(&bytes)
                .unwrap()
                .entries()
                .iter()
                .map(|e| e.kind)
                .collect();
            let mut sorted = kinds.clone();
            sorted.sort();
            assert_eq!(sorted, EntryKind::ALL.to_vec(), "v{version}");
        }
    }

    #[test]
    fn every_prefix_is_refused_once() {
        let bytes = write(&sample()).unwrap();
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).is_err(), "prefix {n}");
            let problems = validate(&bytes[..n]);
            assert_eq!(problems.len(), 1, "prefix {n}: {problems:?}");
            // The offset is said once: in `offset`, not again in the message.
            assert!(
                !problems[0].message.starts_with("at byte"),
                "{}",
                problems[0]
            );
        }
    }

    /// The sample with one change made to its bytes.
    fn patched(at: usize, with: &[u8]) -> Vec<u8> {
        let mut b = write(&sample()).unwrap();
        b[at..at + with.len()].copy_from_slice(with);
        b
    }

    #[test]
    fn one_file_per_rule() {
        let first = 16usize; // the first entry (the texture: smallest hash)
        let bytes = write(&sample()).unwrap();
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (patched(0, b"XMAN"), "magic"),
            (patched(4, &3u32.to_le_bytes()), "version"),
            (patched(12, &1u32.to_le_bytes()), "reserved"),
            (patched(first + 8, &[10]), "kind 10 is unknown"),
            (patched(first + 9, &[2]), "colorspace 2"),
            (
                patched(first, &u64::MAX.to_le_bytes()),
                "sorted strictly ascending",
            ),
            (patched(first + 28, b"TEX"), "texture path"),
            (patched(first + 28, &[0xff]), "not valid UTF-8"),
            ([bytes.clone(), vec![0]].concat(), "follow the last entry"),
            (patched(8, &4u32.to_le_bytes()), "needs"),
        ];
        for (file, expect) in cases {
            let problems = validate(&file);
            assert!(
                problems.iter().any(|p| p.message.contains(expect)),
                "{expect}: {problems:?}"
            );
        }
        // A mesh entry whose hash is not the id of its path.
        let mut wrong = entry("models/chair.hmesh", EntryKind::Mesh, b"");
        wrong.hash = 7;
        let b = write(&Manifest::from_entries(vec![wrong]).unwrap()).unwrap();
        assert!(validate(&b)
            .iter()
            .any(|p| p.message.contains("is not fnv1a64")));
        // Bad paths.
        for (path, why) in [
            ("/abs.hmesh", "absolute"),
            ("a/../b.hmesh", "'..'"),
            ("a//b.hmesh", "empty component"),
            ("a\\b.hmesh", "'\\'"),
            ("c:/b.hmesh", "drive"),
        ] {
            let b =
                write(&Manifest::from_entries(vec![entry(path, EntryKind::Mesh, b"")]).unwrap())
                    .unwrap();
            assert!(
                validate(&b).iter().any(|p| p.message.contains(why)),
                "{path}: {:?}",
                validate(&b)
            );
        }
    }

    #[test]
    fn collisions_fail_and_duplicates_merge() {
        let a = entry("a.hmesh", EntryKind::Mesh, b"");
        let mut b = entry("b.hmesh", EntryKind::Mesh, b"");
        b.hash = a.hash;
        assert!(matches!(
            Manifest::from_entries(vec![a.clone(), b]),
            Err(HManError::Collision { .. })
        ));
        assert_eq!(
            Manifest::from_entries(vec![a.clone(), a])
                .unwrap()
                .entries()
                .len(),
            1
        );
    }

    proptest! {
        #[test]
        fn bit_flips_never_panic(bit in 0usize..(8 * 200)) {
            let mut b = write(&sample()).unwrap();
            let byte = bit / 8 % b.len();
            b[byte] ^= 1 << (bit % 8);
            let problems = validate(&b);
            // No flip goes unseen: either the manifest reads back different (a changed
            // hash, kind, size, digest or path) or the validator names a broken rule.
            if read(&b).ok() == Some(sample()) || read(&b).is_err() {
                prop_assert!(!problems.is_empty());
            }
        }
    }
}
