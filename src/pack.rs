//! `assetc pack`: SparkPak archives from folders and back, with SparkEngine's layering, and
//! the original assetc's `.hpack` bundle.
//!
//! Archive paths are the `/`-joined relative paths of the tree, in their case on disk [S2];
//! two that differ only in case are refused. Empty files are ordinary entries [S14]. Extraction
//! checks every path again, never follows a symlink out of the destination and writes each
//! file through a temporary sibling renamed into place. Reading commands tell the two formats
//! apart by their magic, so a renamed archive still opens as what it is.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use thiserror::Error;

use crate::formats::hman::{self, FileStamp};
use crate::formats::hpack::{self, HPackEntry, HPackError};
use crate::formats::spk::{self, check_path, Compression, PathFault, SpkError};
use crate::formats::Problem;

/// The archive formats `pack` writes and reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// SparkEngine's SparkPak (seed 004).
    Spk,
    /// The original assetc's single-file bundle.
    HPack,
}

impl ArchiveFormat {
    /// The format whose magic `bytes` start with, if either.
    pub fn of_magic(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(&spk::MAGIC) {
            Some(Self::Spk)
        } else if bytes.starts_with(&hpack::MAGIC.to_le_bytes()) {
            Some(Self::HPack)
        } else {
            None
        }
    }

    /// The format a file name asks for: `.hpack` (any case) is an `.hpack`, anything else
    /// SparkPak, the default.
    pub fn of_extension(path: &Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("hpack") => Self::HPack,
            _ => Self::Spk,
        }
    }

    /// What an archive read from `path` is: its magic decides; the extension only picks
    /// whose validator explains a file with neither magic.
    pub fn detect(path: &Path, bytes: &[u8]) -> Self {
        Self::of_magic(bytes).unwrap_or_else(|| Self::of_extension(path))
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Spk => "spk",
            Self::HPack => "hpack",
        }
    }
}

#[derive(Debug, Error)]
pub enum PackError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot be an archive path: {reason}")]
    InvalidPath { path: PathBuf, reason: String },
    #[error("{path}: symbolic links are not packed")]
    Symlink { path: PathBuf },
    #[error("{first} and {second} differ only in case; a case-insensitive file system (and SparkEngine's lookups [S2]) sees one file")]
    CaseClash { first: PathBuf, second: PathBuf },
    #[error("{dir}: no files to pack")]
    NothingToPack { dir: PathBuf },
    #[error("no file differs from the base {base}: the patch would be empty")]
    NothingChanged { base: PathBuf },
    #[error("{archive}: {source}")]
    Archive {
        archive: PathBuf,
        #[source]
        source: SpkError,
    },
    #[error("{0}")]
    Write(#[from] SpkError),
    #[error("{archive}: {source}")]
    HPackArchive {
        archive: PathBuf,
        #[source]
        source: HPackError,
    },
    #[error("{0}")]
    HPackWrite(#[from] HPackError),
    #[error(
        "a patch against a base archive is SparkPak-only; an .hpack has no layers to mount it on"
    )]
    BaseNeedsSpk,
    #[error("{count} archives given, and an .hpack has no layers: list one .hpack at a time")]
    HPackLayers { count: usize },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PackError + '_ {
    move |source| PackError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Reads every regular file under `dir` that belongs in a `format` archive as (archive
/// path, content), sorted by path.
fn collect_tree(dir: &Path, format: ArchiveFormat) -> Result<Vec<(String, Vec<u8>)>, PackError> {
    let mut files: BTreeMap<String, (PathBuf, Vec<u8>)> = BTreeMap::new();
    // Lower-cased archive path -> the file that took it, for [S2]'s case clash.
    let mut folded: BTreeMap<String, PathBuf> = BTreeMap::new();
    // A compiled tree's HTML build report (`build --report`) is for people, not the game.
    let report_dir = dir.join(crate::report::REPORT_DIR);
    let skip_report =
        dir.join(crate::output::MANIFEST_NAME).is_file() && report_dir.join("index.html").is_file();
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !(skip_report && e.path() == report_dir));
    for item in walker {
        let item = item.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_owned();
            PackError::Io {
                path,
                source: e.into(),
            }
        })?;
        let file_type = item.file_type();
        if file_type.is_dir() {
            continue;
        }
        if file_type.is_symlink() {
            return Err(PackError::Symlink {
                path: item.path().to_owned(),
            });
        }
        // The build cache and the source map are bookkeeping of the output folder, not
        // content to ship (nor an earlier release's cache, until the next build removes it).
        let name = item.file_name();
        let bookkeeping = [
            crate::output::CACHE_NAME,
            crate::output::LEGACY_CACHE_NAME,
            crate::output::SOURCE_MAP_NAME,
        ];
        if bookkeeping.iter().any(|b| name == *b) {
            continue;
        }
        // A pack inside the tree (an earlier one, or the one being written next to its
        // files) would be bundled into the next and grow it every time [spec: .hpack].
        if format == ArchiveFormat::HPack && is_pack_file(item.file_name()) {
            continue;
        }
        let archive_path = archive_path(dir, item.path(), format)?;
        let data = fs::read(item.path()).map_err(io_err(item.path()))?;
        let key = match format {
            ArchiveFormat::Spk => archive_path.to_ascii_lowercase(),
            ArchiveFormat::HPack => hpack::case_fold(&archive_path),
        };
        if let Some(first) = folded.insert(key, item.path().to_owned()) {
            return Err(PackError::CaseClash {
                first,
                second: item.path().to_owned(),
            });
        }
        files.insert(archive_path, (item.path().to_owned(), data));
    }
    if files.is_empty() {
        return Err(PackError::NothingToPack {
            dir: dir.to_owned(),
        });
    }
    Ok(files.into_iter().map(|(p, (_, d))| (p, d)).collect())
}

