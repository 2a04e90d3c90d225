//! The small JSON records stored beside the blobs.

use super::key::Digest;
use crate::code::Warning;
use crate::driver::cache::{is_plain_relative, CachedEntry};
use crate::kinds::asset::AssetStats;
use serde::{Deserialize, Serialize};

/// Under a source key: the other files the source read, relative to the input root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepsRecord {
    pub inputs: Vec<String>,
}

/// One output file: where it goes below the output root, and the blob that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFile {
    pub path: String,
    pub size: u64,
    /// xxh3-128 of the bytes, 32 hex digits; names the blob.
    pub digest: String,
}

/// Under a content key: everything the local cache records of a built asset, but its
/// input stamps (each machine takes its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputRecord {
    pub files: Vec<StoredFile>,
    pub manifest: Vec<CachedEntry>,
    pub warnings: Vec<Warning>,
    pub stats: AssetStats,
}

impl StoredFile {
    pub fn of(path: &str, bytes: &[u8]) -> Self {
        Self {
            path: path.to_string(),
            size: bytes.len() as u64,
            digest: Digest::of(bytes).hex(),
        }
    }

    /// The blob's digest, when the record's text is well formed.
    pub fn digest(&self) -> Option<Digest> {
        (self.digest.len() == 32)
            .then(|| u128::from_str_radix(&self.digest, 16).ok())
            .flatten()
            .map(Digest)
    }
}

impl OutputRecord {
    /// What makes the record unusable, before any blob is fetched: every path, of a file
    /// or of a manifest entry, must be a plain relative `/`-separated path inside the
    /// output folder (no `..`, no absolute path, no backslash, no control character), no
    /// file may be listed twice or be larger than `max_blob_bytes`, every digest must
    /// parse, and every manifest entry must have a known kind and name a file the record
    /// carries (the manifest is written from the entries: one naming `/dev/zero` or a
    /// file of another asset would make the build read it). A damaged or hostile record
    /// is a miss, never a read or a write elsewhere.
    pub fn problem(&self, max_blob_bytes: u64) -> Option<String> {
        let mut seen = std::collections::BTreeSet::new();
        for f in &self.files {
            if !is_output_path(&f.path) {
                return Some(format!("it names the file `{}`", escaped(&f.path)));
            }
            if !seen.insert(f.path.as_str()) {
                return Some(format!("it lists `{}` twice", f.path));
            }
            if f.digest().is_none() {
                return Some(format!("the digest of `{}` is malformed", f.path));
            }
            if f.size > max_blob_bytes {
                return Some(format!(
                    "`{}` is {} bytes, more than max_blob_bytes ({max_blob_bytes})",
                    f.path, f.size
                ));
            }
        }
        for e in &self.manifest {
            if !is_output_path(&e.path) {
                return Some(format!("its manifest names `{}`", escaped(&e.path)));
            }
            if e.to_entry().is_none() {
                return Some(format!(
                    "its manifest gives `{}` the unknown kind {}",
                    e.path, e.kind
                ));
            }
            if !seen.contains(e.path.as_str()) {
                return Some(format!(
                    "its manifest lists `{}`, a file the record does not carry",
                    e.path
                ));
            }
        }
        None
    }
}

/// A path a record may name: plain relative, `/`-separated, printable.
fn is_output_path(path: &str) -> bool {
    is_plain_relative(path) && !path.contains('\\') && !path.chars().any(char::is_control)
}

/// Text from a record as it may be printed: control characters (terminal escape
/// sequences, carriage returns) escaped as `\u{1b}`.
pub fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Warnings from a record as they may be printed: their text and location with control
/// characters escaped. A record is written by another machine, and its text must not reach
/// this terminal as escape sequences. (Warnings name no path of the machine that wrote
/// them: the file is the source's, added where they are shown.)
pub fn local_warnings(warnings: &[Warning]) -> Vec<Warning> {
    warnings
        .iter()
        .map(|w| Warning {
            code: w.code,
            at: w.at.as_deref().map(escaped),
            message: escaped(&w.message),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::DiagnosticCode;

    #[test]
    fn warnings_from_a_record_cannot_reach_the_terminal_as_escapes() {
        let stored = vec![
            Warning::at(DiagnosticCode::BadImage, "images[0]\u{1b}[2J", "too big\r"),
            Warning::new(DiagnosticCode::NotExported, "other"),
        ];
        let shown = local_warnings(&stored);
        assert_eq!(shown[0].at.as_deref(), Some("images[0]\\u{1b}[2J"));
        assert_eq!(shown[0].message, "too big\\u{d}");
        assert_eq!(shown[0].code, Some(DiagnosticCode::BadImage));
        assert_eq!(shown[1], stored[1]);
    }

    #[test]
    fn records_leading_outside_the_output_are_unsound() {
        let good = StoredFile::of("tex/a.ktx2", b"abc");
        assert_eq!(good.digest(), Some(Digest::of(b"abc")));
        let mut record = OutputRecord {
            files: vec![good.clone()],
            manifest: Vec::new(),
            warnings: Vec::new(),
            stats: Default::default(),
        };
        assert_eq!(record.problem(1 << 30), None);
        assert!(record
            .problem(2)
            .unwrap()
            .contains("more than max_blob_bytes"));
        record.files[0].path = "../evil".into();
        assert!(record.problem(1 << 30).is_some());
        record.files[0].path = "models\\a.hmesh".into();
        assert!(record.problem(1 << 30).is_some());
        record.files[0] = StoredFile {
            digest: "zz".into(),
            ..good.clone()
        };
        assert!(record.problem(1 << 30).is_some());
        record.files = vec![good.clone(), good.clone()];
        assert!(record.problem(1 << 30).unwrap().contains("twice"));
    }

    #[test]
    fn manifest_paths_are_held_to_the_rules_of_files() {
        let entry = |path: &str| CachedEntry {
            hash: 1,
            kind: 0,
            srgb: false,
            path: path.into(),
        };
        let mut record = OutputRecord {
            files: vec![StoredFile::of("tex/a.ktx2", b"abc")],
            manifest: vec![entry("tex/a.ktx2")],
            warnings: Vec::new(),
            stats: Default::default(),
        };
        assert_eq!(record.problem(1 << 30), None);
        for bad in [
            "/dev/zero",
            "../../x",
            "/abs/path",
            "a\\b.ktx2",
            "tex/b.ktx2",
            "a\u{1b}[2J",
        ] {
            record.manifest[0] = entry(bad);
            assert!(record.problem(1 << 30).is_some(), "{bad}");
        }
        record.manifest[0] = CachedEntry {
            kind: 200,
            ..entry("tex/a.ktx2")
        };
        assert!(record.problem(1 << 30).unwrap().contains("unknown kind"));
    }
}
