//! PCM `.wav` (RIFF/WAVE) as the audio kind writes it: writer, reader and validator.
//!
//! What we write is what ffmpeg and libsndfile write for the same samples, so that every
//! engine's WAV loader reads it:
//! - 16-bit signed integer: `fmt ` of 16 bytes, format tag 1 (WAVE_FORMAT_PCM), no `fact`.
//! - 32-bit IEEE float: `fmt ` of 18 bytes (cbSize 0), format tag 3
//!   (WAVE_FORMAT_IEEE_FLOAT), then a `fact` chunk holding the frame count, which the WAVE
//!   spec asks of every format that is not integer PCM.
//! - More than two channels: `fmt ` of 40 bytes, format tag 0xFFFE (WAVE_FORMAT_EXTENSIBLE)
//!   with the speaker mask and the PCM or IEEE-float subformat GUID, as the spec asks for
//!   multichannel data (and `fact` when the samples are float).
//!
//! then `data`, interleaved frames, little-endian. Nothing else (no `LIST`), so the file is
//! exactly the header plus `frames x block align` bytes.
//!
//! Written by hand rather than with `hound`: this module builds with the formats alone
//! (`default-features = false`, no dependencies), the validator needs the chunk layout a
//! decoding library hides, and the writer is a few dozen lines.
//!
//! The reader takes foreign WAVs too (other chunks are skipped), but only the two sample
//! formats above: it serves `check`, `inspect` and the report, not the audio kind's
//! sources (those are decoded by symphonia).

mod format;
pub use format::FORMAT;

use super::bytes::{Reader, WriteLe};
use super::Problem;
use thiserror::Error;

/// Lowest and highest sample rate accepted (the `[audio] sample_rate` range).
pub const MIN_RATE: u32 = 8_000;
pub const MAX_RATE: u32 = 192_000;
/// Most channels accepted (7.1).
pub const MAX_CHANNELS: u16 = 8;

const FORMAT_PCM: u16 = 1;
const FORMAT_FLOAT: u16 = 3;
const FORMAT_EXTENSIBLE: u16 = 0xFFFE;
/// KSDATAFORMAT_SUBTYPE_PCM and _IEEE_FLOAT are `{tag}-0000-0010-8000-00AA00389B71`: the
/// GUID's first two bytes are the plain format tag, these 14 follow.
const SUBFORMAT_TAIL: [u8; 14] = [
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
];
/// RIFF sizes are u32: the whole file must stay below 4 GiB.
const MAX_FILE_BYTES: u64 = u32::MAX as u64;

/// How each sample is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFormat {
    /// Signed 16-bit integer.
    Pcm16,
    /// 32-bit IEEE float, nominally -1.0..=1.0.
    Float32,
}

impl SampleFormat {
    pub fn bits(self) -> u16 {
        match self {
            Self::Pcm16 => 16,
            Self::Float32 => 32,
        }
    }
    pub fn bytes(self) -> u16 {
        self.bits() / 8
    }
    pub fn description(self) -> &'static str {
        match self {
            Self::Pcm16 => "16-bit integer",
            Self::Float32 => "32-bit float",
        }
    }
    /// The name ffprobe gives the codec (`pcm_s16le`, `pcm_f32le`).
    pub fn codec_name(self) -> &'static str {
        match self {
            Self::Pcm16 => "pcm_s16le",
            Self::Float32 => "pcm_f32le",
        }
    }
    fn tag(self) -> u16 {
        match self {
            Self::Pcm16 => FORMAT_PCM,
            Self::Float32 => FORMAT_FLOAT,
        }
    }
}

/// The layout of a WAV's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WavSpec {
    pub format: SampleFormat,
    pub channels: u16,
    pub sample_rate: u32,
    /// WAVE_FORMAT_EXTENSIBLE speaker mask (bit 0 front left, 1 front right, 2 centre, 3 LFE,
    /// ...), written only for more than two channels; 0 leaves the speakers unassigned.
    pub channel_mask: u32,
}

impl WavSpec {
    pub fn block_align(&self) -> u16 {
        self.channels * self.format.bytes()
    }
    fn extensible(&self) -> bool {
        self.channels > 2
    }
}

/// Interleaved samples to write.
#[derive(Debug, Clone, Copy)]
pub enum Samples<'a> {
    Pcm16(&'a [i16]),
    Float32(&'a [f32]),
}

impl Samples<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Pcm16(s) => s.len(),
            Self::Float32(s) => s.len(),
        }
    }
    fn format(&self) -> SampleFormat {
        match self {
            Self::Pcm16(_) => SampleFormat::Pcm16,
            Self::Float32(_) => SampleFormat::Float32,
        }
    }
}

