//! The texture stage: one glTF image in one mode becomes one complete `.ktx2` file.
//!
//! decode (`load`) -> downscale + mip chain (`mips`) -> block encode (`encode_*`) ->
//! KTX2 container (`formats::ktx2`). One texture is encoded on the calling thread only:
//! the build driver runs textures in parallel on its one pool, so the codecs must not
//! start threads of their own.

mod basislz;
mod bc4_refine;
mod bc7_rdo;
pub mod class;
mod dds;
pub mod decode;
mod encode_astc;
mod encode_bc;
mod encode_rgba8;
mod encode_uastc;
mod fit;
mod float_image;
mod gpu_ready;
mod id;
pub mod layout;
mod load;
mod mips;
mod sinc;
mod standalone;
pub use mips::srgb_to_linear;
pub use standalone::{
    encode_lut, encode_standalone, is_hdr_extension, parse_cube_lut, CubeLut, LutError,
    StandaloneTexture,
};

pub use basislz::BasisLzError;
pub use bc7_rdo::RdoParams;
pub use dds::DDS_MAGIC;
pub use encode_astc::AstcPreset;
pub use encode_bc::{encode_bc6h_f16, Bc7Preset};
pub use encode_uastc::{
    decode_uastc_rgba, prepare as prepare_uastc_encoder, UastcDecodeError, UastcKnobs,
};
pub use gpu_ready::{standalone_dds, standalone_ktx2, GpuReady, GpuReadyError};
pub use id::texture_id;
pub use layout::{CubeLayout, MAX_ARRAY_LAYERS};
pub use load::{
    declared_size, decode_foreign_ktx2, decode_image, load_image_bytes, mime_from_extension,
    read_foreign_ktx2, DimensionError, ForeignKtx2, ForeignKtx2Error, HeaderError,
    ImageDecodeError, Ktx2Wanted, MAX_FILE_BYTES, MAX_PIXELS, MAX_SIDE,
};
pub use mips::{build_levels, RgbaLevel};

pub use crate::formats::ktx2::AstcBlock;
use crate::formats::ktx2::{self, Ktx2Image, PixelFormat};
use thiserror::Error;

/// How a texture's texels are interpreted, chosen by the material slot that uses it (or,
/// for a standalone image, by its file name or a rule's `texture.mode`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TextureMode {
    /// baseColor, emissive: sRGB, filtered in linear light.
    Color,
    /// metallicRoughness, occlusion: linear, all channels kept.
    Linear,
    /// Tangent-space normal map: linear, renormalised per mip level.
    Normal,
    /// A single-channel map (a standalone `*.ao.png`, `cube_depth.png`, or any opaque grey
    /// image, [`class`]): linear, the red channel kept and replicated to green and blue,
    /// alpha 255 (BC4 stores the red channel only).
    Single,
}

