//! `[audio]`: the audio kind's build.toml table (seed 004's AudioSettings).

use crate::kinds::settings::{Section, SettingsError};
use crate::pipeline::SettingRangeError;
use serde::{Deserialize, Serialize};

/// `[audio]`: how `.wav .ogg .oga .mp3 .flac` sources become PCM `.wav` (seed 004's
/// AudioSettings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AudioSettings {
    /// Output sample rate in Hz (resampled when the source differs).
    pub sample_rate: u32,
    /// 16 (signed integer PCM) or 32 (IEEE float).
    pub bit_depth: u32,
    /// Mix down to mono (the mean of the channels), for positional (3D) sounds.
    pub force_3d: bool,
}

impl Default for AudioSettings {
    fn default() -> Self {
        Self {
            sample_rate: 44_100,
            bit_depth: 16,
            force_3d: false,
        }
    }
}

impl AudioSettings {
    pub fn validate(&self) -> Result<(), SettingRangeError> {
        if !(8_000..=192_000).contains(&self.sample_rate) {
            return Err(SettingRangeError::new(
                "sample_rate",
                "be 8000..=192000 Hz",
                self.sample_rate,
            ));
        }
        if !matches!(self.bit_depth, 16 | 32) {
            return Err(SettingRangeError::new(
                "bit_depth",
                "be 16 (integer) or 32 (float)",
                self.bit_depth,
            ));
        }
        Ok(())
    }
}

impl Section for AudioSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        Ok(self.validate()?)
    }
}
