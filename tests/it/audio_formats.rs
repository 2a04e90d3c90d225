//! `[audio] format` against real clients (issue 43, item 5). Sources: Debian's
//! `sound-theme-freedesktop` Vorbis `.oga` (44.1 kHz stereo `complete`, 48 kHz stereo
//! `alarm-clock-elapsed`, 8 kHz mono `phone-outgoing-calling`) and Debian ffmpeg's WAV, FLAC
//! and MP3 of `complete`. Every output is read by `ffprobe` (codec, rate, channels) and
//! decoded by `ffmpeg`; the assertions:
//! - `auto`: PCM sources come out `.wav`, compressed ones `.ogg` (Vorbis); an Ogg source at
//!   the output rate is the source byte for byte, one at another rate at most 1.2 times its
//!   size;
//! - `ogg` at quality 0.7 of a 44.1 kHz stereo WAV: its peak within 1 dB of the source's;
//! - every output decodes to the source's duration within 5 ms;
//! - the manifest lists each as kind 8 under its own extension; `check`, `inspect` and
//!   `info` read them; `-j1` and `-j2` write the same bytes;
//! - a damaged Ogg fails alone, naming the file, while the other sounds build;
//! - `compression_quality` out of range and `format = "mp3"` are configuration errors.
//!
//! `.ci/run` installs ffmpeg and the sounds; without them the tests skip, and fail under
//! CI=true.

use super::audio_kind::{tools, without_cache, Tools};
use crate::common;

use assetc::formats::hash::fnv1a64;
use assetc::formats::hman::{self, EntryKind};
use std::path::Path;

const RATE: u32 = 44_100;

const CONFIG: &str = r#"
[audio]
sample_rate = 44100

[[rules]]
match = "q/*"
audio = { format = "ogg", compression_quality = 0.7 }
"#;

/// Decoded duration in seconds, from ffmpeg's decoding (which drops an MP3's encoder delay
/// and padding as its LAME header says, and a Vorbis stream's as its granule positions say).
fn decoded_seconds(t: &Tools, file: &Path) -> f64 {
    let (_, rate, channels, _) = t.probe(file);
    let samples = t.pcm_f32(file, None).len();
    samples as f64 / f64::from(channels) / f64::from(rate)
}

fn peak_db(samples: &[f32]) -> f64 {
    let peak = samples.iter().fold(0f32, |m, s| m.max(s.abs()));
    20.0 * f64::from(peak).log10()
}

fn build(dir: &Path, input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    super::audio_kind::build_with(CONFIG, dir, input, out, extra)
}

