//! Level 0 of an ETC1S / BasisLZ `.ktx2` (supercompression scheme 1) to RGBA8.
//!
//! The `basis-universal` crate transcodes `.basis` files only, and a BasisLZ KTX2 holds the
//! same pieces in other places: the codebooks and Huffman tables in the supercompression
//! global data (KTX 2.0 §3.12.3), each image's RGB (and alpha) slice in its level. So the
//! level-0 image is repackaged as a one-image `.basis` file (header and slice descriptors
//! laid out as `basisu_file_headers.h` defines them, version 0x13) and transcoded from
//! there. The checksums of that header are left 0: the transcoder checks them only when
//! asked to (`validate_file_checksums`), and the bytes are our own repackaging.

use basis_universal::{TranscodeParameters, Transcoder, TranscoderTextureFormat};

/// `basis_file_header`: 77 bytes, packed little-endian fields.
const BASIS_HEADER_SIZE: usize = 77;
/// `basis_slice_desc`: 23 bytes.
const BASIS_SLICE_DESC_SIZE: usize = 23;
/// The `.basis` version the vendored transcoder reads.
const BASIS_VERSION: u32 = 0x13;
/// `basis_header_flags`: always set for ETC1S; the file has alpha slices.
const FLAG_ETC1S: u32 = 1;
const FLAG_HAS_ALPHA_SLICES: u32 = 4;
/// `basis_slice_desc_flags`: the slice holds alpha.
const SLICE_HAS_ALPHA: u32 = 1;
/// The BasisLZ global data header before the image descriptors.
const SGD_HEADER_SIZE: usize = 20;
/// One image descriptor: flags, RGB slice offset and length, alpha slice offset and length.
const IMAGE_DESC_SIZE: usize = 20;

/// Little-endian `u32`/`u16` at `at`, or an error naming `what`.
fn le(bytes: &[u8], at: usize, n: usize, what: &'static str) -> Result<u32, BasisLzError> {
    let b = bytes
        .get(at..at + n)
        .ok_or(BasisLzError::GlobalDataEnds { what })?;
    Ok(b.iter().rev().fold(0, |v, &x| (v << 8) | u32::from(x)))
}

