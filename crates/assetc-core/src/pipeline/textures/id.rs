//! Content ids of textures (formats.md, "Texture refs").

use super::{TextureFormat, TextureMode, TextureSettings};
use crate::formats::hash::{fnv1a64_raw, fnv1a64_raw_continue};
use crate::formats::ktx2;

/// FNV-1a 64 (no case mapping) over the image bytes, then the mode name, then the settings
/// that change the output: format, max size, mipmaps, quality where the encoder uses it,
/// zstd for BC, the alpha cutoff when coverage is preserved, and [`ENCODER_REVISION`].
/// KTX2 sources are passed through, so only their bytes and the mode count.
/// Bumped whenever the same settings start producing different bytes (a new quality
/// mapping, zstd level or codec version), so that content-addressed outputs of an older
/// assetc are not taken for current ones. 2: quality mapping and zstd levels of issue 3.
/// 3: normal-map mips and downscales keep negative components (they were clamped to 0).
pub const ENCODER_REVISION: u32 = 3;

pub fn texture_id(
    image_bytes: &[u8],
    mode: TextureMode,
    alpha_cutoff: Option<f32>,
    settings: &TextureSettings,
) -> u64 {
    let settings = &settings.for_class(mode);
    let mut h = fnv1a64_raw(image_bytes);
    h = fnv1a64_raw_continue(h, mode.name().as_bytes());
    if image_bytes.starts_with(&ktx2::IDENTIFIER) {
        return h;
    }
    let mut tail = format!(
        "|r{ENCODER_REVISION}|{}|max{}|mips{}",
        settings.format.name(),
        settings.max_size,
        u8::from(settings.mipmaps)
    );
    match settings.format {
        TextureFormat::Uastc | TextureFormat::Bc7 | TextureFormat::Bc6h => {
            tail += &format!("|q{:.3}", settings.quality());
        }
        TextureFormat::Astc => {
            tail += &format!("|{}|q{:.3}", settings.astc_block.name(), settings.quality());
        }
        TextureFormat::Bc1
        | TextureFormat::Bc3
        | TextureFormat::Bc4
        | TextureFormat::Bc5
        | TextureFormat::Rgba8 => {}
    }
    // Off adds nothing, so ids from before the setting existed still hold.
    if let Some(lambda) = settings.bc7_rdo() {
        tail += &format!("|rdo{lambda:.3}");
    }
    if settings.format.zstd_optional() {
        tail += if settings.bc_zstd { "|zstd" } else { "" };
    }
    // The default filter adds nothing, so ids from before the setting existed still hold.
    if settings.mip_filter != super::MipFilter::Triangle {
        tail += &format!("|{}", settings.mip_filter.name());
    }
    if let Some(c) = alpha_cutoff.filter(|_| settings.mipmaps) {
        tail += &format!("|cutoff{c:.4}");
    }
    fnv1a64_raw_continue(h, tail.as_bytes())
}
