//! The material stage: the `.hmat` rows of one source, in material-slot order, and the
//! textures those rows refer to.

use crate::code::DiagnosticCode;
use crate::formats::hmat::{
    self, GpuMaterial, SlotSampler, ALPHA_MODE_SHIFT, FLAG_DOUBLE_SIDED, FLAG_UNLIT,
};
use crate::pipeline::textures::{
    load_image_bytes, texture_id, TextureError, TextureMode, TextureSettings,
};
use crate::scene::{AlphaMode, Material, Sampler, Scene, TextureRef, Wrap};
use crate::TextureJob;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A material's texture slot: its ref, glTF name, mode, coverage cutoff and row field, in
/// `.hmat` slot order (so the position is the slot's sampler index).
type SlotRef<'a> = (
    &'a Option<TextureRef>,
    &'static str,
    TextureMode,
    Option<f32>,
    &'a mut u64,
);

/// A source's material table and its textures, deduplicated by id in first-use order.
#[derive(Debug, Clone, Default)]
pub struct MaterialTable {
    pub rows: Vec<GpuMaterial>,
    pub textures: Vec<TextureJob>,
    pub warnings: Vec<crate::code::Warning>,
}

/// Builds the rows for `slots` (the source material index of each slot, in slot order;
/// None for primitives without a material, which get glTF's default material). Reads
/// the images the rows use, since a texture's id hashes its bytes; an image that cannot
/// be read fails the whole source.
pub fn build_material_table(
    scene: &Scene,
    slots: &[Option<usize>],
    settings: &TextureSettings,
) -> Result<MaterialTable, TextureError> {
    let mut table = MaterialTable::default();
    let mut loaded: HashMap<usize, Arc<Vec<u8>>> = HashMap::new();
    let mut dropped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut seen_ids = std::collections::HashSet::new();

    for &slot in slots {
        let Some(index) = slot else {
            table.rows.push(GpuMaterial::default());
            continue;
        };
        let Some(material) = scene.materials.get(index) else {
            dropped
                .entry("missing material".into())
                .or_default()
                .push(format!("materials[{index}]"));
            table.rows.push(GpuMaterial::default());
            continue;
        };
        let where_ = match &material.name {
            Some(n) if !n.is_empty() => format!("materials[{index}] ({n})"),
            _ => format!("materials[{index}]"),
        };
        for ext in &material.unsupported_extensions {
            dropped.entry(ext.clone()).or_default().push(where_.clone());
        }

        let mut row = factors(material);
        let repaired = repair_factors(&mut row);
        if !repaired.is_empty() {
            table.warnings.push(crate::code::Warning::at(
                DiagnosticCode::Repaired,
                where_.to_string(),
                repaired.join("; "),
            ));
        }
        let mask_cutoff = (material.alpha_mode == AlphaMode::Mask).then_some(material.alpha_cutoff);
        let refs: [SlotRef; 5] = [
            (
                &material.base_color_texture,
                "baseColorTexture",
                TextureMode::Color,
                mask_cutoff,
                &mut row.base_color_tex,
            ),
            (
                &material.metallic_roughness_texture,
                "metallicRoughnessTexture",
                TextureMode::Linear,
                None,
                &mut row.metallic_roughness_tex,
            ),
            (
                &material.normal_texture,
                "normalTexture",
                TextureMode::Normal,
                None,
                &mut row.normal_tex,
            ),
            (
                &material.occlusion_texture,
                "occlusionTexture",
                TextureMode::Linear,
                None,
                &mut row.occlusion_tex,
            ),
            (
                &material.emissive_texture,
                "emissiveTexture",
                TextureMode::Color,
                None,
                &mut row.emissive_tex,
            ),
        ];
        let mut samplers = 0;
        for (slot, (tex, slot_name, mode, alpha_cutoff, field)) in (0u32..).zip(refs) {
            let Some(tex) = tex else { continue };
            samplers = hmat::with_sampler(samplers, slot, slot_sampler(tex.sampler));
            if tex.has_transform {
                dropped
                    .entry("KHR_texture_transform".into())
                    .or_default()
                    .push(format!("{where_}.{slot_name}"));
            }
            if tex.tex_coord != 0 {
                // The set's UVs are kept (TEXCOORD_1 is the .hmesh's UV1S); only the row
                // cannot say that this slot reads them.
                let kept = if tex.tex_coord == 1 {
                    "its UVs are the .hmesh's UV1S, but a .hmat row cannot name the set"
                } else {
                    "UV0 is used"
                };
                dropped
                    .entry(format!("texCoord {} ({kept})", tex.tex_coord))
                    .or_default()
                    .push(format!("{where_}.{slot_name}"));
            }
            let bytes = match loaded.get(&tex.image) {
                Some(b) => b.clone(),
                None => {
                    let b = load_image_bytes(scene, tex.image)?;
                    loaded.insert(tex.image, b.clone());
                    b
                }
            };
            let id = texture_id(&bytes, mode, alpha_cutoff, settings);
            *field = id;
            if seen_ids.insert(id) {
                let image = scene.images.get(tex.image);
                table.textures.push(TextureJob {
                    id,
                    image: tex.image,
                    mode,
                    alpha_cutoff,
                    bytes,
                    mime_type: image.and_then(|i| i.mime_type.clone()),
                    label: label(scene, tex.image),
                });
            }
        }
        row.samplers = samplers;
        table.rows.push(row);
    }

    if !dropped.is_empty() {
        let parts: Vec<String> = dropped
            .into_iter()
            .map(|(what, places)| format!("{what} on {}", places.join(", ")))
            .collect();
        table.warnings.push(crate::code::Warning::new(
            DiagnosticCode::NotExported,
            format!(
                "materials: dropped what .hmat cannot hold: {}",
                parts.join("; ")
            ),
        ));
    }
    Ok(table)
}

