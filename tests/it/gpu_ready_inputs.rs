//! GPU-ready KTX2 and DDS files in a game's tree (an engine's `assets/`): cubemaps of ASTC,
//! BC7, ETC2 and E5B9G9R9 texels, a 3D irradiance volume, an HDR lightmap, an array and a
//! 1D ramp pass through with their layout, levels and texels as they are, one warning each
//! when the settings asked for another format; DDS files become KTX2 of the same layout
//! and format. A truncated KTX2 and a DDS of absurd size fail alone, naming the file.
//!
//! The KTX2 inputs are written by the `ktx-parse` npm package's serializer, the DDS inputs
//! by Pillow; every output is read back by ktx-parse. Either tool missing skips the test
//! (a failure under CI=true).

use crate::common;

use assetc::formats::hman::{self, EntryKind};
use assetc::formats::ktx2;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEST: &str = "gpu_ready_inputs";

/// Each KTX2 input: path below the input folder, vkFormat, typeSize, width, height, depth,
/// layers, faces, levels, texel block bytes and footprint, DFD colour model, transfer,
/// samples (bit offset, bit length - 1, channel type, lower, upper) and orientation.
const KTX2_INPUTS: &str = r#"[
  ["sky/cube_astc.ktx2", 157, 1, 8, 8, 0, 0, 6, 4, 16, [4, 4], 162, 1, [[0, 127, 0, 0, 4294967295]], "rd"],
  ["sky/cube_bc7.ktx2", 146, 1, 8, 8, 0, 0, 6, 4, 16, [4, 4], 134, 2, [[0, 127, 0, 0, 4294967295]], "rd"],
  ["sky/cube_etc2.ktx2", 147, 1, 8, 8, 0, 0, 6, 1, 8, [4, 4], 161, 1, [[0, 63, 0, 0, 4294967295]], "rd"],
  ["sky/env_rgb9e5.ktx2", 123, 4, 4, 4, 0, 0, 6, 3, 4, [1, 1], 1, 1,
    [[0, 8, 128, 0, 8448], [9, 8, 129, 0, 8448], [18, 8, 130, 0, 8448]], "rd"],
  ["volumes/irradiance.ktx2", 97, 2, 4, 4, 9, 0, 1, 1, 8, [1, 1], 1, 1,
    [[0, 15, 192, 3212836864, 1065353216], [16, 15, 193, 3212836864, 1065353216],
     [32, 15, 194, 3212836864, 1065353216], [48, 15, 207, 3212836864, 1065353216]], "rd"],
  ["lightmaps/lm.ktx2", 122, 4, 16, 8, 0, 0, 1, 1, 4, [1, 1], 1, 1,
    [[0, 10, 128, 0, 1065353216], [11, 10, 129, 0, 1065353216], [22, 9, 130, 0, 1065353216]], "rd"],
  ["arrays/layers.ktx2", 145, 1, 8, 8, 0, 3, 1, 2, 16, [4, 4], 134, 1, [[0, 127, 0, 0, 4294967295]], "rd"],
  ["ramps/ramp.ktx2", 37, 1, 16, 0, 0, 0, 1, 1, 4, [1, 1], 1, 1,
    [[0, 7, 0, 0, 255], [8, 7, 1, 0, 255], [16, 7, 2, 0, 255], [24, 7, 15, 0, 255]], "r"]
]"#;

/// ktx-parse's module, or None (a failure under CI) when it or node is missing.
fn ktx_parse_module() -> Option<PathBuf> {
    let peers = std::env::var_os("ASSETC_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/assetc-peers"));
    let module = peers.join("node_modules/ktx-parse/dist/index.mjs");
    if !module.is_file() || Command::new("node").arg("--version").output().is_err() {
        common::missing(
            TEST,
            &format!("node or ktx-parse ({}; set ASSETC_PEERS)", module.display()),
        );
        return None;
    }
    Some(module)
}