impl TextureMode {
    /// The name formats.md hashes into the texture id.
    pub fn name(self) -> &'static str {
        match self {
            Self::Color => "color",
            Self::Linear => "linear",
            Self::Normal => "normal",
            Self::Single => "single",
        }
    }
    pub fn is_srgb(self) -> bool {
        self == Self::Color
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextureFormat {
    Uastc,
    Bc7,
    Bc1,
    Bc3,
    /// One channel (R), VK_FORMAT_BC4_UNORM_BLOCK: single-channel maps.
    Bc4,
    /// Two channels (RG), VK_FORMAT_BC5_UNORM_BLOCK: normal maps (X, Y; Z rebuilt).
    Bc5,
    /// HDR RGB, unsigned half float, VK_FORMAT_BC6H_UFLOAT_BLOCK.
    Bc6h,
    /// ASTC LDR (mobile GPUs), block footprint `texture.astc_block`; UNORM or SRGB.
    Astc,
    Rgba8,
}

impl TextureFormat {
    pub fn name(self) -> &'static str {
        match self {
            Self::Uastc => "uastc",
            Self::Bc7 => "bc7",
            Self::Bc1 => "bc1",
            Self::Bc3 => "bc3",
            Self::Bc4 => "bc4",
            Self::Bc5 => "bc5",
            Self::Bc6h => "bc6h",
            Self::Astc => "astc",
            Self::Rgba8 => "rgba8",
        }
    }
    /// Whether this is one of the BCn block formats (BC1 to BC7).
    pub fn is_bc(self) -> bool {
        !matches!(self, Self::Uastc | Self::Rgba8 | Self::Astc)
    }
    /// Whether `bc_zstd` decides the supercompression (BCn and ASTC; UASTC and RGBA8 are
    /// always zstd supercompressed).
    pub fn zstd_optional(self) -> bool {
        self.is_bc() || self == Self::Astc
    }
    /// The pixel format written, `astc` with the block footprint `astc_block`.
    pub fn pixel_format(self, astc_block: AstcBlock) -> PixelFormat {
        match self {
            Self::Astc => PixelFormat::Astc(astc_block),
            Self::Uastc => PixelFormat::Uastc,
            Self::Bc7 => PixelFormat::Bc7,
            Self::Bc1 => PixelFormat::Bc1,
            Self::Bc3 => PixelFormat::Bc3,
            Self::Bc4 => PixelFormat::Bc4,
            Self::Bc5 => PixelFormat::Bc5,
            Self::Bc6h => PixelFormat::Bc6h,
            Self::Rgba8 => PixelFormat::Rgba8,
        }
    }
}

/// A texture format name that is none of [`TextureFormat`]'s.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown texture format {0:?} (uastc, bc7, bc1, bc3, bc4, bc5, bc6h, astc, rgba8)")]
pub struct UnknownTextureFormat(pub String);

impl std::str::FromStr for TextureFormat {
    type Err = UnknownTextureFormat;
    fn from_str(s: &str) -> Result<Self, UnknownTextureFormat> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "uastc" => Self::Uastc,
            "bc7" => Self::Bc7,
            "bc1" => Self::Bc1,
            "bc3" => Self::Bc3,
            "bc4" => Self::Bc4,
            "bc5" => Self::Bc5,
            "bc6h" => Self::Bc6h,
            "astc" => Self::Astc,
            "rgba8" => Self::Rgba8,
            _ => return Err(UnknownTextureFormat(s.to_owned())),
        })
    }
}

/// The filter of the mip chain and of the `max_size` downscale (LDR images; HDR images
/// keep their area filter, `standalone/filter.rs`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum MipFilter {
    /// `image`'s triangle filter: the default, and what assetc always did.
    #[default]
    Triangle,
    /// Lanczos, 3 lobes: sharper mips, some ringing at hard edges.
    Lanczos3,
    /// Lanczos, 4 lobes: `ktx create`'s default filter.
    Lanczos4,
}

impl MipFilter {
    pub const ALL: [Self; 3] = [Self::Triangle, Self::Lanczos3, Self::Lanczos4];
    pub fn name(self) -> &'static str {
        match self {
            Self::Triangle => "triangle",
            Self::Lanczos3 => "lanczos3",
            Self::Lanczos4 => "lanczos4",
        }
    }
}

