//! Images and materials. One [`Image`] per distinct image file of the FBX (ufbx's
//! `texture_files`, so two textures naming one file share it), embedded (FBX `Video`
//! content) or external; one [`Material`] per FBX material, from ufbx's PBR view of it
//! (ufbx maps Phong/Lambert, Autodesk Standard Surface, 3ds Max Physical and Blender's
//! exported properties onto one set of PBR maps).

use super::super::gltf::{bad, Res};
use super::load::file_name_in_folder;
use super::{names, Ctx};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::import::input_root::resolve_below;
use crate::scene::{AlphaMode, Image, ImageSource, Material, Sampler, TextureRef, Wrap};
use std::path::Path;
use std::sync::Arc;

pub fn import_images(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Image>> {
    let mut images = Vec::with_capacity(ctx.fbx.texture_files.len());
    for (i, f) in ctx.fbx.texture_files.iter().enumerate() {
        let named = file_name_in_folder(&f.relative_filename, &f.absolute_filename);
        let gltf_path = match &named {
            Some(name) => format!("images[{i}] ({name})"),
            None => format!("images[{i}]"),
        };
        let content: &[u8] = &f.content;
        let (source, bytes, uri) = if !content.is_empty() {
            (ImageSource::Embedded, content.to_vec(), None)
        } else {
            let Some(name) = named else {
                return bad(gltf_path, "the texture names no file and embeds no image");
            };
            let relative: &str = &f.relative_filename;
            if relative.is_empty() {
                warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    gltf_path.to_string(),
                    format!(
                        "the FBX gives only the exporter's absolute path {:?}; \
                     looked for {name} beside the FBX",
                        &*f.absolute_filename
                    ),
                ));
            }
            match resolve_below(&ctx.base_dir, &ctx.input_root, Path::new(&name)) {
                Ok(file) => (ImageSource::File(file), Vec::new(), Some(name)),
                Err(reason) => return bad(gltf_path, reason.to_string()),
            }
        };
        images.push(Image {
            gltf_path,
            name: None,
            uri,
            // The texture stage tells formats apart by their bytes.
            mime_type: None,
            source,
            bytes: Arc::new(bytes),
        });
    }
    Ok(images)
}

