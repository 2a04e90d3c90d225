//! `[audio]`: the audio kind's build.toml table (seed 004's AudioSettings).

use crate::kinds::settings::Section;
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
    pub fn validate(&self) -> Result<(), String> {
        if !(8_000..=192_000).contains(&self.sample_rate) {
            return Err(format!(
                "sample_rate must be 8000..=192000 Hz, got {}",
                self.sample_rate
            ));
        }
        if !matches!(self.bit_depth, 16 | 32) {
            return Err(format!(
                "bit_depth must be 16 (integer) or 32 (float), got {}",
                self.bit_depth
            ));
        }
        Ok(())
    }
}

impl Section for AudioSettings {
    fn check_ranges(&self) -> Result<(), String> {
        self.validate()
    }
}
