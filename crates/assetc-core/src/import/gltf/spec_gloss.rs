//! `KHR_materials_pbrSpecularGlossiness` (archived by Khronos, still required by some
//! files): when a file requires it, its materials have no metallic-roughness fallback, so
//! the diffuse colour and texture become the base colour, metallic 0 and roughness
//! `1 - glossiness`. The specular colour and the specular-glossiness texture have no slot
//! in `.hmat`; they are reported as dropped. A file that only uses the extension keeps its
//! metallic-roughness material, which its author made for readers like this one.

use super::{bad, Ctx, Res};
use gltf::json;

pub const EXTENSION: &str = "KHR_materials_pbrSpecularGlossiness";

/// What a specular-glossiness material becomes.
pub struct Converted {
    pub base_color_factor: [f32; 4],
    pub base_color_texture: Option<json::texture::Info>,
    pub roughness_factor: f32,
}

/// The conversion of `m`, when the file requires the extension and `m` has it.
pub fn converted(ctx: &Ctx, m: &json::Material, path: &str) -> Res<Option<Converted>> {
    if !ctx.root.extensions_required.iter().any(|e| e == EXTENSION) {
        return Ok(None);
    }
    let Some(ext) = m.extensions.as_ref().and_then(|e| e.others.get(EXTENSION)) else {
        return Ok(None);
    };
    let path = format!("{path}.extensions.{EXTENSION}");
    let base_color_factor = match ext.get("diffuseFactor") {
        None => [1.0; 4],
        Some(v) => match serde_json::from_value::<[f32; 4]>(v.clone()) {
            Ok(f) if f.iter().all(|c| c.is_finite()) => f,
            _ => {
                return bad(
                    format!("{path}.diffuseFactor"),
                    "is not four finite numbers",
                )
            }
        },
    };
    let glossiness = match ext.get("glossinessFactor") {
        None => 1.0,
        Some(v) => match v.as_f64() {
            Some(g) if (0.0..=1.0).contains(&g) => g as f32,
            _ => {
                return bad(
                    format!("{path}.glossinessFactor"),
                    "is not a number in [0, 1]",
                )
            }
        },
    };
    let base_color_texture = match ext.get("diffuseTexture") {
        None => None,
        Some(v) => match serde_json::from_value::<json::texture::Info>(v.clone()) {
            Ok(info) => Some(info),
            Err(e) => return bad(format!("{path}.diffuseTexture"), e.to_string()),
        },
    };
    Ok(Some(Converted {
        base_color_factor,
        base_color_texture,
        roughness_factor: 1.0 - glossiness,
    }))
}
