//! glTF samplers reach every target that can hold them: `.hmat`'s `samplers` field (wrapS,
//! wrapT, nearest magnification per texture slot) and the Qt target's `Texture` tiling
//! modes and `magFilter`, written as Balsam 6.12 writes them.
//!
//! A generated scene holds three textured quads, one per wrap mode (REPEAT with LINEAR
//! magnification, CLAMP_TO_EDGE with NEAREST, MIRRORED_REPEAT with LINEAR), UVs from -1 to
//! 2 so that the wrapping shows. Its `.hmat` must carry exactly those samplers; rendered in
//! Qt Quick 3D beside Balsam's scene of the same file, ours must look like Balsam's, and the
//! three quads must look different from one another (else the test could not tell the
//! modes apart). Every corpus asset's `.hmat` rows must match its glTF samplers too.

use crate::common;

use assetc::formats::hmat;
use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::textures::TextureSettings;
use assetc::targets::hmesh::materials::build_material_table;
use base64::Engine;
use std::path::{Path, PathBuf};
use std::process::Command;

const REPEAT: u32 = 10497;
const CLAMP_TO_EDGE: u32 = 33071;
const MIRRORED_REPEAT: u32 = 33648;
const NEAREST: u32 = 9728;
const LINEAR: u32 = 9729;

/// (wrapS, wrapT, magFilter) of quad i's sampler.
const QUADS: [(u32, u32, u32); 3] = [
    (REPEAT, REPEAT, LINEAR),
    (CLAMP_TO_EDGE, CLAMP_TO_EDGE, NEAREST),
    (MIRRORED_REPEAT, MIRRORED_REPEAT, LINEAR),
];

/// An 8x8 texture that is asymmetric in both directions (red grows with x, green with y)
/// with a blue checker, so repeat, mirror and clamp each map it differently.
fn texture_png() -> Vec<u8> {
    let img = image::RgbaImage::from_fn(8, 8, |x, y| {
        image::Rgba([
            (x * 32) as u8,
            (y * 32) as u8,
            if (x + y) % 2 == 1 { 255 } else { 0 },
            255,
        ])
    });
    let mut out = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// Three unit quads side by side in the XY plane, quad i at x = 1.2 i, facing +Z, each with
/// its own material and sampler; all share one image.
fn wrap_quads_gltf() -> String {
    let mut data: Vec<u8> = Vec::new();
    for i in 0..3 {
        let x0 = 1.2 * i as f32;
        let p: [[f32; 3]; 4] = [
            [x0, 0.0, 0.0],
            [x0 + 1.0, 0.0, 0.0],
            [x0 + 1.0, 1.0, 0.0],
            [x0, 1.0, 0.0],
        ];
        data.extend_from_slice(bytemuck::cast_slice(&p));
    }
    // glTF's v points down: the bottom edge (y = 0) has v = 2, the top v = -1.
    let uv: [[f32; 2]; 4] = [[-1.0, 2.0], [2.0, 2.0], [2.0, -1.0], [-1.0, -1.0]];
    data.extend_from_slice(bytemuck::cast_slice(&uv));
    data.extend_from_slice(bytemuck::cast_slice(&[0u16, 1, 2, 0, 2, 3]));
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let accessors: Vec<serde_json::Value> = (0..3)
        .map(|i| {
            let x0 = 1.2 * i as f32;
            serde_json::json!({"bufferView": 0, "byteOffset": 48 * i, "componentType": 5126,
                "count": 4, "type": "VEC3", "min": [x0, 0.0, 0.0], "max": [x0 + 1.0, 1.0, 0.0]})
        })
        .chain([
            serde_json::json!({"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"}),
            serde_json::json!({"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}),
        ])
        .collect();
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": (0..3).map(|i| serde_json::json!({"mesh": i, "name": format!("quad{i}")}))
            .collect::<Vec<_>>(),
        "meshes": (0..3).map(|i| serde_json::json!({"primitives": [{
            "attributes": {"POSITION": i, "TEXCOORD_0": 3}, "indices": 4, "material": i}]}))
            .collect::<Vec<_>>(),
        "materials": (0..3).map(|i| serde_json::json!({"name": format!("wrap{i}"),
            "pbrMetallicRoughness": {"baseColorTexture": {"index": i}, "metallicFactor": 0.0}}))
            .collect::<Vec<_>>(),
        "textures": (0..3).map(|i| serde_json::json!({"source": 0, "sampler": i}))
            .collect::<Vec<_>>(),
        "samplers": QUADS.iter().map(|&(s, t, mag)| serde_json::json!({
            "wrapS": s, "wrapT": t, "magFilter": mag}))
            .collect::<Vec<_>>(),
        "images": [{"uri": format!("data:image/png;base64,{}", b64(&texture_png()))}],
        "buffers": [{"byteLength": data.len(),
            "uri": format!("data:application/octet-stream;base64,{}", b64(&data))}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 144},
            {"buffer": 0, "byteOffset": 144, "byteLength": 32},
            {"buffer": 0, "byteOffset": 176, "byteLength": 12}
        ],
        "accessors": accessors,
    });
    serde_json::to_string_pretty(&doc).unwrap()
}

