//! `[shader]`: the shader kind's build.toml table.

use crate::kinds::settings::{Section, SettingsError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `[shader]`: how `.wgsl`, `.wesl` and GLSL sources become SPIR-V (and WGSL).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// What each entry point is written as: `spirv` (`<ref>/<entryPoint>.spv`) and/or
    /// `wgsl` (`<ref>/<entryPoint>.wgsl`, one plain WGSL module for WebGPU).
    pub outputs: Vec<ShaderOutput>,
    /// The folder `import_paths` are relative to: build.toml's, set when the file is read
    /// (the current folder without one). Not in the key: where the project sits on a
    /// machine does not change its outputs; the files read are in the key as inputs.
    #[serde(skip)]
    pub base_dir: Option<PathBuf>,
}

/// One of `[shader] outputs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShaderOutput {
    /// SPIR-V 1.3 `.spv`, for Vulkan (and wgpu's native backends).
    Spirv,
    /// Plain WGSL `.wgsl` (imports linked, `@if`/`#ifdef` resolved), for WebGPU.
    Wgsl,
}

impl ShaderOutput {
    pub fn name(self) -> &'static str {
        match self {
            Self::Spirv => "spirv",
            Self::Wgsl => "wgsl",
        }
    }
}

impl Default for ShaderSettings {
    fn default() -> Self {
        Self {
            defines: BTreeMap::new(),
            import_paths: Vec::new(),
            outputs: vec![ShaderOutput::Spirv],
            base_dir: None,
        }
    }
}

impl ShaderSettings {
    pub fn writes(&self, output: ShaderOutput) -> bool {
        self.outputs.contains(&output)
    }

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
        if self.outputs.is_empty() {
            return Err(SettingsError::NoShaderOutputs);
        }
        let mut seen = Vec::new();
        for output in &self.outputs {
            if seen.contains(output) {
                return Err(SettingsError::RepeatedShaderOutput(output.name()));
            }
            seen.push(*output);
        }
        Ok(())
    }
}
