//! Sample-rate conversion with rubato's windowed-sinc resampler, aligned to the sample.
//!
//! Output sample `j` is the source band-limited and read at time `j / to` seconds, the
//! time of source sample `j x from / to`: the resampler's own delay is taken out to within
//! 1/1024 of a sample ([`OVERSAMPLING`]), not rounded to whole output samples (a rounded
//! delay shifts the sound by a fraction of a sample, which a comparison with any other
//! resampler sees as noise in the highs).
//!
//! rubato reads output `k` (from 0) at source time `(k + 1) x q / p - D`, where `p / q`
//! is `to / from` in lowest terms and `D` is half its filter length. With `P`
//! zeros before the source and the first `m x p - 1` outputs dropped, output `j` falls at
//! `j x q / p + m x q - D - P`, which is `j x q / p` for `P = m x q - D`; `m` is the
//! smallest count with `m x q >= D`. So at most about one second of zeros is added before
//! the source (`q <= from`), whatever the two rates.
//!
//! The source is followed by zeros for as long as the filter needs, and the output is
//! `ceil(frames x to / from)` frames long: the same duration.

use rubato::audioadapter_buffers::direct::SequentialSliceOfVecs;
use rubato::{
    Async, FixedAsync, Indexing, Resampler, SincInterpolationParameters, SincInterpolationType,
    WindowFunction,
};

/// Filter taps: the length rubato's documentation starts from for high quality, with its
/// Blackman-Harris² window and automatic cutoff.
const SINC_LEN: usize = 256;
/// Sinc points between two source samples; cubic interpolation between them. rubato reads
/// one of these steps late (measured: the error grows with frequency as a constant delay
/// does, and falls fourfold from 256 to 1024), so the step is small: 1/1024 of a source
/// sample, -57 dB of a 5 kHz tone at 22 050 Hz. The table is `SINC_LEN x OVERSAMPLING`
/// floats, 1 MiB.
const OVERSAMPLING: usize = 1024;
/// Source frames per call.
const CHUNK: usize = 1024;
/// How many source samples before the nominal time rubato reads output `k`: half its filter
/// (see the module documentation; `tests::output_lands_on_the_source_time` checks it).
const DELAY: u64 = SINC_LEN as u64 / 2;

/// Resamples planes from `from` Hz to `to` Hz (which differ).
pub fn resample(planes: &[Vec<f32>], from: u32, to: u32) -> Result<Vec<Vec<f32>>, ResampleError> {
    // The kind refuses such rates before decoding (`Budget::admit`); this keeps a caller
    // that did not from dividing by zero below.
    if from == 0 || to == 0 {
        return Err(ResampleError::ZeroRate { from, to });
    }
    let channels = planes.len();
    let frames = planes.first().map_or(0, Vec::len);
    let g = gcd(u64::from(from), u64::from(to));
    let (p, q) = (u64::from(to) / g, u64::from(from) / g);
    let m = DELAY.div_ceil(q).max(1);
    let lead = usize::try_from(m * q - DELAY)?;
    let skip = usize::try_from(m * p - 1)?;
    let wanted = usize::try_from((frames as u64 * p).div_ceil(q))?;

    let parameters = SincInterpolationParameters {
        sinc_len: SINC_LEN,
        f_cutoff: None,
        interpolation: SincInterpolationType::Cubic,
        oversampling_factor: OVERSAMPLING,
        window: WindowFunction::BlackmanHarris2,
    };
    let ratio = f64::from(to) / f64::from(from);
    let mut resampler =
        Async::<f32>::new_sinc(ratio, 1.0, &parameters, CHUNK, channels, FixedAsync::Input)
            .map_err(|e| ResampleError::Setup(e.to_string()))?;
    let max_out = resampler.output_frames_max();
    let mut chunk_out = vec![vec![0f32; max_out]; channels];
    let mut scratch = vec![vec![0f32; resampler.input_frames_max()]; channels];
    let mut out: Vec<Vec<f32>> = vec![Vec::with_capacity(skip + wanted + max_out); channels];
    // Position in the source with `lead` zeros before it and zeros after it.
    let mut at = 0usize;
    while out[0].len() < skip + wanted {
        let need = resampler.input_frames_next();
        let mut output = SequentialSliceOfVecs::new_mut(&mut chunk_out, channels, max_out)
            .map_err(|e| ResampleError::Buffer(e.to_string()))?;
        let inside = at >= lead && at - lead + need <= frames;
        let result = if inside {
            let input = SequentialSliceOfVecs::new(planes, channels, frames)
                .map_err(|e| ResampleError::Buffer(e.to_string()))?;
            let indexing = Indexing::new().input_offset(at - lead);
            resampler.process_into_buffer(&input, &mut output, Some(&indexing))
        } else {
            for (s, plane) in scratch.iter_mut().zip(planes) {
                s.fill(0.0);
                for (i, v) in s[..need].iter_mut().enumerate() {
                    if let Some(x) = (at + i).checked_sub(lead).and_then(|f| plane.get(f)) {
                        *v = *x;
                    }
                }
            }
            let input = SequentialSliceOfVecs::new(&scratch, channels, need)
                .map_err(|e| ResampleError::Buffer(e.to_string()))?;
            resampler.process_into_buffer(&input, &mut output, None)
        };
        let (used, produced) = result.map_err(|e| ResampleError::Process(e.to_string()))?;
        at += used;
        for (o, c) in out.iter_mut().zip(&chunk_out) {
            o.extend_from_slice(&c[..produced]);
        }
    }
    for o in &mut out {
        o.drain(..skip);
        o.truncate(wanted);
    }
    Ok(out)
}

