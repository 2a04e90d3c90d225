//! Ogg Vorbis `.ogg` as the audio kind writes it (or passes a source through): a reader
//! and validator of the container and of the Vorbis headers, for `check`, `--verify`,
//! `inspect` and `info`. It decodes no audio: a decoder (symphonia, libvorbis) is the
//! pipeline's weight, which this crate must not carry (engines link it alone), and the
//! rules below are what a loader needs to trust before it hands the file to its decoder.
//!
//! Each page's CRC-32 is checked by the `ogg` crate's page parser (pure Rust, no
//! dependency of weight); the walk over the pages is our own, because the crate's packet
//! reader skips bytes between pages and after the last one, which a file we ship must not
//! have. The 30-byte Vorbis identification header is read by hand (the Vorbis I
//! specification, section 4.2.2): no light crate reads it without decoding.

mod format;
pub use format::FORMAT;

use super::wav::{MAX_CHANNELS, MAX_RATE, MIN_RATE};
use super::Problem;
use thiserror::Error;

/// What an Ogg Vorbis file holds, as read from its pages and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VorbisInfo {
    pub channels: u8,
    pub sample_rate: u32,
    /// The identification header's bitrates in bit/s (0 or negative: unset).
    pub bitrate_nominal: i32,
    pub bitrate_max: i32,
    pub bitrate_min: i32,
    /// The comment header's vendor string (`Xiph.Org libVorbis I 20200704 (Reducing
    /// Environment)`, `AO; aoTuV ...`).
    pub vendor: String,
    /// The last page's granule position: the sample frames of the stream.
    pub frames: u64,
    pub pages: u64,
    /// Packets, the three headers included.
    pub packets: u64,
    pub serial: u32,
}

