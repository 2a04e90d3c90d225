//! Images (embedded or external, never read here) and materials with the extensions
//! assetc folds in; everything else a material carries is listed as unsupported.

use super::buffers::BufferData;
use super::spec_gloss;
use super::{bad, dangling, paths, Ctx, Res};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{
    AlphaMode, Image, ImageSource, Material, Sampler, TextureRef, TextureTransform, Wrap,
};
use gltf::json;
use gltf::json::validation::Checked;
use std::sync::Arc;

pub fn import_images(ctx: &Ctx, data: &BufferData) -> Res<Vec<Image>> {
    let mut images = Vec::with_capacity(ctx.root.images.len());
    for (i, img) in ctx.root.images.iter().enumerate() {
        let gltf_path = match &img.uri {
            Some(uri) if !uri.starts_with("data:") => format!("images[{i}] ({uri})"),
            _ => format!("images[{i}]"),
        };
        let mut mime_type = img.mime_type.as_ref().map(|m| m.0.clone());
        let (source, bytes) = match (&img.uri, img.buffer_view) {
            (Some(uri), _) => match paths::parse_data_uri(uri) {
                Some(Ok(d)) => {
                    mime_type = mime_type.or(d.mime_type);
                    (ImageSource::Embedded, d.bytes)
                }
                Some(Err(reason)) => return bad(gltf_path, reason.to_string()),
                None => match paths::resolve_relative(ctx, uri) {
                    Ok(file) => (ImageSource::File(file), Vec::new()),
                    Err(reason) => return bad(gltf_path, reason.to_string()),
                },
            },
            (None, Some(view)) => {
                let (bytes, _) = data.view(ctx, view.value())?;
                (ImageSource::Embedded, bytes.to_vec())
            }
            (None, None) => return bad(gltf_path, "image has neither uri nor bufferView"),
        };
        images.push(Image {
            gltf_path,
            name: img.name.clone(),
            uri: img.uri.clone().filter(|u| !u.starts_with("data:")),
            mime_type,
            source,
            bytes: Arc::new(bytes),
        });
    }
    Ok(images)
}

/// Texture extensions that name the texture's image in another format: WebP (decoded by
/// `image`) and KTX2 with Basis Universal payloads (read like a `.ktx2` source: passed
/// through when it is what the settings write, else its ETC1S or UASTC blocks are decoded
/// and re-encoded). In this order of preference when a texture has both: WebP is a
/// full-colour source, a Basis image is already block-compressed.
pub const IMAGE_FORMATS: &[&str] = &["EXT_texture_webp", "KHR_texture_basisu"];

/// Material extensions whose content ends up in [`Material`].
const FOLDED: &[&str] = &["KHR_materials_emissive_strength", "KHR_materials_unlit"];

