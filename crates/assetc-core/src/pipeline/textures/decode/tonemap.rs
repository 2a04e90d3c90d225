//! RGBA16F texels to displayable RGBA8: Reinhard tone mapping of the linear values,
//! x / (1 + x) per colour channel, then the sRGB transfer function. Reinhard because it
//! needs no exposure guess (any HDR value lands below 1, and 1.0 becomes 0.5) and keeps
//! the order of intensities, which is what a preview must show; alpha is clamped, not
//! tone mapped.

use super::LevelDecodeError;

/// One half-float texel (R, G, B, A, little-endian) to RGBA8.
pub fn rgba16f_texel(texel: &[u8; 8]) -> [u8; 4] {
    let channel = |i: usize| half::f16::from_le_bytes([texel[2 * i], texel[2 * i + 1]]).to_f32();
    [
        srgb_u8(reinhard(channel(0))),
        srgb_u8(reinhard(channel(1))),
        srgb_u8(reinhard(channel(2))),
        unit_u8(channel(3)),
    ]
}

/// Half-float RGBA texels (8 bytes each) to RGBA8, `texels` of them.
pub fn rgba16f_to_rgba8(data: &[u8], texels: usize) -> Result<Vec<u8>, LevelDecodeError> {
    let bytes = texels * 8;
    let data = data.get(..bytes).ok_or(LevelDecodeError::ShortRgba16f {
        held: data.len(),
        needed: bytes,
    })?;
    Ok(data
        .chunks_exact(8)
        .flat_map(|t| {
            let mut texel = [0u8; 8];
            texel.copy_from_slice(t);
            rgba16f_texel(&texel)
        })
        .collect())
}

/// x / (1 + x) for linear x >= 0; negative and NaN values show as black, infinity as
/// white.
pub fn reinhard(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x.is_infinite() {
        1.0
    } else {
        x / (1.0 + x)
    }
}

/// A linear value in [0, 1] through the sRGB transfer function (IEC 61966-2-1), rounded
/// to 8 bits.
pub fn srgb_u8(linear: f32) -> u8 {
    let l = linear.clamp(0.0, 1.0);
    let s = if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    unit_u8(s)
}

fn unit_u8(v: f32) -> u8 {
    if v.is_nan() {
        return 0;
    }
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}