/// What a WAV holds, as read from its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WavInfo {
    pub spec: WavSpec,
    /// Written as WAVE_FORMAT_EXTENSIBLE.
    pub extensible: bool,
    /// Sample frames in the `data` chunk.
    pub frames: u64,
    /// Where the samples start, and their length in bytes.
    pub data_offset: usize,
    pub data_len: usize,
    /// The `fact` chunk's frame count, when there is one.
    pub fact_frames: Option<u32>,
    /// The RIFF header's size field (the file's length less 8 when consistent).
    pub riff_size: u32,
}

impl WavInfo {
    pub fn duration_seconds(&self) -> f64 {
        self.frames as f64 / f64::from(self.spec.sample_rate)
    }
    /// `44100 Hz, 2 ch, 16-bit integer, 1.250 s`.
    pub fn summary(&self) -> String {
        format!(
            "{} Hz, {} ch, {}, {:.3} s",
            self.spec.sample_rate,
            self.spec.channels,
            self.spec.format.description(),
            self.duration_seconds()
        )
    }
    /// The interleaved sample bytes of `bytes`, the file this was read from.
    pub fn data<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes
            .get(self.data_offset..self.data_offset + self.data_len)
            .unwrap_or_default()
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WavError {
    #[error("at byte {offset}: {what} needs {needed} bytes but the file ends at {len}")]
    Truncated {
        what: &'static str,
        offset: u64,
        needed: u64,
        len: u64,
    },
    #[error("at byte 0: not a RIFF/WAVE file")]
    NotWave,
    #[error("no `{0}` chunk")]
    MissingChunk(&'static str),
    #[error("at byte {offset}: the `data` chunk comes before `fmt `")]
    DataBeforeFormat { offset: u64 },
    #[error("at byte {offset}: `fmt ` chunk of {size} bytes is too short for its format")]
    ShortFormat { offset: u64, size: u32 },
    #[error("at byte {offset}: format tag {tag:#06x} with {bits} bits per sample is neither 16-bit integer PCM nor 32-bit float")]
    UnsupportedFormat { offset: u64, tag: u16, bits: u16 },
    #[error("at byte {offset}: extensible format's valid bits ({valid}) differ from its {bits} bits per sample")]
    ValidBits { offset: u64, valid: u16, bits: u16 },
    #[error("at byte {offset}: {channels} channels (1 to {MAX_CHANNELS} accepted)")]
    Channels { offset: u64, channels: u16 },
    #[error("at byte {offset}: sample rate {rate} Hz ({MIN_RATE} to {MAX_RATE} accepted)")]
    Rate { offset: u64, rate: u32 },
    #[error("at byte {offset}: block align is {found}, channels x bytes per sample is {expected}")]
    BlockAlign {
        offset: u64,
        found: u16,
        expected: u16,
    },
    #[error("at byte {offset}: byte rate is {found}, sample rate x block align is {expected}")]
    ByteRate {
        offset: u64,
        found: u32,
        expected: u64,
    },
    #[error("at byte {offset}: `data` holds {len} bytes, not a whole number of {block_align}-byte frames")]
    PartialFrame {
        offset: u64,
        len: u64,
        block_align: u16,
    },
    #[error("{samples} samples do not make whole frames of {channels} channels")]
    SamplesNotFrames { samples: usize, channels: u16 },
    #[error("cannot write {channels} channels at {rate} Hz (1 to {MAX_CHANNELS} channels, {MIN_RATE} to {MAX_RATE} Hz)")]
    BadSpec { channels: u16, rate: u32 },
    #[error("samples are {given:?} but the spec says {spec:?}")]
    FormatMismatch {
        given: SampleFormat,
        spec: SampleFormat,
    },
    #[error("{bytes} bytes of samples do not fit a WAV (RIFF sizes are 32-bit)")]
    TooLarge { bytes: u64 },
}

impl WavError {
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::Truncated { offset, .. }
            | Self::DataBeforeFormat { offset }
            | Self::ShortFormat { offset, .. }
            | Self::UnsupportedFormat { offset, .. }
            | Self::ValidBits { offset, .. }
            | Self::Channels { offset, .. }
            | Self::Rate { offset, .. }
            | Self::BlockAlign { offset, .. }
            | Self::ByteRate { offset, .. }
            | Self::PartialFrame { offset, .. } => Some(*offset),
            Self::NotWave => Some(0),
            Self::MissingChunk(_)
            | Self::SamplesNotFrames { .. }
            | Self::BadSpec { .. }
            | Self::FormatMismatch { .. }
            | Self::TooLarge { .. } => None,
        }
    }
}

