//! Reading image bytes and decoding them to RGBA8, refusing absurd sizes before any
//! pixel memory is allocated.

use super::TextureError;
use crate::scene::{ImageSource, Scene};
use image::{ImageFormat, ImageReader, Limits};
use std::io::Cursor;
use std::sync::Arc;

/// Largest image file read from disk.
pub const MAX_FILE_BYTES: u64 = 512 << 20;
/// Largest width or height accepted.
pub const MAX_SIDE: u32 = 16384;
/// Largest pixel count accepted (2^28, a 16384x16384 image).
pub const MAX_PIXELS: u64 = 1 << 28;

fn image_label(scene: &Scene, image: usize) -> String {
    match scene.images.get(image) {
        Some(img) => match (&img.uri, &img.name) {
            (Some(u), _) => format!("images[{image}] ({u})"),
            (None, Some(n)) => format!("images[{image}] ({n})"),
            _ => format!("images[{image}]"),
        },
        None => format!("images[{image}]"),
    }
}

/// The encoded bytes of `scene.images[image]`: embedded bytes as they are, files read
/// (up to [`MAX_FILE_BYTES`]).
pub fn load_image_bytes(scene: &Scene, image: usize) -> Result<Arc<Vec<u8>>, TextureError> {
    let label = image_label(scene, image);
    let img = scene
        .images
        .get(image)
        .ok_or_else(|| TextureError::new(&label, "no such image"))?;
    match &img.source {
        ImageSource::Embedded => {
            if img.bytes.is_empty() {
                return Err(TextureError::new(&label, "embedded image has no bytes"));
            }
            Ok(img.bytes.clone())
        }
        ImageSource::File(path) => {
            let unreadable = |source| TextureError::Unreadable {
                image: label.clone(),
                path: path.clone(),
                source,
            };
            let meta = std::fs::metadata(path).map_err(unreadable)?;
            if meta.len() > MAX_FILE_BYTES {
                return Err(TextureError::new(
                    &label,
                    format!(
                        "{} is {} bytes, more than the {MAX_FILE_BYTES}-byte limit",
                        path.display(),
                        meta.len()
                    ),
                ));
            }
            let bytes = std::fs::read(path).map_err(unreadable)?;
            // The inputs' stamps are the bytes read here (the driver's cache, `read_log`).
            crate::read_log::note_read(path, &meta, &bytes);
            if bytes.is_empty() {
                return Err(TextureError::new(
                    &label,
                    format!("{} is empty", path.display()),
                ));
            }
            Ok(Arc::new(bytes))
        }
    }
}

/// An RGBA8 image, rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

pub(super) fn format_from_mime(mime: &str) -> Option<ImageFormat> {
    match mime {
        "image/png" => Some(ImageFormat::Png),
        "image/jpeg" => Some(ImageFormat::Jpeg),
        "image/webp" => Some(ImageFormat::WebP),
        // TGA has no signature, so its MIME type is all that names it.
        "image/x-tga" => Some(ImageFormat::Tga),
        "image/bmp" => Some(ImageFormat::Bmp),
        "image/vnd.radiance" => Some(ImageFormat::Hdr),
        "image/x-exr" => Some(ImageFormat::OpenExr),
        _ => None,
    }
}

/// The MIME type of a lower-case file extension assetc decodes (`png jpg jpeg webp tga bmp
/// hdr exr ktx2`), for [`decode_image`] and [`super::encode_texture`].
pub fn mime_from_extension(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "tga" => "image/x-tga",
        "bmp" => "image/bmp",
        "hdr" => "image/vnd.radiance",
        "exr" => "image/x-exr",
        "ktx2" => "image/ktx2",
        _ => return None,
    })
}

