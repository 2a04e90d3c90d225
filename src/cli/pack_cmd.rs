//! `assetc pack`: SparkPak archives of a folder, and `list`/`extract`/`check` over them.

use super::args::{GlobalArgs, MessageFormat, PackArgs, PackCommand};
use anyhow::Context;
use std::process::ExitCode;

pub fn run(args: PackArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(PackCommand::List { archives }) => list(&archives, &global),
        Some(PackCommand::Extract { archive, output }) => extract(&archive, &output, &global),
        Some(PackCommand::Check { archive }) => check(&archive, &global),
        None => {
            let dir = args
                .dir
                .context("missing DIR to pack (see `assetc pack --help`)")?;
            let output = args.output.unwrap_or_else(|| dir.with_extension("spk"));
            pack(&dir, &output, args.base.as_deref(), &global)
        }
    }
}

/// Packs `dir` into `output` (a patch against `base` when given).
pub fn pack(
    dir: &std::path::Path,
    output: &std::path::Path,
    base: Option<&std::path::Path>,
    global: &GlobalArgs,
) -> anyhow::Result<ExitCode> {
    let assetc::pack::Packed { bytes, warnings } = assetc::pack::pack_tree(dir, base)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    assetc::build::output::write_atomic(output, &bytes)
        .with_context(|| format!("writing {}", output.display()))?;
    let problems = assetc::pack::check(output);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {}: {p}", output.display());
        }
        return Ok(ExitCode::from(super::EXIT_FAILED));
    }
    if !global.quiet {
        let count = assetc::formats::spk::open(&bytes)
            .map(|a| a.len())
            .unwrap_or(0);
        eprintln!(
            "packed {count} files from {} into {} ({} bytes)",
            dir.display(),
            output.display(),
            bytes.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn list(archives: &[std::path::PathBuf], global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let entries = assetc::pack::list(archives)?;
    for e in &entries {
        if global.message_format == MessageFormat::Json {
            println!(
                "{}",
                serde_json::json!({
                    "path": e.path, "layer": e.layer, "archive": e.archive, "size": e.original_size,
                    "stored": e.compressed_size, "deflated": e.compressed_size != e.original_size, "shadowed_layers": e.shadowed,
                })
            );
        } else {
            let shadow = if e.shadowed.is_empty() {
                String::new()
            } else {
                format!("  (shadows layer {:?})", e.shadowed)
            };
            println!(
                "{:>10} {:>10}  layer {} {}  {}{shadow}",
                e.original_size,
                e.compressed_size,
                e.layer,
                e.archive.display(),
                e.path
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn extract(
    archive: &std::path::Path,
    output: &std::path::Path,
    global: &GlobalArgs,
) -> anyhow::Result<ExitCode> {
    let report = assetc::pack::extract(archive, output)?;
    for (path, reason) in &report.failed {
        eprintln!("error: {}: {path}: {reason}", archive.display());
    }
    if !global.quiet {
        eprintln!(
            "extracted {} files to {}, {} failed",
            report.written.len(),
            output.display(),
            report.failed.len()
        );
    }
    Ok(if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

fn check(archive: &std::path::Path, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let problems = assetc::pack::check(archive);
    for p in &problems {
        println!("{}: {p}", archive.display());
    }
    if !global.quiet {
        eprintln!("{} problem(s) in {}", problems.len(), archive.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}
