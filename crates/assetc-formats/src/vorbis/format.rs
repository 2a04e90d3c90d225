//! The Ogg Vorbis descriptor: a sound's stream as `inspect` and `info` show it.

use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::hman::EntryKind;
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::OggVorbis,
    name: "Ogg Vorbis",
    extensions: &["ogg"],
    magic: &[&[Magic::start(b"OggS")]],
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
    let mut doc = Document::new(format!("Ogg Vorbis ({})", size(bytes.len() as u64)));
    doc.fact("sample rate", format!("{} Hz", info.sample_rate));
    doc.fact(
        "channels",
        match info.channels {
            1 => "mono".to_string(),
            2 => "stereo".to_string(),
            n => n.to_string(),
        },
    );
    doc.fact("codec", "Vorbis (vorbis)");
    if info.bitrate_nominal > 0 {
        doc.fact(
            "nominal bitrate",
            format!("{} kbit/s", info.bitrate_nominal / 1000),
        );
    }
    let seconds = info.duration_seconds();
    if seconds > 0.0 {
        doc.fact(
            "average bitrate",
            format!("{:.0} kbit/s", bytes.len() as f64 * 8.0 / seconds / 1000.0),
        );
    }
    doc.fact("frames", info.frames);
    doc.fact("duration", format!("{seconds:.3} s"));
    doc.fact("pages", info.pages);
    doc.fact("packets", info.packets);
    doc.fact("vendor", &info.vendor);
    Ok(doc)
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    Ok(Stats {
        audio: Some(super::read(bytes)?.summary()),
        ..Stats::default()
    })
}
