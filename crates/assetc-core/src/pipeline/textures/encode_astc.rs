//! ASTC LDR blocks through Arm's astcenc (vendored by `ctt-astcenc`), on the calling thread.
//!
//! One single-threaded astcenc context per texture, reset between levels: the build driver
//! already runs textures in parallel, and a context with one thread index compresses the
//! blocks in one fixed order, so the bytes do not depend on the thread count.

use super::{AstcBlock, RgbaLevel, TextureError, TextureMode};
use ctt_astcenc::bindings::{astcenc_image, astcenc_type_ASTCENC_TYPE_U8};
use ctt_astcenc::{config_init, Context, Flags, Preset, Profile, Swizzle};

/// astcenc's named search presets that `texture.quality` picks, fastest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AstcPreset {
    Fastest,
    Fast,
    Medium,
    Thorough,
    Exhaustive,
}

impl AstcPreset {
    /// The preset for a 0..1 quality; the steps are BC7's (see
    /// [`super::TextureSettings::quality`]), so one quality means a like effort in both.
    pub fn for_quality(quality: f32) -> Self {
        match quality {
            q if q >= 0.95 => Self::Exhaustive,
            q if q >= 0.85 => Self::Thorough,
            q if q >= 0.7 => Self::Medium,
            q if q >= 0.25 => Self::Fast,
            _ => Self::Fastest,
        }
    }

    fn preset(self) -> Preset {
        match self {
            Self::Fastest => Preset::Fastest,
            Self::Fast => Preset::Fast,
            Self::Medium => Preset::Medium,
            Self::Thorough => Preset::Thorough,
            Self::Exhaustive => Preset::Exhaustive,
        }
    }
}

fn astc_error(what: &str, e: impl std::fmt::Display) -> TextureError {
    TextureError::new("image", format!("ASTC {what}: {e}"))
}

/// Block-encodes RGBA8 levels as ASTC with footprint `block`. Colour textures use the sRGB
/// profile (the file's vkFormat is then the SRGB one); everything else is linear LDR.
/// Without alpha the encoder is told alpha is 1 (no bits spent on it); single-channel maps
/// give it R only (`rrr1`), so that its error weights are not split over three copies.
/// Normal maps keep X, Y and Z in RGB like the other formats but BC5 (the shader reads
/// them unchanged).
pub fn encode(
    levels: &[RgbaLevel],
    mode: TextureMode,
    has_alpha: bool,
    block: AstcBlock,
    preset: AstcPreset,
) -> Result<Vec<Vec<u8>>, TextureError> {
    let profile = if mode.is_srgb() {
        Profile::LdrSrgb
    } else {
        Profile::Ldr
    };
    let config = config_init(
        profile,
        block.width(),
        block.height(),
        1,
        preset.preset(),
        // The context only compresses (our decoders are separate): its tables may leave
        // out the block modes the preset never tries, which makes its set-up, per
        // texture, much cheaper at the fast presets. The blocks written are the same.
        Flags::SELF_DECOMPRESS_ONLY,
    )
    .map_err(|e| astc_error("configuration", e))?;
    let swizzle = match mode {
        TextureMode::Single => Swizzle::RRR1,
        _ if has_alpha => Swizzle::IDENTITY,
        _ => Swizzle::RGB1,
    };
    let mut context = Context::new(&config).map_err(|e| astc_error("context", e))?;
    levels
        .iter()
        .map(|level| {
            let blocks = level.width.div_ceil(block.width()) as usize
                * level.height.div_ceil(block.height()) as usize;
            let mut out = vec![0u8; blocks * 16];
            // astcenc reads the texels through a mutable pointer to an array of z-slice
            // pointers (it does not write them); one slice, a copy we own.
            let mut texels = level.pixels.clone();
            let mut slices = [texels.as_mut_ptr().cast::<std::ffi::c_void>()];
            let mut image = astcenc_image {
                dim_x: level.width,
                dim_y: level.height,
                dim_z: 1,
                data_type: astcenc_type_ASTCENC_TYPE_U8,
                data: slices.as_mut_ptr(),
            };
            context
                .compress(&mut image, swizzle, &mut out)
                .map_err(|e| astc_error("compression", e))?;
            context
                .compress_reset()
                .map_err(|e| astc_error("reset", e))?;
            Ok(out)
        })
        .collect()
}
