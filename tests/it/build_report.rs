//! `build --report`: the page lists every asset (a failed one with its error), its
//! thumbnails exist and are reused by the next build, and a real browser (headless
//! Chromium) shows the page with every image loaded.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Sample sources plus one broken file, built with `--report`.
fn build_with_report(input: &Path, out: &Path) -> std::process::Output {
    common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--report",
        "-q",
    ])
}

fn sample_input(dir: &Path) -> PathBuf {
    let input = dir.join("in");
    common::copy_dir(&common::samples(), &input);
    std::fs::write(input.join("broken.gltf"), b"{ not json").unwrap();
    input
}

/// `img/<name>.png` sources of the page, in order.
fn image_sources(html: &str) -> Vec<String> {
    html.split("<img src=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_owned())
        .collect()
}

#[test]
fn report_lists_every_asset_and_reuses_its_thumbnails() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample_input(dir.path());
    let out = dir.path().join("out");
    let first = build_with_report(&input, &out);
    assert_eq!(
        first.status.code(),
        Some(1),
        "the broken source fails the build"
    );
    let index = out.join("report/index.html");
    let html = std::fs::read_to_string(&index).unwrap();
    assert!(!html.contains("<script"), "the page needs no script");
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no network"
    );
    for source in [
        "box",
        "hierarchy.gltf",
        "soup.gltf",
        "strip.gltf",
        "terrain",
    ] {
        assert!(html.contains(source), "{source} missing from the report");
    }
    assert!(html.contains("broken.gltf") && html.contains("class=\"error\""));
    // Both times, named (the sum of per-asset times was once shown as "build time").
    let total = |name: &str| -> f64 {
        let row = format!("<tr><th>{name}</th><td class=\"n\">");
        let start = html.find(&row).unwrap_or_else(|| panic!("no {name} row")) + row.len();
        let cell = &html[start..start + html[start..].find('<').unwrap()];
        let (value, unit) = cell.split_at(cell.find(|c: char| c.is_ascii_alphabetic()).unwrap());
        let value: f64 = value.trim().parse().unwrap();
        match unit {
            "ms" => value,
            "s" => value * 1000.0,
            other => panic!("{name}: unit {other}"),
        }
    };
    assert!(total("wall time (this build)") > 0.0);
    assert!(total("sum of asset build times") > 0.0);
    for section in [
        "Totals",
        "Slowest assets",
        "Largest outputs",
        "Warnings by kind",
    ] {
        assert!(html.contains(section), "{section} missing");
    }
    let images = image_sources(&html);
    assert!(images.len() >= 4, "{images:?}");
    for img in &images {
        let png = image::open(out.join("report").join(img)).unwrap();
        assert!(png.width() > 0);
    }
    // Each .hmesh shows LOD0 and every reduced level; a level the simplifier could not
    // reduce (the samples' small meshes) says so instead of passing for a reduced one.
    assert!(html.contains("LOD0") && html.contains("LOD1"));
    assert!(html.contains("not reduced: reuses LOD0"), "{html}");

    // Nothing changed: same page of images, none redrawn. Images are written atomically
    // (a new file renamed over the old), so a redrawn image has a new inode: no clock
    // resolution to wait out.
    use std::os::unix::fs::MetadataExt;
    let stamp = |p: &str| std::fs::metadata(out.join("report").join(p)).unwrap().ino();
    let before: Vec<_> = images.iter().map(|i| stamp(i)).collect();
    build_with_report(&input, &out);
    let again = std::fs::read_to_string(&index).unwrap();
    assert_eq!(image_sources(&again), images);
    let after: Vec<_> = images.iter().map(|i| stamp(i)).collect();
    assert_eq!(before, after, "unchanged assets reuse their thumbnails");
    assert!(again.contains("unchanged"));

    // A removed source takes its thumbnails with it.
    std::fs::remove_file(input.join("soup.gltf")).unwrap();
    build_with_report(&input, &out);
    let third = std::fs::read_to_string(&index).unwrap();
    assert!(!third.contains("soup.gltf"));
    let pngs = std::fs::read_dir(out.join("report/img")).unwrap().count();
    let live: std::collections::BTreeSet<String> = image_sources(&third).into_iter().collect();
    assert_eq!(pngs, live.len(), "stale thumbnails are deleted");
}

/// `chromium`, or `None` outside CI when it is not installed; under `CI=true` its absence
/// fails the test.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        common::missing("report_in_chromium", "chromium (Debian package `chromium`)");
    }
    found
}

