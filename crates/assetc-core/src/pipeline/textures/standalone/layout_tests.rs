//! Cubes from strips and crosses, arrays from strips: each face or layer lands where the
//! layout puts it, and the file says how many there are.

use super::super::{CubeLayout, TextureFormat, TextureMode, TextureSettings};
use super::*;
use crate::formats::ktx2;
use image::{DynamicImage, ImageFormat, Rgba};

fn encoded(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), format)
        .unwrap();
    out
}

/// An image of `cells` (column, row) cells of `cell` texels, cell i flat colour `i * 30`
/// in red (other cells black).
fn cells_png(cols: u32, rows: u32, cell: u32, cells: &[(u32, u32)]) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(cols * cell, rows * cell, |x, y| {
        let at = cells.iter().position(|&c| c == (x / cell, y / cell));
        Rgba([at.map_or(0, |i| 30 + i as u8 * 30), 0, 0, 255])
    });
    encoded(DynamicImage::ImageRgba8(img), ImageFormat::Png)
}

fn rgba8(mipmaps: bool) -> TextureSettings {
    TextureSettings {
        format: TextureFormat::Rgba8,
        mipmaps,
        ..TextureSettings::default()
    }
}

fn read(bytes: &[u8]) -> ktx2::Ktx2 {
    assert_eq!(ktx2::validate(bytes), vec![]);
    ktx2::read(bytes).unwrap()
}

/// The red value of every image of level 0 (`images` of `w` x `h` texels), when each is
/// flat; panics otherwise.
fn flat_reds(k: &ktx2::Ktx2, images: usize) -> Vec<u8> {
    let data = &k.levels[0].data;
    let per = data.len() / images;
    data.chunks_exact(per)
        .map(|img| {
            let red = img[0];
            assert!(img.chunks_exact(4).all(|t| t[0] == red), "not flat");
            red
        })
        .collect()
}

/// The (column, row) cells of +X -X +Y -Y +Z -Z.
type FaceCells = [(u32, u32); 6];

#[test]
fn crosses_and_strips_become_cubes_face_by_face() {
    // Cells of +X -X +Y -Y +Z -Z, so face f should be red 30 + 30 f.
    let layouts: [(u32, u32, FaceCells); 4] = [
        (4, 3, [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)]),
        (3, 4, [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (1, 3)]),
        (6, 1, [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)]),
        (1, 6, [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]),
    ];
    for (cols, rows, cells) in layouts {
        let layout = if cols * rows == 6 {
            CubeLayout::Strip
        } else {
            CubeLayout::Cross
        };
        let bytes = cells_png(cols, rows, 8, &cells);
        let file = encode_standalone(
            &StandaloneTexture::UnfoldedCube {
                bytes: &bytes,
                ext: "png",
                layout,
            },
            TextureMode::Linear,
            &rgba8(false),
        )
        .unwrap();
        let k = read(&file);
        assert_eq!(
            (k.width, k.height, k.face_count, k.layer_count),
            (8, 8, 6, 0),
            "{cols}:{rows}"
        );
        assert_eq!(
            flat_reds(&k, 6),
            [30, 60, 90, 120, 150, 180],
            "{cols}:{rows}"
        );
    }
}

#[test]
fn a_strip_becomes_an_array_layer_by_layer() {
    let vertical = cells_png(1, 4, 16, &[(0, 0), (0, 1), (0, 2), (0, 3)]);
    let horizontal = cells_png(4, 1, 16, &[(0, 0), (1, 0), (2, 0), (3, 0)]);
    for bytes in [&vertical, &horizontal] {
        let file = encode_standalone(
            &StandaloneTexture::Layers {
                bytes,
                ext: "png",
                layers: 4,
            },
            TextureMode::Linear,
            &rgba8(true),
        )
        .unwrap();
        let k = read(&file);
        assert_eq!(
            (k.width, k.height, k.face_count, k.layer_count),
            (16, 16, 1, 4)
        );
        assert_eq!(k.levels.len(), 5, "16x16 down to 1x1, every layer");
        assert_eq!(flat_reds(&k, 4), [30, 60, 90, 120]);
        // The 1x1 level still holds the four layers, each its own colour.
        let last = &k.levels[4].data;
        assert_eq!(last.len(), 16);
        assert_eq!([last[0], last[4], last[8], last[12]], [30, 60, 90, 120]);
    }
}

#[test]
fn hdr_arrays_and_block_formats_keep_their_layers() {
    let img = image::Rgba32FImage::from_fn(8, 24, |_, y| Rgba([y as f32 / 8.0, 1.0, 2.0, 1.0]));
    let exr = encoded(DynamicImage::ImageRgba32F(img), ImageFormat::OpenExr);
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Layers {
                bytes: &exr,
                ext: "exr",
                layers: 3,
            },
            TextureMode::Linear,
            &TextureSettings::default(),
        )
        .unwrap(),
    );
    assert_eq!(
        (k.width, k.height, k.layer_count, k.levels.len()),
        (8, 8, 3, 4)
    );
    let png = cells_png(1, 2, 8, &[(0, 0), (0, 1)]);
    for format in [
        TextureFormat::Bc7,
        TextureFormat::Uastc,
        TextureFormat::Astc,
    ] {
        let k = read(
            &encode_standalone(
                &StandaloneTexture::Layers {
                    bytes: &png,
                    ext: "png",
                    layers: 2,
                },
                TextureMode::Color,
                &TextureSettings {
                    format,
                    ..TextureSettings::default()
                },
            )
            .unwrap(),
        );
        assert_eq!((k.width, k.height, k.layer_count), (8, 8, 2), "{format:?}");
    }
}

#[test]
fn a_misfit_is_refused_with_the_sizes_that_fit() {
    let square = cells_png(1, 1, 12, &[(0, 0)]);
    let e = encode_standalone(
        &StandaloneTexture::UnfoldedCube {
            bytes: &square,
            ext: "png",
            layout: CubeLayout::Cross,
        },
        TextureMode::Color,
        &TextureSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("12x12") && e.contains("4:3 or 3:4"), "{e}");
    let e = encode_standalone(
        &StandaloneTexture::Layers {
            bytes: &square,
            ext: "png",
            layers: 5,
        },
        TextureMode::Color,
        &TextureSettings::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("12x12") && e.contains("12x10 or 12x15"), "{e}");
}
