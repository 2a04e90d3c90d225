//! RGBA8: the levels' texels as they are (the container zstd-compresses them).

use super::RgbaLevel;

pub fn encode(levels: &[RgbaLevel]) -> Vec<Vec<u8>> {
    levels.iter().map(|l| l.pixels.clone()).collect()
}
