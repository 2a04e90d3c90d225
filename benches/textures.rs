//! Texture encoding throughput, quality and thread scaling over the loose corpus images
//! (PNG/JPEG files under ASSETC_CORPUS/gltf, default ../shared/corpus/gltf), printed as
//! Markdown tables for docs/textures.md:
//!
//! `cargo bench --bench textures`
//!
//! - Throughput: source megapixels (level 0) per CPU second on one thread, the whole
//!   `.ktx2` (mip chain, block encoding, zstd) included, per format and mode at the default
//!   quality, then for UASTC and BC7 at other qualities (colour images only).
//! - PSNR of level 0 decoded back to RGBA against the encoder's input, over RGB.
//! - Scaling: the wall time of encoding every image (8+ textures) through a rayon pool of
//!   one thread and of two, best of `ASSETC_BENCH_ROUNDS` (default 3) rounds.
//!
//! CPU time, not wall time, for throughput: the machines this runs on are shared. The
//! scaling figure is necessarily wall time, so the load average is printed beside it.
//! `ASSETC_BENCH_QUALITIES` (comma-separated, default "0.25,0.75,0.9") picks the extra
//! qualities; an empty value skips them.

use assetc::formats::ktx2::{self, PixelFormat};
use assetc::pipeline::textures::{
    build_levels, decode_image, decode_uastc_rgba, encode_texture, TextureFormat, TextureMode,
    TextureSettings,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

const FORMATS: [TextureFormat; 5] = [
    TextureFormat::Uastc,
    TextureFormat::Bc7,
    TextureFormat::Bc1,
    TextureFormat::Bc3,
    TextureFormat::Rgba8,
];
const MODES: [TextureMode; 3] = [TextureMode::Color, TextureMode::Normal, TextureMode::Linear];

/// CPU time this thread has used, in seconds (Linux schedstat, nanoseconds).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// CPU seconds of `f` on this thread, or its wall time where schedstat is missing.
fn cpu_timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let (cpu, wall) = (thread_cpu_seconds(), Instant::now());
    let value = f();
    let secs = match (cpu, thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => wall.elapsed().as_secs_f64(),
    };
    (value, secs)
}

/// CPU time of the whole process (every thread, finished ones included), in seconds, at
/// the kernel's 10 ms tick resolution.
fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

struct Image {
    name: String,
    mode: TextureMode,
    bytes: Vec<u8>,
    /// Level 0 as the encoder sees it (decoded source, no downscale at the default size).
    input: Vec<u8>,
    megapixels: f64,
}

/// The loose corpus images, with the mode their file name implies.
fn corpus_images() -> Vec<Image> {
    let root = std::env::var_os("ASSETC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("gltf");
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            ["png", "jpg", "jpeg"].contains(&ext.to_ascii_lowercase().as_str())
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let lower = path.to_string_lossy().to_ascii_lowercase();
            let mode = if lower.contains("basecolor") {
                TextureMode::Color
            } else if lower.contains("normal") {
                TextureMode::Normal
            } else {
                TextureMode::Linear
            };
            let bytes = std::fs::read(&path).ok()?;
            let decoded = decode_image(&bytes, None).ok()?;
            let megapixels = f64::from(decoded.width) * f64::from(decoded.height) / 1e6;
            let settings = TextureSettings {
                mipmaps: false,
                ..TextureSettings::default()
            };
            let input = build_levels(decoded, mode, None, &settings)
                .remove(0)
                .pixels;
            Some(Image {
                name: path.file_name()?.to_string_lossy().into_owned(),
                mode,
                bytes,
                input,
                megapixels,
            })
        })
        .collect()
}

