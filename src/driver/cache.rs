//! The incremental-build cache: one record per source, kept in the output folder.
//!
//! The file is [`CACHE_HEADER`] then the [`Cache`] in postcard's serde encoding: a no-op
//! rebuild reads it whole before anything else, and JSON's parse of a 1,000-source tree's
//! 0.9 MB was the largest serial share of that rebuild (docs/performance.md).
//!
//! The cache describes exactly what is on disk:
//! - a source is fresh when its settings and the compiler (its source hash, not only the
//!   package version) are unchanged, every input is unchanged (size and modification time
//!   first, content hashes only when those moved), and every output is a file the cache
//!   vouches for and still holds what was written;
//! - inputs are stamped before they are imported, so a file saved during a build is seen
//!   as changed by the next one; inputs a build sees for the first time are stamped with
//!   the bytes its compile read ([`ReadLog`]), never with what they hold afterwards;
//! - before a build writes anything it saves an *intent*: the records of the sources it
//!   rebuilds are dropped and every path it is about to write is listed as pending. A build
//!   killed while writing thus leaves a cache that vouches only for untouched files, and the
//!   next build removes the pending files it does not produce itself.

use crate::code::Warning;
use crate::formats::hash::{fnv1a64_raw, fnv1a64_raw_continue};
use crate::formats::hman::{EntryKind, ManifestEntry};
pub use crate::kinds::key::SettingsKey;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use assetc_core::read_log::{content_hash, file_hash, mtime_ns};
pub use assetc_core::read_log::{note_read, InputStamp, ReadLog};

pub use crate::output::{CACHE_NAME, LEGACY_CACHE_NAME};

/// The first bytes of a cache file, ending in the layout of what follows: a cache of
/// another layout is not decoded (postcard's encoding carries no field names, so a
/// changed struct would decode as garbage instead of failing). Bump the number whenever
/// [`Cache`] or a type in it changes shape.
pub const CACHE_HEADER: &[u8] = b"assetc cache 6\n";

/// Changes whenever output bytes could change for the same inputs and settings: the
/// package version and a hash of the compiler's own sources taken at build time
/// (`build.rs`), so a rebuilt compiler never trusts outputs of another one.
pub const ENCODER_VERSION: &str = concat!(
    "assetc ",
    env!("CARGO_PKG_VERSION"),
    " source ",
    env!("ASSETC_SOURCE_HASH"),
    " cache 5"
);

/// Each output of a record with its stamp, as a freshness check refreshed them.
pub type OutputStamps = Vec<(String, FileStamp)>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: u128,
    pub hash: u64,
}

impl FileStamp {
    /// The stamp of a file just written with `bytes`.
    pub fn written(path: &Path, bytes: &[u8]) -> std::io::Result<Self> {
        Self::written_hashed(path, content_hash(bytes))
    }

