//! KTX 2.0 textures: writer, reader and validator for the subset assetc writes (UASTC,
//! BC1/BC3/BC4/BC5/BC6H/BC7, ASTC LDR (every 2D block size), RGBA8 and RGBA16F; 2D images, cubemaps, and RGBA8/RGBA16F 3D textures;
//! optionally zstd supercompressed), with a reader general enough to check the KTX2 files
//! glTF sources bring in (`KHR_texture_basisu`), a container writer for levels assetc did not
//! encode (GPU-ready inputs of any format and layout, `stored`), and Vulkan's names of every
//! vkFormat for messages (`names`).
//!
//! Written by hand because the Rust KTX2 crates only read the container; the layout
//! follows the KTX 2.0 specification (Khronos), section numbers in comments.

mod dfd;
mod format;
mod names;
mod read;
mod stored;
mod validate;
mod write;

pub use dfd::{Dfd, Sample};
pub use format::{gpu_bytes, FORMAT};
pub use names::{describe_vk_format, vk_format_name};
pub use read::{read, read_with, Ktx2, Level, ReadOptions};
pub use stored::{write_stored, StoredKtx2, StoredLevel};
pub use validate::validate;
pub use write::{write, write_layers, Ktx2Image};

pub use dfd::{
    CHANNEL_UASTC_RGB, CHANNEL_UASTC_RGBA, MODEL_ASTC, MODEL_BC1A, MODEL_BC3, MODEL_BC4, MODEL_BC5,
    MODEL_BC6H, MODEL_BC7, MODEL_RGBSDA, MODEL_UASTC, QUALIFIER_FLOAT, QUALIFIER_SIGNED,
    TRANSFER_LINEAR, TRANSFER_SRGB,
};

use crate::bytes::OutOfBounds;
use thiserror::Error;

/// «KTX 20»\r\n\x1A\n
pub const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];
/// Identifier, header and the index up to (not including) the level index.
pub const HEADER_SIZE: usize = 80;
pub const LEVEL_INDEX_ENTRY_SIZE: usize = 24;

pub const SUPERCOMPRESSION_NONE: u32 = 0;
pub const SUPERCOMPRESSION_BASISLZ: u32 = 1;
pub const SUPERCOMPRESSION_ZSTD: u32 = 2;
pub const SUPERCOMPRESSION_ZLIB: u32 = 3;

pub const VK_FORMAT_UNDEFINED: u32 = 0;
pub const VK_FORMAT_R8G8B8A8_UNORM: u32 = 37;
pub const VK_FORMAT_R8G8B8A8_SRGB: u32 = 43;
pub const VK_FORMAT_R16G16B16A16_SFLOAT: u32 = 97;
pub const VK_FORMAT_BC1_RGB_UNORM_BLOCK: u32 = 131;
pub const VK_FORMAT_BC1_RGB_SRGB_BLOCK: u32 = 132;
pub const VK_FORMAT_BC3_UNORM_BLOCK: u32 = 137;
pub const VK_FORMAT_BC3_SRGB_BLOCK: u32 = 138;
pub const VK_FORMAT_BC4_UNORM_BLOCK: u32 = 139;
pub const VK_FORMAT_BC5_UNORM_BLOCK: u32 = 141;
pub const VK_FORMAT_BC6H_UFLOAT_BLOCK: u32 = 143;
pub const VK_FORMAT_BC7_UNORM_BLOCK: u32 = 145;
pub const VK_FORMAT_BC7_SRGB_BLOCK: u32 = 146;
/// VK_FORMAT_ASTC_4x4_UNORM_BLOCK; the 14 2D block sizes follow in [`AstcBlock::ALL`]'s
/// order, each UNORM then SRGB (4x4 157/158, 5x4 159/160, ..., 12x12 183/184).
pub const VK_FORMAT_ASTC_4X4_UNORM_BLOCK: u32 = 157;

/// faceCount of a cubemap; its faces are stored +X -X +Y -Y +Z -Z (spec 3.9).
pub const CUBE_FACES: u32 = 6;

pub const KEY_ORIENTATION: &str = "KTXorientation";
pub const KEY_WRITER: &str = "KTXwriter";

/// Largest single level the reader inflates or accepts (a 16384² RGBA8 level is 1 GiB).
pub const MAX_LEVEL_BYTES: u64 = 1 << 30;
/// Largest total of all levels the reader inflates (even without keeping them).
pub const MAX_TOTAL_BYTES: u64 = 1 << 31;
/// Level data [`read`] may hold in memory by default (a 4096² RGBA8 chain is 85 MiB);
/// [`read_with`] takes another budget.
pub const DEFAULT_INFLATE_BUDGET: u64 = 512 << 20;

