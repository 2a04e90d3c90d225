//! The model kind's build.toml tables: `[mesh]` and `[animation]` (the pipeline's) and
//! each target's own, `[bmd1]` and `[qtmesh]` (the target writers'). Their types live with
//! the code that reads them; what build.toml may set is checked here.

use crate::kinds::settings::{Section, SettingsError};
use crate::rig::hanim::AnimationSettings;
use crate::pipeline::{MeshSettings, SettingRangeError};
use crate::targets::bmd1::Bmd1Settings;
use crate::targets::qtmesh::QtTargetSettings;

impl Section for MeshSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        Ok(self.validate()?)
    }
}

impl Section for AnimationSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(
                SettingRangeError::new("tolerance", "be a number >= 0", self.tolerance).into(),
            );
        }
        Ok(())
    }
}

impl Section for Bmd1Settings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        Ok(self.validate()?)
    }
}

impl Section for QtTargetSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        Ok(Self::check_mesh_version(self.mesh_version)?)
    }
}
