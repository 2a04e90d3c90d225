//! Fonts as a real client builds them: Debian's DejaVu Sans (TrueType, GPOS and `kern`
//! kerning) and URW's Nimbus Sans (CFF `.otf`, GPOS kerning only) become `.hfont` plus a
//! distance-field atlas. Advances, kerning and rendered text are checked against
//! FreeType (freetype-py) and fontTools, run from `tests/font_reference.py`.

use crate::common;

use assetc::formats::hash::fnv1a64;
use assetc::formats::hfont::{self, HFont};
use assetc::formats::hman::{self, EntryKind};
use assetc::formats::ktx2;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `fonts-urw-base35`: a CFF-flavoured OpenType font.
const NIMBUS: &str = "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf";
/// Every comparison with FreeType is within this many em (one 26.6 unit at 1 px per em).
const EM_TOLERANCE: f32 = 1.0 / 64.0;

fn nimbus(test: &str) -> Option<PathBuf> {
    font_file(test, "ASSETC_CFF_FONT", NIMBUS, "fonts-urw-base35")
}

fn reference_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/font_reference.py")
}

/// Whether python3 with freetype-py and fontTools runs; else `missing`.
fn freetype_python(test: &str) -> bool {
    let ok = Command::new("python3")
        .arg(reference_script())
        .arg("check")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        missing(
            test,
            "python3 with freetype-py and fonttools (pip install freetype-py fonttools)",
        );
    }
    ok
}

fn python(args: &[&str]) -> Vec<u8> {
    let o = Command::new("python3")
        .arg(reference_script())
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "font_reference.py {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// Builds `input` into `out` with `config` as build.toml and `-j jobs`.
fn build(input: &Path, out: &Path, config: &str, jobs: &str) -> std::process::Output {
    let cfg = out.with_extension("toml");
    std::fs::write(&cfg, config).unwrap();
    assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
        "-j",
        jobs,
        "--verify",
    ])
}

