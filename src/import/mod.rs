//! Importers: turn a source file into a [`crate::scene::Scene`].

pub mod fbx;
pub mod gltf;
pub mod scene_check;

pub use self::fbx::import_fbx;
pub use self::gltf::{import_gltf, ImportError, ImportLimits, ImportOptions};

use crate::scene::Scene;
use std::path::Path;

/// Imports a model source with the importer its extension names (case ignored):
/// `.gltf`/`.glb` -> [`import_gltf`], `.fbx` -> [`import_fbx`]. Anything else is read as
/// glTF, which reports what it finds.
pub fn import_model(
    path: &Path,
    source_ref: &str,
    options: &ImportOptions,
) -> Result<Scene, ImportError> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("fbx") => import_fbx(path, source_ref, options),
        _ => import_gltf(path, source_ref, options),
    }
}
