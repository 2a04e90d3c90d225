use super::super::{encode_texture, TextureFormat, TextureMode, TextureSettings};
use super::panorama::face_size;
use super::*;
use crate::formats::ktx2::{self, PixelFormat};
use image::{DynamicImage, ImageFormat, Rgb, Rgba};

fn encoded(img: DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), format)
        .unwrap();
    out
}

fn png(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    let img = image::RgbaImage::from_fn(w, h, |x, y| Rgba(f(x, y)));
    encoded(DynamicImage::ImageRgba8(img), ImageFormat::Png)
}

fn exr(w: u32, h: u32, f: impl Fn(u32, u32) -> [f32; 4]) -> Vec<u8> {
    let img = image::Rgba32FImage::from_fn(w, h, |x, y| Rgba(f(x, y)));
    encoded(DynamicImage::ImageRgba32F(img), ImageFormat::OpenExr)
}

/// A Radiance RGBE file (one shared exponent per texel).
fn radiance(w: u32, h: u32, f: impl Fn(u32, u32) -> [f32; 3]) -> Vec<u8> {
    let img = image::Rgb32FImage::from_fn(w, h, |x, y| Rgb(f(x, y)));
    encoded(DynamicImage::ImageRgb32F(img), ImageFormat::Hdr)
}

fn settings(format: TextureFormat) -> TextureSettings {
    TextureSettings {
        format,
        ..TextureSettings::default()
    }
}

fn halves(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(2)
        .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
        .collect()
}

fn f16(v: f32) -> f32 {
    half::f16::from_f32(v).to_f32()
}

fn read(bytes: &[u8]) -> ktx2::Ktx2 {
    assert_eq!(ktx2::validate(bytes), vec![]);
    ktx2::read(bytes).unwrap()
}

fn error_text(r: Result<Vec<u8>, super::super::TextureError>) -> String {
    r.unwrap_err().to_string()
}

// ---------------------------------------------------------------- colour LUTs

/// A `.cube` text of size `n` whose entry for indices (r, g, b) is `f(r, g, b)`.
fn cube_text(header: &str, n: u32, f: impl Fn(u32, u32, u32) -> [f32; 3]) -> String {
    let mut s = header.to_owned();
    for b in 0..n {
        for g in 0..n {
            for r in 0..n {
                let [x, y, z] = f(r, g, b);
                s += &format!("{x} {y} {z}\n");
            }
        }
    }
    s
}

fn texel(k: &ktx2::Ktx2, n: u32, x: u32, y: u32, z: u32) -> [u8; 4] {
    let i = (((z * n + y) * n + x) * 4) as usize;
    k.levels[0].data[i..i + 4].try_into().unwrap()
}

#[test]
fn identity_lut_maps_each_texel_to_its_coordinates() {
    let n = 17;
    let step = (n - 1) as f32;
    let text = cube_text("LUT_3D_SIZE 17\n", n, |r, g, b| {
        [r as f32 / step, g as f32 / step, b as f32 / step]
    });
    let k = read(&encode_lut(&text).unwrap());
    assert_eq!((k.width, k.height, k.depth, k.face_count), (n, n, n, 1));
    assert_eq!(k.levels.len(), 1);
    assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba8, false)));
    assert_eq!(k.supercompression, ktx2::SUPERCOMPRESSION_ZSTD);
    assert_eq!(k.levels[0].data.len(), (n * n * n * 4) as usize);
    let q = |i: u32| (255.0 * f64::from(i) / 16.0).round() as u8;
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                assert_eq!(
                    texel(&k, n, x, y, z),
                    [q(x), q(y), q(z), 255],
                    "{x} {y} {z}"
                );
            }
        }
    }
}

#[test]
fn channel_swap_lut_swaps_red_and_blue() {
    let n = 5;
    let text = cube_text("LUT_3D_SIZE 5\n", n, |r, g, b| {
        [b as f32 / 4.0, g as f32 / 4.0, r as f32 / 4.0]
    });
    let k = read(&encode_lut(&text).unwrap());
    // 255 * i / 4 for i = 0..4: 0, 63.75, 127.5, 191.25, 255.
    let q = [0u8, 64, 128, 191, 255];
    for (x, y, z) in [(1, 2, 3), (4, 0, 0), (0, 0, 4), (3, 1, 2), (4, 4, 4)] {
        assert_eq!(
            texel(&k, n, x, y, z),
            [q[z as usize], q[y as usize], q[x as usize], 255]
        );
    }
}

