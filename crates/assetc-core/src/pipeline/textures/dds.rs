//! DDS inputs (legacy and DX10 headers; 1D, 2D, 3D, arrays, cubemaps and cube arrays) as
//! KTX2 containers of the same layout and the matching vkFormat: the surfaces are moved,
//! not decoded (BCn stays BCn). The header is read with `ddsfile`; every size is worked
//! out here in u64 and checked against the file before anything is copied, since a DDS
//! header can declare any size.

use super::load::{MAX_PIXELS, MAX_SIDE};
use super::TextureMode;
use crate::formats::ktx2::{
    self, full_mip_count_3d, level_depth, BlockInfo, Dfd, PixelFormat, Sample, StoredKtx2,
    StoredLevel, CUBE_FACES, KEY_ORIENTATION, KEY_WRITER, MAX_LEVEL_BYTES, QUALIFIER_FLOAT,
    QUALIFIER_SIGNED, SUPERCOMPRESSION_NONE,
};
use ddsfile::{Caps2, D3D10ResourceDimension, D3DFormat, Dds, DxgiFormat, MiscFlag};

/// The 4 bytes every DDS file starts with.
pub const DDS_MAGIC: &[u8; 4] = b"DDS ";

/// A DDS surface format as KTX2 states it.
struct KtxFormat {
    vk_format: u32,
    type_size: u32,
    dfd: Dfd,
}

/// The bits of -1.0f and 1.0f: a signed float sample's range (Khronos Data Format spec).
const FLOAT_MINUS_ONE: u32 = 0xBF80_0000;
const FLOAT_ONE: u32 = 0x3F80_0000;

fn sample(bit_offset: u16, bits: u16, channel_type: u8, lower: u32, upper: u32) -> Sample {
    Sample {
        bit_offset,
        bit_length: (bits - 1) as u8,
        channel_type,
        position: [0; 4],
        lower,
        upper,
    }
}

/// A DFD of one plane of `bytes` bytes a block of `block` texels, with these samples.
fn dfd(model: u8, block: [u8; 2], bytes: u8, srgb: bool, samples: Vec<Sample>) -> Dfd {
    Dfd {
        vendor_id: 0,
        descriptor_type: 0,
        version: 2,
        color_model: model,
        color_primaries: 1,
        transfer_function: if srgb {
            ktx2::TRANSFER_SRGB
        } else {
            ktx2::TRANSFER_LINEAR
        },
        flags: 0,
        texel_block_dimensions: [block[0], block[1], 0, 0],
        bytes_planes: [bytes, 0, 0, 0, 0, 0, 0, 0],
        samples,
    }
}

fn ours(format: PixelFormat, srgb: bool) -> KtxFormat {
    KtxFormat {
        vk_format: format.vk_format(srgb),
        type_size: format.type_size(),
        dfd: Dfd::for_format(format, srgb, true),
    }
}

/// A block format assetc does not write: BC1 with alpha, BC2, the SNORM and SFLOAT BCn.
fn other_block(
    vk_format: u32,
    model: u8,
    bytes: u8,
    srgb: bool,
    samples: Vec<Sample>,
) -> KtxFormat {
    KtxFormat {
        vk_format,
        type_size: 1,
        dfd: dfd(model, [3, 3], bytes, srgb, samples),
    }
}

/// Four float channels of `bits` bits (RGBA), as Khronos dfdutils describes them.
fn float_rgba(vk_format: u32, bits: u16) -> KtxFormat {
    let samples = (0..4u8)
        .map(|c| {
            let channel = if c == 3 { 15 } else { c };
            sample(
                u16::from(c) * bits,
                bits,
                channel | QUALIFIER_FLOAT | QUALIFIER_SIGNED,
                FLOAT_MINUS_ONE,
                FLOAT_ONE,
            )
        })
        .collect();
    KtxFormat {
        vk_format,
        type_size: u32::from(bits / 8),
        dfd: dfd(1, [0, 0], (bits / 2) as u8, false, samples),
    }
}

