//! The model kind's build.toml tables: `[mesh]` and `[animation]` (the pipeline's) and
//! each target's own, `[bmd1]` and `[qtmesh]` (the target writers'). Their types live with
//! the code that reads them; what build.toml may set is checked here.

use crate::kinds::settings::Section;
use crate::rig::hanim::AnimationSettings;
use crate::pipeline::MeshSettings;
use crate::targets::bmd1::Bmd1Settings;
use crate::targets::qtmesh::QtTargetSettings;

impl Section for MeshSettings {
    fn check_ranges(&self) -> Result<(), String> {
        self.validate()
    }
}

impl Section for AnimationSettings {
    fn check_ranges(&self) -> Result<(), String> {
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(format!(
                "tolerance must be a number >= 0, got {}",
                self.tolerance
            ));
        }
        Ok(())
    }
}

impl Section for Bmd1Settings {
    fn check_ranges(&self) -> Result<(), String> {
        self.validate()
    }
}

impl Section for QtTargetSettings {
    fn check_ranges(&self) -> Result<(), String> {
        Self::check_mesh_version(self.mesh_version)
    }
}