#[test]
fn resolve_style_lut_parses() {
    let mut text = String::from(
        "\u{feff}# Created by: DaVinci Resolve\r\n\
         TITLE \"Film \"look\" #2\"\r\n\
         \r\n\
         # domain\r\n\
         DOMAIN_MIN 0 0 0\r\n\
         DOMAIN_MAX 2.0 2.0 4.0\r\n\
         LUT_3D_SIZE 2\r\n\
         \r\n",
    );
    for i in 0..8 {
        text += &format!("{} 1.0 {}\r\n", i as f32 * 0.25, 4.0 - i as f32 * 0.5);
    }
    text += "\r\n# end\r\n";
    let lut = parse_cube_lut(&text).unwrap();
    assert_eq!(lut.title.as_deref(), Some("Film \"look\" #2"));
    assert_eq!(lut.size, 2);
    assert_eq!(lut.domain_min, [0.0; 3]);
    assert_eq!(lut.domain_max, [2.0, 2.0, 4.0]);
    assert_eq!(lut.values.len(), 8);
    assert_eq!(lut.values[3], [0.75, 1.0, 2.5]);

    // Each channel scaled by its own domain: red 0.75 / 2, green 1 / 2, blue 2.5 / 4.
    let k = read(&encode_lut(&text).unwrap());
    assert_eq!(texel(&k, 2, 1, 1, 0), [96, 128, 159, 255]);

    // Resolve's one-range form means the same domain for all three channels.
    let ranged = parse_cube_lut(&text.replace(
        "DOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 2.0 2.0 4.0",
        "LUT_3D_INPUT_RANGE -1 3",
    ))
    .unwrap();
    assert_eq!(
        (ranged.domain_min, ranged.domain_max),
        ([-1.0; 3], [3.0; 3])
    );
}

#[test]
fn lut_domain_defaults_to_unit_and_values_outside_clamp() {
    let text = cube_text("LUT_3D_SIZE 2\n", 2, |r, _, _| {
        if r == 0 {
            [-0.5, 0.5, 1.5]
        } else {
            [1.0, 0.0, 0.2]
        }
    });
    let lut = parse_cube_lut(&text).unwrap();
    assert_eq!((lut.domain_min, lut.domain_max), ([0.0; 3], [1.0; 3]));
    assert_eq!(lut.title, None);
    let k = read(&encode_lut(&text).unwrap());
    assert_eq!(texel(&k, 2, 0, 1, 1), [0, 128, 255, 255]);
    assert_eq!(texel(&k, 2, 1, 0, 1), [255, 0, 51, 255]);
}

/// `.cube` text: `header`, then size 2's eight data lines with line `bad` (0-based)
/// replaced, and `extra` data lines more (negative: fewer).
fn lut_with(header: &str, bad: Option<(usize, &str)>, extra: i32) -> String {
    let count = (8 + extra) as usize;
    let mut s = header.to_owned();
    for i in 0..count {
        match bad {
            Some((at, line)) if at == i => s += line,
            _ => s += "0.5 0.25 1",
        }
        s += "\n";
    }
    s
}

fn lut_error(text: &str) -> LutError {
    parse_cube_lut(text).unwrap_err()
}