fn text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn auto_keeps_pcm_compresses_the_rest_and_passes_vorbis_through() {
    let Some(t) = tools("audio_formats auto") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(input.join("ogg")).unwrap();
    let oga = t.sounds.join("complete.oga");
    std::fs::copy(&oga, input.join("ogg/complete.oga")).unwrap();
    std::fs::copy(
        t.sounds.join("alarm-clock-elapsed.oga"),
        input.join("ogg/alarm.oga"),
    )
    .unwrap();
    std::fs::copy(
        t.sounds.join("phone-outgoing-calling.oga"),
        input.join("ogg/calling.oga"),
    )
    .unwrap();
    t.convert(&oga, &input.join("conv/c_wav.wav"), &["-c:a", "pcm_s16le"]);
    t.convert(
        &oga,
        &input.join("conv/c_flac.flac"),
        &["-c:a", "flac", "-sample_fmt", "s16"],
    );
    t.convert(
        &oga,
        &input.join("conv/c_mp3.mp3"),
        &["-c:a", "libmp3lame", "-b:a", "128k"],
    );
    t.convert(&oga, &input.join("q/c_wav.wav"), &["-c:a", "pcm_s16le"]);

    let run = build(dir.path(), &input, &out, &["-j", "1"]);
    assert!(run.status.success(), "{}", text(&run));

    // (output, source it is timed by, codec, channels)
    let expect = [
        ("ogg/complete.ogg", "ogg/complete.oga", "vorbis", 2),
        ("ogg/alarm.ogg", "ogg/alarm.oga", "vorbis", 2),
        ("ogg/calling.ogg", "ogg/calling.oga", "vorbis", 1),
        ("conv/c_wav.wav", "conv/c_wav.wav", "pcm_s16le", 2),
        ("conv/c_flac.wav", "conv/c_flac.flac", "pcm_s16le", 2),
        ("conv/c_mp3.ogg", "conv/c_mp3.mp3", "vorbis", 2),
        ("q/c_wav.ogg", "q/c_wav.wav", "vorbis", 2),
    ];
    let manifest = hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    for (path, source, codec, channels) in expect {
        let (c, rate, ch, _) = t.probe(&out.join(path));
        assert_eq!((c.as_str(), rate, ch), (codec, RATE, channels), "{path}");
        let ours = decoded_seconds(&t, &out.join(path));
        // A Vorbis source is as long as its last granule position says (ffprobe's
        // duration; symphonia and libvorbis trim to it): ffmpeg's decoder does not trim the
        // end of a stream whose audio is one page, as `calling.oga`'s is.
        let theirs = match source.ends_with(".oga") {
            true => t.probe(&input.join(source)).3,
            false => decoded_seconds(&t, &input.join(source)),
        };
        eprintln!("{path}: {ours:.4} s decoded, source {theirs:.4} s");
        assert!(
            (ours - theirs).abs() <= 0.005,
            "{path}: {ours} s decoded, the source {theirs} s"
        );
        let entry = manifest
            .get(fnv1a64(path))
            .unwrap_or_else(|| panic!("{path} is not in the manifest"));
        assert_eq!((entry.kind, entry.path.as_str()), (EntryKind::Audio, path));
    }
    assert_eq!(manifest.entries().len(), expect.len());

    // At the output rate, the Vorbis source itself; at 48 kHz, re-encoded no larger than
    // 1.2 times.
    assert!(
        std::fs::read(out.join("ogg/complete.ogg")).unwrap() == std::fs::read(&oga).unwrap(),
        "complete.oga (44.1 kHz) is not passed through byte for byte"
    );
    let (alarm_in, alarm_out) = (
        std::fs::metadata(input.join("ogg/alarm.oga"))
            .unwrap()
            .len(),
        std::fs::metadata(out.join("ogg/alarm.ogg")).unwrap().len(),
    );
    eprintln!("alarm: {alarm_in} B -> {alarm_out} B");
    assert!(
        alarm_out as f64 <= alarm_in as f64 * 1.2,
        "alarm.oga resampled: {alarm_in} B -> {alarm_out} B"
    );
    assert_ne!(
        std::fs::read(out.join("ogg/alarm.ogg")).unwrap(),
        std::fs::read(input.join("ogg/alarm.oga")).unwrap()
    );

    // `ogg` at 0.7: the peak within 1 dB of the source's, and a fraction of the WAV's size.
    let source_peak = peak_db(&t.pcm_f32(&input.join("q/c_wav.wav"), None));
    let ogg_peak = peak_db(&t.pcm_f32(&out.join("q/c_wav.ogg"), None));
    eprintln!("peak: source {source_peak:.2} dB, ogg {ogg_peak:.2} dB");
    assert!(
        (source_peak - ogg_peak).abs() <= 1.0,
        "peak {ogg_peak:.2} dB vs the source's {source_peak:.2} dB"
    );
    let (wav_len, ogg_len) = (
        std::fs::metadata(out.join("conv/c_wav.wav")).unwrap().len(),
        std::fs::metadata(out.join("q/c_wav.ogg")).unwrap().len(),
    );
    assert!(
        ogg_len * 4 < wav_len,
        "{ogg_len} B of Vorbis vs {wav_len} B of PCM"
    );

    // The CI gate, inspect and info read every output.
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(check.status.success(), "{}", text(&check));
    let inspect = common::assetc(&["inspect", out.join("ogg/calling.ogg").to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&inspect.stdout);
    assert!(inspect.status.success(), "{}", text(&inspect));
    assert!(
        shown.contains("Ogg Vorbis") && shown.contains("44100 Hz") && shown.contains("mono"),
        "{shown}"
    );
    let info = common::assetc(&["info", out.to_str().unwrap(), "--json"]);
    let sounds = String::from_utf8_lossy(&info.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == "totals")
        .map(|v| v["totals"]["sounds"].as_u64());
    assert_eq!(sounds, Some(Some(expect.len() as u64)));

    // The same bytes on two threads.
    let two = dir.path().join("out2");
    let run = build(dir.path(), &input, &two, &["-j", "2"]);
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        without_cache(common::tree(&out)) == without_cache(common::tree(&two)),
        "-j1 and -j2 differ"
    );
}

#[test]
fn a_damaged_ogg_fails_alone_naming_the_file() {
    let Some(t) = tools("audio_formats damaged") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    let oga = t.sounds.join("complete.oga");
    std::fs::copy(&oga, input.join("good.oga")).unwrap();
    t.convert(&oga, &input.join("pcm.wav"), &["-c:a", "pcm_s16le"]);
    // One byte changed in the middle of an audio page.
    let mut bytes = std::fs::read(&oga).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5A;
    std::fs::write(input.join("broken.oga"), &bytes).unwrap();

    let run = build(dir.path(), &input, &out, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v["reason"] == "asset-finished")
        .collect();
    let event = |source: &str| {
        events
            .iter()
            .find(|v| v["source"] == source)
            .unwrap_or_else(|| panic!("no event for {source}: {stdout}"))
    };
    let broken = event("broken.oga");
    assert_eq!(broken["status"], "failed");
    let error = broken["error"].as_str().unwrap();
    assert!(
        error.contains("broken.oga") && error.contains("CRC"),
        "{error}"
    );
    assert!(!out.join("broken.ogg").exists());
    assert_eq!(event("good.oga")["status"], "built");
    assert_eq!(event("pcm.wav")["status"], "built");
    assert_eq!(t.probe(&out.join("good.ogg")).0, "vorbis");
    assert_eq!(t.probe(&out.join("pcm.wav")).0, "pcm_s16le");
}