/// `.hmat`'s 2-bit wrap value for a glTF wrap mode.
fn hmat_wrap(gltf: u32) -> u32 {
    match gltf {
        CLAMP_TO_EDGE => hmat::WRAP_CLAMP_TO_EDGE,
        MIRRORED_REPEAT => hmat::WRAP_MIRRORED_REPEAT,
        _ => hmat::WRAP_REPEAT,
    }
}

#[test]
fn hmat_rows_carry_each_quads_sampler() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("wrap.gltf"), wrap_quads_gltf()).unwrap();
    let build = common::assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
    ]);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let files = common::tree(out.path());
    let (name, bytes) = files
        .iter()
        .find(|(p, _)| p.ends_with(".hmat"))
        .expect("a .hmat");
    assert_eq!(hmat::validate(bytes), vec![], "{name}");
    let rows = hmat::read(bytes).unwrap().materials;
    assert_eq!(rows.len(), 3, "{name}");
    // Slot i is material i (each quad's one primitive, in node order).
    for (i, (row, &(s, t, mag))) in rows.iter().zip(&QUADS).enumerate() {
        let want = hmat::SlotSampler {
            wrap_s: hmat_wrap(s),
            wrap_t: hmat_wrap(t),
            mag_nearest: mag == NEAREST,
        };
        assert_eq!(
            hmat::sampler_of(row.samplers, hmat::SLOT_BASE_COLOR),
            want,
            "row {i}"
        );
        // Only the base colour slot is used: every other slot's bits are zero.
        assert_eq!(row.samplers >> hmat::SAMPLER_BITS, 0, "row {i}");
    }
    // Row 1 by hand: clamp (1) in S, clamp (1 << 2) in T, nearest (1 << 4).
    assert_eq!(rows[1].samplers, 0b10101);
    assert_eq!(rows[2].samplers, 0b1010);
    assert_eq!(rows[0].samplers, 0);
    let check = common::assetc(&["check", out.path().to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// The `.hmat` sampler bits glTF JSON `doc` asks for on a material's texture info `info`
/// (None for an empty slot): read from the JSON directly, not through the importer.
fn expected_bits(doc: &serde_json::Value, info: Option<&serde_json::Value>) -> u32 {
    let Some(info) = info else { return 0 };
    let texture = &doc["textures"][info["index"].as_u64().unwrap_or(0) as usize];
    let Some(sampler) = texture["sampler"].as_u64() else {
        return 0;
    };
    let s = &doc["samplers"][sampler as usize];
    let wrap = |k: &str| hmat_wrap(s[k].as_u64().map_or(REPEAT, |v| v as u32));
    let nearest = s["magFilter"].as_u64() == Some(u64::from(NEAREST));
    wrap("wrapS") | wrap("wrapT") << 2 | u32::from(nearest) << 4
}

/// The JSON of a `.gltf` file or of a `.glb`'s first chunk (at byte 20, its length at 12).
fn gltf_json(bytes: &[u8]) -> serde_json::Value {
    let json = if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        &bytes[20..20 + len]
    } else {
        bytes
    };
    serde_json::from_slice(json).unwrap()
}

#[test]
fn corpus_hmat_samplers_match_the_gltf_samplers() {
    let test = "corpus_hmat_samplers_match_the_gltf_samplers";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let mut checked = 0;
    let mut with_sampler = 0;
    for src in common::gltf_files(&corpus.join("gltf")) {
        let doc = gltf_json(&std::fs::read(&src).unwrap());
        let Ok(scene) = import_gltf(&src, "corpus", &ImportOptions::new(src.parent().unwrap()))
        else {
            continue;
        };
        let slots: Vec<Option<usize>> = (0..scene.materials.len()).map(Some).collect();
        let table = build_material_table(&scene, &slots, &TextureSettings::default())
            .unwrap_or_else(|e| panic!("{}: {e}", src.display()));
        for (i, row) in table.rows.iter().enumerate() {
            let m = &doc["materials"][i];
            let pbr = &m["pbrMetallicRoughness"];
            let infos = [
                pbr.get("baseColorTexture"),
                pbr.get("metallicRoughnessTexture"),
                m.get("normalTexture"),
                m.get("occlusionTexture"),
                m.get("emissiveTexture"),
            ];
            for (slot, info) in (0u32..).zip(infos) {
                let want = hmat::SlotSampler::from_bits(expected_bits(&doc, info));
                assert_eq!(
                    hmat::sampler_of(row.samplers, slot),
                    want,
                    "{} materials[{i}] slot {slot}",
                    src.display()
                );
                with_sampler += usize::from(info.is_some());
            }
            checked += 1;
        }
    }
    eprintln!("{checked} corpus materials, {with_sampler} texture slots checked");
    assert!(checked > 0 && with_sampler > 0);
}

/// Largest channel difference that counts as equal (as in tests/it/qtmesh_render.rs).
const LEVELS: u8 = 24;
/// Most pixels (fraction of a panel) allowed to differ by more than [`LEVELS`].
const MAX_DIFFERING: f64 = 0.025;
const SIZE: u32 = 360;
/// Each panel's label is drawn in its top rows; they are left out.
const LABEL_ROWS: u32 = 24;
/// `render_scenes.py`'s clear colour, #5a6470.
const CLEAR: [u8; 3] = [0x5a, 0x64, 0x70];

fn find_qml(dir: &Path) -> PathBuf {
    common::tree(dir)
        .into_iter()
        .map(|(p, _)| dir.join(p))
        .find(|p| p.extension().is_some_and(|e| e == "qml"))
        .unwrap_or_else(|| panic!("no QML in {dir:?}"))
}

/// Column ranges of panel `panel` where the scene covers the clear colour, left to right.
fn covered_runs(img: &image::RgbImage, panel: u32) -> Vec<(u32, u32)> {
    let mut runs = Vec::new();
    let mut start = None;
    for x in 0..SIZE {
        let covered = (LABEL_ROWS..SIZE).any(|y| {
            let p = img.get_pixel(panel * SIZE + x, y).0;
            p.iter().zip(CLEAR).any(|(a, b)| a.abs_diff(b) > 8)
        });
        match (covered, start) {
            (true, None) => start = Some(x),
            (false, Some(s)) => {
                runs.push((s, x));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, SIZE));
    }
    runs
}

/// Rows `[top, bottom)` of panel `panel` where columns `x0..x1` cover the clear colour.
fn covered_rows(img: &image::RgbImage, panel: u32, (x0, x1): (u32, u32)) -> (u32, u32) {
    let covered: Vec<u32> = (LABEL_ROWS..SIZE)
        .filter(|&y| {
            (x0..x1).any(|x| {
                let p = img.get_pixel(panel * SIZE + x, y).0;
                p.iter().zip(CLEAR).any(|(a, b)| a.abs_diff(b) > 8)
            })
        })
        .collect();
    (
        covered.first().copied().unwrap_or(0),
        covered.last().map_or(0, |y| y + 1),
    )
}

/// A quad's colours on a grid, row by row.
type Grid = Vec<[u8; 3]>;

/// Quad `run` of panel `panel` sampled on a 24 x 24 grid of its bounding box, so quads of
/// slightly different on-screen sizes compare texel for texel.
fn quad_grid(img: &image::RgbImage, panel: u32, run: (u32, u32)) -> Grid {
    let (top, bottom) = covered_rows(img, panel, run);
    let n = 24;
    let mut out = Vec::new();
    for j in 0..n {
        for i in 0..n {
            // Cell centres, kept two pixels inside the box (edges are antialiased).
            let x = run.0 + 2 + (run.1 - run.0 - 4) * (2 * i + 1) / (2 * n);
            let y = top + 2 + (bottom - top - 4) * (2 * j + 1) / (2 * n);
            out.push(img.get_pixel(panel * SIZE + x, y).0);
        }
    }
    out
}

/// Fraction of grid cells whose largest channel difference exceeds [`LEVELS`].
fn grid_difference(a: &[[u8; 3]], b: &[[u8; 3]]) -> f64 {
    let over = a
        .iter()
        .zip(b)
        .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > LEVELS))
        .count();
    over as f64 / a.len().max(1) as f64
}