/// Decodes PNG, JPEG, WebP, TGA or BMP (or an HDR image, clamped) to RGBA8 (16-bit
/// channels are scaled, grey is replicated). The format comes from the bytes themselves,
/// the MIME type only breaks ties (and names TGA, which has no signature). The dimensions
/// are read from the header and checked before decoding.
pub fn decode_image(bytes: &[u8], mime: Option<&str>) -> Result<DecodedImage, ImageDecodeError> {
    let open = || -> Result<ImageReader<Cursor<&[u8]>>, ImageDecodeError> {
        let mut reader = ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| ImageDecodeError::Unreadable(e.to_string()))?;
        if reader.format().is_none() {
            match mime.and_then(format_from_mime) {
                Some(f) => reader.set_format(f),
                None => return Err(ImageDecodeError::UnknownFormat(mime.map(str::to_owned))),
            }
        }
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SIDE);
        limits.max_image_height = Some(MAX_SIDE);
        limits.max_alloc = Some(MAX_PIXELS * 8);
        reader.limits(limits);
        Ok(reader)
    };
    declared_size(bytes, mime)?;
    let decoded = open()?
        .decode()
        .map_err(|e| ImageDecodeError::Undecodable(e.to_string()))?;
    let rgba = decoded.into_rgba8();
    Ok(DecodedImage {
        width: rgba.width(),
        height: rgba.height(),
        pixels: rgba.into_raw(),
    })
}

/// Why an image source cannot be decoded to texels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageDecodeError {
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error(transparent)]
    Dimensions(#[from] DimensionError),
    #[error("cannot read: {0}")]
    Unreadable(String),
    #[error("cannot read the image header: {0}")]
    UnreadableHeader(String),
    /// Neither the bytes nor the MIME type (shown as `Debug`, `None` when absent) name a
    /// format.
    #[error("unrecognised image format (MIME type {0:?})")]
    UnknownFormat(Option<String>),
    #[error("cannot decode: {0}")]
    Undecodable(String),
    #[error(transparent)]
    Ktx2(#[from] ForeignKtx2Error),
}

/// An image size refused before any texel memory is allocated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DimensionError {
    #[error("image is {width}x{height}")]
    Empty { width: u32, height: u32 },
    #[error(
        "declared size {width}x{height} exceeds the limit ({MAX_SIDE} per side, {MAX_PIXELS} pixels)"
    )]
    OverLimit { width: u32, height: u32 },
}

/// Why a foreign `.ktx2` source cannot be passed through or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForeignKtx2Error {
    /// The `ktx2` crate's parse error.
    #[error("invalid KTX2 source: {0}")]
    Invalid(String),
    /// `shape` says which layout ("a cubemap", "a 3D texture of depth 9"), `format` names
    /// its vkFormat.
    #[error(
        "KTX2 source is {shape} ({format}), not a single 2D image; a standalone .ktx2 of any layout passes through, a material's image must be 2D"
    )]
    Not2d { shape: String, format: String },
    #[error(transparent)]
    Dimensions(#[from] DimensionError),
    #[error("KTX2 source was not decoded")]
    NotDecoded,
    #[error("KTX2 source has no level")]
    NoLevel,
    #[error("KTX2 source level declares an absurd size")]
    AbsurdLevelSize,
    #[error("KTX2 source level 0 does not inflate: {0}")]
    Uninflatable(String),
    #[error("KTX2 source (ETC1S): {0}")]
    Etc1s(#[from] super::basislz::BasisLzError),
    /// The scheme as the `ktx2` crate's `Debug` names it.
    #[error(
        "KTX2 source uses {0} supercompression, which assetc cannot decode; convert it to UASTC or PNG"
    )]
    Supercompression(String),
    #[error("KTX2 source level 0 holds {held} bytes, {width}x{height} needs {needed}")]
    ShortLevel {
        held: usize,
        width: u32,
        height: u32,
        needed: usize,
    },
    #[error("KTX2 source level 0: {0}")]
    Astc(crate::pipeline::textures::decode::LevelDecodeError),
    #[error("KTX2 source level 0 is shorter than its UASTC blocks")]
    ShortUastc,
    #[error(transparent)]
    Uastc(#[from] super::encode_uastc::UastcDecodeError),
    /// `format` names the vkFormat (and the DFD colour model when it is 0).
    #[error(
        "KTX2 source holds {format}, which assetc cannot decode to re-encode (it decodes 8-bit R/RG/RGB(A), BC1/BC3/BC4/BC5/BC7, ASTC LDR, UASTC and ETC1S); a standalone .ktx2 in that format passes through as it is"
    )]
    UnknownFormat { format: String },
    #[error("KTX2 source level 0 is shorter than its blocks")]
    ShortBlocks,
    #[error("KTX2 source orientation {0:?} is not a 2D orientation (rd, ru, ld, lu)")]
    Orientation(String),
}

