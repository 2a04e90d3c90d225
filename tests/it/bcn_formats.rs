//! BC4, BC5 and BC6H on real data: BC5 against BC7 on the corpus's normal maps (mean
//! angular error at equal bytes: both are 16 bytes a 4x4 block), and every new format's
//! file read by the ktx-parse npm package with the right vkFormat, DFD and dimensions.
//!
//! Needs the corpus (ASSETC_CORPUS) and node with ktx-parse (ASSETC_PEERS); each test
//! skips with a message when its inputs are missing, and fails under CI=true.

use crate::common;

use assetc::formats::ktx2::{self, PixelFormat};
use assetc::pipeline::textures::{
    build_levels, decode_image, encode_standalone, encode_texture, StandaloneTexture,
    TextureFormat, TextureMode, TextureSettings,
};

const NORMAL_MAPS: [&str; 2] = [
    "FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_Normal.png",
    "FlightHelmet/FlightHelmet_Materials_MetalPartsMat_Normal.png",
];

fn unit(v: [f32; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-12);
    v.map(|c| c / len)
}

fn unpack(r: u8, g: u8, b: u8) -> [f32; 3] {
    let s = |c: u8| f32::from(c) / 255.0 * 2.0 - 1.0;
    unit([s(r), s(g), s(b)])
}

/// The BC5 normal as a shader rebuilds it: X and Y from R and G, Z = sqrt(1 - x² - y²).
fn bc5_normal(r: u8, g: u8) -> [f32; 3] {
    let s = |c: u8| f32::from(c) / 255.0 * 2.0 - 1.0;
    let (x, y) = (s(r), s(g));
    unit([x, y, (1.0 - x * x - y * y).max(0.0).sqrt()])
}

fn angle(a: [f32; 3], b: [f32; 3]) -> f64 {
    f64::from((a[0] * b[0] + a[1] * b[1] + a[2] * b[2]).clamp(-1.0, 1.0))
        .acos()
        .to_degrees()
}

/// Level 0 of a BC file decoded block by block into `channels`-byte texels.
fn decode(
    k: &ktx2::Ktx2,
    block_bytes: usize,
    channels: usize,
    f: impl Fn(&[u8], &mut [u8], usize),
) -> Vec<u8> {
    let (w, h) = (k.width as usize, k.height as usize);
    let bw = w.div_ceil(4);
    let mut out = vec![0u8; w * h * channels];
    for (i, block) in k.levels[0].data.chunks_exact(block_bytes).enumerate() {
        let mut t = vec![0u8; 16 * channels];
        f(block, &mut t, 4 * channels);
        for j in 0..16 {
            let (x, y) = ((i % bw) * 4 + j % 4, (i / bw) * 4 + j / 4);
            if x < w && y < h {
                out[(y * w + x) * channels..][..channels]
                    .copy_from_slice(&t[j * channels..][..channels]);
            }
        }
    }
    out
}

