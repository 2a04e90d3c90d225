//! `build --report`: `OUTPUT/report/index.html` with thumbnails of every compiled model
//! (each LOD level), its textures, the waveform of each sound, sizes, counts, times,
//! warnings and errors, and a summary on top. The page is plain HTML and CSS with relative
//! links to PNGs beside it: it needs no network and no script.
//!
//! Incremental: a thumbnail's file name is a hash of the compiled files it shows (and the
//! renderer's settings), so an unchanged asset reuses its images and only new or changed
//! outputs are rendered. Images no asset uses any more are deleted.

mod collect;
mod html;
mod warnings;
mod waveform;

pub use collect::{AssetPage, FontThumb, MeshThumb, ShaderEntry, SoundThumb, TextureThumb};
pub use warnings::warning_kind;

use crate::outcome::BuildReport;
use crate::output::write_atomic;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The report folder under the output root.
pub const REPORT_DIR: &str = "report";
/// Thumbnails, under [`REPORT_DIR`].
pub const IMAGE_DIR: &str = "img";
/// Edge of a model thumbnail, in pixels.
pub const THUMB_SIZE: u32 = 192;
/// Per-asset build times kept between builds, so an asset the cache skipped still shows
/// the time its last real build took.
const TIMES_NAME: &str = "times.json";

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Writes the report for a finished build and returns the path of its `index.html`.
pub fn write_report(output: &Path, build: &BuildReport) -> Result<PathBuf, ReportError> {
    let dir = output.join(REPORT_DIR);
    let img_dir = dir.join(IMAGE_DIR);
    std::fs::create_dir_all(&img_dir).map_err(|source| ReportError::Write {
        path: img_dir.clone(),
        source,
    })?;
    let times = merge_times(&dir, build)?;
    let pages: Vec<AssetPage> = build
        .assets
        .iter()
        .map(|a| collect::asset_page(output, a, times.get(&a.source).copied()))
        .collect();

    // Render only the thumbnails whose file does not exist yet, in parallel: each render
    // is single-threaded and writes its own file, so the bytes never depend on the order.
    let jobs: BTreeMap<String, collect::RenderJob> = pages
        .iter()
        .flat_map(|p| p.jobs())
        .filter(|j| !img_dir.join(&j.file_name).is_file())
        .map(|j| (j.file_name.clone(), j))
        .collect();
    let rendered: Vec<(String, Result<Vec<u8>, collect::ThumbError>)> = jobs
        .into_par_iter()
        .map(|(name, job)| (name, job.render()))
        .collect();
    let mut failed_renders = BTreeMap::new();
    for (name, result) in rendered {
        match result {
            Ok(png) => {
                let path = img_dir.join(&name);
                write_atomic(&path, &png).map_err(|source| ReportError::Write { path, source })?;
            }
            Err(e) => {
                failed_renders.insert(name, e.to_string());
            }
        }
    }

    let live: BTreeSet<String> = pages
        .iter()
        .flat_map(|p| p.jobs())
        .map(|j| j.file_name)
        .filter(|n| !failed_renders.contains_key(n))
        .collect();
    remove_unused_images(&img_dir, &live);

    let page = html::page(&pages, &failed_renders, build.wall_ms);
    let index = dir.join("index.html");
    write_atomic(&index, page.as_bytes()).map_err(|source| ReportError::Write {
        path: index.clone(),
        source,
    })?;
    Ok(index)
}

/// The time each asset's outputs took to make, over those remembered from earlier reports.
fn merge_times(dir: &Path, build: &BuildReport) -> Result<BTreeMap<String, f64>, ReportError> {
    let path = dir.join(TIMES_NAME);
    let mut times: BTreeMap<String, f64> = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let current: BTreeSet<&str> = build.assets.iter().map(|a| a.source.as_str()).collect();
    times.retain(|k, _| current.contains(k.as_str()));
    for a in &build.assets {
        // The compile that made the outputs (an earlier build's for a fresh asset, as its
        // cache record says); a failed asset made none, and a fetched one keeps the time
        // an earlier report saw, if any.
        use crate::outcome::AssetStatus;
        match (a.made_in_ms, a.status) {
            (Some(ms), _) => {
                times.insert(a.source.clone(), ms);
            }
            (None, AssetStatus::Failed | AssetStatus::Skipped) => {
                times.remove(&a.source);
            }
            (None, _) => {}
        }
    }
    let json = serde_json::to_vec_pretty(&times).unwrap_or_default();
    write_atomic(&path, &json).map_err(|source| ReportError::Write { path, source })?;
    Ok(times)
}

fn remove_unused_images(img_dir: &Path, live: &BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(img_dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".png") && !live.contains(&name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
