//! The KTX2 writer. Layout: identifier, header, level index, DFD, key/value data, then the
//! levels smallest first (spec 3.1), each aligned as spec 3.9.7 asks.

use super::{
    full_mip_count_3d, level_depth, Dfd, Ktx2Error, PixelFormat, CUBE_FACES, HEADER_SIZE,
    IDENTIFIER, KEY_ORIENTATION, KEY_WRITER, LEVEL_INDEX_ENTRY_SIZE, MAX_LEVEL_BYTES,
    SUPERCOMPRESSION_NONE, SUPERCOMPRESSION_ZSTD,
};
use crate::bytes::WriteLe;

/// A texture ready to be written: its levels' raw (not supercompressed) bytes, level 0
/// first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ktx2Image {
    pub format: PixelFormat,
    /// sRGB transfer (colour textures) or linear.
    pub srgb: bool,
    /// Whether the blocks carry meaningful alpha (UASTC's DFD channel id says so).
    pub has_alpha: bool,
    pub width: u32,
    pub height: u32,
    /// pixelDepth: 0 for a 2D image, the slice count of a 3D texture (colour LUTs).
    pub depth: u32,
    /// faceCount: 1, or 6 for a cubemap (faces +X -X +Y -Y +Z -Z within each level).
    pub faces: u32,
    /// Each level's bytes: every face (and every depth slice) of that level, in the
    /// order the KTX 2.0 spec stores them (face, then z slice). Level i of a 3D texture
    /// holds max(1, depth >> i) slices; [`Ktx2Image::level_bytes`] gives each size.
    pub levels: Vec<Vec<u8>>,
    /// zstd level for supercompression (scheme 2), or None to store levels as they are.
    pub zstd_level: Option<i32>,
}

impl Ktx2Image {
    /// Bytes level `level` must hold: every face, or every depth slice of that level.
    pub fn level_bytes(&self, level: u32) -> Option<u64> {
        self.layered_level_bytes(level, 0)
    }

    /// [`Self::level_bytes`] of an array of `layers` layers (0: not an array).
    fn layered_level_bytes(&self, level: u32, layers: u32) -> Option<u64> {
        let images = u64::from(layers.max(1))
            * u64::from(self.faces)
            * u64::from(level_depth(self.depth, level));
        self.format
            .block()
            .level_bytes(self.width, self.height, level, images)
    }

    /// Levels of a full mip chain for this image's size (depth included for 3D).
    pub fn full_mip_count(&self) -> u32 {
        full_mip_count_3d(self.width, self.height, self.depth)
    }
}

/// Writes a complete `.ktx2` file. Deterministic: the same image gives the same bytes.
/// Shapes: a 2D image (faces 1, depth 0), a cubemap (faces 6, square, depth 0) or a 3D
/// texture (faces 1, depth > 0, RGBA8 or RGBA16F only); not an array (layerCount 0, see
/// [`write_layers`]).
pub fn write(image: &Ktx2Image) -> Result<Vec<u8>, Ktx2Error> {
    write_layers(image, 0)
}