/// The footprint of an ASTC block (always 16 bytes): one of the 14 2D sizes of the ASTC
/// specification, 4x4 (8 bits a texel) to 12x12 (0.89 bits a texel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AstcBlock {
    width: u8,
    height: u8,
}

impl AstcBlock {
    /// Every 2D block size, in vkFormat order.
    pub const ALL: [Self; 14] = [
        Self::new(4, 4),
        Self::new(5, 4),
        Self::new(5, 5),
        Self::new(6, 5),
        Self::new(6, 6),
        Self::new(8, 5),
        Self::new(8, 6),
        Self::new(8, 8),
        Self::new(10, 5),
        Self::new(10, 6),
        Self::new(10, 8),
        Self::new(10, 10),
        Self::new(12, 10),
        Self::new(12, 12),
    ];
    const NAMES: [&'static str; 14] = [
        "4x4", "5x4", "5x5", "6x5", "6x6", "8x5", "8x6", "8x8", "10x5", "10x6", "10x8", "10x10",
        "12x10", "12x12",
    ];

    const fn new(width: u8, height: u8) -> Self {
        Self { width, height }
    }
    pub fn width(self) -> u32 {
        u32::from(self.width)
    }
    pub fn height(self) -> u32 {
        u32::from(self.height)
    }
    fn index(self) -> usize {
        Self::ALL.iter().position(|&b| b == self).unwrap_or(0)
    }
    /// `"6x6"`, as `texture.astc_block` spells it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self.index()]
    }
    /// The block size a name such as `"6x6"` gives, if it is one of the 14.
    pub fn from_name(name: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|&n| n == name.trim())?;
        Some(Self::ALL[i])
    }
    fn vk_format(self, srgb: bool) -> u32 {
        VK_FORMAT_ASTC_4X4_UNORM_BLOCK + 2 * self.index() as u32 + u32::from(srgb)
    }
    fn from_vk_format(vk_format: u32) -> Option<(Self, bool)> {
        let i = vk_format.checked_sub(VK_FORMAT_ASTC_4X4_UNORM_BLOCK)? as usize;
        Some((*Self::ALL.get(i / 2)?, i % 2 == 1))
    }
}

impl Default for AstcBlock {
    /// 6x6 (3.56 bits a texel): the size Arm's guide suggests for colour textures on
    /// mobile, 44% of 4x4's bytes.
    fn default() -> Self {
        Self::new(6, 6)
    }
}

/// The pixel formats assetc writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    /// Basis Universal UASTC 4x4 (vkFormat 0, DFD colour model UASTC).
    Uastc,
    Bc1,
    Bc3,
    /// One channel (R), 8 bytes a 4x4 block; linear only (no sRGB vkFormat).
    Bc4,
    /// Two channels (RG), 16 bytes a 4x4 block; linear only.
    Bc5,
    /// HDR RGB, unsigned half float (VK_FORMAT_BC6H_UFLOAT_BLOCK), 16 bytes a 4x4 block.
    Bc6h,
    Bc7,
    /// ASTC LDR, 16 bytes a block of the given footprint; UNORM or SRGB.
    Astc(AstcBlock),
    Rgba8,
    /// VK_FORMAT_R16G16B16A16_SFLOAT: linear half floats (HDR), 8 bytes a texel.
    Rgba16f,
}

impl PixelFormat {
    pub fn vk_format(self, srgb: bool) -> u32 {
        match (self, srgb) {
            (Self::Uastc, _) => VK_FORMAT_UNDEFINED,
            (Self::Bc1, false) => VK_FORMAT_BC1_RGB_UNORM_BLOCK,
            (Self::Bc1, true) => VK_FORMAT_BC1_RGB_SRGB_BLOCK,
            (Self::Bc3, false) => VK_FORMAT_BC3_UNORM_BLOCK,
            (Self::Bc3, true) => VK_FORMAT_BC3_SRGB_BLOCK,
            // No sRGB variant; the writer refuses `srgb` for them.
            (Self::Bc4, _) => VK_FORMAT_BC4_UNORM_BLOCK,
            (Self::Bc5, _) => VK_FORMAT_BC5_UNORM_BLOCK,
            (Self::Bc6h, _) => VK_FORMAT_BC6H_UFLOAT_BLOCK,
            (Self::Bc7, false) => VK_FORMAT_BC7_UNORM_BLOCK,
            (Self::Bc7, true) => VK_FORMAT_BC7_SRGB_BLOCK,
            (Self::Astc(block), srgb) => block.vk_format(srgb),
            (Self::Rgba8, false) => VK_FORMAT_R8G8B8A8_UNORM,
            (Self::Rgba8, true) => VK_FORMAT_R8G8B8A8_SRGB,
            // Float formats have no sRGB variant; the writer refuses `srgb` for them.
            (Self::Rgba16f, _) => VK_FORMAT_R16G16B16A16_SFLOAT,
        }
    }

