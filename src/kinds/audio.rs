//! Audio: `.wav .ogg .oga .mp3 .flac` become `<ref>.wav` (PCM) or `<ref>.ogg` (Ogg Vorbis),
//! manifest kind 8, with the `[audio]` settings (seed 004's AudioSettings): `format`
//! (`auto`: PCM sources stay PCM, compressed ones become Ogg Vorbis), `sample_rate`,
//! `bit_depth` 16 (integer) or 32 (float) for WAV, `compression_quality` for Vorbis,
//! `force_3d` (mono).
//!
//! Decode every frame (symphonia) -> mix to mono when `force_3d` -> resample when the
//! source's rate is not `sample_rate` (rubato's sinc, [`resample`]) -> WAV ([`wav`], the
//! layout in `formats::wav`) or Ogg Vorbis ([`vorbis`], libvorbis). Under `auto`, an Ogg
//! Vorbis source that needs neither resampling nor a down-mix is written as it is, after it
//! decoded whole and passed `formats::vorbis`' checks. Channel layouts are kept: mono and stereo as they are, more
//! channels (up to 7.1) as WAVE_FORMAT_EXTENSIBLE with their speaker mask, since a
//! down-mix to stereo is the engine's choice to make for its speakers, not the build's.
//!
//! Deterministic: each step is single-threaded and reads only its input; no dither.

use crate::code::{DiagnosticCode, Warning};
mod decode;
pub mod loudness;
mod mix;
mod resample;
pub mod settings;
mod vorbis;
mod wav;

use super::texture::{extension, read_limited};
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hman::EntryKind;
use crate::formats::wav::{WavError, MAX_CHANNELS};
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use settings::{AudioFormat, AudioSettings};
use crate::kinds::source::Source;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Audio,
    name: "audio",
    recognise: Recognise::FileSuffixes(AUDIO_EXTENSIONS),
    sources: ".wav .ogg .oga .mp3 .flac",
    outputs: "<ref>.wav (PCM, 16-bit integer or 32-bit float) or <ref>.ogg (Ogg Vorbis): [audio] format",
    // `<ref>.wav` or `<ref>.ogg`; room as for `.hmesh`, which every ref has always left.
    // The claim is the ref as a sound whatever its format: `a.wav` beside `a.ogg` collide
    // (one ref, two sounds) even when `auto` would give them different extensions.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 6,
        claims: Claim::RefWith(".wav"),
    },
    compile,
    settings_key: |settings, key| key.table("audio", &settings.audio),
    encoders: &[
        "symphonia",
        "rubato",
        "vorbis_rs",
        "aotuv_lancer_vorbis_sys",
        "ebur128",
    ],
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: super::never_encodes_uastc,
};

pub const AUDIO_EXTENSIONS: &[&str] = &[".wav", ".ogg", ".oga", ".mp3", ".flac"];

/// Largest source file read: an hour of 7.1 FLAC at 96 kHz is well under it.
const MAX_AUDIO_FILE_BYTES: u64 = 1 << 30;

/// Slowest source rate accepted. Below it nothing is audible sound (telephone speech is
/// 8 kHz), and the resampler's work and output grow with the ratio of the rates: a 14 KB
/// WAV declaring 1 Hz became 635 MB at 44.1 kHz after 36 s and 2.66 GB of memory.
pub const MIN_SOURCE_RATE: u32 = 1_000;
/// Fastest source rate accepted: DXD's 768 kHz. The resampler pads up to a second of the
/// source's rate before it, so an absurd rate is an absurd amount of work.
pub const MAX_SOURCE_RATE: u32 = 768_000;

/// What a source may decode to: refused as soon as the decoded length passes either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Longest sound, in seconds.
    pub max_seconds: u64,
    /// Most bytes of memory the sound may need at its peak (`[limits] asset_memory`):
    /// the decoded f32 planes, the resampled ones, and the output.
    pub max_memory_bytes: u64,
    out_rate: u32,
    out_bytes_per_sample: u64,
    mono: bool,
}

impl Budget {
    /// One hour, and the build's memory budget per asset.
    pub fn new(settings: &AudioSettings, limits: &crate::limits::Limits) -> Self {
        Self {
            max_seconds: 3600,
            max_memory_bytes: limits.asset_memory,
            out_rate: settings.sample_rate,
            out_bytes_per_sample: u64::from(settings.bit_depth / 8),
            mono: settings.force_3d,
        }
    }