fn put(out: &mut Vec<u8>, v: u32, n: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

/// Level 0 (`level0`: its bytes as stored) of a `w` x `h` BasisLZ 2D texture with global
/// data `sgd` describing `image_count` images (one per level), as RGBA8 rows in the order
/// stored.
pub(super) fn decode_etc1s_level0(
    sgd: &[u8],
    image_count: usize,
    level0: &[u8],
    w: u32,
    h: u32,
) -> Result<Vec<u8>, BasisLzError> {
    let endpoints = le(sgd, 0, 2, "endpoint count")?;
    let selectors = le(sgd, 2, 2, "selector count")?;
    let endpoints_len = le(sgd, 4, 4, "endpoint length")? as usize;
    let selectors_len = le(sgd, 8, 4, "selector length")? as usize;
    let tables_len = le(sgd, 12, 4, "table length")? as usize;
    // Level 0's one image (a plain 2D texture) is the first descriptor.
    let desc = SGD_HEADER_SIZE;
    let rgb_at = le(sgd, desc + 4, 4, "image descriptor")? as usize;
    let rgb_len = le(sgd, desc + 8, 4, "image descriptor")? as usize;
    let alpha_at = le(sgd, desc + 12, 4, "image descriptor")? as usize;
    let alpha_len = le(sgd, desc + 16, 4, "image descriptor")? as usize;
    // The codebooks follow the descriptors of every image of every level.
    let codebooks_at = image_count
        .checked_mul(IMAGE_DESC_SIZE)
        .and_then(|n| n.checked_add(SGD_HEADER_SIZE))
        .ok_or(BasisLzError::AbsurdLengths)?;
    let codebooks_end = [endpoints_len, selectors_len, tables_len]
        .into_iter()
        .try_fold(codebooks_at, usize::checked_add)
        .filter(|&end| end <= sgd.len())
        .ok_or(BasisLzError::ShortCodebooks)?;
    let codebooks = &sgd[codebooks_at..codebooks_end];
    let slice = |at: usize, len: usize| {
        level0
            .get(at..at.saturating_add(len))
            .ok_or(BasisLzError::SliceOutside)
    };
    let rgb = slice(rgb_at, rgb_len)?;
    let alpha = (alpha_len > 0)
        .then(|| slice(alpha_at, alpha_len))
        .transpose()?;
    let (Ok(width), Ok(height)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(BasisLzError::TooWide {
            width: w,
            height: h,
        });
    };

    let slices = 1 + usize::from(alpha.is_some());
    let descs_at = BASIS_HEADER_SIZE;
    let codebooks_file_at = descs_at + slices * BASIS_SLICE_DESC_SIZE;
    let data_at = codebooks_file_at + codebooks.len();
    let total = data_at + rgb.len() + alpha.map_or(0, <[u8]>::len);
    let file_u32 = |v: usize| u32::try_from(v).map_err(|_| BasisLzError::TooLarge);
    let mut basis = Vec::with_capacity(total);
    put(&mut basis, u32::from(b'B') << 8 | u32::from(b's'), 2); // sig
    put(&mut basis, BASIS_VERSION, 2);
    put(&mut basis, BASIS_HEADER_SIZE as u32, 2);
    put(&mut basis, 0, 2); // header CRC16 (unchecked)
    put(&mut basis, file_u32(total - BASIS_HEADER_SIZE)?, 4); // data size
    put(&mut basis, 0, 2); // data CRC16 (unchecked)
    put(&mut basis, slices as u32, 3);
    put(&mut basis, 1, 3); // images
    put(&mut basis, 0, 1); // tex format: ETC1S
    let flags = FLAG_ETC1S
        | if alpha.is_some() {
            FLAG_HAS_ALPHA_SLICES
        } else {
            0
        };
    put(&mut basis, flags, 2);
    put(&mut basis, 0, 1); // tex type: 2D
    put(&mut basis, 0, 3); // us per frame
    put(&mut basis, 0, 4); // reserved
    put(&mut basis, 0, 4); // userdata0
    put(&mut basis, 0, 4); // userdata1
    put(&mut basis, endpoints, 2);
    put(&mut basis, file_u32(codebooks_file_at)?, 4);
    put(&mut basis, file_u32(endpoints_len)?, 3);
    put(&mut basis, selectors, 2);
    put(&mut basis, file_u32(codebooks_file_at + endpoints_len)?, 4);
    put(&mut basis, file_u32(selectors_len)?, 3);
    put(
        &mut basis,
        file_u32(codebooks_file_at + endpoints_len + selectors_len)?,
        4,
    );
    put(&mut basis, file_u32(tables_len)?, 4);
    put(&mut basis, descs_at as u32, 4); // slice descriptors
    put(&mut basis, 0, 4); // extended offset
    put(&mut basis, 0, 4); // extended size
    debug_assert_eq!(basis.len(), BASIS_HEADER_SIZE);
    let mut slice_at = data_at;
    for (data, flags) in [(Some(rgb), 0), (alpha, SLICE_HAS_ALPHA)] {
        let Some(data) = data else { continue };
        put(&mut basis, 0, 3); // image 0
        put(&mut basis, 0, 1); // level 0
        put(&mut basis, flags, 1);
        put(&mut basis, u32::from(width), 2);
        put(&mut basis, u32::from(height), 2);
        put(&mut basis, w.div_ceil(4), 2);
        put(&mut basis, h.div_ceil(4), 2);
        put(&mut basis, file_u32(slice_at)?, 4);
        put(&mut basis, file_u32(data.len())?, 4);
        put(&mut basis, 0, 2); // slice CRC16 (unchecked)
        slice_at += data.len();
    }
    basis.extend_from_slice(codebooks);
    basis.extend_from_slice(rgb);
    if let Some(alpha) = alpha {
        basis.extend_from_slice(alpha);
    }

    let mut transcoder = Transcoder::new();
    transcoder
        .prepare_transcoding(&basis)
        .map_err(|()| BasisLzError::DamagedCodebooks)?;
    let pixels = transcoder
        .transcode_image_level(
            &basis,
            TranscoderTextureFormat::RGBA32,
            TranscodeParameters::default(),
        )
        .map_err(|e| BasisLzError::Untranscodable(format!("{e:?}")));
    transcoder.end_transcoding();
    let pixels = pixels?;
    let want = w as usize * h as usize * 4;
    if pixels.len() < want {
        return Err(BasisLzError::ShortTranscode {
            got: pixels.len(),
            width: w,
            height: h,
            want,
        });
    }
    Ok(pixels[..want].to_vec())
}

/// Why a BasisLZ (ETC1S) level 0 cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BasisLzError {
    #[error("BasisLZ global data ends before its {what}")]
    GlobalDataEnds { what: &'static str },
    #[error("BasisLZ global data declares absurd lengths")]
    AbsurdLengths,
    #[error("BasisLZ global data is shorter than its codebooks")]
    ShortCodebooks,
    #[error("a BasisLZ slice lies outside level 0")]
    SliceOutside,
    #[error("BasisLZ image {width}x{height} is larger than 65535 per side")]
    TooWide { width: u32, height: u32 },
    #[error("BasisLZ level 0 is too large")]
    TooLarge,
    #[error("BasisLZ data does not decode (its codebooks are damaged)")]
    DamagedCodebooks,
    /// The transcoder's error, as its `Debug` names it.
    #[error("BasisLZ level 0 does not transcode: {0}")]
    Untranscodable(String),
    #[error("BasisLZ level 0 transcoded to {got} bytes, {width}x{height} needs {want}")]
    ShortTranscode {
        got: usize,
        width: u32,
        height: u32,
        want: usize,
    },
}
