//! The measurement behind the quality -> encoder-settings mapping (ignored: it takes
//! minutes). For each codec setting it encodes level 0 of the loose corpus images and
//! prints CPU time per megapixel, RGB PSNR against the source and the zstd-compressed size
//! per zstd level, as Markdown:
//!
//! `cargo test --lib pipeline::textures::tuning -- --ignored --nocapture`
//!
//! CPU time (not wall time) because the build machines are shared.

use super::encode_bc::{self, Bc7Preset};
use super::encode_uastc::{self, decode_uastc_rgba, UastcKnobs};
use super::{decode_image, RgbaLevel, TextureFormat, TextureMode};
use std::path::{Path, PathBuf};

/// CPU time this thread has used, in seconds (Linux schedstat; wall time elsewhere).
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 * 1e-9)
        .unwrap_or_else(|| {
            use std::sync::OnceLock;
            static START: OnceLock<std::time::Instant> = OnceLock::new();
            START
                .get_or_init(std::time::Instant::now)
                .elapsed()
                .as_secs_f64()
        })
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = thread_cpu_seconds();
    let value = f();
    (value, thread_cpu_seconds() - start)
}

fn corpus_images() -> Vec<(PathBuf, TextureMode)> {
    let root = std::env::var_os("ASSETC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus"))
        .join("gltf");
    let mut out: Vec<(PathBuf, TextureMode)> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            ["png", "jpg", "jpeg"].contains(&ext.to_ascii_lowercase().as_str())
        })
        .map(|p| {
            let name = p.to_string_lossy().to_ascii_lowercase();
            let mode = if name.contains("basecolor") {
                TextureMode::Color
            } else if name.contains("normal") {
                TextureMode::Normal
            } else {
                TextureMode::Linear
            };
            (p, mode)
        })
        .collect();
    out.sort();
    out
}

fn psnr_rgb(a: &[u8], b: &[u8]) -> f64 {
    let (mut sum, mut n) = (0f64, 0usize);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for c in 0..3 {
            let d = f64::from(pa[c]) - f64::from(pb[c]);
            sum += d * d;
            n += 1;
        }
    }
    if sum == 0.0 {
        return 99.0;
    }
    10.0 * (255.0f64 * 255.0 / (sum / n as f64)).log10()
}

fn decode_bc7(blocks: &[u8], w: u32, h: u32) -> Vec<u8> {
    let (bw, bh) = (w.div_ceil(4) as usize, h.div_ceil(4) as usize);
    let pitch = bw * 16;
    let mut padded = vec![0u8; pitch * bh * 4];
    for by in 0..bh {
        for bx in 0..bw {
            let block = &blocks[(by * bw + bx) * 16..][..16];
            bcdec_rs::bc7(block, &mut padded[by * 4 * pitch + bx * 16..], pitch);
        }
    }
    (0..h as usize)
        .flat_map(|y| padded[y * pitch..][..w as usize * 4].to_vec())
        .collect()
}

const ZSTD_LEVELS: [i32; 5] = [3, 6, 9, 15, 19];

#[derive(Default)]
struct Row {
    mpx: f64,
    cpu: f64,
    psnr: Vec<f64>,
    raw: usize,
    zstd: [(usize, f64); ZSTD_LEVELS.len()],
}

impl Row {
    fn add(&mut self, level: &RgbaLevel, blocks: &[u8], decoded: &[u8], cpu: f64) {
        self.mpx += f64::from(level.width) * f64::from(level.height) / 1e6;
        self.cpu += cpu;
        self.psnr.push(psnr_rgb(&level.pixels, decoded));
        self.raw += blocks.len();
        for (slot, &z) in self.zstd.iter_mut().zip(&ZSTD_LEVELS) {
            let (packed, t) = timed(|| zstd::bulk::compress(blocks, z).unwrap_or_default());
            slot.0 += packed.len();
            slot.1 += t;
        }
    }

