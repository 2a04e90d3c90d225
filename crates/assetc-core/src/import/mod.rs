//! Importers: turn a source file into a [`crate::scene::Scene`].

pub mod fbx;
pub mod gltf;
pub mod input_root;
pub mod obj;
pub mod scene_check;

pub use self::fbx::import_fbx;
pub use self::gltf::{import_gltf, ImportError, ImportLimits, ImportOptions};
pub use self::obj::import_obj;

use crate::scene::Scene;
use std::path::Path;

/// The bytes of a source file, refused over `limits.max_file_bytes` before they are read,
/// and noted for the build cache (an input is stamped by the bytes its import read). What
/// every importer does first.
pub(crate) fn read_source(path: &Path, limits: &ImportLimits) -> Result<Vec<u8>, ImportError> {
    let file = path.display().to_string();
    let io_err = |source| ImportError::Io {
        file: file.clone(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if meta.len() > limits.max_file_bytes {
        return Err(ImportError::Limit {
            file,
            gltf_path: "file".into(),
            reason: format!(
                "{} bytes exceeds the limit of {} bytes",
                meta.len(),
                limits.max_file_bytes
            ),
        });
    }
    let data = std::fs::read(path).map_err(io_err)?;
    crate::read_log::note_read(path, &meta, &data);
    Ok(data)
}

/// Imports a model source with the importer its extension names (case ignored):
/// `.gltf`/`.glb` -> [`import_gltf`], `.obj` -> [`import_obj`], `.fbx` -> [`import_fbx`].
/// Anything else is read as glTF, which reports what it finds.
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
        Some("obj") => import_obj(path, source_ref, options),
        _ => import_gltf(path, source_ref, options),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_model_picks_the_importer_by_extension_whatever_its_case() {
        let dir = tempfile::tempdir().unwrap();
        let json = br#"{"asset":{"version":"2.0"}}"#;
        for name in ["a.FBX", "b.fbx"] {
            let path = dir.path().join(name);
            std::fs::write(&path, json).unwrap();
            let err = import_model(&path, "a", &ImportOptions::default()).unwrap_err();
            assert!(matches!(err, ImportError::Fbx { .. }), "{name}: {err}");
        }
        let path = dir.path().join("c.gltf");
        std::fs::write(&path, json).unwrap();
        assert!(import_model(&path, "c", &ImportOptions::default()).is_ok());
    }
}
