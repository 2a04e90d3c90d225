//! One image holding several: `texture.cubemap = "strip" | "cross" | "panorama"` and
//! `texture.array_layers = N`. What fits its layout becomes a cube or an array (checked by
//! our reader and by ktx-parse); what does not is refused with its size and the sizes that
//! would fit, and the rest of the tree still builds.

use crate::common;

use assetc::formats::ktx2;
use std::path::{Path, PathBuf};

const TEST: &str = "texture_layouts";

/// A w x h picture with a different colour every 8 texels.
fn tiles(path: &Path, w: u32, h: u32) {
    let img = image::RgbaImage::from_fn(w, h, |x, y| {
        image::Rgba([(x / 8 * 40) as u8, (y / 8 * 40) as u8, 128, 255])
    });
    img.save(path).unwrap();
}

const CONFIG: &str = r#"
[texture]
format = "rgba8"

[[rules]]
match = "sky/*cross*"
texture.cubemap = "cross"

[[rules]]
match = "sky/*strip*"
texture.cubemap = "strip"

[[rules]]
match = "sky/lightmap.exr"
texture.cubemap = true

[[rules]]
match = "fx/**"
texture.array_layers = 4
"#;

#[test]
fn strips_and_crosses_become_cubes_and_arrays_misfits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("sky")).unwrap();
    std::fs::create_dir_all(input.join("fx")).unwrap();
    tiles(&input.join("sky/hcross.png"), 64, 48);
    tiles(&input.join("sky/vcross.png"), 48, 64);
    tiles(&input.join("sky/strip.png"), 96, 16);
    tiles(&input.join("fx/flipbook.png"), 32, 128);
    tiles(&input.join("fx/odd.png"), 30, 90);
    // The square HDR lightmap `cubemap = true` once made a 32x32 cube of without a word.
    let square = image::Rgba32FImage::from_pixel(128, 128, image::Rgba([2.0, 1.0, 0.5, 1.0]));
    image::DynamicImage::ImageRgba32F(square)
        .save(input.join("sky/lightmap.exr"))
        .unwrap();
    let config = dir.path().join("build.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let out = dir.path().join("out");
    let run = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--verify",
    ]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.status.code(), Some(1), "{text}");

    let line_of = |name: &str| {
        text.lines()
            .find(|l| l.contains(name) && l.contains("error"))
            .unwrap_or_else(|| panic!("no error names {name}:\n{text}"))
            .to_string()
    };
    let lightmap = line_of("lightmap.exr");
    assert!(
        lightmap.contains("128x128") && lightmap.contains("256x128 or 128x64"),
        "{lightmap}"
    );
    let odd = line_of("odd.png");
    assert!(
        odd.contains("30x90") && odd.contains("30x88 or 30x92"),
        "{odd}"
    );
    assert!(!out.join("sky/lightmap.ktx2").exists());
    assert!(!out.join("fx/odd.ktx2").exists());

    let files: Vec<PathBuf> = ["sky/hcross", "sky/vcross", "sky/strip", "fx/flipbook"]
        .iter()
        .map(|r| out.join(format!("{r}.ktx2")))
        .collect();
    let shapes: Vec<(u32, u32, u32, u32)> = files
        .iter()
        .map(|f| {
            let k = ktx2::read(&std::fs::read(f).unwrap()).unwrap();
            (k.width, k.height, k.face_count, k.layer_count)
        })
        .collect();
    assert_eq!(
        shapes,
        [
            (16, 16, 6, 0),
            (16, 16, 6, 0),
            (16, 16, 6, 0),
            (32, 32, 1, 4)
        ]
    );
    if let Some(headers) = common::ktx_parse(TEST, dir.path(), &files) {
        let peer: Vec<(u64, u64, u64, u64)> = headers
            .iter()
            .map(|h| {
                let n = |k: &str| h[k].as_u64().unwrap();
                (
                    n("pixelWidth"),
                    n("pixelHeight"),
                    n("faceCount"),
                    n("layerCount"),
                )
            })
            .collect();
        assert_eq!(
            peer,
            [
                (16, 16, 6, 0),
                (16, 16, 6, 0),
                (16, 16, 6, 0),
                (32, 32, 1, 4)
            ]
        );
        // Each level holds the four layers: 32x32 RGBA8 x 4 at level 0.
        assert_eq!(headers[3]["levels"][0].as_u64(), Some(32 * 32 * 4 * 4));
    }
}
