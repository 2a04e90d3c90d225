//! What a build tells its caller as it goes: one event per asset as it finishes, progress
//! ticks for the bar, then a summary. The CLI renders them as progress and lines, or as
//! JSON (`--message-format json`, one object per line, like cargo's).

use super::code::{DiagnosticCode, ErrorSite, Warning};
use serde::Serialize;

pub use crate::outcome::AssetStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One message about one source, with where in it (cargo's `compiler-message`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The source, relative to the input folder.
    pub file: String,
    /// Where in the glTF (`meshes[0].primitives[0].indices`), when the message names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gltf_path: Option<String>,
    /// Line and column (1-based) in a text source (build.toml, a LUT), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The message without the file and glTF path.
    pub message: String,
    /// A stable name for the kind of problem, when one is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<DiagnosticCode>,
}

impl Diagnostic {
    /// An error without a site: `detail` is its text after the source's name, as its type
    /// rendered it (see [`super::code::Failure::detail`]).
    pub fn from_detail(file: &str, detail: &str, code: Option<DiagnosticCode>) -> Self {
        Self::located(Severity::Error, file, None, detail, code)
    }

    /// The same diagnostic at a line (and column) of its text source.
    pub fn at_position(self, position: Option<super::code::TextPosition>) -> Self {
        Self {
            line: position.map(|p| p.line),
            column: position.and_then(|p| p.column),
            ..self
        }
    }

    /// A warning as it was raised: its code and location as the stage that found it set
    /// them; nothing is read back from the text.
    pub fn from_warning(file: &str, warning: &Warning) -> Self {
        Self::located(
            Severity::Warning,
            file,
            warning.at.as_deref(),
            &warning.message,
            warning.code,
        )
    }

    /// An error whose type gave its site (see [`ErrorSite`]): nothing is read back from
    /// its text.
    pub fn from_site(file: &str, site: &ErrorSite, code: Option<DiagnosticCode>) -> Self {
        Self::located(Severity::Error, file, Some(&site.at), &site.detail, code)
    }

    /// A location that is a glTF path fills `gltf_path`; any other (an FBX or OBJ element,
    /// an OBJ line) stays at the start of the message.
    fn located(
        severity: Severity,
        file: &str,
        at: Option<&str>,
        detail: &str,
        code: Option<DiagnosticCode>,
    ) -> Self {
        let (gltf_path, message) = match at {
            Some(at) if is_gltf_path(at.split(" (").next().unwrap_or(at)) => {
                (Some(at.to_string()), detail.to_string())
            }
            Some(at) => (None, format!("{at}: {detail}")),
            None => (None, detail.to_string()),
        };
        Diagnostic {
            severity,
            file: file.to_string(),
            gltf_path,
            line: None,
            column: None,
            message,
            code,
        }
    }

    /// `file: glTF path: message` or `file:line:col: message`, the location once.
    pub fn rendered(&self) -> String {
        // `file:line:col`, as compilers name a place in a text source.
        let place = match (self.line, self.column) {
            (Some(line), Some(column)) => format!("{}:{line}:{column}", self.file),
            (Some(line), None) => format!("{}:{line}", self.file),
            _ => self.file.clone(),
        };
        match &self.gltf_path {
            Some(p) => format!("{place}: {p}: {}", self.message),
            None => format!("{place}: {}", self.message),
        }
    }
}

