//! BC7 with rate-distortion optimisation (`texture.bc7_rdo_lambda`): on FlightHelmet's
//! textures, the file after zstd against plain BC7 with zstd, the PSNR it costs, the
//! files read by our validator and by ktx-parse, and the bytes independent of the thread
//! count.
//!
//! Needs the corpus (ASSETC_CORPUS) and node with ktx-parse (ASSETC_PEERS); each test
//! skips with a message when its inputs are missing, and fails under CI=true.

use crate::common;

use assetc::formats::ktx2;
use assetc::pipeline::textures::{
    build_levels, decode_image, encode_texture, texture_id, Bc7Preset, TextureFormat, TextureMode,
    TextureSettings,
};
use assetc::preview::texture::decode_ktx2;
use std::path::{Path, PathBuf};

/// The mode a FlightHelmet texture gets from its material slot.
fn mode_of(name: &str) -> TextureMode {
    if name.contains("BaseColor") {
        TextureMode::Color
    } else if name.contains("Normal") {
        TextureMode::Normal
    } else {
        TextureMode::Linear
    }
}

fn bc7(lambda: f32) -> TextureSettings {
    TextureSettings {
        format: TextureFormat::Bc7,
        bc_zstd: true,
        bc7_rdo_lambda: lambda,
        ..TextureSettings::default()
    }
}

/// One encode: the file, and level 0's PSNR (RGB) against the encoder's input. The file
/// must pass our validator.
fn measure(bytes: &[u8], mode: TextureMode, settings: &TextureSettings) -> (Vec<u8>, f64) {
    let input = build_levels(
        decode_image(bytes, None).expect("corpus image decodes"),
        mode,
        None,
        settings,
    )
    .remove(0);
    let file = encode_texture(bytes, None, mode, None, settings).unwrap();
    assert_eq!(ktx2::validate(&file), vec![]);
    let k = ktx2::read(&file).unwrap();
    let shown = decode_ktx2(&k, 0).unwrap();
    (file, common::psnr_rgb(&shown.rgba, &input.pixels))
}