/// Writes a WAV of interleaved samples (see the module documentation for the layout).
pub fn write(spec: &WavSpec, samples: Samples<'_>) -> Result<Vec<u8>, WavError> {
    if !(1..=MAX_CHANNELS).contains(&spec.channels)
        || !(MIN_RATE..=MAX_RATE).contains(&spec.sample_rate)
    {
        return Err(WavError::BadSpec {
            channels: spec.channels,
            rate: spec.sample_rate,
        });
    }
    if samples.format() != spec.format {
        return Err(WavError::FormatMismatch {
            given: samples.format(),
            spec: spec.format,
        });
    }
    let channels = usize::from(spec.channels);
    if !samples.len().is_multiple_of(channels) {
        return Err(WavError::SamplesNotFrames {
            samples: samples.len(),
            channels: spec.channels,
        });
    }
    let frames = (samples.len() / channels) as u64;
    let data_len = samples.len() as u64 * u64::from(spec.format.bytes());
    let float = spec.format == SampleFormat::Float32;
    let fmt_len: u32 = match (spec.extensible(), float) {
        (true, _) => 40,
        (false, true) => 18,
        (false, false) => 16,
    };
    let fact_len: u64 = if float { 12 } else { 0 };
    let header = 12 + 8 + u64::from(fmt_len) + fact_len + 8;
    if header + data_len > MAX_FILE_BYTES || frames > u64::from(u32::MAX) {
        return Err(WavError::TooLarge { bytes: data_len });
    }
    let mut out = Vec::with_capacity((header + data_len) as usize);
    out.extend_from_slice(b"RIFF");
    out.put_u32((header + data_len - 8) as u32);
    out.extend_from_slice(b"WAVE");

    out.extend_from_slice(b"fmt ");
    out.put_u32(fmt_len);
    out.put_u16(if spec.extensible() {
        FORMAT_EXTENSIBLE
    } else {
        spec.format.tag()
    });
    out.put_u16(spec.channels);
    out.put_u32(spec.sample_rate);
    out.put_u32(spec.sample_rate * u32::from(spec.block_align()));
    out.put_u16(spec.block_align());
    out.put_u16(spec.format.bits());
    if fmt_len > 16 {
        out.put_u16((fmt_len - 18) as u16); // cbSize: 22 for extensible, else 0
    }
    if spec.extensible() {
        out.put_u16(spec.format.bits()); // wValidBitsPerSample
        out.put_u32(spec.channel_mask);
        out.put_u16(spec.format.tag());
        out.extend_from_slice(&SUBFORMAT_TAIL);
    }
    if float {
        out.extend_from_slice(b"fact");
        out.put_u32(4);
        out.put_u32(frames as u32);
    }
    out.extend_from_slice(b"data");
    out.put_u32(data_len as u32);
    match samples {
        Samples::Pcm16(s) => s.iter().for_each(|v| out.put_u16(*v as u16)),
        Samples::Float32(s) => s.iter().for_each(|v| out.put_f32(*v)),
    }
    Ok(out)
}