/// A texture ref's sampler in `.hmat`'s terms.
fn slot_sampler(s: Sampler) -> SlotSampler {
    let wrap = |w: Wrap| match w {
        Wrap::Repeat => hmat::WRAP_REPEAT,
        Wrap::ClampToEdge => hmat::WRAP_CLAMP_TO_EDGE,
        Wrap::MirroredRepeat => hmat::WRAP_MIRRORED_REPEAT,
    };
    SlotSampler {
        wrap_s: wrap(s.wrap_s),
        wrap_t: wrap(s.wrap_t),
        mag_nearest: s.mag_nearest,
    }
}

fn label(scene: &Scene, image: usize) -> String {
    match scene.images.get(image) {
        Some(i) => match (&i.uri, &i.name) {
            (Some(u), _) => format!("images[{image}] ({u})"),
            (None, Some(n)) => format!("images[{image}] ({n})"),
            _ => format!("images[{image}]"),
        },
        None => format!("images[{image}]"),
    }
}

/// The row's factors and flags; texture fields are filled by the caller.
fn factors(m: &Material) -> GpuMaterial {
    let alpha_mode = match m.alpha_mode {
        AlphaMode::Opaque => 0,
        AlphaMode::Mask => 1,
        AlphaMode::Blend => 2,
    };
    let mut flags = alpha_mode << ALPHA_MODE_SHIFT;
    if m.double_sided {
        flags |= FLAG_DOUBLE_SIDED;
    }
    if m.unlit {
        flags |= FLAG_UNLIT;
    }
    GpuMaterial {
        base_color_factor: m.base_color_factor,
        emissive_factor: m.emissive_factor,
        metallic_factor: m.metallic_factor,
        roughness_factor: m.roughness_factor,
        normal_scale: m.normal_scale,
        occlusion_strength: m.occlusion_strength,
        alpha_cutoff: m.alpha_cutoff,
        flags,
        ..GpuMaterial::default()
    }
}

