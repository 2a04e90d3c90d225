//! The `.hpack` descriptor: a pack's entries as `inspect` shows them.

use super::{kind_name, MAGIC};
use crate::describe::{Description, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::FormatKind;
use std::fmt::Write;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HPack,
    name: ".hpack",
    extensions: &["hpack"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    // `assetc pack` bundles a tree; a build never lists a pack in its manifest.
    entry_kinds: &[],
    validate: super::validate,
    describe,
    stats: |_| Ok(Stats::default()),
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let p = super::read(bytes)?;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, ".hpack: {} entries", p.len());
    for e in p.entries() {
        let _ = writeln!(
            w,
            "{:>10} at {:>10}  {:<9} {}",
            e.size,
            e.offset,
            kind_name(e.kind),
            e.path
        );
    }
    Ok(Description::Text(out))
}
