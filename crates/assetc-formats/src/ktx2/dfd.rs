//! The Data Format Descriptor: one Khronos basic descriptor block per texture, built from
//! the pixel format so that it always agrees with `vkFormat`.

use super::{Ktx2Error, PixelFormat};
use crate::bytes::{Reader, WriteLe};

pub const MODEL_RGBSDA: u8 = 1;
pub const MODEL_BC1A: u8 = 128;
pub const MODEL_BC3: u8 = 130;
pub const MODEL_BC4: u8 = 131;
pub const MODEL_BC5: u8 = 132;
pub const MODEL_BC6H: u8 = 133;
pub const MODEL_BC7: u8 = 134;
pub const MODEL_ASTC: u8 = 162;
pub const MODEL_UASTC: u8 = 166;

pub const PRIMARIES_BT709: u8 = 1;
pub const TRANSFER_LINEAR: u8 = 1;
pub const TRANSFER_SRGB: u8 = 2;

/// Sample qualifier bit: the channel is linear even when the transfer function is sRGB
/// (alpha always is).
pub const QUALIFIER_LINEAR: u8 = 0x10;
/// Sample qualifier bits of float formats: the value is a float, and signed.
pub const QUALIFIER_FLOAT: u8 = 0x80;
pub const QUALIFIER_SIGNED: u8 = 0x40;
/// sampleLower / sampleUpper of a signed float channel: the bits of -1.0f and 1.0f, the
/// range the Khronos Data Format spec gives for SFLOAT formats.
pub const FLOAT_LOWER: u32 = 0xBF80_0000;
pub const FLOAT_UPPER: u32 = 0x3F80_0000;
pub const CHANNEL_ALPHA: u8 = 15;
/// UASTC channel ids: the block holds RGB only, or RGBA.
pub const CHANNEL_UASTC_RGB: u8 = 0;
pub const CHANNEL_UASTC_RGBA: u8 = 3;

const BASIC_BLOCK_HEADER: u16 = 24;
const SAMPLE_SIZE: u16 = 16;

/// One sample of a basic descriptor block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub bit_offset: u16,
    /// Bit length minus one, as stored.
    pub bit_length: u8,
    /// Channel id in the low nibble, qualifiers in the high nibble.
    pub channel_type: u8,
    pub position: [u8; 4],
    pub lower: u32,
    pub upper: u32,
}

/// The first (basic) descriptor block of a DFD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dfd {
    pub vendor_id: u32,
    pub descriptor_type: u32,
    pub version: u16,
    pub color_model: u8,
    pub color_primaries: u8,
    pub transfer_function: u8,
    pub flags: u8,
    /// Texel block dimensions minus one, as stored.
    pub texel_block_dimensions: [u8; 4],
    pub bytes_planes: [u8; 8],
    pub samples: Vec<Sample>,
}

fn block_sample(bits: u16, offset: u16, channel_type: u8) -> Sample {
    Sample {
        bit_offset: offset,
        bit_length: (bits - 1) as u8,
        channel_type,
        position: [0; 4],
        lower: 0,
        upper: u32::MAX,
    }
}

impl Dfd {
    /// The descriptor the KTX 2.0 spec (and the Khronos DFD spec's format table) gives for
    /// `format`. `has_alpha` only matters for UASTC, whose channel id says whether the
    /// blocks carry alpha; `srgb` is ignored for RGBA16F, which is always linear.
    pub fn for_format(format: PixelFormat, srgb: bool, has_alpha: bool) -> Self {
        let srgb = srgb && format.has_srgb();
        let transfer = if srgb { TRANSFER_SRGB } else { TRANSFER_LINEAR };
        // Alpha is never sRGB-encoded; the LINEAR qualifier says so when the transfer is sRGB.
        let alpha_qualifier = if srgb { QUALIFIER_LINEAR } else { 0 };
        let (model, block, bytes, samples) = match format {
            PixelFormat::Rgba8 => (
                MODEL_RGBSDA,
                [0, 0, 0, 0],
                4,
                (0..4u8)
                    .map(|c| Sample {
                        bit_offset: u16::from(c) * 8,
                        bit_length: 7,
                        channel_type: if c == 3 {
                            CHANNEL_ALPHA | alpha_qualifier
                        } else {
                            c
                        },
                        position: [0; 4],
                        lower: 0,
                        upper: 255,
                    })
                    .collect(),
            ),
            // Four 16-bit float samples; always linear (vk_format has no sRGB variant), so
            // alpha needs no LINEAR qualifier.
            PixelFormat::Rgba16f => (
                MODEL_RGBSDA,
                [0, 0, 0, 0],
                8,
                (0..4u8)
                    .map(|c| Sample {
                        bit_offset: u16::from(c) * 16,
                        bit_length: 15,
                        channel_type: if c == 3 { CHANNEL_ALPHA } else { c }
                            | QUALIFIER_FLOAT
                            | QUALIFIER_SIGNED,
                        position: [0; 4],
                        lower: FLOAT_LOWER,
                        upper: FLOAT_UPPER,
                    })
                    .collect(),
            ),
            PixelFormat::Bc1 => (MODEL_BC1A, [3, 3, 0, 0], 8, vec![block_sample(64, 0, 0)]),
            PixelFormat::Bc3 => (
                MODEL_BC3,
                [3, 3, 0, 0],
                16,
                vec![
                    block_sample(64, 0, CHANNEL_ALPHA | alpha_qualifier),
                    block_sample(64, 64, 0),
                ],
            ),
            // Khronos dfdutils (createDFDCompressed): BC4 one 64-bit sample (channel DATA),
            // BC5 RED at bit 0 and GREEN at bit 64, BC6H one 128-bit FLOAT sample whose
            // range for UFLOAT is 0.0 ..= 1.0.
            PixelFormat::Bc4 => (MODEL_BC4, [3, 3, 0, 0], 8, vec![block_sample(64, 0, 0)]),
            PixelFormat::Bc5 => (
                MODEL_BC5,
                [3, 3, 0, 0],
                16,
                vec![block_sample(64, 0, 0), block_sample(64, 64, 1)],
            ),
            PixelFormat::Bc6h => (
                MODEL_BC6H,
                [3, 3, 0, 0],
                16,
                vec![Sample {
                    lower: 0,
                    upper: FLOAT_UPPER,
                    ..block_sample(128, 0, QUALIFIER_FLOAT)
                }],
            ),
            PixelFormat::Bc7 => (MODEL_BC7, [3, 3, 0, 0], 16, vec![block_sample(128, 0, 0)]),
            // As Khronos dfdutils writes ASTC LDR: the block's footprint minus one, one
            // 128-bit sample of channel DATA (0), range 0 ..= u32::MAX.
            PixelFormat::Astc(b) => (
                MODEL_ASTC,
                [(b.width() - 1) as u8, (b.height() - 1) as u8, 0, 0],
                16,
                vec![block_sample(128, 0, 0)],
            ),
            PixelFormat::Uastc => (
                MODEL_UASTC,
                [3, 3, 0, 0],
                16,
                vec![block_sample(
                    128,
                    0,
                    if has_alpha {
                        CHANNEL_UASTC_RGBA
                    } else {
                        CHANNEL_UASTC_RGB
                    },
                )],
            ),
        };
        Self {
            vendor_id: 0,
            descriptor_type: 0,
            version: 2,
            color_model: model,
            color_primaries: PRIMARIES_BT709,
            transfer_function: transfer,
            flags: 0,
            texel_block_dimensions: block,
            bytes_planes: [bytes, 0, 0, 0, 0, 0, 0, 0],
            samples,
        }
    }