/// An `.hpack` or `.spk` by its name (any case).
fn is_pack_file(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy().to_ascii_lowercase();
    name.ends_with(".hpack") || name.ends_with(".spk")
}

/// `file` relative to `dir`, `/`-joined in its own case [S2], checked against [S7] for
/// SparkPak or against the `.hpack` path rules.
fn archive_path(dir: &Path, file: &Path, format: ArchiveFormat) -> Result<String, PackError> {
    let invalid = |reason: String| PackError::InvalidPath {
        path: file.to_owned(),
        reason,
    };
    let relative = file
        .strip_prefix(dir)
        .map_err(|_| invalid("outside the packed folder".into()))?;
    let mut parts = Vec::new();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            return Err(invalid("not a plain relative path".into()));
        };
        let part = part.to_str().ok_or_else(|| {
            invalid(match format {
                ArchiveFormat::Spk => PathFault::NonAscii(0x80).to_string(),
                ArchiveFormat::HPack => hpack::PathFault::NotUtf8.to_string(),
            })
        })?;
        parts.push(part);
    }
    let joined = parts.join("/");
    match format {
        ArchiveFormat::Spk => check_path(joined.as_bytes()).map_err(|f| invalid(f.to_string()))?,
        ArchiveFormat::HPack => {
            hpack::check_path(joined.as_bytes()).map_err(|f| invalid(f.to_string()))?
        }
    }
    Ok(joined)
}

fn read_archive(path: &Path) -> Result<Vec<u8>, PackError> {
    fs::read(path).map_err(io_err(path))
}

fn open_archive<'a>(path: &Path, bytes: &'a [u8]) -> Result<spk::SpkArchive<'a>, PackError> {
    spk::open(bytes).map_err(|source| PackError::Archive {
        archive: path.to_owned(),
        source,
    })
}

/// Packs `dir` into archive bytes; with `base`, only the files that are new or differ from
/// the base (a patch archive to mount after it). Warnings are dropped; see [`pack_tree`].
pub fn pack_dir(dir: &Path, base: Option<&Path>) -> Result<Vec<u8>, PackError> {
    pack_tree(dir, base).map(|p| p.bytes)
}

/// An archive and what its user should know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    pub bytes: Vec<u8>,
    /// One per empty file stored (SparkEngine's seed tells callers to treat an empty read
    /// as a failure [S14]) and one per base file the tree no longer has (a patch cannot
    /// delete it: the game keeps reading the base's copy).
    pub warnings: Vec<String>,
}

