//! glTF 2.0 importer (being written).
use crate::scene::Scene;
use std::path::Path;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub input_root: std::path::PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{0}")]
    Other(String),
}

pub fn import_gltf(
    _path: &Path,
    _source_ref: &str,
    _opts: &ImportOptions,
) -> Result<Scene, ImportError> {
    Err(ImportError::Other("not yet".into()))
}