/// Reads a WAV's header and finds its samples. Refuses any file whose samples could not
/// be played as they are: a format other than 16-bit PCM or 32-bit float, channels or rate
/// out of range, inconsistent block align or byte rate, a `data` chunk past the end of the
/// file or of partial frames.
pub fn read(bytes: &[u8]) -> Result<WavInfo, WavError> {
    let len = bytes.len() as u64;
    let truncated = |what, offset: usize, needed: usize| WavError::Truncated {
        what,
        offset: offset as u64,
        needed: needed as u64,
        len,
    };
    let mut r = Reader::new(bytes);
    let head = r
        .bytes(12, "RIFF header")
        .map_err(|e| truncated(e.what, e.offset, e.needed))?;
    if &head[0..4] != b"RIFF" || &head[8..12] != b"WAVE" {
        return Err(WavError::NotWave);
    }
    let riff_size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    let mut format: Option<(WavSpec, bool)> = None;
    let mut fact_frames = None;
    loop {
        if r.remaining() == 0 {
            return Err(WavError::MissingChunk(if format.is_none() {
                "fmt "
            } else {
                "data"
            }));
        }
        let at = r.pos();
        let id = r
            .array::<4>("chunk id")
            .map_err(|e| truncated(e.what, e.offset, e.needed))?;
        let size = r
            .u32("chunk size")
            .map_err(|e| truncated(e.what, e.offset, e.needed))?;
        let body_at = r.pos();
        if &id == b"data" {
            let Some((spec, extensible)) = format else {
                return Err(WavError::DataBeforeFormat { offset: at as u64 });
            };
            let data_len = size as usize;
            if (r.remaining() as u64) < u64::from(size) {
                return Err(truncated("data chunk", body_at, data_len));
            }
            let block_align = spec.block_align();
            if !data_len.is_multiple_of(usize::from(block_align)) {
                return Err(WavError::PartialFrame {
                    offset: at as u64 + 4,
                    len: u64::from(size),
                    block_align,
                });
            }
            return Ok(WavInfo {
                spec,
                extensible,
                frames: (data_len / usize::from(block_align)) as u64,
                data_offset: body_at,
                data_len,
                fact_frames,
                riff_size,
            });
        }
        // Chunks are padded to an even length.
        let body = r
            .bytes(size as usize + (size as usize & 1), "chunk")
            .map_err(|_| truncated("chunk", body_at, size as usize))?;
        match &id {
            b"fmt " => format = Some(parse_format(body, body_at as u64)?),
            b"fact" if size >= 4 => {
                fact_frames = Some(u32::from_le_bytes([body[0], body[1], body[2], body[3]]))
            }
            _ => {}
        }
    }
}

/// The `fmt ` chunk's body, at `at` in the file.
fn parse_format(body: &[u8], at: u64) -> Result<(WavSpec, bool), WavError> {
    let short = || WavError::ShortFormat {
        offset: at - 4,
        size: body.len() as u32,
    };
    let mut r = Reader::new(body);
    let tag = r.u16("format tag").map_err(|_| short())?;
    let channels = r.u16("channels").map_err(|_| short())?;
    let rate = r.u32("sample rate").map_err(|_| short())?;
    let byte_rate = r.u32("byte rate").map_err(|_| short())?;
    let block_align = r.u16("block align").map_err(|_| short())?;
    let bits = r.u16("bits per sample").map_err(|_| short())?;
    let mut channel_mask = 0;
    let (format_tag, extensible) = if tag == FORMAT_EXTENSIBLE {
        let _cb_size = r.u16("cbSize").map_err(|_| short())?;
        let valid = r.u16("valid bits").map_err(|_| short())?;
        channel_mask = r.u32("channel mask").map_err(|_| short())?;
        let guid = r.array::<16>("subformat").map_err(|_| short())?;
        let sub_tag = u16::from_le_bytes([guid[0], guid[1]]);
        if guid[2..] != SUBFORMAT_TAIL {
            return Err(WavError::UnsupportedFormat {
                offset: at + 24,
                tag,
                bits,
            });
        }
        if valid != bits {
            return Err(WavError::ValidBits {
                offset: at + 18,
                valid,
                bits,
            });
        }
        (sub_tag, true)
    } else {
        (tag, false)
    };
    let format = match (format_tag, bits) {
        (FORMAT_PCM, 16) => SampleFormat::Pcm16,
        (FORMAT_FLOAT, 32) => SampleFormat::Float32,
        _ => {
            return Err(WavError::UnsupportedFormat {
                offset: at,
                tag: format_tag,
                bits,
            })
        }
    };
    if !(1..=MAX_CHANNELS).contains(&channels) {
        return Err(WavError::Channels {
            offset: at + 2,
            channels,
        });
    }
    if !(MIN_RATE..=MAX_RATE).contains(&rate) {
        return Err(WavError::Rate {
            offset: at + 4,
            rate,
        });
    }
    let spec = WavSpec {
        format,
        channels,
        sample_rate: rate,
        channel_mask,
    };
    if block_align != spec.block_align() {
        return Err(WavError::BlockAlign {
            offset: at + 12,
            found: block_align,
            expected: spec.block_align(),
        });
    }
    let expected = u64::from(rate) * u64::from(block_align);
    if u64::from(byte_rate) != expected {
        return Err(WavError::ByteRate {
            offset: at + 8,
            found: byte_rate,
            expected,
        });
    }
    Ok((spec, extensible))
}

