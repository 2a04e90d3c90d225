//! A source of a build: a file, or a folder a kind owns as a whole, and the runtime ref its
//! outputs are named after.

use super::KindId;
use crate::targets::file_names::fit_ref;
use std::path::PathBuf;

/// A source found under the input root: a file, or a folder a kind owns as a whole.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// Path relative to the input root, `/`-separated, as found (case kept).
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub kind: KindId,
    /// build.toml's `keep_case`: its outputs are named with the source's case.
    pub keep_case: bool,
}

impl Source {
    /// The runtime ref: relative path without extension, lower-cased (`models/chair`)
    /// unless `keep_case`, or with it where the kind keeps it (a cubemap folder's `.env`,
    /// formats.md); a name too long for a file name once the kind's extension is added is
    /// shortened by [`fit_ref`].
    pub fn runtime_ref(&self) -> String {
        let naming = super::kind(self.kind).naming;
        let unified = self.rel_path.replace('\\', "/");
        let reference = match (naming.ref_keeps_extension, self.keep_case) {
            (true, true) => unified,
            (true, false) => unified.to_lowercase(),
            (false, true) => without_extension(&unified).to_owned(),
            (false, false) => runtime_ref(&self.rel_path),
        };
        fit_ref(&reference, naming.extension_room)
    }

    /// The output path its outputs are named after, for collisions (the kind's
    /// [`Claim`](super::Claim)).
    pub fn claimed_output(&self) -> String {
        match super::kind(self.kind).naming.claims {
            super::Claim::Ref => self.runtime_ref(),
            super::Claim::SourcePath => self.rel_path.clone(),
            super::Claim::RefWith(suffix) => format!("{}{suffix}", self.runtime_ref()),
        }
    }

    /// `<runtime ref>.<ext>`: the output path of this source's file of that kind.
    pub fn output_rel(&self, ext: &str) -> String {
        format!("{}.{ext}", self.runtime_ref())
    }
}

/// Runtime ref of a relative path: extension dropped, lower-cased, `/`-separated.
pub fn runtime_ref(rel_path: &str) -> String {
    without_extension(&rel_path.replace('\\', "/")).to_lowercase()
}

/// A `/`-separated path without its last extension.
fn without_extension(unified: &str) -> &str {
    match unified.rfind('.') {
        Some(dot) if !unified[dot..].contains('/') => &unified[..dot],
        _ => unified,
    }
}
