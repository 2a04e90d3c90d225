//! `assetc build` compiles a game's whole tree, not only its models: standalone images,
//! HDR panoramas, cubemap folders, colour LUTs and embedded files, each read back by our
//! reader and by the `ktx-parse` reader; files no kind compiles are reported once.
//!
//! Real files: images of the shared corpus and the HDR panoramas of Debian's
//! `blender-data` (`.ci/run` unpacks it; `ASSETC_HDR_DIR`).

use crate::common;

use assetc::formats::hash::fnv1a64;
use assetc::formats::hman::{self, EntryKind};
use assetc::formats::ktx2;
use std::path::{Path, PathBuf};

const TEST: &str = "standalone_kinds";

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// An identity LUT of size `n` in the Resolve layout (TITLE, comments, DOMAIN lines,
/// CRLF), or with `swap` the LUT that outputs (b, g, r).
fn cube_lut(n: usize, swap: bool) -> String {
    let mut t = String::from("# written by the test\r\nTITLE \"grade\"\r\nLUT_3D_SIZE ");
    t += &format!("{n}\r\nDOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 1 1 1\r\n\r\n");
    let f = |i: usize| i as f32 / (n - 1) as f32;
    for b in 0..n {
        for g in 0..n {
            for r in 0..n {
                let (x, y, z) = if swap {
                    (f(b), f(g), f(r))
                } else {
                    (f(r), f(g), f(b))
                };
                t += &format!("{x:.6} {y:.6} {z:.6}\r\n");
            }
        }
    }
    t
}

/// Six square faces cut from an HDR panorama, written as `.exr` into `folder`.
fn cut_faces(panorama: &Path, folder: &Path) {
    let image = image::open(panorama).unwrap().into_rgba32f();
    let side = (image.height() / 2).min(image.width() / 6);
    std::fs::create_dir_all(folder).unwrap();
    for (i, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        let x = i as u32 * side;
        let cut = image::imageops::crop_imm(&image, x, 0, side, side).to_image();
        image::DynamicImage::ImageRgba32F(cut)
            .save(folder.join(format!("{face}.exr")))
            .unwrap();
    }
}

/// A build tree with one source of every kind, an unused `.psd` and `.txt`, and a model
/// whose image must not become a texture of its own.
fn game_tree(root: &Path, corpus: &Path, hdr: &Path) {
    std::fs::create_dir_all(root).unwrap();
    let pattern = corpus.join("gltf/TonemappingTest/TestPattern.png");
    std::fs::copy(&pattern, root.join("ui_pattern.png")).unwrap();
    let normal = corpus.join("gltf/FlightHelmet/FlightHelmet_Materials_LensesMat_Normal.png");
    write(
        &root.join("props/lens.n.png"),
        &std::fs::read(&normal).unwrap(),
    );
    let mut gray = image::GrayImage::new(8, 8);
    for (x, y, p) in gray.enumerate_pixels_mut() {
        p.0 = [(x * 30 + y) as u8];
    }
    gray.save(root.join("props/lens.ao.png")).unwrap();
    write(
        &root.join("sky/night.exr"),
        &std::fs::read(hdr.join("night.exr")).unwrap(),
    );
    write(
        &root.join("sky/city_cube.exr"),
        &std::fs::read(hdr.join("city.exr")).unwrap(),
    );
    cut_faces(&hdr.join("courtyard.exr"), &root.join("sky/Courtyard.env"));
    write(
        &root.join("grade/identity.lut.cube"),
        cube_lut(17, false).as_bytes(),
    );
    write(
        &root.join("grade/swap.lut.cube"),
        cube_lut(5, true).as_bytes(),
    );
    write(&root.join("levels/One.json"), b"{\"level\": 1}\n");
    write(&root.join("notes.txt"), b"todo");
    write(&root.join("art/sky.psd"), b"8BPS");
    write(&root.join("art/more.psd"), b"8BPS");
    common::copy_dir(&common::samples().join("box"), &root.join("box"));
}