/// Every rule a WAV of ours breaks: what [`read`] refuses, a RIFF size that is not the
/// file's length, a `fact` count that is not the frame count (or float data without one),
/// and more speakers in the mask than channels.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let info = match read(bytes) {
        Ok(i) => i,
        Err(e) => return vec![Problem::from_error(e.offset(), &e)],
    };
    let mut problems = Vec::new();
    let len = bytes.len() as u64;
    if u64::from(info.riff_size) + 8 != len {
        problems.push(Problem::at(
            4,
            format!(
                "RIFF size is {}, the file's length less 8 is {}",
                info.riff_size,
                len.saturating_sub(8)
            ),
        ));
    }
    let data_end = (info.data_offset + info.data_len) as u64;
    if data_end + (info.data_len as u64 & 1) < len {
        problems.push(Problem::at(
            data_end,
            format!("{} bytes follow the `data` chunk", len - data_end),
        ));
    }
    match info.fact_frames {
        Some(n) if u64::from(n) != info.frames => problems.push(Problem::new(format!(
            "`fact` says {n} frames, `data` holds {}",
            info.frames
        ))),
        None if info.spec.format == SampleFormat::Float32 => problems.push(Problem::new(
            "float samples without a `fact` chunk (the WAVE spec asks for one)",
        )),
        _ => {}
    }
    let speakers = info.spec.channel_mask.count_ones();
    if speakers > u32::from(info.spec.channels) {
        problems.push(Problem::new(format!(
            "channel mask {:#x} names {speakers} speakers for {} channels",
            info.spec.channel_mask, info.spec.channels
        )));
    }
    problems
}