/// Brings a row's factors into the ranges glTF 2.0 defines and `.hmat` validation
/// requires: a non-finite factor (`1e300` read as f32 is infinite) takes the glTF default,
/// a finite one outside its range is clamped to it. Returns one note per changed field.
fn repair_factors(row: &mut GpuMaterial) -> Vec<String> {
    let defaults = GpuMaterial::default();
    let mut notes = Vec::new();
    let mut fix = |name: String, v: &mut f32, default: f32, lo: f32, hi: f32| {
        let fixed = if v.is_finite() {
            v.clamp(lo, hi)
        } else {
            default
        };
        if fixed.to_bits() != v.to_bits() {
            notes.push(format!("{name} {v} is outside [{lo}, {hi}], using {fixed}"));
            *v = fixed;
        }
    };
    for (i, c) in row.base_color_factor.iter_mut().enumerate() {
        fix(
            format!("baseColorFactor[{i}]"),
            c,
            defaults.base_color_factor[i],
            0.0,
            1.0,
        );
    }
    // Emissive is unbounded above (KHR_materials_emissive_strength scales it), but must be
    // finite and not negative.
    for (i, c) in row.emissive_factor.iter_mut().enumerate() {
        fix(
            format!("emissiveFactor[{i}]"),
            c,
            defaults.emissive_factor[i],
            0.0,
            f32::MAX,
        );
    }
    let scalars = [
        (
            "metallicFactor",
            &mut row.metallic_factor,
            defaults.metallic_factor,
            0.0,
            1.0,
        ),
        (
            "roughnessFactor",
            &mut row.roughness_factor,
            defaults.roughness_factor,
            0.0,
            1.0,
        ),
        (
            "occlusionTexture.strength",
            &mut row.occlusion_strength,
            defaults.occlusion_strength,
            0.0,
            1.0,
        ),
        (
            "normalTexture.scale",
            &mut row.normal_scale,
            defaults.normal_scale,
            f32::MIN,
            f32::MAX,
        ),
        (
            "alphaCutoff",
            &mut row.alpha_cutoff,
            defaults.alpha_cutoff,
            0.0,
            f32::MAX,
        ),
    ];
    for (name, v, default, lo, hi) in scalars {
        fix(name.to_string(), v, default, lo, hi);
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Image, ImageSource};

    #[test]
    fn out_of_range_and_non_finite_factors_are_repaired_and_reported() {
        let mut row = factors(&Material {
            base_color_factor: [3.5, -1.0, 0.25, f32::NAN],
            metallic_factor: f32::INFINITY,
            roughness_factor: 0.5,
            emissive_factor: [2.0, -0.5, 0.0],
            alpha_cutoff: -0.25,
            ..Material::default()
        });
        let notes = repair_factors(&mut row);
        assert_eq!(row.base_color_factor, [1.0, 0.0, 0.25, 1.0]);
        assert_eq!(
            row.metallic_factor, 1.0,
            "glTF default for a non-finite value"
        );
        assert_eq!(row.roughness_factor, 0.5, "in range: untouched");
        assert_eq!(
            row.emissive_factor,
            [2.0, 0.0, 0.0],
            "emissive may exceed 1"
        );
        assert_eq!(row.alpha_cutoff, 0.0);
        assert_eq!(notes.len(), 6, "{notes:?}");
        assert!(notes[0].starts_with("baseColorFactor[0] 3.5"), "{notes:?}");
        let bytes = crate::formats::hmat::write(&crate::formats::hmat::HMat {
            materials: vec![row],
        });
        assert_eq!(crate::formats::hmat::validate(&bytes), vec![]);
        let mut fine = factors(&Material::default());
        assert!(repair_factors(&mut fine).is_empty());
    }

    fn image(bytes: &[u8], uri: &str) -> Image {
        Image {
            gltf_path: "images[0]".into(),
            name: None,
            uri: Some(uri.into()),
            mime_type: Some("image/png".into()),
            source: ImageSource::Embedded,
            bytes: Arc::new(bytes.to_vec()),
        }
    }

    fn tex(image: usize) -> Option<TextureRef> {
        Some(TextureRef {
            image,
            ..TextureRef::default()
        })
    }

    fn scene() -> Scene {
        let wood = Material {
            name: Some("Wood".into()),
            base_color_factor: [0.5, 0.25, 1.0, 0.75],
            emissive_factor: [2.0, 0.0, 0.0],
            alpha_mode: AlphaMode::Mask,
            alpha_cutoff: 0.3,
            double_sided: true,
            base_color_texture: tex(0),
            normal_texture: Some(TextureRef {
                image: 1,
                tex_coord: 1,
                has_transform: true,
                transform: None,
                sampler: Sampler {
                    wrap_s: Wrap::MirroredRepeat,
                    wrap_t: Wrap::ClampToEdge,
                    mag_nearest: true,
                },
            }),
            occlusion_texture: tex(1),
            metallic_roughness_texture: tex(1),
            ..Material::default()
        };
        let glow = Material {
            unlit: true,
            alpha_mode: AlphaMode::Blend,
            emissive_texture: tex(0),
            unsupported_extensions: vec!["KHR_materials_sheen".into()],
            ..Material::default()
        };
        Scene {
            materials: vec![wood, glow],
            images: vec![image(b"png-a", "a.png"), image(b"png-b", "b.png")],
            ..Scene::default()
        }
    }

    #[test]
    fn rows_follow_slots_with_factors_flags_and_ids() {
        let s = scene();
        let settings = TextureSettings::default();
        let t = build_material_table(&s, &[Some(1), None, Some(0)], &settings).unwrap();
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[1], GpuMaterial::default());
        let glow = &t.rows[0];
        assert_eq!(glow.flags, (2 << 1) | 8);
        assert_eq!(
            glow.emissive_tex,
            texture_id(b"png-a", TextureMode::Color, None, &settings)
        );
        assert_eq!(glow.base_color_tex, 0);
        let wood = &t.rows[2];
        assert_eq!(wood.base_color_factor, [0.5, 0.25, 1.0, 0.75]);
        assert_eq!(wood.emissive_factor, [2.0, 0.0, 0.0]);
        assert_eq!(wood.alpha_cutoff, 0.3);
        assert_eq!(wood.flags, 1 | (1 << 1));
        assert_eq!(
            wood.base_color_tex,
            texture_id(b"png-a", TextureMode::Color, Some(0.3), &settings)
        );
        assert_eq!(wood.metallic_roughness_tex, wood.occlusion_tex);
        // Only the normal slot (2, bits 10-14) has a sampler other than repeat/linear:
        // wrapS mirrored (2), wrapT clamp (1 << 2), nearest (1 << 4) = 0b10110.
        assert_eq!(wood.samplers, 0b10110 << 10);
        assert_eq!(glow.samplers, 0);
        assert_eq!(
            wood.normal_tex,
            texture_id(b"png-b", TextureMode::Normal, None, &settings)
        );
        // a.png in colour (plain and MASK), b.png linear and normal: four distinct jobs.
        let ids: Vec<u64> = t.textures.iter().map(|j| j.id).collect();
        assert_eq!(
            ids,
            vec![
                glow.emissive_tex,
                wood.base_color_tex,
                wood.metallic_roughness_tex,
                wood.normal_tex
            ]
        );
        assert_eq!(t.textures[1].alpha_cutoff, Some(0.3));
        assert_eq!(t.textures[3].label, "images[1] (b.png)");
    }

    #[test]
    fn one_warning_names_everything_dropped() {
        let t = build_material_table(&scene(), &[Some(0), Some(1)], &TextureSettings::default())
            .unwrap();
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
        let w = &t.warnings[0].to_string();
        assert!(
            w.contains("KHR_texture_transform on materials[0] (Wood).normalTexture"),
            "{w}"
        );
        assert!(w.contains("texCoord 1"), "{w}");
        assert!(w.contains("KHR_materials_sheen on materials[1]"), "{w}");
        let clean = build_material_table(&scene(), &[None], &TextureSettings::default()).unwrap();
        assert!(clean.warnings.is_empty());
    }

    #[test]
    fn unreadable_image_fails_naming_it() {
        let mut s = scene();
        s.images[1].source = ImageSource::File("/nonexistent/dir/b.png".into());
        let err = build_material_table(&s, &[Some(0)], &TextureSettings::default()).unwrap_err();
        assert!(err.to_string().starts_with("images[1] (b.png)"), "{err}");
    }
}