    /// The format and whether it is sRGB, for a vkFormat (and, for vkFormat 0, the DFD
    /// colour model), when it is one assetc writes.
    pub fn from_vk_format(vk_format: u32, color_model: u8) -> Option<(Self, bool)> {
        Some(match vk_format {
            VK_FORMAT_UNDEFINED if color_model == MODEL_UASTC => (Self::Uastc, false),
            VK_FORMAT_BC1_RGB_UNORM_BLOCK => (Self::Bc1, false),
            VK_FORMAT_BC1_RGB_SRGB_BLOCK => (Self::Bc1, true),
            VK_FORMAT_BC3_UNORM_BLOCK => (Self::Bc3, false),
            VK_FORMAT_BC3_SRGB_BLOCK => (Self::Bc3, true),
            VK_FORMAT_BC4_UNORM_BLOCK => (Self::Bc4, false),
            VK_FORMAT_BC5_UNORM_BLOCK => (Self::Bc5, false),
            VK_FORMAT_BC6H_UFLOAT_BLOCK => (Self::Bc6h, false),
            VK_FORMAT_BC7_UNORM_BLOCK => (Self::Bc7, false),
            VK_FORMAT_BC7_SRGB_BLOCK => (Self::Bc7, true),
            VK_FORMAT_R8G8B8A8_UNORM => (Self::Rgba8, false),
            VK_FORMAT_R8G8B8A8_SRGB => (Self::Rgba8, true),
            VK_FORMAT_R16G16B16A16_SFLOAT => (Self::Rgba16f, false),
            _ => {
                let (block, srgb) = AstcBlock::from_vk_format(vk_format)?;
                (Self::Astc(block), srgb)
            }
        })
    }

    pub fn block(self) -> BlockInfo {
        match self {
            Self::Rgba8 => BlockInfo {
                width: 1,
                height: 1,
                bytes: 4,
            },
            Self::Rgba16f => BlockInfo {
                width: 1,
                height: 1,
                bytes: 8,
            },
            Self::Bc1 | Self::Bc4 => BlockInfo {
                width: 4,
                height: 4,
                bytes: 8,
            },
            Self::Bc3 | Self::Bc5 | Self::Bc6h | Self::Bc7 | Self::Uastc => BlockInfo {
                width: 4,
                height: 4,
                bytes: 16,
            },
            Self::Astc(block) => BlockInfo {
                width: block.width(),
                height: block.height(),
                bytes: 16,
            },
        }
    }
}

impl PixelFormat {
    /// Short lower-case name, as `inspect`, `info` and the settings spell it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Uastc => "uastc",
            Self::Bc1 => "bc1",
            Self::Bc3 => "bc3",
            Self::Bc4 => "bc4",
            Self::Bc5 => "bc5",
            Self::Bc6h => "bc6h",
            Self::Bc7 => "bc7",
            Self::Astc(_) => "astc",
            Self::Rgba8 => "rgba8",
            Self::Rgba16f => "rgba16f",
        }
    }

    /// The header's typeSize: the size of the format's data type (spec 3.3), 1 for
    /// block-compressed and 8-bit formats, 2 for half floats.
    pub fn type_size(self) -> u32 {
        match self {
            Self::Rgba16f => 2,
            Self::Uastc
            | Self::Bc1
            | Self::Bc3
            | Self::Bc4
            | Self::Bc5
            | Self::Bc6h
            | Self::Bc7
            | Self::Astc(_)
            | Self::Rgba8 => 1,
        }
    }

    /// Whether the format has an sRGB vkFormat (BC4, BC5 and the float formats do not).
    pub fn has_srgb(self) -> bool {
        !matches!(self, Self::Bc4 | Self::Bc5 | Self::Bc6h | Self::Rgba16f)
    }

    /// Whether texels come in blocks larger than one texel (these cannot be 3D for us).
    pub fn is_block_compressed(self) -> bool {
        let b = self.block();
        b.width > 1 || b.height > 1
    }
}

