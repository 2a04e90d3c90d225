//! Previews of cubemaps, 3D textures and RGBA16F images, from files our writer made.

use super::texture::{decode_ktx2, level_for_size};
use super::tonemap::{reinhard, srgb_u8};
use super::unfold::CROSS_CELLS;
use super::{preview_file, PreviewOptions};
use crate::formats::ktx2::{self, Ktx2Image, PixelFormat};

/// Face colours in storage order +X -X +Y -Y +Z -Z.
const FACES: [[u8; 4]; 6] = [
    [255, 0, 0, 255],
    [0, 255, 255, 255],
    [0, 255, 0, 255],
    [255, 0, 255, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
];

fn rgba8(width: u32, height: u32, depth: u32, faces: u32, levels: Vec<Vec<u8>>) -> Ktx2Image {
    Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: true,
        width,
        height,
        depth,
        faces,
        levels,
        zstd_level: Some(1),
    }
}

fn solid_cube(side: u32, levels: u32) -> Vec<u8> {
    let levels = (0..levels)
        .map(|l| {
            let texels = ((side >> l).max(1) as usize).pow(2);
            FACES.iter().flat_map(|c| c.repeat(texels)).collect()
        })
        .collect();
    ktx2::write(&rgba8(side, side, 0, 6, levels)).unwrap()
}

fn texel(t: &super::raster::Texture, x: u32, y: u32) -> [u8; 4] {
    let i = (y as usize * t.width as usize + x as usize) * 4;
    t.rgba[i..i + 4].try_into().unwrap()
}

#[test]
fn cube_previews_as_a_cross_with_each_face_in_its_cell() {
    let side = 4;
    let k = ktx2::read(&solid_cube(side, 1)).unwrap();
    let t = decode_ktx2(&k, 0).unwrap();
    assert_eq!((t.width, t.height), (4 * side, 3 * side));
    // Cross: +Y above +Z; -X +Z +X -Z in the middle row; -Y below +Z.
    let cell = |col: u32, row: u32| texel(&t, col * side + side / 2, row * side + side / 2);
    assert_eq!(cell(1, 0), FACES[2], "+Y");
    assert_eq!(cell(0, 1), FACES[1], "-X");
    assert_eq!(cell(1, 1), FACES[4], "+Z");
    assert_eq!(cell(2, 1), FACES[0], "+X");
    assert_eq!(cell(3, 1), FACES[5], "-Z");
    assert_eq!(cell(1, 2), FACES[3], "-Y");
    // The six cells without a face are transparent.
    for (col, row) in [(0, 0), (2, 0), (3, 0), (0, 2), (2, 2), (3, 2)] {
        assert_eq!(cell(col, row), [0; 4], "cell {col},{row}");
    }
    // Every face fills its whole cell.
    for (f, &(col, row)) in CROSS_CELLS.iter().enumerate() {
        for y in 0..side {
            for x in 0..side {
                assert_eq!(texel(&t, col * side + x, row * side + y), FACES[f]);
            }
        }
    }
}

#[test]
fn assetc_preview_draws_a_cube_file_as_the_cross() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sky.ktx2");
    std::fs::write(&path, solid_cube(8, 4)).unwrap();
    let p = preview_file(&path, &PreviewOptions::default()).unwrap();
    assert_eq!(p.image.dimensions(), (32, 24));
    assert_eq!(p.image.get_pixel(12, 12).0, FACES[4]);
    // --mip 2: faces of 2x2, the cross 8x6.
    let options = PreviewOptions {
        mip: 2,
        ..PreviewOptions::default()
    };
    let p = preview_file(&path, &options).unwrap();
    assert_eq!(p.image.dimensions(), (8, 6));
    assert_eq!(p.image.get_pixel(5, 3).0, FACES[0]);
}

#[test]
fn cube_thumbnails_fit_the_cross_not_one_face() {
    let k = ktx2::read(&solid_cube(64, 7)).unwrap();
    // A 64 cross is 256x192: too wide for 128; level 1 (32 faces, a 128x96 cross) fits.
    assert_eq!(level_for_size(&k, 128), 1);
    let t = decode_ktx2(&k, 1).unwrap();
    assert!(t.width <= 128 && t.height <= 128);
}