#[test]
fn bad_format_settings_are_configuration_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    for (table, says) in [
        (
            "compression_quality = 1.5",
            "compression_quality must be a number from 0 to 1",
        ),
        (
            "compression_quality = -0.1",
            "compression_quality must be a number from 0 to 1",
        ),
        ("format = \"mp3\"", "no MP3 encoder"),
        (
            "format = \"flac\"",
            "expected one of `auto`, `wav`, `ogg`, `mp3`",
        ),
    ] {
        let config = dir.path().join("build.toml");
        std::fs::write(&config, format!("[audio]\n{table}\n")).unwrap();
        let run = common::assetc(&[
            "build",
            input.to_str().unwrap(),
            "-o",
            dir.path().join("out").to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ]);
        assert_eq!(run.status.code(), Some(2), "{table}: {}", text(&run));
        assert!(text(&run).contains(says), "{table}: {}", text(&run));
    }
}

/// ffmpeg's EBU R128 meter (the `ebur128` filter) on `file`: integrated loudness (LUFS)
/// and true peak (dBFS), from its summary.
fn ffmpeg_loudness(t: &Tools, file: &Path) -> (f64, f64) {
    let out = std::process::Command::new(&t.ffmpeg)
        .args(["-nostdin", "-hide_banner", "-nostats", "-i"])
        .arg(file)
        .args(["-af", "ebur128=peak=true", "-f", "null", "-"])
        .output()
        .expect("ffmpeg runs");
    let log = String::from_utf8_lossy(&out.stderr);
    let summary = &log[log.rfind("Summary:").expect("an ebur128 summary")..];
    let value = |label: &str| -> f64 {
        let at = summary
            .find(label)
            .unwrap_or_else(|| panic!("no {label}: {summary}"));
        summary[at + label.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let peak_at = summary.find("True peak:").expect("a true peak section");
    let peak: f64 = summary[peak_at..]
        .split("Peak:")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("a true peak value");
    (value("I:"), peak)
}

#[test]
fn loudness_levels_every_sound_as_ffmpegs_meter_reads_it() {
    let Some(t) = tools("audio_formats loudness") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input).unwrap();
    let names = [
        "complete",
        "bell",
        "message",
        "dialog-warning",
        "alarm-clock-elapsed",
    ];
    for name in names {
        t.convert(
            &t.sounds.join(format!("{name}.oga")),
            &input.join(format!("{name}.wav")),
            &["-c:a", "pcm_s16le"],
        );
    }
    std::fs::write(
        dir.path().join("build.toml"),
        "[audio]\nformat = \"wav\"\nbit_depth = 32\nloudness = -20.0\n",
    )
    .unwrap();
    let run = build(dir.path(), &input, &out, &[]);
    assert!(run.status.success(), "{}", text(&run));
    let log = text(&run);
    let mut levelled = 0;
    for name in names {
        let file = out.join(format!("{name}.wav"));
        let (before, _) = ffmpeg_loudness(&t, &input.join(format!("{name}.wav")));
        let (integrated, peak) = ffmpeg_loudness(&t, &file);
        // A sound too short for BS.1770's 400 ms blocks has no integrated loudness (ffmpeg
        // says -70, its floor): it is left as it is.
        if before <= -69.9 {
            assert!(
                integrated <= -69.9,
                "{name}: unmeasurable, yet changed to {integrated}"
            );
            continue;
        }
        // Either at the target, or as near as the true-peak cap allows, and then said.
        let capped = log
            .lines()
            .any(|l| l.contains(&format!("{name}.wav")) && l.contains("levelled to"));
        if (integrated - -20.0).abs() > 0.5 {
            assert!(
                capped,
                "{name}: {before} -> {integrated} LUFS, no warning:\n{log}"
            );
            assert!(
                peak > -1.5,
                "{name}: capped below the target with peak {peak}"
            );
        }
        assert!(
            peak <= -0.7,
            "{name}: true peak {peak} dBFS past the -1 dBTP cap"
        );
        // `inspect` reads the same loudness as ffmpeg's meter.
        let shown = common::assetc(&["inspect", file.to_str().unwrap()]);
        let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
        let row = shown
            .lines()
            .find(|l| l.contains("LUFS"))
            .unwrap_or_else(|| panic!("no loudness row:\n{shown}"));
        let ours: f64 = row
            .split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{row}"));
        assert!(
            (ours - integrated).abs() < 0.3,
            "{name}: inspect {ours}, ffmpeg {integrated}"
        );
        levelled += 1;
    }
    assert!(levelled >= 3, "too few sounds long enough to measure");
    // Unset, a sound keeps its own level: the setting is in the audio key only.
    std::fs::write(dir.path().join("build.toml"), "[audio]\nformat = \"wav\"\n").unwrap();
    let plain = build(dir.path(), &input, &out, &[]);
    assert!(plain.status.success(), "{}", text(&plain));
    let (kept, _) = ffmpeg_loudness(&t, &out.join("complete.wav"));
    let (source, _) = ffmpeg_loudness(&t, &input.join("complete.wav"));
    assert!((kept - source).abs() < 0.2, "{kept} vs {source}");
}
