//! Texture assets that are not a model's input (formats.md, "Assets that are not models"):
//! a 2D image (LDR as a material's image is, HDR as RGBA16F), a cubemap from six faces or
//! an equirectangular panorama, and a `.cube` colour LUT as a 3D texture.
//!
//! Errors name the asset as "image", like [`super::encode_texture`]'s; the caller renames
//! them with [`TextureError::named`]. A cubemap's six faces are worked on in parallel on
//! the caller's rayon pool (no threads of its own), and put back in face order, so the
//! bytes do not depend on the pool's size.

mod cube;
mod cut;
mod filter;
mod hdr;
mod lut;
mod panorama;

pub use lut::{encode_lut, parse_cube_lut, CubeLut, LutError};

use super::float_image::FloatImage;
use super::load::{DecodedImage, ImageDecodeError};
use super::{decode_foreign_ktx2, decode_image, mime_from_extension};
use super::{CubeLayout, TextureError, TextureMode, TextureSettings};
use crate::formats::ktx2;
use rayon::prelude::*;

/// A texture asset that is not a model's input.
#[derive(Debug, Clone, Copy)]
pub enum StandaloneTexture<'a> {
    /// One 2D image; `ext` is its lower-case file extension (png jpg jpeg webp tga bmp hdr
    /// exr ktx2).
    Image { bytes: &'a [u8], ext: &'a str },
    /// An equirectangular panorama (typically .hdr/.exr, 2:1) to become a cubemap
    /// (`cubemap = true` rule).
    Panorama { bytes: &'a [u8], ext: &'a str },
    /// A cube's six faces in one image laid out as `layout` (`Strip` or `Cross`; `Panorama`
    /// is resampled as [`Self::Panorama`] is).
    UnfoldedCube {
        bytes: &'a [u8],
        ext: &'a str,
        layout: CubeLayout,
    },
    /// A strip of `layers` equal images to become an array texture (`array_layers` rule).
    Layers {
        bytes: &'a [u8],
        ext: &'a str,
        layers: u32,
    },
    /// Six face images in the order px nx py ny pz nz, each with its extension.
    CubeFaces { faces: [(&'a [u8], &'a str); 6] },
}

/// Whether a file extension names an HDR image (`hdr`, `exr`), encoded as linear RGBA16F
/// (or BC6H, see [`TextureSettings::hdr_as_bc6h`]) whatever the mode.
pub fn is_hdr_extension(ext: &str) -> bool {
    ext.eq_ignore_ascii_case("hdr") || ext.eq_ignore_ascii_case("exr")
}

/// Encodes a standalone texture into a complete `.ktx2` file.
///
/// - An LDR image is encoded exactly as [`super::encode_texture`] encodes a material's.
/// - An HDR image (and a cubemap of HDR faces or from an HDR panorama) becomes linear
///   RGBA16F whatever `mode` says, its mips box-filtered in linear float (see the `hdr`
///   module for the clamping of values f16 cannot hold); BC6H instead when `format` is
///   `bc6h` or `per_class` is on with a BC format, else RGBA16F whatever `format` says.
/// - A cubemap is written with faceCount 6, faces in the order +X -X +Y -Y +Z -Z; an
///   array with layerCount N, layer 0 first.
pub fn encode_standalone(
    tex: &StandaloneTexture,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    match *tex {
        StandaloneTexture::Image { bytes, ext } if is_hdr_extension(ext) => {
            hdr::encode_image(bytes, ext, settings)
        }
        StandaloneTexture::Image { bytes, ext } => {
            let ext = ext.to_ascii_lowercase();
            super::encode_texture(bytes, mime_from_extension(&ext), mode, None, settings)
        }
        StandaloneTexture::UnfoldedCube {
            bytes,
            ext,
            layout: CubeLayout::Off,
        } => encode_standalone(&StandaloneTexture::Image { bytes, ext }, mode, settings),
        StandaloneTexture::Panorama { bytes, ext }
        | StandaloneTexture::UnfoldedCube {
            bytes,
            ext,
            layout: CubeLayout::Panorama,
        } => {
            let faces = panorama::faces(decode(bytes, ext).map_err(image_error)?, mode, settings)?;
            cube::encode(faces, mode, settings)
        }
        StandaloneTexture::UnfoldedCube { bytes, ext, layout } => {
            let faces = cut::cube_faces(decode(bytes, ext).map_err(image_error)?, layout)?;
            cube::encode(cube::check_faces(faces)?, mode, settings)
        }
        StandaloneTexture::Layers { bytes, ext, layers } => {
            let images = cut::array_layers(decode(bytes, ext).map_err(image_error)?, layers)?;
            let shape = cube::Shape::Layers(layers);
            cube::encode_shaped(cube::one_class(images), mode, settings, shape)
        }
        StandaloneTexture::CubeFaces { faces } => {
            let decoded: Vec<Result<Source, TextureError>> = faces
                .par_iter()
                .zip(FACE_NAMES.par_iter())
                .map(|(&(bytes, ext), name)| {
                    decode(bytes, ext).map_err(|r| image_error(format!("face {name}: {r}")))
                })
                .collect();
            cube::encode(cube::check_faces(first_error(decoded)?)?, mode, settings)
        }
    }
}

/// The faces' names in file order (+X -X +Y -Y +Z -Z), as the `.env/` folders spell them.
pub(super) const FACE_NAMES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

/// A decoded source image: 8-bit for LDR files, linear floats for HDR files.
pub(super) enum Source {
    Ldr(DecodedImage),
    Hdr(FloatImage),
}

impl Source {
    fn size(&self) -> (u32, u32) {
        match self {
            Self::Ldr(img) => (img.width, img.height),
            Self::Hdr(img) => img.dimensions(),
        }
    }
}

/// Decodes one image as its extension's class says (HDR or LDR).
fn decode(bytes: &[u8], ext: &str) -> Result<Source, ImageDecodeError> {
    let ext = ext.to_ascii_lowercase();
    if is_hdr_extension(&ext) {
        hdr::decode(bytes, &ext).map(Source::Hdr)
    } else if ext == "ktx2" || bytes.starts_with(&ktx2::IDENTIFIER) {
        Ok(Source::Ldr(decode_foreign_ktx2(bytes)?))
    } else {
        decode_image(bytes, mime_from_extension(&ext)).map(Source::Ldr)
    }
}

/// The values, or the error of the first face that failed (in face order, so the message
/// does not depend on which thread finished first).
fn first_error<T>(results: Vec<Result<T, TextureError>>) -> Result<Vec<T>, TextureError> {
    results.into_iter().collect()
}

fn image_error(reason: impl std::fmt::Display) -> TextureError {
    TextureError::new("image", reason.to_string())
}

#[cfg(test)]
mod bcn_tests;
#[cfg(test)]
mod layout_tests;
#[cfg(test)]
mod lut_fuzz_tests;
#[cfg(test)]
mod tests;