/// Writes every KTX2 input with ktx-parse's `write`: levels hold bytes that differ from
/// level to level and image to image, so a misplaced or altered level shows.
fn write_ktx2_inputs(module: &Path, scratch: &Path, input: &Path) {
    let script = scratch.join("write-inputs.mjs");
    std::fs::write(
        &script,
        format!(
            r#"import {{ createDefaultContainer, write }} from {module:?};
import {{ mkdirSync, writeFileSync }} from 'node:fs';
import {{ dirname, join }} from 'node:path';
const root = process.argv[2];
for (const [path, vk, typeSize, w, h, d, layers, faces, levels, blockBytes, block, model,
           transfer, samples, orientation] of {inputs}) {{
  const k = createDefaultContainer();
  Object.assign(k, {{ vkFormat: vk, typeSize, pixelWidth: w, pixelHeight: h, pixelDepth: d,
    layerCount: layers, faceCount: faces, levelCount: levels, supercompressionScheme: 0 }});
  const dfd = k.dataFormatDescriptor[0];
  Object.assign(dfd, {{ colorModel: model, colorPrimaries: 1, transferFunction: transfer,
    flags: 0, texelBlockDimension: [block[0] - 1, block[1] - 1, 0, 0],
    bytesPlane: [blockBytes, 0, 0, 0, 0, 0, 0, 0],
    samples: samples.map(([bitOffset, bitLength, channelType, sampleLower, sampleUpper]) =>
      ({{ bitOffset, bitLength, channelType, samplePosition: [0, 0, 0, 0], sampleLower, sampleUpper }})) }});
  k.keyValue = {{ KTXorientation: orientation }};
  k.levels = [];
  for (let i = 0; i < levels; i++) {{
    const side = (n) => Math.max(1, n >> i);
    const blocks = Math.ceil(side(w) / block[0]) * Math.ceil(Math.max(1, side(h)) / block[1]);
    const images = Math.max(1, layers) * faces * (d > 0 ? side(d) : 1);
    const data = new Uint8Array(blocks * blockBytes * images);
    for (let j = 0; j < data.length; j++) data[j] = (j * 7 + i * 31) & 255;
    k.levels.push({{ levelData: data, uncompressedByteLength: data.length }});
  }}
  const file = join(root, path);
  mkdirSync(dirname(file), {{ recursive: true }});
  writeFileSync(file, write(k));
}}
"#,
            module = format!("file://{}", module.display()),
            inputs = KTX2_INPUTS,
        ),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(&script)
        .arg(input)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "ktx-parse could not write the inputs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// BC1 (legacy DXT1 header), BC3 (DX10 header, TYPELESS) and BC5 (DX10, TYPELESS) DDS
/// files of a 16x16 gradient, written by Pillow; None (a failure under CI) without it.
fn write_dds_inputs(input: &Path) -> Option<()> {
    let dir = input.join("dds");
    std::fs::create_dir_all(&dir).unwrap();
    let script = r#"
import sys
from PIL import Image
d = sys.argv[1]
rgba = Image.new('RGBA', (16, 16))
rgba.putdata([(x * 16, y * 16, 128, 255) for y in range(16) for x in range(16)])
rgba.save(d + '/bc1.dds', pixel_format='DXT1')
rgba.save(d + '/bc3.dds', pixel_format='BC3')
rgba.convert('RGB').save(d + '/normal.n.dds', pixel_format='BC5')
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(&dir)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(()),
        Ok(o) => {
            common::missing(
                TEST,
                &format!(
                    "python3 with Pillow (pip install pillow): {}",
                    String::from_utf8_lossy(&o.stderr)
                ),
            );
            None
        }
        Err(_) => {
            common::missing(TEST, "python3 with Pillow (pip install pillow)");
            None
        }
    }
}

fn build(dir: &Path) -> std::process::Output {
    let (input, output) = (dir.join("in"), dir.join("out"));
    common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--no-config",
        "--message-format",
        "json",
    ])
}

/// Every `asset-finished` event by source.
fn finished(run: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "asset-finished")
        .collect()
}

