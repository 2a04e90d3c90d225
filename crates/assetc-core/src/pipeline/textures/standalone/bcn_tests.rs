//! BC4, BC5 and BC6H: each format encoded, read back by our reader, decoded (bcdec_rs and
//! the preview decoder) and compared with its source under a reasoned bound; the
//! `per_class` choice; thread-count independence.

use super::super::{encode_texture, texture_id, TextureFormat, TextureMode, TextureSettings};
use super::*;
use crate::formats::ktx2::{self, PixelFormat};
use crate::pipeline::textures::decode::decode_ktx2;
use image::{DynamicImage, ImageFormat, Rgba};

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

fn with(format: TextureFormat, mipmaps: bool) -> TextureSettings {
    TextureSettings {
        format,
        mipmaps,
        ..TextureSettings::default()
    }
}

/// Validated, read back by our reader, and of the expected format (never sRGB).
fn read_as(bytes: &[u8], format: PixelFormat) -> ktx2::Ktx2 {
    assert_eq!(ktx2::validate(bytes), vec![]);
    let k = ktx2::read(bytes).unwrap();
    assert_eq!(k.pixel_format(), Some((format, false)));
    k
}

/// Per-block BC decode of level 0 (`channels` bytes a texel out of `decode`).
fn decode_blocks(
    k: &ktx2::Ktx2,
    block_bytes: usize,
    channels: usize,
    decode: impl Fn(&[u8], &mut [u8], usize),
) -> Vec<u8> {
    let (w, h) = (k.width as usize, k.height as usize);
    let bw = w.div_ceil(4);
    let mut out = vec![0u8; w * h * channels];
    for (i, block) in k.levels[0].data.chunks_exact(block_bytes).enumerate() {
        let mut texels = vec![0u8; 16 * channels];
        decode(block, &mut texels, 4 * channels);
        let (bx, by) = ((i % bw) * 4, (i / bw) * 4);
        for t in 0..16 {
            let (x, y) = (bx + t % 4, by + t / 4);
            if x < w && y < h {
                out[(y * w + x) * channels..][..channels]
                    .copy_from_slice(&texels[t * channels..][..channels]);
            }
        }
    }
    out
}

/// A steep smooth gradient (up to 24 steps of 0..255 across one 4x4 block) with a
/// different direction per channel.
fn gradient(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 2 + y * 2) as u8,
        (x * 3 + 60) as u8,
        (255 - y * 3) as u8,
        255,
    ]
}

/// BC4 and BC5 store each channel as two 8-bit endpoints and 8 levels between them
/// (6 + 2 fixed in the other mode): on a block whose values span at most 24 (this
/// gradient), the nearest level is within 24 / 5 / 2 = 2.4 of any value, plus one for
/// rounding the endpoints and levels. Measured: 1/255.
const BC45_MAX_ERROR: u8 = 4;

#[test]
fn bc4_single_channel_map_round_trips_within_bound() {
    let src = png(64, 64, gradient);
    let file = encode_texture(
        &src,
        None,
        TextureMode::Single,
        None,
        &with(TextureFormat::Bc4, true),
    )
    .unwrap();
    let k = read_as(&file, PixelFormat::Bc4);
    // 8 bytes a 4x4 block: 16 x 16 blocks at level 0, and a full chain down to 1x1.
    assert_eq!(k.levels[0].data.len(), 16 * 16 * 8);
    assert_eq!(k.levels.len(), 7);
    let r = decode_blocks(&k, 8, 1, |b, o, p| bcdec_rs::bc4(b, o, p, false));
    let worst = (0..64 * 64)
        .map(|i| r[i].abs_diff(gradient(i as u32 % 64, i as u32 / 64)[0]))
        .max()
        .unwrap();
    eprintln!("BC4 gradient: max error {worst}/255");
    assert!(worst <= BC45_MAX_ERROR, "BC4 max error {worst}/255");
    // The preview shows it as grey: R replicated, alpha 255.
    let shown = decode_ktx2(&k, 0).unwrap();
    for (i, p) in shown.rgba.chunks_exact(4).enumerate() {
        assert_eq!(p, [r[i], r[i], r[i], 255]);
    }
}

