//! Every texture format and mode, encoded from corpus images, read back by our reader and
//! by the ktx-parse npm package, with the decoded level 0 compared to the encoder's input.
//!
//! Needs the corpus (ASSETC_CORPUS, default ../shared/corpus) and, for the peer half, node
//! with ktx-parse (ASSETC_PEERS, default /opt/assetc-peers); each half skips with a message
//! when its inputs are missing. Full-size quality and throughput figures come from
//! `cargo bench --bench textures` (docs/textures.md).

use crate::common;

use assetc::formats::ktx2::{self, AstcBlock, PixelFormat};
use assetc::pipeline::textures::{
    build_levels, decode_image, decode_uastc_rgba, encode_texture, RgbaLevel, TextureFormat,
    TextureMode, TextureSettings,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const FORMATS: [TextureFormat; 5] = [
    TextureFormat::Uastc,
    TextureFormat::Bc7,
    TextureFormat::Bc1,
    TextureFormat::Bc3,
    TextureFormat::Rgba8,
];

fn corpus() -> Option<PathBuf> {
    common::corpus("ktx2_peers")
}

/// Loose corpus images with the mode their file name implies.
fn samples(corpus: &Path) -> Vec<(PathBuf, TextureMode)> {
    [
        (
            "gltf/FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_BaseColor.png",
            TextureMode::Color,
        ),
        (
            "gltf/FlightHelmet/FlightHelmet_Materials_RubberWoodMat_BaseColor.png",
            TextureMode::Color,
        ),
        (
            "gltf/MixedLightingExample/SheenChairBaseColor.jpg",
            TextureMode::Color,
        ),
        (
            "gltf/FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_Normal.png",
            TextureMode::Normal,
        ),
        (
            "gltf/FlightHelmet/FlightHelmet_Materials_MetalPartsMat_OcclusionRoughMetal.png",
            TextureMode::Linear,
        ),
    ]
    .into_iter()
    .map(|(p, m)| (corpus.join(p), m))
    .filter(|(p, _)| p.is_file())
    .collect()
}

/// Level 0 decoded back to RGBA8.
fn decode_level0(k: &ktx2::Ktx2) -> Vec<u8> {
    let (w, h) = (k.width as usize, k.height as usize);
    let data = &k.levels[0].data;
    let (format, _) = k.pixel_format().expect("assetc format");
    if format == PixelFormat::Rgba8 {
        return data.clone();
    }
    if format == PixelFormat::Uastc {
        let alpha = k.dfd.samples[0].channel_type & 0x0f == ktx2::CHANNEL_UASTC_RGBA;
        return decode_uastc_rgba(data, k.width, k.height, alpha).expect("UASTC decodes");
    }
    let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
    let block_bytes = format.block().bytes as usize;
    let mut padded = vec![0u8; bw * 4 * bh * 4 * 4];
    let pitch = bw * 4 * 4;
    for by in 0..bh {
        for bx in 0..bw {
            let block = &data[(by * bw + bx) * block_bytes..][..block_bytes];
            let out = &mut padded[by * 4 * pitch + bx * 16..];
            match format {
                PixelFormat::Bc1 => bcdec_rs::bc1(block, out, pitch),
                PixelFormat::Bc3 => bcdec_rs::bc3(block, out, pitch),
                _ => bcdec_rs::bc7(block, out, pitch),
            }
        }
    }
    (0..h)
        .flat_map(|y| padded[y * pitch..][..w * 4].to_vec())
        .collect()
}

fn level0_input(bytes: &[u8], mode: TextureMode, s: &TextureSettings) -> RgbaLevel {
    let img = decode_image(bytes, None).expect("corpus image decodes");
    build_levels(
        img,
        mode,
        None,
        &TextureSettings {
            mipmaps: false,
            ..*s
        },
    )
    .remove(0)
}

/// Our reader's view, checked against what the settings imply.
fn check_ours(name: &str, file: &[u8], format: TextureFormat, mode: TextureMode) -> ktx2::Ktx2 {
    assert_eq!(ktx2::validate(file), vec![], "{name}");
    let k = ktx2::read(file).expect("our reader reads what we write");
    let srgb = mode == TextureMode::Color;
    assert_eq!(
        k.pixel_format(),
        Some((format.pixel_format(AstcBlock::default()), srgb)),
        "{name}"
    );
    assert_eq!(
        k.levels.len() as u32,
        ktx2::full_mip_count(k.width, k.height),
        "{name}"
    );
    let block = format.pixel_format(AstcBlock::default()).block();
    for (i, level) in k.levels.iter().enumerate() {
        let expected = block.level_bytes(k.width, k.height, i as u32, 1).unwrap();
        assert_eq!(level.uncompressed_byte_length, expected, "{name} level {i}");
        assert_eq!(level.data.len() as u64, expected, "{name} level {i}");
        if k.supercompression == ktx2::SUPERCOMPRESSION_ZSTD {
            // Independently of our reader: the stored bytes inflate to exactly that size.
            let stored = &file[level.byte_offset as usize..][..level.byte_length as usize];
            let inflated = zstd::stream::decode_all(stored).expect("zstd level");
            assert_eq!(inflated.len() as u64, expected, "{name} level {i}");
        }
    }
    k
}

struct Expect {
    name: String,
    vk_format: u32,
    color_model: u8,
    transfer: u8,
    scheme: u32,
    levels: Vec<(u64, u64)>,
}

/// ktx-parse's module, when it and node are installed; else reports what is missing
/// (a failure under CI=true) and gives None.
fn ktx_parse_module(test: &str) -> Option<PathBuf> {
    let peers = std::env::var_os("ASSETC_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/assetc-peers"));
    let module = peers.join("node_modules/ktx-parse/dist/index.mjs");
    if !module.is_file() || Command::new("node").arg("--version").output().is_err() {
        common::missing(
            test,
            &format!("node or ktx-parse ({}; set ASSETC_PEERS)", module.display()),
        );
        return None;
    }
    Some(module)
}

