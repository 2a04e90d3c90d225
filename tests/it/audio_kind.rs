//! The audio kind against real clients. Sources: Debian's `sound-theme-freedesktop` (Vorbis
//! `.oga` at 8, 44.1 and 48 kHz), converted by Debian's `ffmpeg` to 16-bit WAV, 16-bit
//! FLAC and MP3. Every output is read back by `ffprobe` (codec, rate, channels, duration)
//! and by `ffmpeg`, whose decoding of the sources is the reference:
//! - lossless 16-bit sources (WAV, FLAC) at the output rate come out bit for bit;
//! - lossy sources at the output rate: SNR >= 60 dB against ffmpeg's decoding (two
//!   decoders of one stream, plus our 16-bit rounding);
//! - sources at another rate: SNR >= 40 dB against ffmpeg's decoding resampled by soxr at
//!   its highest precision (two different resamplers).
//!
//! SNR is measured after aligning the two signals by cross-correlation (the lag with the
//! least error within +-1200 frames, more than an MP3 encoder's delay, in case a decoder
//! did not take it out); every source here turns out aligned at lag 0, which the test
//! also asserts.
//!
//! `.ci/run` installs both packages; without them the tests skip, and fail under CI=true.

use crate::common;

use assetc::formats::hash::fnv1a64;
use assetc::formats::hman::{self, EntryKind};
use std::path::{Path, PathBuf};
use std::process::Command;

const TEST: &str = "audio_kind";
const RATE: u32 = 44_100;

pub(crate) struct Tools {
    pub(crate) ffmpeg: PathBuf,
    pub(crate) ffprobe: PathBuf,
    pub(crate) sounds: PathBuf,
}

/// ffmpeg, ffprobe and the freedesktop sounds; `None` (a failure under CI) when absent.
pub(crate) fn tools(test: &str) -> Option<Tools> {
    let ffmpeg = common::tool("ASSETC_FFMPEG", "ffmpeg", &["/usr/bin"]);
    let ffprobe = common::tool("ASSETC_FFPROBE", "ffprobe", &["/usr/bin"]);
    let (Some(ffmpeg), Some(ffprobe)) = (ffmpeg, ffprobe) else {
        common::missing(test, "ffmpeg and ffprobe (Debian's ffmpeg)");
        return None;
    };
    let sounds = std::env::var_os("ASSETC_SOUNDS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/sounds/freedesktop/stereo"));
    if !sounds.join("complete.oga").is_file() {
        common::missing(
            test,
            &format!(
                "sound-theme-freedesktop's sounds at {} (set ASSETC_SOUNDS_DIR)",
                sounds.display()
            ),
        );
        return None;
    }
    Some(Tools {
        ffmpeg,
        ffprobe,
        sounds,
    })
}

