//! The shared remote cache (`--remote-cache URL`, `[cache] remote`): outputs built on one
//! machine are fetched by every other one that builds the same source with the same
//! settings and compiler.
//!
//! On the server, below the URL's root (see [`key`]):
//! - `assetc/v1/deps/<source key>.json`: the other files the source read;
//! - `assetc/v1/rec/<content key>.json`: the asset's files (path, size, digest), manifest
//!   entries, warnings and figures;
//! - `assetc/v1/blob/<ab>/<digest>`: each output file once, named by its xxh3-128.
//!
//! A hit fetches every blob and checks its size, digest and format before anything is
//! written; anything missing or wrong is a miss, and the asset is built and uploaded
//! again. Uploads put the blobs first and the records last, so a reader never finds a
//! record whose blobs are not there yet. The remote is never needed: the first error
//! other than "not found" (server down, timeout, refused write) is reported once and the
//! rest of the build runs without it.

mod key;
mod record;

pub use key::Digest;
pub use record::{OutputRecord, StoredFile};

use super::cache::{is_plain_relative, AssetRecord, InputStamp};
use super::discover::Source;
use super::events::{Event, Reporter};
use crate::kinds::asset::AssetSettings;
use crate::remote_store::{self as store, Bounded, Store, StoreError};
use key::{blob_path, content_key, deps_path, record_path};
use record::DepsRecord;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// How a build uses the remote cache is one of its options.
pub use crate::options::remote::{check_url, RemoteMode, DEFAULT_MAX_BLOB_BYTES};

/// The largest deps or output record read (a real one is a few kilobytes): a server may
/// answer anything, and a record is parsed whole.
pub const MAX_RECORD_BYTES: u64 = 16 << 20;

/// The first-level key of a source and the stamp of the read that made it.
#[derive(Debug, Clone)]
pub struct SourceKey {
    pub key: Digest,
    pub stamp: InputStamp,
}

/// Reads the source once and keys it; `None` when it cannot be read (the local build
/// reports why).
pub fn source_key(settings: &AssetSettings, source: &Source) -> Option<SourceKey> {
    let stamp = InputStamp::of(&source.abs_path).ok()?;
    // Taken before the outputs are known: every table the kind may read, the shared
    // textures' included.
    let text = crate::kinds::key::key_text(crate::kinds::kind(source.kind), settings).whole();
    Some(SourceKey {
        key: key::source_key(&text, &source.rel_path, &stamp),
        stamp,
    })
}

/// An asset served by the remote cache, checked and ready to write.
#[derive(Debug)]
pub struct Fetched {
    /// Output files (relative to the output root) and their bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Warnings with this machine's path of the source.
    pub record: OutputRecord,
    /// Stamps of every input, the source first, for the local cache.
    pub inputs: Vec<InputStamp>,
}

/// One build's connection to the remote cache.
pub struct RemoteCache {
    store: Store,
    /// The URL as printed (no secrets).
    shown: String,
    mode: RemoteMode,
    /// The largest blob fetched (`[cache] max_blob_bytes`).
    max_blob_bytes: u64,
    off: AtomicBool,
    fetched_bytes: AtomicU64,
    uploaded_bytes: AtomicU64,
    /// Textures fetched by this build (the only files assets share): each crosses the
    /// network once.
    blobs: Mutex<HashMap<Digest, Vec<u8>>>,
    /// Blobs uploaded by this build.
    uploaded: Mutex<HashSet<Digest>>,
}

/// Why a lookup did not give an asset.
enum Miss {
    /// Not stored (or not for these inputs): normal.
    Absent,
    /// Stored but wrong: said once, then rebuilt and uploaded again.
    Damaged(String),
    Failed(StoreError),
}

impl From<StoreError> for Miss {
    fn from(e: StoreError) -> Self {
        Miss::Failed(e)
    }
}

impl RemoteCache {
    /// Connects (lazily: most services only talk on the first call). A failure is
    /// reported as a warning and the build runs without the remote.
    pub fn open(
        url: &str,
        mode: RemoteMode,
        max_blob_bytes: u64,
        reporter: &dyn Reporter,
    ) -> Option<RemoteCache> {
        let shown = store::redacted(url);
        match Store::open(url) {
            Ok(store) => Some(RemoteCache {
                store,
                shown,
                mode,
                max_blob_bytes,
                off: AtomicBool::new(false),
                fetched_bytes: AtomicU64::new(0),
                uploaded_bytes: AtomicU64::new(0),
                blobs: Mutex::new(HashMap::new()),
                uploaded: Mutex::new(HashSet::new()),
            }),
            Err(e) => {
                reporter.event(&Event::RemoteWarning {
                    remote: shown,
                    message: format!("{e}; building without it"),
                });
                None
            }
        }
    }

