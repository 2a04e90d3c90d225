//! The report page: one HTML file with inline CSS, images linked relatively.

use super::collect::AssetPage;
use super::warnings::warning_kind;
use super::{IMAGE_DIR, THUMB_SIZE};
use crate::outcome::AssetStatus;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How many entries the "slowest" and "largest" lists show.
const TOP: usize = 5;

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}\
h1{font-size:1.5em}h2{font-size:1.15em;margin:0 0 .4em}\
table{border-collapse:collapse;margin:.3em 0}td,th{padding:.15em .7em;text-align:left;border-bottom:1px solid #ddd}\
td.n{text-align:right;font-variant-numeric:tabular-nums}\
.summary{display:flex;flex-wrap:wrap;gap:2em}.asset{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1em;margin:1em 0}\
.failed{border-color:#c33}.thumbs{display:flex;flex-wrap:wrap;gap:.8em}figure{margin:0}\
figcaption{font-size:12px;color:#555}img{background:#2b303b;display:block}\
.error{color:#b00;white-space:pre-wrap}.warn{color:#8a5a00}.status{font-weight:normal;color:#666}";

/// The whole page. `wall_ms` is the build's wall-clock time.
pub fn page(
    pages: &[AssetPage],
    failed_renders: &BTreeMap<String, String>,
    wall_ms: f64,
) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<title>assetc build report</title>");
    let _ = writeln!(h, "<style>{STYLE}</style></head><body>");
    h.push_str("<h1>assetc build report</h1>\n");
    summary(&mut h, pages, wall_ms);
    for p in pages {
        asset(&mut h, p, failed_renders);
    }
    h.push_str("</body></html>\n");
    h
}

fn summary(h: &mut String, pages: &[AssetPage], wall_ms: f64) {
    let count = |s: AssetStatus| pages.iter().filter(|p| p.status == s).count();
    let sum = |f: &dyn Fn(&AssetPage) -> u64| pages.iter().map(f).sum::<u64>();
    h.push_str("<div class=\"summary\"><section><h2>Totals</h2><table>");
    // Both times, named: the sum counts every thread's work (and, for an asset the cache
    // skipped, its last real build), so it exceeds the wall time on more than one core.
    let rows: [(&str, String); 12] = [
        ("assets", pages.len().to_string()),
        ("built", count(AssetStatus::Built).to_string()),
        ("unchanged", count(AssetStatus::Fresh).to_string()),
        ("fetched", count(AssetStatus::Fetched).to_string()),
        ("failed", count(AssetStatus::Failed).to_string()),
        ("vertices", sum(&|p| p.stats.vertices as u64).to_string()),
        ("triangles", sum(&|p| p.stats.triangles as u64).to_string()),
        ("meshlets", sum(&|p| p.stats.meshlets as u64).to_string()),
        ("source size", bytes(sum(&|p| p.source_bytes))),
        ("output size", bytes(sum(&|p| p.output_bytes()))),
        ("wall time (this build)", ms(wall_ms)),
        (
            "sum of asset build times",
            ms(pages.iter().filter_map(|p| p.time_ms).sum()),
        ),
    ];
    for (k, v) in rows {
        let _ = write!(h, "<tr><th>{k}</th><td class=\"n\">{v}</td></tr>");
    }
    h.push_str("</table></section>");

    let mut slow: Vec<&AssetPage> = pages.iter().filter(|p| p.time_ms.is_some()).collect();
    slow.sort_by(|a, b| {
        b.time_ms
            .partial_cmp(&a.time_ms)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    h.push_str("<section><h2>Slowest assets</h2><table>");
    for p in slow.iter().take(TOP) {
        let _ = write!(
            h,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"n\">{}</td></tr>",
            anchor(&p.source),
            esc(&p.source),
            ms(p.time_ms.unwrap_or(0.0))
        );
    }
    h.push_str("</table></section>");

    let mut files: Vec<(&str, &str, u64)> = pages
        .iter()
        .flat_map(|p| {
            p.outputs
                .iter()
                .map(|(f, b)| (p.source.as_str(), f.as_str(), *b))
        })
        .collect();
    files.sort_by(|a, b| b.2.cmp(&a.2).then(a.1.cmp(b.1)));
    files.dedup_by(|a, b| a.1 == b.1);
    h.push_str("<section><h2>Largest outputs</h2><table>");
    for (source, file, b) in files.iter().take(TOP) {
        let _ = write!(
            h,
            "<tr><td><a href=\"#{}\">{}</a></td><td class=\"n\">{}</td></tr>",
            anchor(source),
            esc(file),
            bytes(*b)
        );
    }
    h.push_str("</table></section>");

    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for w in pages.iter().flat_map(|p| &p.warnings) {
        *kinds.entry(warning_kind(w)).or_default() += 1;
    }
    let mut kinds: Vec<(String, usize)> = kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    h.push_str("<section><h2>Warnings by kind</h2><table>");
    if kinds.is_empty() {
        h.push_str("<tr><td>none</td></tr>");
    }
    for (k, n) in kinds {
        let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", esc(&k));
    }
    h.push_str("</table></section></div>\n");
}

/// An asset's figures: the geometry columns only for a kind that has geometry (a texture,
/// font or sound card shows no column of zeros), then sizes and the time its outputs took.
fn figures_table(p: &AssetPage) -> String {
    let s = &p.stats;
    let geometry = [
        ("vertices", s.vertices),
        ("triangles", s.triangles),
        ("meshlets", s.meshlets),
        ("submeshes", s.submeshes),
        ("materials", s.materials),
        ("clips", s.clips),
    ];
    let has_geometry = geometry.iter().any(|(_, n)| *n > 0);
    let mut columns: Vec<(&str, String)> = geometry
        .iter()
        .filter(|_| has_geometry)
        .map(|(name, n)| (*name, n.to_string()))
        .collect();
    columns.push(("source", bytes(p.source_bytes)));
    columns.push(("output", bytes(p.output_bytes())));
    columns.push(("time", p.time_ms.map_or("-".to_owned(), ms)));
    let mut t = String::from("<table><tr>");
    for (name, _) in &columns {
        let _ = write!(t, "<th>{name}</th>");
    }
    t.push_str("</tr><tr>");
    for (_, value) in &columns {
        let _ = write!(t, "<td class=\"n\">{value}</td>");
    }
    t.push_str("</tr></table>");
    t
}

fn asset(h: &mut String, p: &AssetPage, failed_renders: &BTreeMap<String, String>) {
    let status = match p.status {
        AssetStatus::Built => "built",
        AssetStatus::Fresh => "unchanged",
        AssetStatus::Fetched => "fetched",
        AssetStatus::Failed => "failed",
        AssetStatus::Skipped => "not built (--fail-fast)",
    };
    let class = if p.status == AssetStatus::Failed {
        "asset failed"
    } else {
        "asset"
    };
    let _ = writeln!(
        h,
        "<section class=\"{class}\" id=\"{}\"><h2>{} <span class=\"status\">{status}</span></h2>",
        anchor(&p.source),
        esc(&p.source)
    );
    if let Some(e) = &p.error {
        let _ = writeln!(h, "<p class=\"error\">{}</p>", esc(e));
    }
    if p.status != AssetStatus::Failed {
        let _ = writeln!(h, "{}", figures_table(p));
    }
    for (file, clod) in &p.cluster_lods {
        let _ = writeln!(
            h,
            "<p class=\"clod\">cluster LOD of {}: {}</p>",
            esc(file),
            esc(&clod.describe())
        );
    }
    if !p.models.is_empty() {
        h.push_str("<div class=\"thumbs\">");
        for m in &p.models {
            // A level the simplifier could not reduce is drawn as the level before it;
            // said plainly rather than shown as if it were reduced.
            let stalled = match m.stalled {
                0 => String::new(),
                n if n == m.submeshes => format!(
                    " &middot; <span class=\"warn\">not reduced: reuses LOD{}</span>",
                    m.lod - 1
                ),
                n => format!(
                    " &middot; <span class=\"warn\">{n} of {} submeshes not reduced</span>",
                    m.submeshes
                ),
            };
            let caption = format!(
                "{} LOD{} &middot; {} triangles{stalled}",
                esc(&m.file),
                m.lod,
                m.triangles
            );
            figure(
                h,
                &m.image,
                THUMB_SIZE,
                THUMB_SIZE,
                &caption,
                failed_renders,
            );
        }
        h.push_str("</div>\n");
    }
    if !p.textures.is_empty() {
        h.push_str("<div class=\"thumbs\">");
        for t in &p.textures {
            // Shown at most half a model thumbnail wide, keeping the aspect ratio.
            let side = THUMB_SIZE / 2;
            let scale = side as f32 / t.width.max(t.height).max(1) as f32;
            let (w, hh) = (
                ((t.width as f32 * scale).round() as u32).max(1),
                ((t.height as f32 * scale).round() as u32).max(1),
            );
            let caption = format!(
                "{}<br>{}&times;{} {} &middot; {} mips &middot; {}",
                esc(&t.file),
                t.width,
                t.height,
                esc(&t.format),
                t.levels,
                bytes(t.bytes)
            );
            figure(h, &t.image, w, hh, &caption, failed_renders);
        }
        h.push_str("</div>\n");
    }
    if !p.fonts.is_empty() {
        h.push_str("<div class=\"thumbs\">");
        for f in &p.fonts {
            let caption = format!(
                "{}<br>{} glyphs &middot; {} kerning pairs &middot; {}",
                esc(&f.file),
                f.glyphs,
                f.kerning_pairs,
                if f.msdf { "MSDF" } else { "SDF" }
            );
            figure(h, &f.image, f.width, f.height, &caption, failed_renders);
        }
        h.push_str("</div>\n");
    }
    if !p.shaders.is_empty() {
        h.push_str(
            "<table class=\"shaders\"><tr><th>entry point</th><th>stage</th><th>file</th><th>words</th></tr>",
        );
        for s in &p.shaders {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
                esc(&s.name),
                esc(&s.model),
                esc(&s.file),
                s.words
            );
        }
        h.push_str("</table>\n");
    }
    if !p.sounds.is_empty() {
        h.push_str("<div class=\"thumbs\">");
        for s in &p.sounds {
            let (w, hh) = super::waveform::size(s.channels);
            let caption = format!(
                "{}<br>{} &middot; {}",
                esc(&s.file),
                esc(&s.summary),
                bytes(s.bytes)
            );
            figure(h, &s.image, w, hh, &caption, failed_renders);
        }
        h.push_str("</div>\n");
    }
    if !p.warnings.is_empty() || !p.problems.is_empty() {
        h.push_str("<ul>");
        for w in &p.warnings {
            let _ = write!(h, "<li class=\"warn\">{}</li>", esc(&w.to_string()));
        }
        for w in &p.problems {
            let _ = write!(h, "<li class=\"error\">report: {}</li>", esc(w));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

/// A thumbnail with its caption, or the reason it could not be drawn (never a broken
/// image).
fn figure(
    h: &mut String,
    image: &str,
    w: u32,
    hh: u32,
    caption: &str,
    failed_renders: &BTreeMap<String, String>,
) {
    match failed_renders.get(image) {
        Some(e) => {
            let _ = write!(
                h,
                "<figure><p class=\"error\">no preview: {}</p><figcaption>{caption}</figcaption></figure>",
                esc(e)
            );
        }
        None => {
            let _ = write!(
                h,
                "<figure><img src=\"{IMAGE_DIR}/{image}\" width=\"{w}\" height=\"{hh}\" alt=\"\"><figcaption>{caption}</figcaption></figure>"
            );
        }
    }
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An id attribute value for a source path.
fn anchor(source: &str) -> String {
    let id: String = source
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("a-{id}")
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

fn ms(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} s", v / 1000.0)
    } else {
        format!("{v:.0} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::{anchor, esc};

    #[test]
    fn text_is_escaped_and_anchors_are_plain() {
        assert_eq!(esc("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
        assert_eq!(anchor("dir/a b.gltf"), "a-dir-a-b-gltf");
    }
}