fn flight_helmet_pngs(test: &str) -> Option<Vec<PathBuf>> {
    let dir = common::corpus_gltf(test)?.join("FlightHelmet");
    let mut pngs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pngs.sort();
    if pngs.is_empty() {
        common::missing(test, &format!("{}/*.png", dir.display()));
        return None;
    }
    Some(pngs)
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// The figures behind the lambda chosen for the docs: every FlightHelmet texture at each
/// lambda of ASSETC_RDO_LAMBDAS (default "0.1,0.2,0.29,0.4"), against plain BC7 with zstd.
/// `cargo test --release --test it bc7_rdo::sweep -- --ignored --nocapture`
#[test]
#[ignore = "measurement: prints figures, asserts nothing"]
fn sweep() {
    let Some(pngs) = flight_helmet_pngs("bc7_rdo") else {
        return;
    };
    let lambdas: Vec<f32> = std::env::var("ASSETC_RDO_LAMBDAS")
        .unwrap_or_else(|_| "0.1,0.2,0.29,0.4".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let sources: Vec<(String, Vec<u8>)> = pngs
        .iter()
        .map(|p| (name(p), std::fs::read(p).unwrap()))
        .collect();
    let plain: Vec<(usize, f64)> = sources
        .iter()
        .map(|(n, b)| {
            let (f, p) = measure(b, mode_of(n), &bc7(0.0));
            (f.len(), p)
        })
        .collect();
    // How much of the saving is zstd level 19 (what RDO files get) alone: plain BC7's
    // levels at 9 (the file) and at 19.
    let (mut at9, mut at19) = (0usize, 0usize);
    for (n, b) in &sources {
        let (f, _) = measure(b, mode_of(n), &bc7(0.0));
        for level in ktx2::read(&f).unwrap().levels {
            at9 += zstd::bulk::compress(&level.data, 9).unwrap().len();
            at19 += zstd::bulk::compress(&level.data, 19).unwrap().len();
        }
    }
    eprintln!(
        "plain BC7 levels: zstd 9 {at9} bytes, zstd 19 {at19} ({:.1}% smaller)",
        100.0 * (1.0 - at19 as f64 / at9 as f64)
    );
    // Plain BC7 from the preset the pass starts from (basic): what that preset alone
    // gives in bytes and PSNR against the default's very fast.
    let basic = TextureSettings {
        quality: Bc7Preset::Basic.quality(),
        ..bc7(0.0)
    };
    let (mut basic_bytes, mut gains) = (0usize, Vec::new());
    for ((n, b), (_, p0)) in sources.iter().zip(&plain) {
        let (f, p) = measure(b, mode_of(n), &basic);
        basic_bytes += f.len();
        if p0.is_finite() {
            gains.push(p - p0);
        }
    }
    eprintln!(
        "plain BC7 at the basic preset: {basic_bytes} bytes against {}, PSNR {:+.2} dB mean",
        plain.iter().map(|p| p.0).sum::<usize>(),
        gains.iter().sum::<f64>() / gains.len() as f64
    );
    for lambda in lambdas {
        let start = std::time::Instant::now();
        let (mut bytes0, mut bytes1, mut mse0, mut mse1) = (0usize, 0usize, 0f64, 0f64);
        let (mut drops, mut worst) = (Vec::new(), 0f64);
        for ((n, b), (len0, p0)) in sources.iter().zip(&plain) {
            let (f, p1) = measure(b, mode_of(n), &bc7(lambda));
            eprintln!(
                "lambda {lambda}: {n}: {len0} -> {} bytes ({:.1}%), {p0:.2} -> {p1:.2} dB",
                f.len(),
                100.0 * (1.0 - f.len() as f64 / *len0 as f64),
            );
            if p0.is_finite() {
                drops.push(p0 - p1);
                worst = worst.max(p0 - p1);
            }
            bytes0 += len0;
            bytes1 += f.len();
            mse0 += 10f64.powf(-p0 / 10.0);
            mse1 += 10f64.powf(-p1 / 10.0);
        }
        let k = sources.len() as f64;
        eprintln!(
            "lambda {lambda}: all: {bytes0} -> {bytes1} bytes ({:.1}% smaller), PSNR drop mean {:.2} dB, worst {worst:.2} dB, PSNR of the mean MSE {:.2} -> {:.2} dB, {:.1} s",
            100.0 * (1.0 - bytes1 as f64 / bytes0 as f64),
            drops.iter().sum::<f64>() / drops.len() as f64,
            -10.0 * (mse0 / k).log10(),
            -10.0 * (mse1 / k).log10(),
            start.elapsed().as_secs_f64()
        );
    }
}

/// Three FlightHelmet maps of the three classes (colour, normal, occlusion-roughness-
/// metal), 512², full mip chains, zstd: RDO BC7 at LAMBDA against plain BC7.
const SAMPLES: [&str; 3] = [
    "FlightHelmet_Materials_RubberWoodMat_BaseColor.png",
    "FlightHelmet_Materials_RubberWoodMat_Normal.png",
    "FlightHelmet_Materials_GlassPlasticMat_OcclusionRoughMetal.png",
];

/// The lambda docs/textures.md suggests and the tests use.
const LAMBDA: f32 = 0.29;
/// Bounds asserted on SAMPLES at LAMBDA. Measured: colour 16.4% smaller for 1.50 dB,
/// normal map 39.9% for 1.52 dB, occlusion-roughness-metal 23.3% for 0.73 dB; 26.2% over
/// the three for a mean drop of 1.25 dB. These three lose more than FlightHelmet's 15 do
/// on average (the aim's figure, 25.3% smaller for a mean drop of 0.97 dB, is the
/// sweep's over all 15: docs/textures.md; 90 s in a test build, too long for every run).
/// Asserted: at least 23% (3 points of margin: intel_tex_2 picks its SIMD kernels at run
/// time, so another machine's blocks, and the pass's choices, may differ a little), a
/// mean drop within 1.4 dB and no texture above 1.8 dB.
const MIN_SAVED: f64 = 0.23;
const MAX_MEAN_DROP: f64 = 1.4;
const MAX_DROP: f64 = 1.8;
/// The strongest lambda accepted.
const MAX_LAMBDA_TESTED: f32 = 10.0;

#[test]
fn rdo_bc7_is_smaller_after_zstd_at_a_bounded_psnr_loss() {
    let Some(pngs) = flight_helmet_pngs("bc7_rdo") else {
        return;
    };
    let (mut plain_bytes, mut rdo_bytes, mut drops) = (0usize, 0usize, Vec::new());
    for sample in SAMPLES {
        let Some(path) = pngs.iter().find(|p| name(p) == sample) else {
            common::missing("bc7_rdo", sample);
            return;
        };
        let bytes = std::fs::read(path).unwrap();
        let mode = mode_of(sample);
        let (plain, p0) = measure(&bytes, mode, &bc7(0.0));
        let (rdo, p1) = measure(&bytes, mode, &bc7(LAMBDA));
        eprintln!(
            "{sample}: {} -> {} bytes ({:.1}% smaller), {p0:.2} -> {p1:.2} dB",
            plain.len(),
            rdo.len(),
            100.0 * (1.0 - rdo.len() as f64 / plain.len() as f64)
        );
        // Same container and format: BC7 (sRGB for colour), zstd, full chain.
        let (k0, k1) = (ktx2::read(&plain).unwrap(), ktx2::read(&rdo).unwrap());
        assert_eq!(k0.pixel_format(), k1.pixel_format(), "{sample}");
        assert_eq!(k0.levels.len(), k1.levels.len(), "{sample}");
        assert!(rdo.len() < plain.len(), "{sample}: not smaller");
        plain_bytes += plain.len();
        rdo_bytes += rdo.len();
        drops.push(p0 - p1);
    }
    let saved = 1.0 - rdo_bytes as f64 / plain_bytes as f64;
    let mean_drop = drops.iter().sum::<f64>() / drops.len() as f64;
    eprintln!(
        "all three: {:.1}% smaller, mean PSNR drop {mean_drop:.2} dB",
        100.0 * saved
    );
    assert!(saved >= MIN_SAVED, "{:.1}% smaller", 100.0 * saved);
    assert!(mean_drop <= MAX_MEAN_DROP, "mean drop {mean_drop:.2} dB");
    assert!(
        drops.iter().all(|&d| d <= MAX_DROP),
        "a drop above {MAX_DROP} dB: {drops:?}"
    );
}

/// Settings that do not write BC7 ignore the lambda: same file, same texture id.
#[test]
fn the_lambda_changes_only_bc7() {
    let src = {
        let img = image::RgbaImage::from_fn(24, 20, |x, y| {
            image::Rgba([(x * 10) as u8, (y * 12) as u8, ((x ^ y) * 9) as u8, 255])
        });
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    };
    for format in [
        TextureFormat::Uastc,
        TextureFormat::Bc1,
        TextureFormat::Bc5,
        TextureFormat::Rgba8,
    ] {
        let off = TextureSettings {
            format,
            ..TextureSettings::default()
        };
        let on = TextureSettings {
            bc7_rdo_lambda: 4.0,
            ..off
        };
        let mode = TextureMode::Linear;
        assert_eq!(
            encode_texture(&src, None, mode, None, &off).unwrap(),
            encode_texture(&src, None, mode, None, &on).unwrap(),
            "{format:?}"
        );
        assert_eq!(
            texture_id(&src, mode, None, &off),
            texture_id(&src, mode, None, &on)
        );
    }
    // BC7: a new id, so a cache never takes one for the other.
    assert_ne!(
        texture_id(&src, TextureMode::Linear, None, &bc7(0.0)),
        texture_id(&src, TextureMode::Linear, None, &bc7(4.0))
    );
}

/// MASK materials: the pass moves no texel across the alpha cutoff (each candidate is
/// compared with the encoder's own block), so every level's coverage is what plain BC7
/// gives from the preset the pass starts from (basic, at least: plain BC7 at quality 0.85
/// is compared). A noisy alpha around the cutoff with a strong lambda, where many blocks
/// are replaced (asserted: the files differ).
#[test]
fn rdo_keeps_which_texels_pass_the_alpha_cutoff() {
    let src = {
        let img = image::RgbaImage::from_fn(64, 64, |x, y| {
            let n = (x * 7 + y * 13 + (x * y) % 11) % 40;
            image::Rgba([(x * 4) as u8, (y * 4) as u8, 128, (108 + n * 2) as u8])
        });
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    };
    let cutoff = Some(0.5);
    let mode = TextureMode::Color;
    let basic = TextureSettings {
        quality: Bc7Preset::Basic.quality(),
        ..bc7(0.0)
    };
    let plain = encode_texture(&src, None, mode, cutoff, &basic).unwrap();
    let rdo = encode_texture(&src, None, mode, cutoff, &bc7(MAX_LAMBDA_TESTED)).unwrap();
    assert_ne!(
        plain, rdo,
        "the pass changed nothing: the test proves nothing"
    );
    let (k0, k1) = (ktx2::read(&plain).unwrap(), ktx2::read(&rdo).unwrap());
    for level in 0..k0.levels.len() {
        let a = decode_ktx2(&k0, level).unwrap().rgba;
        let b = decode_ktx2(&k1, level).unwrap().rgba;
        let above = |t: &[u8]| -> Vec<bool> { t.chunks_exact(4).map(|p| p[3] > 127).collect() };
        assert_eq!(above(&a), above(&b), "level {level}");
    }
}

/// FlightHelmet through the CLI with RDO BC7 from build.toml, at -j1 and -j3: the trees
/// are byte-identical (the pass walks each level in one order on one thread), every
/// texture is BC7 with zstd, our validator accepts it and ktx-parse reads it.
#[test]
fn rdo_bc7_builds_the_same_on_any_thread_count_and_ktx_parse_reads_it() {
    let Some(gltf) = common::corpus_gltf("bc7_rdo") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("build.toml");
    // 256² keeps the debug-build time down; the pass is the same at any size.
    std::fs::write(
        &config,
        format!("[texture]\nformat = \"bc7\"\nbc_zstd = true\nbc7_rdo_lambda = {LAMBDA}\nmax_size = 256\n"),
    )
    .unwrap();
    let trees: Vec<Vec<(String, Vec<u8>)>> = ["1", "3"]
        .iter()
        .map(|jobs| {
            let out = dir.path().join(format!("out{jobs}"));
            let r = common::assetc(&[
                "build",
                gltf.join("FlightHelmet").to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-j",
                jobs,
                "--no-cache",
                "--config",
                config.to_str().unwrap(),
            ]);
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            common::tree(&out)
                .into_iter()
                .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
                .collect()
        })
        .collect();
    assert!(trees[0] == trees[1], "-j1 and -j3 differ");
    let textures: Vec<(String, Vec<u8>)> = trees[0]
        .iter()
        .filter(|(n, _)| n.ends_with(".ktx2"))
        .cloned()
        .collect();
    assert!(textures.len() >= 15, "{} textures", textures.len());
    let scratch = dir.path().join("ktx");
    std::fs::create_dir(&scratch).unwrap();
    let paths: Vec<PathBuf> = textures
        .iter()
        .enumerate()
        .map(|(i, (n, bytes))| {
            assert_eq!(ktx2::validate(bytes), vec![], "{n}");
            let p = scratch.join(format!("{i}.ktx2"));
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect();
    let Some(headers) = common::ktx_parse("bc7_rdo", &scratch, &paths) else {
        return;
    };
    for ((n, _), h) in textures.iter().zip(&headers) {
        // VK_FORMAT_BC7_UNORM_BLOCK 145 or _SRGB_BLOCK 146; scheme 2 = zstd.
        assert!(h["vkFormat"] == 145 || h["vkFormat"] == 146, "{n}: {h}");
        assert_eq!(h["scheme"], 2, "{n}");
        // A full chain: floor(log2(longest side)) + 1 levels.
        let side = h["pixelWidth"]
            .as_u64()
            .unwrap()
            .max(h["pixelHeight"].as_u64().unwrap());
        assert_eq!(h["levelCount"], u64::from(side.ilog2()) + 1, "{n}");
    }
}
