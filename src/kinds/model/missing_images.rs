//! A model's texture images that do not exist. Engines' importers load such a model with
//! the slots that use the image empty, and so does the build (`texture.missing_images =
//! "warn"`, the default), with one warning per missing file; `"fail"` (`--strict`) leaves
//! the scene as it is, and the texture stage fails the model naming the file. Buffers are
//! geometry: a missing one fails the model in the importer, whatever this says.

use crate::code::{DiagnosticCode, Warning};
use crate::scene::{ImageSource, Material, Scene, TextureRef};
use std::path::Path;

/// Empties every material slot whose image is a file that does not exist, and returns one
/// warning per such image that some slot used. Images no slot uses are never read, so
/// their absence is not worth a word.
pub(super) fn leave_out(scene: &mut Scene) -> Vec<Warning> {
    let missing: Vec<bool> = scene
        .images
        .iter()
        .map(|image| matches!(&image.source, ImageSource::File(path) if does_not_exist(path)))
        .collect();
    if !missing.contains(&true) {
        return Vec::new();
    }
    let mut users: Vec<Vec<String>> = vec![Vec::new(); scene.images.len()];
    for (index, material) in scene.materials.iter_mut().enumerate() {
        let material_name = match &material.name {
            Some(name) if !name.is_empty() => format!("material {name:?}"),
            _ => format!("materials[{index}]"),
        };
        for (slot, texture) in slots(material) {
            let Some(image) = texture.as_ref().map(|t| t.image) else {
                continue;
            };
            if missing.get(image) == Some(&true) {
                users[image].push(format!("{slot} of {material_name}"));
                *texture = None;
            }
        }
    }
    scene
        .images
        .iter()
        .zip(&users)
        .filter(|(_, users)| !users.is_empty())
        .filter_map(|(image, users)| {
            let ImageSource::File(path) = &image.source else {
                return None;
            };
            let message = format!(
                "{} does not exist: built without this texture ({}); --strict fails the model instead",
                path.display(),
                users.join(", ")
            );
            Some(Warning::at(DiagnosticCode::MissingFile, image.gltf_path.clone(), message))
        })
        .collect()
}

/// Only a file that is not there: one that exists but cannot be read is a problem of its
/// own, which the texture stage reports as an error.
fn does_not_exist(path: &Path) -> bool {
    matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// Every texture slot of a material, named as people call it.
fn slots(material: &mut Material) -> [(&'static str, &mut Option<TextureRef>); 5] {
    [
        ("base colour", &mut material.base_color_texture),
        (
            "metallic-roughness",
            &mut material.metallic_roughness_texture,
        ),
        ("normal map", &mut material.normal_texture),
        ("occlusion", &mut material.occlusion_texture),
        ("emissive", &mut material.emissive_texture),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Image;
    use std::sync::Arc;

    fn image(path: &Path) -> Image {
        Image {
            gltf_path: format!("images[0] ({})", path.display()),
            name: None,
            uri: None,
            mime_type: None,
            source: ImageSource::File(path.to_path_buf()),
            bytes: Arc::new(Vec::new()),
        }
    }

    fn textured(image: usize) -> Option<TextureRef> {
        Some(TextureRef {
            image,
            ..Default::default()
        })
    }

    #[test]
    fn only_the_slots_of_missing_files_are_emptied_and_each_file_is_named_once() {
        let dir = tempfile::tempdir().unwrap();
        let present = dir.path().join("here.png");
        std::fs::write(&present, b"not read here").unwrap();
        let gone = dir.path().join("gone.png");
        let mut scene = Scene {
            images: vec![
                image(&present),
                image(&gone),
                image(&dir.path().join("unused.png")),
            ],
            materials: vec![
                Material {
                    base_color_texture: textured(1),
                    normal_texture: textured(0),
                    ..Default::default()
                },
                Material {
                    name: Some("Flag".into()),
                    emissive_texture: textured(1),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let warnings = leave_out(&mut scene);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let message = &warnings[0].message;
        assert!(message.contains(&gone.display().to_string()), "{message}");
        assert!(
            message.contains("base colour of materials[0]")
                && message.contains("emissive of material \"Flag\""),
            "{message}"
        );
        assert_eq!(warnings[0].code, Some(DiagnosticCode::MissingFile));
        assert!(scene.materials[0].base_color_texture.is_none());
        assert!(scene.materials[1].emissive_texture.is_none());
        assert_eq!(scene.materials[0].normal_texture, textured(0), "kept");
    }
}
