//! UASTC through the Basis Universal encoder (basis-universal crate). Our own mip levels
//! are handed over as the image's mipmaps, the encoder writes a `.basis` file, and the
//! UASTC blocks of each level are copied out of it (a UASTC `.basis` slice holds the
//! blocks as they are) into our KTX2 container.

use super::{RgbaLevel, TextureError, TextureMode};
use basis_universal::{
    sys, transcoder_init, BasisTextureFormat, ColorSpace, Compressor, CompressorParams, Transcoder,
};

const UASTC_BLOCK_BYTES: usize = 16;

/// The Basis Universal UASTC encoder's two knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UastcKnobs {
    /// Pack level, 0 (fastest) ..= 4 (very slow).
    pub pack_level: u32,
    /// RDO lambda: trades quality for zstd-compressibility; `None` is plain UASTC.
    pub rdo_lambda: Option<f32>,
}

impl UastcKnobs {
    /// The knobs for a 0..1 quality; see [`super::TextureSettings::quality`] for the table.
    pub fn for_quality(quality: f32) -> Self {
        let (pack_level, rdo_lambda) = match quality {
            q if q >= 0.95 => (3, None),
            q if q >= 0.85 => (2, None),
            q if q >= 0.7 => (1, None),
            q if q >= 0.5 => (0, None),
            // Below the default, RDO makes zstd output smaller at a cost in quality: lambda
            // goes from 0.5 just below quality 0.5 to 3 at quality 0 (basisu's useful range
            // is about 0.25..4).
            q => (0, Some(0.5 + (0.5 - q) * 5.0)),
        };
        Self {
            pack_level,
            rdo_lambda,
        }
    }
}

/// Sets up basis_universal's encoder tables, which its first UASTC encode in a process
/// otherwise does (a stretch of one thread, docs/performance.md); any number of calls,
/// from any thread.
pub fn prepare() {
    basis_universal::encoding::encoder_init();
}

pub fn encode(
    levels: &[RgbaLevel],
    mode: TextureMode,
    knobs: UastcKnobs,
) -> Result<Vec<Vec<u8>>, TextureError> {
    let fail = |m: String| TextureError::new("image", format!("UASTC encoder: {m}"));
    let UastcKnobs {
        pack_level,
        rdo_lambda: rdo,
    } = knobs;
    let mut params = CompressorParams::new();
    params.set_basis_format(BasisTextureFormat::UASTC4x4);
    // SAFETY: params.0 is the live parameter object this CompressorParams owns; the pack
    // flags are set whole because the crate's setter ORs the level into the default one.
    unsafe { sys::compressor_params_set_pack_uastc_flags(params.0, pack_level as _) };
    params.set_rdo_uastc(rdo);
    params.set_generate_mipmaps(false);
    if mode == TextureMode::Color {
        params.set_color_space(ColorSpace::Srgb);
    } else {
        params.set_color_space(ColorSpace::Linear);
        params.set_mip_color_space(ColorSpace::Linear);
    }
    for (i, level) in levels.iter().enumerate() {
        let mut img = if i == 0 {
            params.source_image_mut(0)
        } else {
            params.source_mipmap_image_mut(0, i as u32 - 1)
        };
        img.init(&level.pixels, level.width, level.height, 4);
    }

    // One thread in total: the build driver's pool provides the parallelism.
    let mut compressor = Compressor::new(1);
    // SAFETY: the parameters are the crate's defaults plus valid settings, and every
    // source image was initialised from a buffer of width * height * 4 bytes.
    unsafe {
        if !compressor.init(&params) {
            return Err(fail("init failed".into()));
        }
        compressor.process().map_err(|e| fail(format!("{e:?}")))?;
    }
    let basis = compressor.basis_file();
    let transcoder = Transcoder::new();
    let mut out = Vec::with_capacity(levels.len());
    for (i, level) in levels.iter().enumerate() {
        let info = transcoder
            .image_level_info(basis, 0, i as u32)
            .ok_or_else(|| fail(format!("no level {i} in its output")))?;
        let blocks = level.width.div_ceil(4) as usize * level.height.div_ceil(4) as usize;
        let start = info.m_rgb_file_ofs as usize;
        let len = info.m_rgb_file_len as usize;
        if len != blocks * UASTC_BLOCK_BYTES
            || info.m_orig_width != level.width
            || info.m_orig_height != level.height
        {
            return Err(fail(format!(
                "level {i} is {}x{} with {len} bytes, expected {}x{} with {} bytes",
                info.m_orig_width,
                info.m_orig_height,
                level.width,
                level.height,
                blocks * UASTC_BLOCK_BYTES
            )));
        }
        let data = basis
            .get(start..start + len)
            .ok_or_else(|| fail(format!("level {i} lies outside its output")))?;
        out.push(data.to_vec());
    }
    Ok(out)
}

/// Decodes one level of UASTC blocks to RGBA8 (for quality checks and tools).
///
/// Calls the transcoder directly: the crate's `LowLevelUastcTranscoder::transcode_slice`
/// sizes its RGBA32 output with a 4-texel block width, which makes the C++ side write past
/// the buffer for images wider than a few blocks.
pub fn decode_uastc_rgba(
    blocks: &[u8],
    width: u32,
    height: u32,
    has_alpha: bool,
) -> Result<Vec<u8>, UastcDecodeError> {
    let (bx, by) = (width.div_ceil(4), height.div_ceil(4));
    if blocks.len() != bx as usize * by as usize * UASTC_BLOCK_BYTES || width == 0 || height == 0 {
        return Err(UastcDecodeError::WrongSize {
            bytes: blocks.len(),
            width,
            height,
        });
    }
    let len = u32::try_from(blocks.len()).map_err(|_| UastcDecodeError::TooLarge)?;
    transcoder_init();
    let mut out = vec![0u8; width as usize * height as usize * 4];
    // SAFETY: `out` holds exactly `height` rows of `width` RGBA32 texels, the pitch and row
    // count passed; the transcoder clips every 4x4 block to them. `blocks` holds
    // bx * by blocks as checked above. The transcoder object lives for this call only.
    let ok = unsafe {
        let t = sys::low_level_uastc_transcoder_new();
        let ok = sys::low_level_uastc_transcoder_transcode_slice(
            t,
            out.as_mut_ptr().cast(),
            bx,
            by,
            blocks.as_ptr(),
            len,
            sys::basist_block_format_cRGBA32,
            4,
            false,
            has_alpha,
            width,
            height,
            width,
            std::ptr::null_mut(),
            height,
            0,
            3,
            0,
        );
        sys::low_level_uastc_transcoder_delete(t);
        ok
    };
    if ok {
        Ok(out)
    } else {
        Err(UastcDecodeError::Failed)
    }
}

/// Why UASTC blocks cannot be decoded to RGBA8.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UastcDecodeError {
    #[error("{bytes} bytes of UASTC for {width}x{height}")]
    WrongSize {
        bytes: usize,
        width: u32,
        height: u32,
    },
    #[error("level too large")]
    TooLarge,
    #[error("UASTC transcode failed")]
    Failed,
}
