//! The KTX2 validator: everything the reader refuses, plus the layout rules a reader can
//! live without (level order and alignment, section placement, DFD agreement, metadata).

use super::{
    read_with, BlockInfo, Dfd, Ktx2, PixelFormat, ReadOptions, Sample, CHANNEL_UASTC_RGB,
    CHANNEL_UASTC_RGBA, HEADER_SIZE, KEY_ORIENTATION, KEY_WRITER, LEVEL_INDEX_ENTRY_SIZE,
    SUPERCOMPRESSION_NONE,
};
use crate::Problem;

/// Checks a `.ktx2` file; an empty list means it is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    // Levels are inflated and checked one buffer at a time, never held: a small file
    // declaring gigabytes of compressed zeros costs no memory here.
    match read_with(bytes, &ReadOptions::layout_only()) {
        Ok(ktx) => check(&ktx),
        Err(e) => vec![Problem::new(e.to_string())],
    }
}

fn check(ktx: &Ktx2) -> Vec<Problem> {
    let mut problems = Vec::new();
    let level_index_end = HEADER_SIZE + LEVEL_INDEX_ENTRY_SIZE * ktx.levels.len();
    if ktx.dfd_offset as usize != level_index_end {
        problems.push(Problem::at(
            u64::from(ktx.dfd_offset),
            format!("the DFD must follow the level index at byte {level_index_end}"),
        ));
    }
    if !ktx.kvd_offset.is_multiple_of(4) {
        problems.push(Problem::at(
            u64::from(ktx.kvd_offset),
            "key/value data is not 4-byte aligned",
        ));
    }
    if !ktx.sgd_offset.is_multiple_of(8) {
        problems.push(Problem::at(
            ktx.sgd_offset,
            "supercompression global data is not 8-byte aligned",
        ));
    }

    // Levels are stored smallest first (spec 3.9.7): level i+1 lies before level i.
    for (i, pair) in ktx.levels.windows(2).enumerate() {
        if pair[1].byte_offset + pair[1].byte_length > pair[0].byte_offset {
            problems.push(Problem::at(
                pair[1].byte_offset,
                format!(
                    "level {} is not stored before level {i} (levels go smallest first)",
                    i + 1
                ),
            ));
        }
    }
    if ktx.supercompression == SUPERCOMPRESSION_NONE {
        if let Some(block) = BlockInfo::for_vk_format(ktx.vk_format, &ktx.dfd) {
            let align = block.alignment();
            for (i, l) in ktx.levels.iter().enumerate() {
                if l.byte_offset % align != 0 {
                    problems.push(Problem::at(
                        l.byte_offset,
                        format!("level {i} is not aligned to {align} bytes"),
                    ));
                }
            }
        }
    }

    check_shape(ktx, &mut problems);

    let keys: Vec<&str> = ktx.key_values.iter().map(|(k, _)| k.as_str()).collect();
    if keys.windows(2).any(|w| w[0].as_bytes() >= w[1].as_bytes()) {
        problems.push(Problem::at(
            u64::from(ktx.kvd_offset),
            "keys are not sorted and unique",
        ));
    }
    // KTX 2.0 ("KTXorientation"): without the key a texture's orientation is "rd" ("r" in
    // 1D, "rdi" in 3D). assetc writes "rd"; a GPU-ready input passed through keeps its own,
    // which must still be one the spec defines.
    if let Some(o) = ktx.key_value_str(KEY_ORIENTATION) {
        if !is_orientation(o) {
            problems.push(Problem::new(format!(
                "{KEY_ORIENTATION} is {o:?}, not an orientation (r or l, then d or u, then o or i)"
            )));
        }
    }
    if ktx.key_value_str(KEY_WRITER).is_none_or(str::is_empty) {
        problems.push(Problem::new(format!("{KEY_WRITER} is missing")));
    }

    if let Some((format, srgb)) = ktx.pixel_format() {
        if ktx.type_size != format.type_size() {
            problems.push(Problem::at(
                16,
                format!(
                    "typeSize {} is not {}, the size of {}'s data type",
                    ktx.type_size,
                    format.type_size(),
                    format.name()
                ),
            ));
        }
        check_dfd(
            &ktx.dfd,
            format,
            srgb,
            u64::from(ktx.dfd_offset),
            &mut problems,
        );
    }
    problems
}