/// VK_FORMAT_B8G8R8A8_UNORM / _SRGB: B at bit 0, then G, R, A.
fn bgra8(srgb: bool) -> KtxFormat {
    let alpha_qualifier = if srgb { 0x10 } else { 0 };
    let samples = [2u8, 1, 0, 15]
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let channel = if c == 15 { c | alpha_qualifier } else { c };
            sample(i as u16 * 8, 8, channel, 0, 255)
        })
        .collect();
    KtxFormat {
        vk_format: if srgb { 50 } else { 44 },
        type_size: 1,
        dfd: dfd(1, [0, 0], 4, srgb, samples),
    }
}

/// VK_FORMAT_B10G11R11_UFLOAT_PACK32: R in bits 0..11, G 11..22, B 22..32, unsigned floats.
fn b10g11r11() -> KtxFormat {
    let samples = vec![
        sample(0, 11, QUALIFIER_FLOAT, 0, FLOAT_ONE),
        sample(11, 11, 1 | QUALIFIER_FLOAT, 0, FLOAT_ONE),
        sample(22, 10, 2 | QUALIFIER_FLOAT, 0, FLOAT_ONE),
    ];
    KtxFormat {
        vk_format: 122,
        type_size: 4,
        dfd: dfd(1, [0, 0], 4, false, samples),
    }
}

/// The KTX2 format of a DXGI format, for the formats an engine ships in DDS files.
fn from_dxgi(format: DxgiFormat) -> Option<KtxFormat> {
    use DxgiFormat as D;
    let block = |bits, offset, channel| sample(offset, bits, channel, 0, u32::MAX);
    let signed = |bits, offset, channel| {
        sample(
            offset,
            bits,
            channel | QUALIFIER_SIGNED,
            0x8000_0000,
            0x7FFF_FFFF,
        )
    };
    Some(match format {
        D::R8G8B8A8_UNorm => ours(PixelFormat::Rgba8, false),
        D::R8G8B8A8_UNorm_sRGB => ours(PixelFormat::Rgba8, true),
        D::B8G8R8A8_UNorm => bgra8(false),
        D::B8G8R8A8_UNorm_sRGB => bgra8(true),
        D::R16G16B16A16_Float => ours(PixelFormat::Rgba16f, false),
        D::R32G32B32A32_Float => float_rgba(109, 32),
        D::R11G11B10_Float => b10g11r11(),
        // DXGI's BC1 may carry 1-bit alpha: Vulkan's BC1_RGBA (dfdutils: channel 1,
        // "alpha present").
        D::BC1_UNorm | D::BC1_UNorm_sRGB => {
            let srgb = format == D::BC1_UNorm_sRGB;
            other_block(133 + u32::from(srgb), 128, 8, srgb, vec![block(64, 0, 1)])
        }
        D::BC2_UNorm | D::BC2_UNorm_sRGB => {
            let srgb = format == D::BC2_UNorm_sRGB;
            let alpha = if srgb { 15 | 0x10 } else { 15 };
            other_block(
                135 + u32::from(srgb),
                129,
                16,
                srgb,
                vec![block(64, 0, alpha), block(64, 64, 0)],
            )
        }
        D::BC3_UNorm => ours(PixelFormat::Bc3, false),
        D::BC3_UNorm_sRGB => ours(PixelFormat::Bc3, true),
        D::BC4_UNorm => ours(PixelFormat::Bc4, false),
        D::BC4_SNorm => other_block(140, 131, 8, false, vec![signed(64, 0, 0)]),
        D::BC5_UNorm => ours(PixelFormat::Bc5, false),
        D::BC5_SNorm => other_block(
            142,
            132,
            16,
            false,
            vec![signed(64, 0, 0), signed(64, 64, 1)],
        ),
        D::BC6H_UF16 => ours(PixelFormat::Bc6h, false),
        D::BC6H_SF16 => other_block(
            144,
            133,
            16,
            false,
            vec![sample(
                0,
                128,
                QUALIFIER_FLOAT | QUALIFIER_SIGNED,
                FLOAT_MINUS_ONE,
                FLOAT_ONE,
            )],
        ),
        D::BC7_UNorm => ours(PixelFormat::Bc7, false),
        D::BC7_UNorm_sRGB => ours(PixelFormat::Bc7, true),
        _ => return None,
    })
}