    pub fn fetched_bytes(&self) -> u64 {
        self.fetched_bytes.load(Ordering::Relaxed)
    }
    pub fn uploaded_bytes(&self) -> u64 {
        self.uploaded_bytes.load(Ordering::Relaxed)
    }

    fn is_off(&self) -> bool {
        self.off.load(Ordering::Relaxed)
    }

    /// The first failure turns the remote off for the rest of the build, with one
    /// warning; later failures of calls already under way say nothing.
    fn failed(&self, error: StoreError, reporter: &dyn Reporter) {
        if !self.off.swap(true, Ordering::SeqCst) {
            reporter.event(&Event::RemoteWarning {
                remote: self.shown.clone(),
                message: format!("{error}; the rest of this build does not use the remote cache"),
            });
        }
    }

    /// The asset of `source` from the remote cache, when every part of it is there and
    /// sound.
    /// Says that a fetched asset is not used after all (its record conflicts with another
    /// asset of this build, or with what is on disk): one warning, and it is built here.
    pub fn refuse(&self, source: &Source, why: &str, reporter: &dyn Reporter) {
        reporter.event(&Event::RemoteWarning {
            remote: self.shown.clone(),
            message: format!(
                "{}: {}; building it here",
                source.rel_path,
                record::escaped(why)
            ),
        });
    }

    pub fn fetch(
        &self,
        key: &SourceKey,
        source: &Source,
        root: &Path,
        reporter: &dyn Reporter,
    ) -> Option<Fetched> {
        if !self.mode.reads() || self.is_off() {
            return None;
        }
        match self.try_fetch(key, root) {
            Ok(fetched) => Some(fetched),
            Err(Miss::Absent) => None,
            Err(Miss::Damaged(what)) => {
                reporter.event(&Event::RemoteWarning {
                    remote: self.shown.clone(),
                    message: format!("{}: {what}; building it here", source.rel_path),
                });
                None
            }
            Err(Miss::Failed(e)) => {
                self.failed(e, reporter);
                None
            }
        }
    }