/// Whether `o` is a KTX 2.0 orientation (spec 5.4.3: `r` or `l`, then `d` or `u`, then `o`
/// or `i`, one letter per dimension). Fewer letters than dimensions are accepted: assetc's
/// own 3D textures (colour LUTs) say "rd", the axes they name being the ones that matter.
fn is_orientation(o: &str) -> bool {
    const AXES: [&[u8; 2]; 3] = [b"rl", b"du", b"oi"];
    (1..=3).contains(&o.len()) && o.bytes().zip(AXES).all(|(c, allowed)| allowed.contains(&c))
}

/// Cubemaps (spec 3.6: square faces, pixelDepth 0) and 3D textures, which we allow only
/// for uncompressed formats. faceCount other than 1 or 6 is refused by the reader.
fn check_shape(ktx: &Ktx2, problems: &mut Vec<Problem>) {
    if ktx.is_cube() {
        if ktx.width != ktx.height {
            problems.push(Problem::at(
                20,
                format!(
                    "a cubemap's faces must be square, not {}x{}",
                    ktx.width, ktx.height
                ),
            ));
        }
        if ktx.depth != 0 {
            problems.push(Problem::at(
                28,
                format!("a cubemap must have pixelDepth 0, not {}", ktx.depth),
            ));
        }
    }
    if ktx.depth > 0 {
        if ktx.height == 0 {
            problems.push(Problem::at(24, "a 3D texture must have pixelHeight > 0"));
        }
        let compressed = BlockInfo::for_vk_format(ktx.vk_format, &ktx.dfd)
            .is_none_or(|b| b.width > 1 || b.height > 1);
        if compressed {
            problems.push(Problem::at(
                28,
                format!(
                    "3D texture (pixelDepth {}) in a block-compressed format (vkFormat {}): only uncompressed formats may be 3D",
                    ktx.depth, ktx.vk_format
                ),
            ));
        }
    }
}

/// The DFD must be the one the format implies (UASTC may say RGB or RGBA).
fn check_dfd(dfd: &Dfd, format: PixelFormat, srgb: bool, at: u64, problems: &mut Vec<Problem>) {
    let has_alpha = dfd.samples.first().is_some_and(|s| {
        format == PixelFormat::Uastc && s.channel_type & 0x0f == CHANNEL_UASTC_RGBA
    });
    let expected = Dfd::for_format(format, srgb, has_alpha);
    if dfd.color_model != expected.color_model {
        problems.push(Problem::at(
            at,
            format!(
                "DFD colour model {} does not match the format's {}",
                dfd.color_model, expected.color_model
            ),
        ));
    }
    if dfd.transfer_function != expected.transfer_function {
        problems.push(Problem::at(
            at,
            format!(
                "DFD transfer function {} does not match the format's {}",
                dfd.transfer_function, expected.transfer_function
            ),
        ));
    }
    if dfd.texel_block_dimensions != expected.texel_block_dimensions
        || dfd.bytes_planes[0] != expected.bytes_planes[0]
    {
        problems.push(Problem::at(
            at,
            "DFD texel block or bytesPlane0 does not match the format",
        ));
    }
    let channel_ok = |a: u8, b: u8| {
        a == b
            || (format == PixelFormat::Uastc
                && [CHANNEL_UASTC_RGB, CHANNEL_UASTC_RGBA].contains(&(a & 0x0f)))
    };
    // A float format's range is part of its meaning (the Khronos Data Format spec gives
    // -1.0 / 1.0 for SFLOAT); 8-bit and block formats vary between writers, so those
    // ranges are not compared.
    let range_ok = |a: &Sample, b: &Sample| {
        !matches!(format, PixelFormat::Rgba16f | PixelFormat::Bc6h)
            || (a.lower == b.lower && a.upper == b.upper)
    };
    if dfd.samples.len() != expected.samples.len()
        || dfd.samples.iter().zip(&expected.samples).any(|(a, b)| {
            a.bit_offset != b.bit_offset
                || a.bit_length != b.bit_length
                || !channel_ok(a.channel_type, b.channel_type)
                || !range_ok(a, b)
        })
    {
        problems.push(Problem::at(at, "DFD samples do not match the format"));
    }
}