impl Tools {
    /// ffmpeg's standard output; panics naming the command when it fails.
    pub(crate) fn ffmpeg(&self, args: &[&str]) -> Vec<u8> {
        let out = Command::new(&self.ffmpeg)
            .args(["-v", "error", "-nostdin"])
            .args(args)
            .output()
            .expect("ffmpeg runs");
        assert!(
            out.status.success(),
            "ffmpeg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    pub(crate) fn convert(&self, from: &Path, to: &Path, codec: &[&str]) {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let mut args = vec!["-y", "-i", from.to_str().unwrap()];
        args.extend_from_slice(codec);
        args.push(to.to_str().unwrap());
        self.ffmpeg(&args);
    }

    /// The file decoded by ffmpeg as interleaved floats, resampled to `rate` by soxr at its
    /// highest precision when asked.
    pub(crate) fn pcm_f32(&self, file: &Path, rate: Option<u32>) -> Vec<f32> {
        let rate = rate.map(|r| r.to_string());
        let mut args = vec!["-i", file.to_str().unwrap()];
        if let Some(r) = &rate {
            args.extend_from_slice(&["-af", "aresample=resampler=soxr:precision=33", "-ar", r]);
        }
        args.extend_from_slice(&["-f", "f32le", "-acodec", "pcm_f32le", "-"]);
        self.ffmpeg(&args)
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    /// The file decoded by ffmpeg as 16-bit samples.
    pub(crate) fn pcm_s16(&self, file: &Path) -> Vec<u8> {
        self.ffmpeg(&[
            "-i",
            file.to_str().unwrap(),
            "-f",
            "s16le",
            "-acodec",
            "pcm_s16le",
            "-",
        ])
    }

    /// (codec, sample rate, channels, duration in seconds) of the first audio stream.
    pub(crate) fn probe(&self, file: &Path) -> (String, u32, u32, f64) {
        let out = Command::new(&self.ffprobe)
            .args(["-v", "error", "-select_streams", "a:0", "-show_entries"])
            .args([
                "stream=codec_name,sample_rate,channels,duration",
                "-of",
                "json",
            ])
            .arg(file)
            .output()
            .expect("ffprobe runs");
        assert!(
            out.status.success(),
            "ffprobe refused {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &v["streams"][0];
        let num = |k: &str| s[k].as_str().unwrap_or("0").parse::<f64>().unwrap();
        (
            s["codec_name"].as_str().unwrap_or("").to_string(),
            num("sample_rate") as u32,
            s["channels"].as_u64().unwrap_or(0) as u32,
            num("duration"),
        )
    }
}

/// Signal-to-noise ratio in dB of `out` against `reference` (interleaved, `channels`
/// wide), at the lag within `max_lag` frames that leaves the least error, and that lag
/// (positive: `out` is late). The lag is searched on every 5th frame, which is plenty to
/// tell lags apart and keeps the search quick; the SNR is then taken over every frame.
fn snr_db(reference: &[f32], out: &[f32], channels: usize, max_lag: usize) -> (f64, isize) {
    let frames = |s: &[f32]| (s.len() / channels) as isize;
    let (rf, of) = (frames(reference), frames(out));
    let energies = |lag: isize, stride: usize| {
        let (mut signal, mut noise) = (0f64, 0f64);
        for f in (0.max(-lag)..rf.min(of - lag)).step_by(stride) {
            for c in 0..channels {
                let r = f64::from(reference[f as usize * channels + c]);
                let o = f64::from(out[(f + lag) as usize * channels + c]);
                signal += r * r;
                noise += (r - o) * (r - o);
            }
        }
        (signal, noise)
    };
    let lag = (-(max_lag as isize)..=max_lag as isize)
        .filter(|lag| rf.min(of - lag) - 0.max(-lag) >= rf / 2)
        .min_by(|a, b| energies(*a, 5).1.total_cmp(&energies(*b, 5).1))
        .expect("the signals overlap");
    let (signal, noise) = energies(lag, 1);
    (10.0 * (signal / noise.max(1e-30)).log10(), lag)
}

fn s16_values(bytes: &[u8]) -> Vec<i16> {
    bytes
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect()
}

/// PCM outputs (`format = "wav"`) from every source: what these tests measure.
/// `audio_formats` tests the other formats and `auto`.
const CONFIG: &str = r#"
[audio]
sample_rate = 44100
format = "wav"

[[rules]]
match = "mono/*"
audio = { force_3d = true }

[[rules]]
match = "float/*"
audio = { bit_depth = 32 }
"#;

/// The source tree: real Vorbis sounds, and ffmpeg's conversions of one of them.
fn source_tree(t: &Tools, input: &Path) {
    let copy = |name: &str, to: &str| {
        let to = input.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(t.sounds.join(name), to).unwrap();
    };
    // 44.1 kHz stereo, 48 kHz stereo, 8 kHz mono.
    copy("complete.oga", "ogg/complete.oga");
    copy("alarm-clock-elapsed.oga", "ogg/alarm.oga");
    copy("phone-outgoing-calling.oga", "ogg/calling.oga");
    copy("alarm-clock-elapsed.oga", "float/alarm.oga");
    let oga = t.sounds.join("complete.oga");
    let wav = input.join("conv/complete_wav.wav");
    t.convert(&oga, &wav, &["-c:a", "pcm_s16le"]);
    t.convert(
        &oga,
        &input.join("conv/complete_flac.flac"),
        &["-c:a", "flac", "-sample_fmt", "s16"],
    );
    t.convert(
        &oga,
        &input.join("conv/complete_mp3.mp3"),
        &["-c:a", "libmp3lame", "-b:a", "192k"],
    );
    for dir in ["mono", "float"] {
        std::fs::create_dir_all(input.join(dir)).unwrap();
        std::fs::copy(&wav, input.join(dir).join("complete_wav.wav")).unwrap();
    }
}

/// `assetc build input -o output` with the test's config and JSON events.
fn build(dir: &Path, input: &Path, output: &Path, extra: &[&str]) -> std::process::Output {
    build_with(CONFIG, dir, input, output, extra)
}

/// `assetc build input -o output` with `dir/build.toml` (written as `config` when there is
/// none yet) and JSON events.
pub(crate) fn build_with(
    config: &str,
    dir: &Path,
    input: &Path,
    output: &Path,
    extra: &[&str],
) -> std::process::Output {
    let config_text = config;
    let config = dir.join("build.toml");
    if !config.is_file() {
        std::fs::write(&config, config_text).unwrap();
    }
    let mut args = vec![
        "build",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    args.extend_from_slice(extra);
    common::assetc(&args)
}

pub(crate) fn without_cache(tree: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    tree.into_iter()
        .filter(|(p, _)| !p.ends_with(assetc::output::CACHE_NAME))
        .collect()
}

#[test]
fn real_sounds_come_out_as_pcm_every_client_reads() {
    let Some(t) = tools(TEST) else { return };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    source_tree(&t, &input);
    let run = build(dir.path(), &input, &out, &["-j", "1"]);
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );

    // ffprobe: codec, rate, channels; the duration is that of the second file (the
    // source), to the output frame.
    let expect = [
        ("ogg/complete", "ogg/complete.oga", "pcm_s16le", 2),
        ("ogg/alarm", "ogg/alarm.oga", "pcm_s16le", 2),
        ("ogg/calling", "ogg/calling.oga", "pcm_s16le", 1),
        ("float/alarm", "float/alarm.oga", "pcm_f32le", 2),
        ("conv/complete_wav", "conv/complete_wav.wav", "pcm_s16le", 2),
        (
            "conv/complete_flac",
            "conv/complete_flac.flac",
            "pcm_s16le",
            2,
        ),
        // ffprobe's duration of an MP3 stream counts the encoder's delay and padding,
        // which its LAME header says to drop (symphonia and ffmpeg's decoder do): the
        // sound is as long as the one it was encoded from.
        ("conv/complete_mp3", "ogg/complete.oga", "pcm_s16le", 2),
        ("mono/complete_wav", "mono/complete_wav.wav", "pcm_s16le", 1),
        (
            "float/complete_wav",
            "float/complete_wav.wav",
            "pcm_f32le",
            2,
        ),
    ];
    let manifest = hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    for (reference, timed_by, codec, channels) in expect {
        let path = format!("{reference}.wav");
        let (c, rate, ch, duration) = t.probe(&out.join(&path));
        assert_eq!((c.as_str(), rate, ch), (codec, RATE, channels), "{path}");
        let (_, source_rate, _, source_duration) = t.probe(&input.join(timed_by));
        // ceil(frames x 44100 / rate) frames: at most one output frame longer; ffprobe
        // prints microseconds.
        let slack = 1.0 / f64::from(RATE) + 2e-6;
        assert!(
            duration >= source_duration - 2e-6 && duration <= source_duration + slack,
            "{path}: {duration} s from {source_duration} s at {source_rate} Hz"
        );
        let entry = manifest
            .get(fnv1a64(&path))
            .unwrap_or_else(|| panic!("{path} is not in the manifest"));
        assert_eq!(
            (entry.kind, entry.path.as_str()),
            (EntryKind::Audio, path.as_str())
        );
    }
    assert_eq!(manifest.entries().len(), expect.len());

    // A 16-bit source at the output rate comes out bit for bit: WAV and lossless FLAC.
    let original = t.pcm_s16(&input.join("conv/complete_wav.wav"));
    assert!(original.len() > 100_000);
    assert!(t.pcm_s16(&out.join("conv/complete_wav.wav")) == original);
    assert!(
        t.pcm_s16(&input.join("conv/complete_flac.flac")) == original,
        "ffmpeg wrote a 16-bit FLAC of the same samples"
    );
    assert!(t.pcm_s16(&out.join("conv/complete_flac.wav")) == original);

    // bit_depth = 32 writes the same samples as floats, s / 32768 exactly.
    let float = t.pcm_f32(&out.join("float/complete_wav.wav"), None);
    let ints = s16_values(&original);
    assert_eq!(float.len(), ints.len());
    assert!(float
        .iter()
        .zip(&ints)
        .all(|(f, i)| *f == f32::from(*i) / 32768.0));

    // force_3d: one channel, the mean of the two rounded to the nearest integer.
    let mono = s16_values(&t.pcm_s16(&out.join("mono/complete_wav.wav")));
    assert_eq!(mono.len() * 2, ints.len());
    for (i, m) in mono.iter().enumerate() {
        let mean = (f64::from(ints[2 * i]) + f64::from(ints[2 * i + 1])) / 2.0;
        assert!(
            (f64::from(*m) - mean).abs() <= 0.5,
            "frame {i}: {m} vs {mean}"
        );
    }

    // Lossy sources at the output rate, then resampled ones: SNR against ffmpeg.
    let cases = [
        ("ogg/complete.oga", "ogg/complete.wav", None, 2, 60.0),
        (
            "conv/complete_mp3.mp3",
            "conv/complete_mp3.wav",
            None,
            2,
            60.0,
        ),
        ("ogg/alarm.oga", "ogg/alarm.wav", Some(RATE), 2, 40.0),
        ("float/alarm.oga", "float/alarm.wav", Some(RATE), 2, 40.0),
        ("ogg/calling.oga", "ogg/calling.wav", Some(RATE), 1, 40.0),
    ];
    for (source, output, resample, channels, floor) in cases {
        let reference = t.pcm_f32(&input.join(source), resample);
        let ours = t.pcm_f32(&out.join(output), None);
        let (snr, lag) = snr_db(&reference, &ours, channels, 1200);
        eprintln!("{output}: SNR {snr:.1} dB at lag {lag}");
        assert!(snr >= floor, "{output}: SNR {snr:.1} dB < {floor} dB");
        assert_eq!(lag, 0, "{output} is shifted by {lag} frames");
    }

    // The tree passes the CI gate; inspect and info read the sounds.
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let inspect = common::assetc(&["inspect", out.join("ogg/calling.wav").to_str().unwrap()]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(inspect.status.success(), "{text}");
    assert!(text.contains("44100 Hz") && text.contains("mono"), "{text}");
    let info = common::assetc(&["info", out.to_str().unwrap(), "--json"]);
    let sounds = String::from_utf8_lossy(&info.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == "totals")
        .map(|v| v["totals"]["sounds"].as_u64());
    assert_eq!(sounds, Some(Some(expect.len() as u64)));

    // The same bytes on three threads; the report draws every waveform.
    let three = dir.path().join("out3");
    let run = build(dir.path(), &input, &three, &["-j", "3"]);
    assert!(run.status.success());
    assert!(
        without_cache(common::tree(&out)) == without_cache(common::tree(&three)),
        "-j1 and -j3 differ"
    );
    let reported = dir.path().join("reported");
    let run = build(dir.path(), &input, &reported, &["--report"]);
    assert!(run.status.success());
    let html = std::fs::read_to_string(reported.join("report/index.html")).unwrap();
    let figure = html
        .split("<figure>")
        .find(|f| f.contains("ogg/calling.wav"))
        .expect("a figure of the mono sound");
    let image = figure
        .split("src=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("an image, not an error");
    let png = image::open(reported.join("report").join(image)).unwrap();
    assert_eq!((png.width(), png.height()), (192, 40));
}

#[test]
fn a_damaged_sound_fails_alone_naming_the_file() {
    let Some(t) = tools("audio_kind damaged") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    let oga = t.sounds.join("complete.oga");
    std::fs::copy(&oga, input.join("good.oga")).unwrap();
    let scratch = dir.path().join("scratch");
    let cut = |name: &str, codec: &[&str], keep: f64| {
        let whole = scratch.join(name);
        t.convert(&oga, &whole, codec);
        let bytes = std::fs::read(&whole).unwrap();
        let n = (bytes.len() as f64 * keep) as usize;
        std::fs::write(input.join(name), &bytes[..n]).unwrap();
    };
    // Distinct names: sources that share a ref would collide on one output.
    cut(
        "cut_flac.flac",
        &["-c:a", "flac", "-sample_fmt", "s16"],
        0.5,
    );
    cut("cut_wav.wav", &["-c:a", "pcm_s16le"], 0.5);
    cut("cut_mp3.mp3", &["-c:a", "libmp3lame"], 0.4);
    let garbage: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    std::fs::write(input.join("garbage.ogg"), garbage).unwrap();

    let run = build(dir.path(), &input, &out, &[]);
    assert_eq!(run.status.code(), Some(1));
    let text = String::from_utf8_lossy(&run.stdout);
    let events: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["reason"] == "asset-finished")
        .collect();
    let status = |source: &str| {
        events
            .iter()
            .find(|v| v["source"] == source)
            .unwrap_or_else(|| panic!("no event for {source}: {text}"))
    };
    for (source, why) in [
        ("cut_flac.flac", "truncated"),
        ("cut_wav.wav", "truncated"),
        ("cut_mp3.mp3", "truncated"),
        ("garbage.ogg", "not a readable audio file"),
    ] {
        let e = status(source);
        assert_eq!(e["status"], "failed", "{source}");
        let error = e["error"].as_str().unwrap();
        assert!(
            error.contains(source) && error.contains(why),
            "{source}: {error}"
        );
        assert!(!out.join(source).with_extension("wav").exists());
    }
    assert_eq!(status("good.oga")["status"], "built");
    let good = std::fs::read(out.join("good.wav")).unwrap();
    assert!(assetc::formats::wav::validate(&good).is_empty());
}

#[test]
fn an_embedded_wav_is_copied_as_it_is_and_not_checked_as_ours() {
    let Some(t) = tools("audio_kind embedded") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    let oga = t.sounds.join("bell.oga");
    // 24-bit: a format our validator refuses, and that the build must not convert.
    t.convert(&oga, &input.join("raw/bell24.wav"), &["-c:a", "pcm_s24le"]);
    t.convert(&oga, &input.join("sfx/bell.wav"), &["-c:a", "pcm_s16le"]);
    std::fs::write(dir.path().join("build.toml"), "embed = [\"raw/*.wav\"]\n").unwrap();
    let run = build(dir.path(), &input, &out, &["--verify"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    assert_eq!(
        std::fs::read(out.join("raw/bell24.wav")).unwrap(),
        std::fs::read(input.join("raw/bell24.wav")).unwrap()
    );
    assert_eq!(t.probe(&out.join("sfx/bell.wav")).0, "pcm_s16le");
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn surround_keeps_its_channels_in_order_with_their_speakers() {
    let Some(t) = tools("audio_kind surround") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    // 5.1 from a real stereo sound, each speaker a different mix, as 16-bit FLAC at the
    // output rate: the output must be the same samples, channel for channel.
    t.convert(
        &t.sounds.join("complete.oga"),
        &input.join("surround.flac"),
        &[
            "-af",
            "pan=5.1|FL=c0|FR=c1|FC=0.5*c0+0.5*c1|LFE=0.1*c0|BL=0.3*c0|BR=0.6*c1",
            "-c:a",
            "flac",
            "-sample_fmt",
            "s16",
        ],
    );
    let run = build(dir.path(), &input, &out, &[]);
    assert!(run.status.success());
    let wav = out.join("surround.wav");
    let (codec, rate, channels, _) = t.probe(&wav);
    assert_eq!((codec.as_str(), rate, channels), ("pcm_s16le", RATE, 6));
    let layout = Command::new(&t.ffprobe)
        .args(["-v", "error", "-show_entries", "stream=channel_layout"])
        .args(["-of", "csv=p=0"])
        .arg(&wav)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&layout.stdout).trim(), "5.1");
    let source = t.pcm_s16(&input.join("surround.flac"));
    assert!(source.len() > 100_000);
    assert!(t.pcm_s16(&wav) == source, "the channels moved or changed");
}