    fn try_fetch(&self, key: &SourceKey, root: &Path) -> Result<Fetched, Miss> {
        let deps: DepsRecord = self.get_json(&deps_path(key.key))?;
        let mut inputs = vec![key.stamp.clone()];
        let mut keyed = Vec::new();
        // The importer never reads outside the input root (it refuses symlinks leading
        // out): nor does a lookup, whatever a record lists.
        let real_root = std::fs::canonicalize(root).map_err(|_| Miss::Absent)?;
        for rel in &deps.inputs {
            if !is_plain_relative(rel) || rel.contains('\\') || rel.chars().any(char::is_control) {
                return Err(Miss::Damaged(format!(
                    "its record names `{}`",
                    record::escaped(rel)
                )));
            }
            // An input missing here: this machine's sources differ; build and see.
            let real = std::fs::canonicalize(root.join(rel)).map_err(|_| Miss::Absent)?;
            if !real.starts_with(&real_root) {
                return Err(Miss::Damaged(format!(
                    "its record lists the input `{rel}`, which leads outside the input root"
                )));
            }
            // Only files and folders (a cubemap's faces) are inputs: a FIFO or a device
            // would block or never end when hashed.
            match std::fs::metadata(&real) {
                Ok(m) if m.is_file() || m.is_dir() => {}
                _ => {
                    return Err(Miss::Damaged(format!(
                        "its record lists the input `{rel}`, which is not a file"
                    )))
                }
            }
            let stamp = InputStamp::of(&root.join(rel)).map_err(|_| Miss::Absent)?;
            keyed.push((rel.as_str(), stamp.clone()));
            inputs.push(stamp);
        }
        let content = content_key(key.key, keyed.iter().map(|(r, s)| (*r, s)));
        let mut record: OutputRecord = self.get_json(&record_path(content))?;
        if let Some(problem) = record.problem(self.max_blob_bytes) {
            return Err(Miss::Damaged(format!("its record is malformed: {problem}")));
        }
        let mut files = Vec::with_capacity(record.files.len());
        for file in &record.files {
            let bytes = self.fetch_blob(file)?;
            files.push((file.path.clone(), bytes));
        }
        // The asset as a whole, by the rules `assetc check` applies to a tree, before any
        // of its files is written.
        let entries: Vec<_> = record
            .manifest
            .iter()
            .filter_map(super::cache::CachedEntry::to_entry)
            .collect();
        let problems = super::check::asset_problems(&files, &entries);
        if let Some(first) = problems.first() {
            return Err(Miss::Damaged(format!(
                "its files do not make a valid asset: {}",
                record::escaped(&first.to_string())
            )));
        }
        record.warnings = record::local_warnings(&record.warnings);
        inputs.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Fetched {
            files,
            record,
            inputs,
        })
    }

    /// A record, at most [`MAX_RECORD_BYTES`] of it.
    fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, Miss> {
        let bytes = match self.store.get_bounded(path, MAX_RECORD_BYTES)? {
            None => return Err(Miss::Absent),
            Some(Bounded::Whole(bytes)) => bytes,
            Some(Bounded::TooLarge) => {
                return Err(Miss::Damaged(format!(
                    "{path} is larger than {MAX_RECORD_BYTES} bytes"
                )))
            }
            Some(Bounded::TooSlow) => {
                return Err(Miss::Damaged(format!("{path} arrives too slowly")))
            }
        };
        self.fetched_bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        serde_json::from_slice(&bytes).map_err(|e| Miss::Damaged(format!("{path}: {e}")))
    }

    /// A blob, checked: its size, its digest, and its format's validator. At most the
    /// size the record declares is read (itself at most `max_blob_bytes`).
    fn fetch_blob(&self, file: &StoredFile) -> Result<Vec<u8>, Miss> {
        let digest = file.digest().ok_or(Miss::Absent)?;
        if let Some(bytes) = lock(&self.blobs).get(&digest) {
            return Ok(bytes.clone());
        }
        let path = blob_path(digest);
        let mismatch = || {
            Miss::Damaged(format!(
                "blob {path} of {} does not hold what was stored (digest mismatch)",
                file.path
            ))
        };
        let bytes = match self.store.get_bounded(&path, file.size)? {
            None => return Err(Miss::Absent),
            Some(Bounded::Whole(bytes)) => bytes,
            Some(Bounded::TooLarge) => return Err(mismatch()),
            Some(Bounded::TooSlow) => {
                return Err(Miss::Damaged(format!(
                    "blob {path} of {} arrives too slowly",
                    file.path
                )))
            }
        };
        self.fetched_bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if bytes.len() as u64 != file.size || Digest::of(&bytes) != digest {
            return Err(mismatch());
        }
        super::guard::check_output(&file.path, &bytes).map_err(|e| Miss::Damaged(e.to_string()))?;
        if file.path.starts_with("tex/") {
            lock(&self.blobs).insert(digest, bytes.clone());
        }
        Ok(bytes)
    }

    /// Publishes a freshly built asset: its blobs, then the list of its inputs, then its
    /// record. Assets whose inputs changed while building, or lie outside the input root,
    /// are not published.
    pub fn upload(
        &self,
        key: &SourceKey,
        source: &Source,
        root: &Path,
        files: &[(String, &[u8])],
        local: &AssetRecord,
        reporter: &dyn Reporter,
    ) {
        if !self.mode.writes() || self.is_off() {
            return;
        }
        let Some(deps) = portable_inputs(key, source, root, local) else {
            return;
        };
        let content = content_key(key.key, deps.iter().map(|(r, s)| (r.as_str(), *s)));
        let record = OutputRecord {
            files: files.iter().map(|(p, b)| StoredFile::of(p, b)).collect(),
            manifest: local.manifest.clone(),
            warnings: local.warnings.clone(),
            stats: local.stats.clone(),
        };
        let deps_record = DepsRecord {
            inputs: deps.iter().map(|(r, _)| r.clone()).collect(),
        };
        if let Err(e) = self.try_upload(files, &record, key.key, &deps_record, content) {
            self.failed(e, reporter);
        }
    }

    fn try_upload(
        &self,
        files: &[(String, &[u8])],
        record: &OutputRecord,
        source_key: Digest,
        deps: &DepsRecord,
        content: Digest,
    ) -> Result<(), StoreError> {
        for (_, bytes) in files {
            let digest = Digest::of(bytes);
            if lock(&self.uploaded).contains(&digest) {
                continue;
            }
            self.put(&blob_path(digest), bytes.to_vec())?;
            lock(&self.uploaded).insert(digest);
        }
        self.put(&deps_path(source_key), to_json(deps))?;
        self.put(&record_path(content), to_json(record))?;
        Ok(())
    }

    fn put(&self, path: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let n = bytes.len() as u64;
        self.store.put(path, bytes)?;
        self.uploaded_bytes.fetch_add(n, Ordering::Relaxed);
        Ok(())
    }
}