const CONFIG: &str = r#"
embed = ["levels/*.json"]

[[rules]]
match = "sky/city_cube.exr"
texture = { cubemap = true, max_size = 256 }

[[rules]]
match = "sky/*.exr"
texture = { max_size = 512 }
"#;

fn build(dir: &Path, extra: &[&str]) -> std::process::Output {
    let config = dir.join("build.toml");
    let (input, output) = (dir.join("in"), dir.join("out"));
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

fn manifest(out: &Path) -> hman::Manifest {
    hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap()
}

#[test]
fn a_game_tree_compiles_every_kind_and_says_what_it_ignored() {
    let (Some(corpus), Some(hdr)) = (common::corpus(TEST), common::hdr_panoramas(TEST)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    game_tree(&input, &corpus, &hdr);
    std::fs::write(dir.path().join("build.toml"), CONFIG).unwrap();
    let run = build(dir.path(), &["-j", "2"]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = dir.path().join("out");

    // Every kind wrote its file, named in the manifest as formats.md says.
    let m = manifest(&out);
    let entry = |path: &str| {
        m.entries()
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path} is not in the manifest: {:?}", m.entries()))
            .clone()
    };
    for (path, reference, kind, srgb) in [
        ("ui_pattern.ktx2", "ui_pattern", EntryKind::Texture, true),
        (
            "props/lens.n.ktx2",
            "props/lens.n",
            EntryKind::Texture,
            false,
        ),
        (
            "props/lens.ao.ktx2",
            "props/lens.ao",
            EntryKind::Texture,
            false,
        ),
        ("sky/night.ktx2", "sky/night", EntryKind::Texture, false),
        (
            "sky/city_cube.ktx2",
            "sky/city_cube",
            EntryKind::Texture,
            false,
        ),
        (
            "sky/courtyard.env.ktx2",
            "sky/courtyard.env",
            EntryKind::Texture,
            false,
        ),
        (
            "grade/identity.lut.ktx2",
            "grade/identity.lut",
            EntryKind::ColourLut,
            false,
        ),
        (
            "grade/swap.lut.ktx2",
            "grade/swap.lut",
            EntryKind::ColourLut,
            false,
        ),
    ] {
        let e = entry(path);
        assert_eq!(e.hash, fnv1a64(reference), "{path}");
        assert_eq!((e.kind, e.srgb), (kind, srgb), "{path}");
    }
    let json = entry("levels/One.json");
    assert_eq!(
        (json.kind, json.hash),
        (EntryKind::RawFile, fnv1a64("levels/One.json"))
    );
    assert_eq!(
        std::fs::read(out.join("levels/One.json")).unwrap(),
        std::fs::read(input.join("levels/One.json")).unwrap(),
        "an embedded file is copied byte for byte"
    );
    // The model's image is its input, compiled with it, not a texture of its own.
    assert!(out.join("box/box.hmesh").is_file());
    assert!(!out.join("box/checker.ktx2").exists());
    assert!(!m
        .entries()
        .iter()
        .any(|e| e.path.starts_with("box/checker")));

    // One warning names what no kind compiles, by extension, in JSON too.
    let ignored: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["diagnostic"]["code"] == "ignored-files")
        .collect();
    assert_eq!(ignored.len(), 1, "{stdout}");
    let message = ignored[0]["diagnostic"]["message"].as_str().unwrap();
    assert!(
        message.contains("ignored 3 files")
            && message.contains("2 .psd")
            && message.contains("1 .txt"),
        "{message}"
    );
    assert!(
        !message.contains(".bin"),
        "the model's buffer is not ignored: {message}"
    );

    // Shapes as our reader and ktx-parse see them.
    let read = |p: &str| ktx2::read(&std::fs::read(out.join(p)).unwrap()).unwrap();
    let night = read("sky/night.ktx2");
    assert_eq!(
        (night.vk_format, night.face_count, night.depth),
        (97, 1, 0),
        "RGBA16F 2D"
    );
    assert!(night.width <= 512 && night.height <= 512);
    let cube = read("sky/city_cube.ktx2");
    assert_eq!(
        (cube.face_count, cube.width, cube.height),
        (6, cube.width, cube.width)
    );
    assert!(cube.width <= 256 && cube.width.is_power_of_two());
    let env = read("sky/courtyard.env.ktx2");
    assert_eq!((env.vk_format, env.face_count), (97, 6));
    let lut = read("grade/identity.lut.ktx2");
    assert_eq!(
        (lut.vk_format, lut.width, lut.height, lut.depth),
        (37, 17, 17, 17)
    );
    assert_identity_lut(&lut.levels[0].data, 17);
    let swap = read("grade/swap.lut.ktx2");
    // Texel (r, g, b) of the swapping LUT holds (b, g, r), red fastest.
    let at = |r: usize, g: usize, b: usize| {
        let i = 4 * (r + 5 * (g + 5 * b));
        swap.levels[0].data[i..i + 4].to_vec()
    };
    assert_eq!(at(4, 0, 0), [0, 0, 255, 255]);
    assert_eq!(at(0, 2, 4), [255, 128, 0, 255]);
    assert_eq!(at(1, 3, 2), [128, 191, 64, 255]);

    let files: Vec<PathBuf> = [
        "ui_pattern.ktx2",
        "props/lens.n.ktx2",
        "sky/night.ktx2",
        "sky/city_cube.ktx2",
        "sky/courtyard.env.ktx2",
        "grade/identity.lut.ktx2",
    ]
    .iter()
    .map(|p| out.join(p))
    .collect();
    if let Some(headers) = common::ktx_parse(TEST, dir.path(), &files) {
        let h = |i: usize, key: &str| headers[i][key].as_u64().unwrap();
        assert_eq!((h(0, "faceCount"), h(0, "pixelDepth")), (1, 0));
        assert_eq!(
            (h(2, "vkFormat"), h(2, "typeSize"), h(2, "samples")),
            (97, 2, 4)
        );
        assert_eq!(
            (h(3, "faceCount"), h(3, "pixelWidth")),
            (6, u64::from(cube.width))
        );
        assert_eq!((h(4, "vkFormat"), h(4, "faceCount")), (97, 6));
        assert_eq!(
            (
                h(5, "vkFormat"),
                h(5, "pixelWidth"),
                h(5, "pixelDepth"),
                h(5, "levelCount")
            ),
            (37, 17, 17, 1)
        );
        for (i, header) in headers.iter().enumerate() {
            assert_eq!(header["orientation"], "rd", "{}", files[i].display());
        }
    }

    // The tree passes the CI gate, and a second build compiles nothing.
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let again = build(dir.path(), &[]);
    let text = String::from_utf8_lossy(&again.stdout);
    let finished = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["reason"] == "build-finished")
        .unwrap();
    assert_eq!(finished["built"], 0, "{text}");
    assert_eq!(finished["fresh"], 10, "{text}");

    // The same tree at one and three threads: identical bytes.
    let one = dir.path().join("one");
    let run = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        one.to_str().unwrap(),
        "--config",
        dir.path().join("build.toml").to_str().unwrap(),
        "-j",
        "1",
    ]);
    assert!(run.status.success());
    let strip = |t: Vec<(String, Vec<u8>)>| {
        t.into_iter()
            .filter(|(p, _)| !p.starts_with(".assetc"))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(common::tree(&one)), strip(common::tree(&out)));
}