/// The samples of a WAV read by [`read`], interleaved, as floats in -1.0..=1.0 (16-bit
/// integers divided by 32768).
pub fn samples_f32(info: &WavInfo, bytes: &[u8]) -> Vec<f32> {
    let data = info.data(bytes);
    match info.spec.format {
        SampleFormat::Pcm16 => data
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32768.0)
            .collect(),
        SampleFormat::Float32 => data
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(format: SampleFormat, channels: u16) -> WavSpec {
        WavSpec {
            format,
            channels,
            sample_rate: 44_100,
            channel_mask: if channels > 2 { (1 << channels) - 1 } else { 0 },
        }
    }

    #[test]
    fn sixteen_bit_stereo_is_the_canonical_44_byte_header() {
        let samples = [0i16, -1, 32767, -32768];
        let bytes = write(&spec(SampleFormat::Pcm16, 2), Samples::Pcm16(&samples)).unwrap();
        // The canonical PCM header is 44 bytes: RIFF(12) + fmt(8+16) + data(8).
        assert_eq!(bytes.len(), 44 + 8);
        assert_eq!(&bytes[20..22], &1u16.to_le_bytes());
        let info = read(&bytes).unwrap();
        assert_eq!(
            (info.frames, info.data_offset, info.extensible),
            (2, 44, false)
        );
        assert_eq!(info.fact_frames, None);
        assert_eq!(
            samples_f32(&info, &bytes),
            [0.0, -1.0 / 32768.0, 32767.0 / 32768.0, -1.0]
        );
        assert!(validate(&bytes).is_empty(), "{:?}", validate(&bytes));
    }

    #[test]
    fn float_has_format_3_a_cb_size_and_a_fact_chunk() {
        let samples = [0.5f32, -0.25, 1.0];
        let bytes = write(&spec(SampleFormat::Float32, 1), Samples::Float32(&samples)).unwrap();
        // RIFF(12) + fmt(8+18) + fact(8+4) + data(8).
        assert_eq!(bytes.len(), 58 + 12);
        assert_eq!(&bytes[20..22], &3u16.to_le_bytes());
        assert_eq!(&bytes[38..42], b"fact");
        let info = read(&bytes).unwrap();
        assert_eq!((info.frames, info.fact_frames), (3, Some(3)));
        assert_eq!(samples_f32(&info, &bytes), samples);
        assert!(validate(&bytes).is_empty(), "{:?}", validate(&bytes));
    }

    #[test]
    fn more_than_two_channels_are_extensible_with_their_mask() {
        let samples = [0i16; 6 * 4];
        let mut s = spec(SampleFormat::Pcm16, 6);
        s.channel_mask = 0x3F; // 5.1
        let bytes = write(&s, Samples::Pcm16(&samples)).unwrap();
        assert_eq!(&bytes[20..22], &FORMAT_EXTENSIBLE.to_le_bytes());
        let info = read(&bytes).unwrap();
        assert!(info.extensible);
        assert_eq!(info.spec, s);
        assert_eq!(info.frames, 4);
        assert!(validate(&bytes).is_empty());
        let float = write(&spec(SampleFormat::Float32, 3), Samples::Float32(&[0.0; 9])).unwrap();
        let info = read(&float).unwrap();
        assert_eq!(
            (info.spec.format, info.fact_frames),
            (SampleFormat::Float32, Some(3))
        );
        assert!(validate(&float).is_empty());
    }

    #[test]
    fn writing_refuses_what_no_reader_would_take() {
        let one = [0i16; 2];
        let bad_rate = WavSpec {
            sample_rate: 4_000,
            ..spec(SampleFormat::Pcm16, 1)
        };
        assert!(matches!(
            write(&bad_rate, Samples::Pcm16(&one)),
            Err(WavError::BadSpec { .. })
        ));
        assert!(matches!(
            write(&spec(SampleFormat::Pcm16, 2), Samples::Pcm16(&[0i16; 3])),
            Err(WavError::SamplesNotFrames { .. })
        ));
        assert!(matches!(
            write(&spec(SampleFormat::Float32, 1), Samples::Pcm16(&one)),
            Err(WavError::FormatMismatch { .. })
        ));
    }

    #[test]
    fn damaged_headers_are_named() {
        let good = write(&spec(SampleFormat::Pcm16, 2), Samples::Pcm16(&[1i16; 8])).unwrap();
        let first = |bytes: &[u8]| validate(bytes).first().map(|p| p.to_string());

        // The data chunk claims more than the file holds.
        let cut = &good[..good.len() - 2];
        assert!(first(cut).unwrap().contains("data chunk needs 16 bytes"));
        // 24-bit samples.
        let mut b = good.clone();
        b[34] = 24;
        assert!(
            first(&b).unwrap().contains("neither 16-bit"),
            "{:?}",
            first(&b)
        );
        // Nine channels (block align and byte rate follow, so only the count is wrong).
        let mut b = good.clone();
        b[22] = 9;
        assert!(first(&b).unwrap().contains("9 channels"));
        // A byte rate that is not rate x block align.
        let mut b = good.clone();
        b[28] ^= 1;
        assert!(first(&b).unwrap().contains("byte rate"));
        // Block align of a different channel count.
        let mut b = good.clone();
        b[32] = 2;
        assert!(first(&b).unwrap().contains("block align is 2"));
        // A rate out of range.
        let mut b = good.clone();
        b[24..28].copy_from_slice(&200_000u32.to_le_bytes());
        assert!(first(&b).unwrap().contains("sample rate 200000"));
        // Half a frame of data.
        let mut b = good.clone();
        b[40..44].copy_from_slice(&14u32.to_le_bytes());
        assert!(
            first(&b).unwrap().contains("whole number"),
            "{:?}",
            first(&b)
        );
        // Not RIFF at all.
        assert!(first(b"RIFX\0\0\0\0WAVE")
            .unwrap()
            .contains("not a RIFF/WAVE"));
        assert!(first(b"RIF").unwrap().contains("RIFF header"));
        // A RIFF size that disagrees with the file.
        let mut b = good.clone();
        b[4] ^= 2;
        assert!(first(&b).unwrap().contains("RIFF size"));
    }

    #[test]
    fn foreign_chunks_are_skipped_and_float_needs_its_fact() {
        // fmt, an odd-sized LIST chunk with its pad byte, then data.
        let plain = write(&spec(SampleFormat::Pcm16, 1), Samples::Pcm16(&[7i16, 8])).unwrap();
        let mut b = plain[..36].to_vec();
        b.extend_from_slice(b"LIST");
        b.put_u32(3);
        b.extend_from_slice(b"abc\0");
        b.extend_from_slice(&plain[36..]);
        let riff = (b.len() - 8) as u32;
        b[4..8].copy_from_slice(&riff.to_le_bytes());
        let info = read(&b).unwrap();
        assert_eq!(samples_f32(&info, &b), [7.0 / 32768.0, 8.0 / 32768.0]);
        assert!(validate(&b).is_empty());

        let float = write(&spec(SampleFormat::Float32, 1), Samples::Float32(&[0.0])).unwrap();
        // Rename `fact` to an unknown chunk.
        let mut b = float.clone();
        b[38..42].copy_from_slice(b"junk");
        assert!(validate(&b)[0].message.contains("without a `fact`"));
    }
}