impl VorbisInfo {
    pub fn duration_seconds(&self) -> f64 {
        self.frames as f64 / f64::from(self.sample_rate)
    }
    /// `44100 Hz, 2 ch, Vorbis, 1.250 s`.
    pub fn summary(&self) -> String {
        format!(
            "{} Hz, {} ch, Vorbis, {:.3} s",
            self.sample_rate,
            self.channels,
            self.duration_seconds()
        )
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum VorbisError {
    #[error("at byte {offset}: no Ogg page (`OggS`) starts here")]
    NoPage { offset: u64 },
    #[error("at byte {offset}: the page needs {needed} bytes but the file ends at {len}")]
    Truncated { offset: u64, needed: u64, len: u64 },
    #[error("at byte {offset}: bad Ogg page: {reason}")]
    BadPage { offset: u64, reason: String },
    #[error("at byte {offset}: page {sequence}'s CRC-32 is {stored:#010x}, its bytes give {computed:#010x}")]
    Crc {
        offset: u64,
        sequence: u32,
        stored: u32,
        computed: u32,
    },
    #[error("at byte {offset}: {what}")]
    Structure { offset: u64, what: String },
    #[error("bad Vorbis {header} header: {reason}")]
    Header {
        header: &'static str,
        reason: String,
    },
    #[error("no pages: an empty file")]
    Empty,
}

impl VorbisError {
    pub fn offset(&self) -> Option<u64> {
        match self {
            Self::NoPage { offset }
            | Self::Truncated { offset, .. }
            | Self::BadPage { offset, .. }
            | Self::Crc { offset, .. }
            | Self::Structure { offset, .. } => Some(*offset),
            Self::Header { .. } | Self::Empty => None,
        }
    }
}

const HEADER_LEN: usize = 27;
const FLAG_CONTINUED: u8 = 1;
const FLAG_BOS: u8 = 2;
const FLAG_EOS: u8 = 4;
/// A page's granule position when no packet ends on it.
const NO_GRANULE: u64 = u64::MAX;

/// One page, as the walk found it.
struct Page {
    offset: u64,
    flags: u8,
    granule: u64,
    serial: u32,
    sequence: u32,
    /// Lacing values (the segment table).
    lacing: Vec<u8>,
    body: Vec<u8>,
}

fn structure(offset: u64, what: impl Into<String>) -> VorbisError {
    VorbisError::Structure {
        offset,
        what: what.into(),
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

/// The page at `offset`, its CRC checked by the `ogg` crate; `None` at the end of `bytes`.
fn page_at(bytes: &[u8], offset: usize) -> Result<Option<Page>, VorbisError> {
    let rest = &bytes[offset.min(bytes.len())..];
    if rest.is_empty() {
        return Ok(None);
    }
    let at = offset as u64;
    let len = bytes.len() as u64;
    let truncated = |needed: usize| VorbisError::Truncated {
        offset: at,
        needed: needed as u64,
        len,
    };
    if !rest.starts_with(b"OggS") {
        return Err(VorbisError::NoPage { offset: at });
    }
    let header: [u8; HEADER_LEN] = rest
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| truncated(HEADER_LEN))?;
    let segments = usize::from(header[26]);
    let lacing = rest
        .get(HEADER_LEN..HEADER_LEN + segments)
        .ok_or_else(|| truncated(HEADER_LEN + segments))?
        .to_vec();
    let body_len: usize = lacing.iter().map(|&l| usize::from(l)).sum();
    let whole = HEADER_LEN + segments + body_len;
    let body = rest
        .get(HEADER_LEN + segments..whole)
        .ok_or_else(|| truncated(whole))?
        .to_vec();
    let bad = |e: ogg::OggReadError| match e {
        ogg::OggReadError::HashMismatch(stored, computed) => VorbisError::Crc {
            offset: at,
            sequence: u32_at(&header, 18),
            stored,
            computed,
        },
        other => VorbisError::BadPage {
            offset: at,
            reason: other.to_string(),
        },
    };
    let (mut parser, _) = ogg::reading::PageParser::new(header).map_err(bad)?;
    parser.parse_segments(lacing.clone());
    parser.parse_packet_data(body.clone()).map_err(bad)?;
    let flags = header[5];
    if flags & !(FLAG_CONTINUED | FLAG_BOS | FLAG_EOS) != 0 {
        return Err(VorbisError::BadPage {
            offset: at,
            reason: format!("header type {flags:#04x} sets undefined bits"),
        });
    }
    let mut granule = [0u8; 8];
    granule.copy_from_slice(&header[6..14]);
    Ok(Some(Page {
        offset: at,
        flags,
        granule: u64::from_le_bytes(granule),
        serial: u32_at(&header, 14),
        sequence: u32_at(&header, 18),
        lacing,
        body,
    }))
}

/// Reads an Ogg Vorbis file: every page (CRC, order, one logical stream from its first
/// page to its last, nothing between or after), the packets they carry and the three
/// Vorbis headers. Audio packets are not decoded.
pub fn read(bytes: &[u8]) -> Result<VorbisInfo, VorbisError> {
    let mut offset = 0usize;
    let mut pages: u64 = 0;
    let mut serial = None;
    let mut packets: Vec<Vec<u8>> = Vec::new();
    let mut audio_packets = 0u64;
    // A packet not finished at the end of the last page.
    let mut open: Option<Vec<u8>> = None;
    let mut frames = 0u64;
    let mut ended = false;
    let mut first_audio_page = None;
    while let Some(page) = page_at(bytes, offset)? {
        let at = page.offset;
        if ended {
            return Err(structure(at, "a page follows the end-of-stream page"));
        }
        let serial = *serial.get_or_insert(page.serial);
        if page.serial != serial {
            return Err(structure(
                at,
                format!(
                    "a second logical stream (serial {:#x} after {serial:#x}): one Vorbis stream per file",
                    page.serial
                ),
            ));
        }
        if u64::from(page.sequence) != pages {
            return Err(structure(
                at,
                format!("page sequence number {}, expected {pages}", page.sequence),
            ));
        }
        if (page.flags & FLAG_BOS != 0) != (pages == 0) {
            return Err(structure(
                at,
                "the beginning-of-stream flag must be set on the first page and only there",
            ));
        }
        let continued = page.flags & FLAG_CONTINUED != 0;
        if continued != open.is_some() {
            return Err(structure(
                at,
                match continued {
                    true => "the page continues a packet that no page began",
                    false => "the page does not continue the packet the last page left open",
                },
            ));
        }
        let mut from = 0usize;
        let mut ended_here = 0u64;
        let mut current = open.take().unwrap_or_default();
        for &l in &page.lacing {
            let l = usize::from(l);
            current.extend_from_slice(&page.body[from..from + l]);
            from += l;
            if l < 255 {
                ended_here += 1;
                let packet = std::mem::take(&mut current);
                if packets.len() >= 3 {
                    // An audio packet's first bit is 0.
                    if packet.first().is_some_and(|b| b & 1 != 0) {
                        return Err(structure(
                            at,
                            format!("packet {} is not an audio packet", packets.len()),
                        ));
                    }
                    first_audio_page.get_or_insert(pages);
                    audio_packets += 1;
                } else {
                    packets.push(packet);
                }
            }
        }
        if page.lacing.last().is_some_and(|&l| l == 255) {
            open = Some(current);
        }
        if pages == 0 && (packets.len() != 1 || open.is_some() || page.lacing.len() != 1) {
            return Err(structure(
                at,
                "the first page must hold the identification header alone (Vorbis I, 4.2.2)",
            ));
        }
        if ended_here > 0 {
            if page.granule == NO_GRANULE {
                return Err(structure(
                    at,
                    "a page on which packets end has no granule position",
                ));
            }
            if first_audio_page.is_some() && page.granule < frames {
                return Err(structure(
                    at,
                    format!("granule position {} goes back from {frames}", page.granule),
                ));
            }
            if first_audio_page.is_some() {
                frames = page.granule;
            } else if page.granule != 0 {
                return Err(structure(at, "a header page's granule position is not 0"));
            }
        } else if page.granule != NO_GRANULE {
            return Err(structure(
                at,
                "a page on which no packet ends has a granule position (it must be -1)",
            ));
        }
        ended = page.flags & FLAG_EOS != 0;
        offset += HEADER_LEN + page.lacing.len() + page.body.len();
        pages += 1;
    }
    if pages == 0 {
        return Err(VorbisError::Empty);
    }
    let end = bytes.len() as u64;
    if open.is_some() {
        return Err(structure(end, "the file ends inside a packet"));
    }
    if !ended {
        return Err(structure(
            end,
            "no end-of-stream page: the stream is cut short",
        ));
    }
    if packets.len() < 3 {
        return Err(structure(end, "fewer than the three Vorbis header packets"));
    }
    if audio_packets == 0 {
        return Err(structure(end, "no audio packets"));
    }
    let mut info = identification(&packets[0])?;
    info.vendor = comment_vendor(&packets[1])?;
    if !packets[2].starts_with(b"\x05vorbis") {
        return Err(VorbisError::Header {
            header: "setup",
            reason: "it does not start with 5 `vorbis`".into(),
        });
    }
    info.frames = frames;
    info.pages = pages;
    info.packets = 3 + audio_packets;
    info.serial = serial.unwrap_or(0);
    Ok(info)
}

/// The identification header (Vorbis I, 4.2.2): 30 bytes.
fn identification(p: &[u8]) -> Result<VorbisInfo, VorbisError> {
    let bad = |reason: String| VorbisError::Header {
        header: "identification",
        reason,
    };
    if p.len() != 30 || !p.starts_with(b"\x01vorbis") {
        return Err(bad(format!(
            "expected 30 bytes starting with 1 `vorbis`, got {} bytes",
            p.len()
        )));
    }
    let version = u32_at(p, 7);
    if version != 0 {
        return Err(bad(format!("version {version}, not 0")));
    }
    let channels = p[11];
    let sample_rate = u32_at(p, 12);
    let int = |at: usize| u32_at(p, at) as i32;
    let (small, large) = (p[28] & 0x0F, p[28] >> 4);
    if !(6..=13).contains(&small) || !(6..=13).contains(&large) || small > large {
        return Err(bad(format!(
            "block sizes 2^{small} and 2^{large} (each 64 to 8192, the first not larger)"
        )));
    }
    if p[29] & 1 == 0 {
        return Err(bad("the framing bit is not set".into()));
    }
    if !(1..=MAX_CHANNELS).contains(&u16::from(channels)) {
        return Err(bad(format!(
            "{channels} channels (1 to {MAX_CHANNELS} accepted)"
        )));
    }
    if !(MIN_RATE..=MAX_RATE).contains(&sample_rate) {
        return Err(bad(format!(
            "sample rate {sample_rate} Hz ({MIN_RATE} to {MAX_RATE} accepted)"
        )));
    }
    Ok(VorbisInfo {
        channels,
        sample_rate,
        bitrate_max: int(16),
        bitrate_nominal: int(20),
        bitrate_min: int(24),
        vendor: String::new(),
        frames: 0,
        pages: 0,
        packets: 0,
        serial: 0,
    })
}

/// The comment header's vendor string (Vorbis I, 5.2.1).
fn comment_vendor(p: &[u8]) -> Result<String, VorbisError> {
    let bad = |reason: &str| VorbisError::Header {
        header: "comment",
        reason: reason.into(),
    };
    if !p.starts_with(b"\x03vorbis") || p.len() < 11 {
        return Err(bad("it does not start with 3 `vorbis` and a vendor length"));
    }
    let len = u32_at(p, 7) as usize;
    let vendor = p
        .get(11..11usize.saturating_add(len))
        .ok_or_else(|| bad("the vendor string runs past the packet"))?;
    Ok(String::from_utf8_lossy(vendor).into_owned())
}

/// Every rule an Ogg Vorbis file of ours breaks (what [`read`] refuses); empty when valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    match read(bytes) {
        Ok(_) => Vec::new(),
        Err(e) => vec![Problem::from_error(e.offset(), &e)],
    }
}

#[cfg(test)]
mod tests;