/// Packs `dir` into `.hpack` bytes: every file but the build cache, the HTML report of a
/// compiled tree and any pack (`.hpack`, `.spk`) below it, sorted by path.
pub fn pack_dir_hpack(dir: &Path) -> Result<Vec<u8>, PackError> {
    pack_tree_as(dir, ArchiveFormat::HPack, None).map(|p| p.bytes)
}

/// [`pack_tree`] in either format. `base` (a patch) is SparkPak-only: an `.hpack` has
/// no layers, so it is refused there.
pub fn pack_tree_as(
    dir: &Path,
    format: ArchiveFormat,
    base: Option<&Path>,
) -> Result<Packed, PackError> {
    match format {
        ArchiveFormat::Spk => pack_tree(dir, base),
        ArchiveFormat::HPack if base.is_some() => Err(PackError::BaseNeedsSpk),
        ArchiveFormat::HPack => {
            let entries: Vec<HPackEntry> = collect_tree(dir, format)?
                .into_iter()
                .map(|(path, data)| HPackEntry::new(path, data))
                .collect();
            // No warnings: the SDK reads empty entries like any other.
            Ok(Packed {
                bytes: hpack::write(&entries)?,
                warnings: Vec::new(),
            })
        }
    }
}

/// [`pack_dir`] with its warnings.
pub fn pack_tree(dir: &Path, base: Option<&Path>) -> Result<Packed, PackError> {
    let files = collect_tree(dir, ArchiveFormat::Spk)?;
    let mut warnings = Vec::new();
    let entries = match base {
        None => files,
        Some(base_path) => {
            let bytes = read_archive(base_path)?;
            let base = open_archive(base_path, &bytes)?;
            let plan = spk::plan_patch(&base, files);
            for path in &plan.not_removable {
                warnings.push(format!(
                    "{path}: in the base {} but not in {}; a patch archive cannot delete it, so the game still reads the base's copy",
                    base_path.display(),
                    dir.display()
                ));
            }
            if plan.entries.is_empty() {
                return Err(PackError::NothingChanged {
                    base: base_path.to_owned(),
                });
            }
            plan.entries
        }
    };
    for (path, data) in &entries {
        if data.is_empty() {
            warnings.push(format!(
                "{path}: empty file stored; SparkEngine's callers may treat an empty read as a missing file [S14]"
            ));
        }
    }
    let bytes = spk::write(&entries)?;
    Ok(Packed { bytes, warnings })
}

/// What `extract` did, entry by entry.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ExtractReport {
    /// Archive paths written, in TOC order.
    pub written: Vec<String>,
    /// (archive path, reason) for each entry not written.
    pub failed: Vec<(String, String)>,
}

/// Extracts every readable entry of `archive` (SparkPak or `.hpack`, by its magic) under
/// `dest` (created if needed). An archive that does not open is an error; an entry that
/// fails is reported and skipped.
pub fn extract(archive: &Path, dest: &Path) -> Result<ExtractReport, PackError> {
    let bytes = read_archive(archive)?;
    if ArchiveFormat::detect(archive, &bytes) == ArchiveFormat::HPack {
        return extract_hpack(archive, &bytes, dest);
    }
    let pak = open_archive(archive, &bytes)?;
    fs::create_dir_all(dest).map_err(io_err(dest))?;
    let mut report = ExtractReport::default();
    let stamps = manifest_stamps(&pak);
    // Lower-cased path -> the first entry with it: a second that differs only in case
    // would overwrite it on a case-insensitive file system [S2].
    let mut folded: BTreeMap<String, &str> = BTreeMap::new();
    for entry in pak.entries() {
        let outcome = check_path(entry.path.as_bytes())
            .map_err(|f| f.to_string())
            .and_then(|()| match folded.get(&entry.path.to_ascii_lowercase()) {
                Some(first) => Err(format!(
                    "differs only in case from {first}; on a case-insensitive file system it would overwrite it"
                )),
                None => Ok(()),
            })
            .and_then(|()| pak.read_entry(entry.index).map_err(|e| e.to_string()))
            .and_then(|data| match stamps.stamps.get(&entry.path) {
                Some(listed) => stamp_mismatch(&data, listed).map_or(Ok(data), Err),
                None => Ok(data),
            })
            .and_then(|data| write_inside(dest, &entry.path, &data).map_err(|e| e.to_string()));
        folded
            .entry(entry.path.to_ascii_lowercase())
            .or_insert(&entry.path);
        match outcome {
            Ok(()) => report.written.push(entry.path.clone()),
            Err(reason) => report.failed.push((entry.path.clone(), reason)),
        }
    }
    Ok(report)
}

