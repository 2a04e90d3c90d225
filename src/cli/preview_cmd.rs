//! `assetc preview FILE`: a PNG of a compiled file.

use super::args::{GlobalArgs, PreviewArgs};
use anyhow::Context;
use assetc::preview::{self, MeshView, PreviewOptions};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(args: PreviewArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    super::require_input(&args.file)?;
    let options = PreviewOptions {
        size: args.size.unwrap_or(preview::DEFAULT_SIZE),
        view: MeshView {
            lod: args.lod,
            meshlets: args.meshlets,
            cluster_error: args.cluster_error,
        },
        mip: args.mip,
    };
    let out = args.output.clone().unwrap_or_else(|| {
        let mut name = args.file.clone().into_os_string();
        name.push(".png");
        PathBuf::from(name)
    });
    let is_font = args
        .file
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("hfont"));
    preview::check_options(&args.file, &options).map_err(|e| super::UsageError(e.into()))?;
    let p = if is_font {
        let px = args.size.unwrap_or(preview::font::DEFAULT_PX);
        preview::font::preview_font(&args.file, &args.text, px)?
    } else {
        preview::preview_file(&args.file, &options).map_err(|e| match e {
            // A file of no kind it draws is a usage error (exit 2), as `inspect` says of one.
            preview::PreviewError::Unsupported(_) => super::UsageError(e.into()).into(),
            e => anyhow::Error::new(e),
        })?
    };
    assetc::output::write_atomic(&out, &preview::png_bytes(&p.image))
        .with_context(|| format!("writing {}", out.display()))?;
    if !global.quiet {
        for note in &p.notes {
            eprintln!("note: {note}");
        }
        eprintln!(
            "wrote {} ({}x{}{})",
            out.display(),
            p.image.width(),
            p.image.height(),
            if p.triangles > 0 {
                format!(", {} triangles", p.triangles)
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
