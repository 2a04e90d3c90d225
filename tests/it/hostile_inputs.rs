//! Issue 45: hostile inputs in the kinds added last. Each test builds the bad source beside
//! a good one and checks the build as a whole: exit 1, an error naming the file and the
//! limit it breaks, no panic and no "internal error", the good asset built and the
//! manifest written.

use crate::common;

use assetc::formats::wav::{self as wavfile, SampleFormat, Samples, WavSpec};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Builds `dir/in` into `dir/out` with `toml` as build.toml.
fn build(dir: &Path, toml: &str) -> std::process::Output {
    let config = dir.join("build.toml");
    std::fs::write(&config, toml).unwrap();
    let (input, output) = (dir.join("in"), dir.join("out"));
    common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ])
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The build failed for `bad` alone, saying `why`, and built `good`.
fn assert_refused_beside(dir: &Path, run: &std::process::Output, bad: &str, why: &str, good: &str) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains(bad) && l.starts_with("error"))
        .unwrap_or_else(|| panic!("no error names {bad}: {stderr}"));
    assert!(line.contains(why), "{line}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{stderr}"
    );
    let out = dir.join("out");
    assert!(out.join(good).is_file(), "{good} was not built: {stderr}");
    assert!(out.join("assets.hman").is_file(), "no manifest: {stderr}");
}

/// A 16-bit WAV of `frames` frames of silence whose header says `rate`.
fn wav_at(rate: u32, channels: u16, frames: usize) -> Vec<u8> {
    let spec = WavSpec {
        format: SampleFormat::Pcm16,
        channels,
        sample_rate: 8_000,
        channel_mask: 0,
    };
    let samples = vec![0i16; frames * usize::from(channels)];
    let mut bytes = wavfile::write(&spec, Samples::Pcm16(&samples)).unwrap();
    let block_align = u32::from(channels) * 2;
    bytes[24..28].copy_from_slice(&rate.to_le_bytes());
    bytes[28..32].copy_from_slice(&rate.wrapping_mul(block_align).to_le_bytes());
    bytes
}

#[test]
fn sounds_at_absurd_rates_are_refused_before_resampling() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("good.wav"), &wav_at(8_000, 1, 800));
    write(&input.join("zero.wav"), &wav_at(0, 2, 3_500));
    // The attack's file: 14 KB of stereo at 1 Hz, 635 MB once upsampled.
    write(&input.join("one.wav"), &wav_at(1, 2, 3_500));
    let started = Instant::now();
    let run = build(dir.path(), "");
    assert!(started.elapsed() < Duration::from_secs(60));
    for bad in ["zero.wav", "one.wav"] {
        assert_refused_beside(dir.path(), &run, bad, "1000 to 768000 Hz", "good.wav");
        assert!(!dir.path().join("out").join(bad).exists());
    }
}

/// A PNG of `side` x `side` 8-bit grey zeros, written row by row so that neither the test
/// nor the file holds the pixels (12,000 x 12,000 is 560 KB on disk).
fn zero_png(side: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        out.extend_from_slice(&crc.sum().to_be_bytes());
    }
    let mut header = Vec::new();
    header.extend_from_slice(&side.to_be_bytes());
    header.extend_from_slice(&side.to_be_bytes());
    header.extend_from_slice(&[8, 0, 0, 0, 0]); // 8-bit greyscale, no interlace
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let row = vec![0u8; side as usize + 1]; // filter byte 0, then the pixels
    for _ in 0..side {
        z.write_all(&row).unwrap();
    }
    let data = z.finish().unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &data);
    chunk(&mut png, b"IEND", &[]);
    png
}

#[test]
fn an_image_over_the_memory_budget_is_refused_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("good.png"), &zero_png(16));
    // Inside the 16,384-per-side cap, but 144 M pixels at 34 bytes each: 4.6 GiB.
    write(&input.join("huge.png"), &zero_png(12_000));
    let started = Instant::now();
    let run = build(dir.path(), "");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_refused_beside(
        dir.path(),
        &run,
        "huge.png",
        "12000x12000 pixels",
        "good.ktx2",
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    let needed = 12_000u64 * 12_000 * assetc::kinds::texture::LDR_BYTES_PER_PIXEL;
    assert!(
        stderr.contains(&format!("({needed} bytes)"))
            && stderr.contains(&format!("({} bytes)", assetc::limits::DEFAULT_ASSET_MEMORY))
            && stderr.contains("asset_memory"),
        "both numbers and the setting: {stderr}"
    );
    // A budget set in build.toml applies: 512 x 512 at 34 bytes a pixel is 8.5 MiB,
    // inside 16 MiB, and builds; the huge one fails against the smaller number.
    write(&input.join("mid.png"), &zero_png(512));
    let run = build(dir.path(), "[limits]\nasset_memory = 16777216\n");
    assert_refused_beside(
        dir.path(),
        &run,
        "huge.png",
        "16 MiB (16777216 bytes)",
        "mid.ktx2",
    );
}

#[test]
fn a_model_image_over_the_memory_budget_fails_its_model_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    common::copy_dir(&common::samples().join("box"), &input);
    // 1024 x 1024 at 34 bytes a pixel is 34 MiB, over a 16 MiB budget.
    write(&input.join("checker.png"), &zero_png(1024));
    write(&input.join("good.png"), &zero_png(16));
    let run = build(dir.path(), "[limits]\nasset_memory = 16777216\n");
    assert_refused_beside(
        dir.path(),
        &run,
        "checker.png",
        "1024x1024 pixels",
        "good.ktx2",
    );
    assert!(!dir.path().join("out/box.hmesh").exists());
}