fn check_peer(dir: &Path, files: &[(PathBuf, Expect)]) {
    let Some(module) = ktx_parse_module("ktx2_peers") else {
        return;
    };
    let script = dir.join("peer.mjs");
    std::fs::write(
        &script,
        format!(
            r#"import {{ read }} from {module:?};
import {{ readFileSync }} from 'node:fs';
for (const f of process.argv.slice(2)) {{
  const k = read(new Uint8Array(readFileSync(f)));
  const d = k.dataFormatDescriptor[0];
  const kv = k.keyValue;
  console.log(JSON.stringify({{ vkFormat: k.vkFormat, scheme: k.supercompressionScheme,
    colorModel: d.colorModel, transfer: d.transferFunction,
    orientation: kv.KTXorientation, writer: kv.KTXwriter,
    levels: k.levels.map(l => [l.levelData.byteLength, l.uncompressedByteLength]) }}));
}}
"#,
            module = format!("file://{}", module.display())
        ),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(&script)
        .args(files.iter().map(|(p, _)| p))
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "ktx-parse failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), files.len());
    for (line, (_, e)) in lines.iter().zip(files) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["vkFormat"], e.vk_format, "{}", e.name);
        assert_eq!(v["scheme"], e.scheme, "{}", e.name);
        assert_eq!(v["colorModel"], e.color_model, "{}", e.name);
        assert_eq!(v["transfer"], e.transfer, "{}", e.name);
        assert_eq!(v["orientation"], "rd", "{}", e.name);
        assert!(
            v["writer"].as_str().unwrap_or("").starts_with("assetc "),
            "{}",
            e.name
        );
        let levels: Vec<(u64, u64)> = v["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l[0].as_u64().unwrap(), l[1].as_u64().unwrap()))
            .collect();
        assert_eq!(levels, e.levels, "{}", e.name);
    }
}

