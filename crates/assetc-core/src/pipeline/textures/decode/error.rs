//! Why one level of a `.ktx2` cannot be shown as RGBA8.

use crate::pipeline::textures::UastcDecodeError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LevelDecodeError {
    #[error("has {levels} mip level(s), not level {level}")]
    NoSuchLevel { levels: usize, level: usize },
    #[error("vkFormat {0} cannot be previewed")]
    NotPreviewable(u32),
    #[error("level too large to preview")]
    LevelTooLarge,
    #[error("level {level} holds {held} bytes, too few for {count} image(s) of {image_bytes}")]
    ShortLevel {
        level: usize,
        held: usize,
        count: usize,
        image_bytes: usize,
    },
    #[error("level {level}: {source}")]
    InLevel {
        level: usize,
        source: Box<LevelDecodeError>,
    },
    #[error("level {level} holds no image")]
    NoImage { level: usize },
    #[error("{held} bytes, not {needed}")]
    ShortRgba8 { held: usize, needed: usize },
    #[error("{held} bytes of RGBA16F, expected {needed}")]
    ShortRgba16f { held: usize, needed: usize },
    #[error("{held} bytes of blocks for {width}x{height}, expected {needed}")]
    ShortBlocks {
        held: usize,
        width: u32,
        height: u32,
        needed: usize,
    },
    #[error(transparent)]
    Uastc(#[from] UastcDecodeError),
    /// texture2ddecoder's own error text.
    #[error("ASTC {block}: {reason}")]
    Astc { block: &'static str, reason: String },
    /// texture2ddecoder panicked on a block (see [`super::astc_rgba`]).
    #[error("ASTC {block}: a block that is not valid ASTC")]
    InvalidAstc { block: &'static str },
    #[error("a cubemap has 6 faces, not {0}")]
    FaceCount(usize),
    #[error("no image to lay out")]
    NothingToLayOut,
    #[error("{count} images of width {width} do not fit in one picture")]
    TooWide { count: u32, width: u32 },
    #[error("{count} images of height {height} do not fit in one picture")]
    TooTall { count: u32, height: u32 },
    #[error("the images of one level differ in size")]
    SizesDiffer,
}