/// A TYPELESS DXGI format (what some writers, Pillow among them, put in a DX10 header)
/// typed by the colour space the texture's mode gives.
fn typed(format: DxgiFormat, srgb: bool) -> DxgiFormat {
    use DxgiFormat as D;
    let pick = |unorm, srgb_format| if srgb { srgb_format } else { unorm };
    match format {
        D::R8G8B8A8_Typeless => pick(D::R8G8B8A8_UNorm, D::R8G8B8A8_UNorm_sRGB),
        D::B8G8R8A8_Typeless => pick(D::B8G8R8A8_UNorm, D::B8G8R8A8_UNorm_sRGB),
        D::BC1_Typeless => pick(D::BC1_UNorm, D::BC1_UNorm_sRGB),
        D::BC2_Typeless => pick(D::BC2_UNorm, D::BC2_UNorm_sRGB),
        D::BC3_Typeless => pick(D::BC3_UNorm, D::BC3_UNorm_sRGB),
        D::BC7_Typeless => pick(D::BC7_UNorm, D::BC7_UNorm_sRGB),
        D::BC4_Typeless => D::BC4_UNorm,
        D::BC5_Typeless => D::BC5_UNorm,
        D::BC6H_Typeless => D::BC6H_UF16,
        other => other,
    }
}

/// Why a DDS file cannot be carried into KTX2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DdsError {
    /// The `ddsfile` crate's parse error.
    #[error("invalid DDS file: {0}")]
    Invalid(String),
    /// The DXGI format as `ddsfile` names it.
    #[error(
        "DDS format DXGI_FORMAT {0} is not one assetc converts (RGBA8, BGRA8, RGBA16F, RGBA32F, R11G11B10F, BC1-BC7)"
    )]
    UnknownDxgi(String),
    /// The legacy (D3D) format as `ddsfile` names it.
    #[error(
        "DDS format {0} is not one assetc converts (RGBA8, BGRA8, RGBA16F, RGBA32F, DXT1-DXT5, BC4, BC5)"
    )]
    UnknownLegacy(String),
    #[error("DDS cubemap lacks some of its six faces")]
    PartialCube,
    #[error("DDS surface is {width}x{height}")]
    EmptySurface { width: u32, height: u32 },
    #[error("DDS 1D texture has height {height}")]
    TallOneD { height: u32 },
    #[error("DDS resource dimension {0} is not a texture")]
    NotATexture(String),
    #[error(
        "DDS declared size {width}x{height}x{depth} exceeds the limit ({MAX_SIDE} per side, {MAX_PIXELS} pixels a surface)"
    )]
    TooLarge { width: u32, height: u32, depth: u32 },
    #[error("DDS cubemap faces are {width}x{height}, not square")]
    CubeNotSquare { width: u32, height: u32 },
    #[error("DDS declares {levels} mip levels, a {width}x{height} image has {most}")]
    TooManyLevels {
        levels: u32,
        width: u32,
        height: u32,
        most: u32,
    },
    #[error("DDS format has no block size")]
    NoBlockSize,
    #[error("DDS level {level} exceeds the {MAX_LEVEL_BYTES}-byte limit")]
    LevelTooLarge { level: u32 },
    #[error("DDS data holds {held} bytes, its header needs {needed}")]
    ShortData { held: usize, needed: u64 },
}