#[test]
fn corpus_textures_read_back_by_us_and_ktx_parse() {
    let Some(corpus) = corpus() else {
        return;
    };
    let samples = samples(&corpus);
    if samples.is_empty() {
        common::missing("ktx2_peers", "the corpus images (gltf/FlightHelmet/*.png)");
        return;
    }
    // Every format at the default settings and full size, plus RDO UASTC (quality 0.25,
    // downscaled to keep the test quick: RDO is the slow path) for the zstd-19 files.
    let mut variants: Vec<(TextureFormat, TextureSettings)> = FORMATS
        .iter()
        .map(|&format| {
            (
                format,
                TextureSettings {
                    format,
                    ..TextureSettings::default()
                },
            )
        })
        .collect();
    variants.push((
        TextureFormat::Uastc,
        TextureSettings {
            quality: 0.25,
            max_size: 256,
            ..TextureSettings::default()
        },
    ));
    let dir = tempfile::tempdir().unwrap();
    let mut written = Vec::new();
    let mut psnr: Vec<(TextureFormat, TextureMode, f64)> = Vec::new();
    let mut rdo_psnr = Vec::new();
    for (index, (path, natural_mode)) in samples.iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        for &(format, s) in &variants {
            let rdo = s.quality < TextureSettings::default().quality;
            if rdo && *natural_mode != TextureMode::Color {
                continue;
            }
            // The first sample goes through every mode, the others through their own.
            let modes = if index == 0 && !rdo {
                vec![TextureMode::Color, TextureMode::Linear, TextureMode::Normal]
            } else {
                vec![*natural_mode]
            };
            for mode in modes {
                let name = format!("{stem}.{}.{}.q{}", format.name(), mode.name(), s.quality);
                let file = encode_texture(&bytes, None, mode, None, &s).expect(&name);
                let k = check_ours(&name, &file, format, mode);
                let input = level0_input(&bytes, mode, &s);
                let decoded = decode_level0(&k);
                let p = common::psnr_rgb(&input.pixels, &decoded);
                if format == TextureFormat::Rgba8 {
                    assert_eq!(decoded, input.pixels, "{name}: rgba8 is pixel-exact");
                }
                if rdo {
                    // Against the same image at the same size without RDO: smaller level 0.
                    let plain = TextureSettings {
                        quality: TextureSettings::default().quality,
                        ..s
                    };
                    let plain = encode_texture(&bytes, None, mode, None, &plain).expect(&name);
                    let plain = ktx2::read(&plain).unwrap();
                    assert!(
                        k.levels[0].byte_length < plain.levels[0].byte_length,
                        "{name}: RDO level 0 {} bytes, plain {}",
                        k.levels[0].byte_length,
                        plain.levels[0].byte_length
                    );
                    rdo_psnr.push((name.clone(), p));
                } else {
                    psnr.push((format, mode, p));
                }
                let out = dir.path().join(format!("{name}.ktx2"));
                std::fs::write(&out, &file).unwrap();
                written.push((
                    out,
                    Expect {
                        name,
                        vk_format: k.vk_format,
                        color_model: format_model(format),
                        transfer: if mode == TextureMode::Color { 2 } else { 1 },
                        scheme: k.supercompression,
                        levels: k
                            .levels
                            .iter()
                            .map(|l| (l.byte_length, l.uncompressed_byte_length))
                            .collect(),
                    },
                ));
            }
        }
    }
    let average = |f: TextureFormat| {
        let v: Vec<f64> = psnr
            .iter()
            .filter(|(pf, m, _)| *pf == f && *m == TextureMode::Color)
            .map(|p| p.2)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    for f in FORMATS {
        eprintln!(
            "{:>6}: average colour PSNR {:.2} dB (default settings)",
            f.name(),
            average(f)
        );
    }
    assert!(
        average(TextureFormat::Bc7) >= 42.0,
        "bc7 {:.2} dB",
        average(TextureFormat::Bc7)
    );
    assert!(
        average(TextureFormat::Uastc) >= 40.0,
        "uastc {:.2} dB",
        average(TextureFormat::Uastc)
    );
    // RDO trades quality for size, but within reason: lambda 1.75 measured 42.5 dB on
    // average and 37 dB at worst over the corpus colour images (docs/textures.md).
    assert!(!rdo_psnr.is_empty());
    for (name, p) in &rdo_psnr {
        eprintln!("{name}: {p:.2} dB");
        assert!(*p >= 35.0, "{name}: {p:.2} dB");
    }
    check_peer(dir.path(), &written);
}