fn build_ok(input: &Path, out: &Path, config: &str) {
    let o = build(input, out, config, "2");
    assert!(
        o.status.success(),
        "config {config:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn read_font(path: &Path) -> HFont {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(hfont::validate(&bytes), vec![], "{}", path.display());
    hfont::read(&bytes).unwrap()
}

fn read_atlas(path: &Path) -> ktx2::Ktx2 {
    ktx2::read(&std::fs::read(path).unwrap()).unwrap()
}

/// A tree holding DejaVu Sans as `ui/DejaVuSans.ttf` and Nimbus Sans at the root.
fn client_tree(dir: &Path, dejavu: &Path, nimbus: &Path) -> PathBuf {
    let input = dir.join("in");
    std::fs::create_dir_all(input.join("ui")).unwrap();
    std::fs::copy(dejavu, input.join("ui/DejaVuSans.ttf")).unwrap();
    std::fs::copy(nimbus, input.join("NimbusSans-Regular.otf")).unwrap();
    input
}

const TEXT: &str = "AVATAR To Wa LT Yo: Sphinx of black quartz, judge my vow 0123 ÆØÅ éß";
const PAIRS: [&str; 6] = ["AV", "VA", "To", "LT", "Yo", "Wa"];

#[test]
fn real_fonts_match_freetype() {
    let test = "real_fonts_match_freetype";
    let (Some(dejavu), Some(nimbus)) = (dejavu(test), nimbus(test)) else {
        return;
    };
    if !freetype_python(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = client_tree(dir.path(), &dejavu, &nimbus);
    let out = dir.path().join("out");
    build_ok(&input, &out, "");

    // The manifest names each .hfont by its path and each atlas by its ref.
    let manifest = hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    for reference in ["ui/dejavusans", "nimbussans-regular"] {
        let hfont_path = format!("{reference}.hfont");
        let atlas_path = format!("{reference}.ktx2");
        let e = manifest.get(fnv1a64(&hfont_path)).unwrap();
        assert_eq!(
            (e.kind, e.path.as_str()),
            (EntryKind::Font, hfont_path.as_str())
        );
        let e = manifest.get(fnv1a64(reference)).unwrap();
        assert_eq!(
            (e.kind, e.path.as_str(), e.srgb),
            (EntryKind::Texture, atlas_path.as_str(), false)
        );
        let font = read_font(&out.join(&hfont_path));
        assert_eq!(font.header.atlas_tex, fnv1a64(reference));
        let atlas = read_atlas(&out.join(&atlas_path));
        assert_eq!(
            (
                atlas.width,
                atlas.height,
                atlas.levels.len(),
                atlas.supercompression
            ),
            (512, 512, 1, ktx2::SUPERCOMPRESSION_ZSTD)
        );
        assert_eq!(
            atlas.pixel_format(),
            Some((ktx2::PixelFormat::Rgba8, false))
        );
    }
    let check = assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    for (label, source, hfont_rel) in [
        ("DejaVu Sans", &dejavu, "ui/dejavusans.hfont"),
        ("Nimbus Sans (CFF)", &nimbus, "nimbussans-regular.hfont"),
    ] {
        let font = read_font(&out.join(hfont_rel));
        // Printable ASCII and Latin-1 plus .notdef: both fonts have every one.
        assert_eq!(font.glyphs.len(), 1 + 95 + 96, "{label}");
        let printable: String = (0x21u8..0x7F).map(char::from).collect();
        let mut args = vec!["metrics", source.to_str().unwrap(), &printable];
        args.extend(PAIRS);
        let reference: serde_json::Value = serde_json::from_slice(&python(&args)).unwrap();
        let mut worst = 0.0f32;
        for c in printable.chars() {
            let ours = font.glyph(u32::from(c)).unwrap().advance;
            let theirs = reference["advances"][c.to_string()].as_f64().unwrap() as f32;
            worst = worst.max((ours - theirs).abs());
            assert!(
                (ours - theirs).abs() <= EM_TOLERANCE,
                "{label} {c:?}: {ours} vs FreeType {theirs}"
            );
        }
        println!("{label}: advances within {worst:.6} em of FreeType's (unhinted)");
        for pair in PAIRS {
            let mut cs = pair.chars().map(u32::from);
            let (l, r) = (cs.next().unwrap(), cs.next().unwrap());
            let ours = font.kerning(l, r);
            let gpos = reference["gpos"][pair].as_f64().map(|v| v as f32);
            let legacy = reference["kern"][pair].as_f64().unwrap() as f32;
            // GPOS, read by fontTools, wins; FreeType's FT_Get_Kerning reads `kern`.
            let expected = gpos.unwrap_or(legacy);
            assert!(ours < 0.0, "{label} {pair} is kerned tighter");
            assert!(
                (ours - expected).abs() <= EM_TOLERANCE,
                "{label} {pair}: {ours} vs GPOS {gpos:?} / kern {legacy}"
            );
            println!("{label}: kerning {pair} {ours:.4} em, fontTools GPOS {gpos:?}, FreeType kern {legacy:.4}");
        }
        compare_rendering(
            &format!("{label} SDF"),
            source,
            &out.join(hfont_rel),
            dir.path(),
        );
    }
    // The MSDF atlas of the same fonts keeps corners: drawn text as close or closer.
    let msdf_out = dir.path().join("msdf");
    build_ok(&input, &msdf_out, "[font]\nmsdf = true\n");
    for (label, source, hfont_rel) in [
        ("DejaVu Sans MSDF", &dejavu, "ui/dejavusans.hfont"),
        (
            "Nimbus Sans (CFF) MSDF",
            &nimbus,
            "nimbussans-regular.hfont",
        ),
    ] {
        assert!(read_font(&msdf_out.join(hfont_rel)).is_msdf());
        compare_rendering(label, source, &msdf_out.join(hfont_rel), dir.path());
    }
    // DejaVu has both tables and they agree on these pairs: FreeType itself confirms.
    let font = read_font(&out.join("ui/dejavusans.hfont"));
    let args = ["metrics", dejavu.to_str().unwrap(), "A", "AV", "To"];
    let reference: serde_json::Value = serde_json::from_slice(&python(&args)).unwrap();
    for (pair, l, r) in [("AV", 'A', 'V'), ("To", 'T', 'o')] {
        let freetype = reference["kern"][pair].as_f64().unwrap() as f32;
        assert!((font.kerning(u32::from(l), u32::from(r)) - freetype).abs() <= EM_TOLERANCE);
    }
}

/// Our preview of TEXT at 48 px against FreeType's rendering of it, pen and baseline
/// aligned: both start the pen at `ceil(48 / 4)` px from the left and put the baseline
/// `ceil(48 / 4) + ceil(ascent * 48)` px from the top (the preview's documented layout);
/// FreeType renders each glyph unhinted at its exact sub-pixel pen position.
fn compare_rendering(label: &str, source: &Path, hfont_path: &Path, scratch: &Path) {
    const PX: u32 = 48;
    let png = scratch.join(format!("{label}.png"));
    let o = assetc(&[
        "preview",
        hfont_path.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--text",
        TEXT,
        "--size",
        &PX.to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = image::open(&png).unwrap().to_rgba8();
    let (w, h) = ours.dimensions();
    let font = read_font(hfont_path);
    let margin = PX.div_ceil(4);
    let baseline = margin + (font.header.ascent * PX as f32).ceil() as u32;
    let pgm = scratch.join(format!("{label}.pgm"));
    let numbers = [PX, w, h, margin, baseline].map(|v| v.to_string());
    let mut args = vec!["render", source.to_str().unwrap(), TEXT];
    args.extend(numbers.iter().map(String::as_str));
    args.push(pgm.to_str().unwrap());
    python(&args);
    let theirs = std::fs::read(&pgm).unwrap();
    let header = format!("P5\n{w} {h}\n255\n");
    assert!(theirs.starts_with(header.as_bytes()));
    let theirs = &theirs[header.len()..];
    let coverage: Vec<u8> = ours.pixels().map(|p| 255 - p.0[0]).collect();
    let differing = coverage
        .iter()
        .zip(theirs)
        .filter(|(a, b)| a.abs_diff(**b) > 64)
        .count();
    let share = differing as f64 / coverage.len() as f64;
    let ink = |c: &[u8]| c.iter().map(|&v| f64::from(v)).sum::<f64>() / 255.0;
    let (ink_ours, ink_theirs) = (ink(&coverage), ink(theirs));
    println!(
        "{label}: {w}x{h} at {PX} px: {differing} pixels ({:.2} % of the picture, {:.2} % of the ink) differ from FreeType by more than 64; ink {ink_ours:.0} vs {ink_theirs:.0} pixels",
        share * 100.0,
        differing as f64 / ink_theirs * 100.0
    );
    assert!(
        share < 0.03,
        "{label}: {:.2} % of pixels differ",
        share * 100.0
    );
    assert!(
        ink_theirs > 0.1 * (w * h) as f64 / 4.0,
        "FreeType drew the text"
    );
    assert!(
        (ink_ours / ink_theirs - 1.0).abs() < 0.05,
        "{label}: ink {ink_ours} vs {ink_theirs}"
    );
}

#[test]
fn a_damaged_font_fails_alone_naming_the_file() {
    let test = "a_damaged_font_fails_alone_naming_the_file";
    let Some(dejavu) = dejavu(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let bytes = std::fs::read(&dejavu).unwrap();
    std::fs::write(input.join("good.ttf"), &bytes).unwrap();
    std::fs::write(input.join("truncated.ttf"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(input.join("header_only.ttf"), &bytes[..1024]).unwrap();
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(input.join("garbage.otf"), garbage).unwrap();
    let out = dir.path().join("out");
    let o = build(&input, &out, "", "2");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    for name in ["truncated.ttf", "header_only.ttf", "garbage.otf"] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with("error: ") && l.contains(name) && l.contains("font")),
            "{name} is named:\n{stderr}"
        );
    }
    assert!(!stderr.contains("panick"), "{stderr}");
    // The good font is built all the same.
    read_font(&out.join("good.hfont"));
    assert!(!out.join("truncated.hfont").exists());
}

#[test]
fn a_codepoint_the_font_lacks_is_one_warning() {
    let test = "a_codepoint_the_font_lacks_is_one_warning";
    let Some(dejavu) = dejavu(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(&dejavu, input.join("Sans.ttf")).unwrap();
    let cfg = dir.path().join("build.toml");
    // Cyrillic is in DejaVu Sans; U+4E2D (CJK) and U+10400 (Deseret) are not.
    std::fs::write(
        &cfg,
        "[font]\ncharset = [\"U+0410-U+0412\", \"U+4E2D\", \"U+10400\"]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let warnings: Vec<String> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "diagnostic" && v.to_string().contains("no glyph"))
        .map(|v| v.to_string())
        .collect();
    assert_eq!(warnings.len(), 1, "one warning:\n{stdout}");
    let w = &warnings[0];
    assert!(
        w.contains("Sans.ttf") && w.contains("U+4E2D") && w.contains("U+10400"),
        "{w}"
    );
    assert!(w.contains("2 codepoint(s)") && !w.contains("U+0410"), "{w}");
    let font = read_font(&out.join("sans.hfont"));
    assert!(font.glyphs.iter().any(|g| g.codepoint == 0x411));
    assert!(!font.glyphs.iter().any(|g| g.codepoint == 0x4E2D));
    // A lookup of the missing codepoint falls back to .notdef.
    assert_eq!(font.glyph(0x4E2D).unwrap().codepoint, 0);
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    let test = "output_is_the_same_whatever_the_thread_count";
    let (Some(dejavu), Some(nimbus)) = (dejavu(test), nimbus(test)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = client_tree(dir.path(), &dejavu, &nimbus);
    for (name, config) in [("sdf", ""), ("msdf", "[font]\nmsdf = true\n")] {
        let trees: Vec<Vec<(String, Vec<u8>)>> = ["1", "3"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("{name}-{jobs}"));
                let o = build(&input, &out, config, jobs);
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                tree(&out)
                    .into_iter()
                    .filter(|(n, _)| !n.ends_with(assetc::output::CACHE_NAME))
                    .collect()
            })
            .collect();
        assert_eq!(
            trees[0].len(),
            6,
            "{name}: two fonts, two atlases, the manifest and the source map"
        );
        assert!(trees[0] == trees[1], "{name}: -j1 and -j3 differ");
    }
}

/// The plane rectangle's texels per em, from its uv and plane sizes.
fn texels_per_em(font: &HFont, c: char) -> f32 {
    let g = font.glyph(u32::from(c)).unwrap();
    (g.uv_right - g.uv_left) * f32::from(font.header.atlas_width) / (g.plane_right - g.plane_left)
}

#[test]
fn every_font_setting_has_its_effect() {
    let test = "every_font_setting_has_its_effect";
    let Some(dejavu) = dejavu(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("text")).unwrap();
    std::fs::copy(&dejavu, input.join("Sans.ttf")).unwrap();
    std::fs::write(input.join("text/chars.txt"), "Ωж€\n").unwrap();
    let built = |name: &str, config: &str| {
        let out = dir.path().join(name);
        build_ok(&input, &out, config);
        (
            read_font(&out.join("sans.hfont")),
            read_atlas(&out.join("sans.ktx2")),
            out,
        )
    };
    let (plain, plain_atlas, _) = built("default", "");
    assert_eq!(
        (
            plain.header.flags,
            plain.header.atlas_width,
            plain.header.distance_range
        ),
        (0, 512, 4.0)
    );
    assert!((texels_per_em(&plain, 'H') - 32.0).abs() < 1e-3);
    assert!(!plain.kerning.is_empty());
    // An SDF: the distance in R, G and B alike, alpha opaque.
    let level = &plain_atlas.levels[0].data;
    assert!(level
        .chunks(4)
        .all(|t| t[0] == t[1] && t[1] == t[2] && t[3] == 255));
    assert!(level.chunks(4).any(|t| t[0] > 200) && level.chunks(4).any(|t| t[0] == 0));

    // Cyrillic is more than a 512 atlas holds at 32 texels per em.
    let (cyrillic, _, _) = built(
        "charset",
        "[font]\ncharset = [\"U+0400-U+04FF\"]\natlas_size = 1024\n",
    );
    let added = cyrillic.glyphs.len() - plain.glyphs.len();
    assert!(
        added > 200,
        "DejaVu Sans covers Cyrillic: {added} glyphs added"
    );
    assert!(cyrillic.glyphs.iter().any(|g| g.codepoint == 0x416));

    let (file, _, out) = built(
        "charset_file",
        "[font]\ncharset_file = \"text/chars.txt\"\n",
    );
    let extra: Vec<u32> = file
        .glyphs
        .iter()
        .map(|g| g.codepoint)
        .filter(|&c| c > 0xFF)
        .collect();
    assert_eq!(extra, [0x3A9, 0x436, 0x20AC]);
    // The charset file is an input of the font: changing it rebuilds the font.
    std::fs::write(input.join("text/chars.txt"), "Ωж€Ψ").unwrap();
    build_ok(&input, &out, "[font]\ncharset_file = \"text/chars.txt\"\n");
    assert!(read_font(&out.join("sans.hfont"))
        .glyphs
        .iter()
        .any(|g| g.codepoint == 0x3A8));
    std::fs::write(input.join("text/chars.txt"), "Ωж€\n").unwrap();

    let (msdf, msdf_atlas, _) = built("msdf", "[font]\nmsdf = true\n");
    assert_eq!(msdf.header.flags, hfont::FLAG_MSDF);
    let level = &msdf_atlas.levels[0].data;
    let differ = level
        .chunks(4)
        .filter(|t| t[0] != t[1] || t[1] != t[2])
        .count();
    assert!(
        differ > 1000,
        "three distinct channels: {differ} texels differ"
    );

    let (big, big_atlas, _) = built("atlas_size", "[font]\natlas_size = 1024\n");
    assert_eq!(
        (big.header.atlas_width, big.header.atlas_height),
        (1024, 1024)
    );
    assert_eq!((big_atlas.width, big_atlas.height), (1024, 1024));
    let (p, b) = (plain.glyph(0x48).unwrap(), big.glyph(0x48).unwrap());
    assert!(((p.uv_right - p.uv_left) / (b.uv_right - b.uv_left) - 2.0).abs() < 1e-4);
    assert_eq!(
        p.plane_right, b.plane_right,
        "the same tile at the same scale"
    );

    let (fine, _, _) = built("glyph_size", "[font]\nglyph_size = 48\natlas_size = 1024\n");
    assert!((texels_per_em(&fine, 'H') - 48.0).abs() < 1e-3);

    let (wide, _, _) = built("spread", "[font]\nspread = 8.0\n");
    assert_eq!(wide.header.distance_range, 8.0);
    // Padding is half the range each side: 4 texels instead of 2, at 32 texels per em.
    let (p, w) = (plain.glyph(0x48).unwrap(), wide.glyph(0x48).unwrap());
    assert!(
        ((w.plane_right - w.plane_left) - (p.plane_right - p.plane_left) - 4.0 / 32.0).abs() < 1e-5
    );

    // Too small an atlas is an error that says what to change.
    let o = build(
        &input,
        &dir.path().join("small"),
        "[font]\natlas_size = 64\n",
        "2",
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        stderr.contains("Sans.ttf")
            && stderr.contains("64x64 atlas")
            && stderr.contains("font.atlas_size"),
        "{stderr}"
    );
}

#[test]
fn the_report_shows_a_line_of_text() {
    let test = "the_report_shows_a_line_of_text";
    let Some(dejavu) = dejavu(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(&dejavu, input.join("Sans.ttf")).unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--report",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    assert!(
        html.contains("sans.hfont<br>192 glyphs"),
        "the font's caption"
    );
    // Two pictures: the atlas and the text sample, which is wider than it is high.
    let images: Vec<PathBuf> = std::fs::read_dir(out.join("report/img"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(images.len(), 2, "{images:?}");
    let shapes: Vec<(u32, u32)> = images
        .iter()
        .map(|p| image::image_dimensions(p).unwrap())
        .collect();
    assert!(shapes.contains(&(512, 512)), "the atlas: {shapes:?}");
    let text = shapes
        .iter()
        .find(|&&(w, h)| w > 4 * h)
        .expect("a line of text");
    assert!(text.1 >= 24, "{shapes:?}");
}

#[test]
fn gpos_kerning_wins_over_the_kern_table() {
    let test = "gpos_kerning_wins_over_the_kern_table";
    if !freetype_python(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let font_path = input.join("Kerned.ttf");
    python(&["make-kerned", font_path.to_str().unwrap()]);
    // FreeType's FT_Get_Kerning reads the `kern` table: the two tables disagree.
    let args = [
        "metrics",
        font_path.to_str().unwrap(),
        "A",
        "AV",
        "To",
        "VA",
        "TA",
    ];
    let reference: serde_json::Value = serde_json::from_slice(&python(&args)).unwrap();
    assert_eq!(reference["kern"]["AV"].as_f64(), Some(-0.1));
    assert_eq!(reference["gpos"]["AV"].as_f64(), Some(-0.08));
    let out = dir.path().join("out");
    let o = build(&input, &out, "", "2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let font = read_font(&out.join("kerned.hfont"));
    let k = |pair: &str| {
        let mut cs = pair.chars().map(u32::from);
        font.kerning(cs.next().unwrap(), cs.next().unwrap())
    };
    // GPOS pair (format 1) and class pair (format 2) over the table's -100 and -50.
    assert_eq!(k("AV"), -0.08);
    assert_eq!(k("To"), -0.07);
    // Only the `kern` table names V A.
    assert_eq!(k("VA"), -0.03);
    // GPOS's class matrix decides T A, as zero: the table's -40 does not apply.
    assert_eq!(k("TA"), 0.0);
    assert_eq!(font.kerning.len(), 3, "{:?}", font.kerning);
    // The font lacks most of the default charset: one warning says so.
    let stderr = String::from_utf8_lossy(&o.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("no glyph")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("Kerned.ttf") && warnings[0].contains("U+0021-U+0040"),
        "{}",
        warnings[0]
    );
}

#[test]
fn check_follows_the_font_to_its_atlas() {
    let test = "check_follows_the_font_to_its_atlas";
    let Some(dejavu) = dejavu(test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(&dejavu, input.join("Sans.ttf")).unwrap();
    let out = dir.path().join("out");
    build_ok(&input, &out, "");
    let check = |out: &Path| {
        let o = assetc(&["check", out.to_str().unwrap()]);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    assert!(check(&out).0);
    // A font whose atlasTex names nothing the manifest has.
    let path = out.join("sans.hfont");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[16..24].copy_from_slice(&0x1234u64.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let (ok, report) = check(&out);
    assert!(!ok);
    assert!(
        report.contains("atlasTex 0000000000001234 is not in the manifest"),
        "{report}"
    );
}