/// Texel block footprint and size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    pub width: u32,
    pub height: u32,
    pub bytes: u32,
}

impl BlockInfo {
    /// Block footprint of any vkFormat the reader can size: the formats assetc writes,
    /// the other BCn formats, and otherwise the DFD's texel block and `bytesPlane0`.
    pub fn for_vk_format(vk_format: u32, dfd: &Dfd) -> Option<Self> {
        if let Some((f, _)) = PixelFormat::from_vk_format(vk_format, dfd.color_model) {
            return Some(f.block());
        }
        let bc = |bytes| BlockInfo {
            width: 4,
            height: 4,
            bytes,
        };
        match vk_format {
            133 | 134 | 139 | 140 => Some(bc(8)),
            135 | 136 | 141..=144 => Some(bc(16)),
            // BasisLZ (ETC1S) levels have no fixed size.
            VK_FORMAT_UNDEFINED => None,
            _ if dfd.bytes_planes[0] != 0 => Some(BlockInfo {
                width: u32::from(dfd.texel_block_dimensions[0]) + 1,
                height: u32::from(dfd.texel_block_dimensions[1]) + 1,
                bytes: u32::from(dfd.bytes_planes[0]),
            }),
            _ => None,
        }
    }

    /// Bytes of one level (`images` = layers x faces x that level's depth slices, see
    /// [`level_depth`]), or None when it overflows.
    pub fn level_bytes(self, width: u32, height: u32, level: u32, images: u64) -> Option<u64> {
        let w = u64::from((width >> level.min(31)).max(1));
        let h = u64::from((height >> level.min(31)).max(1));
        let bw = w.div_ceil(u64::from(self.width));
        let bh = h.div_ceil(u64::from(self.height));
        bw.checked_mul(bh)?
            .checked_mul(u64::from(self.bytes))?
            .checked_mul(images)
    }

    /// Level alignment without supercompression: lcm(texel block size, 4) (spec 3.9.7).
    pub fn alignment(self) -> u64 {
        let b = u64::from(self.bytes.max(1));
        b * 4 / gcd(b, 4)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Number of levels in a full mip chain down to 1x1.
pub fn full_mip_count(width: u32, height: u32) -> u32 {
    full_mip_count_3d(width, height, 0)
}

/// Number of levels in a full mip chain down to 1x1x1 (`depth` 0 for a 2D image): a 3D
/// texture halves its depth too, so its deepest side may allow more levels.
pub fn full_mip_count_3d(width: u32, height: u32, depth: u32) -> u32 {
    32 - width.max(height).max(depth).max(1).leading_zeros()
}

/// Depth slices in level `level` of an image with pixelDepth `depth`: 1 for a 2D image
/// (depth 0), else max(1, depth >> level).
pub fn level_depth(depth: u32, level: u32) -> u32 {
    (depth >> level.min(31)).max(1)
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Ktx2Error {
    #[error("truncated: {0}")]
    Truncated(#[from] OutOfBounds),
    #[error("not a KTX 2.0 file (bad identifier)")]
    BadIdentifier,
    #[error("at byte {offset}: {message}")]
    Invalid { offset: usize, message: String },
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("level {level}: {message}")]
    Level { level: usize, message: String },
    #[error("level {level}: {source}")]
    Inflate { level: usize, source: InflateError },
    #[error("cannot write: {0}")]
    Write(String),
}

/// Why a supercompressed level does not inflate to the bytes its index says.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InflateError {
    #[error("zstd data is corrupt: {0}")]
    ZstdCorrupt(String),
    #[error("zstd data does not inflate to {expected} bytes: {reason}")]
    ZstdShort { expected: u64, reason: String },
    #[error("zlib data is corrupt: {0}")]
    ZlibCorrupt(String),
    /// Inflating through a fixed buffer stops one byte past what the level needs.
    #[error("inflates to {produced} bytes or more, the level needs {expected}")]
    AtLeast { produced: u64, expected: u64 },
    #[error("inflates to {produced} bytes, the level needs {expected}")]
    Exactly { produced: u64, expected: u64 },
}

impl Ktx2Error {
    pub(crate) fn invalid(offset: usize, message: impl Into<String>) -> Self {
        Self::Invalid {
            offset,
            message: message.into(),
        }
    }
    pub(crate) fn level(level: usize, message: impl Into<String>) -> Self {
        Self::Level {
            level,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod layers_tests;
#[cfg(test)]
mod tests;
