//! The BMD1 descriptor: a model's meshes, LODs, bones and animations as `inspect` shows
//! them.

use super::{read, validate, MAGIC};
use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::Bmd1,
    name: "BMD1",
    extensions: &["bmd"],
    magic: &[&[Magic::start(&MAGIC)]],
    // A target's own model format; the manifest lists `.hmesh` files only.
    entry_kinds: &[],
    validate,
    describe,
    stats: |_| Ok(Stats::default()),
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let b = read(bytes)?;
    let mut doc = Document::new(format!("BMD1 model ({})", size(bytes.len() as u64)));
    doc.fact("meshes", b.meshes.len());
    doc.fact("LODs", b.lods.len());
    doc.fact("bones", b.bones.len());
    doc.fact("animations", b.animations.len());
    let t = doc.table(
        "meshes",
        &[
            "mesh",
            "material",
            "vertices",
            "vertex list",
            "primitives",
            "triangle list",
        ],
    );
    for (i, m) in b.meshes.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            // A mesh without a material is a bone's solid, not drawn.
            m.material.clone().unwrap_or_else(|| "(not drawn)".into()),
            m.vertices.len().to_string(),
            format!("{:?}", m.vertex_list),
            m.primitives.len().to_string(),
            format!("{:?}", m.triangle_list),
        ]);
    }
    let t = doc.table("LODs", &["LOD", "first mesh", "meshes", "scale"]);
    for (i, l) in b.lods.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            l.first_mesh.to_string(),
            l.mesh_count.to_string(),
            l.scale.to_string(),
        ]);
    }
    let t = doc.table("bones", &["bone", "name", "solid"]);
    for (i, bone) in b.bones.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            bone.name.clone().unwrap_or_else(|| "(base)".into()),
            bone.solid.to_string(),
        ]);
    }
    let t = doc.table(
        "animations",
        &["animation", "name", "frames", "rate (Hz)", "looping"],
    );
    for (i, a) in b.animations.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            a.name.clone(),
            a.frame_count.to_string(),
            (a.rate_quarter_hz as f32 / 4.0).to_string(),
            a.looping.to_string(),
        ]);
    }
    Ok(Description::Document(doc))
}