#[test]
fn qt_wrap_modes_render_as_balsams_and_differ_from_one_another() {
    let test = "qt_wrap_modes_render_as_balsams_and_differ_from_one_another";
    let balsam = common::pyside6_tool("balsam");
    let script = std::env::var_os("ASSETC_RENDER_SCENES")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::corpus_dir().join("../peers/qt/render_scenes.py"));
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
    let Some(balsam) = balsam.filter(|_| absent.is_empty()) else {
        common::missing(test, &absent.join(", "));
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("wrap.gltf");
    std::fs::write(&src, wrap_quads_gltf()).unwrap();

    let ours_dir = tmp.path().join("ours");
    let build = common::assetc(&[
        "build",
        tmp.path().to_str().unwrap(),
        "-o",
        ours_dir.to_str().unwrap(),
        "--target",
        "qtmesh",
    ]);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let ours = find_qml(&ours_dir);
    let qml = std::fs::read_to_string(&ours).unwrap();
    for line in [
        "tilingModeHorizontal: Texture.ClampToEdge",
        "tilingModeVertical: Texture.MirroredRepeat",
        "magFilter: Texture.Nearest",
    ] {
        assert!(qml.contains(line), "{line:?} missing from:\n{qml}");
    }

    let theirs_dir = tmp.path().join("balsam");
    let run = Command::new(&balsam)
        .env("QT_QPA_PLATFORM", "offscreen")
        .arg("-o")
        .arg(&theirs_dir)
        .arg(&src)
        .output()
        .unwrap();
    assert!(run.status.success(), "balsam failed: {run:?}");
    let theirs = find_qml(&theirs_dir);

    let png = tmp.path().join("panels.png");
    let _one_at_a_time = common::RENDER_SCENES
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let run = Command::new("python3")
        .arg(&script)
        .args(["--unlit", "--size", &SIZE.to_string(), "--dir", "0,0,1"])
        .arg(&theirs)
        .arg(&ours)
        .arg(&png)
        .output()
        .unwrap();
    let log =
        String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success() && png.is_file(),
        "render failed:\n{log}"
    );
    let messages: Vec<&str> = log.lines().filter(|l| l.starts_with("QTMSG")).collect();
    assert!(messages.is_empty(), "Qt messages:\n{log}");
    if let Some(keep) = std::env::var_os("ASSETC_KEEP_RENDER") {
        let _ = std::fs::copy(&png, keep);
    }
    let img = image::open(&png).unwrap().to_rgb8();
    assert_eq!(img.width(), 3 * SIZE);

    let (balsam_runs, our_runs) = (covered_runs(&img, 0), covered_runs(&img, 1));
    assert_eq!(balsam_runs.len(), 3, "Balsam's quads: {balsam_runs:?}");
    assert_eq!(our_runs.len(), 3, "our quads: {our_runs:?}");
    // (Balsam's, ours) per quad.
    let grids: Vec<(Grid, Grid)> = balsam_runs
        .iter()
        .zip(&our_runs)
        .map(|(&b, &o)| (quad_grid(&img, 0, b), quad_grid(&img, 1, o)))
        .collect();
    let mut table = vec!["| quad | vs Balsam | vs quad 0 | vs quad 1 |".to_string()];
    for (i, (b, o)) in grids.iter().enumerate() {
        table.push(format!(
            "| {i} | {:.1}% | {:.1}% | {:.1}% |",
            100.0 * grid_difference(b, o),
            100.0 * grid_difference(o, &grids[0].1),
            100.0 * grid_difference(o, &grids[1].1)
        ));
    }
    let table = table.join("\n");
    eprintln!("{table}");
    for (i, (b, o)) in grids.iter().enumerate() {
        assert!(
            grid_difference(b, o) <= MAX_DIFFERING,
            "quad {i} differs from Balsam's:\n{table}"
        );
    }
    // Repeat, clamp and mirror map the texture differently on most of the quad: at least
    // a quarter of the grid differs between any two (the middle ninth, UVs 0..1, is the
    // same in all three).
    for (a, b) in [(0, 1), (0, 2), (1, 2)] {
        let d = grid_difference(&grids[a].1, &grids[b].1);
        assert!(d > 0.25, "quads {a} and {b} look alike:\n{table}");
    }
}

