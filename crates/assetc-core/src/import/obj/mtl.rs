//! MTL materials as [`Material`]s: the Phong-era fields mapped onto the metallic-roughness
//! model every runtime format holds.
//!
//! - `Kd` is the base colour (linear, as exporters write glTF's factor), `d` its alpha
//!   (else `1 - Tr`); alpha below 1 or a `map_d` makes the material BLEND.
//! - `Ns` (Blinn-Phong exponent) becomes roughness through the usual equivalence between a
//!   Blinn-Phong lobe and a microfacet one (Walter et al. 2007): `alpha = sqrt(2 / (Ns + 2))`
//!   and, glTF's roughness being `sqrt(alpha)`, `roughness = (2 / (Ns + 2))^(1/4)`: `Ns` 0
//!   gives 1, `Ns` 250 gives 0.30, `Ns` 1000 gives 0.21. The PBR extension's `Pr`, when
//!   present, wins. Metallic is `Pm`, else 0 (OBJ has no metals; glTF's default 1 would make
//!   every OBJ material a mirror).
//! - `Ke` is the emissive factor.
//! - `map_Kd` is the base colour texture, `map_Bump`/`bump`/`norm` the normal texture
//!   (`-bm` its scale), all on the only UV set OBJ has.

use super::scan::LineError;
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::import::input_root::InputPathError;
use crate::scene::{AlphaMode, Material, TextureRef};

/// Refuses the MTL statements `tobj` cannot read without panicking: a colour (`Ka`, `Kd`,
/// `Ks`, `Ke`) with fewer than three numbers.
pub fn check(text: &str) -> Result<(), LineError> {
    for (i, raw) in text.split('\n').enumerate() {
        let mut words = raw.split_whitespace();
        if let Some(key @ ("Ka" | "Kd" | "Ks" | "Ke")) = words.next() {
            let numbers: Vec<&str> = words.take(3).collect();
            if numbers.len() < 3 || numbers.iter().any(|w| w.parse::<f32>().is_err()) {
                return Err(LineError {
                    line: i + 1,
                    reason: format!("{key}: expected three numbers r g b, found {numbers:?}"),
                    code: crate::code::DiagnosticCode::InvalidSource,
                });
            }
        }
    }
    Ok(())
}

/// A texture statement's file name with its options (`-bm 0.5 -s 1 1 1 file.png`)
/// removed: options start with `-` and take the numbers (or on/off word) that follow.
pub struct TextureStatement {
    pub file: String,
    /// `-bm` (bump multiplier), when given.
    pub bump_multiplier: Option<f32>,
    /// Whether `-o`, `-s` or `-t` move the texture (the runtime formats cannot).
    pub transformed: bool,
}

pub fn texture_statement(value: &str) -> Option<TextureStatement> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut i = 0;
    let mut bump_multiplier = None;
    let mut transformed = false;
    while i < words.len() && words[i].starts_with('-') && words[i].len() > 1 {
        let option = words[i];
        i += 1;
        let first_value = i;
        while i < words.len()
            && (words[i].parse::<f32>().is_ok() || matches!(words[i], "on" | "off"))
            && i + 1 < words.len()
        {
            i += 1;
        }
        match option {
            "-bm" => bump_multiplier = words.get(first_value).and_then(|w| w.parse().ok()),
            "-o" | "-s" | "-t" => transformed = true,
            _ => {}
        }
    }
    let file = words.get(i..)?.join(" ");
    (!file.is_empty()).then_some(TextureStatement {
        file,
        bump_multiplier,
        transformed,
    })
}

/// Why an MTL entry's texture statement cannot be kept, naming the material and slot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("material {material:?}: {slot} names no file")]
    NoFile { material: String, slot: String },
    #[error("material {material:?}: {slot} {file}: {source}")]
    Image {
        material: String,
        slot: String,
        file: String,
        source: Box<InputPathError>,
    },
}

