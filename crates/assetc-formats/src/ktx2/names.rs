//! Vulkan's names of the vkFormat values a KTX2 file may hold, so that messages name a
//! format (`VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`) rather than a number. The table covers core
//! Vulkan 1.0-1.3 formats 0..=184 (USCALED/SSCALED included: KTX 2.0 prohibits them, and a
//! message should say which one a file holds), the 4:2:2 and multi-plane formats the KTX
//! 2.0 spec lists, PVRTC (`VK_IMG_format_pvrtc`), ASTC HDR (`VK_EXT_texture_compression_astc_hdr`),
//! ASTC 3D (`VK_EXT_astc_3d`) and A4R4G4B4 (`VK_EXT_4444_formats`). Extension formats are
//! named without their vendor suffix, as the `ktx2` crate and `ktx info` spell them.

/// (vkFormat, name without the `VK_FORMAT_` prefix), sorted by value for a binary search.
const NAMES: &[(u32, &str)] = &[
    (0, "UNDEFINED"),
    (1, "R4G4_UNORM_PACK8"),
    (2, "R4G4B4A4_UNORM_PACK16"),
    (3, "B4G4R4A4_UNORM_PACK16"),
    (4, "R5G6B5_UNORM_PACK16"),
    (5, "B5G6R5_UNORM_PACK16"),
    (6, "R5G5B5A1_UNORM_PACK16"),
    (7, "B5G5R5A1_UNORM_PACK16"),
    (8, "A1R5G5B5_UNORM_PACK16"),
    (9, "R8_UNORM"),
    (10, "R8_SNORM"),
    (11, "R8_USCALED"),
    (12, "R8_SSCALED"),
    (13, "R8_UINT"),
    (14, "R8_SINT"),
    (15, "R8_SRGB"),
    (16, "R8G8_UNORM"),
    (17, "R8G8_SNORM"),
    (18, "R8G8_USCALED"),
    (19, "R8G8_SSCALED"),
    (20, "R8G8_UINT"),
    (21, "R8G8_SINT"),
    (22, "R8G8_SRGB"),
    (23, "R8G8B8_UNORM"),
    (24, "R8G8B8_SNORM"),
    (25, "R8G8B8_USCALED"),
    (26, "R8G8B8_SSCALED"),
    (27, "R8G8B8_UINT"),
    (28, "R8G8B8_SINT"),
    (29, "R8G8B8_SRGB"),
    (30, "B8G8R8_UNORM"),
    (31, "B8G8R8_SNORM"),
    (32, "B8G8R8_USCALED"),
    (33, "B8G8R8_SSCALED"),
    (34, "B8G8R8_UINT"),
    (35, "B8G8R8_SINT"),
    (36, "B8G8R8_SRGB"),
    (37, "R8G8B8A8_UNORM"),
    (38, "R8G8B8A8_SNORM"),
    (39, "R8G8B8A8_USCALED"),
    (40, "R8G8B8A8_SSCALED"),
    (41, "R8G8B8A8_UINT"),
    (42, "R8G8B8A8_SINT"),
    (43, "R8G8B8A8_SRGB"),
    (44, "B8G8R8A8_UNORM"),
    (45, "B8G8R8A8_SNORM"),
    (46, "B8G8R8A8_USCALED"),
    (47, "B8G8R8A8_SSCALED"),
    (48, "B8G8R8A8_UINT"),
    (49, "B8G8R8A8_SINT"),
    (50, "B8G8R8A8_SRGB"),
    (51, "A8B8G8R8_UNORM_PACK32"),
    (52, "A8B8G8R8_SNORM_PACK32"),
    (53, "A8B8G8R8_USCALED_PACK32"),
    (54, "A8B8G8R8_SSCALED_PACK32"),
    (55, "A8B8G8R8_UINT_PACK32"),
    (56, "A8B8G8R8_SINT_PACK32"),
    (57, "A8B8G8R8_SRGB_PACK32"),
    (58, "A2R10G10B10_UNORM_PACK32"),
    (59, "A2R10G10B10_SNORM_PACK32"),
    (60, "A2R10G10B10_USCALED_PACK32"),
    (61, "A2R10G10B10_SSCALED_PACK32"),
    (62, "A2R10G10B10_UINT_PACK32"),
    (63, "A2R10G10B10_SINT_PACK32"),
    (64, "A2B10G10R10_UNORM_PACK32"),
    (65, "A2B10G10R10_SNORM_PACK32"),
    (66, "A2B10G10R10_USCALED_PACK32"),
    (67, "A2B10G10R10_SSCALED_PACK32"),
    (68, "A2B10G10R10_UINT_PACK32"),
    (69, "A2B10G10R10_SINT_PACK32"),
    (70, "R16_UNORM"),
    (71, "R16_SNORM"),
    (72, "R16_USCALED"),
    (73, "R16_SSCALED"),
    (74, "R16_UINT"),
    (75, "R16_SINT"),
    (76, "R16_SFLOAT"),
    (77, "R16G16_UNORM"),
    (78, "R16G16_SNORM"),
    (79, "R16G16_USCALED"),
    (80, "R16G16_SSCALED"),
    (81, "R16G16_UINT"),
    (82, "R16G16_SINT"),
    (83, "R16G16_SFLOAT"),
    (84, "R16G16B16_UNORM"),
    (85, "R16G16B16_SNORM"),
    (86, "R16G16B16_USCALED"),
    (87, "R16G16B16_SSCALED"),
    (88, "R16G16B16_UINT"),
    (89, "R16G16B16_SINT"),
    (90, "R16G16B16_SFLOAT"),
    (91, "R16G16B16A16_UNORM"),
    (92, "R16G16B16A16_SNORM"),
    (93, "R16G16B16A16_USCALED"),
    (94, "R16G16B16A16_SSCALED"),
    (95, "R16G16B16A16_UINT"),
    (96, "R16G16B16A16_SINT"),
    (97, "R16G16B16A16_SFLOAT"),
    (98, "R32_UINT"),
    (99, "R32_SINT"),
    (100, "R32_SFLOAT"),
    (101, "R32G32_UINT"),
    (102, "R32G32_SINT"),
    (103, "R32G32_SFLOAT"),
    (104, "R32G32B32_UINT"),
    (105, "R32G32B32_SINT"),
    (106, "R32G32B32_SFLOAT"),
    (107, "R32G32B32A32_UINT"),
    (108, "R32G32B32A32_SINT"),
    (109, "R32G32B32A32_SFLOAT"),
    (110, "R64_UINT"),
    (111, "R64_SINT"),
    (112, "R64_SFLOAT"),
    (113, "R64G64_UINT"),
    (114, "R64G64_SINT"),
    (115, "R64G64_SFLOAT"),
    (116, "R64G64B64_UINT"),
    (117, "R64G64B64_SINT"),
    (118, "R64G64B64_SFLOAT"),
    (119, "R64G64B64A64_UINT"),
    (120, "R64G64B64A64_SINT"),
    (121, "R64G64B64A64_SFLOAT"),
    (122, "B10G11R11_UFLOAT_PACK32"),
    (123, "E5B9G9R9_UFLOAT_PACK32"),
    (124, "D16_UNORM"),
    (125, "X8_D24_UNORM_PACK32"),
    (126, "D32_SFLOAT"),
    (127, "S8_UINT"),
    (128, "D16_UNORM_S8_UINT"),
    (129, "D24_UNORM_S8_UINT"),
    (130, "D32_SFLOAT_S8_UINT"),
    (131, "BC1_RGB_UNORM_BLOCK"),
    (132, "BC1_RGB_SRGB_BLOCK"),
    (133, "BC1_RGBA_UNORM_BLOCK"),
    (134, "BC1_RGBA_SRGB_BLOCK"),
    (135, "BC2_UNORM_BLOCK"),
    (136, "BC2_SRGB_BLOCK"),
    (137, "BC3_UNORM_BLOCK"),
    (138, "BC3_SRGB_BLOCK"),
    (139, "BC4_UNORM_BLOCK"),
    (140, "BC4_SNORM_BLOCK"),
    (141, "BC5_UNORM_BLOCK"),
    (142, "BC5_SNORM_BLOCK"),
    (143, "BC6H_UFLOAT_BLOCK"),
    (144, "BC6H_SFLOAT_BLOCK"),
    (145, "BC7_UNORM_BLOCK"),
    (146, "BC7_SRGB_BLOCK"),
    (147, "ETC2_R8G8B8_UNORM_BLOCK"),
    (148, "ETC2_R8G8B8_SRGB_BLOCK"),
    (149, "ETC2_R8G8B8A1_UNORM_BLOCK"),
    (150, "ETC2_R8G8B8A1_SRGB_BLOCK"),
    (151, "ETC2_R8G8B8A8_UNORM_BLOCK"),
    (152, "ETC2_R8G8B8A8_SRGB_BLOCK"),
    (153, "EAC_R11_UNORM_BLOCK"),
    (154, "EAC_R11_SNORM_BLOCK"),
    (155, "EAC_R11G11_UNORM_BLOCK"),
    (156, "EAC_R11G11_SNORM_BLOCK"),
    (157, "ASTC_4x4_UNORM_BLOCK"),
    (158, "ASTC_4x4_SRGB_BLOCK"),
    (159, "ASTC_5x4_UNORM_BLOCK"),
    (160, "ASTC_5x4_SRGB_BLOCK"),
    (161, "ASTC_5x5_UNORM_BLOCK"),
    (162, "ASTC_5x5_SRGB_BLOCK"),
    (163, "ASTC_6x5_UNORM_BLOCK"),
    (164, "ASTC_6x5_SRGB_BLOCK"),
    (165, "ASTC_6x6_UNORM_BLOCK"),
    (166, "ASTC_6x6_SRGB_BLOCK"),
    (167, "ASTC_8x5_UNORM_BLOCK"),
    (168, "ASTC_8x5_SRGB_BLOCK"),
    (169, "ASTC_8x6_UNORM_BLOCK"),
    (170, "ASTC_8x6_SRGB_BLOCK"),
    (171, "ASTC_8x8_UNORM_BLOCK"),
    (172, "ASTC_8x8_SRGB_BLOCK"),
    (173, "ASTC_10x5_UNORM_BLOCK"),
    (174, "ASTC_10x5_SRGB_BLOCK"),
    (175, "ASTC_10x6_UNORM_BLOCK"),
    (176, "ASTC_10x6_SRGB_BLOCK"),
    (177, "ASTC_10x8_UNORM_BLOCK"),
    (178, "ASTC_10x8_SRGB_BLOCK"),
    (179, "ASTC_10x10_UNORM_BLOCK"),
    (180, "ASTC_10x10_SRGB_BLOCK"),
    (181, "ASTC_12x10_UNORM_BLOCK"),
    (182, "ASTC_12x10_SRGB_BLOCK"),
    (183, "ASTC_12x12_UNORM_BLOCK"),
    (184, "ASTC_12x12_SRGB_BLOCK"),
    (1000054000, "PVRTC1_2BPP_UNORM_BLOCK"),
    (1000054001, "PVRTC1_4BPP_UNORM_BLOCK"),
    (1000054002, "PVRTC2_2BPP_UNORM_BLOCK"),
    (1000054003, "PVRTC2_4BPP_UNORM_BLOCK"),
    (1000054004, "PVRTC1_2BPP_SRGB_BLOCK"),
    (1000054005, "PVRTC1_4BPP_SRGB_BLOCK"),
    (1000054006, "PVRTC2_2BPP_SRGB_BLOCK"),
    (1000054007, "PVRTC2_4BPP_SRGB_BLOCK"),
    (1000066000, "ASTC_4x4_SFLOAT_BLOCK"),
    (1000066001, "ASTC_5x4_SFLOAT_BLOCK"),
    (1000066002, "ASTC_5x5_SFLOAT_BLOCK"),
    (1000066003, "ASTC_6x5_SFLOAT_BLOCK"),
    (1000066004, "ASTC_6x6_SFLOAT_BLOCK"),
    (1000066005, "ASTC_8x5_SFLOAT_BLOCK"),
    (1000066006, "ASTC_8x6_SFLOAT_BLOCK"),
    (1000066007, "ASTC_8x8_SFLOAT_BLOCK"),
    (1000066008, "ASTC_10x5_SFLOAT_BLOCK"),
    (1000066009, "ASTC_10x6_SFLOAT_BLOCK"),
    (1000066010, "ASTC_10x8_SFLOAT_BLOCK"),
    (1000066011, "ASTC_10x10_SFLOAT_BLOCK"),
    (1000066012, "ASTC_12x10_SFLOAT_BLOCK"),
    (1000066013, "ASTC_12x12_SFLOAT_BLOCK"),
    (1000156000, "G8B8G8R8_422_UNORM"),
    (1000156001, "B8G8R8G8_422_UNORM"),
    (1000156007, "R10X6_UNORM_PACK16"),
    (1000156008, "R10X6G10X6_UNORM_2PACK16"),
    (1000156009, "R10X6G10X6B10X6A10X6_UNORM_4PACK16"),
    (1000156010, "G10X6B10X6G10X6R10X6_422_UNORM_4PACK16"),
    (1000156011, "B10X6G10X6R10X6G10X6_422_UNORM_4PACK16"),
    (1000156017, "R12X4_UNORM_PACK16"),
    (1000156018, "R12X4G12X4_UNORM_2PACK16"),
    (1000156019, "R12X4G12X4B12X4A12X4_UNORM_4PACK16"),
    (1000156020, "G12X4B12X4G12X4R12X4_422_UNORM_4PACK16"),
    (1000156021, "B12X4G12X4R12X4G12X4_422_UNORM_4PACK16"),
    (1000156027, "G16B16G16R16_422_UNORM"),
    (1000156028, "B16G16R16G16_422_UNORM"),
    (1000288000, "ASTC_3x3x3_UNORM_BLOCK"),
    (1000288001, "ASTC_3x3x3_SRGB_BLOCK"),
    (1000288002, "ASTC_3x3x3_SFLOAT_BLOCK"),
    (1000288003, "ASTC_4x3x3_UNORM_BLOCK"),
    (1000288004, "ASTC_4x3x3_SRGB_BLOCK"),
    (1000288005, "ASTC_4x3x3_SFLOAT_BLOCK"),
    (1000288006, "ASTC_4x4x3_UNORM_BLOCK"),
    (1000288007, "ASTC_4x4x3_SRGB_BLOCK"),
    (1000340000, "A4R4G4B4_UNORM_PACK16"),
    (1000340001, "A4B4G4R4_UNORM_PACK16"),
];

