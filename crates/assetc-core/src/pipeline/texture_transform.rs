//! `KHR_texture_transform` baked into UVs, for targets whose materials cannot hold a
//! transform (`.hmat`). A material's textures on one UV set that share one transform have
//! it applied to that set of every primitive using the material, and lose it; textures of
//! one set with different transforms cannot all be right with one set of UVs, so they are
//! left alone with a warning naming the material (the material stage then reports the
//! transform as dropped).
//!
//! The extension defines uv' = T * R * S * uv: scale, then rotate (`rotation` radians,
//! counter-clockwise as seen on the image, whose v axis points down), then offset:
//!
//! ```text
//! u' =  cos(r) * sx * u + sin(r) * sy * v + ox
//! v' = -sin(r) * sx * u + cos(r) * sy * v + oy
//! ```

use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{Material, Scene, TextureRef, TextureTransform};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// UV sets a primitive carries (`uv0`, `uv1`).
const UV_SETS: u32 = 2;

/// `scene` with every material's shared texture transforms baked into its primitives' UVs
/// (borrowed unchanged when no texture has a transform to bake), and one warning per
/// material whose textures on one UV set disagree.
pub fn bake_texture_transforms(scene: &Scene) -> (Cow<'_, Scene>, Vec<Warning>) {
    let mut warnings: Vec<Warning> = Vec::new();
    // (material, UV set, transform) to bake.
    let mut bakes: Vec<(usize, u32, Option<TextureTransform>)> = Vec::new();
    // Only materials a primitive uses (a KHR_materials_variants alternative is not).
    let used: BTreeSet<usize> = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .filter_map(|p| p.material)
        .collect();
    for (index, material) in scene.materials.iter().enumerate() {
        if !used.contains(&index) {
            continue;
        }
        for set in 0..UV_SETS {
            let refs: Vec<&TextureRef> = slots(material)
                .into_iter()
                .flatten()
                .filter(|t| t.tex_coord == set)
                .collect();
            if !refs.iter().any(|t| t.has_transform) {
                continue;
            }
            // A transform with non-finite values was already dropped (with a warning) by
            // the importer: that texture samples the UVs as they are.
            let first = refs[0].transform;
            let effective = |t: Option<TextureTransform>| t.unwrap_or_default();
            if refs
                .iter()
                .all(|t| effective(t.transform) == effective(first))
            {
                bakes.push((index, set, first));
            } else {
                warnings.push(Warning::at(
                    DiagnosticCode::NotExported,
                    material_label(material, index),
                    format!(
                        "its textures on UV set {set} use different KHR_texture_transforms; \
                     one set of UVs cannot hold them all, so they are dropped"
                    ),
                ));
            }
        }
    }
    if bakes.is_empty() {
        return (Cow::Borrowed(scene), warnings);
    }
    let mut baked = scene.clone();
    for &(index, set, transform) in &bakes {
        if let Some(t) = transform.filter(|t| *t != TextureTransform::default()) {
            for prim in baked
                .meshes
                .iter_mut()
                .flat_map(|m| m.primitives.iter_mut())
                .filter(|p| p.material == Some(index))
            {
                let uvs = if set == 0 {
                    &mut prim.uv0
                } else {
                    &mut prim.uv1
                };
                for uv in uvs.iter_mut().flatten() {
                    *uv = apply(&t, *uv);
                }
            }
        }
        let Some(material) = baked.materials.get_mut(index) else {
            continue;
        };
        for t in slots_mut(material).into_iter().flatten() {
            if t.tex_coord == set {
                t.has_transform = false;
                t.transform = None;
            }
        }
        if slots(material)
            .into_iter()
            .flatten()
            .all(|t| !t.has_transform)
        {
            material
                .unsupported_extensions
                .retain(|e| e != "KHR_texture_transform");
        }
    }
    (Cow::Owned(baked), warnings)
}

/// One UV through the transform: scale, rotate, offset.
pub fn apply(t: &TextureTransform, [u, v]: [f32; 2]) -> [f32; 2] {
    let (sin, cos) = t.rotation.sin_cos();
    let (su, sv) = (t.scale[0] * u, t.scale[1] * v);
    [
        cos * su + sin * sv + t.offset[0],
        -sin * su + cos * sv + t.offset[1],
    ]
}

fn slots(m: &Material) -> [&Option<TextureRef>; 5] {
    [
        &m.base_color_texture,
        &m.metallic_roughness_texture,
        &m.normal_texture,
        &m.occlusion_texture,
        &m.emissive_texture,
    ]
}

fn slots_mut(m: &mut Material) -> [&mut Option<TextureRef>; 5] {
    [
        &mut m.base_color_texture,
        &mut m.metallic_roughness_texture,
        &mut m.normal_texture,
        &mut m.occlusion_texture,
        &mut m.emissive_texture,
    ]
}