#[test]
fn bc5_keeps_red_and_green_within_bound() {
    // A linear map forced to BC5: R and G as stored, B and A dropped.
    let src = png(64, 64, gradient);
    let file = encode_texture(
        &src,
        None,
        TextureMode::Linear,
        None,
        &with(TextureFormat::Bc5, false),
    )
    .unwrap();
    let k = read_as(&file, PixelFormat::Bc5);
    assert_eq!(k.levels.len(), 1);
    assert_eq!(k.levels[0].data.len(), 16 * 16 * 16);
    let rg = decode_blocks(&k, 16, 2, |b, o, p| bcdec_rs::bc5(b, o, p, false));
    let mut worst = [0u8; 2];
    for i in 0..64 * 64 {
        let s = gradient(i as u32 % 64, i as u32 / 64);
        for c in 0..2 {
            worst[c] = worst[c].max(rg[i * 2 + c].abs_diff(s[c]));
        }
    }
    eprintln!("BC5 gradient: max error R, G {worst:?}/255");
    assert!(
        worst.iter().all(|&e| e <= BC45_MAX_ERROR),
        "BC5 max error {worst:?}/255"
    );
}

/// A smooth field of unit normals (tilted up to ~60° from +Z), stored as n * 0.5 + 0.5.
fn normal_texel(x: u32, y: u32) -> [u8; 4] {
    let (a, b) = (x as f32 / 63.0 * 1.6 - 0.8, y as f32 / 63.0 * 1.6 - 0.8);
    let n = [a, b, 1.0];
    let len = (a * a + b * b + 1.0).sqrt();
    let q = |v: f32| ((v / len * 0.5 + 0.5) * 255.0).round() as u8;
    [q(n[0]), q(n[1]), q(n[2]), 255]
}

fn unpack(t: &[u8]) -> [f32; 3] {
    let v = |c: u8| f32::from(c) / 255.0 * 2.0 - 1.0;
    let n = [v(t[0]), v(t[1]), v(t[2])];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    n.map(|c| c / len)
}

fn angle_deg(a: [f32; 3], b: [f32; 3]) -> f32 {
    (a[0] * b[0] + a[1] * b[1] + a[2] * b[2])
        .clamp(-1.0, 1.0)
        .acos()
        .to_degrees()
}

#[test]
fn bc5_normal_map_rebuilds_z_in_the_preview() {
    let src = png(64, 64, normal_texel);
    let file = encode_texture(
        &src,
        None,
        TextureMode::Normal,
        None,
        &with(TextureFormat::Bc5, false),
    )
    .unwrap();
    let k = read_as(&file, PixelFormat::Bc5);
    let shown = decode_ktx2(&k, 0).unwrap();
    // X and Y within the BC5 bound of 4/255 (0.03 in -1..1) tilt a normal by at most
    // ~2°; Z rebuilt as sqrt(1 - x² - y²) adds no error of its own beyond 8-bit rounding
    // of the shown Z. Measured: 0.63°.
    let worst = shown
        .rgba
        .chunks_exact(4)
        .enumerate()
        .map(|(i, p)| {
            let s = normal_texel(i as u32 % 64, i as u32 / 64);
            assert_eq!(p[3], 255);
            angle_deg(unpack(p), unpack(&s))
        })
        .fold(0.0f32, f32::max);
    eprintln!("BC5 normal field, Z rebuilt: worst {worst}°");
    assert!(worst < 2.0, "worst normal error {worst}°");
}

/// An HDR gradient over 16 stops (2^-6 ..= 2^10) along the diagonal, in a warm tint (as
/// light is: one colour at many intensities, which BC6H's one colour line per region
/// holds; three unrelated gradients would not lie on one line).
fn hdr_texel(x: u32, y: u32) -> [f32; 4] {
    let v = ((x + y) as f32 / 126.0 * 16.0 - 6.0).exp2();
    [v, v * 0.6, v * 0.3, 1.0]
}

fn bc6h_rgb(k: &ktx2::Ktx2) -> Vec<f32> {
    let (w, h) = (k.width as usize, k.height as usize);
    let bw = w.div_ceil(4);
    let mut out = vec![0f32; w * h * 3];
    for (i, block) in k.levels[0].data.chunks_exact(16).enumerate() {
        let mut texels = [0f32; 48];
        bcdec_rs::bc6h_float(block, &mut texels, 12, false);
        let (bx, by) = ((i % bw) * 4, (i / bw) * 4);
        for t in 0..16 {
            let (x, y) = (bx + t % 4, by + t / 4);
            if x < w && y < h {
                out[(y * w + x) * 3..][..3].copy_from_slice(&texels[t * 3..][..3]);
            }
        }
    }
    out
}

/// BC6H keeps each block's two endpoints in up to 16-bit half-float-like integers and
/// interpolates with 3- or 4-bit weights: on a block spanning 16/63 x 4 ≈ 1 stop the
/// interpolation error stays a few percent of the value. The bound, 0.1 stop (7 %),
/// is about twice the worst measured (see the assertion message).
const BC6H_MAX_LOG2_ERROR: f32 = 0.1;

