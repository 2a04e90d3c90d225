//! Planes of f32 samples to the `.wav` we ship.
//!
//! No dither: a 16-bit output is the nearest integer to `sample x 32768` (symphonia reads
//! 16-bit sources as `s / 32768`, so a 16-bit source comes back bit for bit), clamped to
//! -32768..=32767. Dither would add noise that differs with nothing the build sees, and a
//! game mixes these sounds again at play time anyway.

use crate::formats::wav::{self, SampleFormat, Samples, WavSpec};

/// The file's bytes, and how many 16-bit samples had to be clamped.
pub fn encode(
    planes: &[Vec<f32>],
    sample_rate: u32,
    channel_mask: u32,
    bit_depth: u32,
) -> Result<(Vec<u8>, usize), wav::WavError> {
    let channels = planes.len();
    let frames = planes.first().map_or(0, Vec::len);
    let interleaved = (0..frames).flat_map(|i| planes.iter().map(move |p| p[i]));
    let spec = |format| WavSpec {
        format,
        channels: u16::try_from(channels).unwrap_or(u16::MAX),
        sample_rate,
        channel_mask,
    };
    if bit_depth == 32 {
        // Non-finite samples cannot come from a decoder; zero keeps a bug from reaching
        // a mixer as NaN.
        let samples: Vec<f32> = interleaved
            .map(|x| if x.is_finite() { x } else { 0.0 })
            .collect();
        let bytes = wav::write(&spec(SampleFormat::Float32), Samples::Float32(&samples))?;
        return Ok((bytes, 0));
    }
    let mut clipped = 0;
    let samples: Vec<i16> = interleaved
        .map(|x| {
            let v = (x * 32768.0).round();
            if !(-32768.0..=32767.0).contains(&v) {
                clipped += 1;
            }
            // `as` saturates (and maps NaN to 0).
            v as i16
        })
        .collect();
    let bytes = wav::write(&spec(SampleFormat::Pcm16), Samples::Pcm16(&samples))?;
    Ok((bytes, clipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_rounds_to_nearest_and_clamps() {
        let planes = vec![vec![0.0, 1.0, -1.0, 0.5 / 32768.0, -1.5, 3.0 / 32768.0]];
        let (bytes, clipped) = encode(&planes, 44_100, 0, 16).unwrap();
        let info = wav::read(&bytes).unwrap();
        let values: Vec<i16> = info
            .data(&bytes)
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        // 1.0 is one step past the largest 16-bit value; half a step rounds away from 0.
        assert_eq!(values, [0, 32767, -32768, 1, -32768, 3]);
        assert_eq!(clipped, 2);
    }

    #[test]
    fn every_sixteen_bit_value_survives_the_round_trip() {
        let all: Vec<f32> = (i16::MIN..=i16::MAX)
            .map(|s| f32::from(s) / 32768.0)
            .collect();
        let (bytes, clipped) = encode(&[all], 8_000, 0, 16).unwrap();
        assert_eq!(clipped, 0);
        let info = wav::read(&bytes).unwrap();
        let back: Vec<i16> = info
            .data(&bytes)
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert!(back.iter().copied().eq(i16::MIN..=i16::MAX));
    }

    #[test]
    fn float_interleaves_frames_and_keeps_overs() {
        let planes = vec![vec![0.25, 1.5], vec![-0.25, f32::NAN]];
        let (bytes, _) = encode(&planes, 48_000, 0, 32).unwrap();
        let info = wav::read(&bytes).unwrap();
        assert_eq!(info.spec.channels, 2);
        assert_eq!(wav::samples_f32(&info, &bytes), [0.25, -0.25, 1.5, 0.0]);
    }
}