pub fn import_materials(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Material>> {
    let mut out = Vec::with_capacity(ctx.root.materials.len());
    for (i, m) in ctx.root.materials.iter().enumerate() {
        let path = format!("materials[{i}]");
        let mut unsupported: Vec<String> = Vec::new();
        let mut tex = |info: Option<(&json::texture::Info, &str)>,
                       extra: Option<&serde_json::Map<String, serde_json::Value>>|
         -> Res<Option<TextureRef>> {
            let Some((info, slot)) = info else {
                return Ok(None);
            };
            texture_ref(
                ctx,
                &format!("{path}.{slot}"),
                info,
                extra,
                &mut unsupported,
                warnings,
            )
        };
        let pbr = &m.pbr_metallic_roughness;
        let spec_gloss = spec_gloss::converted(ctx, m, &path)?;
        let (base_color_texture, metallic_roughness_texture) = match &spec_gloss {
            Some(sg) => (
                tex(
                    sg.base_color_texture.as_ref().map(|t| {
                        (
                            t,
                            "extensions.KHR_materials_pbrSpecularGlossiness.diffuseTexture",
                        )
                    }),
                    None,
                )?,
                None,
            ),
            None => (
                tex(
                    pbr.base_color_texture
                        .as_ref()
                        .map(|t| (t, "baseColorTexture")),
                    None,
                )?,
                tex(
                    pbr.metallic_roughness_texture
                        .as_ref()
                        .map(|t| (t, "metallicRoughnessTexture")),
                    None,
                )?,
            ),
        };
        let normal_texture = match &m.normal_texture {
            Some(n) => tex(
                Some((&as_info(n.index, n.tex_coord), "normalTexture")),
                n.extensions.as_ref().map(|e| &e.others),
            )?,
            None => None,
        };
        let occlusion_texture = match &m.occlusion_texture {
            Some(o) => tex(
                Some((&as_info(o.index, o.tex_coord), "occlusionTexture")),
                o.extensions.as_ref().map(|e| &e.others),
            )?,
            None => None,
        };
        let emissive_texture = tex(
            m.emissive_texture.as_ref().map(|t| (t, "emissiveTexture")),
            None,
        )?;
        let mut unlit = false;
        let mut strength = 1.0;
        if let Some(ext) = &m.extensions {
            unlit = ext.unlit.is_some();
            if let Some(s) = &ext.emissive_strength {
                strength = s.emissive_strength.0;
            }
            for name in ext.others.keys() {
                if spec_gloss.is_some() && name == spec_gloss::EXTENSION {
                    unsupported.push(format!("{name} specular colour and texture"));
                } else if !FOLDED.contains(&name.as_str()) {
                    unsupported.push(name.clone());
                }
            }
        }
        if !strength.is_finite() || strength < 0.0 {
            return bad(path, format!("emissiveStrength {strength} is invalid"));
        }
        let alpha_mode = match m.alpha_mode {
            Checked::Valid(json::material::AlphaMode::Opaque) => AlphaMode::Opaque,
            Checked::Valid(json::material::AlphaMode::Mask) => AlphaMode::Mask,
            Checked::Valid(json::material::AlphaMode::Blend) => AlphaMode::Blend,
            Checked::Invalid => return bad(path, "invalid alphaMode"),
        };
        let e = m.emissive_factor.0;
        unsupported.sort();
        unsupported.dedup();
        out.push(Material {
            name: m.name.clone(),
            base_color_factor: spec_gloss
                .as_ref()
                .map_or(pbr.base_color_factor.0, |sg| sg.base_color_factor),
            emissive_factor: [e[0] * strength, e[1] * strength, e[2] * strength],
            metallic_factor: spec_gloss.as_ref().map_or(pbr.metallic_factor.0, |_| 0.0),
            roughness_factor: spec_gloss
                .as_ref()
                .map_or(pbr.roughness_factor.0, |sg| sg.roughness_factor),
            normal_scale: m.normal_texture.as_ref().map_or(1.0, |n| n.scale),
            occlusion_strength: m.occlusion_texture.as_ref().map_or(1.0, |o| o.strength.0),
            alpha_mode,
            alpha_cutoff: m.alpha_cutoff.map_or(0.5, |c| c.0),
            double_sided: m.double_sided,
            unlit,
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

fn as_info(index: json::Index<json::Texture>, tex_coord: u32) -> json::texture::Info {
    json::texture::Info {
        index,
        tex_coord,
        extensions: None,
        extras: Default::default(),
    }
}

/// Resolves texture -> image and notes what the runtime formats cannot hold: a texture
/// transform, a second UV set, or texture-level extensions.
fn texture_ref(
    ctx: &Ctx,
    path: &str,
    info: &json::texture::Info,
    normal_or_occlusion_ext: Option<&serde_json::Map<String, serde_json::Value>>,
    unsupported: &mut Vec<String>,
    warnings: &mut Vec<Warning>,
) -> Res<Option<TextureRef>> {
    let t = info.index.value();
    let Some(texture) = ctx.root.textures.get(t) else {
        return dangling(path, format!("texture {t} does not exist"));
    };
    let mut has_transform = false;
    let mut transform = None;
    let mut tex_coord = info.tex_coord;
    let mut ext_names: Vec<&String> = Vec::new();
    if let Some(ext) = &info.extensions {
        if let Some(t) = &ext.texture_transform {
            has_transform = true;
            let values = TextureTransform {
                offset: t.offset.0,
                rotation: t.rotation.0,
                scale: t.scale.0,
            };
            let finite = values
                .offset
                .iter()
                .chain(&values.scale)
                .all(|f| f.is_finite())
                && values.rotation.is_finite();
            if finite {
                transform = Some(values);
            } else {
                warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    path.to_string(),
                    "KHR_texture_transform has values that are not finite; ignored",
                ));
            }
            // The extension's texCoord overrides the texture info's.
            tex_coord = t.tex_coord.unwrap_or(tex_coord);
        }
        ext_names.extend(ext.others.keys());
    }
    if let Some(others) = normal_or_occlusion_ext {
        ext_names.extend(others.keys());
    }
    for name in ext_names {
        if name == "KHR_texture_transform" {
            has_transform = true;
        } else {
            unsupported.push(name.clone());
        }
    }
    if has_transform {
        unsupported.push("KHR_texture_transform".into());
    }
    if tex_coord != 0 {
        unsupported.push(format!("texCoord {tex_coord}"));
    }
    let mut image = texture.source.value();
    if let Some(ext) = &texture.extensions {
        for (name, _) in &ext.others {
            if !IMAGE_FORMATS.contains(&name.as_str()) {
                unsupported.push(name.clone());
            }
        }
        // An image-format extension's image is the one the file means; the core `source`
        // (when there is one) is the fallback for viewers that cannot read it.
        let extension_image = IMAGE_FORMATS.iter().find_map(|name| {
            let source = ext.others.get(*name)?.get("source")?;
            Some((*name, source.as_u64()))
        });
        match extension_image {
            Some((_, Some(s))) => image = usize::try_from(s).unwrap_or(usize::MAX),
            Some((name, None)) => {
                return bad(
                    format!("textures[{t}].extensions.{name}.source"),
                    "is not an image index",
                )
            }
            None => {}
        }
    }
    if image == u32::MAX as usize {
        // `source` is optional; the gltf crate marks its absence with u32::MAX.
        warnings.push(Warning::at(
            DiagnosticCode::DanglingReference,
            path.to_string(),
            format!("textures[{t}] has no image source; slot left empty"),
        ));
        return Ok(None);
    }
    if image >= ctx.root.images.len() {
        return dangling(
            format!("textures[{t}]"),
            format!("image {image} does not exist"),
        );
    }
    let sampler = sampler(ctx, path, texture.sampler, warnings)?;
    Ok(Some(TextureRef {
        image,
        tex_coord,
        has_transform,
        transform,
        sampler,
    }))
}

/// The texture's sampler; none means repeat with linear filtering (glTF's default). A
/// wrap or filter value glTF does not define keeps that default, with a warning.
fn sampler(
    ctx: &Ctx,
    path: &str,
    index: Option<json::Index<json::texture::Sampler>>,
    warnings: &mut Vec<Warning>,
) -> Res<Sampler> {
    let Some(index) = index else {
        return Ok(Sampler::default());
    };
    let i = index.value();
    let Some(s) = ctx.root.samplers.get(i) else {
        return dangling(path, format!("sampler {i} does not exist"));
    };
    let wrap = |warnings: &mut Vec<Warning>,
                value: &Checked<json::texture::WrappingMode>,
                field: &str| match value {
        Checked::Valid(json::texture::WrappingMode::Repeat) => Wrap::Repeat,
        Checked::Valid(json::texture::WrappingMode::ClampToEdge) => Wrap::ClampToEdge,
        Checked::Valid(json::texture::WrappingMode::MirroredRepeat) => Wrap::MirroredRepeat,
        Checked::Invalid => {
            note(
                warnings,
                format!("samplers[{i}].{field} is not a glTF wrap mode; REPEAT used"),
            );
            Wrap::Repeat
        }
    };
    let wrap_s = wrap(warnings, &s.wrap_s, "wrapS");
    let wrap_t = wrap(warnings, &s.wrap_t, "wrapT");
    let mag_nearest = match &s.mag_filter {
        Some(Checked::Valid(json::texture::MagFilter::Nearest)) => true,
        Some(Checked::Valid(json::texture::MagFilter::Linear)) | None => false,
        Some(Checked::Invalid) => {
            note(
                warnings,
                format!("samplers[{i}].magFilter is not a glTF filter; LINEAR used"),
            );
            false
        }
    };
    Ok(Sampler {
        wrap_s,
        wrap_t,
        mag_nearest,
    })
}

/// Adds a warning once (a sampler is shared by every texture that names it).
fn note(warnings: &mut Vec<Warning>, message: String) {
    let warning = Warning::new(DiagnosticCode::Repaired, message);
    if !warnings.contains(&warning) {
        warnings.push(warning);
    }
}