/// The size and digest every `assets.hman` (version 2) in the archive lists for the files
/// beside and below it, by archive path. SparkPak keeps no checksum of an entry, but a
/// packed build carries its manifest, whose digests vouch for the entries it lists.
struct ManifestStamps {
    stamps: BTreeMap<String, FileStamp>,
    /// Manifests that could not be used, with why.
    unusable: Vec<(String, String)>,
}

fn manifest_stamps(pak: &spk::SpkArchive) -> ManifestStamps {
    let name = crate::output::MANIFEST_NAME;
    let mut out = ManifestStamps {
        stamps: BTreeMap::new(),
        unusable: Vec::new(),
    };
    for entry in pak.entries() {
        let folder = match entry.path.strip_suffix(name) {
            Some(prefix) if prefix.is_empty() || prefix.ends_with('/') => prefix,
            _ => continue,
        };
        let manifest = pak
            .read_entry(entry.index)
            .map_err(|e| e.to_string())
            .and_then(|bytes| hman::read(&bytes).map_err(|e| e.to_string()));
        match manifest {
            Ok(m) if m.version() < 2 => out
                .unusable
                .push((entry.path.clone(), "version 1 lists no digests".into())),
            Ok(m) => {
                for listed in m.entries() {
                    if let Some(stamp) = listed.file {
                        out.stamps
                            .entry(format!("{folder}{}", listed.path))
                            .or_insert(stamp);
                    }
                }
            }
            Err(reason) => out.unusable.push((entry.path.clone(), reason)),
        }
    }
    out
}

/// Why `data` is not the file `listed` describes, if it is not.
fn stamp_mismatch(data: &[u8], listed: &FileStamp) -> Option<String> {
    let actual = FileStamp::of(data);
    (actual != *listed).then(|| {
        format!(
            "content does not match the size and digest assets.hman lists ({} bytes, XXH3 \
             {:016x}; the entry holds {} bytes, XXH3 {:016x}): the entry (or the manifest) \
             was altered",
            listed.size, listed.digest, actual.size, actual.digest
        )
    })
}

fn open_hpack<'a>(path: &Path, bytes: &'a [u8]) -> Result<hpack::HPack<'a>, PackError> {
    hpack::read(bytes).map_err(|source| PackError::HPackArchive {
        archive: path.to_owned(),
        source,
    })
}

/// [`extract`] for an `.hpack`. Each path is checked against the `.hpack` rules, and an
/// entry equal up to case to one already written is refused rather than overwriting it
/// on a case-insensitive file system.
fn extract_hpack(archive: &Path, bytes: &[u8], dest: &Path) -> Result<ExtractReport, PackError> {
    let pack = open_hpack(archive, bytes)?;
    fs::create_dir_all(dest).map_err(io_err(dest))?;
    let mut report = ExtractReport::default();
    let mut folded: BTreeMap<String, &str> = BTreeMap::new();
    for entry in pack.entries() {
        let outcome = hpack::check_path(entry.path.as_bytes())
            .map_err(|f| f.to_string())
            .and_then(|()| match folded.get(&hpack::case_fold(&entry.path)) {
                Some(first) => Err(format!(
                    "differs only in case from {first}; on a case-insensitive file system it would overwrite it"
                )),
                None => Ok(()),
            })
            .and_then(|()| {
                pack.data(entry.index)
                    .ok_or_else(|| "payload outside the archive".to_string())
            })
            .and_then(|data| write_inside(dest, &entry.path, data).map_err(|e| e.to_string()));
        folded
            .entry(hpack::case_fold(&entry.path))
            .or_insert(&entry.path);
        match outcome {
            Ok(()) => report.written.push(entry.path.clone()),
            Err(reason) => report.failed.push((entry.path.clone(), reason)),
        }
    }
    Ok(report)
}

