//! Our Qt Quick 3D scenes look like Balsam 6.12's: both scenes of a corpus source are
//! rendered in Qt Quick 3D (PySide6 6.12, Xvfb + Mesa llvmpipe) by
//! `shared/peers/qt/render_scenes.py --unlit`, which draws Balsam | ours | ours with
//! `flipV` toggled at runtime side by side with one camera. Unlit, the panels show
//! `baseColor * baseColorMap`, so texture mapping (the V origin, UVs, materials) is what
//! is compared: at most 2.5% of the pixels of our panel may differ from Balsam's by more
//! than 24 levels in a channel (mip selection and filtering differ a little). The third
//! panel proves the comparison can fail: with V mirrored the same check must fail. Qt
//! must print no message while loading and drawing the scenes.
//!
//! The same comparison runs for skinned sources (Fox, SimpleSkin) and a morphing one
//! (MorphStressTest) at two frames of their first clip, driving both scenes' Timelines;
//! and every corpus scene must load in Qt Quick with its timelines running and no Qt
//! message.

use crate::common;

use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::MeshSettings;
use assetc::targets::qtmesh::{build_qtmesh, QtTargetSettings};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Largest channel difference that counts as equal.
const LEVELS: u8 = 24;
/// Most pixels (fraction of a panel) allowed to differ by more than [`LEVELS`].
const MAX_DIFFERING: f64 = 0.025;
/// Each panel's label (`balsam 6.12`, `assetc`) is drawn in its top rows; they are not
/// part of the scene and are left out of the comparison.
const LABEL_ROWS: u32 = 24;
/// Fewest pixels (fraction of a panel) that must change between two frames of a clip.
const MIN_MOVED: f64 = 0.002;
/// Panel size in pixels: big enough for textures to show, small enough for llvmpipe.
const SIZE: u32 = 320;

struct Tools {
    balsam: PathBuf,
    script: PathBuf,
}

/// Balsam 6.12 (PySide6), the render script beside the corpus, Xvfb; names the missing
/// ones (failing under CI) when not all are there.
fn tools(test: &str, corpus: &Path) -> Option<Tools> {
    let balsam = common::pyside6_tool("balsam");
    let script = std::env::var_os("ASSETC_RENDER_SCENES")
        .map(PathBuf::from)
        .unwrap_or_else(|| corpus.join("../peers/qt/render_scenes.py"));
    let xvfb = common::tool("ASSETC_XVFB", "Xvfb", &["/usr/bin"]);
    let mut absent = Vec::new();
    if balsam.is_none() {
        absent.push("PySide6's balsam (pip pyside6-essentials/addons 6.12)".to_string());
    }
    if !script.is_file() {
        absent.push(format!("{} (ASSETC_RENDER_SCENES)", script.display()));
    }
    if xvfb.is_none() && std::env::var_os("DISPLAY").is_none() {
        absent.push("Xvfb (apt-get install xvfb libgl1-mesa-dri)".to_string());
    }
    if !absent.is_empty() {
        common::missing(test, &absent.join(", "));
        return None;
    }
    Some(Tools {
        balsam: balsam?,
        script,
    })
}

fn find_qml(dir: &Path) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}"))
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "qml"))
        .unwrap_or_else(|| panic!("no QML in {dir:?}"))
}

/// Our scene of `src` under `out`; returns its QML file.
fn build_ours(src: &Path, out: &Path) -> PathBuf {
    let stem = src.file_stem().unwrap().to_string_lossy().to_lowercase();
    let scene = import_gltf(src, &stem, &ImportOptions::new(src.parent().unwrap()))
        .unwrap_or_else(|e| panic!("{src:?}: {e}"));
    let output = build_qtmesh(
        &scene,
        &QtTargetSettings::default(),
        &MeshSettings::default(),
    )
    .unwrap_or_else(|e| panic!("{src:?}: {e}"));
    for f in &output.files {
        let p = out.join(&f.rel_path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &f.bytes).unwrap();
    }
    find_qml(&out.join(format!("{stem}.qt")))
}

/// Fraction of the pixels below the label rows whose largest channel difference exceeds
/// [`LEVELS`], between panels `a` and `b` of the side-by-side image.
/// Balsam 6.12's scene of `src` in `out`: its QML file.
fn build_balsams(tools: &Tools, src: &Path, out: &Path) -> PathBuf {
    let balsam = Command::new(&tools.balsam)
        .env("QT_QPA_PLATFORM", "offscreen")
        .arg("-o")
        .arg(out)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        balsam.status.success(),
        "{}: balsam failed: {balsam:?}",
        src.display()
    );
    find_qml(out)
}

