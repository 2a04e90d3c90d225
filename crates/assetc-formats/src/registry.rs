//! The one list of runtime formats and the lookups over it. Above every format module
//! (each names its descriptor's type in [`crate::format`]); engines and the driver find a
//! format here by path, extension, magic, entry kind or kind.

use crate::entry_kind::EntryKind;
pub use crate::format::*;
use crate::FormatKind;
use std::path::Path;

/// Every runtime format, one line each, in the order messages list them.
pub static FORMATS: &[&Format] = &[
    &crate::hmesh::FORMAT,
    &crate::hmat::FORMAT,
    &crate::hanim::FORMAT,
    &crate::hman::FORMAT,
    &crate::ktx2::FORMAT,
    &crate::qtmesh::FORMAT,
    &crate::bmd1::FORMAT,
    &crate::spk::FORMAT,
    &crate::hpack::FORMAT,
    &crate::spirv::FORMAT,
    &crate::wgsl::FORMAT,
    &crate::hfont::FORMAT,
    &crate::wav::FORMAT,
    &crate::vorbis::FORMAT,
];

/// The format of a file named `path`, by its extension (any case).
pub fn by_path(path: &Path) -> Option<&'static Format> {
    by_extension(path.extension()?.to_str()?)
}

/// The format an extension (without the dot, any case) names.
pub fn by_extension(ext: &str) -> Option<&'static Format> {
    FORMATS.iter().copied().find(|f| f.has_extension(ext))
}

/// The format whose signature `bytes` carry; `None` for a format with none (or bytes of
/// no format of ours).
pub fn by_magic(bytes: &[u8]) -> Option<&'static Format> {
    FORMATS.iter().copied().find(|f| f.matches_magic(bytes))
}

/// The format of the files a manifest entry of `kind` names; `None` for a raw file.
pub fn by_entry_kind(kind: EntryKind) -> Option<&'static Format> {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.entry_kinds.contains(&kind))
}

pub fn by_kind(kind: FormatKind) -> &'static Format {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.kind == kind)
        // The registry test checks that every kind has its line.
        .expect("every FormatKind is in FORMATS")
}

#[cfg(test)]
mod tests;