/// Why [`declared_size`] refuses an image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The header declares more than [`MAX_SIDE`] or [`MAX_PIXELS`].
    #[error("{0}")]
    OverLimit(String),
    /// The header cannot be read (a format assetc does not decode, a damaged file, a
    /// zero size).
    #[error("{0}")]
    Unreadable(String),
}

/// The size an image's header declares, checked against [`MAX_SIDE`] and [`MAX_PIXELS`]
/// without decoding a pixel: the one rule for every target, whether it encodes the image
/// (`hmesh`) or copies it as it is (`qtmesh`'s `maps/`). KTX2 headers are read too.
pub fn declared_size(bytes: &[u8], mime: Option<&str>) -> Result<(u32, u32), HeaderError> {
    let (w, h) = if bytes.starts_with(&crate::formats::ktx2::IDENTIFIER) {
        let reader = ktx2::Reader::new(bytes)
            .map_err(|e| HeaderError::Unreadable(format!("invalid KTX2 source: {e}")))?;
        let header = reader.header();
        (header.pixel_width, header.pixel_height.max(1))
    } else {
        let mut reader = ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| HeaderError::Unreadable(format!("cannot read: {e}")))?;
        if reader.format().is_none() {
            match mime.and_then(format_from_mime) {
                Some(f) => reader.set_format(f),
                None => {
                    return Err(HeaderError::Unreadable(format!(
                        "unrecognised image format (MIME type {mime:?})"
                    )))
                }
            }
        }
        // Only the header is read here, so no allocation limit is needed; without one the
        // decoders report the size they read rather than a bare "exceeds limit".
        reader.no_limits();
        reader
            .into_dimensions()
            .map_err(|e| HeaderError::Unreadable(format!("cannot read the image header: {e}")))?
    };
    if w == 0 || h == 0 {
        return Err(HeaderError::Unreadable(format!("image is {w}x{h}")));
    }
    check_dimensions(w, h).map_err(|e| HeaderError::OverLimit(e.to_string()))?;
    Ok((w, h))
}

pub(crate) fn check_dimensions(width: u32, height: u32) -> Result<(), DimensionError> {
    if width == 0 || height == 0 {
        return Err(DimensionError::Empty { width, height });
    }
    let pixels = u64::from(width) * u64::from(height);
    if width > MAX_SIDE || height > MAX_SIDE || pixels > MAX_PIXELS {
        return Err(DimensionError::OverLimit { width, height });
    }
    Ok(())
}

/// A `.ktx2` image a glTF brings as its source (with or without `KHR_texture_basisu`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForeignKtx2 {
    /// Already what the settings would write (format, colour space, mip chain,
    /// orientation): copied as it is.
    PassThrough,
    /// Level 0 decoded, to be encoded like any other image.
    Decoded(DecodedImage),
}

/// What a `.ktx2` written for these settings holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ktx2Wanted {
    pub format: crate::formats::ktx2::PixelFormat,
    pub srgb: bool,
    pub mipmaps: bool,
    pub max_size: u32,
}

/// The orientation assetc writes (KTX 2.0, "KTXorientation": rows top to bottom, texels left to
/// right); a file without the key means the same.
const ORIENTATION: &str = "rd";

