//! `[shader]`: the shader kind's build.toml table.

use crate::kinds::settings::{Section, SettingsError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `[shader]`: how `.wgsl`, `.wesl` and GLSL sources become SPIR-V.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShaderSettings {
    /// Preprocessor defines for GLSL sources (`NAME = "VALUE"`; an empty value defines
    /// the name alone); the `@if` features of `.wesl` sources and the `#ifdef` defines of
    /// WGSL written for naga_oil (`"false"` or `"0"` turns a feature off, any other value
    /// on; a feature not named is off).
    pub defines: BTreeMap<String, String>,
    /// Folders of shader modules outside the input tree (an engine's own,
    /// `bevy_pbr/forward_io.wesl`), relative to build.toml: imports not found in the tree
    /// are looked up there. Their files are read, never built on their own.
    pub import_paths: Vec<String>,
    /// The folder `import_paths` are relative to: build.toml's, set when the file is read
    /// (the current folder without one). Not in the key: where the project sits on a
    /// machine does not change its outputs; the files read are in the key as inputs.
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
}

impl ShaderSettings {
    /// `import_paths` as folders on this machine.
    pub fn import_dirs(&self) -> Vec<PathBuf> {
        let base = self.base_dir.as_deref().unwrap_or(Path::new(""));
        self.import_paths.iter().map(|p| base.join(p)).collect()
    }
}

impl Section for ShaderSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        if let Some(empty) = self.import_paths.iter().find(|p| p.trim().is_empty()) {
            return Err(SettingsError::EmptyImportPath(empty.clone()));
        }
        Ok(())
    }
}
