//! What the remote cache is keyed by. Two levels, as ccache's manifests: the *source key*
//! (the compiler, the resolved settings, the source's path below the input root and its
//! content) names the list of the other files the source read; the *content key* adds the
//! content of each of those, and names the record of the outputs. A source's buffers and
//! images are only known once it was imported, so a machine that never built it learns
//! them from the first level.
//!
//! Contents enter the keys through the local cache's own input stamps (size and FNV-1a 64
//! of the bytes), so a file is read once for both caches.

use crate::driver::cache::{InputStamp, ENCODER_VERSION};
use xxhash_rust::xxh3::Xxh3;

/// Bumped when the layout on the server changes.
const LAYOUT: &str = "assetc remote cache 1";

/// A 128-bit key or digest, written as 32 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub u128);

impl Digest {
    pub fn of(bytes: &[u8]) -> Self {
        Digest(xxhash_rust::xxh3::xxh3_128(bytes))
    }
    pub fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

fn feed_part(h: &mut Xxh3, bytes: &[u8]) {
    // Length-prefixed, so that parts cannot run into each other.
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn feed_stamp(h: &mut Xxh3, stamp: &InputStamp) {
    h.update(&stamp.size.to_le_bytes());
    h.update(&stamp.hash.to_le_bytes());
}

/// The first-level key: compiler, settings (what the kind reads of them, `kinds::key`),
/// the source's path below the input root (outputs are named after it) and its content.
pub fn source_key(settings_text: &str, rel_path: &str, source: &InputStamp) -> Digest {
    let mut h = Xxh3::new();
    feed_part(&mut h, LAYOUT.as_bytes());
    feed_part(&mut h, ENCODER_VERSION.as_bytes());
    feed_part(&mut h, settings_text.as_bytes());
    feed_part(&mut h, rel_path.as_bytes());
    feed_stamp(&mut h, source);
    Digest(h.digest128())
}

/// The second-level key: the source key and every other input, by its path below the
/// input root and its content, in the order given (the record's order).
pub fn content_key<'a>(
    source_key: Digest,
    inputs: impl IntoIterator<Item = (&'a str, &'a InputStamp)>,
) -> Digest {
    let mut h = Xxh3::new();
    h.update(&source_key.0.to_le_bytes());
    for (rel, stamp) in inputs {
        feed_part(&mut h, rel.as_bytes());
        feed_stamp(&mut h, stamp);
    }
    Digest(h.digest128())
}

/// Where things live on the server, below the URL's root.
pub fn deps_path(source_key: Digest) -> String {
    format!("assetc/v1/deps/{}.json", source_key.hex())
}
pub fn record_path(content_key: Digest) -> String {
    format!("assetc/v1/rec/{}.json", content_key.hex())
}
/// Blobs fan out over 256 folders (file-backed servers dislike huge directories).
pub fn blob_path(digest: Digest) -> String {
    let hex = digest.hex();
    format!("assetc/v1/blob/{}/{hex}", &hex[..2])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn stamp(size: u64, hash: u64) -> InputStamp {
        InputStamp {
            path: Path::new("/anywhere").to_path_buf(),
            size,
            mtime_ns: 0,
            hash,
        }
    }

    #[test]
    fn keys_change_with_every_part_and_ignore_where_and_when() {
        let base = source_key("s", "a/b.gltf", &stamp(3, 7));
        assert_ne!(base, source_key("t", "a/b.gltf", &stamp(3, 7)));
        assert_ne!(base, source_key("s", "a/c.gltf", &stamp(3, 7)));
        assert_ne!(base, source_key("s", "a/b.gltf", &stamp(3, 8)));
        // Another machine: another absolute path and time, same content.
        let mut elsewhere = stamp(3, 7);
        elsewhere.path = Path::new("/other/root/a/b.gltf").to_path_buf();
        elsewhere.mtime_ns = 12345;
        assert_eq!(base, source_key("s", "a/b.gltf", &elsewhere));
        let bin = stamp(10, 1);
        let k = content_key(base, [("a/b.bin", &bin)]);
        assert_ne!(k, content_key(base, [("a/c.bin", &bin)]));
        assert_ne!(k, content_key(base, [("a/b.bin", &stamp(10, 2))]));
        assert_ne!(k, content_key(base, []));
        // Parts are delimited: moving a byte from one part to the next changes the key.
        assert_ne!(
            source_key("ab", "c", &stamp(0, 0)),
            source_key("a", "bc", &stamp(0, 0))
        );
    }

    #[test]
    fn paths_are_plain_and_fan_out() {
        let d = Digest(0xab << 120);
        assert_eq!(d.hex().len(), 32);
        assert_eq!(blob_path(d), format!("assetc/v1/blob/ab/{}", d.hex()),);
        assert!(deps_path(d).ends_with(".json"));
    }
}