/// `meshes[3].primitives[0]`, `images[0]`, `meshes[0].primitives[0].indices -> accessors[99]`:
/// dotted segments, each a lower-case name with optional `[index]`.
fn is_gltf_path(s: &str) -> bool {
    let first = s.split(" -> ").next().unwrap_or(s);
    !first.is_empty()
        && first.contains('[')
        && first.split('.').all(|seg| {
            let name = seg.split('[').next().unwrap_or("");
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && seg[name.len()..].split_terminator(']').all(|i| {
                    i.strip_prefix('[')
                        .is_some_and(|n| n.parse::<u64>().is_ok())
                })
        })
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Event {
    /// `[platforms]`: one platform's tree is built next; its own events follow, from
    /// its `build-started` to its `build-finished`.
    PlatformStarted { platform: String, output: String },
    BuildStarted {
        assets: usize,
        /// Sources that need compiling (the others are fresh).
        to_build: usize,
    },
    /// A unit of work finished: one asset compiled or one texture encoded. For progress
    /// bars; not part of the JSON messages.
    Progress {
        /// Units added to the total (textures are only known once assets compiled).
        added: usize,
        done: usize,
        name: String,
    },
    AssetFinished {
        source: String,
        status: AssetStatus,
        outputs: Vec<String>,
        warnings: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The warnings and the error as structured messages.
        diagnostics: Vec<Diagnostic>,
        /// Wall time of the asset, its textures included (0 for fresh assets).
        time_ms: u64,
        /// Time per geometry stage in microseconds (CPU time summed over submeshes), for
        /// built assets.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        stages_us: Vec<(String, u64)>,
    },
    /// Files below the input that no kind compiles (said once per build).
    Ignored {
        files: usize,
        /// Count per lower-case extension, the most frequent first.
        by_extension: Vec<(String, usize)>,
        message: String,
    },
    /// Files an `embed` wildcard matches that their own kind compiles instead (said once
    /// per build; `discover::embed_wins`).
    EmbedOverruled { files: Vec<String>, message: String },
    /// `<file>.meta.toml` files whose file is not a source of the build (said once per
    /// build).
    UnusedSettings { files: Vec<String>, message: String },
    /// The remote cache failed (it is off for the rest of the build) or served something
    /// damaged (that asset is built here instead).
    RemoteWarning {
        /// The cache's URL, without credentials.
        remote: String,
        message: String,
    },
    BuildFinished {
        success: bool,
        built: usize,
        fresh: usize,
        /// Assets served by the remote cache.
        fetched: usize,
        /// Bytes read from the remote cache (records and blobs).
        fetched_bytes: u64,
        /// Bytes written to the remote cache.
        uploaded_bytes: u64,
        failed: usize,
        /// Assets not attempted after a failure (`--fail-fast`).
        skipped: usize,
        textures_encoded: usize,
        removed: usize,
        time_ms: u64,
        /// What `--verify` found wrong in the written files.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        verify_problems: Vec<String>,
        /// With `--verify`: how many written files were re-read and validated.
        #[serde(skip_serializing_if = "Option::is_none")]
        verified_files: Option<usize>,
        /// Why the build could not run at all (missing input, unwritable output, ...).
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

/// Receives events; called from worker threads.
pub trait Reporter: Sync {
    fn event(&self, event: &Event);
}

/// Ignores every event (library use without output).
pub struct SilentReporter;

impl Reporter for SilentReporter {
    fn event(&self, _event: &Event) {}
}

/// Milliseconds, rounded, as an integer (JSON consumers want integers).
pub fn whole_ms(d: std::time::Duration) -> u64 {
    (d.as_micros() as u64 + 500) / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_without_a_site_keeps_its_detail_whole() {
        // A detail that starts like a glTF path is not split: only a site gives a place.
        let d = Diagnostic::from_detail(
            "a.gltf",
            "meshes[0]: looks like a place",
            Some(DiagnosticCode::InvalidSource),
        );
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.gltf_path, None);
        assert_eq!(d.message, "meshes[0]: looks like a place");
        assert_eq!(d.code, Some(DiagnosticCode::InvalidSource));
        assert_eq!(d.rendered(), "a.gltf: meshes[0]: looks like a place");
    }

    #[test]
    fn a_warning_keeps_its_code_and_place_as_raised() {
        let w = Warning::at(
            DiagnosticCode::BadImage,
            "images[0] (Test Pattern.png)",
            "cannot decode: bad CRC",
        );
        let d = Diagnostic::from_warning("a.gltf", &w);
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(d.gltf_path.as_deref(), Some("images[0] (Test Pattern.png)"));
        assert_eq!(d.message, "cannot decode: bad CRC");
        assert_eq!(d.code, Some(DiagnosticCode::BadImage));
        // A place that is not a glTF path (an OBJ line) stays in the message, as the
        // rendered line shows it.
        let d = Diagnostic::from_warning(
            "a.obj",
            &Warning::at(
                DiagnosticCode::DanglingReference,
                "line 3",
                "usemtl x unknown",
            ),
        );
        assert_eq!(
            (d.gltf_path, d.message.as_str()),
            (None, "line 3: usemtl x unknown")
        );
        assert_eq!(d.code, Some(DiagnosticCode::DanglingReference));
        // A message with a colon in it is never split: the place is a field.
        let d = Diagnostic::from_warning(
            "a.gltf",
            &Warning::new(
                DiagnosticCode::NotExported,
                "materials[0]: looks like a path",
            ),
        );
        assert_eq!(d.gltf_path, None);
        assert_eq!(d.message, "materials[0]: looks like a path");
    }

    #[test]
    fn an_error_with_a_site_is_not_read_back_from_its_text() {
        let site = ErrorSite {
            at: "meshes[1].primitives[0] (Door: left)".into(),
            detail: "no such accessor".into(),
        };
        let d = Diagnostic::from_site("a.gltf", &site, Some(DiagnosticCode::DanglingReference));
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            d.gltf_path.as_deref(),
            Some("meshes[1].primitives[0] (Door: left)")
        );
        assert_eq!(d.message, "no such accessor");
        assert_eq!(d.code, Some(DiagnosticCode::DanglingReference));
    }
}
