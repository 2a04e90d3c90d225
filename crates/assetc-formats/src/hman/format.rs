//! The `.hman` descriptor: a manifest's entries as `inspect` shows them.

use super::MAGIC;
use crate::describe::{hex, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::FormatKind;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HMan,
    name: ".hman",
    extensions: &["hman"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    // A manifest lists the other files; none lists it.
    entry_kinds: &[],
    validate: super::validate,
    describe,
    stats: |_| Ok(Stats::default()),
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let m = super::read(bytes)?;
    let mut doc = Document::new(format!(".hman: {} entries", m.entries().len()));
    let t = doc.table("entries", &["id", "kind", "colour space", "path"]);
    for e in m.entries() {
        t.row(vec![
            hex(e.hash),
            e.kind.name().to_string(),
            if e.srgb { "sRGB" } else { "-" }.to_string(),
            e.path.clone(),
        ]);
    }
    Ok(Description::Document(doc))
}