    /// Whether `frames` of `channels` at `rate` are within the limits.
    fn admit(&self, rate: u32, channels: usize, frames: u64) -> Result<(), AudioError> {
        if !(MIN_SOURCE_RATE..=MAX_SOURCE_RATE).contains(&rate) {
            return Err(AudioError::SourceRate(rate));
        }
        let rate = u64::from(rate);
        if frames > self.max_seconds.saturating_mul(rate) {
            return Err(AudioError::TooLong {
                seconds: frames / rate,
                limit: self.max_seconds,
            });
        }
        let bytes = self.peak_bytes(rate, channels, frames);
        if bytes > self.max_memory_bytes {
            return Err(AudioError::TooLarge {
                bytes,
                limit: self.max_memory_bytes,
            });
        }
        Ok(())
    }

    /// The memory `frames` of `channels` at `rate` take at the conversion's peak: the
    /// decoded f32 planes (and their mono mix), the resampled f32 planes at the output
    /// rate, and the output WAV, all alive at once while the WAV is written.
    fn peak_bytes(&self, rate: u64, channels: usize, frames: u64) -> u64 {
        let channels = channels.max(1) as u64;
        let out_channels = if self.mono { 1 } else { channels };
        let decoded = frames
            .saturating_mul(channels + u64::from(self.mono))
            .saturating_mul(4);
        let out_frames = frames
            .saturating_mul(u64::from(self.out_rate))
            .div_ceil(rate);
        let out_samples = out_frames.saturating_mul(out_channels);
        let resampled = if rate == u64::from(self.out_rate) {
            0
        } else {
            out_samples.saturating_mul(4)
        };
        let output = out_samples.saturating_mul(self.out_bytes_per_sample);
        decoded.saturating_add(resampled).saturating_add(output)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The decoder's or demuxer's reason.
    #[error("{0}")]
    Decode(String),
    #[error("more than {limit} s of audio (at least {seconds} s decoded so far)")]
    TooLong { seconds: u64, limit: u64 },
    #[error(
        "needs at least {bytes} bytes of memory to convert, more than the {limit} one asset \
         may use ([limits] asset_memory in build.toml)"
    )]
    TooLarge { bytes: u64, limit: u64 },
    #[error(
        "the source's sample rate is {0} Hz; a sound source must be {MIN_SOURCE_RATE} to \
         {MAX_SOURCE_RATE} Hz"
    )]
    SourceRate(u32),
    #[error("{0} channels: a WAV holds at most {MAX_CHANNELS} (force_3d mixes any count to mono)")]
    TooManyChannels(usize),
    #[error("resampling from {from} Hz to {to} Hz: {source}")]
    Resample {
        from: u32,
        to: u32,
        source: resample::ResampleError,
    },
    #[error(transparent)]
    Wav(#[from] WavError),
    #[error(transparent)]
    Vorbis(#[from] vorbis::EncodeError),
    #[error("{}", settings::MP3_UNAVAILABLE)]
    Mp3Unavailable,
    #[error(transparent)]
    Loudness(#[from] loudness::LoudnessError),
}

/// A converted sound: the file's bytes, its format, and what to tell the user about it.
#[derive(Debug, Clone)]
pub struct Converted {
    pub bytes: Vec<u8>,
    /// [`AudioFormat::Wav`] or [`AudioFormat::Ogg`], which the output's extension says.
    pub format: AudioFormat,
    pub warnings: Vec<Warning>,
}

/// Whether a source of this extension (lower case, no dot) is lossy-compressed: `auto`
/// keeps it compressed, as Ogg Vorbis.
pub fn is_compressed(ext: &str) -> bool {
    matches!(ext, "ogg" | "oga" | "mp3")
}

/// The format `settings` give a source of extension `ext`.
pub fn output_format(settings: &AudioSettings, ext: &str) -> AudioFormat {
    match settings.format {
        AudioFormat::Auto if is_compressed(ext) => AudioFormat::Ogg,
        AudioFormat::Auto => AudioFormat::Wav,
        concrete => concrete,
    }
}

/// The loudness of a sound file (`ext` its lower-case extension), for `inspect`.
pub fn loudness_of(bytes: Vec<u8>, ext: &str) -> Result<loudness::Loudness, AudioError> {
    let budget = Budget::new(&AudioSettings::default(), &crate::limits::Limits::default());
    let decoded = decode::decode(bytes, ext, &budget)?;
    Ok(loudness::measure(&decoded.planes, decoded.sample_rate)?)
}

/// Converts one source file's bytes (`ext` its lower-case extension, a hint for the
/// container) to the sound the settings ask for.
pub fn convert(
    bytes: Vec<u8>,
    ext: &str,
    settings: &AudioSettings,
    budget: &Budget,
) -> Result<Converted, AudioError> {
    let format = output_format(settings, ext);
    let source_bytes = bytes.len() as u64;
    // An Ogg source's pages are walked first: a page whose CRC does not match its bytes, or
    // one cut short, fails the source (symphonia's demuxer skips such a page, which would
    // leave a hole in the sound). A source that is a valid Ogg Vorbis file of ours may go
    // out as it is (`auto`), once it decoded whole.
    let mut original = None;
    if matches!(ext, "ogg" | "oga") {
        use crate::formats::vorbis::{read, VorbisError};
        match read(&bytes) {
            Ok(_) if settings.format == AudioFormat::Auto => original = Some(bytes.clone()),
            Err(e @ (VorbisError::Crc { .. } | VorbisError::Truncated { .. })) => {
                return Err(AudioError::Decode(format!("a damaged Ogg stream: {e}")));
            }
            // Other streams (several, chained, another codec's) are for the decoder to
            // take or refuse; they are never passed through.
            _ => {}
        }
    }
    let decoded = decode::decode(bytes, ext, budget)?;
    let source_channels = decoded.planes.len();
    let mixes = settings.force_3d && source_channels > 1;
    if let Some(original) = original {
        // Levelled, a sound is new samples: only an unlevelled one may go out as it came.
        if decoded.sample_rate == settings.sample_rate && !mixes && settings.loudness.is_none() {
            return Ok(Converted {
                bytes: original,
                format: AudioFormat::Ogg,
                warnings: Vec::new(),
            });
        }
    }
    let source_frames = decoded.frames() as u64;
    let source_rate = decoded.sample_rate;
    let (planes, mask) = if mixes {
        (vec![mix::mono(&decoded.planes)], 0)
    } else {
        (decoded.planes, decoded.channel_mask)
    };
    if planes.len() > usize::from(MAX_CHANNELS) {
        return Err(AudioError::TooManyChannels(planes.len()));
    }
    let planes = if decoded.sample_rate == settings.sample_rate {
        planes
    } else {
        resample::resample(&planes, decoded.sample_rate, settings.sample_rate).map_err(
            |source| AudioError::Resample {
                from: decoded.sample_rate,
                to: settings.sample_rate,
                source,
            },
        )?
    };
    // Mono and stereo need no mask; more channels keep theirs only when it names each.
    let mask = if planes.len() > 2 && mask.count_ones() as usize == planes.len() {
        mask
    } else {
        0
    };
    let mut warnings: Vec<Warning> = Vec::new();
    let mut planes = planes;
    if let Some(target) = settings.loudness {
        let done = loudness::level(&mut planes, settings.sample_rate, f64::from(target))?;
        if done.capped {
            warnings.push(Warning::new(
                DiagnosticCode::TargetLimit,
                format!(
                    "levelled to {:.1} LUFS, not {target:.1}: more gain would take its true \
                     peak past {} dBTP",
                    done.before.integrated_lufs + done.gain_db,
                    loudness::MAX_TRUE_PEAK_DBTP
                ),
            ));
        }
    }
    let bytes = match format {
        AudioFormat::Ogg => {
            let quality = vorbis::Target::Quality(settings.compression_quality);
            let mut ogg = vorbis::encode(&planes, settings.sample_rate, mask, quality)?;
            // `auto` re-encodes a compressed source no larger than it came: when the
            // quality asked for needs more bits than the source had (a 96 kbit/s sound at
            // 0.7 would double), it is encoded again at the source's own average bitrate,
            // for its channels as written. Quality the source lost does not come back.
            let seconds = source_frames as f64 / f64::from(source_rate.max(1));
            let same_size = source_bytes.saturating_mul(planes.len() as u64)
                / source_channels.max(1) as u64;
            if settings.format == AudioFormat::Auto && ogg.len() as u64 > same_size && seconds > 0.0
            {
                let bitrate = (same_size as f64 * 8.0 / seconds) as u32;
                // libvorbis refuses a bitrate outside what it can do at this rate and
                // channel count; the quality encoding stands then.
                if let Ok(smaller) = vorbis::encode(
                    &planes,
                    settings.sample_rate,
                    mask,
                    vorbis::Target::AverageBitrate(bitrate),
                ) {
                    if smaller.len() < ogg.len() {
                        ogg = smaller;
                    }
                }
            }
            ogg
        }
        AudioFormat::Wav | AudioFormat::Auto => {
            let (wav, clipped) =
                wav::encode(&planes, settings.sample_rate, mask, settings.bit_depth)?;
            if clipped > 0 {
                warnings.push(Warning::new(
                    DiagnosticCode::ClippedSamples,
                    format!("{clipped} samples clipped to 16 bits (bit_depth = 32 keeps them)"),
                ));
            }
            wav
        }
        AudioFormat::Mp3 => return Err(AudioError::Mp3Unavailable),
    };
    Ok(Converted {
        bytes,
        format: match format {
            AudioFormat::Ogg => AudioFormat::Ogg,
            _ => AudioFormat::Wav,
        },
        warnings,
    })
}

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let path = source.abs_path.display().to_string();
    let bytes = read_limited(&source.abs_path, MAX_AUDIO_FILE_BYTES)?;
    let settings = &context.settings.audio;
    let converted = convert(
        bytes,
        &extension(&source.rel_path),
        settings,
        &Budget::new(settings, context.limits),
    )
    .map_err(|e| {
        let (path, message) = (path.clone(), e.to_string());
        match e {
            AudioError::TooLong { .. }
            | AudioError::TooLarge { .. }
            | AudioError::SourceRate(_) => AssetError::OverLimit { path, message },
            _ => AssetError::Invalid { path, message },
        }
    })?;
    Ok(CompiledAsset {
        files: vec![OutputFile::new(
            source.output_rel(converted.format.extension()),
            converted.bytes,
            EntryKind::Audio,
        )],
        textures: Vec::new(),
        warnings: converted.warnings,
        stats: Default::default(),
        times: Default::default(),
        inputs: vec![source.abs_path.clone()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::wav::{self as wavfile, SampleFormat, Samples, WavSpec};

    fn source(channels: u16, rate: u32, frames: usize) -> Vec<u8> {
        let samples: Vec<i16> = (0..frames * usize::from(channels))
            .map(|i| ((i * 7919) % 65536) as i16)
            .collect();
        let spec = WavSpec {
            format: SampleFormat::Pcm16,
            channels,
            sample_rate: rate,
            channel_mask: 0,
        };
        wavfile::write(&spec, Samples::Pcm16(&samples)).unwrap()
    }

    fn settings(sample_rate: u32, bit_depth: u32, force_3d: bool) -> AudioSettings {
        AudioSettings {
            sample_rate,
            bit_depth,
            force_3d,
            ..AudioSettings::default()
        }
    }

    fn run(bytes: Vec<u8>, s: &AudioSettings) -> Result<Converted, AudioError> {
        convert(bytes, "wav", s, &Budget::new(s, &Default::default()))
    }

    #[test]
    fn a_sixteen_bit_source_at_the_output_rate_is_copied_bit_for_bit() {
        let src = source(2, 44_100, 1000);
        let out = run(src.clone(), &settings(44_100, 16, false)).unwrap();
        let (a, b) = (
            wavfile::read(&src).unwrap(),
            wavfile::read(&out.bytes).unwrap(),
        );
        assert_eq!(a.data(&src), b.data(&out.bytes));
        assert_eq!(a.spec, b.spec);
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn each_setting_changes_what_is_written() {
        let src = source(2, 22_050, 2205);
        let out = run(src.clone(), &settings(48_000, 32, true)).unwrap();
        let info = wavfile::read(&out.bytes).unwrap();
        assert_eq!(info.spec.sample_rate, 48_000);
        assert_eq!(info.spec.format, SampleFormat::Float32);
        assert_eq!(info.spec.channels, 1);
        // 0.1 s at 22 050 Hz is 0.1 s at 48 000 Hz.
        assert_eq!(info.frames, 4800);
    }

    #[test]
    fn more_than_eight_channels_need_force_3d() {
        let src = source(8, 8_000, 10);
        assert!(run(src, &settings(8_000, 16, false)).is_ok());
        // symphonia reads WAVs of any channel count; ours hold at most 8.
        let mut nine = source(1, 8_000, 90);
        nine[22] = 9; // channels
        nine[32] = 18; // block align
        nine[28..32].copy_from_slice(&(8_000u32 * 18).to_le_bytes());
        let e = run(nine.clone(), &settings(8_000, 16, false)).unwrap_err();
        assert!(e.to_string().contains("9 channels"), "{e}");
        let mono = run(nine, &settings(8_000, 16, true)).unwrap();
        assert_eq!(wavfile::read(&mono.bytes).unwrap().spec.channels, 1);
    }

    #[test]
    fn a_header_that_declares_hours_is_refused_before_decoding() {
        // 100 bytes of samples, but a data chunk that says 4 GB: 3.1 hours at 192 kHz (and
        // a RIFF size of u32::MAX, "unknown", as a streaming writer leaves it).
        let mut src = source(1, 192_000, 50);
        src[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        src[40..44].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
        let e = run(src, &settings(44_100, 16, false)).unwrap_err();
        assert!(matches!(e, AudioError::TooLong { limit: 3600, .. }), "{e}");
    }

    #[test]
    fn decoding_stops_at_the_budget() {
        let s = settings(8_000, 16, false);
        let src = source(2, 8_000, 16_000);
        let mut budget = Budget::new(&s, &Default::default());
        budget.max_seconds = 1;
        let e = convert(src.clone(), "wav", &s, &budget).unwrap_err();
        assert!(e.to_string().contains("more than 1 s"), "{e}");
        let mut budget = Budget::new(&s, &Default::default());
        budget.max_memory_bytes = 10_000;
        let e = convert(src, "wav", &s, &budget).unwrap_err();
        assert!(
            matches!(e, AudioError::TooLarge { limit: 10_000, .. }),
            "{e}"
        );
    }

    /// `source` with its header's sample rate (and byte rate) set to `rate`.
    fn with_rate(mut bytes: Vec<u8>, rate: u32) -> Vec<u8> {
        let block_align = u32::from(u16::from_le_bytes([bytes[32], bytes[33]]));
        bytes[24..28].copy_from_slice(&rate.to_le_bytes());
        bytes[28..32].copy_from_slice(&rate.wrapping_mul(block_align).to_le_bytes());
        bytes
    }

    #[test]
    fn source_rates_outside_the_audible_range_are_refused_before_resampling() {
        for rate in [0, 1, 3, MIN_SOURCE_RATE - 1, MAX_SOURCE_RATE + 1] {
            let src = with_rate(source(2, 8_000, 100), rate);
            match run(src, &settings(44_100, 16, false)) {
                Err(AudioError::SourceRate(r)) => assert_eq!(r, rate),
                other => panic!("{rate} Hz: {other:?}"),
            }
        }
        let e = AudioError::SourceRate(0).to_string();
        assert!(e.contains("1000 to 768000 Hz"), "{e}");
        // The slowest rate accepted is resampled: 100 frames at 1 kHz are 0.1 s.
        let src = with_rate(source(1, 8_000, 100), MIN_SOURCE_RATE);
        let out = run(src, &settings(44_100, 16, false)).unwrap();
        assert_eq!(wavfile::read(&out.bytes).unwrap().frames, 4_410);
    }

    #[test]
    fn the_memory_estimate_counts_every_buffer_at_the_output_rate() {
        // 8000 frames of mono at 8 kHz to 32-bit float at 48 kHz: 32 KB decoded, then
        // 48,000 samples resampled (f32) and written (4 bytes each).
        let s = settings(48_000, 32, false);
        let src = source(1, 8_000, 8_000);
        let peak = 8_000 * 4 + 48_000 * 4 + 48_000 * 4;
        let mut budget = Budget::new(&s, &Default::default());
        budget.max_memory_bytes = peak;
        assert!(convert(src.clone(), "wav", &s, &budget).is_ok());
        budget.max_memory_bytes = peak - 1;
        match convert(src, "wav", &s, &budget) {
            Err(AudioError::TooLarge { bytes, limit }) => {
                assert_eq!((bytes, limit), (peak, peak - 1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn damaged_sources_say_why() {
        let src = source(2, 44_100, 1000);
        let e = run(
            src[..src.len() - 1001].to_vec(),
            &settings(44_100, 16, false),
        )
        .unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        let e = run(b"not audio at all".to_vec(), &settings(44_100, 16, false)).unwrap_err();
        assert!(e.to_string().contains("not a readable audio file"), "{e}");
        let empty = source(1, 44_100, 0);
        let e = run(empty, &settings(44_100, 16, false)).unwrap_err();
        assert!(e.to_string().contains("no audio frames"), "{e}");
    }
}