/// How textures are encoded. Every field is a `[texture]` key of `build.toml`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TextureSettings {
    /// Block format of the `.ktx2` files.
    pub format: TextureFormat,
    /// Longest side after downscaling; larger images are scaled down keeping their aspect.
    pub max_size: u32,
    /// Write the full mip chain down to 1x1 (else only the base level).
    pub mipmaps: bool,
    /// 0..1, higher is better and slower (default 0.5, the fastest setting that meets the
    /// quality aims). UASTC pack level / RDO, BC7 (and BC6H) preset, astcenc preset; RGBA8,
    /// BC1, BC3, BC4 and BC5 ignore it.
    ///
    /// | quality     | UASTC                                   | BC7        | ASTC       |
    /// |-------------|-----------------------------------------|------------|------------|
    /// | 0 ..< 0.25  | level 0 + RDO, lambda 3 ..= 1.75        | ultra fast | fastest    |
    /// | 0.25 ..< 0.5| level 0 + RDO, lambda 1.75 ..= 0.5      | very fast  | fast       |
    /// | 0.5 ..< 0.7 | level 0 (fastest), no RDO               | very fast  | fast       |
    /// | 0.7 ..< 0.85| level 1 (faster)                        | fast       | medium     |
    /// | 0.85 ..< 0.95| level 2 (basisu's default)             | basic      | thorough   |
    /// | 0.95 ..= 1  | level 3 (slower)                        | slow       | exhaustive |
    ///
    /// RDO (lambda = 0.5 + (0.5 - quality) * 5) trades PSNR for smaller zstd output and
    /// costs about ten times the encoding time of plain level 0.
    pub quality: f32,
    /// zstd supercompression for the BC formats and ASTC (UASTC and RGBA8 always use it).
    /// On by default: without it a BC7 file is 8 bits a texel on disk whatever the image
    /// holds, many times its PNG (docs/textures.md, "Sizes on disk"); off gives files a
    /// loader can upload without inflating.
    pub bc_zstd: bool,
    /// ASTC block footprint with `format = "astc"`: `"4x4"` (8 bits a texel, best) to
    /// `"12x12"` (0.89 bits a texel); `"5x5"`, `"6x6"` (the default), `"8x8"`, and the
    /// other sizes of the ASTC specification. Other formats ignore it.
    #[serde(
        with = "astc_block_name",
        skip_serializing_if = "astc_block_name::is_default"
    )]
    pub astc_block: AstcBlock,
    /// Filter of the mip chain and of the `max_size` downscale: `"triangle"` (default),
    /// `"lanczos3"` or `"lanczos4"` (windowed sinc, `ktx create`'s default). Alpha
    /// coverage (MASK materials) and normal renormalisation hold with each.
    #[serde(skip_serializing_if = "is_default_filter")]
    pub mip_filter: MipFilter,
    /// Standalone images only: `color` (sRGB), `normal`, `linear` or `single` (one
    /// channel), instead of the mode their name and texels give ([`class`]: `*_normal.png`
    /// normal map, `*_roughness.png` or any opaque grey image single channel, else colour;
    /// HDR images are linear). A model's textures always take the mode of the material
    /// slot that uses them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<TextureMode>,
    /// Standalone images only: the image is a cubemap's six faces, laid out as
    /// `"panorama"` (or `true`: equirectangular, 2:1, each face a quarter of its width
    /// capped by `max_size`), `"strip"` (6:1 or 1:6, faces +X -X +Y -Y +Z -Z) or
    /// `"cross"` (4:3 or 3:4). An image of another aspect is refused, not resampled.
    #[serde(with = "layout::cube_layout_serde")]
    pub cubemap: CubeLayout,
    /// With a BC format (`bc1`..`bc7`), pick the format by the texture's class: BC5 for
    /// normal maps, BC4 for single-channel maps, BC6H for HDR images; other textures keep
    /// `format`. Off by default, so existing outputs do not change.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub per_class: bool,
    /// BC7 only: rate-distortion optimisation for smaller files after zstd. 0 (default)
    /// is off; above 0 (up to [`MAX_BC7_RDO_LAMBDA`]), the error increase accepted per
    /// byte saved, as a fraction of the texture level's mean block error (0.29: about
    /// 25% smaller after zstd for 1 dB on FlightHelmet, at about 40 times plain BC7's
    /// time; docs/textures.md). Meant with `bc_zstd` (or a compressed download): the
    /// blocks are no fewer, they repeat.
    #[serde(skip_serializing_if = "is_zero")]
    pub bc7_rdo_lambda: f32,
    /// Models only: what a texture image that does not exist does to its model (`warn`,
    /// the default: the model is built without it; `fail`: the model fails, `--strict`).
    /// Left out of the serialised settings at its default, so cache keys of existing
    /// trees do not change.
    #[serde(skip_serializing_if = "MissingImages::is_default")]
    pub missing_images: MissingImages,
    /// Standalone images only: above 0, the image is a strip of this many equal layers
    /// (cut along its longer side, top to bottom when square) written as an array texture
    /// (KTX2 layerCount). A strip that does not divide evenly is refused. 0: not an array.
    #[serde(skip_serializing_if = "is_zero_u32")]
    pub array_layers: u32,
}

fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// What a model's texture image that does not exist does to the model. Engines' importers
/// load a model whose texture is missing with that slot empty; a missing buffer is
/// geometry, and fails the model either way.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum MissingImages {
    /// The model is built with the slots that use the image empty, and one warning names
    /// the file.
    #[default]
    Warn,
    /// The model fails, naming the file.
    Fail,
}

impl MissingImages {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

fn is_zero(v: &f32) -> bool {
    *v == 0.0
}

/// The largest `bc7_rdo_lambda` accepted.
pub const MAX_BC7_RDO_LAMBDA: f32 = 10.0;

impl Default for TextureSettings {
    fn default() -> Self {
        Self {
            format: TextureFormat::Uastc,
            max_size: 4096,
            mipmaps: true,
            quality: DEFAULT_QUALITY,
            bc_zstd: true,
            astc_block: AstcBlock::default(),
            mip_filter: MipFilter::Triangle,
            mode: None,
            cubemap: CubeLayout::Off,
            per_class: false,
            bc7_rdo_lambda: 0.0,
            missing_images: MissingImages::Warn,
            array_layers: 0,
        }
    }
}

fn is_default_filter(filter: &MipFilter) -> bool {
    *filter == MipFilter::default()
}

/// `texture.astc_block` as build.toml spells it: `"6x6"`.
mod astc_block_name {
    use super::AstcBlock;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(block: &AstcBlock, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(block.name())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AstcBlock, D::Error> {
        let name = String::deserialize(d)?;
        AstcBlock::from_name(&name).ok_or_else(|| {
            let all: Vec<_> = AstcBlock::ALL.iter().map(|b| b.name()).collect();
            serde::de::Error::custom(format!(
                "unknown ASTC block size {name:?} (one of {})",
                all.join(", ")
            ))
        })
    }
    pub fn is_default(block: &AstcBlock) -> bool {
        *block == AstcBlock::default()
    }
}

impl TextureSettings {
    /// The pixel format these settings write (an ASTC format carries its block size).
    pub fn pixel_format(&self) -> PixelFormat {
        self.format.pixel_format(self.astc_block)
    }

    /// The format a texture of class `mode` is written in: `format`, unless `per_class`
    /// is on with a BC format, which picks BC5 for normal maps and BC4 for single-channel
    /// maps (HDR images: see [`Self::hdr_format`]).
    pub fn format_for(&self, mode: TextureMode) -> TextureFormat {
        if !(self.per_class && self.format.is_bc()) {
            return self.format;
        }
        match mode {
            TextureMode::Normal => TextureFormat::Bc5,
            TextureMode::Single => TextureFormat::Bc4,
            TextureMode::Color | TextureMode::Linear => self.format,
        }
    }

    /// These settings with the format [`Self::format_for`] picks for `mode` and
    /// `per_class` resolved (off), so that they encode and hash as if that format had
    /// been set explicitly.
    pub fn for_class(&self, mode: TextureMode) -> Self {
        Self {
            format: self.format_for(mode),
            per_class: false,
            ..*self
        }
    }

    /// Whether an HDR image (`.hdr`, `.exr`) is written as BC6H: when `format` is `bc6h`,
    /// or `per_class` is on with a BC format. Otherwise HDR images are RGBA16F.
    pub fn hdr_as_bc6h(&self) -> bool {
        self.format == TextureFormat::Bc6h || (self.per_class && self.format.is_bc())
    }

    pub(crate) fn quality(&self) -> f32 {
        if self.quality.is_finite() {
            self.quality.clamp(0.0, 1.0)
        } else {
            DEFAULT_QUALITY
        }
    }

    /// UASTC pack level and RDO lambda for this quality.
    pub fn uastc_knobs(&self) -> UastcKnobs {
        UastcKnobs::for_quality(self.quality())
    }

