//! Cubemaps: six decoded faces checked (square, one size, one class) and written as one
//! `.ktx2` with faceCount 6, each level holding the six faces' level in the order
//! +X -X +Y -Y +Z -Z. Array textures (layers of one size) are written the same way.

use super::super::float_image::FloatImage;
use super::super::load::DecodedImage;
use super::super::{build_levels, encode_levels, has_alpha, TextureError};
use super::super::{TextureMode, TextureSettings};
use super::{first_error, hdr, image_error, Source, FACE_NAMES};
use crate::formats::ktx2::{self, Ktx2Image};
use rayon::prelude::*;

/// Six faces (or an array's layers) of one class, in file order, all of one size.
pub(super) enum Faces {
    Ldr(Vec<DecodedImage>),
    Hdr(Vec<FloatImage>),
}

/// Checks six decoded faces (px nx py ny pz nz): each square, all the size of px, all LDR
/// or all HDR. Errors name the first face at fault.
pub(super) fn check_faces(faces: Vec<Source>) -> Result<Faces, TextureError> {
    let fail = |i: usize, reason: String| image_error(format!("face {}: {reason}", FACE_NAMES[i]));
    if faces.len() != 6 {
        return Err(image_error(format!(
            "{} faces, a cubemap needs 6",
            faces.len()
        )));
    }
    let (first_w, first_h) = faces[0].size();
    for (i, face) in faces.iter().enumerate() {
        let (w, h) = face.size();
        if w != h {
            return Err(fail(i, format!("{w}x{h} is not square")));
        }
        if (w, h) != (first_w, first_h) {
            return Err(image_error(format!(
                "face {} is {w}x{h}, {} is {first_w}x{first_h}",
                FACE_NAMES[i], FACE_NAMES[0]
            )));
        }
        if matches!(face, Source::Hdr(_)) != matches!(faces[0], Source::Hdr(_)) {
            let class = |s: &Source| match s {
                Source::Hdr(_) => "HDR",
                Source::Ldr(_) => "LDR",
            };
            return Err(image_error(format!(
                "face {} is {}, {} is {}: all six faces must be LDR or all HDR",
                FACE_NAMES[i],
                class(face),
                FACE_NAMES[0],
                class(&faces[0])
            )));
        }
    }
    // The class check above leaves one of the two empty.
    Ok(one_class(faces))
}

/// Images cut from one image (so of one class) as [`Faces`].
pub(super) fn one_class(images: Vec<Source>) -> Faces {
    let (mut ldr, mut hdr) = (Vec::new(), Vec::new());
    for image in images {
        match image {
            Source::Ldr(img) => ldr.push(img),
            Source::Hdr(img) => hdr.push(img),
        }
    }
    if hdr.is_empty() {
        Faces::Ldr(ldr)
    } else {
        Faces::Hdr(hdr)
    }
}

/// Encodes six checked faces into a cubemap `.ktx2`: LDR faces through the mip builder
/// (in `mode`) and `settings.format`'s block encoder, HDR faces as RGBA16F (or BC6H).
pub(super) fn encode(
    faces: Faces,
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    encode_shaped(faces, mode, settings, Shape::Cube)
}

/// How a file holds several images of one size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// Six faces, +X -X +Y -Y +Z -Z.
    Cube,
    /// An array texture of this many layers, layer 0 first.
    Layers(u32),
}

impl Shape {
    /// (faceCount, layerCount) of the file.
    fn counts(self) -> (u32, u32) {
        match self {
            Self::Cube => (6, 0),
            Self::Layers(n) => (1, n),
        }
    }
    /// The image's name in messages: `face px`, `layer 2`.
    fn image_name(self, i: usize) -> String {
        match self {
            Self::Cube => format!("face {}", FACE_NAMES.get(i).copied().unwrap_or("?")),
            Self::Layers(_) => format!("layer {i}"),
        }
    }
}

/// [`encode`] for a cube or an array (`shape`), the images in file order.
pub(super) fn encode_shaped(
    faces: Faces,
    mode: TextureMode,
    settings: &TextureSettings,
    shape: Shape,
) -> Result<Vec<u8>, TextureError> {
    let (face_count, layers) = shape.counts();
    match faces {
        Faces::Ldr(faces) => encode_ldr(faces, mode, settings, shape),
        Faces::Hdr(faces) => {
            let chains: Vec<Vec<FloatImage>> = faces
                .into_par_iter()
                .map(|f| hdr::chain(f, settings))
                .collect();
            let (width, height) = chains
                .first()
                .and_then(|c| c.first())
                .map(|l| l.dimensions())
                .ok_or_else(no_levels)?;
            let has_alpha = chains.iter().any(|c| hdr::has_alpha(c));
            let per_face: Vec<Vec<Vec<u8>>> = chains
                .par_iter()
                .map(|c| c.iter().map(|l| hdr::level_bytes(l, settings)).collect())
                .collect();
            hdr::write(
                width,
                height,
                (face_count, layers),
                has_alpha,
                interleave(per_face),
                settings,
            )
        }
    }
}

fn encode_ldr(
    faces: Vec<DecodedImage>,
    mode: TextureMode,
    settings: &TextureSettings,
    shape: Shape,
) -> Result<Vec<u8>, TextureError> {
    let (face_count, layers) = shape.counts();
    let settings = &settings.for_class(mode);
    let chains: Vec<_> = faces
        .into_par_iter()
        .map(|f| build_levels(f, mode, None, settings))
        .collect();
    let (width, height) = chains
        .first()
        .and_then(|c| c.first())
        .map(|l| (l.width, l.height))
        .ok_or_else(no_levels)?;
    // One decision for all the images, so every one is encoded the same way.
    let has_alpha = chains.iter().any(|c| has_alpha(c));
    let encoded = first_error(
        chains
            .par_iter()
            .enumerate()
            .map(|(i, c)| {
                encode_levels(c, mode, has_alpha, None, settings).map_err(|e| {
                    let reason = match e {
                        TextureError::Image { reason, .. } => reason,
                        other => other.to_string(),
                    };
                    image_error(format!("{}: {reason}", shape.image_name(i)))
                })
            })
            .collect(),
    )?;
    let zstd = encoded.first().is_some_and(|(_, z)| *z);
    let per_face = encoded.into_iter().map(|(levels, _)| levels).collect();
    let image = Ktx2Image {
        format: settings.pixel_format(),
        srgb: mode.is_srgb() && settings.pixel_format().has_srgb(),
        has_alpha,
        width,
        height,
        depth: 0,
        faces: face_count,
        levels: interleave(per_face),
        zstd_level: zstd.then(|| settings.zstd_level()),
    };
    ktx2::write_layers(&image, layers).map_err(|e| image_error(e.to_string()))
}

fn no_levels() -> TextureError {
    image_error("cubemap face has no levels")
}

/// Per-face level bytes (`[face][level]`) to per-level bytes holding every face in order
/// (`[level]` = face 0's level, face 1's level, ...), as KTX2 stores a cubemap level (and
/// an array's, layer by layer).
fn interleave(per_face: Vec<Vec<Vec<u8>>>) -> Vec<Vec<u8>> {
    let count = per_face.iter().map(Vec::len).min().unwrap_or(0);
    (0..count)
        .map(|i| per_face.iter().flat_map(|f| f[i].iter().copied()).collect())
        .collect()
}