/// The material of one MTL entry. `image` resolves a texture statement's file to an index
/// into the scene's images (or says why it cannot).
pub fn material(
    m: &tobj::Material,
    mut image: impl FnMut(&str) -> Result<usize, InputPathError>,
    warnings: &mut Vec<Warning>,
) -> Result<Material, MaterialError> {
    let param = |key: &str| -> Option<f32> { m.unknown_param.get(key)?.trim().parse().ok() };
    let kd = m.diffuse.unwrap_or([1.0; 3]);
    let alpha = m
        .dissolve
        .or_else(|| param("Tr").map(|tr| 1.0 - tr))
        .unwrap_or(1.0)
        .clamp(0.0, 1.0);
    let roughness = param("Pr").unwrap_or_else(|| match m.shininess {
        Some(ns) if ns.is_finite() => (2.0 / (ns.max(0.0) + 2.0)).powf(0.25),
        _ => 1.0,
    });
    let mut texture =
        |slot: &str, value: &str| -> Result<(TextureRef, TextureStatement), MaterialError> {
            let statement = texture_statement(value).ok_or_else(|| MaterialError::NoFile {
                material: m.name.clone(),
                slot: slot.to_owned(),
            })?;
            let index = image(&statement.file).map_err(|source| MaterialError::Image {
                material: m.name.clone(),
                slot: slot.to_owned(),
                file: statement.file.clone(),
                source: Box::new(source),
            })?;
            if statement.transformed {
                warnings.push(Warning::new(
                    DiagnosticCode::NotExported,
                    format!(
                "material {:?}: {slot} {}: -o/-s/-t texture offsets and scales are not kept",
                m.name, statement.file
            ),
                ));
            }
            let reference = TextureRef {
                image: index,
                tex_coord: 0,
                has_transform: false,
                transform: None,
                // MTL's `-clamp on` is read by no importer we compare with; maps repeat.
                sampler: Default::default(),
            };
            Ok((reference, statement))
        };
    let base_color_texture = match &m.diffuse_texture {
        Some(v) => Some(texture("map_Kd", v)?.0),
        None => None,
    };
    let normal_value = m
        .normal_texture
        .as_ref()
        .map(|v| ("map_Bump", v))
        .or_else(|| m.unknown_param.get("norm").map(|v| ("norm", v)));
    let (normal_texture, normal_scale) = match normal_value {
        Some((slot, v)) => {
            let (reference, statement) = texture(slot, v)?;
            (Some(reference), statement.bump_multiplier.unwrap_or(1.0))
        }
        None => (None, 1.0),
    };
    if let Some(map_d) = &m.dissolve_texture {
        // .hmat has no opacity texture: the base colour texture's alpha is what a runtime
        // samples, so a separate opacity map cannot be carried.
        let same = texture_statement(map_d).map(|s| s.file)
            == m.diffuse_texture
                .as_deref()
                .and_then(texture_statement)
                .map(|s| s.file);
        if !same {
            warnings.push(Warning::new(
                DiagnosticCode::NotExported,
                format!(
                "material {:?}: map_d {map_d} is not the map_Kd texture; the runtime materials \
                 take opacity from the base colour texture's alpha, so it is not kept",
                m.name
            ),
            ));
        }
    }
    let blend = alpha < 1.0 || m.dissolve_texture.is_some();
    Ok(Material {
        name: Some(m.name.clone()),
        base_color_factor: [kd[0], kd[1], kd[2], alpha],
        emissive_factor: m.emissive.unwrap_or([0.0; 3]),
        metallic_factor: param("Pm").unwrap_or(0.0).clamp(0.0, 1.0),
        roughness_factor: roughness.clamp(0.0, 1.0),
        normal_scale,
        alpha_mode: if blend {
            AlphaMode::Blend
        } else {
            AlphaMode::Opaque
        },
        base_color_texture,
        normal_texture,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<tobj::Material> {
        tobj::load_mtl_buf(&mut text.as_bytes()).unwrap().0
    }

    #[test]
    fn phong_fields_map_to_metallic_roughness() {
        let mats = parse(
            "newmtl a\nKd 0.5 0.25 1\nd 0.5\nNs 250\nKe 1 0 0\nmap_Kd tex/a b.png\n\
             map_Bump -bm 0.3 n.png\nnewmtl b\nTr 0.25\nPr 0.7\nPm 1\nnorm n2.png\n",
        );
        let mut files = Vec::new();
        let mut warnings: Vec<Warning> = Vec::new();
        let mut resolve = |f: &str| {
            files.push(f.to_string());
            Ok(files.len() - 1)
        };
        let a = material(&mats[0], &mut resolve, &mut warnings).unwrap();
        assert_eq!(a.base_color_factor, [0.5, 0.25, 1.0, 0.5]);
        assert_eq!(a.alpha_mode, AlphaMode::Blend);
        // (2 / 252)^(1/4) = 0.29848...
        assert!(
            (a.roughness_factor - 0.29848).abs() < 1e-4,
            "{}",
            a.roughness_factor
        );
        assert_eq!(a.metallic_factor, 0.0);
        assert_eq!(a.emissive_factor, [1.0, 0.0, 0.0]);
        assert_eq!(a.base_color_texture.as_ref().map(|t| t.image), Some(0));
        assert_eq!(a.normal_texture.as_ref().map(|t| t.image), Some(1));
        assert_eq!(a.normal_scale, 0.3);
        let b = material(&mats[1], &mut resolve, &mut warnings).unwrap();
        assert_eq!(b.base_color_factor, [1.0, 1.0, 1.0, 0.75]);
        assert_eq!((b.roughness_factor, b.metallic_factor), (0.7, 1.0));
        assert_eq!(b.normal_texture.as_ref().map(|t| t.image), Some(2));
        assert_eq!(files, ["tex/a b.png", "n.png", "n2.png"]);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn short_colours_are_refused_before_tobj_sees_them() {
        let e = check("newmtl a\nKd 1 1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("three numbers"), "{e:?}");
        assert!(check("newmtl a\nKd 1 1 1\nKs 0 0 0 # shiny\n").is_ok());
    }

    #[test]
    fn texture_options_are_skipped() {
        let t = texture_statement("-s 1 1 1 -clamp on my file.png").unwrap();
        assert_eq!(t.file, "my file.png");
        assert!(t.transformed);
        let t = texture_statement("plain.png").unwrap();
        assert_eq!((t.file.as_str(), t.transformed), ("plain.png", false));
        // Only options, no file: nothing.
        assert!(texture_statement("-bm").is_none());
    }
}