#[test]
fn malformed_luts_name_the_line() {
    let head = "# a comment\nTITLE \"t\"\nLUT_3D_SIZE 2\n"; // data starts on line 4
    let cases: Vec<(String, usize, &str)> = vec![
        (
            "TITLE \"x\"\r\nLUT_1D_SIZE 1024\r\n0 0 0\r\n".into(),
            2,
            "1D LUTs are not supported",
        ),
        (lut_with("\nLUT_3D_SIZE 0\n", None, 0), 2, "out of range"),
        (lut_with("\nLUT_3D_SIZE 1\n", None, 0), 2, "out of range"),
        (lut_with("LUT_3D_SIZE 1000\n", None, 0), 1, "out of range"),
        (
            lut_with("LUT_3D_SIZE two\n", None, 0),
            1,
            "not a whole number",
        ),
        (lut_with(head, Some((3, "0.5 0.25")), 0), 7, "2 values"),
        (lut_with(head, Some((0, "0.5 0.25 1 1")), 0), 4, "4 values"),
        (lut_with(head, Some((5, "0.5 abc 1")), 0), 9, "\"abc\""),
        (
            lut_with(head, Some((6, "0.5 NaN 1")), 0),
            10,
            "not a finite number",
        ),
        (lut_with(head, Some((2, "x 0 0")), 0), 6, "\"x\""),
        // Too few: the last line read is where the count fell short.
        (lut_with(head, None, -1), 10, "7 data lines"),
        (
            format!("{}\n\n# trailing\n", lut_with(head, None, -3)),
            8,
            "needs 2³ = 8",
        ),
        // Too many: the first line past the count.
        (lut_with(head, None, 2), 12, "more data lines than the 8"),
        (lut_with("# no size\n", None, 0), 2, "before LUT_3D_SIZE"),
        (
            "# only a title\nTITLE \"t\"\n\n".into(),
            2,
            "no LUT_3D_SIZE",
        ),
        (String::new(), 1, "no LUT_3D_SIZE"),
        (
            lut_with(head, Some((4, "LUT_3D_SIZE 2")), 0),
            8,
            "after the data",
        ),
        (
            lut_with("LUT_3D_SIZE 2\nLUT_IN_VIDEO_RANGE\n", None, 0),
            2,
            "unknown keyword LUT_IN_VIDEO_RANGE",
        ),
        (
            lut_with(
                "DOMAIN_MIN 0 0.5 0\nLUT_3D_SIZE 2\nDOMAIN_MAX 1 0.5 1\n",
                None,
                0,
            ),
            3,
            "green",
        ),
        (
            lut_with("DOMAIN_MIN 0 0\nLUT_3D_SIZE 2\n", None, 0),
            1,
            "2 values",
        ),
        (
            lut_with("TITLE t\nLUT_3D_SIZE 2\n", None, 0),
            1,
            "double quotes",
        ),
        (
            lut_with("LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n", None, 0),
            2,
            "second",
        ),
    ];
    for (text, line, message) in cases {
        let e = lut_error(&text);
        assert_eq!(e.line, line, "{e} for {text:?}");
        assert!(e.message.contains(message), "{e} for {text:?}");
        assert_eq!(e.to_string(), format!("line {line}: {}", e.message));
        assert_eq!(encode_lut(&text).unwrap_err(), e);
    }
}

// ---------------------------------------------------------------- HDR images

#[test]
fn hdr_image_is_exact_rgba16f_and_mips_average() {
    // RGBE holds these exactly (one shared exponent per texel, 8-bit mantissas), and so
    // does f16.
    let texels = [
        [0.25, 0.25, 0.25],
        [1.0, 1.0, 1.0],
        [1000.0, 1000.0, 1000.0],
        [2.75, 2.5, 2.25],
    ];
    let src = radiance(2, 2, |x, y| texels[(y * 2 + x) as usize]);
    // Mode and block format do not apply to HDR images.
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Image {
                bytes: &src,
                ext: "hdr",
            },
            TextureMode::Color,
            &settings(TextureFormat::Bc7),
        )
        .unwrap(),
    );
    assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba16f, false)));
    assert_eq!((k.width, k.height, k.face_count), (2, 2, 1));
    assert_eq!(k.levels.len(), 2);
    let expected: Vec<f32> = texels
        .iter()
        .flat_map(|t| [t[0], t[1], t[2], 1.0])
        .collect();
    assert_eq!(halves(&k.levels[0].data), expected);
    let mean = |c: usize| texels.iter().map(|t| t[c]).sum::<f32>() / 4.0;
    assert_eq!(
        halves(&k.levels[1].data),
        vec![f16(mean(0)), f16(mean(1)), f16(mean(2)), 1.0]
    );
}

