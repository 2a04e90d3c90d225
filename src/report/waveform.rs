//! Waveform thumbnails of sounds: for each column, the lowest and highest sample of its
//! stretch of the sound, one lane per channel, on the thumbnails' dark background.

use super::THUMB_SIZE;
use crate::formats::wav::{self, SampleFormat};
use image::{Rgba, RgbaImage};

/// Height of one channel's lane, in pixels.
pub const LANE_HEIGHT: u32 = 40;
const BACKGROUND: Rgba<u8> = Rgba([0x2b, 0x30, 0x3b, 0xff]);
const AXIS: Rgba<u8> = Rgba([0x4f, 0x5b, 0x66, 0xff]);
const WAVE: Rgba<u8> = Rgba([0x8f, 0xc1, 0xe3, 0xff]);

/// Width and height of the thumbnail of a sound with `channels` channels.
pub fn size(channels: u16) -> (u32, u32) {
    (THUMB_SIZE, LANE_HEIGHT * u32::from(channels.max(1)))
}

/// Draws the waveform of a `.wav` of ours. Reads the samples in place: a long sound costs
/// one pass over its data and no copy of it.
pub fn draw(bytes: &[u8]) -> Result<RgbaImage, wav::WavError> {
    let info = wav::read(bytes)?;
    let channels = usize::from(info.spec.channels);
    let data = info.data(bytes);
    let step = usize::from(info.spec.format.bytes());
    let sample = |frame: u64, channel: usize| -> f32 {
        let at = (frame as usize * channels + channel) * step;
        match (info.spec.format, data.get(at..at + step)) {
            (SampleFormat::Pcm16, Some(b)) => f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0,
            (SampleFormat::Float32, Some(b)) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            _ => 0.0,
        }
    };
    let (w, h) = size(info.spec.channels);
    let mut image = RgbaImage::from_pixel(w, h, BACKGROUND);
    let half = (LANE_HEIGHT / 2 - 1) as f32;
    for channel in 0..channels {
        let middle = channel as u32 * LANE_HEIGHT + LANE_HEIGHT / 2;
        for x in 0..w {
            image.put_pixel(x, middle, AXIS);
        }
        if info.frames == 0 {
            continue;
        }
        for x in 0..w {
            let start = u64::from(x) * info.frames / u64::from(w);
            // A sound shorter than the thumbnail is wide stretches one frame over columns.
            let end = (u64::from(x + 1) * info.frames / u64::from(w)).max(start + 1);
            let (mut low, mut high) = (f32::MAX, f32::MIN);
            for frame in start..end.min(info.frames) {
                let v = sample(frame, channel);
                if v.is_finite() {
                    low = low.min(v);
                    high = high.max(v);
                }
            }
            if low > high {
                continue;
            }
            let y = |v: f32| (middle as f32 - v.clamp(-1.0, 1.0) * half).round() as u32;
            for py in y(high)..=y(low) {
                image.put_pixel(x, py, WAVE);
            }
        }
    }
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::wav::{Samples, WavSpec};

    #[test]
    fn columns_span_each_stretch_min_to_max_per_lane() {
        // Left: silence then full scale; right: a constant half-scale negative level.
        let frames = THUMB_SIZE as usize * 10;
        let mut samples = Vec::new();
        for i in 0..frames {
            let left = if i < frames / 2 {
                0
            } else if i % 2 == 0 {
                32767
            } else {
                -32768
            };
            samples.extend_from_slice(&[left, -16384]);
        }
        let spec = WavSpec {
            format: SampleFormat::Pcm16,
            channels: 2,
            sample_rate: 8_000,
            channel_mask: 0,
        };
        let image = draw(&wav::write(&spec, Samples::Pcm16(&samples)).unwrap()).unwrap();
        assert_eq!(image.dimensions(), (THUMB_SIZE, 2 * LANE_HEIGHT));
        let column = |x: u32, lane: u32| -> Vec<u32> {
            (lane * LANE_HEIGHT..(lane + 1) * LANE_HEIGHT)
                .filter(|&y| *image.get_pixel(x, y) == WAVE)
                .collect()
        };
        // Silence is one pixel on the axis; full scale fills the lane but its edges.
        assert_eq!(column(10, 0), [LANE_HEIGHT / 2]);
        assert_eq!(column(THUMB_SIZE - 10, 0).len() as u32, LANE_HEIGHT - 1);
        // -0.5 sits half-way down the right lane, whatever the column.
        let level =
            LANE_HEIGHT + LANE_HEIGHT / 2 + ((LANE_HEIGHT / 2 - 1) as f32 * 0.5).round() as u32;
        assert_eq!(column(0, 1), [level]);
        assert_eq!(column(THUMB_SIZE - 1, 1), [level]);
    }
}