/// Texel (r, g, b) of an identity LUT of size n holds round(255 i / (n - 1)) per channel.
fn assert_identity_lut(data: &[u8], n: usize) {
    assert_eq!(data.len(), 4 * n * n * n);
    let v = |i: usize| ((255 * i) as f32 / (n - 1) as f32).round() as u8;
    for b in 0..n {
        for g in 0..n {
            for r in 0..n {
                let i = 4 * (r + n * (g + n * b));
                assert_eq!(
                    &data[i..i + 4],
                    &[v(r), v(g), v(b), 255],
                    "texel {r},{g},{b}"
                );
            }
        }
    }
}

#[test]
fn a_bad_cubemap_or_lut_fails_alone_naming_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let face = |side: u32| {
        let mut bytes = Vec::new();
        image::RgbaImage::from_pixel(side, side, image::Rgba([9, 99, 199, 255]))
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap();
        bytes
    };
    for f in ["px", "nx", "py", "ny", "pz"] {
        write(&input.join(format!("missing.env/{f}.png")), &face(8));
        write(&input.join(format!("sizes.env/{f}.png")), &face(8));
    }
    write(&input.join("sizes.env/nz.png"), &face(16));
    write(&input.join("good.png"), &face(4));
    let mut lut = cube_lut(2, false);
    lut = lut.replacen("1.000000 1.000000 1.000000", "1.0 1.0", 1);
    write(&input.join("short.lut.cube"), lut.as_bytes());
    write(&input.join("oned.lut.cube"), b"LUT_1D_SIZE 4\n0 0 0\n");
    write(&input.join("huge.lut.cube"), b"LUT_3D_SIZE 1000\n");
    std::fs::write(dir.path().join("build.toml"), "").unwrap();
    let run = build(dir.path(), &[]);
    assert_eq!(run.status.code(), Some(1));
    let text = String::from_utf8_lossy(&run.stdout);
    let errors: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "asset-finished" && v["status"] == "failed")
        .map(|v| {
            (
                v["source"].as_str().unwrap().to_string(),
                v["error"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let error = |source: &str| {
        errors
            .iter()
            .find(|(s, _)| s == source)
            .map(|(_, e)| e.clone())
            .unwrap_or_else(|| panic!("{source} did not fail: {text}"))
    };
    assert!(error("missing.env").contains("face nz is missing"));
    let sizes = error("sizes.env");
    assert!(sizes.contains("nz") && sizes.contains("16"), "{sizes}");
    // The LUT's last data line (line 14: 6 header lines, 8 data lines) has 2 values.
    let short = error("short.lut.cube");
    assert!(short.contains("short.lut.cube:14"), "{short}");
    assert!(error("oned.lut.cube").contains("1D"));
    assert!(error("huge.lut.cube").contains("huge.lut.cube:1"));
    assert_eq!(errors.len(), 5, "{errors:?}");
    // The good texture was still compiled and registered; nothing of the bad ones exists.
    let out = dir.path().join("out");
    assert!(out.join("good.ktx2").is_file());
    for bad in [
        "missing.env.ktx2",
        "sizes.env.ktx2",
        "short.lut.ktx2",
        "oned.lut.ktx2",
    ] {
        assert!(!out.join(bad).exists(), "{bad}");
    }
}

#[test]
fn the_original_assetc_manifest_and_bundle_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    common::copy_dir(&common::samples().join("box"), &input.join("box"));
    write(&input.join("data/config.json"), b"{}");
    std::fs::write(
        dir.path().join("build.toml"),
        "embed = [\"data/**\"]\nmanifest_version = 1\n",
    )
    .unwrap();
    let run = build(dir.path(), &["--pack", "hpack"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
    let out = dir.path().join("out");
    let bytes = std::fs::read(out.join("assets.hman")).unwrap();
    assert_eq!(&bytes[4..8], &1u32.to_le_bytes(), "version 1");
    let m = hman::read(&bytes).unwrap();
    assert!(
        m.entries().iter().all(|e| e.file.is_none()),
        "v1 has no digests"
    );
    assert!(m.entries().iter().any(|e| e.path == "data/config.json"));
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let pack = dir.path().join("out.hpack");
    let bundle = std::fs::read(&pack).unwrap();
    assert_eq!(&bundle[..4], b"HPAK");
    assert!(assetc::formats::hpack::validate(&bundle).is_empty());
    let listed = common::assetc(&["pack", "list", pack.to_str().unwrap()]);
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listing.contains("data/config.json") && listing.contains("box/box.hmesh"),
        "{listing}"
    );
}