/// [`write`] for an array texture of `layers` layers (layerCount; 0 is not an array): each
/// of `image.levels` holds every layer's images of that level, layer 0 first (spec 3.9:
/// layer, then face, then z slice). 2D images and cubemaps may be layered, 3D textures
/// not.
pub fn write_layers(image: &Ktx2Image, layers: u32) -> Result<Vec<u8>, Ktx2Error> {
    check_shape(image)?;
    if layers > 0 && image.depth > 0 {
        return Err(Ktx2Error::Write(format!(
            "an array of {layers} layers cannot be 3D (depth {})",
            image.depth
        )));
    }
    let block = image.format.block();
    let level_count = image.levels.len();
    if level_count == 0 || level_count as u32 > image.full_mip_count() {
        return Err(Ktx2Error::Write(format!(
            "{level_count} levels for a {}x{}x{} image",
            image.width,
            image.height,
            image.depth.max(1)
        )));
    }
    for (i, data) in image.levels.iter().enumerate() {
        let expected = image.layered_level_bytes(i as u32, layers);
        if expected != Some(data.len() as u64) || data.len() as u64 > MAX_LEVEL_BYTES {
            return Err(Ktx2Error::Write(format!(
                "level {i} holds {} bytes, its size needs {expected:?}",
                data.len()
            )));
        }
    }

    let stored: Vec<Vec<u8>> = match image.zstd_level {
        Some(zl) => image
            .levels
            .iter()
            .enumerate()
            .map(|(i, l)| {
                zstd::bulk::compress(l, zl)
                    .map_err(|e| Ktx2Error::Write(format!("zstd on level {i}: {e}")))
            })
            .collect::<Result<_, _>>()?,
        None => image.levels.clone(),
    };
    let (scheme, alignment) = match image.zstd_level {
        Some(_) => (SUPERCOMPRESSION_ZSTD, 1),
        None => (SUPERCOMPRESSION_NONE, block.alignment() as usize),
    };

    let dfd = Dfd::for_format(image.format, image.srgb, image.has_alpha).to_bytes();
    let kvd = key_value_data(&[
        (KEY_ORIENTATION, b"rd\0".as_slice()),
        (
            KEY_WRITER,
            concat!("assetc ", env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
        ),
    ]);
    let dfd_offset = HEADER_SIZE + LEVEL_INDEX_ENTRY_SIZE * level_count;
    let kvd_offset = dfd_offset + dfd.len();

    // Place the levels smallest first, each at the next aligned offset.
    let mut offsets = vec![0usize; level_count];
    let mut cursor = kvd_offset + kvd.len();
    for i in (0..level_count).rev() {
        cursor = cursor.next_multiple_of(alignment);
        offsets[i] = cursor;
        cursor += stored[i].len();
    }

    let mut out = Vec::with_capacity(cursor);
    out.extend_from_slice(&IDENTIFIER);
    out.put_u32(image.format.vk_format(image.srgb));
    out.put_u32(image.format.type_size());
    out.put_u32(image.width);
    out.put_u32(image.height);
    out.put_u32(image.depth);
    out.put_u32(layers);
    out.put_u32(image.faces);
    out.put_u32(level_count as u32);
    out.put_u32(scheme);
    out.put_u32(dfd_offset as u32);
    out.put_u32(dfd.len() as u32);
    out.put_u32(kvd_offset as u32);
    out.put_u32(kvd.len() as u32);
    out.put_u64(0); // sgdByteOffset: no global data for zstd
    out.put_u64(0);
    for i in 0..level_count {
        out.put_u64(offsets[i] as u64);
        out.put_u64(stored[i].len() as u64);
        out.put_u64(image.levels[i].len() as u64);
    }
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    for i in (0..level_count).rev() {
        out.resize(offsets[i], 0);
        out.extend_from_slice(&stored[i]);
    }
    Ok(out)
}

/// The shapes assetc writes (spec 3.4-3.7 and our own rule that 3D textures are
/// uncompressed), refused with a message naming what is wrong.
fn check_shape(image: &Ktx2Image) -> Result<(), Ktx2Error> {
    let refuse = |m: String| Err(Ktx2Error::Write(m));
    if image.width == 0 || image.height == 0 {
        return refuse("zero width or height".into());
    }
    if !image.format.has_srgb() && image.srgb {
        return refuse(format!(
            "{} is linear: it has no sRGB vkFormat",
            image.format.name().to_ascii_uppercase()
        ));
    }
    match (image.faces, image.depth) {
        (1, 0) => Ok(()),
        (CUBE_FACES, 0) if image.width == image.height => Ok(()),
        (CUBE_FACES, 0) => refuse(format!(
            "a cubemap's faces must be square, not {}x{}",
            image.width, image.height
        )),
        (CUBE_FACES, d) => refuse(format!(
            "a cubemap cannot have depth {d} (3D cubemaps do not exist)"
        )),
        (1, _) if image.format.is_block_compressed() => refuse(format!(
            "3D textures are written uncompressed (RGBA8 or RGBA16F), not {}",
            image.format.name()
        )),
        (1, _) => Ok(()),
        (f, _) => refuse(format!("faceCount {f}: only 1 or 6 (a cubemap)")),
    }
}

/// Key/value data (spec 3.11): entries sorted by key, each `length | key NUL value`,
/// padded to 4 bytes.
fn key_value_data(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = Vec::new();
    for (key, value) in sorted {
        out.put_u32((key.len() + 1 + value.len()) as u32);
        out.extend_from_slice(key.as_bytes());
        out.push(0);
        out.extend_from_slice(value);
        out.pad_to(4);
    }
    out
}