#[test]
fn bad_samplers_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let import = |doc: &serde_json::Value| {
        let src = tmp.path().join("wrap.gltf");
        std::fs::write(&src, doc.to_string()).unwrap();
        import_gltf(&src, "wrap", &ImportOptions::new(tmp.path()))
    };
    let good: serde_json::Value = serde_json::from_str(&wrap_quads_gltf()).unwrap();
    let scene = import(&good).unwrap();
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    // A texture naming a sampler that does not exist fails the source, naming the slot.
    let mut missing = good.clone();
    missing["textures"][1]["sampler"] = 7.into();
    let err = import(&missing).unwrap_err().to_string();
    assert!(
        err.contains("materials[1].baseColorTexture") && err.contains("sampler 7"),
        "{err}"
    );
    // A wrap mode glTF does not define is read as REPEAT with a warning naming the sampler.
    let mut odd = good.clone();
    odd["samplers"][1]["wrapS"] = 12345.into();
    let scene = import(&odd).unwrap();
    let t = scene.materials[1].base_color_texture.as_ref().unwrap();
    assert_eq!(t.sampler.wrap_s, assetc::scene::Wrap::Repeat);
    assert_eq!(t.sampler.wrap_t, assetc::scene::Wrap::ClampToEdge);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.to_string().contains("samplers[1].wrapS")),
        "{:?}",
        scene.warnings
    );
}