#[test]
fn bc6h_hdr_gradient_round_trips_in_log_space() {
    let src = exr(64, 64, hdr_texel);
    let file = encode_standalone(
        &StandaloneTexture::Image {
            bytes: &src,
            ext: "exr",
        },
        TextureMode::Linear,
        &with(TextureFormat::Bc6h, true),
    )
    .unwrap();
    let k = read_as(&file, PixelFormat::Bc6h);
    assert_eq!(k.levels[0].data.len(), 16 * 16 * 16);
    assert_eq!(k.levels.len(), 7);
    let rgb = bc6h_rgb(&k);
    let mut worst = 0f32;
    let mut sum = 0f64;
    for i in 0..64 * 64 {
        let s = hdr_texel(i as u32 % 64, i as u32 / 64);
        for c in 0..3 {
            let e = (rgb[i * 3 + c].max(1e-9) / s[c]).log2().abs();
            worst = worst.max(e);
            sum += f64::from(e);
        }
    }
    let mean = sum / (64.0 * 64.0 * 3.0);
    eprintln!("BC6H 16-stop gradient: worst {worst} stops, mean {mean}");
    assert!(
        worst <= BC6H_MAX_LOG2_ERROR,
        "BC6H worst {worst} stops, mean {mean}"
    );
    // The preview tone maps it like RGBA16F: brighter source texels stay brighter.
    let shown = decode_ktx2(&k, 0).unwrap();
    assert_eq!((shown.width, shown.height), (64, 64));
    assert!(shown.rgba[(63 * 64 + 63) * 4] > shown.rgba[0]);
}

#[test]
fn bc6h_of_an_8_bit_colour_image_is_linear_light() {
    let src = png(32, 32, |x, y| [(x * 8) as u8, (y * 8) as u8, 128, 255]);
    let file = encode_texture(
        &src,
        None,
        TextureMode::Color,
        None,
        &with(TextureFormat::Bc6h, false),
    )
    .unwrap();
    let k = read_as(&file, PixelFormat::Bc6h);
    let rgb = bc6h_rgb(&k);
    // sRGB 128 is 0.216 in linear light; within 5 % after BC6H.
    for i in 0..32 * 32 {
        let b = rgb[i * 3 + 2];
        assert!((b / 0.2158 - 1.0).abs() < 0.05, "texel {i}: blue {b}");
    }
}

#[test]
fn per_class_picks_bc5_bc4_and_bc6h_only_when_asked() {
    let ldr = png(16, 16, normal_texel);
    let hdr = exr(16, 16, hdr_texel);
    let format_of = |bytes: &[u8]| ktx2::read(bytes).unwrap().pixel_format().unwrap();
    let ldr_file = |mode, s: &TextureSettings| {
        let f = encode_standalone(
            &StandaloneTexture::Image {
                bytes: &ldr,
                ext: "png",
            },
            mode,
            s,
        )
        .unwrap();
        assert_eq!(ktx2::validate(&f), vec![]);
        format_of(&f)
    };
    let hdr_file = |s: &TextureSettings| {
        let img = StandaloneTexture::Image {
            bytes: &hdr,
            ext: "exr",
        };
        format_of(&encode_standalone(&img, TextureMode::Linear, s).unwrap())
    };
    let bc7 = with(TextureFormat::Bc7, true);
    let per_class = TextureSettings {
        per_class: true,
        ..bc7
    };
    // Off (the default): everything LDR in BC7, HDR in RGBA16F, as before.
    assert_eq!(
        ldr_file(TextureMode::Normal, &bc7),
        (PixelFormat::Bc7, false)
    );
    assert_eq!(
        ldr_file(TextureMode::Single, &bc7),
        (PixelFormat::Bc7, false)
    );
    assert_eq!(hdr_file(&bc7), (PixelFormat::Rgba16f, false));
    // On: by class.
    assert_eq!(
        ldr_file(TextureMode::Normal, &per_class),
        (PixelFormat::Bc5, false)
    );
    assert_eq!(
        ldr_file(TextureMode::Single, &per_class),
        (PixelFormat::Bc4, false)
    );
    assert_eq!(
        ldr_file(TextureMode::Color, &per_class),
        (PixelFormat::Bc7, true)
    );
    assert_eq!(
        ldr_file(TextureMode::Linear, &per_class),
        (PixelFormat::Bc7, false)
    );
    assert_eq!(hdr_file(&per_class), (PixelFormat::Bc6h, false));
    // With a non-BC format per_class changes nothing.
    let uastc = TextureSettings {
        per_class: true,
        ..with(TextureFormat::Uastc, true)
    };
    assert_eq!(
        ldr_file(TextureMode::Normal, &uastc),
        (PixelFormat::Uastc, false)
    );
    assert_eq!(hdr_file(&uastc), (PixelFormat::Rgba16f, false));
    // A colour texture's id does not move with per_class (same bytes), a normal map's does.
    assert_eq!(
        texture_id(&ldr, TextureMode::Color, None, &bc7),
        texture_id(&ldr, TextureMode::Color, None, &per_class)
    );
    assert_ne!(
        texture_id(&ldr, TextureMode::Normal, None, &bc7),
        texture_id(&ldr, TextureMode::Normal, None, &per_class)
    );
    assert_eq!(
        texture_id(&ldr, TextureMode::Normal, None, &per_class),
        texture_id(
            &ldr,
            TextureMode::Normal,
            None,
            &with(TextureFormat::Bc5, true)
        )
    );
}