#[test]
fn gpu_ready_inputs_pass_through_with_their_layout_and_bad_ones_fail_alone() {
    let Some(module) = ktx_parse_module() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write_ktx2_inputs(&module, dir.path(), &input);
    let Some(()) = write_dds_inputs(&input) else {
        return;
    };
    let sources: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(KTX2_INPUTS)
        .unwrap()
        .iter()
        .map(|row| row[0].as_str().unwrap().to_owned())
        .collect();
    // A truncated cubemap, a DDS declaring a 2^30-texel side, and a plain image beside them.
    let cube = std::fs::read(input.join("sky/cube_bc7.ktx2")).unwrap();
    std::fs::write(input.join("sky/truncated.ktx2"), &cube[..cube.len() - 100]).unwrap();
    let mut absurd = std::fs::read(input.join("dds/bc1.dds")).unwrap();
    absurd[16..20].copy_from_slice(&(1u32 << 30).to_le_bytes());
    std::fs::write(input.join("dds/absurd.dds"), absurd).unwrap();
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(4, 4, image::Rgba([1, 2, 3, 255]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    std::fs::write(input.join("plain.png"), png).unwrap();

    let run = build(dir.path());
    let events = finished(&run);
    let event = |source: &str| {
        events
            .iter()
            .find(|e| e["source"] == source)
            .unwrap_or_else(|| panic!("no event for {source}: {events:#?}"))
    };
    assert_eq!(run.status.code(), Some(1), "{events:#?}");
    // The two bad files fail alone, each naming itself and what is wrong.
    for (source, what) in [
        ("sky/truncated.ktx2", "invalid KTX2 source"),
        ("dds/absurd.dds", "exceeds the limit"),
    ] {
        let e = event(source);
        assert_eq!(e["status"], "failed", "{e:#}");
        let error = e["error"].as_str().unwrap();
        let name = source.rsplit('/').next().unwrap();
        assert!(error.contains(name) && error.contains(what), "{error}");
    }
    let failed = events.iter().filter(|e| e["status"] == "failed").count();
    assert_eq!(failed, 2, "{events:#?}");
    let out = dir.path().join("out");
    assert!(out.join("plain.ktx2").is_file());
    assert!(!out.join("sky/truncated.ktx2").exists());
    assert!(!out.join("dds/absurd.ktx2").exists());

    // Every KTX2 input as ktx-parse reads it equals its output as ktx-parse reads it:
    // format, typeSize, sizes, layers, faces, levels, DFD, orientation.
    let out_path =
        |source: &str| out.join(source.replace(".ktx2", "").replace(".dds", "") + ".ktx2");
    let ins: Vec<PathBuf> = sources.iter().map(|s| input.join(s)).collect();
    let outs: Vec<PathBuf> = sources.iter().map(|s| out_path(s)).collect();
    let Some(read_in) = common::ktx_parse(TEST, dir.path(), &ins) else {
        return;
    };
    let Some(read_out) = common::ktx_parse(TEST, dir.path(), &outs) else {
        return;
    };
    for ((source, a), b) in sources.iter().zip(&read_in).zip(&read_out) {
        assert_eq!(a, b, "{source}");
        // The texels themselves, level by level.
        let level_data = |p: &Path| -> Vec<Vec<u8>> {
            ktx2::read(&std::fs::read(p).unwrap())
                .unwrap()
                .levels
                .into_iter()
                .map(|l| l.data)
                .collect()
        };
        assert_eq!(
            level_data(&input.join(source)),
            level_data(&out_path(source)),
            "{source}"
        );
        // One warning when the settings' format (uastc, rgba16f for HDR) is not the
        // file's: every input but the RGBA16F volume.
        let warnings = event(source)["warnings"].as_array().unwrap().clone();
        let expected = usize::from(source != "volumes/irradiance.ktx2");
        assert_eq!(warnings.len(), expected, "{source}: {warnings:?}");
        for w in warnings {
            let w = w.as_str().unwrap();
            assert!(w.contains("VK_FORMAT_") && !w.contains("vkFormat"), "{w}");
        }
    }
    let e5 = event("sky/env_rgb9e5.ktx2")["warnings"][0]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        e5.contains("cannot decode VK_FORMAT_E5B9G9R9_UFLOAT_PACK32") && e5.contains("cubemap 4x4"),
        "{e5}"
    );

    // DDS files: KTX2 of the same size and the matching vkFormat, the BC blocks as
    // they are (Pillow writes one level; DDS headers are 128 bytes, 148 with DX10).
    // bc1.dds and bc3.dds are colour textures by their names: the sRGB vkFormats.
    for (source, vk, header) in [
        ("dds/bc1.dds", 134, 128),
        ("dds/bc3.dds", 138, 148),
        ("dds/normal.n.dds", 141, 148),
    ] {
        assert_eq!(event(source)["status"], "built", "{source}");
        let k = ktx2::read(&std::fs::read(out_path(source)).unwrap()).unwrap();
        assert_eq!(
            (k.vk_format, k.width, k.height, k.face_count, k.levels.len()),
            (vk, 16, 16, 1, 1),
            "{source}"
        );
        let dds = std::fs::read(input.join(source)).unwrap();
        assert_eq!(k.levels[0].data, dds[header..], "{source}");
    }
    let dds_outs: Vec<PathBuf> = ["dds/bc1.dds", "dds/bc3.dds", "dds/normal.n.dds"]
        .iter()
        .map(|s| out_path(s))
        .collect();
    let Some(read_dds) = common::ktx_parse(TEST, dir.path(), &dds_outs) else {
        return;
    };
    let formats: Vec<u64> = read_dds
        .iter()
        .map(|v| v["vkFormat"].as_u64().unwrap())
        .collect();
    assert_eq!(formats, [134, 138, 141]);

    // Registered as textures, named by their refs, in the colour space of their data.
    let m = hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    for (path, srgb) in [
        ("sky/cube_bc7.ktx2", true),
        ("sky/cube_astc.ktx2", false),
        ("volumes/irradiance.ktx2", false),
        ("dds/bc1.ktx2", true),
        ("dds/normal.n.ktx2", false),
    ] {
        let e = m
            .entries()
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path} is not in the manifest"));
        assert_eq!((e.kind, e.srgb), (EntryKind::Texture, srgb), "{path}");
    }
}