/// Writes `data` to `dest/archive_path` without leaving `dest`. The caller has checked the
/// path against its format's rules (relative, no `..`, no `\`); here every existing
/// component below `dest` must be a real directory, not a symlink.
fn write_inside(dest: &Path, archive_path: &str, data: &[u8]) -> Result<(), WriteInsideError> {
    let parts: Vec<&str> = archive_path.split('/').collect();
    let Some((file_name, dirs)) = parts.split_last() else {
        return Err(WriteInsideError::EmptyPath);
    };
    let mut dir = dest.to_path_buf();
    for part in dirs {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(WriteInsideError::Symlink(dir));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(WriteInsideError::NotAFolder(dir)),
            Err(_) => fs::create_dir(&dir).map_err(|source| WriteInsideError::Io {
                path: dir.clone(),
                source,
            })?,
        }
    }
    let target = dir.join(file_name);
    if let Ok(meta) = fs::symlink_metadata(&target) {
        if meta.is_dir() {
            return Err(WriteInsideError::AFolder(target));
        }
    }
    // Renaming over `target` replaces a symlink there rather than writing through it. A
    // long name gets a short temporary one: the name itself may use all 255 bytes.
    let temp_stem = if file_name.len() > 200 {
        format!(
            "{:016x}",
            crate::formats::hash::fnv1a64_raw(file_name.as_bytes())
        )
    } else {
        (*file_name).to_string()
    };
    let temp = dir.join(format!(".{temp_stem}.spk-part-{}", std::process::id()));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| {
            f.write_all(data)?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&temp, &target));
    written.map_err(|source| {
        let _ = fs::remove_file(&temp);
        WriteInsideError::Io {
            path: target,
            source,
        }
    })
}

/// Why an extracted entry is not written below the destination.
#[derive(Debug, thiserror::Error)]
enum WriteInsideError {
    #[error("empty path")]
    EmptyPath,
    #[error("{} is a symbolic link; refusing to follow it", .0.display())]
    Symlink(PathBuf),
    #[error("{} exists and is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("{} exists and is a folder", .0.display())]
    AFolder(PathBuf),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One path of `list`: its winning layer and that layer's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedEntry {
    pub path: String,
    /// Index into the archives given to `list` (mount order; the last one mounted wins).
    pub layer: usize,
    pub archive: PathBuf,
    pub original_size: u32,
    pub compressed_size: u32,
    pub compression: Compression,
    /// Earlier layers holding the same path, next fallback first.
    pub shadowed: Vec<usize>,
}

/// Every path across `archives` (in mount order) with the layer SparkEngine's VFS would
/// read it from, sorted by path.
pub fn list(archives: &[PathBuf]) -> Result<Vec<ListedEntry>, PackError> {
    let contents = archives
        .iter()
        .map(|p| read_archive(p))
        .collect::<Result<Vec<_>, _>>()?;
    let opened = archives
        .iter()
        .zip(&contents)
        .map(|(p, b)| open_archive(p, b))
        .collect::<Result<Vec<_>, _>>()?;
    let mut listed = Vec::new();
    for layered in spk::layer_paths(&opened) {
        let (Some(archive), Some(path)) =
            (opened.get(layered.winner), archives.get(layered.winner))
        else {
            continue;
        };
        let Some(entry) = archive
            .find(&layered.path)
            .and_then(|i| archive.entries().get(i))
        else {
            continue;
        };
        listed.push(ListedEntry {
            path: layered.path,
            layer: layered.winner,
            archive: path.clone(),
            original_size: entry.original_size,
            compressed_size: entry.compressed_size,
            compression: entry.compression,
            shadowed: layered.shadowed,
        });
    }
    Ok(listed)
}

/// One entry of an `.hpack`, as `pack list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HPackListed {
    pub path: String,
    pub size: u64,
    /// The stored kind byte ([`hpack::kind_name`] names it).
    pub kind: u8,
    pub offset: u64,
}

/// Every entry of the `.hpack` at `archive`, in table (path) order.
pub fn list_hpack(archive: &Path) -> Result<Vec<HPackListed>, PackError> {
    let bytes = read_archive(archive)?;
    let pack = open_hpack(archive, &bytes)?;
    Ok(pack
        .entries()
        .iter()
        .map(|e| HPackListed {
            path: e.path.clone(),
            size: e.size,
            kind: e.kind,
            offset: e.offset,
        })
        .collect())
}

