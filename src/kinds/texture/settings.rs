//! `[texture]`: the texture kind's build.toml table (the encoder's own settings type),
//! also read by cubemaps and by models for the textures they encode.

use crate::kinds::settings::Section;
use crate::pipeline::textures::TextureSettings;

impl Section for TextureSettings {
    fn check_ranges(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.quality) {
            return Err(format!(
                "quality must be a number from 0 to 1, got {}",
                self.quality
            ));
        }
        if self.max_size < 1 {
            return Err("max_size must be at least 1 (pixels)".to_string());
        }
        let max = crate::pipeline::textures::MAX_BC7_RDO_LAMBDA;
        if !(0.0..=max).contains(&self.bc7_rdo_lambda) {
            return Err(format!(
                "bc7_rdo_lambda must be a number from 0 (off) to {max}, got {}",
                self.bc7_rdo_lambda
            ));
        }
        let max_layers = crate::pipeline::textures::MAX_ARRAY_LAYERS;
        if self.array_layers > max_layers {
            return Err(format!(
                "array_layers must be from 0 (not an array) to {max_layers}, got {}",
                self.array_layers
            ));
        }
        Ok(())
    }
}