fn format_model(f: TextureFormat) -> u8 {
    match f {
        TextureFormat::Uastc => ktx2::MODEL_UASTC,
        TextureFormat::Bc7 => ktx2::MODEL_BC7,
        TextureFormat::Bc1 => ktx2::MODEL_BC1A,
        TextureFormat::Bc3 => ktx2::MODEL_BC3,
        TextureFormat::Bc4 => ktx2::MODEL_BC4,
        TextureFormat::Bc5 => ktx2::MODEL_BC5,
        TextureFormat::Bc6h => ktx2::MODEL_BC6H,
        TextureFormat::Astc => ktx2::MODEL_ASTC,
        TextureFormat::Rgba8 => ktx2::MODEL_RGBSDA,
    }
}

/// What ktx-parse must report for one of our cube, 3D or RGBA16F files: every value
/// worked out from the KTX 2.0 spec for the shape written, not read back from our reader.
struct ShapeExpect {
    name: &'static str,
    vk_format: u64,
    type_size: u64,
    size: [u64; 3],
    face_count: u64,
    level_count: u64,
    color_model: u64,
    /// Per sample: channelType, sampleLower, sampleUpper (as unsigned bits).
    samples: Vec<(u64, u64, u64)>,
    uncompressed: Vec<u64>,
}

fn rgba8_samples(srgb: bool) -> Vec<(u64, u64, u64)> {
    let alpha = if srgb { 0x1F } else { 0x0F };
    vec![(0, 0, 255), (1, 0, 255), (2, 0, 255), (alpha, 0, 255)]
}