/// Reads a foreign KTX2 image with the `ktx2` crate: passes it through when it already is
/// what the settings would write, else decodes level 0 to RGBA8 (rows top to bottom).
/// Decoded: 8-bit R, RG, RGB, BGR, RGBA and BGRA vkFormats (UNORM or SRGB), BC1/BC3/BC7,
/// and UASTC through the Basis transcoder; none, zstd or zlib supercompression; BasisLZ
/// (ETC1S) through the Basis transcoder (`basislz`). Other formats are refused with a
/// message naming them.
pub fn read_foreign_ktx2(
    bytes: &[u8],
    wanted: &Ktx2Wanted,
) -> Result<ForeignKtx2, ForeignKtx2Error> {
    read_ktx2(bytes, Some(wanted))
}

/// Level 0 of a foreign KTX2 image decoded to RGBA8 whatever it holds, for callers that
/// need the texels themselves (a cubemap face); decodes what [`read_foreign_ktx2`] does.
pub fn decode_foreign_ktx2(bytes: &[u8]) -> Result<DecodedImage, ForeignKtx2Error> {
    match read_ktx2(bytes, None)? {
        ForeignKtx2::Decoded(image) => Ok(image),
        ForeignKtx2::PassThrough => Err(ForeignKtx2Error::NotDecoded),
    }
}

/// [`read_foreign_ktx2`], passing through only when `wanted` is given and met.
fn read_ktx2(bytes: &[u8], wanted: Option<&Ktx2Wanted>) -> Result<ForeignKtx2, ForeignKtx2Error> {
    use crate::formats::ktx2 as ours;
    let reader = ktx2::Reader::new(bytes).map_err(|e| ForeignKtx2Error::Invalid(e.to_string()))?;
    let header = reader.header();
    let (w, h) = (header.pixel_width, header.pixel_height.max(1));
    if header.pixel_depth > 1 || header.layer_count > 1 || header.face_count != 1 {
        let shape = if header.face_count == ours::CUBE_FACES {
            "a cubemap".to_owned()
        } else if header.pixel_depth > 1 {
            format!("a 3D texture of depth {}", header.pixel_depth)
        } else {
            format!("an array of {} layers", header.layer_count)
        };
        return Err(ForeignKtx2Error::Not2d {
            shape,
            format: ours::describe_vk_format(header.format.map_or(0, |f| f.value())),
        });
    }
    check_dimensions(w, h)?;
    let orientation = reader
        .key_value_data()
        .find(|(k, _)| *k == ours::KEY_ORIENTATION)
        .map(|(_, v)| String::from_utf8_lossy(v.strip_suffix(&[0]).unwrap_or(v)).into_owned())
        .unwrap_or_else(|| ORIENTATION.to_owned());
    let vk = header.format.map_or(0, |f| f.value());
    let model = reader.color_model().map_or(0, |m| m.value());
    let srgb_transfer = reader
        .transfer_function()
        .is_some_and(|t| t == ktx2::TransferFunction::SRGB);
    let ours_format = ours::PixelFormat::from_vk_format(vk, model)
        .map(|(f, s)| (f, s || (f == ours::PixelFormat::Uastc && srgb_transfer)));
    let passes = wanted.is_some_and(|wanted| {
        let fitted = super::fit::fitted_size(w, h, wanted.max_size) == (w, h);
        let levels = if wanted.mipmaps {
            ours::full_mip_count(w, h)
        } else {
            1
        };
        ours_format == Some((wanted.format, wanted.srgb))
            && fitted
            && header.level_count.max(1) == levels
            && orientation == ORIENTATION
    });
    // Shipped as it is only when our validator accepts it, as every file we ship must be
    // (a file without KTXwriter, say, is re-encoded instead of failing the texture).
    if passes && ours::validate(bytes).is_empty() {
        return Ok(ForeignKtx2::PassThrough);
    }

    let level = reader.levels().next().ok_or(ForeignKtx2Error::NoLevel)?;
    let data = match header.supercompression_scheme {
        None => level.data.to_vec(),
        Some(ktx2::SupercompressionScheme::Zstandard) => {
            let size = usize::try_from(level.uncompressed_byte_length)
                .ok()
                .filter(|&n| n as u64 <= MAX_PIXELS * 16)
                .ok_or(ForeignKtx2Error::AbsurdLevelSize)?;
            zstd::bulk::decompress(level.data, size)
                .map_err(|e| ForeignKtx2Error::Uninflatable(e.to_string()))?
        }
        Some(ktx2::SupercompressionScheme::ZLIB) => {
            use std::io::Read;
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(level.data)
                .take(MAX_PIXELS * 16)
                .read_to_end(&mut out)
                .map_err(|e| ForeignKtx2Error::Uninflatable(e.to_string()))?;
            out
        }
        Some(ktx2::SupercompressionScheme::BasisLZ) => {
            let pixels = super::basislz::decode_etc1s_level0(
                reader.supercompression_global_data(),
                header.level_count.max(1) as usize,
                level.data,
                w,
                h,
            )?;
            let pixels = orient(pixels, w, &orientation)?;
            return Ok(ForeignKtx2::Decoded(DecodedImage {
                width: w,
                height: h,
                pixels,
            }));
        }
        Some(other) => return Err(ForeignKtx2Error::Supercompression(format!("{other:?}"))),
    };
    let pixels = decode_level(vk, u32::from(model), &data, w, h)?;
    let pixels = orient(pixels, w, &orientation)?;
    Ok(ForeignKtx2::Decoded(DecodedImage {
        width: w,
        height: h,
        pixels,
    }))
}