/// The format of a DDS file. A legacy header (DXT1/3/5 FourCC, bit masks) or a TYPELESS
/// DXGI format says nothing of the colour space: the texture's mode decides (sRGB for
/// colour textures).
fn format_of(dds: &Dds, mode: TextureMode) -> Result<KtxFormat, DdsError> {
    if let Some(h10) = &dds.header10 {
        return from_dxgi(typed(h10.dxgi_format, mode.is_srgb()))
            .ok_or_else(|| DdsError::UnknownDxgi(format!("{:?}", h10.dxgi_format)));
    }
    let srgb = mode.is_srgb();
    let pick = |unorm: DxgiFormat, srgb_format: DxgiFormat| {
        from_dxgi(if srgb { srgb_format } else { unorm })
    };
    let found = match dds.get_d3d_format() {
        Some(D3DFormat::DXT1) => pick(DxgiFormat::BC1_UNorm, DxgiFormat::BC1_UNorm_sRGB),
        Some(D3DFormat::DXT2 | D3DFormat::DXT3) => {
            pick(DxgiFormat::BC2_UNorm, DxgiFormat::BC2_UNorm_sRGB)
        }
        Some(D3DFormat::DXT4 | D3DFormat::DXT5) => {
            pick(DxgiFormat::BC3_UNorm, DxgiFormat::BC3_UNorm_sRGB)
        }
        Some(D3DFormat::A8R8G8B8) => {
            pick(DxgiFormat::B8G8R8A8_UNorm, DxgiFormat::B8G8R8A8_UNorm_sRGB)
        }
        Some(D3DFormat::A8B8G8R8) => {
            pick(DxgiFormat::R8G8B8A8_UNorm, DxgiFormat::R8G8B8A8_UNorm_sRGB)
        }
        Some(D3DFormat::A16B16G16R16F) => from_dxgi(DxgiFormat::R16G16B16A16_Float),
        Some(D3DFormat::A32B32G32R32F) => from_dxgi(DxgiFormat::R32G32B32A32_Float),
        // ATI1 / ATI2 (BC4 / BC5) FourCCs, which ddsfile names as DXGI formats.
        _ => dds.get_dxgi_format().and_then(from_dxgi),
    };
    found.ok_or_else(|| DdsError::UnknownLegacy(format!("{:?}", dds.get_d3d_format())))
}

/// The layout a DDS header declares: KTX2's pixelHeight (0 in 1D), pixelDepth (0 unless
/// 3D), layerCount (0 unless an array) and faceCount.
struct Layout {
    width: u32,
    height: u32,
    depth: u32,
    layers: u32,
    faces: u32,
    levels: u32,
}

fn layout_of(dds: &Dds) -> Result<Layout, DdsError> {
    let header = &dds.header;
    let (width, height) = (header.width, header.height);
    let (dimension, cube, array_size) = match &dds.header10 {
        Some(h10) => (
            h10.resource_dimension,
            h10.misc_flag.contains(MiscFlag::TEXTURECUBE),
            // Some writers (Pillow) leave arraySize 0 for a single texture.
            h10.array_size.max(1),
        ),
        None => {
            let volume = header.caps2.contains(Caps2::VOLUME) && header.depth.unwrap_or(0) > 1;
            let cube = header.caps2.contains(Caps2::CUBEMAP);
            if cube && !header.caps2.contains(Caps2::CUBEMAP_ALLFACES) {
                return Err(DdsError::PartialCube);
            }
            let dimension = if volume {
                D3D10ResourceDimension::Texture3D
            } else {
                D3D10ResourceDimension::Texture2D
            };
            (dimension, cube, 1)
        }
    };
    if width == 0 || height == 0 {
        return Err(DdsError::EmptySurface { width, height });
    }
    let (height, depth) = match dimension {
        D3D10ResourceDimension::Texture1D if height == 1 => (0, 0),
        D3D10ResourceDimension::Texture1D => {
            return Err(DdsError::TallOneD { height });
        }
        D3D10ResourceDimension::Texture3D => (height, header.depth.unwrap_or(1).max(1)),
        D3D10ResourceDimension::Texture2D => (height, 0),
        other => return Err(DdsError::NotATexture(format!("{other:?}"))),
    };
    let too_large = width > MAX_SIDE
        || height > MAX_SIDE
        || depth > MAX_SIDE
        || u64::from(width) * u64::from(height.max(1)) > MAX_PIXELS;
    if too_large {
        return Err(DdsError::TooLarge {
            width,
            height,
            depth,
        });
    }
    if cube && (width != height || depth > 0) {
        return Err(DdsError::CubeNotSquare { width, height });
    }
    let levels = header.mip_map_count.unwrap_or(1).max(1);
    let most = full_mip_count_3d(width, height, depth);
    if levels > most {
        return Err(DdsError::TooManyLevels {
            levels,
            width,
            height,
            most,
        });
    }
    Ok(Layout {
        width,
        height,
        depth,
        layers: if array_size > 1 { array_size } else { 0 },
        faces: if cube { CUBE_FACES } else { 1 },
        levels,
    })
}

