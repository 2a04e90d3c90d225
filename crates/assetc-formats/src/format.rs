//! One descriptor per runtime format and the registry of them all, so that the tools
//! (`inspect`, `info`, `check`, `--verify`) loop over [`FORMATS`] instead of matching on
//! [`FormatKind`]: a new format is its module, its `format.rs` and one line below.

use crate::describe::{Description, Stats};
use crate::entry_kind::EntryKind;
use crate::{FormatKind, Problem};

/// A reader's error, whatever its type (each reader has its own thiserror enum); shown
/// with `Display`, never parsed.
pub type ReadError = Box<dyn std::error::Error + Send + Sync>;

/// Bytes a file of the format holds at a fixed place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Magic {
    pub at: MagicAt,
    pub bytes: &'static [u8],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MagicAt {
    /// Bytes from the start of the file.
    Start(usize),
    /// Bytes back from the end of the file (a Qt `.mesh` keeps its id in a footer).
    End(usize),
}

impl Magic {
    pub const fn start(bytes: &'static [u8]) -> Self {
        Self {
            at: MagicAt::Start(0),
            bytes,
        }
    }
    pub fn found_in(&self, file: &[u8]) -> bool {
        let from = match self.at {
            MagicAt::Start(offset) => Some(offset),
            MagicAt::End(back) => file.len().checked_sub(back),
        };
        from.and_then(|f| file.get(f..f.checked_add(self.bytes.len())?)) == Some(self.bytes)
    }
}

/// The `info` total a file of the format adds to, beyond files and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tally {
    /// `meshes` (when the file reads), and its vertices, triangles and meshlets.
    Mesh,
    /// `materials`: the rows of a material table (a mesh's own material count is not one).
    MaterialTable,
    /// `textures` (whether or not the file reads, as a texture the build wrote).
    Texture,
}

/// Everything the tools know of one runtime format.
#[derive(Debug)]
pub struct Format {
    pub kind: FormatKind,
    /// What people call it (`.hmesh`, `KTX2`, `Qt .mesh`).
    pub name: &'static str,
    /// Lower-case extensions without the dot; the first is the one assetc writes.
    pub extensions: &'static [&'static str],
    /// Signatures a file of the format has: any one of them, each of its runs all found.
    /// Empty for a format with no signature.
    pub magic: &'static [&'static [Magic]],
    /// The manifest entry kinds whose files are of this format.
    pub entry_kinds: &'static [EntryKind],
    /// Every rule the bytes break; empty when the file is valid.
    pub validate: fn(&[u8]) -> Vec<Problem>,
    /// What `inspect` shows.
    pub describe: fn(&[u8]) -> Result<Description, ReadError>,
    /// What `info` shows and adds up (`Stats::default()` for a format it only counts).
    pub stats: fn(&[u8]) -> Result<Stats, ReadError>,
    pub tally: Option<Tally>,
}

impl Format {
    pub fn has_extension(&self, ext: &str) -> bool {
        self.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
    }
    /// Whether `bytes` carry one of the format's signatures.
    pub fn matches_magic(&self, bytes: &[u8]) -> bool {
        self.magic
            .iter()
            .any(|signature| signature.iter().all(|m| m.found_in(bytes)))
    }
}