#[test]
fn exr_values_f16_cannot_hold_are_clamped() {
    let values = [
        f32::NAN,
        -1.0,
        f32::INFINITY,
        1.0e6,
        f32::NEG_INFINITY,
        0.5,
        65504.0,
        3.0,
    ];
    let src = exr(2, 1, |x, _| {
        let i = x as usize * 4;
        [values[i], values[i + 1], values[i + 2], values[i + 3]]
    });
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Image {
                bytes: &src,
                ext: "exr",
            },
            TextureMode::Linear,
            &TextureSettings {
                mipmaps: false,
                ..TextureSettings::default()
            },
        )
        .unwrap(),
    );
    assert_eq!(k.levels.len(), 1);
    assert_eq!(
        halves(&k.levels[0].data),
        vec![0.0, 0.0, 65504.0, 65504.0, 0.0, 0.5, 65504.0, 3.0]
    );
}

#[test]
fn hdr_odd_sizes_box_filter_every_texel_and_respect_max_size() {
    let values = [1.0, 2.0, 6.0, 10.0, 20.0];
    let src = exr(5, 1, |x, _| {
        let v = values[x as usize];
        [v, v, v, 1.0]
    });
    let tex = StandaloneTexture::Image {
        bytes: &src,
        ext: "exr",
    };
    let k =
        read(&encode_standalone(&tex, TextureMode::Linear, &TextureSettings::default()).unwrap());
    // 5 -> 2 -> 1: the second texel of level 1 takes the odd column in.
    let red = |l: usize| -> Vec<f32> { halves(&k.levels[l].data).into_iter().step_by(4).collect() };
    assert_eq!(red(1), vec![1.5, 12.0]);
    assert_eq!(red(2), vec![6.75]);

    // A constant image downscaled stays that constant.
    let flat = exr(8, 4, |_, _| [3.0, 0.125, 7.5, 1.0]);
    let small = TextureSettings {
        max_size: 4,
        ..TextureSettings::default()
    };
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Image {
                bytes: &flat,
                ext: "exr",
            },
            TextureMode::Linear,
            &small,
        )
        .unwrap(),
    );
    assert_eq!((k.width, k.height, k.levels.len()), (4, 2, 3));
    for level in &k.levels {
        for t in halves(&level.data).chunks_exact(4) {
            assert_eq!(t, [3.0, 0.125, 7.5, 1.0]);
        }
    }
}

#[test]
fn absurd_hdr_sizes_are_refused_from_the_header() {
    // A header declaring 100000 x 100000 texels and no data at all.
    let src = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n";
    let e = error_text(encode_standalone(
        &StandaloneTexture::Image {
            bytes: src,
            ext: "hdr",
        },
        TextureMode::Linear,
        &TextureSettings::default(),
    ));
    assert!(e.contains("100000x100000 exceeds the limit"), "{e}");
    assert!(is_hdr_extension("hdr") && is_hdr_extension("exr") && is_hdr_extension("EXR"));
    assert!(!is_hdr_extension("png") && !is_hdr_extension("ktx2"));
}

#[test]
fn area_filter_keeps_values_outside_0_1() {
    // 3 -> 2 texels: each output covers 1.5 inputs, the middle one split between them.
    let src = super::super::float_image::FloatImage::from_fn(3, 1, |x, _| {
        let v = [-2.0, 4.0, 10.0][x as usize];
        Rgba([v, v * 100.0, 0.5, 1.0])
    });
    let out = super::filter::resize_area(&src, 2, 1);
    let expected = [[0.0, 0.0, 0.5, 1.0], [8.0, 800.0, 0.5, 1.0]];
    for (p, e) in out.pixels().zip(expected) {
        for (a, b) in p.0.iter().zip(e) {
            assert!((a - b).abs() < 1e-3, "{:?} vs {e:?}", p.0);
        }
    }
}

// ---------------------------------------------------------------- LDR images

#[test]
fn ldr_images_encode_as_material_images_do() {
    let pixels = |x: u32, y: u32| [(x * 30) as u8, (y * 50) as u8, 9, 255];
    let src = png(5, 4, pixels);
    let s = settings(TextureFormat::Rgba8);
    let tex = StandaloneTexture::Image {
        bytes: &src,
        ext: "png",
    };
    assert_eq!(
        encode_standalone(&tex, TextureMode::Color, &s).unwrap(),
        encode_texture(&src, Some("image/png"), TextureMode::Color, None, &s).unwrap()
    );
    // TGA has no signature: the extension names it.
    let rgba = image::RgbaImage::from_fn(5, 4, |x, y| Rgba(pixels(x, y)));
    for (format, ext) in [(ImageFormat::Tga, "tga"), (ImageFormat::Bmp, "bmp")] {
        let src = encoded(DynamicImage::ImageRgba8(rgba.clone()), format);
        let k = read(
            &encode_standalone(
                &StandaloneTexture::Image { bytes: &src, ext },
                TextureMode::Linear,
                &s,
            )
            .unwrap(),
        );
        assert_eq!(k.levels[0].data, rgba.as_raw().as_slice(), "{ext}");
    }
}