/// A record as JSON bytes (serialising these plain structs cannot fail).
fn to_json(value: &impl serde::Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The inputs other than the source, as paths below the input root with their stamps,
/// sorted; `None` when the asset cannot be shared: an input changed while it was built
/// (or since the source was keyed), or lies outside the root.
fn portable_inputs<'a>(
    key: &SourceKey,
    source: &Source,
    root: &Path,
    local: &'a AssetRecord,
) -> Option<Vec<(String, &'a InputStamp)>> {
    let mut deps = Vec::new();
    let mut saw_source = false;
    for stamp in &local.inputs {
        if stamp.size == InputStamp::unknown(&stamp.path).size {
            return None;
        }
        if stamp.path == source.abs_path {
            if (stamp.size, stamp.hash) != (key.stamp.size, key.stamp.hash) {
                return None;
            }
            saw_source = true;
            continue;
        }
        deps.push((below_root(&stamp.path, root)?, stamp));
    }
    deps.sort_by(|a, b| a.0.cmp(&b.0));
    saw_source.then_some(deps)
}

/// `path` below the input root, named as [`relative_to`] does. Input stamps carry absolute
/// paths with `..` resolved by name (symlinks kept) or real paths, while the root is kept as
/// the user spelled it (`../assets`): the root as spelled, with `..` resolved by name, and
/// its real path are tried in turn. (A root spelled with `..` through a symlinked folder
/// matched neither spelling of its inputs: such multi-file models were never uploaded.)
fn below_root(path: &Path, root: &Path) -> Option<String> {
    relative_to(path, root)
        .or_else(|| relative_to(path, &crate::driver::discover::normalized_absolute(root)))
        .or_else(|| relative_to(path, &std::fs::canonicalize(root).ok()?))
}

/// `path` below `root`, `/`-separated, with `.` and `..` resolved by name.
fn relative_to(path: &Path, root: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?.to_string()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_say_what_they_do() {
        assert_eq!("read".parse(), Ok(RemoteMode::Read));
        assert!(RemoteMode::Read.reads() && !RemoteMode::Read.writes());
        assert!(!RemoteMode::Write.reads() && RemoteMode::Write.writes());
        assert!(RemoteMode::ReadWrite.reads() && RemoteMode::ReadWrite.writes());
        assert!("rw".parse::<RemoteMode>().is_err());
    }

    #[test]
    fn inputs_are_named_below_the_root_by_name_only() {
        let root = Path::new("/in");
        assert_eq!(
            relative_to(Path::new("/in/a/../b/./c.png"), root).as_deref(),
            Some("b/c.png")
        );
        assert_eq!(relative_to(Path::new("/in/../x.png"), root), None);
        assert_eq!(relative_to(Path::new("/elsewhere/x.png"), root), None);
    }

    #[test]
    fn a_root_spelled_with_dot_dot_still_names_real_input_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("in/tex")).unwrap();
        let real = std::fs::canonicalize(dir.path().join("in")).unwrap();
        let spelled = dir.path().join("in/tex/../../in");
        assert_eq!(relative_to(&real.join("tex/a.png"), &spelled), None);
        assert_eq!(
            below_root(&real.join("tex/a.png"), &spelled).as_deref(),
            Some("tex/a.png")
        );
        assert_eq!(below_root(&dir.path().join("x.png"), &spelled), None);
    }

    #[test]
    fn a_root_spelled_with_dot_dot_through_a_symlink_names_its_inputs() {
        // `checkout/../shared/in` where `shared` is a link: the importer names inputs
        // `.../shared/in/...` (`..` resolved by name, the link kept), which is neither
        // below the root as spelled nor below its real path.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("real/in/tex")).unwrap();
        std::fs::create_dir_all(dir.path().join("checkout")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("shared")).unwrap();
        let spelled = dir.path().join("checkout/../shared/in");
        let input = dir.path().join("shared/in/tex/a.png");
        assert_eq!(relative_to(&input, &spelled), None);
        assert_eq!(below_root(&input, &spelled).as_deref(), Some("tex/a.png"));
    }
}
