//! Importers: turn a source file into a [`crate::scene::Scene`].

pub mod gltf;
pub mod obj;
pub mod scene_check;

pub use self::gltf::{import_gltf, ImportError, ImportLimits, ImportOptions};
pub use self::obj::import_obj;

use crate::scene::Scene;
use std::path::Path;

/// Imports a model source by its extension (case-insensitive): `.gltf`/`.glb` through the
/// glTF importer, `.obj` through the OBJ one. Anything else is read as glTF, whose error
/// then says what the file is not.
pub fn import_model(
    path: &Path,
    source_ref: &str,
    opts: &ImportOptions,
) -> Result<Scene, ImportError> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("obj") => import_obj(path, source_ref, opts),
        _ => import_gltf(path, source_ref, opts),
    }
}