/// Level 0 of a `.ktx2` we wrote, decoded back to RGBA8.
fn decode_level0(file: &[u8]) -> Vec<u8> {
    let k = ktx2::read(file).expect("our reader reads what we write");
    let (w, h) = (k.width as usize, k.height as usize);
    let data = &k.levels[0].data;
    let (format, _) = k.pixel_format().expect("an assetc format");
    match format {
        PixelFormat::Rgba8 => data.clone(),
        PixelFormat::Uastc => {
            let alpha = k.dfd.samples[0].channel_type & 0x0f == ktx2::CHANNEL_UASTC_RGBA;
            decode_uastc_rgba(data, k.width, k.height, alpha).expect("UASTC decodes")
        }
        _ => {
            let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
            let block_bytes = format.block().bytes as usize;
            let pitch = bw * 16;
            let mut padded = vec![0u8; pitch * bh * 4];
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
    }
}

/// Mean squared error over RGB, as PSNR in dB (infinite when exact).
fn psnr_rgb(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut n) = (0f64, 0usize);
    for (pa, pb) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for c in 0..3 {
            let d = f64::from(pa[c]) - f64::from(pb[c]);
            sum += d * d;
            n += 1;
        }
    }
    if sum == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (255.0f64 * 255.0 / (sum / n as f64)).log10()
    }
}

struct Measured {
    images: usize,
    megapixels: f64,
    cpu_seconds: f64,
    /// Per image: PSNR (infinite when exact) and name.
    psnr: Vec<(f64, String)>,
    bytes_out: usize,
}

fn measure(images: &[&Image], settings: &TextureSettings) -> Measured {
    let mut m = Measured {
        images: images.len(),
        megapixels: 0.0,
        cpu_seconds: 0.0,
        psnr: Vec::new(),
        bytes_out: 0,
    };
    for image in images {
        let (file, secs) = cpu_timed(|| {
            encode_texture(&image.bytes, None, image.mode, None, settings).expect(&image.name)
        });
        let decoded = decode_level0(&file);
        m.psnr
            .push((psnr_rgb(&image.input, &decoded), image.name.clone()));
        m.megapixels += image.megapixels;
        m.cpu_seconds += secs;
        m.bytes_out += file.len();
    }
    m
}

fn print_row(label: &str, mode: TextureMode, quality: f32, m: &Measured) {
    // Exact images (PSNR infinite) are counted apart so that the average stays finite.
    let lossy: Vec<f64> = m
        .psnr
        .iter()
        .map(|p| p.0)
        .filter(|p| p.is_finite())
        .collect();
    let exact = m.psnr.len() - lossy.len();
    let average = if lossy.is_empty() {
        "-".to_string()
    } else {
        format!("{:.2}", lossy.iter().sum::<f64>() / lossy.len() as f64)
    };
    let worst = m
        .psnr
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .filter(|p| p.0.is_finite())
        .map(|(p, name)| format!("{p:.2} ({name})"))
        .unwrap_or_else(|| "-".into());
    println!(
        "| {label} | {} | {quality} | {} | {:.2} | {:.2} | {average} | {exact} | {worst} | {:.2} |",
        mode.name(),
        m.images,
        m.megapixels,
        m.megapixels / m.cpu_seconds,
        m.bytes_out as f64 * 8.0 / (m.megapixels * 1e6 * 4.0 / 3.0),
    );
}

fn throughput_and_quality(images: &[Image]) {
    println!("### Throughput and quality (one thread)\n");
    println!(
        "| format | mode | quality | images | source Mpx | Mpx/s (CPU) | PSNR RGB avg dB (lossy images) | exact images | worst dB (image) | bits/texel (with mips) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---|---:|");
    let default = TextureSettings::default();
    for format in FORMATS {
        for mode in MODES {
            let set: Vec<&Image> = images.iter().filter(|i| i.mode == mode).collect();
            if set.is_empty() {
                continue;
            }
            let s = TextureSettings { format, ..default };
            print_row(format.name(), mode, s.quality, &measure(&set, &s));
        }
    }
    let qualities: Vec<f32> = std::env::var("ASSETC_BENCH_QUALITIES")
        .unwrap_or_else(|_| "0.25,0.75,0.9".into())
        .split(',')
        .filter_map(|q| q.trim().parse().ok())
        .collect();
    let colour: Vec<&Image> = images
        .iter()
        .filter(|i| i.mode == TextureMode::Color)
        .collect();
    for format in [TextureFormat::Uastc, TextureFormat::Bc7] {
        for &quality in &qualities {
            let s = TextureSettings {
                format,
                quality,
                ..default
            };
            print_row(
                format.name(),
                TextureMode::Color,
                quality,
                &measure(&colour, &s),
            );
        }
    }
}

