//! Planes of f32 samples to Ogg Vorbis, with libvorbis (aoTuV) through `vorbis_rs`.
//!
//! Deterministic: libvorbis reads only its input, the stream serial is a constant (a file
//! holds one stream, so no two need telling apart), and no comment tags are written beyond
//! the library's vendor string.
//!
//! Channels: Vorbis fixes the order of up to 8 (Vorbis I, 4.3.9: L C R, then the rears,
//! LFE last), where WAVE orders them by speaker bit (FL FR FC LFE BL BR SL SR); the planes
//! are put in Vorbis order for the layouts Vorbis names, and any other layout of more than
//! two channels is refused rather than played on the wrong speakers.

use std::num::{NonZeroU32, NonZeroU8};
use vorbis_rs::{VorbisBitrateManagementStrategy, VorbisEncoderBuilder, VorbisError};

/// The stream serial of every file we encode.
const SERIAL: i32 = 0x6173_7463; // "astc"
/// Frames handed to libvorbis a call (its documentation: "1024 is a reasonable choice").
const BLOCK: usize = 4096;

/// How hard libvorbis may squeeze.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// libvorbis' quality, 0..=1 (its `-q` scale divided by 10).
    Quality(f32),
    /// An average bitrate in bit/s, held by its bitrate manager.
    AverageBitrate(u32),
}

#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("{channels} channels with speaker mask {mask:#x}: Vorbis has no such layout (format = \"wav\" keeps it)")]
    Layout { channels: usize, mask: u32 },
    #[error("no channels or no sample rate to encode")]
    Empty,
    #[error("the Ogg Vorbis encoder: {0}")]
    Vorbis(#[from] VorbisError),
}

/// For each Vorbis channel, the plane (in WAVE speaker-bit order) it takes, for the
/// WAVE masks whose speakers are those of Vorbis' layout of that count.
fn vorbis_order(channels: usize, mask: u32) -> Option<&'static [usize]> {
    Some(match (channels, mask) {
        (1, _) => &[0],
        (2, _) => &[0, 1],
        // FL FR FC -> L C R.
        (3, 0x7) => &[0, 2, 1],
        // FL FR BL BR, the same order.
        (4, 0x33) => &[0, 1, 2, 3],
        // FL FR FC BL BR -> FL C FR RL RR.
        (5, 0x37) => &[0, 2, 1, 3, 4],
        // FL FR FC LFE BL BR (or SL SR) -> FL C FR RL RR LFE.
        (6, 0x3F | 0x60F) => &[0, 2, 1, 4, 5, 3],
        // FL FR FC LFE BC SL SR -> FL C FR SL SR RC LFE.
        (7, 0x70F) => &[0, 2, 1, 5, 6, 4, 3],
        // FL FR FC LFE BL BR SL SR -> FL C FR SL SR RL RR LFE.
        (8, 0x63F) => &[0, 2, 1, 6, 7, 4, 5, 3],
        _ => return None,
    })
}

/// The planes (WAVE order, `mask` their speakers) as an Ogg Vorbis file at `rate`.
pub fn encode(
    planes: &[Vec<f32>],
    rate: u32,
    mask: u32,
    target: Target,
) -> Result<Vec<u8>, EncodeError> {
    let order = vorbis_order(planes.len(), mask).ok_or(EncodeError::Layout {
        channels: planes.len(),
        mask,
    })?;
    let channels = u8::try_from(planes.len())
        .ok()
        .and_then(NonZeroU8::new)
        .ok_or(EncodeError::Empty)?;
    let rate = NonZeroU32::new(rate).ok_or(EncodeError::Empty)?;
    let strategy = match target {
        Target::Quality(q) => VorbisBitrateManagementStrategy::QualityVbr { target_quality: q },
        Target::AverageBitrate(b) => VorbisBitrateManagementStrategy::Abr {
            average_bitrate: NonZeroU32::new(b).ok_or(EncodeError::Empty)?,
        },
    };
    let whole = encode_with(planes, order, rate, channels, strategy, None)?;
    // A stream whose audio fits one page (a short sound) is written again in smaller
    // pages: ffmpeg, and so the players built on it, takes the end padding of a first
    // audio page that is also the last from the start of the sound instead (measured: a
    // 1.19 s mono sound lost 256 samples). With two audio pages or more it trims the end,
    // as the last granule position says.
    let one_audio_page = crate::formats::vorbis::read(&whole).is_ok_and(|i| i.pages <= 3);
    if one_audio_page && whole.len() > 64 {
        let page = u16::try_from(whole.len() / 8).unwrap_or(u16::MAX);
        return encode_with(planes, order, rate, channels, strategy, Some(page));
    }
    Ok(whole)
}

fn encode_with(
    planes: &[Vec<f32>],
    order: &[usize],
    rate: NonZeroU32,
    channels: NonZeroU8,
    strategy: VorbisBitrateManagementStrategy,
    page_bytes: Option<u16>,
) -> Result<Vec<u8>, EncodeError> {
    let mut encoder = VorbisEncoderBuilder::new_with_serial(rate, channels, Vec::new(), SERIAL)
        .bitrate_management_strategy(strategy)
        .minimum_page_data_size(page_bytes)
        .build()?;
    let frames = planes.first().map_or(0, Vec::len);
    let mut start = 0;
    while start < frames {
        let end = (start + BLOCK).min(frames);
        // Non-finite samples cannot come from a decoder; zero keeps a bug from reaching
        // the encoder as NaN.
        let block: Vec<Vec<f32>> = order
            .iter()
            .map(|&p| {
                planes[p][start..end]
                    .iter()
                    .map(|&x| if x.is_finite() { x } else { 0.0 })
                    .collect()
            })
            .collect();
        encoder.encode_audio_block(&block)?;
        start = end;
    }
    Ok(encoder.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::vorbis;

    /// A 440 Hz tone under white noise (an LCG): something a quality setting shows on.
    fn tone(rate: u32, frames: usize) -> Vec<f32> {
        let mut seed = 12345u32;
        (0..frames)
            .map(|i| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let noise = (seed >> 8) as f32 / (1 << 24) as f32 - 0.5;
                (i as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin() * 0.4 + noise * 0.2
            })
            .collect()
    }

    #[test]
    fn encodes_what_the_validator_reads_the_same_each_time() {
        let planes = vec![tone(44_100, 44_100), tone(44_100, 44_100)];
        let a = encode(&planes, 44_100, 0, Target::Quality(0.7)).unwrap();
        let b = encode(&planes, 44_100, 0, Target::Quality(0.7)).unwrap();
        assert_eq!(a, b);
        let info = vorbis::read(&a).unwrap();
        assert_eq!((info.channels, info.sample_rate, info.frames), (2, 44_100, 44_100));
        let small = encode(&planes, 44_100, 0, Target::Quality(0.0)).unwrap();
        assert!(small.len() < a.len(), "{} vs {}", small.len(), a.len());
    }

    #[test]
    fn layouts_vorbis_cannot_name_are_refused() {
        let planes = vec![tone(8_000, 800); 6];
        assert!(encode(&planes, 8_000, 0x3F, Target::Quality(0.5)).is_ok());
        let e = encode(&planes, 8_000, 0, Target::Quality(0.5)).unwrap_err();
        assert!(e.to_string().contains("no such layout"), "{e}");
    }
}
