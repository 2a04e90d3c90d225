//! Every frame of a source's first audio track, as f32 planes, with symphonia.

use super::{AudioError, Budget};
use symphonia::core::audio::Channels;
use symphonia::core::codecs::audio::AudioDecoderOptions;
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::probe::Hint;
use symphonia::core::formats::{FormatOptions, TrackType};
use symphonia::core::io::{MediaSourceStream, MediaSourceStreamOptions};
use symphonia::core::meta::MetadataOptions;

/// A decoded source.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub sample_rate: u32,
    /// One plane per channel, all of the same length.
    pub planes: Vec<Vec<f32>>,
    /// WAVE_FORMAT_EXTENSIBLE speaker mask of the planes, in that order; 0 when the source
    /// names no speaker positions (symphonia keeps the first 18 bits of its masks equal to
    /// Microsoft's and orders planes by bit).
    pub channel_mask: u32,
}

impl Decoded {
    pub fn frames(&self) -> usize {
        self.planes.first().map_or(0, Vec::len)
    }
}

/// The WAVE speaker bits symphonia shares with Microsoft's mask.
const WAVE_MASK_BITS: u64 = (1 << 18) - 1;

/// Decodes every packet of the first audio track. A packet that does not decode, or a
/// stream that ends inside a packet, fails the whole source: a sound with a hole in it is
/// not one to ship. `ext` (lower case, no dot) is a hint for the container.
pub fn decode(bytes: Vec<u8>, ext: &str, budget: &Budget) -> Result<Decoded, AudioError> {
    let file_len = bytes.len() as u64;
    let source = MediaSourceStream::new(
        Box::new(std::io::Cursor::new(bytes)),
        MediaSourceStreamOptions::default(),
    );
    let mut hint = Hint::new();
    hint.with_extension(ext);
    let mut format = symphonia::default::get_probe()
        .probe(
            &hint,
            source,
            FormatOptions::default(),
            MetadataOptions::default(),
        )
        .map_err(|e| AudioError::Decode(format!("not a readable audio file: {e}")))?;
    let track = format
        .default_track(TrackType::Audio)
        .ok_or_else(|| AudioError::Decode("no audio track".into()))?;
    let track_id = track.id;
    let declared_frames = track.num_frames;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|p| p.audio())
        .ok_or_else(|| AudioError::Decode("the audio track has no codec parameters".into()))?;
    if let (Some(frames), Some(rate)) = (declared_frames, params.sample_rate) {
        // A header that declares hours of audio is refused before any of it is decoded.
        budget.admit(
            rate,
            params.channels.as_ref().map_or(1, Channels::count),
            frames,
        )?;
    }
    let mut decoder = symphonia::default::get_codecs()
        .make_audio_decoder(params, &AudioDecoderOptions::default())
        .map_err(|e| AudioError::Decode(format!("cannot decode this track: {e}")))?;

    let mut out: Option<Decoded> = None;
    let mut channels_seen: Option<Channels> = None;
    // Every packet takes at least one byte of the file (an Ogg lacing value), so a
    // demuxer that hands out more than this is looping.
    let max_packets = file_len.saturating_mul(2).saturating_add(1024);
    let mut packets = 0u64;
    loop {
        let packet = match format.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(SymphoniaError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(AudioError::Decode(
                    "truncated: the file ends inside a packet".into(),
                ))
            }
            Err(e) => return Err(AudioError::Decode(e.to_string())),
        };
        packets += 1;
        if packets > max_packets {
            return Err(AudioError::Decode(format!(
                "the demuxer yields more than {max_packets} packets from {file_len} bytes"
            )));
        }
        if packet.track_id != track_id {
            continue;
        }
        let buffer = decoder.decode(&packet).map_err(|e| {
            AudioError::Decode(format!("packet at timestamp {}: {e}", packet.pts.get()))
        })?;
        let spec = buffer.spec();
        let decoded = out.get_or_insert_with(|| Decoded {
            sample_rate: spec.rate(),
            planes: vec![Vec::new(); buffer.num_planes()],
            channel_mask: wave_mask(spec.channels()),
        });
        if spec.rate() != decoded.sample_rate || buffer.num_planes() != decoded.planes.len() {
            return Err(AudioError::Decode(format!(
                "the stream changes from {} Hz, {} channels to {} Hz, {} channels",
                decoded.sample_rate,
                decoded.planes.len(),
                spec.rate(),
                buffer.num_planes()
            )));
        }
        if channels_seen.get_or_insert_with(|| spec.channels().clone()) != spec.channels() {
            return Err(AudioError::Decode(
                "the stream changes its channel layout".into(),
            ));
        }
        let frames = buffer.frames();
        let before = decoded.frames();
        budget.admit(
            decoded.sample_rate,
            decoded.planes.len(),
            (before + frames) as u64,
        )?;
        for plane in &mut decoded.planes {
            plane.resize(before + frames, 0.0);
        }
        let mut tails: Vec<&mut [f32]> = decoded
            .planes
            .iter_mut()
            .map(|p| &mut p[before..])
            .collect();
        buffer.copy_to_slice_planar::<f32, _>(&mut tails);
    }
    let decoded = out.ok_or_else(|| AudioError::Decode("no audio frames".into()))?;
    if decoded.frames() == 0 || decoded.planes.is_empty() {
        return Err(AudioError::Decode("no audio frames".into()));
    }
    if let Some(declared) = declared_frames.filter(|&d| d > decoded.frames() as u64) {
        return Err(AudioError::Decode(format!(
            "truncated: the header declares {declared} frames, the file holds {}",
            decoded.frames()
        )));
    }
    Ok(decoded)
}

/// The WAVE speaker mask of a channel set, when it is one of positions WAVE can name and
/// has one bit per channel.
fn wave_mask(channels: &Channels) -> u32 {
    match channels {
        Channels::Positioned(p) if p.bits() & !WAVE_MASK_BITS == 0 => {
            u32::try_from(p.bits()).unwrap_or(0)
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symphonia::core::audio::Position;

    fn mask_of(positions: Position) -> u32 {
        wave_mask(&Channels::Positioned(positions))
    }

    #[test]
    fn speaker_masks_are_the_wave_bits_or_none() {
        assert_eq!(mask_of(Position::FRONT_LEFT | Position::FRONT_RIGHT), 0b11);
        let five_one = Position::FRONT_LEFT
            | Position::FRONT_RIGHT
            | Position::FRONT_CENTER
            | Position::LFE1
            | Position::REAR_LEFT
            | Position::REAR_RIGHT;
        assert_eq!(mask_of(five_one), 0x3F);
        assert_eq!(wave_mask(&Channels::Discrete(4)), 0);
    }
}