/// Whether [`read_foreign_ktx2`] decodes level 0 of a file of this vkFormat, DFD colour
/// model and supercompression scheme (the formats [`decode_level`] takes, and ETC1S).
pub(super) fn decodes(vk: u32, model: u8, supercompression: u32) -> bool {
    use crate::formats::ktx2 as ours;
    match supercompression {
        ours::SUPERCOMPRESSION_BASISLZ => return true,
        ours::SUPERCOMPRESSION_NONE | ours::SUPERCOMPRESSION_ZSTD | ours::SUPERCOMPRESSION_ZLIB => {
        }
        _ => return false,
    }
    let astc_ldr = matches!(
        ours::PixelFormat::from_vk_format(vk, 0),
        Some((ours::PixelFormat::Astc(_), _))
    );
    astc_ldr
        || (vk == ours::VK_FORMAT_UNDEFINED && model == ours::MODEL_UASTC)
        || matches!(
            vk,
            9 | 15 | 16 | 22 | 23 | 29 | 30 | 36 | 37 | 43 | 44 | 50 | 131..=134 | 137..=139 | 141 | 145 | 146
        )
}

/// One level's texels to RGBA8, rows as stored.
pub(super) fn decode_level(
    vk: u32,
    model: u32,
    data: &[u8],
    w: u32,
    h: u32,
) -> Result<Vec<u8>, ForeignKtx2Error> {
    let texels = w as usize * h as usize;
    // (bytes per texel, channel order as indices into RGBA; None = 255 alpha / 0 colour)
    let raw: Option<(usize, [Option<usize>; 4])> = match vk {
        9 | 15 => Some((1, [Some(0), Some(0), Some(0), None])),
        16 | 22 => Some((2, [Some(0), Some(1), None, None])),
        23 | 29 => Some((3, [Some(0), Some(1), Some(2), None])),
        30 | 36 => Some((3, [Some(2), Some(1), Some(0), None])),
        37 | 43 => Some((4, [Some(0), Some(1), Some(2), Some(3)])),
        44 | 50 => Some((4, [Some(2), Some(1), Some(0), Some(3)])),
        _ => None,
    };
    if let Some((size, order)) = raw {
        let texels_in = data
            .get(..texels * size)
            .ok_or(ForeignKtx2Error::ShortLevel {
                held: data.len(),
                width: w,
                height: h,
                needed: texels * size,
            })?;
        let mut out = Vec::with_capacity(texels * 4);
        for t in texels_in.chunks_exact(size) {
            for (c, pick) in order.iter().enumerate() {
                out.push(match pick {
                    Some(i) => t.get(*i).copied().unwrap_or(0),
                    None if c == 3 => 255,
                    None => 0,
                });
            }
        }
        return Ok(out);
    }
    const MODEL_UASTC: u32 = 166;
    type BlockFn = fn(&[u8], &mut [u8], usize);
    let block: Option<(usize, BlockFn)> = match vk {
        131..=134 => Some((8, bcdec_rs::bc1)),
        137 | 138 => Some((16, bcdec_rs::bc3)),
        145 | 146 => Some((16, bcdec_rs::bc7)),
        // BC4 as grey, BC5 as a normal map with Z rebuilt (as the preview shows them).
        139 => Some((8, crate::pipeline::textures::decode::bc4_rgba)),
        141 => Some((16, crate::pipeline::textures::decode::bc5_normal_rgba)),
        _ => None,
    };
    let (bx, by) = (w.div_ceil(4) as usize, h.div_ceil(4) as usize);
    if let Some((crate::formats::ktx2::PixelFormat::Astc(block), _)) =
        crate::formats::ktx2::PixelFormat::from_vk_format(vk, 0)
    {
        return crate::pipeline::textures::decode::astc_rgba(data, w, h, block)
            .map_err(ForeignKtx2Error::Astc);
    }
    if vk == 0 && model == MODEL_UASTC {
        let blocks = data
            .get(..bx * by * 16)
            .ok_or(ForeignKtx2Error::ShortUastc)?;
        return Ok(super::decode_uastc_rgba(blocks, w, h, true)?);
    }
    let Some((block_bytes, decode)) = block else {
        let model = if vk == 0 {
            format!(" (DFD colour model {model})")
        } else {
            String::new()
        };
        return Err(ForeignKtx2Error::UnknownFormat {
            format: format!("{}{model}", crate::formats::ktx2::describe_vk_format(vk)),
        });
    };
    let blocks = data
        .get(..bx * by * block_bytes)
        .ok_or(ForeignKtx2Error::ShortBlocks)?;
    // Decode into a block-padded canvas, then crop to w x h.
    let pitch = bx * 16;
    let mut padded = vec![0u8; pitch * by * 4];
    for (i, b) in blocks.chunks_exact(block_bytes).enumerate() {
        let (x, y) = (i % bx, i / bx);
        if let Some(dst) = padded.get_mut(y * 4 * pitch + x * 16..) {
            decode(b, dst, pitch);
        }
    }
    let mut out = Vec::with_capacity(texels * 4);
    for row in padded.chunks_exact(pitch).take(h as usize) {
        out.extend_from_slice(&row[..w as usize * 4]);
    }
    Ok(out)
}

/// RGBA8 texels stored with `orientation` ("rd", "ru", "ld", "lu") to rows top to bottom,
/// texels left to right.
fn orient(mut pixels: Vec<u8>, w: u32, orientation: &str) -> Result<Vec<u8>, ForeignKtx2Error> {
    let o = orientation.as_bytes();
    let (x, y) = (o.first().copied(), o.get(1).copied());
    if !matches!(x, Some(b'r' | b'l')) || !matches!(y, Some(b'd' | b'u')) {
        return Err(ForeignKtx2Error::Orientation(orientation.to_owned()));
    }
    let row = w as usize * 4;
    if y == Some(b'u') {
        let rows: Vec<&[u8]> = pixels.chunks_exact(row).rev().collect();
        pixels = rows.concat();
    }
    if x == Some(b'l') {
        for r in pixels.chunks_exact_mut(row) {
            let mut texels: Vec<[u8; 4]> = r
                .chunks_exact(4)
                .map(|t| [t[0], t[1], t[2], t[3]])
                .collect();
            texels.reverse();
            r.copy_from_slice(&texels.concat());
        }
    }
    Ok(pixels)
}