fn chromium_command(chromium: &Path, profile: &Path) -> Command {
    let mut c = Command::new(chromium);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

#[test]
fn report_in_chromium_shows_the_page_with_every_image_loaded() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = sample_input(dir.path());
    let out = dir.path().join("out");
    build_with_report(&input, &out);
    let report = out.join("report");
    let index = report.join("index.html");
    let html = std::fs::read_to_string(&index).unwrap();
    let expected_images = image_sources(&html).len();
    assert!(expected_images >= 4);

    // 1. A screenshot of the page itself: not blank.
    let shot = dir.path().join("shot.png");
    let status = chromium_command(&chromium, &dir.path().join("profile1"))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1200,1600")
        .arg(format!("file://{}", index.display()))
        .output()
        .unwrap();
    assert!(
        shot.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let img = image::open(&shot).unwrap().to_rgba8();
    let background = img.get_pixel(0, 0).0;
    let differing = img.pixels().filter(|p| p.0 != background).count();
    let share = differing as f64 / (img.width() * img.height()) as f64;
    assert!(
        share > 0.05,
        "the screenshot is blank ({:.1}% non-background)",
        share * 100.0
    );
    // The thumbnails' dark background shows: images were drawn, not just text.
    let dark = img
        .pixels()
        .filter(|p| p.0[..3] == assetc::preview::BACKGROUND[..3])
        .count();
    assert!(
        dark > 1000,
        "no thumbnail visible in the screenshot ({dark} pixels)"
    );

    // 2. Every <img> loaded: a test-only harness (the report itself has no script) loads
    // the page in a frame, waits for it, and writes what it finds into its own DOM, which
    // Chromium prints.
    let harness = report.join("test-harness.html");
    std::fs::write(
        &harness,
        r#"<!DOCTYPE html><html><body><iframe id="f" src="index.html" width="1200" height="1600"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(this.contentDocument.images);
  var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; });
  var p = document.createElement("pre");
  p.id = "result";
  p.textContent = "IMAGES " + imgs.length + " BROKEN " + broken.length + " " +
    broken.map(function (i) { return i.getAttribute("src"); }).join(",");
  document.body.appendChild(p);
});
</script></body></html>"#,
    )
    .unwrap();
    let dump = chromium_command(&chromium, &dir.path().join("profile2"))
        .args([
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dump.stdout);
    let line = dom
        .lines()
        .find(|l| l.contains("<pre id=\"result\">"))
        .unwrap_or_else(|| {
            panic!(
                "no result in the DOM: {dom}\n{}",
                String::from_utf8_lossy(&dump.stderr)
            )
        });
    let expected = format!("IMAGES {expected_images} BROKEN 0 ");
    assert!(line.contains(&expected), "{line} (expected {expected})");
}

#[test]
fn packed_build_leaves_the_report_out() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    common::copy_dir(&common::samples(), &input);
    let out = dir.path().join("out");
    let built = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-config",
        "--report",
        "--pack",
        "spk",
        "-q",
    ]);
    assert!(built.status.success(), "{built:?}");
    assert!(out.join("report/index.html").is_file());
    let archive = out.with_extension("spk");
    let listed = common::assetc(&["pack", "list", archive.to_str().unwrap()]);
    assert!(listed.status.success(), "{listed:?}");
    let listing = String::from_utf8_lossy(&listed.stdout);
    assert!(listing.contains("assets.hman"), "{listing}");
    assert!(!listing.contains("report/"), "{listing}");
}

/// The `<td>` cells of the `<section>` whose heading starts with `heading`.
fn section_cells(html: &str, heading: &str) -> Vec<String> {
    let start = html
        .find(&format!("<h2>{heading}"))
        .unwrap_or_else(|| panic!("no section {heading}"));
    let body = &html[start..];
    let body = &body[..body.find("</section>").unwrap()];
    body.split("<td")
        .skip(1)
        .map(|c| {
            let c = &c[c.find('>').unwrap() + 1..];
            c[..c.find("</td>").unwrap()].to_owned()
        })
        .collect()
}

/// The card of `source`: from its heading to the next card.
fn card<'a>(html: &'a str, source: &str) -> &'a str {
    let start = html
        .find(&format!(">{source} <span class=\"status\">"))
        .unwrap_or_else(|| panic!("no card for {source}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

#[test]
fn a_no_op_report_describes_the_tree_as_it_stands() {
    // The report asked for only after a build that made everything: each card's time is
    // that of the build that made its outputs, and a texture card has no geometry columns.
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("assets");
    common::copy_dir(&common::samples(), &input);
    image::RgbaImage::from_fn(16, 16, |x, y| {
        image::Rgba([x as u8 * 9, y as u8 * 9, 40, 255])
    })
    .save(input.join("flag.png"))
    .unwrap();
    // Built through a build.toml one folder over, as `input = "../assets"`.
    let cfg = dir.path().join("cfg");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(
        cfg.join("build.toml"),
        "input = \"../assets\"\noutput = \"../out\"\n",
    )
    .unwrap();
    let build = |extra: &[&str]| {
        let mut args = vec!["build", "-q"];
        args.extend_from_slice(extra);
        common::assetc_in(&cfg, &args)
    };
    let first = build(&[]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    std::fs::write(input.join("broken.gltf"), b"{ not json").unwrap();
    let no_op = build(&["--report"]);
    assert_eq!(no_op.status.code(), Some(1), "the broken source fails");
    let html = std::fs::read_to_string(dir.path().join("out/report/index.html")).unwrap();

    // The slowest are the assets that were made, with their times; not the failure.
    let slowest = section_cells(&html, "Slowest assets");
    let listed: Vec<&String> = slowest.iter().step_by(2).collect();
    assert!(listed.len() >= 5, "{slowest:?}");
    assert!(
        !listed.iter().any(|l| l.contains("broken.gltf")),
        "a failed asset made nothing: {slowest:?}"
    );
    for time in slowest.iter().skip(1).step_by(2) {
        assert_ne!(time, "-", "{slowest:?}");
    }
    // Every card of an unchanged asset shows the time that made it.
    for source in ["hierarchy.gltf", "soup.gltf", "flag.png"] {
        let c = card(&html, source);
        assert!(c.contains("unchanged"), "{c}");
        assert!(!c.contains("<td class=\"n\">-</td>"), "{source}: {c}");
    }
    // Its own columns: a model's geometry, none of it on a texture's card.
    assert!(card(&html, "soup.gltf").contains("<th>triangles</th>"));
    let flag = card(&html, "flag.png");
    assert!(!flag.contains("<th>vertices</th>"), "{flag}");
    assert!(flag.contains("<th>output</th>") && flag.contains("<th>time</th>"));
    // The failure names the file by the path people see, not the way there.
    let broken = card(&html, "broken.gltf");
    assert!(!broken.contains("cfg/.."), "{broken}");
    let expected = dir.path().join("assets/broken.gltf");
    assert!(
        broken.contains(expected.to_str().unwrap()),
        "{broken}\nwant {}",
        expected.display()
    );
}
