//! The WGSL descriptor: a shader module's entry point as `inspect` and `info` show it.

use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, ReadError};
use crate::hman::EntryKind;
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::Wgsl,
    name: "WGSL",
    extensions: &["wgsl"],
    // Text, with no signature.
    magic: &[],
    entry_kinds: &[EntryKind::WgslShader],
    validate: super::validate,
    describe,
    stats,
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let info = super::read(bytes)?;
    let mut doc = Document::new(format!("WGSL module ({})", size(bytes.len() as u64)));
    doc.fact("lines", info.lines);
    match &info.module {
        Some(m) => {
            doc.fact("functions", m.functions);
            doc.fact("global variables", m.global_variables);
            doc.fact("overrides", m.overrides);
            doc.fact("types", m.types);
            let t = doc.table("entry points", &["name", "stage", "workgroup size"]);
            for e in &m.entry_points {
                let [x, y, z] = e.workgroup_size;
                let workgroup = match e.stage.as_str() {
                    "compute" | "task" | "mesh" => format!("{x} x {y} x {z}"),
                    _ => String::new(),
                };
                t.row(vec![e.name.clone(), e.stage.clone(), workgroup]);
            }
        }
        None => doc.fact(
            "entry points",
            "not read (assetc-formats without its `wgsl-naga` feature)",
        ),
    }
    Ok(Description::Document(doc))
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    let info = super::read(bytes)?;
    Ok(Stats {
        entry_points: info
            .module
            .iter()
            .flat_map(|m| &m.entry_points)
            .map(|e| format!("{} {}", e.stage, e.name))
            .collect(),
        ..Stats::default()
    })
}