/// The measured property of issue 25: BC5 (X, Y; Z rebuilt) against BC7 RGB at the same
/// 16 bytes a block, as mean angular error. The reference is the encoders' own input (the
/// source after our normal-map level 0 pass), so the figure is the block format's error.
///
/// The issue hoped for 3x; measured (intel_tex_2 BC7 "very fast", the default quality),
/// BC5 is 1.71x better on LeatherParts (0.48° vs 0.82°) and 1.22x on MetalParts (0.46° vs
/// 0.57°), 1.46x over both: BC5's floor is the 8-bit X/Y quantisation with Z rebuilt,
/// which BC7 nearly reaches on these smooth maps. Asserted: BC5 is better on every map
/// and by at least 1.3x over both (docs/textures.md records the figures).
#[test]
fn bc5_normal_maps_beat_bc7_on_angular_error() {
    let Some(gltf) = common::corpus_gltf("bcn_formats") else {
        return;
    };
    // Downscaled to 1024 to keep the debug-build decode quick; both formats see the same
    // input, and the error is per block, so the ratio does not depend on the size.
    let base = TextureSettings {
        max_size: 1024,
        mipmaps: false,
        ..TextureSettings::default()
    };
    let (mut sum5, mut sum7, mut n) = (0f64, 0f64, 0usize);
    for name in NORMAL_MAPS {
        let path = gltf.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            common::missing("bcn_formats", &path.display().to_string());
            return;
        };
        let input = build_levels(
            decode_image(&bytes, None).expect("corpus image decodes"),
            TextureMode::Normal,
            None,
            &base,
        )
        .remove(0);
        let file = |format| {
            let s = TextureSettings { format, ..base };
            let f = encode_texture(&bytes, None, TextureMode::Normal, None, &s).unwrap();
            assert_eq!(ktx2::validate(&f), vec![], "{name} {format:?}");
            ktx2::read(&f).unwrap()
        };
        let k5 = file(TextureFormat::Bc5);
        let k7 = file(TextureFormat::Bc7);
        assert_eq!(
            k5.levels[0].data.len(),
            k7.levels[0].data.len(),
            "equal bytes"
        );
        assert_eq!((k5.width, k5.height), (input.width, input.height));
        let rg = decode(&k5, 16, 2, |b, o, p| bcdec_rs::bc5(b, o, p, false));
        let rgba = decode(&k7, 16, 4, bcdec_rs::bc7);
        let (mut e5, mut e7) = (0f64, 0f64);
        let texels = input.pixels.len() / 4;
        for i in 0..texels {
            let s = &input.pixels[i * 4..][..4];
            let reference = unpack(s[0], s[1], s[2]);
            e5 += angle(bc5_normal(rg[i * 2], rg[i * 2 + 1]), reference);
            e7 += angle(
                unpack(rgba[i * 4], rgba[i * 4 + 1], rgba[i * 4 + 2]),
                reference,
            );
        }
        eprintln!(
            "{name}: mean angular error BC5 {:.4}°, BC7 {:.4}° ({:.2}x)",
            e5 / texels as f64,
            e7 / texels as f64,
            e7 / e5
        );
        assert!(e5 < e7, "{name}: BC5 is not better than BC7");
        sum5 += e5;
        sum7 += e7;
        n += texels;
    }
    let (m5, m7) = (sum5 / n as f64, sum7 / n as f64);
    eprintln!("all: BC5 {m5:.4}°, BC7 {m7:.4}°, ratio {:.2}", m7 / m5);
    assert!(m7 >= 1.3 * m5, "BC5 {m5:.4}° vs BC7 {m7:.4}°");
}

