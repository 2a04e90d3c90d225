//! Stable codes for diagnostics: the machine-readable half of every warning and error.
//!
//! A code is decided where the problem is known by its type (an importer's error variant,
//! an I/O error's kind, a texture decoder's failure), never by reading the message back:
//! rewording a message must not change what tools filtering on `code` see. Each code has
//! an example in docs/diagnostics.md.

use serde::{Deserialize, Serialize};

/// The kind of a problem, serialised as its kebab-case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticCode {
    /// build.toml (or a rule in it) is wrong.
    Config,
    /// How assetc was asked to run is wrong (a missing input, an option that does not apply).
    Usage,
    /// A command failed outside any asset (writing a depfile, the manifest).
    Error,
    /// An index into geometry is past the end of what it indexes.
    IndexOutOfRange,
    /// A reference inside a source names an object that is not there (`meshes[5]` of 3).
    DanglingReference,
    /// A file the source needs (a buffer, an image, an MTL) does not exist.
    MissingFile,
    /// A file exists but cannot be read (permissions, a folder where a file should be).
    UnreadableFile,
    /// The source is not a valid file of its format (bad container, JSON, structure).
    InvalidSource,
    /// The source requires an extension assetc does not implement.
    UnsupportedExtension,
    /// A count or size past the resource limits that guard against absurd inputs.
    ResourceLimit,
    /// An image cannot be decoded or encoded.
    BadImage,
    /// A written file failed its format's validator (a bug in assetc, caught before writing).
    InvalidOutput,
    /// assetc panicked on this asset (a bug; the rest of the build went on).
    InternalError,
    /// Two sources would write the same output.
    OutputCollision,
    /// An output name is longer than a file system allows.
    NameTooLong,
    /// Not built: `--fail-fast` stopped after an earlier failure.
    Skipped,
    /// The remote cache failed or served something damaged.
    RemoteCache,
    /// Files below the input that no kind compiles.
    IgnoredFiles,
    /// No longer raised: a mesh too small to simplify is normal, and `assetc info` and
    /// `assetc inspect` state it as a fact. Kept so that caches and tools that name it
    /// still read.
    LodStalled,
    /// Files an `embed` wildcard matches that their own kind compiles instead.
    EmbedOverruled,
    /// A sound's samples went past what a 16-bit output holds and were clamped (last: the
    /// cache stores codes by their place in this list).
    ClippedSamples,
}

impl DiagnosticCode {
    /// The code as it appears in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Self::Config => "config",
            Self::Usage => "usage",
            Self::Error => "error",
            Self::IndexOutOfRange => "index-out-of-range",
            Self::DanglingReference => "dangling-reference",
            Self::MissingFile => "missing-file",
            Self::UnreadableFile => "unreadable-file",
            Self::InvalidSource => "invalid-source",
            Self::UnsupportedExtension => "unsupported-extension",
            Self::ResourceLimit => "resource-limit",
            Self::BadImage => "bad-image",
            Self::InvalidOutput => "invalid-output",
            Self::InternalError => "internal-error",
            Self::OutputCollision => "output-collision",
            Self::NameTooLong => "name-too-long",
            Self::Skipped => "skipped",
            Self::RemoteCache => "remote-cache",
            Self::IgnoredFiles => "ignored-files",
            Self::EmbedOverruled => "embed-overruled",
            Self::LodStalled => "lod-stalled",
            Self::ClippedSamples => "clipped-samples",
        }
    }

    /// Every code, for the docs test that each is documented.
    pub const ALL: [DiagnosticCode; 21] = [
        Self::Config,
        Self::Usage,
        Self::Error,
        Self::IndexOutOfRange,
        Self::DanglingReference,
        Self::MissingFile,
        Self::UnreadableFile,
        Self::InvalidSource,
        Self::UnsupportedExtension,
        Self::ResourceLimit,
        Self::BadImage,
        Self::InvalidOutput,
        Self::InternalError,
        Self::OutputCollision,
        Self::NameTooLong,
        Self::Skipped,
        Self::RemoteCache,
        Self::IgnoredFiles,
        Self::LodStalled,
        Self::EmbedOverruled,
        Self::ClippedSamples,
    ];

    /// A file that could not be read: missing, or there but unreadable.
    pub fn of_io(error: &std::io::Error) -> Self {
        match error.kind() {
            std::io::ErrorKind::NotFound => Self::MissingFile,
            _ => Self::UnreadableFile,
        }
    }
}

/// Something wrong that did not stop the asset: its text, the element of the source it
/// concerns (a glTF path such as `meshes[0].primitives[1]`, an FBX or OBJ element) kept
/// apart from the text, and its code when its kind is known. Raised where the problem is
/// found and carried as it is to the report, the cache and JSON messages, which never read
/// the text back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<DiagnosticCode>,
    /// Where in the source, when the warning concerns one element of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub message: String,
}

impl Warning {
    /// A warning about the source as a whole.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            code: None,
            at: None,
            message: message.into(),
        }
    }

    /// A warning about one element of the source (`at`: its glTF path or name).
    pub fn at(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: None,
            at: Some(at.into()),
            message: message.into(),
        }
    }

    /// The same warning with the code of its kind.
    pub fn coded(self, code: DiagnosticCode) -> Self {
        Self {
            code: Some(code),
            ..self
        }
    }
}

/// `at: message`, or the message alone: how people read it after the file's name.
impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.at {
            Some(at) => write!(f, "{at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A warning about the source as a whole, from its text.
impl From<String> for Warning {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for Warning {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// Where in a source an error is (a glTF path such as `meshes[0].primitives[1]`, an OBJ
/// line) and what is wrong there, as the error's type holds them: apart from the rendered
/// text, so nothing has to read them back out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorSite {
    pub at: String,
    pub detail: String,
}

/// An asset's error with its code (and its site, when its type knows one), as the driver
/// carries it from the importer or target to the reporter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The whole error as people read it (the file, the site, the detail).
    pub message: String,
    pub code: DiagnosticCode,
    pub site: Option<ErrorSite>,
}

impl Failure {
    pub fn new(code: DiagnosticCode, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            code,
            site: None,
        }
    }

    /// The same failure with the site its error's type gave.
    pub fn at_site(self, site: Option<ErrorSite>) -> Self {
        Self { site, ..self }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_serde_writes_and_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for code in DiagnosticCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.name()));
            assert!(seen.insert(code.name()), "{} twice", code.name());
        }
    }

    #[test]
    fn every_code_is_documented_with_an_example() {
        let doc = include_str!("../../../docs/diagnostics.md");
        for code in DiagnosticCode::ALL {
            let row = format!("| `{}` |", code.name());
            assert!(
                doc.contains(&row),
                "docs/diagnostics.md has no row for {row}"
            );
        }
    }
}