/// A DDS file as a KTX2 container of the same layout and format (levels not
/// supercompressed, orientation `rd`, as DDS rows run top to bottom).
pub fn dds_to_ktx2(bytes: &[u8], mode: TextureMode) -> Result<StoredKtx2, DdsError> {
    let dds = Dds::read(bytes).map_err(|e| DdsError::Invalid(e.to_string()))?;
    let format = format_of(&dds, mode)?;
    let layout = layout_of(&dds)?;
    let block =
        BlockInfo::for_vk_format(format.vk_format, &format.dfd).ok_or(DdsError::NoBlockSize)?;
    let images = u64::from(layout.layers.max(1)) * u64::from(layout.faces);
    // Bytes of one image (one layer's face) at each level, all its depth slices.
    let image_bytes: Vec<u64> = (0..layout.levels)
        .map(|level| {
            let slices = u64::from(level_depth(layout.depth, level));
            block
                .level_bytes(layout.width, layout.height, level, slices)
                .filter(|&n| n.saturating_mul(images) <= MAX_LEVEL_BYTES)
                .ok_or(DdsError::LevelTooLarge { level })
        })
        .collect::<Result<_, _>>()?;
    let chain: u64 = image_bytes.iter().sum();
    let needed = chain * images;
    if (dds.data.len() as u64) < needed {
        return Err(DdsError::ShortData {
            held: dds.data.len(),
            needed,
        });
    }
    // DDS stores each image's whole mip chain in turn (layer by layer, faces within a
    // layer); KTX2 stores each level in turn, every layer's faces within it.
    let levels = (0..layout.levels as usize)
        .map(|level| {
            let before: u64 = image_bytes[..level].iter().sum();
            let size = image_bytes[level];
            let mut data = Vec::with_capacity((size * images) as usize);
            for image in 0..images {
                let start = (image * chain + before) as usize;
                data.extend_from_slice(&dds.data[start..start + size as usize]);
            }
            StoredLevel {
                uncompressed_byte_length: data.len() as u64,
                bytes: data,
            }
        })
        .collect();
    let orientation: &[u8] = if layout.height == 0 { b"r\0" } else { b"rd\0" };
    Ok(StoredKtx2 {
        vk_format: format.vk_format,
        type_size: format.type_size,
        width: layout.width,
        height: layout.height,
        depth: layout.depth,
        layer_count: layout.layers,
        face_count: layout.faces,
        supercompression: SUPERCOMPRESSION_NONE,
        dfd: format.dfd.to_bytes(),
        key_values: vec![
            (KEY_ORIENTATION.to_owned(), orientation.to_vec()),
            (
                KEY_WRITER.to_owned(),
                concat!("assetc ", env!("CARGO_PKG_VERSION"), " (from DDS)\0")
                    .as_bytes()
                    .to_vec(),
            ),
        ],
        supercompression_global_data: Vec::new(),
        levels,
    })
}

