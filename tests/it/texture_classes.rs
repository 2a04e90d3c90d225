//! A standalone image's class comes from the names artists use and from its texels
//! (docs/textures.md, "Which mode a standalone image gets"): a small tree built with
//! `per_class` BC, where the class shows in the vkFormat (BC5 normal maps, BC4 single
//! channel, BC7 sRGB colour, BC7 UNORM linear data).

use crate::common;

use assetc::formats::ktx2;
use std::path::Path;

/// A tangent-space normal field stored as n * 0.5 + 0.5: vectors tilted up to ~35 degrees.
fn normal_map(path: &Path) {
    let img = image::RgbaImage::from_fn(32, 32, |x, y| {
        let (a, b) = (x as f32 * 0.4, y as f32 * 0.3);
        let (nx, ny) = (0.4 * a.sin(), 0.4 * b.cos());
        let nz = (1.0 - nx * nx - ny * ny).sqrt();
        let q = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
        image::Rgba([q(nx), q(ny), q(nz), 255])
    });
    img.save(path).unwrap();
}

/// A colourful picture: no two channels alike, nothing like unit vectors.
fn picture(path: &Path) {
    let img = image::RgbaImage::from_fn(32, 32, |x, y| {
        image::Rgba([(x * 8) as u8, (y * 8) as u8, ((x * y) % 256) as u8, 255])
    });
    img.save(path).unwrap();
}

/// A depth map saved as a greyscale PNG.
fn grey(path: &Path) {
    let img = image::GrayImage::from_fn(32, 32, |x, y| image::Luma([(x * 5 + y) as u8]));
    img.save(path).unwrap();
}

const CONFIG: &str = r#"
[texture]
format = "bc7"
per_class = true

[[rules]]
match = "explicit/**"
texture.mode = "color"
"#;

#[test]
fn names_artists_use_and_texels_pick_the_class() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("explicit")).unwrap();
    for name in [
        "ScratchedGold-Normal.png",
        "water_normals.png",
        "cube_normal.png",
        "rock_nor_gl.png",
        "T_Brick_N.png",
        "blue_tiles.png",
        "explicit/Gold-Normal.png",
    ] {
        normal_map(&input.join(name));
    }
    grey(&input.join("cube_depth.png"));
    grey(&input.join("clouds.png"));
    picture(&input.join("OcclusionRoughnessMetallic.png"));
    picture(&input.join("normalize_ui.png"));
    picture(&input.join("Nordic.png"));
    picture(&input.join("button_normal.png"));
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
    assert!(run.status.success(), "{text}");

    let vk_format = |rel: &str| {
        let bytes = std::fs::read(out.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        ktx2::read(&bytes).unwrap().vk_format
    };
    const BC4: u32 = 139;
    const BC5: u32 = 141;
    const BC7_UNORM: u32 = 145;
    const BC7_SRGB: u32 = 146;
    for (rel, expected) in [
        ("scratchedgold-normal.ktx2", BC5),
        ("water_normals.ktx2", BC5),
        ("cube_normal.ktx2", BC5),
        ("rock_nor_gl.ktx2", BC5),
        ("t_brick_n.ktx2", BC5),
        // By its texels alone: one channel.
        ("cube_depth.ktx2", BC4),
        ("clouds.ktx2", BC4),
        // A data word over several channels keeps them all, linear.
        ("occlusionroughnessmetallic.ktx2", BC7_UNORM),
        // False friends stay colour, and an explicit mode wins over the name.
        ("normalize_ui.ktx2", BC7_SRGB),
        ("nordic.ktx2", BC7_SRGB),
        ("explicit/gold-normal.ktx2", BC7_SRGB),
        ("blue_tiles.ktx2", BC7_SRGB),
        ("button_normal.ktx2", BC5),
    ] {
        assert_eq!(vk_format(rel), expected, "{rel}\n{text}");
    }

    // A colour image whose texels are a normal map's is named, with the rule to use.
    let hint = text
        .lines()
        .find(|l| l.contains("blue_tiles") && l.contains("warning"))
        .unwrap_or_else(|| panic!("no warning names blue_tiles.png:\n{text}"));
    assert!(
        hint.contains("unit vectors") && hint.contains("`normal`"),
        "{hint}"
    );
    // A name that says normal map over texels that are not one is compiled as the name
    // says, with a warning naming the word.
    let odd = text
        .lines()
        .find(|l| l.contains("button_normal") && l.contains("warning"))
        .unwrap_or_else(|| panic!("no warning names button_normal.png:\n{text}"));
    assert!(odd.contains("the word `normal`"), "{odd}");
    for quiet in ["water_normals", "explicit", "cube_depth", "nordic"] {
        assert!(
            !text
                .to_lowercase()
                .lines()
                .any(|l| l.contains(quiet) && l.contains("warning")),
            "{quiet} warned:\n{text}"
        );
    }
}
