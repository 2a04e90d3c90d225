//! `assetc pack`: SparkPak archives from folders and back, with SparkEngine's layering.
//!
//! Archive paths are the `/`-joined relative paths of the tree, in their case on disk [S2];
//! two that differ only in case are refused. Empty files are ordinary entries [S14]. Extraction
//! checks every path again, never follows a symlink out of the destination and writes each
//! file through a temporary sibling renamed into place.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use thiserror::Error;

use crate::formats::spk::{self, check_path, Compression, PathFault, SpkError};
use crate::formats::Problem;

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
    #[error("{first} and {second} differ only in case; SparkEngine may look paths up case-insensitively [S2]")]
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
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> PackError + '_ {
    move |source| PackError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Reads every regular file under `dir` as (archive path, content), sorted by path.
fn collect_tree(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, PackError> {
    let mut files: BTreeMap<String, (PathBuf, Vec<u8>)> = BTreeMap::new();
    // Lower-cased archive path -> the file that took it, for [S2]'s case clash.
    let mut folded: BTreeMap<String, PathBuf> = BTreeMap::new();
    // A compiled tree's HTML build report (`build --report`) is for people, not the game.
    let report_dir = dir.join(crate::report::REPORT_DIR);
    let skip_report = dir.join(crate::build::manifest::MANIFEST_NAME).is_file()
        && report_dir.join("index.html").is_file();
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
        // The build cache is bookkeeping of the output folder, not content to ship.
        if item.file_name() == crate::build::cache::CACHE_NAME {
            continue;
        }
        let archive_path = archive_path(dir, item.path())?;
        let data = fs::read(item.path()).map_err(io_err(item.path()))?;
        if let Some(first) =
            folded.insert(archive_path.to_ascii_lowercase(), item.path().to_owned())
        {
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

/// `file` relative to `dir`, `/`-joined in its own case [S2], checked against [S7].
fn archive_path(dir: &Path, file: &Path) -> Result<String, PackError> {
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
        let part = part
            .to_str()
            .ok_or_else(|| invalid(PathFault::NonAscii(0x80).to_string()))?;
        parts.push(part);
    }
    let joined = parts.join("/");
    check_path(joined.as_bytes()).map_err(|fault| invalid(fault.to_string()))?;
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

/// [`pack_dir`] with its warnings.
pub fn pack_tree(dir: &Path, base: Option<&Path>) -> Result<Packed, PackError> {
    let files = collect_tree(dir)?;
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

/// Extracts every readable entry of `archive` under `dest` (created if needed). An archive
/// that does not open is an error; an entry that fails is reported and skipped.
pub fn extract(archive: &Path, dest: &Path) -> Result<ExtractReport, PackError> {
    let bytes = read_archive(archive)?;
    let pak = open_archive(archive, &bytes)?;
    fs::create_dir_all(dest).map_err(io_err(dest))?;
    let mut report = ExtractReport::default();
    for entry in pak.entries() {
        let outcome = pak
            .read_entry(entry.index)
            .map_err(|e| e.to_string())
            .and_then(|data| write_inside(dest, &entry.path, &data));
        match outcome {
            Ok(()) => report.written.push(entry.path.clone()),
            Err(reason) => report.failed.push((entry.path.clone(), reason)),
        }
    }
    Ok(report)
}

/// Writes `data` to `dest/archive_path` without leaving `dest`: the path is re-checked,
/// and every existing component below `dest` must be a real directory, not a symlink.
fn write_inside(dest: &Path, archive_path: &str, data: &[u8]) -> Result<(), String> {
    check_path(archive_path.as_bytes()).map_err(|f| f.to_string())?;
    let parts: Vec<&str> = archive_path.split('/').collect();
    let Some((file_name, dirs)) = parts.split_last() else {
        return Err("empty path".into());
    };
    let mut dir = dest.to_path_buf();
    for part in dirs {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symbolic link; refusing to follow it",
                    dir.display()
                ));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => return Err(format!("{} exists and is not a folder", dir.display())),
            Err(_) => fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?,
        }
    }
    let target = dir.join(file_name);
    if let Ok(meta) = fs::symlink_metadata(&target) {
        if meta.is_dir() {
            return Err(format!("{} exists and is a folder", target.display()));
        }
    }
    // Renaming over `target` replaces a symlink there rather than writing through it.
    let temp = dir.join(format!(".{file_name}.spk-part-{}", std::process::id()));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| {
            f.write_all(data)?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&temp, &target));
    written.map_err(|e| {
        let _ = fs::remove_file(&temp);
        format!("{}: {e}", target.display())
    })
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

/// Every rule `archive` breaks (empty when valid), including unreadable entries.
pub fn check(archive: &Path) -> Vec<Problem> {
    match fs::read(archive) {
        Ok(bytes) => spk::validate(&bytes),
        Err(e) => vec![Problem::new(format!("{}: {e}", archive.display()))],
    }
}
