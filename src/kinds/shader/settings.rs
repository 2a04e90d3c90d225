//! `[shader]`: the shader kind's build.toml table.

use crate::kinds::settings::{Section, SettingsError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `[shader]`: how `.wgsl` and GLSL sources become SPIR-V.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShaderSettings {
    /// Preprocessor defines for GLSL sources (`NAME = "VALUE"`; an empty value defines
    /// the name alone).
    pub defines: BTreeMap<String, String>,
}

impl Section for ShaderSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        Ok(())
    }
}
