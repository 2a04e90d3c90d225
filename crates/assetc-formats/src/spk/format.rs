//! The SparkPak descriptor: an archive's table of contents as `inspect` shows it.

use super::{open, validate, Compression, MAGIC};
use crate::describe::{hex, size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::Spk,
    name: "SparkPak",
    extensions: &["spk"],
    magic: &[&[Magic::start(&MAGIC)]],
    // The SparkEngine target packs a tree; the manifest never lists the pack.
    entry_kinds: &[],
    validate,
    describe,
    stats: |_| Ok(Stats::default()),
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let a = open(bytes)?;
    let mut doc = Document::new(format!("SparkPak archive ({})", size(bytes.len() as u64)));
    doc.fact("entries", a.len());
    let t = doc.table(
        "entries",
        &[
            "path",
            "path hash",
            "offset",
            "stored bytes",
            "bytes",
            "compression",
        ],
    );
    for e in a.entries() {
        t.row(vec![
            e.path.clone(),
            hex(e.path_hash),
            e.data_offset.to_string(),
            e.compressed_size.to_string(),
            e.original_size.to_string(),
            match e.compression {
                Compression::Stored => "stored",
                Compression::Deflate => "deflate",
            }
            .to_string(),
        ]);
    }
    Ok(Description::Document(doc))
}