    /// intel_tex_2 BC7 preset for this quality.
    pub fn bc7_preset(&self) -> Bc7Preset {
        Bc7Preset::for_quality(self.quality())
    }

    /// The BC7 RDO lambda when it applies: format BC7 and a lambda above 0.
    pub fn bc7_rdo(&self) -> Option<f32> {
        let on = self.format == TextureFormat::Bc7
            && self.bc7_rdo_lambda.is_finite()
            && self.bc7_rdo_lambda > 0.0;
        on.then(|| self.bc7_rdo_lambda.min(MAX_BC7_RDO_LAMBDA))
    }

    /// zstd level of supercompressed levels (UASTC, RGBA8, BC with `bc_zstd`), chosen by
    /// measurement (docs/textures.md): past these levels zstd gets slower than the block
    /// encoder for a few percent of size.
    pub fn zstd_level(&self) -> i32 {
        match self.format {
            // RDO spends its effort making blocks repeat, and is slow enough that even
            // zstd's deepest search costs little next to it.
            TextureFormat::Uastc if self.uastc_knobs().rdo_lambda.is_some() => ZSTD_LEVEL_RDO,
            TextureFormat::Bc7 if self.bc7_rdo().is_some() => ZSTD_LEVEL_RDO,
            TextureFormat::Rgba8 => ZSTD_LEVEL_RGBA8,
            _ => ZSTD_LEVEL_BLOCKS,
        }
    }
}

/// The default quality: the fastest settings that still meet the quality aims (UASTC
/// pack level 0 without RDO, BC7 very fast).
pub const DEFAULT_QUALITY: f32 = 0.5;

/// zstd level for UASTC without RDO and for BC1/BC3/BC7.
pub const ZSTD_LEVEL_BLOCKS: i32 = 9;
/// zstd level for RGBA8: level 9 halves the speed for 0.3-1.4 % of size, 15 is ten times
/// slower.
pub const ZSTD_LEVEL_RGBA8: i32 = 6;
/// zstd level for RDO UASTC and RDO BC7.
pub const ZSTD_LEVEL_RDO: i32 = 19;

#[derive(Debug, Error)]
pub enum TextureError {
    #[error("{image}: {reason}")]
    Image { image: String, reason: String },
    /// The image's file cannot be read (missing, or not readable).
    #[error("{image}: cannot read {}: {source}", path.display())]
    Unreadable {
        image: String,
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl TextureError {
    /// An error about the image named `image` (`images[2] (wood.png)`).
    pub fn new(image: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Image {
            image: image.into(),
            reason: reason.into(),
        }
    }
    /// The same error, naming the image (the encoder does not know the image's name).
    pub fn named(self, image: &str) -> Self {
        match self {
            Self::Image { reason, .. } => Self::new(image, reason),
            Self::Unreadable { path, source, .. } => Self::Unreadable {
                image: image.to_owned(),
                path,
                source,
            },
        }
    }
    /// The image the error is about (its glTF path and name, as [`Self::named`] set it)
    /// and what is wrong with it.
    pub fn site(&self) -> crate::code::ErrorSite {
        let (at, detail) = match self {
            Self::Image { image, reason } => (image, reason.clone()),
            Self::Unreadable {
                image,
                path,
                source,
            } => (image, format!("cannot read {}: {source}", path.display())),
        };
        crate::code::ErrorSite {
            at: at.clone(),
            detail,
        }
    }

    /// The diagnostic code: a file that cannot be read, else an image that cannot be
    /// decoded or encoded.
    pub fn code(&self) -> crate::code::DiagnosticCode {
        use crate::code::DiagnosticCode;
        match self {
            Self::Image { .. } => DiagnosticCode::BadImage,
            Self::Unreadable { source, .. } => DiagnosticCode::of_io(source),
        }
    }
}

/// Encodes one image into a complete `.ktx2` file. A KTX2 source is returned as it is only
/// when it already is what these settings write; otherwise it is decoded like any other
/// image (see [`read_foreign_ktx2`]). `alpha_cutoff` (MASK materials) keeps each mip's alpha
/// coverage equal to level 0's. Errors name the image as "image"; the caller renames them
/// with [`TextureError::named`].
pub fn encode_texture(
    bytes: &[u8],
    mime: Option<&str>,
    mode: TextureMode,
    alpha_cutoff: Option<f32>,
    settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    let settings = &settings.for_class(mode);
    let source = if mime == Some("image/ktx2") || bytes.starts_with(&ktx2::IDENTIFIER) {
        let wanted = Ktx2Wanted {
            format: settings.pixel_format(),
            srgb: mode.is_srgb() && settings.pixel_format().has_srgb(),
            mipmaps: settings.mipmaps,
            max_size: settings.max_size,
        };
        match read_foreign_ktx2(bytes, &wanted)
            .map_err(|r| TextureError::new("image", r.to_string()))?
        {
            ForeignKtx2::PassThrough => return Ok(bytes.to_vec()),
            ForeignKtx2::Decoded(image) => image,
        }
    } else {
        decode_image(bytes, mime).map_err(|r| TextureError::new("image", r.to_string()))?
    };
    let levels = build_levels(source, mode, alpha_cutoff, settings);
    let Some(first) = levels.first() else {
        return Err(TextureError::new("image", "no levels"));
    };
    let has_alpha = has_alpha(&levels);
    let (data, zstd) = encode_levels(&levels, mode, has_alpha, alpha_cutoff, settings)?;
    let format = settings.pixel_format();
    ktx2::write(&Ktx2Image {
        format,
        srgb: mode.is_srgb() && format.has_srgb(),
        has_alpha,
        width: first.width,
        height: first.height,
        depth: 0,
        faces: 1,
        levels: data,
        zstd_level: zstd.then(|| settings.zstd_level()),
    })
    .map_err(|e| TextureError::new("image", e.to_string()))
}

/// Whether any texel of any level is not opaque.
fn has_alpha(levels: &[RgbaLevel]) -> bool {
    levels
        .iter()
        .any(|l| l.pixels.chunks_exact(4).any(|p| p[3] != 255))
}

/// Block-encodes a mip chain in `settings.format`: each level's bytes, and whether the
/// container should zstd them. `has_alpha` is passed in because a cubemap's six faces must
/// all be encoded alike (BC1/BC3/BC7 and ASTC pick their modes by it). `alpha_cutoff`
/// (MASK materials) is kept by BC7's RDO pass: it moves no texel across the cutoff.
fn encode_levels(
    levels: &[RgbaLevel],
    mode: TextureMode,
    has_alpha: bool,
    alpha_cutoff: Option<f32>,
    settings: &TextureSettings,
) -> Result<(Vec<Vec<u8>>, bool), TextureError> {
    let format = settings.format;
    Ok(match format {
        TextureFormat::Uastc => (
            encode_uastc::encode(levels, mode, settings.uastc_knobs())?,
            true,
        ),
        TextureFormat::Rgba8 => (encode_rgba8::encode(levels), true),
        TextureFormat::Astc => (
            encode_astc::encode(
                levels,
                mode,
                has_alpha,
                settings.astc_block,
                AstcPreset::for_quality(settings.quality()),
            )?,
            settings.bc_zstd,
        ),
        TextureFormat::Bc7
        | TextureFormat::Bc1
        | TextureFormat::Bc3
        | TextureFormat::Bc4
        | TextureFormat::Bc5
        | TextureFormat::Bc6h => {
            let data = match settings.bc7_rdo() {
                Some(lambda) => {
                    let params = RdoParams {
                        lambda,
                        // Alpha counts only when there is some: else every decode has 255.
                        weights: [1, 1, 1, u32::from(has_alpha)],
                        alpha_cutoff: alpha_cutoff
                            .map(|c| (c.clamp(0.0, 1.0) * 255.0).floor() as u8),
                    };
                    encode_bc::encode_bc7_rdo(levels, has_alpha, settings.quality(), &params)
                }
                None => encode_bc::encode(levels, format, mode, has_alpha, settings.quality()),
            };
            (data, settings.bc_zstd)
        }
    })
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tuning;
