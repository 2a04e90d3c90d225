//! Stable codes for diagnostics: the machine-readable half of every warning and error.
//!
//! A code is decided where the problem is known by its type (an importer's error variant,
//! an I/O error's kind, a texture decoder's failure), never by reading the message back:
//! rewording a message must not change what tools filtering on `code` see. Each code has
//! an example in docs/diagnostics.md.

use serde::{Deserialize, Serialize};

/// Declares [`DiagnosticCode`] from one list: each variant with its kebab-case name, so
/// that [`DiagnosticCode::name`] and [`DiagnosticCode::ALL`] cannot leave one out.
macro_rules! diagnostic_codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// The kind of a problem, serialised as its kebab-case name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum DiagnosticCode {
            $($(#[$doc])* $variant,)*
        }

        impl DiagnosticCode {
            /// Every code, for the docs test that each is documented.
            pub const ALL: &'static [DiagnosticCode] = &[$(Self::$variant,)*];

            /// The code as it appears in JSON.
            pub fn name(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)*
                }
            }
        }
    };
}

diagnostic_codes! {
    /// build.toml (or a rule in it) is wrong.
    Config => "config",
    /// How assetc was asked to run is wrong (a missing input, an option that does not apply).
    Usage => "usage",
    /// A command failed outside any asset (writing a depfile, the manifest).
    Error => "error",
    /// An index into geometry is past the end of what it indexes.
    IndexOutOfRange => "index-out-of-range",
    /// A reference inside a source names an object that is not there (`meshes[5]` of 3).
    DanglingReference => "dangling-reference",
    /// A file the source needs (a buffer, an image, an MTL) does not exist.
    MissingFile => "missing-file",
    /// A file exists but cannot be read (permissions, a folder where a file should be).
    UnreadableFile => "unreadable-file",
    /// The source is not a valid file of its format (bad container, JSON, structure).
    InvalidSource => "invalid-source",
    /// The source requires an extension assetc does not implement.
    UnsupportedExtension => "unsupported-extension",
    /// A count or size past the resource limits that guard against absurd inputs.
    ResourceLimit => "resource-limit",
    /// An image cannot be decoded or encoded.
    BadImage => "bad-image",
    /// A written file failed its format's validator (a bug in assetc, caught before writing).
    InvalidOutput => "invalid-output",
    /// assetc panicked on this asset (a bug; the rest of the build went on).
    InternalError => "internal-error",
    /// Two sources would write the same output.
    OutputCollision => "output-collision",
    /// An output name is longer than a file system allows.
    NameTooLong => "name-too-long",
    /// Not built: `--fail-fast` stopped after an earlier failure.
    Skipped => "skipped",
    /// The remote cache failed or served something damaged.
    RemoteCache => "remote-cache",
    /// Files below the input that no kind compiles.
    IgnoredFiles => "ignored-files",
    /// No longer raised: a mesh too small to simplify is normal, and `assetc info` and
    /// `assetc inspect` state it as a fact. Kept so that caches and tools that name it
    /// still read.
    LodStalled => "lod-stalled",
    /// Files an `embed` wildcard matches that their own kind compiles instead.
    EmbedOverruled => "embed-overruled",
    /// `<file>.meta.toml` files whose file is not a source of the build (an image a model
    /// uses, or a file that is not there): nothing reads their settings.
    UnusedSettings => "unused-settings",
    /// Something wrong in the source was fixed, replaced or dropped so that the asset
    /// still builds (a rotation normalised, keys out of order dropped, a bone renamed).
    Repaired => "repaired",
    /// Something valid in the source that no output holds was left out (an attribute, a
    /// channel, a light, a second skin).
    NotExported => "not-exported",
    /// A target or the engine that loads it holds less than the source has (Qt's 4
    /// influences, BMD1's 255 frames, BGBTech3's 64 bones): reduced or left out.
    TargetLimit => "target-limit",
    /// The source gives nothing to write (no triangle geometry).
    NothingWritten => "nothing-written",
    /// A font has no glyph for some codepoints of its charset.
    MissingGlyphs => "missing-glyphs",
    /// Audio samples past the output's range were clipped.
    ClippedSamples => "clipped-samples",
    /// A GPU-ready texture (KTX2, DDS) kept as it is: the settings asked for a format it
    /// cannot be re-encoded to.
    PassedThrough => "passed-through",
    /// An image's texels contradict the class its name gives it (a `*_normal.png` that is
    /// not a normal map, a colour image named as data).
    TextureClass => "texture-class",
    /// `[shader] outputs` asks for WGSL of a source that is not translated to it (GLSL):
    /// its SPIR-V is written, no `.wgsl`.
    NoWgsl => "no-wgsl",
}