/// DDS files of each layout and format family the reader takes, for other modules'
/// mutation tests.
#[cfg(test)]
pub(super) fn test_seed_files() -> Vec<Vec<u8>> {
    tests::seed_files()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddsfile::{AlphaMode, NewDxgiParams};

    /// A DDS of `format` whose every (image, level) surface is filled with
    /// `image * 16 + level`, so that a misplaced surface shows.
    fn dds(format: DxgiFormat, side: u32, levels: u32, images: u32, cube: bool) -> Vec<u8> {
        let mut dds = Dds::new_dxgi(NewDxgiParams {
            height: side,
            width: side,
            depth: None,
            format,
            mipmap_levels: Some(levels),
            array_layers: Some(images),
            caps2: None,
            is_cubemap: cube,
            resource_dimension: D3D10ResourceDimension::Texture2D,
            alpha_mode: AlphaMode::Unknown,
        })
        .unwrap();
        let block_bytes = if format == DxgiFormat::BC1_UNorm {
            8
        } else {
            16
        };
        let mut at = 0;
        for image in 0..images {
            for level in 0..levels {
                let blocks = (side >> level).max(1).div_ceil(4).pow(2) as usize;
                let n = blocks * block_bytes;
                dds.data[at..at + n].fill((image * 16 + level) as u8);
                at += n;
            }
        }
        assert_eq!(at, dds.data.len());
        let mut out = Vec::new();
        dds.write(&mut out).unwrap();
        out
    }

    /// DDS files of each layout and format family the reader takes, for mutation tests.
    pub(super) fn seed_files() -> Vec<Vec<u8>> {
        vec![
            dds(DxgiFormat::BC7_UNorm_sRGB, 16, 3, 12, true),
            dds(DxgiFormat::BC1_UNorm, 8, 1, 1, false),
            dds(DxgiFormat::BC7_UNorm, 8, 2, 3, false),
        ]
    }

    #[test]
    fn a_cube_array_keeps_its_layout_and_each_surface_lands_in_its_level() {
        let bytes = dds(DxgiFormat::BC7_UNorm_sRGB, 16, 3, 12, true);
        let k = dds_to_ktx2(&bytes, TextureMode::Color).unwrap();
        assert_eq!(k.vk_format, PixelFormat::Bc7.vk_format(true));
        assert_eq!((k.width, k.height, k.depth), (16, 16, 0));
        assert_eq!((k.layer_count, k.face_count, k.levels.len()), (2, 6, 3));
        for (level, stored) in k.levels.iter().enumerate() {
            let blocks = (16usize >> level).div_ceil(4).pow(2);
            let surfaces: Vec<u8> = stored
                .bytes
                .chunks_exact(blocks * 16)
                .map(|s| {
                    assert!(s.iter().all(|&b| b == s[0]));
                    s[0]
                })
                .collect();
            let expected: Vec<u8> = (0..12).map(|image| image * 16 + level as u8).collect();
            assert_eq!(surfaces, expected, "level {level}");
        }
        // The container is one our validator accepts.
        let written = ktx2::write_stored(&k).unwrap();
        assert_eq!(ktx2::validate(&written), vec![]);
    }

    #[test]
    fn bc1_is_the_vulkan_format_with_alpha() {
        let bytes = dds(DxgiFormat::BC1_UNorm, 8, 1, 1, false);
        let k = dds_to_ktx2(&bytes, TextureMode::Linear).unwrap();
        assert_eq!(
            ktx2::describe_vk_format(k.vk_format),
            "VK_FORMAT_BC1_RGBA_UNORM_BLOCK"
        );
        assert_eq!((k.layer_count, k.face_count), (0, 1));
    }

    #[test]
    fn absurd_or_short_files_are_refused_before_copying() {
        let bytes = dds(DxgiFormat::BC7_UNorm, 8, 1, 1, false);
        // Header width (offset 16 after the magic and the size/flags/height words).
        let mut huge = bytes.clone();
        huge[16..20].copy_from_slice(&(1u32 << 30).to_le_bytes());
        let e = dds_to_ktx2(&huge, TextureMode::Color).unwrap_err();
        assert!(matches!(e, DdsError::TooLarge { .. }), "{e}");
        assert!(e.to_string().contains("exceeds the limit"), "{e}");
        let e = dds_to_ktx2(&bytes[..bytes.len() - 1], TextureMode::Color).unwrap_err();
        assert!(matches!(e, DdsError::ShortData { .. }), "{e}");
        assert!(dds_to_ktx2(b"DDS ", TextureMode::Color).is_err());
    }
}
