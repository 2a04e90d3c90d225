//! `[audio]`: the audio kind's build.toml table (seed 004's AudioSettings).

use crate::kinds::settings::{Section, SettingsError};
use crate::pipeline::SettingRangeError;
use serde::{Deserialize, Serialize};

/// `[audio]`: how `.wav .ogg .oga .mp3 .flac` sources become sounds (seed 004's
/// AudioSettings: `Format { AUTO, WAV, OGG, MP3 }`, `compressionQuality = 0.7f`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AudioSettings {
    /// Output sample rate in Hz (resampled when the source differs).
    pub sample_rate: u32,
    /// 16 (signed integer PCM) or 32 (IEEE float): the samples of a `.wav` output only
    /// (Vorbis and MP3 code their own).
    pub bit_depth: u32,
    /// Mix down to mono (the mean of the channels), for positional (3D) sounds.
    pub force_3d: bool,
    /// What a sound is written as.
    pub format: AudioFormat,
    /// 0..=1: the Vorbis quality of an encoded `.ogg` (0 about 64 kbit/s for stereo at
    /// 44.1 kHz, 0.7 about 220, 1 about 500; libvorbis' own `-q` scale divided by 10).
    pub compression_quality: f32,
    /// Integrated loudness (LUFS, EBU R128) every sound is levelled to; unset leaves each
    /// sound at its own level. `-16` is a common target for game effects and dialogue,
    /// `-23` broadcast's. The true peak stays at most -1 dBTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loudness: Option<f32>,
}

/// `[audio] format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AudioFormat {
    /// PCM sources (`.wav .flac`) become `.wav`, compressed ones (`.ogg .oga .mp3`)
    /// `.ogg`; an Ogg Vorbis source that needs no resampling or down-mix is copied as it is.
    #[default]
    Auto,
    /// PCM `.wav` (`bit_depth`).
    Wav,
    /// Ogg Vorbis `.ogg` at `compression_quality`.
    Ogg,
    /// MP3: refused at configuration time (see [`MP3_UNAVAILABLE`]).
    Mp3,
}

impl AudioFormat {
    /// The output's extension for a concrete format (`auto` decides per source).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Auto | Self::Wav => "wav",
            Self::Ogg => "ogg",
            Self::Mp3 => "mp3",
        }
    }
}

pub use crate::kinds::settings::MP3_UNAVAILABLE;

impl Default for AudioSettings {
    fn default() -> Self {
        Self {
            sample_rate: 44_100,
            bit_depth: 16,
            force_3d: false,
            format: AudioFormat::Auto,
            compression_quality: 0.7,
            loudness: None,
        }
    }
}

impl AudioSettings {
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !(8_000..=192_000).contains(&self.sample_rate) {
            return Err(SettingRangeError::new(
                "sample_rate",
                "be 8000..=192000 Hz",
                self.sample_rate,
            )
            .into());
        }
        if !matches!(self.bit_depth, 16 | 32) {
            return Err(SettingRangeError::new(
                "bit_depth",
                "be 16 (integer) or 32 (float)",
                self.bit_depth,
            )
            .into());
        }
        if !(0.0..=1.0).contains(&self.compression_quality) {
            return Err(SettingRangeError::new(
                "compression_quality",
                "be a number from 0 to 1",
                self.compression_quality,
            )
            .into());
        }
        if let Some(target) = self.loudness {
            if !(-70.0..=-5.0).contains(&target) {
                return Err(SettingRangeError::new(
                    "loudness",
                    "be a loudness from -70 to -5 LUFS",
                    target,
                )
                .into());
            }
        }
        if self.format == AudioFormat::Mp3 {
            return Err(SettingsError::Mp3Unavailable);
        }
        Ok(())
    }
}

impl Section for AudioSettings {
    fn check_ranges(&self) -> Result<(), SettingsError> {
        self.validate()
    }
}