#[test]
fn single_channel_mode_replicates_red() {
    let reds = [0u8, 0, 255, 255];
    let src = png(2, 2, |x, y| [reds[(y * 2 + x) as usize], 17, 200, 90]);
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Image {
                bytes: &src,
                ext: "png",
            },
            TextureMode::Single,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap(),
    );
    assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba8, false)));
    let level0: Vec<u8> = reds.iter().flat_map(|&r| [r, r, r, 255]).collect();
    assert_eq!(k.levels[0].data, level0);
    // The linear mean of 0, 0, 1, 1 is 0.5: 127.5 rounds to 128.
    assert_eq!(k.levels[1].data, vec![128, 128, 128, 255]);
    assert_eq!(TextureMode::Single.name(), "single");
    assert!(!TextureMode::Single.is_srgb());
}

// ---------------------------------------------------------------- cubemaps

const FACE_COLOURS: [[u8; 4]; 6] = [
    [255, 0, 0, 255],
    [0, 255, 0, 255],
    [0, 0, 255, 255],
    [255, 255, 0, 255],
    [0, 255, 255, 255],
    [255, 0, 255, 255],
];

fn solid_faces(size: u32) -> Vec<Vec<u8>> {
    FACE_COLOURS
        .iter()
        .map(|&c| png(size, size, |_, _| c))
        .collect()
}

fn cube<'a>(faces: &'a [Vec<u8>], exts: [&'a str; 6]) -> StandaloneTexture<'a> {
    StandaloneTexture::CubeFaces {
        faces: std::array::from_fn(|i| (faces[i].as_slice(), exts[i])),
    }
}

#[test]
fn cube_faces_are_stored_px_nx_py_ny_pz_nz_in_every_level() {
    let faces = solid_faces(8);
    let k = read(
        &encode_standalone(
            &cube(&faces, ["png"; 6]),
            TextureMode::Linear,
            &settings(TextureFormat::Rgba8),
        )
        .unwrap(),
    );
    assert_eq!((k.width, k.height, k.depth, k.face_count), (8, 8, 0, 6));
    assert_eq!(k.levels.len(), 4);
    for (l, level) in k.levels.iter().enumerate() {
        let side = 8 >> l;
        let face_bytes = side * side * 4;
        assert_eq!(level.data.len(), 6 * face_bytes);
        for (f, face) in level.data.chunks_exact(face_bytes).enumerate() {
            assert!(
                face.chunks_exact(4).all(|t| t == FACE_COLOURS[f]),
                "level {l} face {f}"
            );
        }
    }
}

#[test]
fn hdr_cube_faces_become_rgba16f() {
    let faces: Vec<Vec<u8>> = (0..6)
        .map(|i| exr(4, 4, move |_, _| [i as f32 + 0.5, 2.0, 0.0, 1.0]))
        .collect();
    let k = read(
        &encode_standalone(
            &cube(&faces, ["exr"; 6]),
            TextureMode::Color,
            &TextureSettings::default(),
        )
        .unwrap(),
    );
    assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba16f, false)));
    assert_eq!((k.width, k.face_count, k.levels.len()), (4, 6, 3));
    let level0 = halves(&k.levels[0].data);
    for (f, face) in level0.chunks_exact(16 * 4).enumerate() {
        for t in face.chunks_exact(4) {
            assert_eq!(t, [f as f32 + 0.5, 2.0, 0.0, 1.0]);
        }
    }
}