#[test]
fn ktx_parse_reads_bc4_bc5_and_bc6h() {
    let dir = tempfile::tempdir().unwrap();
    let png = {
        let img = image::RgbaImage::from_fn(40, 24, |x, y| {
            image::Rgba([(x * 6) as u8, (y * 10) as u8, 200, 255])
        });
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    };
    let exr = {
        let img = image::Rgba32FImage::from_fn(40, 24, |x, y| {
            image::Rgba([x as f32 * 10.0, y as f32 * 0.01, 2.0, 1.0])
        });
        let mut out = Vec::new();
        img.write_to(
            &mut std::io::Cursor::new(&mut out),
            image::ImageFormat::OpenExr,
        )
        .unwrap();
        out
    };
    let settings = |format, bc_zstd| TextureSettings {
        format,
        bc_zstd,
        ..TextureSettings::default()
    };
    // (name, file, vkFormat, DFD colour model, DFD samples, bytes a block)
    let mut cases = Vec::new();
    for zstd in [false, true] {
        for (format, mode, vk, model, samples, block) in [
            (TextureFormat::Bc4, TextureMode::Single, 139, 131, 1, 8),
            (TextureFormat::Bc5, TextureMode::Normal, 141, 132, 2, 16),
            (TextureFormat::Bc6h, TextureMode::Color, 143, 133, 1, 16),
        ] {
            let file = encode_texture(&png, None, mode, None, &settings(format, zstd)).unwrap();
            cases.push((
                format!("{format:?} zstd {zstd}"),
                file,
                vk,
                model,
                samples,
                block,
            ));
        }
        let hdr = encode_standalone(
            &StandaloneTexture::Image {
                bytes: &exr,
                ext: "exr",
            },
            TextureMode::Linear,
            &settings(TextureFormat::Bc6h, zstd),
        )
        .unwrap();
        cases.push((format!("exr Bc6h zstd {zstd}"), hdr, 143, 133, 1, 16));
    }
    let paths: Vec<_> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, file, ..))| {
            assert_eq!(ktx2::validate(file), vec![]);
            let p = dir.path().join(format!("{i}.ktx2"));
            std::fs::write(&p, file).unwrap();
            p
        })
        .collect();
    let Some(headers) = common::ktx_parse("bcn_formats", dir.path(), &paths) else {
        return;
    };
    for ((name, file, vk, model, samples, block), h) in cases.iter().zip(&headers) {
        let ours = ktx2::read(file).unwrap();
        let format = PixelFormat::from_vk_format(*vk, *model as u8).unwrap().0;
        assert_eq!(ours.pixel_format(), Some((format, false)), "{name}");
        assert_eq!(h["vkFormat"], *vk, "{name}");
        assert_eq!(h["typeSize"], 1, "{name}");
        assert_eq!(
            (h["pixelWidth"].clone(), h["pixelHeight"].clone()),
            (40.into(), 24.into()),
            "{name}"
        );
        assert_eq!(h["pixelDepth"], 0, "{name}");
        assert_eq!(h["faceCount"], 1, "{name}");
        assert_eq!(h["colorModel"], *model, "{name}");
        // Linear transfer: none of the three has an sRGB vkFormat.
        assert_eq!(h["transfer"], 1, "{name}");
        assert_eq!(h["samples"], *samples, "{name}");
        // Full chain 40x24 .. 1x1 = 6 levels, each ceil(w/4) x ceil(h/4) blocks.
        let expected: Vec<u64> = (0..6)
            .map(|l| {
                let (w, h) = ((40u64 >> l).max(1), (24u64 >> l).max(1));
                w.div_ceil(4) * h.div_ceil(4) * block
            })
            .collect();
        let levels: Vec<u64> = h["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(levels, expected, "{name}");
    }
}

/// Level 0 of a BC6H or RGBA16F `.ktx2` as linear RGB f32 (alpha dropped).
fn hdr_rgb(file: &[u8]) -> (u32, u32, Vec<[f32; 3]>) {
    let k = ktx2::read(file).unwrap();
    let (w, h) = (k.width as usize, k.height as usize);
    let data = &k.levels[0].data;
    let f16 = match k.pixel_format() {
        Some((PixelFormat::Rgba16f, _)) => data.clone(),
        Some((PixelFormat::Bc6h, _)) => {
            let bw = w.div_ceil(4);
            let mut out = vec![0u8; w * h * 8];
            for (i, block) in data.chunks_exact(16).enumerate() {
                let mut t = [0u8; 16 * 8];
                assetc::preview::texture::bc6h_rgba16f(block, &mut t, 32);
                for j in 0..16 {
                    let (x, y) = ((i % bw) * 4 + j % 4, (i / bw) * 4 + j / 4);
                    if x < w && y < h {
                        out[(y * w + x) * 8..][..8].copy_from_slice(&t[j * 8..][..8]);
                    }
                }
            }
            out
        }
        other => panic!("not an HDR format: {other:?}"),
    };
    let texels = f16
        .chunks_exact(8)
        .map(|t| {
            let c = |i: usize| half::f16::from_le_bytes([t[i * 2], t[i * 2 + 1]]).to_f32();
            [c(0), c(1), c(2)]
        })
        .collect();
    (k.width, k.height, texels)
}

