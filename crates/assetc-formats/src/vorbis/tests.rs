use super::*;
use ogg::writing::{PacketWriteEndInfo, PacketWriter};

/// A stream of the three headers and `audio` audio packets (not decodable audio: the
/// validator decodes none), 48 kHz stereo, 1024 frames a packet.
fn stream(audio: u64) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut w = PacketWriter::new(&mut out);
        let mut ident = b"\x01vorbis".to_vec();
        ident.extend_from_slice(&0u32.to_le_bytes());
        ident.push(2);
        ident.extend_from_slice(&48_000u32.to_le_bytes());
        for rate in [0i32, 128_000, 0] {
            ident.extend_from_slice(&rate.to_le_bytes());
        }
        ident.push(0xB8); // 2^8 and 2^11
        ident.push(1);
        let mut comment = b"\x03vorbis".to_vec();
        comment.extend_from_slice(&4u32.to_le_bytes());
        comment.extend_from_slice(b"test");
        comment.extend_from_slice(&0u32.to_le_bytes());
        comment.push(1);
        let serial = 0x1234;
        w.write_packet(ident, serial, PacketWriteEndInfo::EndPage, 0)
            .unwrap();
        w.write_packet(comment, serial, PacketWriteEndInfo::NormalPacket, 0)
            .unwrap();
        w.write_packet(
            b"\x05vorbis-setup".to_vec(),
            serial,
            PacketWriteEndInfo::EndPage,
            0,
        )
        .unwrap();
        for i in 1..=audio {
            let end = match i == audio {
                true => PacketWriteEndInfo::EndStream,
                false => PacketWriteEndInfo::NormalPacket,
            };
            w.write_packet(vec![0u8; 300], serial, end, i * 1024)
                .unwrap();
        }
    }
    out
}

#[test]
fn a_whole_stream_reads() {
    let bytes = stream(20);
    let info = read(&bytes).unwrap();
    assert_eq!((info.channels, info.sample_rate), (2, 48_000));
    assert_eq!(info.frames, 20 * 1024);
    assert_eq!(info.packets, 23);
    assert_eq!(info.vendor, "test");
    assert_eq!(info.bitrate_nominal, 128_000);
    assert!(validate(&bytes).is_empty());
    assert_eq!(info.summary(), "48000 Hz, 2 ch, Vorbis, 0.427 s");
}

#[test]
fn damage_is_found_where_it_is() {
    let bytes = stream(20);
    // A flipped bit in the last page's body: its CRC.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 10;
    flipped[last] ^= 0x10;
    let e = read(&flipped).unwrap_err();
    assert!(matches!(e, VorbisError::Crc { .. }), "{e}");
    // Cut short, and with bytes after the end.
    let e = read(&bytes[..bytes.len() - 100]).unwrap_err();
    assert!(e.to_string().contains("ends at"), "{e}");
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"junk");
    assert!(matches!(read(&longer), Err(VorbisError::NoPage { .. })));
    // Two streams back to back: a second logical stream (and a page after EOS).
    let mut two = bytes.clone();
    two.extend_from_slice(&bytes);
    assert!(read(&two).is_err());
    assert!(!validate(&[]).is_empty());
    assert!(!validate(b"OggS").is_empty());
    assert!(!validate(b"not ogg at all").is_empty());
}

#[test]
fn every_prefix_is_refused_without_panicking() {
    let bytes = stream(3);
    for n in 0..bytes.len() {
        assert!(read(&bytes[..n]).is_err(), "{n} bytes");
    }
}
