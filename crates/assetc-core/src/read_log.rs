//! What the compilers of a build read of their inputs, and the stamps that tell whether an
//! input changed since. Every reader of input files (the importers here, the driver's
//! standalone kinds) calls [`note_read`]; the build driver keeps one [`ReadLog`] per build
//! and records the stamps in its incremental cache. It lives in the core because the
//! importers are the readers: the driver above uses it, the core never reaches up to it.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The content hash of stamps: XXH3-64, `.hman` v2's file digest. It was FNV-1a,
/// which runs a byte at a time and was a visible share of a large build's CPU over the
/// input and outputs (docs/performance.md); the cache's version string changed with it.
pub fn content_hash(bytes: &[u8]) -> u64 {
    // The manifest takes these as its digests (the driver's manifest): one function for both.
    crate::formats::hman::FileStamp::of(bytes).digest
}

/// [`content_hash`] of a file, read in pieces: an input can be large (a 1M-triangle `.glb`
/// is 28 MB) and the importer reads it whole already.
pub fn file_hash(path: &Path) -> std::io::Result<u64> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; 256 * 1024];
    loop {
        match file.read(&mut buffer) {
            Ok(0) => return Ok(hasher.digest()),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// [`file_hash`] of a file; for a folder that is one source (a cubemap's `sky.env/`),
/// the hash of its sorted entry names, so that a face added, removed or renamed changes
/// it (the faces themselves are stamped as inputs of their own).
pub fn path_hash(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<u64> {
    if !meta.is_dir() {
        return file_hash(path);
    }
    let mut names: Vec<String> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    names.sort();
    Ok(content_hash(names.join("\n").as_bytes()))
}

/// What an output file held when it was written: enough to notice it changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputStamp {
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: u128,
    pub hash: u64,
}

impl InputStamp {
    /// A stamp that never matches: the source rebuilds next time.
    pub fn unknown(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            size: u64::MAX,
            mtime_ns: 0,
            hash: 0,
        }
    }

    pub fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            hash: path_hash(path, &meta)?,
        })
    }

    /// Whether the file still holds what was stamped: size and time, else its content.
    pub fn still_matches(&self) -> Option<InputStamp> {
        self.refreshed()
            .map(|moved| moved.unwrap_or_else(|| self.clone()))
    }

    /// [`InputStamp::still_matches`] without a copy of an unchanged stamp: `None` when
    /// the file changed, `Some(None)` when it is as stamped, `Some(Some(stamp))` when it
    /// holds the same bytes with another time.
    pub fn refreshed(&self) -> Option<Option<InputStamp>> {
        let meta = std::fs::metadata(&self.path).ok()?;
        if meta.len() != self.size {
            return None;
        }
        if mtime_ns(&meta) == self.mtime_ns {
            return Some(None);
        }
        (path_hash(&self.path, &meta).ok()? == self.hash).then(|| {
            Some(InputStamp {
                mtime_ns: mtime_ns(&meta),
                ..self.clone()
            })
        })
    }
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// What the compilers of a build read of each input: the stamp of the bytes read (their
/// size and content hash, and the file's time taken just before the read), or `None`
/// when one file was read twice with different bytes. An input first seen by a build (a
/// model's buffers and images on its first build) is stamped with what was read, not
/// with what the file holds once every asset is compiled: an image saved meanwhile is
/// then never recorded as fresh against outputs made from its old bytes.
///
/// The readers (`import`, `kinds`, the image loader) call [`note_read`]; it records into
/// every log alive in the process, so a log sees the reads of the build that holds it
/// (and those of a concurrent build in the same process, which can only turn a stamp
/// into "rebuild next time").
#[derive(Debug, Default)]
pub struct ReadLog {
    reads: std::sync::Mutex<std::collections::HashMap<PathBuf, Option<InputStamp>>>,
}

static READ_LOGS: std::sync::Mutex<Vec<std::sync::Weak<ReadLog>>> =
    std::sync::Mutex::new(Vec::new());

impl ReadLog {
    /// A log that records every read from now until it is dropped.
    pub fn start() -> std::sync::Arc<ReadLog> {
        let log = std::sync::Arc::new(ReadLog::default());
        let mut logs = READ_LOGS.lock().unwrap_or_else(|e| e.into_inner());
        logs.retain(|l| l.strong_count() > 0);
        logs.push(std::sync::Arc::downgrade(&log));
        log
    }

    /// What was read of `path`: `None` when it was not read, `Some(None)` when it was
    /// read with different bytes at different times.
    pub fn read(&self, path: &Path) -> Option<Option<InputStamp>> {
        self.reads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
            .cloned()
    }

    fn note(&self, stamp: &InputStamp) {
        let mut reads = self.reads.lock().unwrap_or_else(|e| e.into_inner());
        match reads.get_mut(&stamp.path) {
            None => {
                reads.insert(stamp.path.clone(), Some(stamp.clone()));
            }
            Some(Some(seen)) if (seen.size, seen.hash) == (stamp.size, stamp.hash) => {}
            Some(seen) => *seen = None,
        }
    }
}

/// Records that `bytes` were read from the input `path`, whose metadata `meta` was taken
/// before the read, in every live [`ReadLog`].
pub fn note_read(path: &Path, meta: &std::fs::Metadata, bytes: &[u8]) {
    let logs: Vec<_> = {
        let logs = READ_LOGS.lock().unwrap_or_else(|e| e.into_inner());
        logs.iter().filter_map(std::sync::Weak::upgrade).collect()
    };
    if logs.is_empty() {
        return;
    }
    let stamp = InputStamp {
        path: path.to_path_buf(),
        size: bytes.len() as u64,
        mtime_ns: mtime_ns(meta),
        hash: content_hash(bytes),
    };
    for log in logs {
        log.note(&stamp);
    }
}