    fn print(&self, name: &str, mode: &str) {
        let psnr = self.psnr.iter().sum::<f64>() / self.psnr.len().max(1) as f64;
        let zstd: Vec<String> = self
            .zstd
            .iter()
            .map(|(size, t)| {
                format!(
                    "{:.1}% {:.0}",
                    *size as f64 * 100.0 / self.raw as f64,
                    self.mpx / t
                )
            })
            .collect();
        println!(
            "| {name} | {mode} | {} | {:.3} | {:.2} | {psnr:.2} | {} |",
            self.psnr.len(),
            self.mpx,
            self.mpx / self.cpu,
            zstd.join(" | ")
        );
    }
}

/// Encodes one level in a mode: (blocks, blocks decoded to RGBA8, CPU seconds).
type Encoder<'a> = dyn Fn(TextureMode, &RgbaLevel) -> (Vec<u8>, Vec<u8>, f64) + 'a;

#[test]
#[ignore]
fn encoder_settings_sweep() {
    let images = corpus_images();
    if images.is_empty() {
        eprintln!("skipped: corpus not found");
        return;
    }
    let only = std::env::var("ASSETC_TUNING_ONLY").unwrap_or_default();
    let levels: Vec<(TextureMode, RgbaLevel)> = images
        .iter()
        .filter_map(|(path, mode)| {
            let img = decode_image(&std::fs::read(path).ok()?, None).ok()?;
            Some((
                *mode,
                RgbaLevel {
                    width: img.width,
                    height: img.height,
                    pixels: img.pixels,
                },
            ))
        })
        .collect();
    let zstd_head: Vec<String> = ZSTD_LEVELS
        .iter()
        .map(|z| format!("zstd {z}: size, Mpx/s"))
        .collect();
    println!(
        "| setting | mode | images | Mpx | encode Mpx/s (CPU) | PSNR RGB dB | {} |",
        zstd_head.join(" | ")
    );
    println!(
        "|---|---|---:|---:|---:|---:|{}",
        "---:|".repeat(ZSTD_LEVELS.len())
    );
    let modes = [TextureMode::Color, TextureMode::Normal, TextureMode::Linear];
    let run = |name: &str, encode: &Encoder<'_>| {
        if !only.is_empty() && !name.contains(only.as_str()) {
            return;
        }
        for mode in modes {
            let mut row = Row::default();
            for (_, level) in levels.iter().filter(|(m, _)| *m == mode) {
                let (blocks, decoded, cpu) = encode(mode, level);
                row.add(level, &blocks, &decoded, cpu);
            }
            row.print(name, mode.name());
        }
    };
    for (pack_level, rdo_lambda) in [
        (0, None),
        (1, None),
        (2, None),
        (0, Some(0.5)),
        (0, Some(1.0)),
        (0, Some(2.0)),
        (1, Some(1.0)),
    ] {
        let knobs = UastcKnobs {
            pack_level,
            rdo_lambda,
        };
        let name = match rdo_lambda {
            Some(l) => format!("uastc L{pack_level} rdo {l}"),
            None => format!("uastc L{pack_level}"),
        };
        run(&name, &|mode, level| {
            let (blocks, cpu) = timed(|| {
                encode_uastc::encode(std::slice::from_ref(level), mode, knobs)
                    .unwrap()
                    .remove(0)
            });
            let has_alpha = level.pixels.chunks_exact(4).any(|p| p[3] != 255);
            let decoded = decode_uastc_rgba(&blocks, level.width, level.height, has_alpha).unwrap();
            (blocks, decoded, cpu)
        });
    }
    for preset in Bc7Preset::ALL {
        run(&format!("bc7 {preset:?}"), &|_, level| {
            let has_alpha = level.pixels.chunks_exact(4).any(|p| p[3] != 255);
            let (blocks, cpu) = timed(|| {
                encode_bc::encode(
                    std::slice::from_ref(level),
                    TextureFormat::Bc7,
                    TextureMode::Color,
                    has_alpha,
                    preset.quality(),
                )
                .remove(0)
            });
            let decoded = decode_bc7(&blocks, level.width, level.height);
            (blocks, decoded, cpu)
        });
    }
    run("rgba8", &|_, level| {
        (level.pixels.clone(), level.pixels.clone(), 1e-9)
    });
}
