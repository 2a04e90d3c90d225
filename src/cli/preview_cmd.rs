//! `assetc preview FILE`: a PNG of a compiled file.

use super::args::GlobalArgs;
use anyhow::Context;
use assetc::preview::{self, MeshView, PreviewOptions};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// A compiled .hmesh, Qt .mesh, .bmd, .ktx2 or .hfont (its atlas .ktx2 beside it).
    pub file: PathBuf,
    /// PNG to write [default: FILE with `.png` appended].
    #[arg(short, long, value_name = "OUT.png")]
    pub output: Option<PathBuf>,
    /// Edge of the square image in pixels for a mesh [default: 512] (a texture keeps its
    /// level's size); for a font, the text's size in pixels per em [default: 48].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=preview::MAX_SIZE as i64))]
    pub size: Option<u32>,
    /// The line of text a font preview draws.
    #[arg(long, value_name = "TEXT", default_value = preview::font::DEFAULT_TEXT)]
    pub text: String,
    /// Draw LOD level K (0 = full detail).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub lod: usize,
    /// Colour every meshlet on its own (.hmesh, full detail).
    #[arg(long, conflicts_with = "lod")]
    pub meshlets: bool,
    /// Draw the cluster LOD cut for PX pixels of error (a .hmesh built with
    /// mesh.cluster_lod = true), seen from the preview's camera; with --meshlets, each
    /// cluster in a colour of its own.
    #[arg(long, value_name = "PX", conflicts_with = "lod")]
    pub cluster_error: Option<f32>,
    /// Mip level K of a .ktx2 (0 = full size).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub mip: usize,
}

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
