//! `assetc check` and `assetc info`.

use super::args::{GlobalArgs, MessageFormat, TreeArgs};
use std::process::ExitCode;

pub fn run_check(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    if !args.output.is_dir() {
        anyhow::bail!("{} is not a folder", args.output.display());
    }
    let problems = assetc::build::check::check_tree(&args.output);
    for p in &problems {
        if global.message_format == MessageFormat::Json {
            println!("{}", serde_json::json!({"reason": "problem", "message": p}));
        } else {
            println!("{p}");
        }
    }
    if !global.quiet && global.message_format == MessageFormat::Human {
        eprintln!("{} problem(s) in {}", problems.len(), args.output.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

pub fn run_info(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    if !args.output.is_dir() {
        anyhow::bail!("{} is not a folder", args.output.display());
    }
    let (files, totals) = assetc::build::info::tree_info(&args.output);
    if global.message_format == MessageFormat::Json {
        for f in &files {
            println!("{}", serde_json::json!({"reason": "file", "info": f}));
        }
        println!(
            "{}",
            serde_json::json!({"reason": "totals", "totals": totals})
        );
        return Ok(ExitCode::SUCCESS);
    }
    for f in &files {
        let mut parts = vec![format!("{} B", f.bytes)];
        let mut add = |label: &str, v: Option<u64>| {
            if let Some(v) = v {
                parts.push(format!("{v} {label}"));
            }
        };
        add("vertices", f.vertices);
        add("triangles", f.triangles);
        add("meshlets", f.meshlets);
        add("submeshes", f.submeshes);
        add("materials", f.materials);
        add("joints", f.joints);
        add("clips", f.clips);
        if !f.lod_triangles.is_empty() {
            parts.push(format!("LOD triangles {:?}", f.lod_triangles));
        }
        if let Some(t) = &f.texture {
            parts.push(t.clone());
        }
        if let Some(e) = &f.error {
            parts.push(format!("ERROR {e}"));
        }
        println!("{}: {}", f.path, parts.join(", "));
    }
    println!(
        "total: {} files, {} bytes, {} meshes, {} vertices, {} triangles, {} meshlets, {} materials, {} textures, {} clips",
        totals.files, totals.bytes, totals.meshes, totals.vertices, totals.triangles, totals.meshlets, totals.materials, totals.textures, totals.clips
    );
    Ok(ExitCode::SUCCESS)
}