pub fn import_materials(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Material>> {
    let mut out = Vec::with_capacity(ctx.fbx.materials.len());
    for m in ctx.fbx.materials.iter() {
        let path = names::element_path("materials", &m.element);
        let pbr = &m.pbr;
        let mut unsupported = Vec::new();
        let mut tex = |map: &ufbx::MaterialMap, slot: &str| -> Res<Option<TextureRef>> {
            texture_ref(
                ctx,
                &format!("{path}.{slot}"),
                map,
                &mut unsupported,
                warnings,
            )
        };
        let base_color_texture = tex(&pbr.base_color, "base_color")?;
        let normal_texture = match tex(&pbr.normal_map, "normal_map")? {
            Some(t) => Some(t),
            None => tex(&m.fbx.normal_map, "NormalMap")?,
        };
        let occlusion_texture = tex(&pbr.ambient_occlusion, "ambient_occlusion")?;
        let emissive_texture = tex(&pbr.emission_color, "emission_color")?;
        // glTF packs roughness (G) and metalness (B) into one image; an FBX that names the
        // same file for both maps is that image. Separate maps cannot be one slot.
        let roughness = tex(&pbr.roughness, "roughness")?;
        let metalness = tex(&pbr.metalness, "metalness")?;
        let metallic_roughness_texture = match (roughness, metalness) {
            (Some(r), Some(mt)) if r.image == mt.image => Some(r),
            (None, None) => None,
            _ => {
                unsupported.push("separate roughness and metalness maps".to_string());
                None
            }
        };
        // A texture connected to an FBX property replaces the property's value (Maya, Max
        // and Blender render it so, and Blender writes its default 0.8 grey there): the
        // factor is white then, times the map's own factor.
        let base = if base_color_texture.is_some() {
            ufbx::Vec4 {
                x: 1.0,
                y: 1.0,
                z: 1.0,
                w: 1.0,
            }
        } else {
            pbr.base_color.value_vec4
        };
        let base_factor = factor(&pbr.base_factor);
        let opacity = if pbr.opacity.has_value {
            pbr.opacity.value_vec4.x as f32
        } else {
            1.0
        };
        let emission = if emissive_texture.is_some() {
            ufbx::Vec4 {
                x: 1.0,
                y: 1.0,
                z: 1.0,
                w: 1.0,
            }
        } else {
            pbr.emission_color.value_vec4
        };
        let emission_factor = factor(&pbr.emission_factor);
        let scalar = |map: &ufbx::MaterialMap, default: f32| {
            if map.has_value {
                map.value_vec4.x as f32
            } else {
                default
            }
        };
        let base_color_factor = [
            base.x as f32 * base_factor,
            base.y as f32 * base_factor,
            base.z as f32 * base_factor,
            opacity,
        ];
        let emissive_factor = [
            emission.x as f32 * emission_factor,
            emission.y as f32 * emission_factor,
            emission.z as f32 * emission_factor,
        ];
        let values = base_color_factor.iter().chain(&emissive_factor);
        if values.clone().any(|v| !v.is_finite()) {
            return bad(path, "a colour or factor is not finite");
        }
        unsupported.sort();
        unsupported.dedup();
        out.push(Material {
            name: names::name(&m.element),
            base_color_factor,
            emissive_factor,
            metallic_factor: scalar(&pbr.metalness, 0.0).clamp(0.0, 1.0),
            roughness_factor: scalar(&pbr.roughness, 0.5).clamp(0.0, 1.0),
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_mode: if opacity < 1.0 {
                AlphaMode::Blend
            } else {
                AlphaMode::Opaque
            },
            alpha_cutoff: 0.5,
            double_sided: m.features.double_sided.enabled,
            unlit: m.features.unlit.enabled,
            base_color_texture,
            metallic_roughness_texture,
            normal_texture,
            occlusion_texture,
            emissive_texture,
            unsupported_extensions: unsupported,
        });
    }
    Ok(out)
}

/// A scalar factor map, 1 when the file does not set it.
fn factor(map: &ufbx::MaterialMap) -> f32 {
    if map.has_value {
        map.value_vec4.x as f32
    } else {
        1.0
    }
}

/// The image a material map's texture uses: a file texture's own file, or for a layered
/// or shader texture, the first file texture under it (glTF has one image per slot).
fn texture_ref(
    ctx: &Ctx,
    path: &str,
    map: &ufbx::MaterialMap,
    unsupported: &mut Vec<String>,
    warnings: &mut Vec<Warning>,
) -> Res<Option<TextureRef>> {
    let Some(texture) = map.texture.as_ref() else {
        return Ok(None);
    };
    if !map.texture_enabled {
        return Ok(None);
    }
    let file = if texture.has_file {
        Some(texture.file_index)
    } else {
        let first = texture.file_textures.iter().find(|t| t.has_file);
        if first.is_some() {
            unsupported.push(format!("{:?} texture", texture.type_));
        }
        first.map(|t| t.file_index)
    };
    let Some(image) = file else {
        warnings.push(Warning::at(
            DiagnosticCode::DanglingReference,
            path.to_string(),
            format!(
                "{} names no image file; slot left empty",
                names::element_path("textures", &texture.element)
            ),
        ));
        return Ok(None);
    };
    let image = image as usize;
    if image >= ctx.fbx.texture_files.len() {
        return bad(path, format!("image {image} does not exist"));
    }
    if texture.has_uv_transform {
        unsupported.push("FBX texture UV transform".to_string());
    }
    // FBX names a texture's UV set per texture, by the set's name; runtime materials
    // sample set 0, which is what every exporter we read uses for material maps.
    // FBX knows repeat and clamp per axis (no mirror, no filter).
    let wrap = |mode: ufbx::WrapMode| match mode {
        ufbx::WrapMode::Clamp => Wrap::ClampToEdge,
        _ => Wrap::Repeat,
    };
    Ok(Some(TextureRef {
        image,
        tex_coord: 0,
        has_transform: texture.has_uv_transform,
        transform: None,
        sampler: Sampler {
            wrap_s: wrap(texture.wrap_u),
            wrap_t: wrap(texture.wrap_v),
            mag_nearest: false,
        },
    }))
}