/// The Vulkan name of a vkFormat (`VK_FORMAT_R8G8B8A8_SRGB`), when it is one a KTX2 file
/// may name.
pub fn vk_format_name(vk_format: u32) -> Option<&'static str> {
    let i = NAMES.binary_search_by_key(&vk_format, |&(v, _)| v).ok()?;
    Some(NAMES[i].1)
}

/// A vkFormat for a message: `VK_FORMAT_E5B9G9R9_UFLOAT_PACK32`, or `an unknown vkFormat
/// (1234567)` for a value no Vulkan version defines.
pub fn describe_vk_format(vk_format: u32) -> String {
    match vk_format_name(vk_format) {
        Some(name) => format!("VK_FORMAT_{name}"),
        None => format!("an unknown vkFormat ({vk_format})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktx2::{AstcBlock, PixelFormat};

    #[test]
    fn the_table_is_sorted_without_repeats_so_the_search_finds_every_entry() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        let mut names: Vec<&str> = NAMES.iter().map(|&(_, n)| n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), NAMES.len());
        for &(v, n) in NAMES {
            assert_eq!(vk_format_name(v), Some(n));
        }
        // Every core value 0..=184 is named: a gap would print a number for a real format.
        assert!((0..=184).all(|v| vk_format_name(v).is_some()));
    }

    #[test]
    fn names_agree_with_the_formats_assetc_writes() {
        // The formats' own spelling (PixelFormat::name) appears in each Vulkan name.
        let formats = [
            PixelFormat::Rgba8,
            PixelFormat::Rgba16f,
            PixelFormat::Bc1,
            PixelFormat::Bc3,
            PixelFormat::Bc4,
            PixelFormat::Bc5,
            PixelFormat::Bc6h,
            PixelFormat::Bc7,
        ];
        let expected = [
            "R8G8B8A8_UNORM",
            "R16G16B16A16_SFLOAT",
            "BC1_RGB_UNORM_BLOCK",
            "BC3_UNORM_BLOCK",
            "BC4_UNORM_BLOCK",
            "BC5_UNORM_BLOCK",
            "BC6H_UFLOAT_BLOCK",
            "BC7_UNORM_BLOCK",
        ];
        for (f, name) in formats.iter().zip(expected) {
            assert_eq!(vk_format_name(f.vk_format(false)), Some(name), "{f:?}");
        }
        for block in AstcBlock::ALL {
            for srgb in [false, true] {
                let vk = PixelFormat::Astc(block).vk_format(srgb);
                let kind = if srgb { "SRGB" } else { "UNORM" };
                let want = format!("ASTC_{}_{kind}_BLOCK", block.name());
                assert_eq!(vk_format_name(vk), Some(want.as_str()));
            }
        }
    }

    #[test]
    fn messages_name_the_format_or_say_the_value_is_unknown() {
        assert_eq!(describe_vk_format(123), "VK_FORMAT_E5B9G9R9_UFLOAT_PACK32");
        assert_eq!(describe_vk_format(122), "VK_FORMAT_B10G11R11_UFLOAT_PACK32");
        assert_eq!(
            describe_vk_format(1_000_066_000),
            "VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK"
        );
        assert_eq!(describe_vk_format(185), "an unknown vkFormat (185)");
    }
}