#[test]
fn bad_cube_faces_are_named() {
    let s = settings(TextureFormat::Rgba8);
    let mut faces = solid_faces(8);
    faces[1] = png(8, 4, |_, _| [0; 4]);
    let e = error_text(encode_standalone(
        &cube(&faces, ["png"; 6]),
        TextureMode::Color,
        &s,
    ));
    assert!(e.contains("face nx: 8x4 is not square"), "{e}");

    let mut faces = solid_faces(8);
    faces[4] = png(4, 4, |_, _| [0; 4]);
    let e = error_text(encode_standalone(
        &cube(&faces, ["png"; 6]),
        TextureMode::Color,
        &s,
    ));
    assert!(e.contains("face pz is 4x4, px is 8x8"), "{e}");

    let mut faces = solid_faces(8);
    faces[0] = exr(8, 8, |_, _| [1.0; 4]);
    let mut exts = ["png"; 6];
    exts[0] = "exr";
    let e = error_text(encode_standalone(
        &cube(&faces, exts),
        TextureMode::Color,
        &s,
    ));
    assert!(e.contains("face nx is LDR, px is HDR"), "{e}");

    let mut faces = solid_faces(8);
    faces[3] = b"not an image".to_vec();
    let e = error_text(encode_standalone(
        &cube(&faces, ["png"; 6]),
        TextureMode::Color,
        &s,
    ));
    assert!(e.contains("face ny: "), "{e}");
}

#[test]
fn cubemaps_do_not_depend_on_the_thread_count() {
    let faces: Vec<Vec<u8>> = (0..6u32)
        .map(|f| {
            png(16, 16, move |x, y| {
                [(x * 16) as u8, (y * 16) as u8, (f * 40) as u8, 255]
            })
        })
        .collect();
    let pano = exr(64, 32, |x, y| [x as f32 * 0.5, y as f32, 3.0, 1.0]);
    let encode_all = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let s = TextureSettings::default();
            [
                encode_standalone(&cube(&faces, ["png"; 6]), TextureMode::Color, &s).unwrap(),
                encode_standalone(
                    &StandaloneTexture::Panorama {
                        bytes: &pano,
                        ext: "exr",
                    },
                    TextureMode::Linear,
                    &s,
                )
                .unwrap(),
            ]
        })
    };
    assert_eq!(encode_all(1), encode_all(3));
}

// ---------------------------------------------------------------- panoramas

/// The unit direction a panorama texel centre looks along, by the convention documented
/// in `panorama.rs` (centre column +X, longitude growing towards +Z, top row +Y).
fn pano_direction(x: u32, y: u32, w: u32, h: u32) -> [f32; 3] {
    use std::f32::consts::PI;
    let lon = ((x as f32 + 0.5) / w as f32 - 0.5) * 2.0 * PI;
    let polar = (y as f32 + 0.5) / h as f32 * PI;
    [
        polar.sin() * lon.cos(),
        polar.cos(),
        polar.sin() * lon.sin(),
    ]
}