#[test]
fn volume_previews_as_a_strip_of_slices() {
    // 2x2x3, texel (x, y, z) = [x, y, z, 255] scaled so each is distinct and visible.
    let texels: Vec<u8> = (0..3u8)
        .flat_map(|z| {
            (0..2u8).flat_map(move |y| (0..2u8).flat_map(move |x| [x * 100, y * 100, z * 100, 255]))
        })
        .collect();
    let k = ktx2::read(&ktx2::write(&rgba8(2, 2, 3, 1, vec![texels])).unwrap()).unwrap();
    let t = decode_ktx2(&k, 0).unwrap();
    assert_eq!((t.width, t.height), (6, 2));
    for z in 0..3u32 {
        for y in 0..2u32 {
            for x in 0..2u32 {
                assert_eq!(
                    texel(&t, z * 2 + x, y),
                    [x as u8 * 100, y as u8 * 100, z as u8 * 100, 255],
                    "x {x} y {y} z {z}"
                );
            }
        }
    }
}

fn half_texel(values: [f32; 4]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
        .collect()
}

fn rgba16f_file(width: u32, height: u32, texel: &[u8]) -> Vec<u8> {
    let levels = (0..ktx2::full_mip_count(width, height))
        .map(|l| texel.repeat(((width >> l).max(1) * (height >> l).max(1)) as usize))
        .collect();
    ktx2::write(&Ktx2Image {
        format: PixelFormat::Rgba16f,
        srgb: false,
        has_alpha: true,
        width,
        height,
        depth: 0,
        faces: 1,
        levels,
        zstd_level: None,
    })
    .unwrap()
}

#[test]
fn rgba16f_one_previews_as_reinhard_half_in_srgb() {
    // Reinhard(1) = 0.5; sRGB(0.5) = 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354 -> 187.5 -> 188.
    assert_eq!(reinhard(1.0), 0.5);
    assert_eq!(srgb_u8(0.5), 188);
    let k = ktx2::read(&rgba16f_file(4, 2, &half_texel([1.0, 0.0, 3.0, 1.0]))).unwrap();
    let t = decode_ktx2(&k, 0).unwrap();
    assert_eq!((t.width, t.height), (4, 2));
    // Blue 3.0 -> 0.75 -> sRGB 0.8807 -> 225.
    assert!(t.rgba.chunks_exact(4).all(|p| p == [188, 0, 225, 255]));
    // Every mip previews too.
    let last = decode_ktx2(&k, k.levels.len() - 1).unwrap();
    assert_eq!(
        (last.width, last.height, &last.rgba[..]),
        (1, 1, &[188, 0, 225, 255][..])
    );
}

#[test]
fn rgba16f_odd_values_stay_in_range() {
    let texel = half_texel([f32::INFINITY, -2.0, f32::NAN, 7.0]);
    let k = ktx2::read(&rgba16f_file(1, 1, &texel)).unwrap();
    let t = decode_ktx2(&k, 0).unwrap();
    // Infinity shows white, negatives and NaN black; alpha above 1 clamps.
    assert_eq!(t.rgba, [255, 0, 0, 255]);
    assert_eq!(super::texture::format_name(&k), "RGBA16F");
}

#[test]
fn hdr_cube_previews_too() {
    let side = 2u32;
    let face = |v: f32| half_texel([v, v, v, 1.0]).repeat((side * side) as usize);
    let level: Vec<u8> = [0.0, 1.0, 3.0, 0.25, 1.0, 1.0]
        .iter()
        .flat_map(|&v| face(v))
        .collect();
    let bytes = ktx2::write(&Ktx2Image {
        format: PixelFormat::Rgba16f,
        srgb: false,
        has_alpha: true,
        width: side,
        height: side,
        depth: 0,
        faces: 6,
        levels: vec![level],
        zstd_level: Some(1),
    })
    .unwrap();
    let t = decode_ktx2(&ktx2::read(&bytes).unwrap(), 0).unwrap();
    assert_eq!((t.width, t.height), (8, 6));
    // -X (1.0) at the middle row's first cell.
    assert_eq!(texel(&t, 0, 2), [188, 188, 188, 255]);
    // +X (0.0) at column 2, row 1.
    assert_eq!(texel(&t, 4, 2), [0, 0, 0, 255]);
}
