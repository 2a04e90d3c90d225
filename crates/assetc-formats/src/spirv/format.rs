//! The SPIR-V descriptor: a module's header and entry points as `inspect` and `info`
//! show them.

use super::MAGIC;
use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::hman::EntryKind;
use crate::FormatKind;

const LITTLE_ENDIAN: [u8; 4] = MAGIC.to_le_bytes();
const BIG_ENDIAN: [u8; 4] = MAGIC.to_be_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::Spirv,
    name: "SPIR-V",
    extensions: &["spv"],
    // The magic word says the byte order: assetc writes little-endian, the reader takes
    // either.
    magic: &[
        &[Magic::start(&LITTLE_ENDIAN)],
        &[Magic::start(&BIG_ENDIAN)],
    ],
    entry_kinds: &[EntryKind::Shader],
    validate: super::validate,
    describe,
    stats,
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let m = super::read(bytes)?;
    let mut doc = Document::new(format!("SPIR-V module ({})", size(bytes.len() as u64)));
    doc.fact("version", format!("{}.{}", m.version.0, m.version.1));
    doc.fact("words", m.words);
    doc.fact("id bound", m.bound);
    // The generator's tool id is in the high half (28 is naga, 8 glslang).
    doc.fact(
        "generator",
        format!(
            "tool {}, version {}",
            m.generator >> 16,
            m.generator & 0xFFFF
        ),
    );
    if m.big_endian {
        doc.fact("byte order", "big-endian");
    }
    let t = doc.table("entry points", &["name", "execution model"]);
    for e in &m.entry_points {
        t.row(vec![e.name.clone(), e.model_name()]);
    }
    Ok(Description::Document(doc))
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    let m = super::read(bytes)?;
    Ok(Stats {
        entry_points: m
            .entry_points
            .iter()
            .map(|e| format!("{} {}", e.model_name(), e.name))
            .collect(),
        spirv_version: Some(format!("{}.{}", m.version.0, m.version.1)),
        spirv_words: Some(m.words as u64),
        ..Stats::default()
    })
}