#[cfg(unix)]
#[test]
fn a_cubemap_face_linked_outside_the_input_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let face = zero_png(8);
    write(&input.join("good.png"), &face);
    for f in ["px", "nx", "py", "ny", "pz"] {
        write(&input.join(format!("sky.env/{f}.png")), &face);
    }
    // A valid image: only where it lies can be the reason to refuse it.
    write(&outside.path().join("secret.png"), &face);
    std::os::unix::fs::symlink(
        outside.path().join("secret.png"),
        input.join("sky.env/nz.png"),
    )
    .unwrap();
    let run = build(dir.path(), "");
    assert_refused_beside(
        dir.path(),
        &run,
        "nz.png",
        "outside the input root",
        "good.ktx2",
    );
    assert!(!dir.path().join("out/sky.env.ktx2").exists());
}

const GOOD_SHADER: &str = "@compute @workgroup_size(1) fn main() {}\n";

/// 10,000 small entry points (the case that ran past 120 s when every entry point copied
/// the whole module) compile, one module each; a source whose entry points would each
/// copy a large shared part is refused before any is written.
#[test]
fn ten_thousand_small_entry_points_compile_and_a_large_shared_part_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("good.wgsl"), GOOD_SHADER.as_bytes());
    let many: String = (0..10_000)
        .map(|i| format!("@compute @workgroup_size(1) fn e{i}() {{}}\n"))
        .collect();
    write(&input.join("many.wgsl"), many.as_bytes());
    // 500 entry points that all reach 2,000 helpers: 500 copies of them.
    let mut heavy: String = (0..2_000)
        .map(|i| format!("fn h{i}(x: u32) -> u32 {{ return x + {i}u; }}\n"))
        .collect();
    heavy += "fn all(x: u32) -> u32 { var s = x;\n";
    heavy += &(0..2_000)
        .map(|i| format!("s = h{i}(s);\n"))
        .collect::<String>();
    heavy += "return s; }\n";
    heavy += &(0..500)
        .map(|i| format!("@compute @workgroup_size(1) fn e{i}() {{ _ = all(1u); }}\n"))
        .collect::<String>();
    write(&input.join("heavy.wgsl"), heavy.as_bytes());
    let started = Instant::now();
    let run = build(dir.path(), "");
    let took = started.elapsed();
    assert_refused_beside(
        dir.path(),
        &run,
        "heavy.wgsl",
        "500 entry points over",
        "good/main.spv",
    );
    let out = dir.path().join("out/many");
    for i in [0, 4_999, 9_999] {
        let spv = std::fs::read(out.join(format!("e{i}.spv"))).unwrap();
        assert!(
            spv.len() < 1_000,
            "e{i}.spv holds more than its entry point"
        );
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 10_000);
    // A bound for the hostile case, not a benchmark: linear work is seconds.
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn integer_overflow_in_a_wgsl_constant_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("good.wgsl"), GOOD_SHADER.as_bytes());
    write(
        &input.join("wrap.wgsl"),
        b"const a = 2147483647i + 1i;\n@compute @workgroup_size(1) fn main() { _ = a; }\n",
    );
    let run = build(dir.path(), "");
    assert_refused_beside(
        dir.path(),
        &run,
        "wrap.wgsl:1:11",
        "overflows i32",
        "good/main.spv",
    );
    assert!(!dir.path().join("out/wrap").exists());
}

#[test]
fn float_overflow_in_a_wgsl_constant_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("good.wgsl"), GOOD_SHADER.as_bytes());
    // f32::MAX is about 3.4e38: the product is infinite, which WGSL refuses at shader
    // creation. naga's constant evaluator refuses it (and NaN, and every float built-in
    // that overflows); only i32/u32 arithmetic wraps there (`const_overflow.rs`).
    write(
        &input.join("inf.wgsl"),
        b"const big = 3.0e38f;\nconst inf = big * 10.0f;\n\
          @compute @workgroup_size(1) fn main() { _ = inf; }\n",
    );
    let run = build(dir.path(), "");
    assert_refused_beside(
        dir.path(),
        &run,
        "inf.wgsl:2:13",
        "Float literal is infinite",
        "good/main.spv",
    );
    assert!(!dir.path().join("out/inf").exists());
}

#[test]
fn a_model_matched_by_an_embed_wildcard_is_compiled_and_one_named_exactly_is_copied() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    common::copy_dir(&common::samples().join("box"), &input);
    write(&input.join("levels/one.json"), b"{}");
    let run = build(dir.path(), "embed = [\"**\"]\n");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let out = dir.path().join("out");
    assert!(out.join("box.hmesh").is_file(), "{stderr}");
    assert!(!out.join("box.gltf").exists(), "copied raw: {stderr}");
    assert!(out.join("levels/one.json").is_file());
    assert!(
        stderr.contains("warning: an `embed` wildcard matches") && stderr.contains("box.gltf"),
        "{stderr}"
    );
    // Named exactly, the raw file is what is asked for.
    let run = build(dir.path(), "embed = [\"**\", \"box.gltf\"]\n");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read(out.join("box.gltf")).unwrap(),
        std::fs::read(input.join("box.gltf")).unwrap()
    );
    assert!(!out.join("box.hmesh").exists(), "{stderr}");
}