    /// [`FileStamp::written`] with the content hash of the bytes already worked out.
    pub fn written_hashed(path: &Path, hash: u64) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        Ok(Self {
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            hash,
        })
    }

    /// Whether `path` still holds what was stamped (size and time, else its content);
    /// returns the stamp with the current time.
    pub fn check(&self, path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() != self.size {
            return None;
        }
        if mtime_ns(&meta) == self.mtime_ns {
            return Some(*self);
        }
        (file_hash(path).ok()? == self.hash).then(|| FileStamp {
            mtime_ns: mtime_ns(&meta),
            ..*self
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedEntry {
    pub hash: u64,
    pub kind: u8,
    pub srgb: bool,
    pub path: String,
}

impl CachedEntry {
    pub fn from_entry(e: &ManifestEntry) -> Self {
        Self {
            hash: e.hash,
            kind: e.kind as u8,
            srgb: e.srgb,
            path: e.path.clone(),
        }
    }
    pub fn to_entry(&self) -> Option<ManifestEntry> {
        let kind = EntryKind::from_u8(self.kind)?;
        Some(ManifestEntry {
            hash: self.hash,
            kind,
            srgb: self.srgb,
            path: self.path.clone(),
            file: None,
        })
    }
}

/// What the cache remembers of one source's last successful build. Held in an [`Arc`]:
/// a fresh source's record passes from the loaded cache to the new one as it is (no
/// copy), and comparing two caches that share their records compares pointers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetRecord {
    pub settings_hash: u64,
    pub inputs: Vec<InputStamp>,
    /// Output files relative to the output root, textures included.
    pub outputs: Vec<String>,
    pub manifest: Vec<CachedEntry>,
    #[serde(with = "cached_warnings")]
    pub warnings: Vec<Warning>,
    pub stats: crate::kinds::asset::AssetStats,
    /// Wall time of the compile that made these outputs, in microseconds (0 when fetched
    /// from a remote cache): the report of a later no-op build shows it. (Absent from an
    /// earlier release's JSON cache.)
    #[serde(default)]
    pub build_us: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub encoder: String,
    /// Keyed by the source's path relative to the input root.
    pub assets: BTreeMap<String, Arc<AssetRecord>>,
    /// Output files (relative to the output root) the cache vouches for, stamped after
    /// they were renamed into place.
    #[serde(default)]
    pub files: BTreeMap<String, FileStamp>,
    /// Paths a build was about to write when it saved this cache; a build killed while
    /// writing leaves them here for the next build to remove unless it produces them.
    #[serde(default)]
    pub pending: BTreeSet<String>,
    /// The manifest the build that saved this cache left in place, when it wrote one.
    #[serde(default)]
    pub manifest: Option<ManifestStamp>,
}

/// What `assets.hman` held when a build wrote it (or found it holding those bytes), and
/// the manifest version it was written in: a build whose records and output stamps are
/// those of the last one need not make it again while it still holds this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestStamp {
    pub version: u32,
    pub stamp: FileStamp,
}

impl Cache {
    /// Loads the cache of an output folder; a missing, unreadable or foreign-version cache
    /// is an empty one (everything rebuilds).
    pub fn load(output: &Path) -> Cache {
        let c = Cache::load_any(output);
        if c.encoder == ENCODER_VERSION {
            c
        } else {
            Cache::default()
        }
    }

    /// Loads the cache whatever compiler wrote it: what it lists was written by a build,
    /// so files no current source produces may be removed even after an upgrade (from a
    /// release that kept the cache as JSON too).
    pub fn load_any(output: &Path) -> Cache {
        match std::fs::read(output.join(CACHE_NAME)) {
            Ok(bytes) => Cache::decode(&bytes).unwrap_or_default(),
            Err(_) => std::fs::read_to_string(output.join(LEGACY_CACHE_NAME))
                .ok()
                .and_then(|text| serde_json::from_str::<Cache>(&text).ok())
                .unwrap_or_default(),
        }
    }

    /// The cache a file holds, or `None` when it is not one of this layout, is cut short,
    /// or has bytes after the cache.
    pub fn decode(bytes: &[u8]) -> Option<Cache> {
        let payload = bytes.strip_prefix(CACHE_HEADER)?;
        let (cache, rest) = postcard::take_from_bytes::<Cache>(payload).ok()?;
        rest.is_empty().then_some(cache)
    }

    /// The bytes of the cache file.
    pub fn encode(&self) -> std::io::Result<Vec<u8>> {
        postcard::to_extend(self, CACHE_HEADER.to_vec()).map_err(std::io::Error::other)
    }

    /// Whether this cache was written by this very compiler.
    pub fn is_current(&self) -> bool {
        self.encoder == ENCODER_VERSION
    }

    /// Whether the output `rel` is a file this cache vouches for and still holds what was
    /// written; returns its refreshed stamp.
    pub fn vouched(&self, rel: &str, output: &Path) -> Option<FileStamp> {
        self.files.get(rel)?.check(&output.join(rel))
    }

    /// Every output path the cache knows of: recorded, vouched for, or pending.
    pub fn known_outputs(&self) -> BTreeSet<&str> {
        self.known_outputs_repeated().collect()
    }

    /// [`Cache::known_outputs`] unsorted, a path as often as the cache names it.
    pub fn known_outputs_repeated(&self) -> impl Iterator<Item = &str> {
        self.assets
            .values()
            .flat_map(|r| r.outputs.iter().map(String::as_str))
            .chain(self.files.keys().map(String::as_str))
            .chain(self.pending.iter().map(String::as_str))
    }

    /// The cache to save before writing: the records of `rebuilt` sources are dropped,
    /// `about_to_write` paths are no longer vouched for, and both are pending. A cache of
    /// another compiler keeps nothing but its outputs, as pending.
    pub fn intent<'a>(
        &self,
        rebuilt: impl IntoIterator<Item = &'a str>,
        about_to_write: impl IntoIterator<Item = String>,
    ) -> Cache {
        let mut intent = self.clone();
        if !self.is_current() {
            intent.pending = self.known_outputs().into_iter().map(String::from).collect();
            intent.assets.clear();
            intent.files.clear();
        }
        for source in rebuilt {
            if let Some(record) = intent.assets.remove(source) {
                intent.pending.extend(record.outputs.iter().cloned());
            }
        }
        for rel in about_to_write {
            intent.files.remove(&rel);
            intent.pending.insert(rel);
        }
        intent
    }

    /// Saves the cache unless `on_disk` (the cache this build loaded) is this compiler's
    /// and holds the same records: a no-op build then neither serialises it nor touches
    /// the file. Returns whether it was written.
    pub fn save_if_changed(&self, output: &Path, on_disk: &Cache) -> std::io::Result<bool> {
        let unchanged = self.same_records(on_disk)
            && self.pending == on_disk.pending
            && self.manifest == on_disk.manifest;
        if unchanged && output.join(CACHE_NAME).is_file() {
            return Ok(false);
        }
        self.save(output).map(|()| true)
    }

    /// Whether `other` is this compiler's and holds the same asset records and output
    /// stamps: the manifest, made from nothing else, would be the same bytes. Cheap when
    /// the records are shared (a fresh source's): [`Arc`] compares them by pointer.
    pub fn same_records(&self, other: &Cache) -> bool {
        other.is_current() && self.files == other.files && self.assets == other.assets
    }

    pub fn save(&self, output: &Path) -> std::io::Result<()> {
        let mut cache = self.clone();
        cache.encoder = ENCODER_VERSION.to_string();
        crate::output::write_atomic(&output.join(CACHE_NAME), &cache.encode()?)?;
        // An earlier release's JSON cache: what it listed is in this one now.
        match std::fs::remove_file(output.join(LEGACY_CACHE_NAME)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The record of `source` when it is still fresh: same settings, unchanged inputs and
    /// every output still present. Returns it with refreshed time stamps, and the
    /// refreshed stamp of each of its outputs, for the new cache to take without looking at
    /// the files again.
    pub fn fresh_record_stamped(
        &self,
        source: &str,
        settings_key: &SettingsKey,
        output: &Path,
    ) -> Option<(Arc<AssetRecord>, OutputStamps)> {
        let record = self.assets.get(source)?;
        if record.settings_hash != settings_key.for_outputs(&record.outputs) {
            return None;
        }
        // The inputs' stamps, copied only when one of them has a new time.
        let mut refreshed: Option<Vec<InputStamp>> = None;
        for (i, input) in record.inputs.iter().enumerate() {
            if let Some(moved) = input.refreshed()? {
                refreshed.get_or_insert_with(|| record.inputs.clone())[i] = moved;
            }
        }
        let stamps = record
            .outputs
            .iter()
            .map(|o| Some((o.clone(), self.vouched(o, output)?)))
            .collect::<Option<Vec<_>>>()?;
        let record = match refreshed {
            None => Arc::clone(record),
            Some(inputs) => Arc::new(AssetRecord {
                inputs,
                ..(**record).clone()
            }),
        };
        Some((record, stamps))
    }
}

/// What an input's metadata said before its source was compiled: the size and time its
/// stamp is checked against afterwards. No content hash: the compile reads the input and
/// [`ReadLog`] hashes the bytes it read, which are the bytes to stamp; hashing here as
/// well read every source twice (a 28 MB `.glb` read and hashed on one core before its
/// import could start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatBefore {
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: u128,
}

impl StatBefore {
    /// A path that cannot be looked at gets a size no file has: it is stamped unknown
    /// afterwards, whatever it holds by then.
    fn of(path: &Path) -> Self {
        let (size, mtime_ns) = match std::fs::metadata(path) {
            Ok(meta) => (meta.len(), mtime_ns(&meta)),
            Err(_) => (u64::MAX, 0),
        };
        Self {
            path: path.to_path_buf(),
            size,
            mtime_ns,
        }
    }

    /// Whether the path still has this size and time.
    fn unmoved(&self) -> bool {
        std::fs::metadata(&self.path)
            .is_ok_and(|meta| meta.len() == self.size && mtime_ns(&meta) == self.mtime_ns)
    }
}

/// Metadata taken before a source is imported: the source itself and the inputs its last
/// build listed (the ones it will most likely read again).
pub fn stat_inputs_before(source: &Path, previous: Option<&AssetRecord>) -> Vec<StatBefore> {
    let mut paths = vec![source.to_path_buf()];
    if let Some(record) = previous {
        paths.extend(record.inputs.iter().map(|i| i.path.clone()));
    }
    paths.sort();
    paths.dedup();
    paths.iter().map(|p| StatBefore::of(p)).collect()
}

/// The stamps to record for `inputs` after the import read them. An input looked at
/// before the compile is stamped with the bytes the compile read (`reads`) if its size and
/// time did not move meanwhile; one that moved was saved during the build, so it gets a
/// stamp that never matches and rebuilds next time. One the compile did not read (its
/// content shaped no output) is hashed now, if it did not move. An input first seen by
/// this import gets the stamp of the bytes the compile read; one it did not read is
/// stamped now.
pub fn stamps_after(inputs: &[PathBuf], before: &[StatBefore], reads: &ReadLog) -> Vec<InputStamp> {
    inputs
        .iter()
        .map(
            |p| match (before.iter().find(|b| &b.path == p), reads.read(p)) {
                (_, Some(None)) => InputStamp::unknown(p),
                (Some(b), Some(Some(r))) if r.size == b.size && b.unmoved() => InputStamp {
                    mtime_ns: b.mtime_ns,
                    ..r
                },
                (Some(_), Some(Some(_))) => InputStamp::unknown(p),
                (Some(b), None) => match InputStamp::of(p) {
                    Ok(now) if now.size == b.size && now.mtime_ns == b.mtime_ns => now,
                    _ => InputStamp::unknown(p),
                },
                (None, Some(Some(read))) => read,
                (None, None) => InputStamp::of(p).unwrap_or_else(|_| InputStamp::unknown(p)),
            },
        )
        .collect()
}

/// [`Warning`] as the cache stores it: every field always written, since postcard's
/// encoding has no field names and [`Warning`] leaves out the ones it does not have (for
/// JSON messages). Field defaults still read the JSON cache of earlier releases.
mod cached_warnings {
    use crate::code::{DiagnosticCode, Warning};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Stored {
        #[serde(default)]
        code: Option<DiagnosticCode>,
        #[serde(default)]
        at: Option<String>,
        message: String,
    }

    pub fn serialize<S: Serializer>(warnings: &[Warning], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(warnings.iter().map(|w| Stored {
            code: w.code,
            at: w.at.clone(),
            message: w.message.clone(),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Warning>, D::Error> {
        Ok(Vec::<Stored>::deserialize(d)?
            .into_iter()
            .map(|w| Warning {
                code: w.code,
                at: w.at,
                message: w.message,
            })
            .collect())
    }
}

/// Whether a path read from a cache file names something inside the output folder (a
/// damaged or hand-edited cache must not make a build delete files elsewhere).
pub fn is_plain_relative(rel: &str) -> bool {
    let p = Path::new(rel);
    !rel.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The hashes a source's record is checked against: the compiler, and what its kind reads
/// of `settings` ([`crate::kinds::key`]), with and without the tables that shape only the
/// shared textures its build encodes.
pub fn settings_key(
    kind: crate::kinds::KindId,
    settings: &crate::kinds::asset::AssetSettings,
) -> SettingsKey {
    let text = crate::kinds::key::key_text(crate::kinds::kind(kind), settings);
    let without_textures = fnv1a64_raw_continue(
        fnv1a64_raw(ENCODER_VERSION.as_bytes()),
        text.always.as_bytes(),
    );
    SettingsKey {
        without_textures,
        with_textures: fnv1a64_raw_continue(without_textures, text.textures.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::DiagnosticCode;

    /// Gives `path` a modification time `seconds` from now, its bytes unchanged.
    fn touch_later(path: &Path, seconds: u64) {
        let later = std::time::SystemTime::now() + std::time::Duration::from_secs(seconds);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(later).unwrap();
    }

    fn record(outputs: &[&str]) -> AssetRecord {
        AssetRecord {
            settings_hash: 1,
            inputs: Vec::new(),
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            manifest: Vec::new(),
            warnings: Vec::new(),
            stats: Default::default(),
            build_us: 0,
        }
    }

    #[test]
    fn a_file_read_in_pieces_hashes_as_its_bytes() {
        // Stamps are taken from bytes in memory (outputs) and checked by reading the file
        // in 256 KiB pieces: both must agree, across piece boundaries too.
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = (0..600_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let path = dir.path().join("big.bin");
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(file_hash(&path).unwrap(), content_hash(&bytes));
        let stamp = FileStamp::written(&path, &bytes).unwrap();
        let moved = FileStamp {
            mtime_ns: stamp.mtime_ns + 1,
            ..stamp
        };
        assert!(
            moved.check(&path).is_some(),
            "same content, another time: still matches"
        );
    }

    #[test]
    fn an_input_changed_between_its_stamp_and_the_record_never_matches() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.gltf"), dir.path().join("b.bin"));
        std::fs::write(&a, b"one").unwrap();
        let before = stat_inputs_before(&a, None);
        let stamp = InputStamp::of(&a).unwrap();
        assert_eq!(
            before,
            vec![StatBefore {
                path: a.clone(),
                size: stamp.size,
                mtime_ns: stamp.mtime_ns
            }]
        );
        // Saved during the build: another size.
        std::fs::write(&a, b"three").unwrap();
        std::fs::write(&b, b"new dependency").unwrap();
        let reads = ReadLog::default();
        let after = stamps_after(&[a.clone(), b.clone()], &before, &reads);
        assert_eq!(after[0], InputStamp::unknown(&a));
        assert!(after[0].still_matches().is_none(), "it rebuilds next time");
        assert_eq!(
            after[1],
            InputStamp::of(&b).unwrap(),
            "first seen: stamped now"
        );
        // Unchanged and not read by the compile: stamped now.
        let before = stat_inputs_before(&a, None);
        assert_eq!(
            stamps_after(std::slice::from_ref(&a), &before, &reads),
            vec![InputStamp::of(&a).unwrap()]
        );
        // Vanished since it was looked at: unknown.
        std::fs::remove_file(&a).unwrap();
        assert_eq!(
            stamps_after(std::slice::from_ref(&a), &before, &reads),
            vec![InputStamp::unknown(&a)]
        );
        // Missing when looked at, there afterwards: not what the compile saw.
        let before = stat_inputs_before(&a, None);
        std::fs::write(&a, b"late").unwrap();
        assert_eq!(
            stamps_after(std::slice::from_ref(&a), &before, &reads),
            vec![InputStamp::unknown(&a)]
        );
    }

    /// A source looked at before its compile is stamped with the hash of the bytes the
    /// compile read (it is not read a second time to be hashed), with the time it had
    /// before; saved again during the build (its time moves), it never matches.
    #[test]
    fn a_source_is_stamped_with_the_bytes_its_compile_read() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("field.glb");
        std::fs::write(&source, b"glb bytes").unwrap();
        let reads = ReadLog::start();
        let before = stat_inputs_before(&source, None);
        let meta = std::fs::metadata(&source).unwrap();
        note_read(&source, &meta, &std::fs::read(&source).unwrap());
        let after = stamps_after(std::slice::from_ref(&source), &before, &reads);
        assert_eq!(after, vec![InputStamp::of(&source).unwrap()]);
        assert!(after[0].still_matches().is_some(), "fresh next time");

        // The compile read bytes of another size than the file had when looked at.
        let other = dir.path().join("other.glb");
        std::fs::write(&other, b"short").unwrap();
        let before = stat_inputs_before(&other, None);
        note_read(&other, &std::fs::metadata(&other).unwrap(), b"longer bytes");
        let after = stamps_after(std::slice::from_ref(&other), &before, &reads);
        assert_eq!(after, vec![InputStamp::unknown(&other)]);

        // Saved again after it was looked at (same size, another time): never fresh.
        let third = dir.path().join("third.glb");
        std::fs::write(&third, b"one").unwrap();
        let before = stat_inputs_before(&third, None);
        note_read(&third, &std::fs::metadata(&third).unwrap(), b"one");
        touch_later(&third, 5);
        let after = stamps_after(std::slice::from_ref(&third), &before, &reads);
        assert_eq!(after, vec![InputStamp::unknown(&third)]);
    }

    /// The readers report every input under the path the compiled asset lists it by:
    /// otherwise a first-seen input would silently be stamped after the build again.
    #[test]
    fn every_input_of_a_build_is_stamped_from_its_read() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir_all(&input).unwrap();
        let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets-sample/box");
        for f in ["box.gltf", "box.bin", "checker.png"] {
            std::fs::copy(sample.join(f), input.join(f)).unwrap();
        }
        let reads = ReadLog::start();
        let report = crate::driver::Builder::from_options(crate::driver::BuildOptions::new(
            &input,
            dir.path().join("out"),
        ))
        .run()
        .unwrap();
        let inputs = report.inputs();
        assert_eq!(inputs.len(), 3, "{inputs:?}");
        for path in inputs {
            assert!(
                matches!(reads.read(&path), Some(Some(_))),
                "{}",
                path.display()
            );
        }
    }

    /// The race of a first build: a model's image is read by its compile, then saved
    /// again before the build records its stamps. Timing a real build to hit that window
    /// is not deterministic, so the reader's call and the save are made here in that
    /// order: the stamp is that of the bytes read, and the asset rebuilds next time.
    #[test]
    fn an_input_first_seen_is_stamped_with_the_bytes_read() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("wood.png");
        std::fs::write(&image, b"old pixels").unwrap();
        let reads = ReadLog::start();
        let meta = std::fs::metadata(&image).unwrap();
        let bytes = std::fs::read(&image).unwrap();
        note_read(&image, &meta, &bytes);
        // Saved by the artist while the rest of the build runs: same size, new content.
        std::fs::write(&image, b"new pixels").unwrap();
        let after = stamps_after(std::slice::from_ref(&image), &[], &reads);
        assert_eq!(after[0].hash, content_hash(b"old pixels"));
        assert!(after[0].still_matches().is_none(), "it rebuilds next time");
        // Unchanged since the read: fresh next time.
        std::fs::write(&image, b"old pixels").unwrap();
        assert!(after[0].still_matches().is_some());
        // Read twice with different bytes: never fresh.
        let b = dir.path().join("b.bin");
        std::fs::write(&b, b"one").unwrap();
        note_read(&b, &std::fs::metadata(&b).unwrap(), b"one");
        note_read(&b, &std::fs::metadata(&b).unwrap(), b"two");
        let after = stamps_after(std::slice::from_ref(&b), &[], &reads);
        assert_eq!(after[0], InputStamp::unknown(&b));
        // A read before the log started is not in it.
        let later = ReadLog::start();
        assert_eq!(later.read(&image), None);
    }

    #[test]
    fn outputs_are_vouched_only_while_they_hold_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.hmesh");
        std::fs::write(&path, b"abcd").unwrap();
        let mut cache = Cache::default();
        cache.files.insert(
            "a.hmesh".into(),
            FileStamp::written(&path, b"abcd").unwrap(),
        );
        assert!(cache.vouched("a.hmesh", dir.path()).is_some());
        assert!(
            cache.vouched("b.hmesh", dir.path()).is_none(),
            "never stamped"
        );
        std::fs::write(&path, b"abcx").unwrap(); // same size, other content
        assert!(cache.vouched("a.hmesh", dir.path()).is_none());
    }

    #[test]
    fn the_intent_drops_what_is_rebuilt_or_rewritten_and_lists_it_as_pending() {
        let stamp = FileStamp {
            size: 1,
            mtime_ns: 1,
            hash: 1,
        };
        let mut old = Cache {
            encoder: ENCODER_VERSION.into(),
            ..Default::default()
        };
        old.assets
            .insert("a.gltf".into(), record(&["a.hmesh", "tex/1.ktx2"]).into());
        old.assets
            .insert("b.gltf".into(), record(&["b.hmesh", "tex/1.ktx2"]).into());
        for f in ["a.hmesh", "b.hmesh", "tex/1.ktx2"] {
            old.files.insert(f.into(), stamp);
        }
        let intent = old.intent(["a.gltf"], ["a.hmesh".to_string(), "tex/2.ktx2".into()]);
        assert_eq!(intent.assets.keys().collect::<Vec<_>>(), ["b.gltf"]);
        assert_eq!(
            intent.files.keys().collect::<Vec<_>>(),
            ["b.hmesh", "tex/1.ktx2"],
            "files not rewritten stay vouched for"
        );
        assert_eq!(
            intent.pending.iter().collect::<Vec<_>>(),
            ["a.hmesh", "tex/1.ktx2", "tex/2.ktx2"]
        );
        // Another compiler's cache vouches for nothing.
        old.encoder = "assetc 0.0.0".into();
        let intent = old.intent([], []);
        assert!(intent.assets.is_empty() && intent.files.is_empty());
        assert_eq!(intent.pending.len(), 3);
    }

    #[test]
    fn only_plain_relative_paths_may_be_removed() {
        assert!(is_plain_relative("tex/0123.ktx2"));
        assert!(!is_plain_relative("../outside.hmesh"));
        assert!(!is_plain_relative("/etc/passwd"));
        assert!(!is_plain_relative(""));
    }

    /// A cache with every kind of field filled: warnings with and without a code and an
    /// element, an input, vouched files and a pending path.
    fn full_cache() -> Cache {
        let mut record = record(&["a.hmesh", "a.hmat"]);
        record.inputs.push(InputStamp {
            path: PathBuf::from("src/a.gltf"),
            size: 1840,
            mtime_ns: 1_796_217_350_554_196_305,
            hash: 17,
        });
        record.manifest.push(CachedEntry {
            hash: u64::MAX,
            kind: EntryKind::Mesh as u8,
            srgb: true,
            path: "a.hmesh".into(),
        });
        record.warnings = vec![
            Warning::new(DiagnosticCode::NotExported, "plain"),
            Warning::at(DiagnosticCode::LodStalled, "meshes[0]", "placed"),
        ];
        record.stats.triangles = 8;
        let stamp = FileStamp {
            size: 1,
            mtime_ns: u128::MAX,
            hash: 2,
        };
        Cache {
            encoder: ENCODER_VERSION.into(),
            assets: [("a.gltf".to_string(), Arc::new(record))].into(),
            files: [("a.hmesh".to_string(), stamp)].into(),
            pending: ["b.hmesh".to_string()].into(),
            manifest: Some(ManifestStamp {
                version: 1,
                stamp: FileStamp {
                    size: 3,
                    mtime_ns: 4,
                    hash: 5,
                },
            }),
        }
    }

    #[test]
    fn the_cache_file_reads_back_as_it_was_saved() {
        let cache = full_cache();
        let bytes = cache.encode().unwrap();
        assert!(bytes.starts_with(CACHE_HEADER));
        assert_eq!(Cache::decode(&bytes), Some(cache.clone()));
        let dir = tempfile::tempdir().unwrap();
        cache.save(dir.path()).unwrap();
        assert_eq!(Cache::load(dir.path()), cache);
    }

    #[test]
    fn a_file_of_another_layout_cut_short_or_with_more_bytes_is_no_cache() {
        let bytes = full_cache().encode().unwrap();
        let mut other_layout = bytes.clone();
        other_layout[CACHE_HEADER.len() - 2] ^= 1;
        let mut longer = bytes.clone();
        longer.push(0);
        for bad in [
            &other_layout[..],
            &bytes[..bytes.len() - 1],
            &longer[..],
            b"{}",
            &[],
        ] {
            assert_eq!(Cache::decode(bad), None);
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CACHE_NAME), &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(Cache::load_any(dir.path()), Cache::default());
    }

    #[test]
    fn an_earlier_releases_json_cache_is_read_for_its_files_then_replaced() {
        // As the JSON cache was written: a warning without a code or an element has
        // neither key.
        let json = r#"{"encoder":"assetc 0.1.0 source 00 cache 4",
            "assets":{"a.gltf":{"settings_hash":1,"inputs":[],"outputs":["a.hmesh"],
                "manifest":[],"warnings":[{"message":"plain"},
                {"code":"lod-stalled","at":"meshes[0]","message":"placed"}],
                "stats":{"vertices":0,"triangles":0,"meshlets":0,"submeshes":0,
                "materials":0,"clips":0}}},
            "files":{"a.hmesh":{"size":1,"mtime_ns":2,"hash":3}},"pending":["b.hmesh"]}"#;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LEGACY_CACHE_NAME), json).unwrap();
        let old = Cache::load_any(dir.path());
        assert!(!old.is_current());
        assert_eq!(old.assets["a.gltf"].outputs, ["a.hmesh"]);
        assert_eq!(
            old.assets["a.gltf"].warnings,
            [
                // An earlier release's warning without a code reads back without one.
                Warning {
                    code: None,
                    at: None,
                    message: "plain".into(),
                },
                Warning::at(DiagnosticCode::LodStalled, "meshes[0]", "placed")
            ]
        );
        assert_eq!(
            old.known_outputs(),
            ["a.hmesh", "b.hmesh"].into_iter().collect()
        );
        // Not this compiler's: trusted for nothing.
        assert_eq!(Cache::load(dir.path()), Cache::default());
        Cache::default().save(dir.path()).unwrap();
        assert!(!dir.path().join(LEGACY_CACHE_NAME).exists());
        assert!(Cache::load_any(dir.path()).is_current());
    }

    #[test]
    fn a_fresh_record_is_shared_unless_an_input_has_a_new_time() {
        let dir = tempfile::tempdir().unwrap();
        let (src, out) = (dir.path().join("a.gltf"), dir.path().join("out"));
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(&src, b"model").unwrap();
        std::fs::write(out.join("a.hmesh"), b"mesh").unwrap();
        let mut record = record(&["a.hmesh"]);
        record.inputs.push(InputStamp::of(&src).unwrap());
        let mut cache = Cache {
            encoder: ENCODER_VERSION.into(),
            ..Default::default()
        };
        cache.files.insert(
            "a.hmesh".into(),
            FileStamp::written(&out.join("a.hmesh"), b"mesh").unwrap(),
        );
        cache.assets.insert("a.gltf".into(), Arc::new(record));
        let cached = Arc::clone(&cache.assets["a.gltf"]);
        // Its outputs have no shared texture: the hash without textures is the one checked.
        let key = |hash| SettingsKey {
            without_textures: hash,
            with_textures: 99,
        };

        let (fresh, stamps) = cache.fresh_record_stamped("a.gltf", &key(1), &out).unwrap();
        assert!(Arc::ptr_eq(&fresh, &cached), "unchanged: the same record");
        assert_eq!(stamps, [("a.hmesh".to_string(), cache.files["a.hmesh"])]);
        assert!(cache
            .fresh_record_stamped("a.gltf", &key(2), &out)
            .is_none());

        // Saved again with the same bytes: fresh, with the new time in a record of its own.
        touch_later(&src, 60);
        let (fresh, _) = cache.fresh_record_stamped("a.gltf", &key(1), &out).unwrap();
        assert!(!Arc::ptr_eq(&fresh, &cached));
        assert_eq!(fresh.inputs[0], InputStamp::of(&src).unwrap());
        assert_eq!(fresh.outputs, cached.outputs);

        std::fs::write(&src, b"other").unwrap();
        assert!(cache
            .fresh_record_stamped("a.gltf", &key(1), &out)
            .is_none());
    }
}