fn differing(img: &image::RgbImage, a: u32, b: u32) -> f64 {
    let panel = img.width() / 3;
    let (mut over, mut total) = (0u64, 0u64);
    for y in LABEL_ROWS..img.height() {
        for x in 0..panel {
            let (p, q) = (
                img.get_pixel(a * panel + x, y),
                img.get_pixel(b * panel + x, y),
            );
            let d = p.0.iter().zip(q.0).map(|(x, y)| x.abs_diff(y)).max();
            over += u64::from(d.unwrap_or(0) > LEVELS);
            total += 1;
        }
    }
    over as f64 / total.max(1) as f64
}

#[test]
fn unlit_scenes_match_balsams_pixels() {
    let test = "unlit_scenes_match_balsams_pixels";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let Some(tools) = tools(test, &corpus) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut table = vec!["| source | differing ours | differing mirrored V |".to_string()];
    let mut failures = Vec::new();
    for rel in ["terrain/terrain.glb", "FlightHelmet/FlightHelmet.gltf"] {
        let src = corpus.join("gltf").join(rel);
        if !src.is_file() {
            common::missing(test, &src.display().to_string());
            return;
        }
        let dir = tmp.path().join(rel.replace('/', "_"));
        let ours = build_ours(&src, &dir.join("ours"));
        let theirs = build_balsams(&tools, &src, &dir.join("balsam"));
        let png = dir.join("panels.png");
        let _one_at_a_time = common::RENDER_SCENES
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let run = Command::new("python3")
            .arg(&tools.script)
            .args(["--unlit", "--size", &SIZE.to_string()])
            .arg(&theirs)
            .arg(&ours)
            .arg(&png)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&run.stdout).into_owned()
            + &String::from_utf8_lossy(&run.stderr);
        assert!(
            run.status.success() && png.is_file(),
            "{rel}: render failed:\n{log}"
        );
        let ours_load = log
            .lines()
            .find(|l| l.starts_with("LOAD ours"))
            .unwrap_or("no LOAD line");
        assert!(
            ours_load.contains("status Ready, object ok, 0 errors"),
            "{rel}: our scene did not load: {ours_load}\n{log}"
        );
        // Every Qt message is printed as a QTMSG line. libpng's notes are about the
        // source's own image files, which both scenes copy unchanged into maps/.
        let messages: Vec<&str> = log
            .lines()
            .filter(|l| l.starts_with("QTMSG") && !l.contains("libpng warning"))
            .collect();
        assert!(messages.is_empty(), "{rel}: Qt messages:\n{log}");
        let img = image::open(&png)
            .unwrap_or_else(|e| panic!("{png:?}: {e}"))
            .to_rgb8();
        assert_eq!(img.width(), 3 * SIZE, "{rel}: three panels");
        let (ours_diff, mirrored_diff) = (differing(&img, 0, 1), differing(&img, 0, 2));
        table.push(format!(
            "| {rel} | {:.2}% | {:.2}% |",
            100.0 * ours_diff,
            100.0 * mirrored_diff
        ));
        if ours_diff > MAX_DIFFERING {
            failures.push(format!(
                "{rel}: {:.2}% of pixels differ by more than {LEVELS} levels (at most {:.1}%); \
                 see {png:?}",
                100.0 * ours_diff,
                100.0 * MAX_DIFFERING
            ));
        }
        if mirrored_diff <= MAX_DIFFERING {
            failures.push(format!(
                "{rel}: with V mirrored our scene still passes ({:.2}% of pixels differ): the \
                 comparison cannot see the textures",
                100.0 * mirrored_diff
            ));
        }
    }
    println!("{}", table.join("\n"));
    if !failures.is_empty() {
        // Keep the images for a look.
        let kept = tmp.keep();
        panic!("{}\n(images under {kept:?})", failures.join("\n"));
    }
}