struct PoolRun {
    wall: f64,
    /// Process CPU seconds.
    cpu: f64,
    /// Thread CPU seconds of each texture.
    jobs: Vec<f64>,
}

/// Encodes every image on a pool of `threads`.
fn pool_run(images: &[Image], threads: usize, settings: &TextureSettings) -> PoolRun {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool");
    let (start, cpu) = (Instant::now(), process_cpu_seconds());
    let jobs: Vec<f64> = pool.install(|| {
        images
            .par_iter()
            .map(|i| {
                let (file, secs) = cpu_timed(|| {
                    encode_texture(&i.bytes, None, i.mode, None, settings).expect(&i.name)
                });
                assert!(!file.is_empty());
                secs
            })
            .collect()
    });
    PoolRun {
        wall: start.elapsed().as_secs_f64(),
        cpu: process_cpu_seconds() - cpu,
        jobs,
    }
}

/// The speed-up two free cores would give: total work over the makespan of handing each
/// texture, in order, to whichever of two workers is free first (what the pool does).
fn two_core_bound(jobs: &[f64]) -> f64 {
    let mut workers = [0f64; 2];
    for &job in jobs {
        let free = if workers[0] <= workers[1] { 0 } else { 1 };
        workers[free] += job;
    }
    jobs.iter().sum::<f64>() / workers[0].max(workers[1])
}

/// Wall-time speed-up from one to two pool threads. On a shared machine the second thread
/// may not get a core of its own, so the CPU the run obtained (CPU seconds / wall seconds)
/// is printed beside it, and the speed-up two free cores would give from the measured
/// per-texture CPU times: a wall speed-up below 2 with about one core obtained is the
/// machine, with two cores obtained it would be the code.
fn scaling(images: &[Image]) {
    let rounds: usize = std::env::var("ASSETC_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    println!(
        "\n### Scaling: {} textures ({:.2} source Mpx) through a rayon pool, best of {rounds} rounds\n",
        images.len(),
        images.iter().map(|i| i.megapixels).sum::<f64>()
    );
    println!(
        "| format | 1 thread: wall s | CPU s | 2 threads: wall s | CPU s | cores obtained | speed-up (wall) | 2-core bound | load average before |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for format in [
        TextureFormat::Uastc,
        TextureFormat::Bc7,
        TextureFormat::Rgba8,
    ] {
        let s = TextureSettings {
            format,
            ..TextureSettings::default()
        };
        let load = load_average();
        let best = |a: Option<PoolRun>, b: PoolRun| match a {
            Some(a) if a.wall <= b.wall => Some(a),
            _ => Some(b),
        };
        let (mut one, mut two) = (None, None);
        for _ in 0..rounds.max(1) {
            one = best(one, pool_run(images, 1, &s));
            two = best(two, pool_run(images, 2, &s));
        }
        let (Some(one), Some(two)) = (one, two) else {
            continue;
        };
        println!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2}x | {:.2}x | {load} |",
            format.name(),
            one.wall,
            one.cpu,
            two.wall,
            two.cpu,
            two.cpu / two.wall,
            one.wall / two.wall,
            two_core_bound(&one.jobs)
        );
    }
}

fn main() {
    let images = corpus_images();
    if images.is_empty() {
        eprintln!("skipped: corpus not found");
        return;
    }
    println!(
        "{} corpus images; machine load average at start: {}\n",
        images.len(),
        load_average()
    );
    throughput_and_quality(&images);
    scaling(&images);
}