#[test]
fn cube_volume_and_rgba16f_read_by_ktx_parse() {
    let Some(module) = ktx_parse_module("ktx2_peers (shapes)") else {
        return;
    };
    let side = 16u32;
    let cube = ktx2::Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: true,
        has_alpha: false,
        width: side,
        height: side,
        depth: 0,
        faces: 6,
        levels: (0..5)
            .map(|l| {
                // Face f of every level is filled with f, so the face order shows.
                let face = ((side >> l) * (side >> l) * 4) as usize;
                (0..6u8).flat_map(|f| vec![f; face]).collect()
            })
            .collect(),
        zstd_level: Some(3),
    };
    // A 4x4x4 LUT-like volume, texel (x, y, z) = [x, y, z, level], red fastest.
    let volume = ktx2::Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: true,
        width: 4,
        height: 4,
        depth: 4,
        faces: 1,
        levels: (0..3u8)
            .map(|l| {
                let n = 4u8 >> l;
                (0..n)
                    .flat_map(|z| (0..n).flat_map(move |y| (0..n).flat_map(move |x| [x, y, z, l])))
                    .collect()
            })
            .collect(),
        zstd_level: None,
    };
    // 8x4 RGBA16F, every texel (1.0, 2.0, -0.5, 1.0) as half floats.
    let texel: Vec<u8> = [0x3C00u16, 0x4000, 0xB800, 0x3C00]
        .iter()
        .flat_map(|h| h.to_le_bytes())
        .collect();
    let hdr = ktx2::Ktx2Image {
        format: PixelFormat::Rgba16f,
        srgb: false,
        has_alpha: true,
        width: 8,
        height: 4,
        depth: 0,
        faces: 1,
        levels: (0..4)
            .map(|l| texel.repeat(((8 >> l) * (4u32 >> l).max(1)) as usize))
            .collect(),
        zstd_level: Some(3),
    };
    let float = |c: u64| (c | 0xC0, 0xBF80_0000, 0x3F80_0000);
    let expects = [
        ShapeExpect {
            name: "cube",
            vk_format: 43,
            type_size: 1,
            size: [16, 16, 0],
            face_count: 6,
            level_count: 5,
            color_model: 1,
            samples: rgba8_samples(true),
            uncompressed: (0..5).map(|l| 6 * (16u64 >> l).pow(2) * 4).collect(),
        },
        ShapeExpect {
            name: "volume",
            vk_format: 37,
            type_size: 1,
            size: [4, 4, 4],
            face_count: 1,
            level_count: 3,
            color_model: 1,
            samples: rgba8_samples(false),
            uncompressed: vec![4 * 4 * 4 * 4, 2 * 2 * 2 * 4, 4],
        },
        ShapeExpect {
            name: "rgba16f",
            vk_format: 97,
            type_size: 2,
            size: [8, 4, 0],
            face_count: 1,
            level_count: 4,
            color_model: 1,
            samples: vec![float(0), float(1), float(2), float(15)],
            uncompressed: vec![8 * 4 * 8, 4 * 2 * 8, 2 * 8, 8],
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (image, e) in [&cube, &volume, &hdr].into_iter().zip(&expects) {
        let bytes = ktx2::write(image).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        assert_eq!(ktx2::validate(&bytes), vec![], "{}", e.name);
        let path = dir.path().join(format!("{}.ktx2", e.name));
        std::fs::write(&path, &bytes).unwrap();
        paths.push(path);
    }
    let script = dir.path().join("shapes.mjs");
    std::fs::write(
        &script,
        format!(
            r#"import {{ read }} from {module:?};
import {{ readFileSync }} from 'node:fs';
for (const f of process.argv.slice(2)) {{
  const k = read(new Uint8Array(readFileSync(f)));
  const d = k.dataFormatDescriptor[0];
  console.log(JSON.stringify({{ vkFormat: k.vkFormat, typeSize: k.typeSize,
    size: [k.pixelWidth, k.pixelHeight, k.pixelDepth], layerCount: k.layerCount,
    faceCount: k.faceCount, levelCount: k.levelCount, colorModel: d.colorModel,
    samples: d.samples.map(s => [s.channelType, s.sampleLower >>> 0, s.sampleUpper >>> 0]),
    uncompressed: k.levels.map(l => l.uncompressedByteLength),
    supercompression: k.supercompressionScheme,
    level0: k.supercompressionScheme === 0 ? Array.from(k.levels[0].levelData) : null }}));
}}
"#,
            module = format!("file://{}", module.display())
        ),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(&script)
        .args(&paths)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "ktx-parse failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), expects.len());
    let u = |v: &serde_json::Value| v.as_u64().unwrap();
    for (line, e) in lines.iter().zip(&expects) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let n = e.name;
        assert_eq!(u(&v["vkFormat"]), e.vk_format, "{n}");
        assert_eq!(u(&v["typeSize"]), e.type_size, "{n}");
        let size: Vec<u64> = v["size"].as_array().unwrap().iter().map(u).collect();
        assert_eq!(size, e.size, "{n}");
        assert_eq!(u(&v["layerCount"]), 0, "{n}");
        assert_eq!(u(&v["faceCount"]), e.face_count, "{n}");
        assert_eq!(u(&v["levelCount"]), e.level_count, "{n}");
        assert_eq!(u(&v["colorModel"]), e.color_model, "{n}");
        let samples: Vec<(u64, u64, u64)> = v["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (u(&s[0]), u(&s[1]), u(&s[2])))
            .collect();
        assert_eq!(samples, e.samples, "{n}");
        let uncompressed: Vec<u64> = v["uncompressed"]
            .as_array()
            .unwrap()
            .iter()
            .map(u)
            .collect();
        assert_eq!(uncompressed, e.uncompressed, "{n}");
    }
    // The uncompressed volume's level 0 as ktx-parse located it: red fastest, then rows,
    // then slices.
    let level0: Vec<u8> = serde_json::from_str::<serde_json::Value>(lines[1]).unwrap()["level0"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u(b) as u8)
        .collect();
    assert_eq!(level0.len(), 256);
    for (z, y, x) in [(0usize, 0usize, 1usize), (1, 2, 3), (3, 3, 3), (2, 0, 1)] {
        let at = ((z * 4 + y) * 4 + x) * 4;
        assert_eq!(&level0[at..at + 4], &[x as u8, y as u8, z as u8, 0]);
    }
}