/// What went wrong in rubato (its own words) or in the frame arithmetic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResampleError {
    #[error("cannot resample from {from} Hz to {to} Hz")]
    ZeroRate { from: u32, to: u32 },
    #[error(transparent)]
    Overflow(#[from] std::num::TryFromIntError),
    #[error("{0}")]
    Setup(String),
    #[error("{0}")]
    Buffer(String),
    #[error("{0}")]
    Process(String),
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    fn sine(freq: f64, rate: u32, frames: usize) -> Vec<f32> {
        (0..frames)
            .map(|i| (TAU * freq * i as f64 / f64::from(rate)).sin() as f32 * 0.5)
            .collect()
    }

    /// Largest difference from the ideal sine, away from the two ends (where the sinc
    /// sees the silence around the clip).
    fn error_against_ideal(freq: f64, from: u32, to: u32) -> (usize, f32) {
        let input = sine(freq, from, from as usize / 4);
        let out = resample(&[input.clone(), input], from, to).unwrap();
        let ideal = sine(freq, to, out[0].len());
        let margin = to as usize / 50;
        let err = out[0][margin..out[0].len() - margin]
            .iter()
            .zip(&ideal[margin..])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert_eq!(out[0], out[1], "channels are resampled alike");
        (out[0].len(), err)
    }

    #[test]
    fn output_lands_on_the_source_time() {
        // A 5 kHz tone of amplitude 0.5 moves by about 0.35 per output sample of
        // misalignment: an error under 2e-3 puts the output within 1/150 of a sample of
        // the source's time.
        for (from, to) in [
            (48_000, 44_100),
            (44_100, 48_000),
            (22_050, 44_100),
            (96_000, 44_100),
        ] {
            let (len, err) = error_against_ideal(5_000.0, from, to);
            assert_eq!(
                len,
                (from as usize / 4 * to as usize).div_ceil(from as usize)
            );
            assert!(err < 2e-3, "{from} -> {to}: error {err}");
        }
        // Rates with no common factor but 1 (q = from): about a second of lead.
        let (_, err) = error_against_ideal(1_000.0, 44_101, 48_000);
        assert!(err < 1e-3, "44101 -> 48000: error {err}");
    }

    #[test]
    fn the_same_input_gives_the_same_bits() {
        let input = sine(3_000.0, 48_000, 10_000);
        let a = resample(std::slice::from_ref(&input), 48_000, 44_100).unwrap();
        let b = resample(&[input], 48_000, 44_100).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn a_clip_shorter_than_the_filter_keeps_its_length() {
        let out = resample(&[vec![0.25; 10]], 8_000, 44_100).unwrap();
        assert_eq!(out[0].len(), (10 * 44_100usize).div_ceil(8_000));
    }
}
