//! `[platforms.NAME]`: one complete runtime tree and manifest per platform, each in
//! `<output>/NAME/` with its own cache. The trees are built one after another; an asset
//! whose key does not change between platforms (a model without images, a sound) is
//! compiled for the first and copied into the others (`steps::share`).

use super::{BuildOptions, BuildReport};
use std::path::PathBuf;

/// The trees a build writes, each with its options: none without `[platforms]` (the one
/// tree of the options as they are), else every platform's or the one `--platform` names.
pub(super) fn trees(options: &BuildOptions) -> Result<Vec<(String, BuildOptions)>, String> {
    let names: Vec<&str> = options.platforms.iter().map(|p| p.name.as_str()).collect();
    if options.platforms.is_empty() {
        return match &options.platform {
            Some(name) => Err(format!(
                "--platform {name}: build.toml defines no [platforms.NAME] tables"
            )),
            None => Ok(Vec::new()),
        };
    }
    let chosen: Vec<_> = match &options.platform {
        None => options.platforms.iter().collect(),
        Some(name) => match options.platforms.iter().find(|p| &p.name == name) {
            Some(p) => vec![p],
            None => {
                let hint = crate::config::nearest(name, names.iter().copied())
                    .map(|n| format!("; did you mean `{n}`?"))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown platform `{name}` (build.toml defines: {}){hint}",
                    names.join(", ")
                ));
            }
        },
    };
    let folder = |name: &str| options.output.join(name);
    Ok(chosen
        .into_iter()
        .map(|platform| {
            let mut tree = options.clone();
            tree.output = folder(&platform.name);
            (platform.apply)(&mut tree.settings);
            tree.platforms.clear();
            tree.platform = None;
            // Every other platform's tree: those built before this one in this run, and
            // those of an earlier run (their records are checked as this tree's are).
            tree.share_from = names
                .iter()
                .filter(|n| **n != platform.name)
                .map(|n| folder(n))
                .collect::<Vec<PathBuf>>();
            (platform.name.clone(), tree)
        })
        .collect())
}

/// One report for the trees built: every asset once per platform, its outputs relative
/// to the whole output folder (`desktop/hero.ktx2`), and the counts summed.
pub(super) fn merged(reports: Vec<(&str, BuildReport)>) -> BuildReport {
    let mut all = BuildReport::default();
    for (name, report) in reports {
        all.assets
            .extend(report.assets.into_iter().map(|mut asset| {
                for output in &mut asset.outputs {
                    *output = format!("{name}/{output}");
                }
                asset
            }));
        all.textures_encoded += report.textures_encoded;
        all.removed += report.removed;
        all.verify_problems.extend(report.verify_problems);
        all.verified_files = match (all.verified_files, report.verified_files) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        all.ignored = report.ignored;
        all.archive = report.archive.or(all.archive);
        all.report_page = report.report_page.or(all.report_page);
        all.fetched_bytes += report.fetched_bytes;
        all.uploaded_bytes += report.uploaded_bytes;
        all.wall_ms += report.wall_ms;
    }
    all
}