fn normalised(v: [f32; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    v.map(|c| c / len)
}

#[test]
fn panorama_faces_follow_the_vulkan_cube_convention() {
    let (w, h) = (64, 32);
    // Each texel's colour encodes the direction it looks along: c = d / 2 + 1/2.
    let colour = |x, y| pano_direction(x, y, w, h).map(|c| c * 0.5 + 0.5);
    let hdr = exr(w, h, |x, y| {
        let [r, g, b] = colour(x, y);
        [r, g, b, 1.0]
    });
    let ldr = png(w, h, |x, y| {
        let [r, g, b] = colour(x, y).map(|c| (c * 255.0).round() as u8);
        [r, g, b, 255]
    });
    // Per face (+X -X +Y -Y +Z -Z): the directions through its centre, the middle of its
    // top edge and the middle of its left edge, by the Vulkan spec's face selection table.
    let expected: [[[f32; 3]; 3]; 6] = [
        [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
        [[-1.0, 0.0, 0.0], [-1.0, 1.0, 0.0], [-1.0, 0.0, -1.0]],
        [[0.0, 1.0, 0.0], [0.0, 1.0, -1.0], [-1.0, 1.0, 0.0]],
        [[0.0, -1.0, 0.0], [0.0, -1.0, 1.0], [-1.0, -1.0, 0.0]],
        [[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [-1.0, 0.0, 1.0]],
        [[0.0, 0.0, -1.0], [0.0, 1.0, -1.0], [1.0, 0.0, -1.0]],
    ];
    let s = settings(TextureFormat::Rgba8);
    for (bytes, ext) in [(&hdr, "exr"), (&ldr, "png")] {
        let k = read(
            &encode_standalone(
                &StandaloneTexture::Panorama { bytes, ext },
                TextureMode::Linear,
                &s,
            )
            .unwrap(),
        );
        let n = 16; // 64 / 4
        assert_eq!((k.width, k.height, k.face_count), (n, n, 6), "{ext}");
        let texels: Vec<f32> = if ext == "exr" {
            assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba16f, false)));
            halves(&k.levels[0].data)
        } else {
            assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba8, false)));
            k.levels[0]
                .data
                .iter()
                .map(|&b| f32::from(b) / 255.0)
                .collect()
        };
        let at = |f: u32, x: u32, y: u32| {
            let i = (((f * n + y) * n + x) * 4) as usize;
            [texels[i], texels[i + 1], texels[i + 2]]
        };
        // The direction a face's colour encodes, averaged over the texels either side of
        // the point (an even face has no texel at its centre).
        let seen = |points: &[(u32, u32)], f: u32| {
            let mut sum = [0.0f32; 3];
            for &(x, y) in points {
                for (s, c) in sum.iter_mut().zip(at(f, x, y)) {
                    *s += c * 2.0 - 1.0;
                }
            }
            normalised(sum)
        };
        let (m0, m1) = (n / 2 - 1, n / 2);
        for (f, [centre, top, left]) in expected.iter().enumerate() {
            let f = f as u32;
            let got = [
                seen(&[(m0, m0), (m1, m0), (m0, m1), (m1, m1)], f),
                seen(&[(m0, 0), (m1, 0)], f),
                seen(&[(0, m0), (0, m1)], f),
            ];
            for (g, e) in got.iter().zip([centre, top, left]) {
                let e = normalised(*e);
                let dot: f32 = g.iter().zip(e).map(|(a, b)| a * b).sum();
                assert!(dot > 0.99, "{ext} face {f}: saw {g:?}, expected {e:?}");
            }
        }
    }
}

#[test]
fn panorama_face_size_is_a_power_of_two_within_limits() {
    assert_eq!(face_size(64, 4096), Some(16));
    assert_eq!(face_size(100, 4096), Some(16)); // a quarter is 25
    assert_eq!(face_size(8192, 1000), Some(512));
    assert_eq!(face_size(8192, 4096), Some(2048));
    assert_eq!(face_size(4, 4096), Some(1));
    assert_eq!(face_size(3, 4096), None);

    // A panorama wider than four faces is scaled down first, and the cap applies.
    let pano = exr(256, 128, |_, _| [0.5, 1.0, 2.0, 1.0]);
    let k = read(
        &encode_standalone(
            &StandaloneTexture::Panorama {
                bytes: &pano,
                ext: "exr",
            },
            TextureMode::Linear,
            &TextureSettings {
                max_size: 20,
                mipmaps: false,
                ..TextureSettings::default()
            },
        )
        .unwrap(),
    );
    assert_eq!((k.width, k.face_count, k.levels.len()), (16, 6, 1));
    for t in halves(&k.levels[0].data).chunks_exact(4) {
        assert_eq!(t, [0.5, 1.0, 2.0, 1.0]);
    }

    let narrow = exr(2, 1, |_, _| [1.0; 4]);
    let e = error_text(encode_standalone(
        &StandaloneTexture::Panorama {
            bytes: &narrow,
            ext: "exr",
        },
        TextureMode::Linear,
        &TextureSettings::default(),
    ));
    assert!(e.contains("at least 4 texels"), "{e}");
}

#[test]
fn a_panorama_that_is_not_two_to_one_is_refused_not_resampled() {
    // The square HDR lightmap that `cubemap = true` once made a 32x32 cube of.
    let square = exr(128, 128, |_, _| [1.0; 4]);
    let e = error_text(encode_standalone(
        &StandaloneTexture::Panorama {
            bytes: &square,
            ext: "exr",
        },
        TextureMode::Linear,
        &TextureSettings::default(),
    ));
    assert!(
        e.contains("128x128") && e.contains("2:1") && e.contains("256x128 or 128x64"),
        "{e}"
    );
}
