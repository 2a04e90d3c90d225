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
            let meta = std::fs::metadata(path).map_err(|e| {
                TextureError::new(&label, format!("cannot read {}: {e}", path.display()))
            })?;
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
            let bytes = std::fs::read(path).map_err(|e| {
                TextureError::new(&label, format!("cannot read {}: {e}", path.display()))
            })?;
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

fn format_from_mime(mime: &str) -> Option<ImageFormat> {
    match mime {
        "image/png" => Some(ImageFormat::Png),
        "image/jpeg" => Some(ImageFormat::Jpeg),
        "image/webp" => Some(ImageFormat::WebP),
        _ => None,
    }
}

/// Decodes PNG, JPEG or WebP to RGBA8 (16-bit channels are scaled, grey is replicated).
/// The format comes from the bytes themselves, the MIME type only breaks ties. The
/// dimensions are read from the header and checked before decoding.
pub fn decode_image(bytes: &[u8], mime: Option<&str>) -> Result<DecodedImage, String> {
    let open = || -> Result<ImageReader<Cursor<&[u8]>>, String> {
        let mut reader = ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| format!("cannot read: {e}"))?;
        if reader.format().is_none() {
            match mime.and_then(format_from_mime) {
                Some(f) => reader.set_format(f),
                None => return Err(format!("unrecognised image format (MIME type {mime:?})")),
            }
        }
        let mut limits = Limits::default();
        limits.max_image_width = Some(MAX_SIDE);
        limits.max_image_height = Some(MAX_SIDE);
        limits.max_alloc = Some(MAX_PIXELS * 8);
        reader.limits(limits);
        Ok(reader)
    };
    let (w, h) = open()?
        .into_dimensions()
        .map_err(|e| format!("cannot read the image header: {e}"))?;
    check_dimensions(w, h)?;
    let decoded = open()?
        .decode()
        .map_err(|e| format!("cannot decode: {e}"))?;
    let rgba = decoded.into_rgba8();
    Ok(DecodedImage {
        width: rgba.width(),
        height: rgba.height(),
        pixels: rgba.into_raw(),
    })
}

pub(crate) fn check_dimensions(w: u32, h: u32) -> Result<(), String> {
    if w == 0 || h == 0 {
        return Err(format!("image is {w}x{h}"));
    }
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(format!(
            "declared size {w}x{h} exceeds the limit ({MAX_SIDE} per side, {MAX_PIXELS} pixels)"
        ));
    }
    Ok(())
}