/// BC6H's error on real HDR images in log space, the scale the eye and exposure work in:
/// per channel, e = log2(1 + b) - log2(1 + a), with `a` the RGBA16F texel (the exact f16
/// source the BC6H encoder was given) and `b` the BC6H texel; reported as mean |e| and
/// RMS of e, per channel (docs/performance.md defines it; the `1 +` keeps the values near
/// 0, where a relative error means nothing, from dominating). Measured on blender-data's
/// eight world panoramas, BC6H at the default quality: printed per panorama; asserted
/// per channel of every panorama, [`MAX_LOG_MEAN`] and [`MAX_LOG_RMS`] (the figures are
/// in docs/performance.md).
#[test]
fn bc6h_log_space_error_on_the_hdr_panoramas() {
    let Some(dir) = common::hdr_panoramas("bcn_formats") else {
        return;
    };
    let mut exrs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "exr"))
        .collect();
    exrs.sort();
    assert!(!exrs.is_empty(), "no .exr in {}", dir.display());
    let settings = |format| TextureSettings {
        format,
        mipmaps: false,
        ..TextureSettings::default()
    };
    let (mut sum_abs, mut sum_sq, mut n) = ([0f64; 3], [0f64; 3], 0usize);
    let (mut worst_mean, mut worst_rms) = (0f64, 0f64);
    for exr in &exrs {
        let bytes = std::fs::read(exr).unwrap();
        let encode = |format| {
            let image = StandaloneTexture::Image {
                bytes: &bytes,
                ext: "exr",
            };
            let file = encode_standalone(&image, TextureMode::Linear, &settings(format)).unwrap();
            assert_eq!(ktx2::validate(&file), vec![]);
            hdr_rgb(&file)
        };
        // `rgba8` is the format setting under which HDR images are written as RGBA16F.
        let (w, h, exact) = encode(TextureFormat::Rgba8);
        let (w6, h6, bc6h) = encode(TextureFormat::Bc6h);
        assert_eq!((w, h), (w6, h6));
        let (mut abs, mut sq) = ([0f64; 3], [0f64; 3]);
        for (a, b) in exact.iter().zip(&bc6h) {
            for c in 0..3 {
                let e = f64::from((1.0 + b[c]).log2() - (1.0 + a[c]).log2());
                abs[c] += e.abs();
                sq[c] += e * e;
            }
        }
        let texels = exact.len() as f64;
        let mean = abs.map(|v| v / texels);
        let rms = sq.map(|v| (v / texels).sqrt());
        eprintln!(
            "{} ({w}x{h}): log2 error mean |e| R {:.5} G {:.5} B {:.5}, RMS R {:.5} G {:.5} B {:.5}",
            exr.file_name().unwrap().to_string_lossy(),
            mean[0], mean[1], mean[2], rms[0], rms[1], rms[2]
        );
        worst_mean = worst_mean.max(mean.into_iter().fold(0.0, f64::max));
        worst_rms = worst_rms.max(rms.into_iter().fold(0.0, f64::max));
        for c in 0..3 {
            sum_abs[c] += abs[c];
            sum_sq[c] += sq[c];
        }
        n += exact.len();
    }
    let mean = sum_abs.map(|v| v / n as f64);
    let rms = sum_sq.map(|v| (v / n as f64).sqrt());
    eprintln!(
        "all {} panoramas: log2 error mean |e| R {:.5} G {:.5} B {:.5}, RMS R {:.5} G {:.5} B {:.5}",
        exrs.len(), mean[0], mean[1], mean[2], rms[0], rms[1], rms[2]
    );
    assert!(
        worst_mean < MAX_LOG_MEAN,
        "mean |e| {worst_mean:.5} in one channel"
    );
    assert!(worst_rms < MAX_LOG_RMS, "RMS {worst_rms:.5} in one channel");
}

/// Bounds of the log-space error, per channel of any one panorama. Measured (BC6H at the
/// default quality, intel_tex_2's very fast preset): mean |e| 0.0006 (studio) to 0.0138
/// (forest), RMS 0.006 to 0.185 (interior: RMS is dominated by a few texels, the edges of
/// small, very bright lights, where one block spans many stops). Asserted with about a
/// third of margin for the SIMD kernels intel_tex_2 picks at run time.
const MAX_LOG_MEAN: f64 = 0.02;
const MAX_LOG_RMS: f64 = 0.25;
