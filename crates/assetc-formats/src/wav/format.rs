//! The WAV descriptor: a sound's layout as `inspect` and `info` show it.

use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, Magic, MagicAt, ReadError};
use crate::hman::EntryKind;
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::Wav,
    name: "WAV",
    extensions: &["wav"],
    magic: &[&[
        Magic::start(b"RIFF"),
        Magic {
            at: MagicAt::Start(8),
            bytes: b"WAVE",
        },
    ]],
    entry_kinds: &[EntryKind::Audio],
    validate: super::validate,
    describe,
    stats,
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    Ok(Description::Document(document(bytes)?))
}

fn document(bytes: &[u8]) -> Result<Document, ReadError> {
    let info = super::read(bytes)?;
    let s = info.spec;
    let mut doc = Document::new(format!("WAV ({})", size(bytes.len() as u64)));
    doc.fact("sample rate", format!("{} Hz", s.sample_rate));
    let layout = match (s.channels, info.extensible) {
        (1, _) => "mono".to_string(),
        (2, _) => "stereo".to_string(),
        (n, true) => format!("{n} (speaker mask {:#x})", s.channel_mask),
        (n, false) => n.to_string(),
    };
    doc.fact("channels", layout);
    doc.fact(
        "bit depth",
        format!("{} ({})", s.format.description(), s.format.codec_name()),
    );
    doc.fact("frames", info.frames);
    doc.fact("duration", format!("{:.3} s", info.duration_seconds()));
    doc.fact("data", size(info.data_len as u64));
    Ok(doc)
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    Ok(Stats {
        audio: Some(super::read(bytes)?.summary()),
        ..Stats::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wav::{write, SampleFormat, Samples, WavSpec};

    #[test]
    fn shows_rate_channels_depth_and_duration() {
        let spec = WavSpec {
            format: SampleFormat::Float32,
            channels: 6,
            sample_rate: 48_000,
            channel_mask: 0x3F,
        };
        let bytes = write(&spec, Samples::Float32(&[0.0; 6 * 24_000])).unwrap();
        let doc = document(&bytes).unwrap();
        assert_eq!(doc.fact_value("sample rate"), Some("48000 Hz"));
        assert_eq!(doc.fact_value("channels"), Some("6 (speaker mask 0x3f)"));
        assert_eq!(
            doc.fact_value("bit depth"),
            Some("32-bit float (pcm_f32le)")
        );
        assert_eq!(doc.fact_value("frames"), Some("24000"));
        assert_eq!(doc.fact_value("duration"), Some("0.500 s"));
        assert_eq!(
            stats(&bytes).unwrap().audio.as_deref(),
            Some("48000 Hz, 6 ch, 32-bit float, 0.500 s")
        );
    }
}