impl DiagnosticCode {
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
/// apart from the text, and its code (the kind of problem). Raised where the problem is
/// found and carried as it is to the report, the cache and JSON messages, which never read
/// the text back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Every warning raised has one; `None` only in records cached before that was so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<DiagnosticCode>,
    /// Where in the source, when the warning concerns one element of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    pub message: String,
}

impl Warning {
    /// A warning about the source as a whole, of the kind `code`.
    pub fn new(code: DiagnosticCode, message: impl Into<String>) -> Self {
        Self {
            code: Some(code),
            at: None,
            message: message.into(),
        }
    }

    /// A warning of the kind `code` about one element of the source (`at`: its glTF path
    /// or name).
    pub fn at(code: DiagnosticCode, at: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            code: Some(code),
            at: Some(at.into()),
            message: message.into(),
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

/// Where in a source an error is (a glTF path such as `meshes[0].primitives[1]`, an OBJ
/// line) and what is wrong there, as the error's type holds them: apart from the rendered
/// text, so nothing has to read them back out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorSite {
    pub at: String,
    pub detail: String,
}

/// A place in a text source (1-based line, and column when known), as the error's type
/// gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextPosition {
    pub line: usize,
    pub column: Option<usize>,
}

/// `line` or `line:column`, as compilers print a place after a file's name.
impl std::fmt::Display for TextPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.column {
            Some(column) => write!(f, "{}:{column}", self.line),
            None => write!(f, "{}", self.line),
        }
    }
}

/// An asset's error with its code (and its site, when its type knows one), as the driver
/// carries it from the importer or target to the reporter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The whole error as people read it (the file, the site, the detail).
    pub message: String,
    /// The error as it reads after the source's name: what a diagnostic, whose `file`
    /// names the source, shows as its message when the error has no site.
    pub detail: String,
    pub code: DiagnosticCode,
    /// Boxed: most failures have none, and every `Result` carrying one pays its size.
    pub site: Option<Box<ErrorSite>>,
    /// The line (and column) in a text source, when its type says.
    pub position: Option<TextPosition>,
}

impl Failure {
    /// A failure whose message names no source (a texture's, which names its image).
    pub fn new(code: DiagnosticCode, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            detail: message.clone(),
            message,
            code,
            site: None,
            position: None,
        }
    }

    /// A failure of the source `source` (its path as the message shows it): the message
    /// is `source: detail`.
    pub fn of_source(
        code: DiagnosticCode,
        source: impl std::fmt::Display,
        detail: impl Into<String>,
    ) -> Self {
        let detail = detail.into();
        Self {
            message: format!("{source}: {detail}"),
            detail,
            code,
            site: None,
            position: None,
        }
    }

    /// The same failure with the detail its error's type gave (see [`Self::detail`]).
    pub fn with_detail(self, detail: impl Into<String>) -> Self {
        Self {
            detail: detail.into(),
            ..self
        }
    }

    /// The same failure with `note` added to its message and detail (`message (note)`).
    pub fn noted(self, note: &str) -> Self {
        Self {
            message: format!("{} ({note})", self.message),
            detail: format!("{} ({note})", self.detail),
            ..self
        }
    }

    /// The same failure with the site its error's type gave.
    pub fn at_site(self, site: Option<ErrorSite>) -> Self {
        Self {
            site: site.map(Box::new),
            ..self
        }
    }

    /// The same failure with the place in a text source its error's type gave.
    pub fn at_position(self, position: Option<TextPosition>) -> Self {
        Self { position, ..self }
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