fn material_label(m: &Material, index: usize) -> String {
    match &m.name {
        Some(n) if !n.is_empty() => format!("materials[{index}] ({n})"),
        _ => format!("materials[{index}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Primitive};
    use std::f32::consts::FRAC_PI_2;

    fn close(a: [f32; 2], b: [f32; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
    }

    #[test]
    fn scale_then_rotate_then_offset() {
        let t = TextureTransform {
            offset: [0.25, 0.5],
            rotation: FRAC_PI_2,
            scale: [2.0, 3.0],
        };
        // (1, 0) scaled is (2, 0); a quarter turn counter-clockwise on the image (v down)
        // takes +u to -v: (0, -2); offset: (0.25, -1.5).
        assert!(close(apply(&t, [1.0, 0.0]), [0.25, -1.5]));
        // (0, 1) scaled is (0, 3); the quarter turn takes +v to +u: (3, 0); (3.25, 0.5).
        assert!(close(apply(&t, [0.0, 1.0]), [3.25, 0.5]));
        // The origin only moves by the offset.
        assert!(close(apply(&t, [0.0, 0.0]), [0.25, 0.5]));
        // The extension's own example: the lower-left quadrant, turned: offset (0, 1),
        // rotation 90 degrees, scale 0.5 maps the UV square's corners (0, 0) and (1, 1)
        // to (0, 1) and (0.5, 0.5).
        let example = TextureTransform {
            offset: [0.0, 1.0],
            rotation: FRAC_PI_2,
            scale: [0.5, 0.5],
        };
        assert!(close(apply(&example, [0.0, 0.0]), [0.0, 1.0]));
        assert!(close(apply(&example, [1.0, 1.0]), [0.5, 0.5]));
        assert_eq!(apply(&TextureTransform::default(), [0.3, 0.7]), [0.3, 0.7]);
    }

    fn transformed(offset: [f32; 2]) -> Option<TextureRef> {
        Some(TextureRef {
            has_transform: true,
            transform: Some(TextureTransform {
                offset,
                rotation: 0.0,
                scale: [2.0, 2.0],
            }),
            ..TextureRef::default()
        })
    }

    fn scene() -> Scene {
        let shared = Material {
            name: Some("Shared".into()),
            base_color_texture: transformed([0.5, 0.0]),
            metallic_roughness_texture: transformed([0.5, 0.0]),
            // Occlusion on UV1 without a transform: set 1 has nothing to bake.
            occlusion_texture: Some(TextureRef {
                tex_coord: 1,
                ..TextureRef::default()
            }),
            unsupported_extensions: vec!["KHR_texture_transform".into()],
            ..Material::default()
        };
        let mixed = Material {
            name: Some("Mixed".into()),
            base_color_texture: transformed([0.5, 0.0]),
            normal_texture: transformed([0.0, 0.5]),
            unsupported_extensions: vec!["KHR_texture_transform".into()],
            ..Material::default()
        };
        let prim = |material| Primitive {
            positions: vec![[0.0; 3]; 2],
            uv0: Some(vec![[0.0, 0.0], [1.0, 0.25]]),
            uv1: Some(vec![[0.5, 0.5], [1.0, 1.0]]),
            indices: vec![0, 1, 1],
            material: Some(material),
            ..Primitive::default()
        };
        Scene {
            meshes: vec![Mesh {
                name: None,
                primitives: vec![prim(0), prim(1)],
            }],
            materials: vec![shared, mixed],
            ..Scene::default()
        }
    }

    #[test]
    fn shared_transforms_are_baked_and_differing_ones_named() {
        let source = scene();
        let (baked, warnings) = bake_texture_transforms(&source);
        let prims = &baked.meshes[0].primitives;
        // Scale 2 then offset (0.5, 0): (0, 0) -> (0.5, 0), (1, 0.25) -> (2.5, 0.5).
        assert_eq!(prims[0].uv0, Some(vec![[0.5, 0.0], [2.5, 0.5]]));
        assert_eq!(prims[0].uv1, source.meshes[0].primitives[0].uv1);
        let shared = &baked.materials[0];
        assert!(shared
            .base_color_texture
            .as_ref()
            .is_some_and(|t| !t.has_transform && t.transform.is_none()));
        assert!(shared.unsupported_extensions.is_empty());
        // The mixed material's primitive keeps its UVs and its transforms.
        assert_eq!(prims[1].uv0, source.meshes[0].primitives[1].uv0);
        assert!(baked.materials[1]
            .normal_texture
            .as_ref()
            .is_some_and(|t| t.has_transform));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .to_string()
                .starts_with("materials[1] (Mixed): its textures on UV set 0"),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_scene_without_transforms_to_bake_is_borrowed() {
        let mut s = scene();
        // Materials no primitive uses are neither baked nor named.
        for p in &mut s.meshes[0].primitives {
            p.material = None;
        }
        let (baked, warnings) = bake_texture_transforms(&s);
        assert!(matches!(baked, Cow::Borrowed(_)));
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
