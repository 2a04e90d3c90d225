//! `[texture]`: the texture kind's build.toml table (the encoder's own settings type),
//! also read by cubemaps and by models for the textures they encode.

use crate::kinds::settings::{Section, SettingsError};
use crate::pipeline::SettingRangeError;
use crate::pipeline::textures::TextureSettings;

impl Section for TextureSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        if !(0.0..=1.0).contains(&self.quality) {
            return Err(
                SettingRangeError::new("quality", "be a number from 0 to 1", self.quality).into(),
            );
        }
        if self.max_size < 1 {
            return Err(SettingsError::MaxSizeZero);
        }
        let max = crate::pipeline::textures::MAX_BC7_RDO_LAMBDA;
        if !(0.0..=max).contains(&self.bc7_rdo_lambda) {
            return Err(SettingRangeError::new(
                "bc7_rdo_lambda",
                format!("be a number from 0 (off) to {max}"),
                self.bc7_rdo_lambda,
            )
            .into());
        }
        let max_layers = crate::pipeline::textures::MAX_ARRAY_LAYERS;
        if self.array_layers > max_layers {
            return Err(SettingRangeError::new(
                "array_layers",
                format!("be from 0 (not an array) to {max_layers}"),
                self.array_layers,
            )
            .into());
        }
        Ok(())
    }
}
