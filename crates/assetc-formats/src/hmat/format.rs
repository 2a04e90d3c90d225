//! The `.hmat` descriptor: a material table as `inspect` and `info` show it.

use super::{
    sampler_of, SlotSampler, ALPHA_MODE_MASK, ALPHA_MODE_SHIFT, FLAG_DOUBLE_SIDED, FLAG_UNLIT,
    MAGIC, VERSION, WRAP_CLAMP_TO_EDGE, WRAP_MIRRORED_REPEAT, WRAP_REPEAT,
};
use crate::describe::{hex, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError, Tally};
use crate::hman::EntryKind;
use crate::FormatKind;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HMat,
    name: ".hmat",
    extensions: &["hmat"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    entry_kinds: &[EntryKind::MaterialTable],
    validate: super::validate,
    describe,
    stats,
    tally: Some(Tally::MaterialTable),
};

fn alpha_mode(flags: u32) -> &'static str {
    match (flags & ALPHA_MODE_MASK) >> ALPHA_MODE_SHIFT {
        0 => "opaque",
        1 => "mask",
        2 => "blend",
        _ => "invalid",
    }
}

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    Ok(Description::Document(document(bytes)?))
}

fn document(bytes: &[u8]) -> Result<Document, ReadError> {
    let t = super::read(bytes)?;
    let mut doc = Document::new(format!(".hmat v{VERSION}: {} materials", t.materials.len()));
    let tex = |id: u64| if id == 0 { "-".to_string() } else { hex(id) };
    let table = doc.table(
        "materials",
        &[
            "slot",
            "base colour",
            "metal",
            "rough",
            "alpha",
            "flags",
            "base colour tex",
            "metal-rough tex",
            "normal tex",
            "occlusion tex",
            "emissive tex",
            "samplers",
        ],
    );
    for (i, m) in t.materials.iter().enumerate() {
        let c = m.base_color_factor;
        let mut flags = Vec::new();
        if m.flags & FLAG_DOUBLE_SIDED != 0 {
            flags.push("double-sided");
        }
        if m.flags & FLAG_UNLIT != 0 {
            flags.push("unlit");
        }
        table.row(vec![
            i.to_string(),
            format!("{:.2} {:.2} {:.2} {:.2}", c[0], c[1], c[2], c[3]),
            format!("{:.2}", m.metallic_factor),
            format!("{:.2}", m.roughness_factor),
            match alpha_mode(m.flags) {
                "mask" => format!("mask < {:.2}", m.alpha_cutoff),
                other => other.to_string(),
            },
            if flags.is_empty() {
                "-".to_string()
            } else {
                flags.join(",")
            },
            tex(m.base_color_tex),
            tex(m.metallic_roughness_tex),
            tex(m.normal_tex),
            tex(m.occlusion_tex),
            tex(m.emissive_tex),
            samplers(m.samplers),
        ]);
    }
    Ok(doc)
}

/// A row's `samplers` field: the slots that do not repeat with linear magnification, as
/// `normal clamp/mirror nearest`; "-" when every slot has the default.
fn samplers(bits: u32) -> String {
    let wrap = |w: u32| match w {
        WRAP_REPEAT => "repeat",
        WRAP_CLAMP_TO_EDGE => "clamp",
        WRAP_MIRRORED_REPEAT => "mirror",
        _ => "invalid",
    };
    let slots = ["base", "metal-rough", "normal", "occlusion", "emissive"];
    let parts: Vec<String> = (0u32..)
        .zip(slots)
        .map(|(i, name)| (name, sampler_of(bits, i)))
        .filter(|(_, s)| *s != SlotSampler::default())
        .map(|(name, s)| {
            let nearest = if s.mag_nearest { " nearest" } else { "" };
            format!("{name} {}/{}{nearest}", wrap(s.wrap_s), wrap(s.wrap_t))
        })
        .collect();
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join("; ")
    }
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    Ok(Stats {
        materials: Some(super::read(bytes)?.materials.len() as u64),
        ..Stats::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hmat::{write, GpuMaterial, HMat};

    #[test]
    fn the_samplers_column_names_non_default_slots() {
        // Slot 0 clamp S (1), mirror T (2 << 2); slot 2 nearest only (1 << 4 << 10).
        let row = GpuMaterial {
            samplers: 0b01001 | 0b10000 << 10,
            ..GpuMaterial::default()
        };
        let bytes = write(&HMat {
            materials: vec![row, GpuMaterial::default()],
        });
        let doc = document(&bytes).unwrap();
        let rows = &doc.tables[0].rows;
        assert_eq!(
            rows[0].last().map(String::as_str),
            Some("base clamp/mirror; normal repeat/repeat nearest")
        );
        assert_eq!(rows[1].last().map(String::as_str), Some("-"));
        assert_eq!(stats(&bytes).unwrap().materials, Some(2));
    }
}