#[test]
fn forced_bc4_and_bc5_on_colour_are_linear_and_keep_red_green() {
    // A colour image has no sRGB BC4/BC5 vkFormat: the file is UNORM, values as stored.
    let src = png(16, 16, |x, y| [(x * 16) as u8, (y * 16) as u8, 77, 255]);
    for (format, pixel) in [
        (TextureFormat::Bc4, PixelFormat::Bc4),
        (TextureFormat::Bc5, PixelFormat::Bc5),
    ] {
        let file =
            encode_texture(&src, None, TextureMode::Color, None, &with(format, false)).unwrap();
        read_as(&file, pixel);
    }
}

#[test]
fn new_formats_do_not_depend_on_the_thread_count() {
    let faces: Vec<Vec<u8>> = (0..6u32)
        .map(|f| png(16, 16, move |x, y| normal_texel(x * 4 + f, y * 4)))
        .collect();
    let pano = exr(64, 32, |x, y| hdr_texel(x, y * 2));
    let encode_all = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let s = TextureSettings {
                per_class: true,
                ..with(TextureFormat::Bc7, true)
            };
            let cube = StandaloneTexture::CubeFaces {
                faces: std::array::from_fn(|i| (faces[i].as_slice(), "png")),
            };
            let pano = StandaloneTexture::Panorama {
                bytes: &pano,
                ext: "exr",
            };
            let normals = encode_standalone(&cube, TextureMode::Normal, &s).unwrap();
            let single = encode_standalone(&cube, TextureMode::Single, &s).unwrap();
            let sky = encode_standalone(&pano, TextureMode::Linear, &s).unwrap();
            let sky_fmt = ktx2::read(&sky).unwrap().pixel_format();
            assert_eq!(sky_fmt, Some((PixelFormat::Bc6h, false)));
            [normals, single, sky]
        })
    };
    assert_eq!(encode_all(1), encode_all(3));
}

#[test]
fn a_bc5_or_bc4_ktx2_source_is_decoded_when_another_format_is_wanted() {
    // Our own BC5 normal map fed back as a source, wanted as BC7: decoded with Z rebuilt,
    // so the BC7 result still holds the normals (BC5 then BC7 error, within 3°).
    let src = png(32, 32, normal_texel);
    let normal = TextureMode::Normal;
    let bc5 = encode_texture(&src, None, normal, None, &with(TextureFormat::Bc5, false)).unwrap();
    let bc7 = encode_texture(&bc5, None, normal, None, &with(TextureFormat::Bc7, false)).unwrap();
    let k = read_as(&bc7, PixelFormat::Bc7);
    let shown = decode_ktx2(&k, 0).unwrap();
    for (i, p) in shown.rgba.chunks_exact(4).enumerate() {
        let s = normal_texel(i as u32 % 32, i as u32 / 32);
        let e = angle_deg(unpack(p), unpack(&s));
        assert!(e < 3.0, "texel {i}: {e}°");
    }
    // Wanted as BC5 with the same settings, it passes through byte for byte.
    let again = encode_texture(&bc5, None, normal, None, &with(TextureFormat::Bc5, false)).unwrap();
    assert_eq!(again, bc5);
    // A BC4 source becomes grey.
    let single = TextureMode::Single;
    let bc4 = encode_texture(&src, None, single, None, &with(TextureFormat::Bc4, false)).unwrap();
    let rgba8 =
        encode_texture(&bc4, None, single, None, &with(TextureFormat::Rgba8, false)).unwrap();
    let shown = decode_ktx2(&read_as(&rgba8, PixelFormat::Rgba8), 0).unwrap();
    for (i, p) in shown.rgba.chunks_exact(4).enumerate() {
        let r = normal_texel(i as u32 % 32, i as u32 / 32)[0];
        assert_eq!((p[0], p[1], p[2], p[3]), (p[0], p[0], p[0], 255));
        assert!(
            p[0].abs_diff(r) <= BC45_MAX_ERROR,
            "texel {i}: {} vs {r}",
            p[0]
        );
    }
}