    /// The whole DFD as stored: `dfdTotalSize` followed by this one block.
    pub fn to_bytes(&self) -> Vec<u8> {
        let block_size = BASIC_BLOCK_HEADER + SAMPLE_SIZE * self.samples.len() as u16;
        let mut out = Vec::with_capacity(4 + usize::from(block_size));
        out.put_u32(4 + u32::from(block_size));
        out.put_u32((self.descriptor_type << 17) | (self.vendor_id & 0x1_ffff));
        out.put_u16(self.version);
        out.put_u16(block_size);
        out.extend_from_slice(&[
            self.color_model,
            self.color_primaries,
            self.transfer_function,
            self.flags,
        ]);
        out.extend_from_slice(&self.texel_block_dimensions);
        out.extend_from_slice(&self.bytes_planes);
        for s in &self.samples {
            out.put_u16(s.bit_offset);
            out.put_u8(s.bit_length);
            out.put_u8(s.channel_type);
            out.extend_from_slice(&s.position);
            out.put_u32(s.lower);
            out.put_u32(s.upper);
        }
        out
    }

    /// Parses the first descriptor block of a DFD (`dfd` starts at `dfdTotalSize`;
    /// `base` is its file offset, for messages).
    pub fn parse(dfd: &[u8], base: usize) -> Result<Self, Ktx2Error> {
        let mut r = Reader::new(dfd);
        let total = r.u32("dfdTotalSize")? as usize;
        if total != dfd.len() {
            return Err(Ktx2Error::invalid(
                base,
                format!(
                    "dfdTotalSize {total} differs from dfdByteLength {}",
                    dfd.len()
                ),
            ));
        }
        let word0 = r.u32("DFD vendor/type")?;
        let version = r.u16("DFD versionNumber")?;
        let block_size = r.u16("DFD descriptorBlockSize")?;
        if block_size < BASIC_BLOCK_HEADER
            || !(block_size - BASIC_BLOCK_HEADER).is_multiple_of(SAMPLE_SIZE)
            || usize::from(block_size) > total - 4
        {
            return Err(Ktx2Error::invalid(
                base + 8,
                format!(
                    "DFD descriptorBlockSize {block_size} is not 24 + 16 * samples within the DFD"
                ),
            ));
        }
        let [color_model, color_primaries, transfer_function, flags] = r.array("DFD model")?;
        let texel_block_dimensions = r.array("DFD texelBlockDimension")?;
        let bytes_planes = r.array("DFD bytesPlane")?;
        let count = usize::from((block_size - BASIC_BLOCK_HEADER) / SAMPLE_SIZE);
        let mut samples = Vec::with_capacity(count);
        for _ in 0..count {
            samples.push(Sample {
                bit_offset: r.u16("DFD sample bitOffset")?,
                bit_length: r.u8("DFD sample bitLength")?,
                channel_type: r.u8("DFD sample channelType")?,
                position: r.array("DFD samplePosition")?,
                lower: r.u32("DFD sampleLower")?,
                upper: r.u32("DFD sampleUpper")?,
            });
        }
        Ok(Self {
            vendor_id: word0 & 0x1_ffff,
            descriptor_type: word0 >> 17,
            version,
            color_model,
            color_primaries,
            transfer_function,
            flags,
            texel_block_dimensions,
            bytes_planes,
            samples,
        })
    }
}
