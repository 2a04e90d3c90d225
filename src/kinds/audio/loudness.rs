//! `[audio] loudness`: each sound levelled to one integrated loudness, measured as EBU
//! R128 / ITU-R BS.1770 define it (through the `ebur128` crate, a port of libebur128, the
//! meter ffmpeg's `loudnorm` and most tools use), the way game audio pipelines level their
//! sounds so that no effect is far louder than another. The gain is capped so that the
//! true peak stays at most [`MAX_TRUE_PEAK_DBTP`] (EBU R128's limit): a sound the cap
//! keeps below its target is said so in a warning, never clipped.

use ebur128::{EbuR128, Mode};

/// The highest true peak a levelled sound may reach, in dBTP.
pub const MAX_TRUE_PEAK_DBTP: f64 = -1.0;

/// A sound's integrated loudness (LUFS; `-inf` for silence, or a sound shorter than the
/// 400 ms a measurement needs) and true peak (dBTP).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loudness {
    pub integrated_lufs: f64,
    pub true_peak_dbtp: f64,
}

/// Why a sound cannot be measured: the meter refused its channels or rate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("measuring loudness: {0}")]
pub struct LoudnessError(String);

/// Measures `planes` (one per channel, at `rate` Hz).
pub fn measure(planes: &[Vec<f32>], rate: u32) -> Result<Loudness, LoudnessError> {
    let channels = u32::try_from(planes.len()).map_err(|e| LoudnessError(e.to_string()))?;
    let fail = |e: ebur128::Error| LoudnessError(e.to_string());
    let mut meter = EbuR128::new(channels, rate, Mode::I | Mode::TRUE_PEAK).map_err(fail)?;
    let slices: Vec<&[f32]> = planes.iter().map(Vec::as_slice).collect();
    meter.add_frames_planar_f32(&slices).map_err(fail)?;
    let integrated_lufs = meter.loudness_global().map_err(fail)?;
    let mut peak = 0.0f64;
    for channel in 0..channels {
        peak = peak.max(meter.true_peak(channel).map_err(fail)?);
    }
    Ok(Loudness {
        integrated_lufs,
        true_peak_dbtp: 20.0 * peak.log10(),
    })
}

/// What levelling did to a sound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levelled {
    pub before: Loudness,
    /// The gain applied, in dB (0 when the sound could not be measured).
    pub gain_db: f64,
    /// Whether the true-peak cap kept the sound below the target.
    pub capped: bool,
}

/// Scales `planes` so that their integrated loudness is `target_lufs`, or as close as the
/// true-peak cap allows. A sound with no measurable loudness is left as it is.
pub fn level(
    planes: &mut [Vec<f32>],
    rate: u32,
    target_lufs: f64,
) -> Result<Levelled, LoudnessError> {
    let before = measure(planes, rate)?;
    if !before.integrated_lufs.is_finite() || !before.true_peak_dbtp.is_finite() {
        return Ok(Levelled {
            before,
            gain_db: 0.0,
            capped: false,
        });
    }
    let wanted = target_lufs - before.integrated_lufs;
    let room = MAX_TRUE_PEAK_DBTP - before.true_peak_dbtp;
    let gain_db = wanted.min(room);
    let scale = 10f64.powf(gain_db / 20.0) as f32;
    for plane in planes.iter_mut() {
        for sample in plane.iter_mut() {
            *sample *= scale;
        }
    }
    Ok(Levelled {
        before,
        gain_db,
        capped: room < wanted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 kHz sine of `seconds` at `amplitude`, in `channels` equal planes.
    fn sine(rate: u32, seconds: f32, amplitude: f32, channels: usize) -> Vec<Vec<f32>> {
        let n = (rate as f32 * seconds) as usize;
        let plane: Vec<f32> = (0..n)
            .map(|i| amplitude * (i as f32 * 1000.0 * std::f32::consts::TAU / rate as f32).sin())
            .collect();
        vec![plane; channels]
    }

    #[test]
    fn a_full_scale_1khz_sine_reads_as_bs1770_says() {
        // BS.1770's calibration: a 0 dBFS 1 kHz sine in one channel of a stereo pair
        // reads -3.01 LKFS; in both channels, 0.0 (the two add in power).
        let mut left_only = sine(48_000, 5.0, 1.0, 2);
        left_only[1].iter_mut().for_each(|s| *s = 0.0);
        let one = measure(&left_only, 48_000).unwrap();
        assert!((one.integrated_lufs - -3.01).abs() < 0.05, "{one:?}");
        let both = measure(&sine(48_000, 5.0, 1.0, 2), 48_000).unwrap();
        assert!(both.integrated_lufs.abs() < 0.05, "{both:?}");
        assert!(both.true_peak_dbtp.abs() < 0.1, "{both:?}");
    }

    #[test]
    fn levelling_reaches_the_target_unless_the_peak_cap_stops_it() {
        let mut quiet = sine(44_100, 3.0, 0.05, 2);
        let done = level(&mut quiet, 44_100, -16.0).unwrap();
        assert!(!done.capped);
        let after = measure(&quiet, 44_100).unwrap();
        assert!((after.integrated_lufs - -16.0).abs() < 0.05, "{after:?}");
        // A mono sine's peak is 3.01 dB over its loudness (BS.1770 counts one channel as
        // half a stereo pair): at -1 dBTP it reaches -4 LUFS at most, not -2.
        let mut loud = sine(44_100, 3.0, 0.5, 1);
        let done = level(&mut loud, 44_100, -2.0).unwrap();
        assert!(done.capped);
        let after = measure(&loud, 44_100).unwrap();
        assert!(after.true_peak_dbtp <= MAX_TRUE_PEAK_DBTP + 0.05, "{after:?}");
        // Silence is left alone.
        let mut silent = vec![vec![0.0f32; 44_100]; 2];
        let done = level(&mut silent, 44_100, -16.0).unwrap();
        assert_eq!(done.gain_db, 0.0);
        assert!(silent.iter().flatten().all(|&s| s == 0.0));
    }
}