/// What `pack list` shows: SparkPak layers, or the entries of one `.hpack`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    Layers(Vec<ListedEntry>),
    HPack(Vec<HPackListed>),
}

/// [`list`] for SparkPak archives, [`list_hpack`] for one `.hpack` (by magic). Several
/// archives with an `.hpack` among them are refused: an `.hpack` is not mounted in layers.
pub fn list_any(archives: &[PathBuf]) -> Result<Listing, PackError> {
    let mut any_hpack = false;
    for path in archives {
        let mut magic = Vec::with_capacity(4);
        fs::File::open(path)
            .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4), &mut magic))
            .map_err(io_err(path))?;
        any_hpack |= ArchiveFormat::detect(path, &magic) == ArchiveFormat::HPack;
    }
    match archives {
        [one] if any_hpack => list_hpack(one).map(Listing::HPack),
        _ if any_hpack => Err(PackError::HPackLayers {
            count: archives.len(),
        }),
        _ => list(archives).map(Listing::Layers),
    }
}

/// Every rule `archive` breaks (empty when valid), including unreadable entries. An
/// `.hpack` (by magic, else by extension) gets its validator, anything else SparkPak's.
pub fn check(archive: &Path) -> Vec<Problem> {
    check_archive(archive).problems
}

/// What `pack check` found, and how much of the content it could vouch for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArchiveCheck {
    pub problems: Vec<Problem>,
    /// Entries in the archive (0 when it does not open).
    pub entries: usize,
    /// Deflated entries: their zlib stream's Adler-32 and exact size catch a changed byte.
    pub deflated: usize,
    /// Stored entries whose size and XXH3 digest an `assets.hman` in the archive lists.
    pub stored_by_manifest: usize,
    /// Stored entries nothing vouches for (SparkPak keeps no checksum): a changed byte in
    /// them cannot be detected. Empty entries are not counted.
    pub stored_unverified: usize,
    /// Manifests that could not serve, with why.
    pub unusable_manifests: Vec<(String, String)>,
    /// An `.hpack`: the format keeps no checksums at all.
    pub hpack: bool,
}

/// [`check`] with the account of what could be verified: for SparkPak, every structural
/// rule and payload (see [`spk::validate`]), and each entry an `assets.hman` (version 2)
/// of the archive lists against its size and digest.
pub fn check_archive(archive: &Path) -> ArchiveCheck {
    let bytes = match fs::read(archive) {
        Ok(bytes) => bytes,
        Err(e) => {
            return ArchiveCheck {
                problems: vec![Problem::new(format!("{}: {e}", archive.display()))],
                ..ArchiveCheck::default()
            }
        }
    };
    if ArchiveFormat::detect(archive, &bytes) == ArchiveFormat::HPack {
        let entries = hpack::read(&bytes).map_or(0, |p| p.entries().len());
        return ArchiveCheck {
            problems: hpack::validate(&bytes),
            entries,
            hpack: true,
            ..ArchiveCheck::default()
        };
    }
    let mut report = ArchiveCheck {
        problems: spk::validate(&bytes),
        ..ArchiveCheck::default()
    };
    let Ok(pak) = spk::open(&bytes) else {
        return report;
    };
    let stamps = manifest_stamps(&pak);
    report.entries = pak.len();
    for entry in pak.entries() {
        let listed = stamps.stamps.get(&entry.path);
        match (entry.compression, listed) {
            (Compression::Deflate, _) => report.deflated += 1,
            (Compression::Stored, Some(_)) => report.stored_by_manifest += 1,
            (Compression::Stored, None) if entry.original_size > 0 => report.stored_unverified += 1,
            (Compression::Stored, None) => {}
        }
        let Some(listed) = listed else { continue };
        // An unreadable entry is already among the problems.
        if let Ok(data) = pak.read_entry(entry.index) {
            if let Some(reason) = stamp_mismatch(&data, listed) {
                report.problems.push(Problem::at(
                    entry.data_offset,
                    format!("entry {:?}: {reason}", entry.path),
                ));
            }
        }
    }
    report.unusable_manifests = stamps.unusable;
    report
}