/// Loads every QML file given on the command line in one Qt Quick engine (PySide6),
/// lets timelines run for half a second and prints every Qt message as `QTMSG`.
const LOAD_SCRIPT: &str = r#"
import os, sys
os.environ.setdefault('QT_QPA_PLATFORM', 'offscreen')
from PySide6.QtCore import QTimer, QUrl, qInstallMessageHandler
from PySide6.QtGui import QGuiApplication
from PySide6.QtQml import QQmlComponent, QQmlEngine
qInstallMessageHandler(lambda mode, ctx, msg: print(f'QTMSG [{mode.name}] {msg}', flush=True))
app = QGuiApplication([sys.argv[0]])
engine = QQmlEngine()
keep = []
for p in sys.argv[1:]:
    c = QQmlComponent(engine, QUrl.fromLocalFile(os.path.abspath(p)))
    obj = c.create() if c.isReady() else None
    errs = [e.toString() for e in c.errors()]
    print(f'LOAD {p}: {"ok" if obj else "NONE"}' + ''.join(f'\n  ERR {e}' for e in errs), flush=True)
    keep.append(obj)
QTimer.singleShot(500, app.quit)
app.exec()
"#;

#[test]
fn every_corpus_scene_loads_in_qt_without_messages() {
    let test = "every_corpus_scene_loads_in_qt_without_messages";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    if common::pyside6_tool("balsam").is_none() {
        common::missing(test, "PySide6 6.12 (pip pyside6-essentials/addons)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut scenes = Vec::new();
    for (i, src) in common::gltf_files(&corpus.join("gltf")).iter().enumerate() {
        scenes.push(build_ours(src, &tmp.path().join(i.to_string())));
    }
    assert!(scenes.len() > 20, "only {} scenes", scenes.len());
    let script = tmp.path().join("load.py");
    std::fs::write(&script, LOAD_SCRIPT).unwrap();
    let run = Command::new("python3")
        .arg(&script)
        .args(&scenes)
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the loader failed:\n{log}");
    let loaded = log
        .lines()
        .filter(|l| l.starts_with("LOAD ") && l.ends_with(": ok"))
        .count();
    assert_eq!(loaded, scenes.len(), "scenes that did not load:\n{log}");
    let messages: Vec<&str> = log.lines().filter(|l| l.starts_with("QTMSG")).collect();
    assert!(messages.is_empty(), "Qt messages:\n{log}");
    println!("{loaded} scenes loaded without a Qt message");
}

/// Runs `render_scenes.py` with one clip of both scenes at one frame: the Timeline named
/// `ASSETC_CLIP` is enabled at frame `ASSETC_FRAME` (milliseconds, in Balsam's and our
/// timelines alike). The scenes given are [`still`] copies, so no clip has moved
/// anything before.
const FRAME_SCRIPT: &str = r#"
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location('render_scenes', os.environ['ASSETC_RENDER_SCRIPT'])
rs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rs)
clip, frame = os.environ['ASSETC_CLIP'], float(os.environ['ASSETC_FRAME'])
original = rs.wrapper
def wrapper(*args, **kwargs):
    qml = original(*args, **kwargs)
    drive = '''
    function setFrames(item) {
        if (!item) return 0;
        var timelines = [];
        for (var i = 0; i < item.data.length; ++i) {
            var t = item.data[i];
            if (t && t.keyframeGroups !== undefined && t.currentFrame !== undefined) timelines.push(t);
        }
        var chosen = null;
        for (var j = 0; j < timelines.length; ++j) {
            for (var a = 0; a < timelines[j].animations.length; ++a) timelines[j].animations[a].running = false;
            timelines[j].enabled = false;
            if (timelines[j].objectName === "%s") chosen = timelines[j];
        }
        if (!chosen) return 0;
        chosen.enabled = true;
        chosen.currentFrame = %f + 1;
        chosen.currentFrame = %f;
        return 1;
    }
    function setUp() {
        console.info("FRAMES " + setFrames(l0.item) + " " + setFrames(l1.item) + " " + setFrames(l2.item));''' % (clip, frame, frame)
    return qml.replace('    function setUp() {', drive, 1)
rs.wrapper = wrapper
sys.exit(rs.main(sys.argv[1:]))
"#;

/// A copy of a scene (beside it, so its relative paths resolve) whose Timelines start
/// disabled and stopped. Balsam's scenes start every clip at once, and a clip that ran
/// leaves its values behind (disabling a Timeline does not reliably restore them), so
/// both scenes are loaded still and only the compared clip is switched on.
fn still(qml: &Path) -> PathBuf {
    let text = std::fs::read_to_string(qml).unwrap_or_else(|e| panic!("{qml:?}: {e}"));
    let still: String = text
        .lines()
        .map(|l| match l.trim() {
            "enabled: true" => l.replace("true", "false"),
            "running: true" => l.replace("true", "false"),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = qml.with_file_name("Still.qml");
    std::fs::write(&path, still).unwrap();
    path
}

#[test]
fn animated_scenes_match_balsams_pixels_at_several_times() {
    let test = "animated_scenes_match_balsams_pixels_at_several_times";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let Some(tools) = tools(test, &corpus) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("frames.py");
    std::fs::write(&script, FRAME_SCRIPT).unwrap();
    let mut table = vec!["| source | clip | frame (ms) | differing |".to_string()];
    let mut failures = Vec::new();
    // Two skinned sources and a morphing one, each at two times of its first clip
    // (MorphStressTest: where one of its targets peaks); two renders take ~13 s.
    for (rel, clip, frames) in [
        ("animated/Fox.glb", "Survey", [400.0, 1700.0]),
        // Bends in the middle: a coarser level of detail would show (and did).
        ("SimpleSkin/SimpleSkin.gltf", "timeline0", [1000.0, 5000.0]),
        (
            "animated/MorphStressTest.gltf",
            "Individuals",
            [460.0, 4120.0],
        ),
    ] {
        let src = corpus.join("gltf").join(rel);
        if !src.is_file() {
            common::missing(test, &src.display().to_string());
            return;
        }
        let dir = tmp.path().join(rel.replace('/', "_"));
        let ours = build_ours(&src, &dir.join("ours"));
        let (theirs, ours) = (
            still(&build_balsams(&tools, &src, &dir.join("balsam"))),
            still(&ours),
        );
        let mut ours_panels: Vec<image::RgbImage> = Vec::new();
        for frame in frames {
            let png = dir.join(format!("frame{frame}.png"));
            let _one_at_a_time = common::RENDER_SCENES
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let run = Command::new("python3")
                .arg(&script)
                .args(["--unlit", "--size", &SIZE.to_string()])
                .arg(&theirs)
                .arg(&ours)
                .arg(&png)
                .env("ASSETC_RENDER_SCRIPT", &tools.script)
                .env("ASSETC_CLIP", clip)
                .env("ASSETC_FRAME", frame.to_string())
                .output()
                .unwrap();
            let log = String::from_utf8_lossy(&run.stdout).into_owned()
                + &String::from_utf8_lossy(&run.stderr);
            assert!(
                run.status.success() && png.is_file(),
                "{rel} at {frame}: render failed:\n{log}"
            );
            // Balsam's scene and ours (twice) each have the clip.
            assert!(
                log.contains("FRAMES 1 1 1"),
                "{rel}: clip {clip:?} not found in both scenes:\n{log}"
            );
            let messages: Vec<&str> = log
                .lines()
                .filter(|l| {
                    l.starts_with("QTMSG") && !l.contains("libpng warning") && !l.contains("FRAMES")
                })
                .collect();
            assert!(messages.is_empty(), "{rel} at {frame}: Qt messages:\n{log}");
            let img = image::open(&png)
                .unwrap_or_else(|e| panic!("{png:?}: {e}"))
                .to_rgb8();
            let diff = differing(&img, 0, 1);
            table.push(format!(
                "| {rel} | {clip} | {frame} | {:.2}% |",
                100.0 * diff
            ));
            if diff > MAX_DIFFERING {
                failures.push(format!(
                    "{rel} at {frame} ms: {:.2}% of pixels differ by more than {LEVELS} levels",
                    100.0 * diff
                ));
            }
            ours_panels.push(img);
        }
        // The frames must differ, or the comparison says nothing about motion. llvmpipe
        // draws a still scene identically every time, so a few hundred pixels (the
        // morphing pillars rise by a few pixels at this size) are motion.
        let moved = ours_panels
            .windows(2)
            .map(|w| {
                let mut pair = w[0].clone();
                let panel = pair.width() / 3;
                image::imageops::replace(
                    &mut pair,
                    &image::imageops::crop_imm(&w[1], panel, 0, panel, w[1].height()).to_image(),
                    0,
                    0,
                );
                // Panel 0 now holds the later frame of our scene, panel 1 the earlier one.
                differing(&pair, 0, 1)
            })
            .fold(f64::INFINITY, f64::min);
        table.push(format!(
            "| {rel} | {clip} | between frames, ours | {:.2}% |",
            100.0 * moved
        ));
        if moved <= MIN_MOVED {
            failures.push(format!(
                "{rel}: our scene changes only {:.2}% of pixels between frames: the clip does not play",
                100.0 * moved
            ));
        }
    }
    println!("{}", table.join("\n"));
    if !failures.is_empty() {
        let kept = tmp.keep();
        panic!("{}\n(images under {kept:?})", failures.join("\n"));
    }
}
