//! `assetc pack`: SparkPak archives or `.hpack` bundles of a folder, and
//! `list`/`extract`/`check` over either (told apart by their magic).

use super::args::{GlobalArgs, MessageFormat, PackArgs, PackCommand, PackFormat};
use anyhow::Context;
use assetc::pack::ArchiveFormat;
use std::process::ExitCode;

pub fn run(args: PackArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        Some(PackCommand::List { archives }) => {
            archives.iter().try_for_each(|a| super::require_input(a))?;
            list(&archives, &global)
        }
        Some(PackCommand::Extract { archive, output }) => {
            super::require_input(&archive)?;
            extract(&archive, &output, &global)
        }
        Some(PackCommand::Check { archive }) => {
            super::require_input(&archive)?;
            check(&archive, &global)
        }
        None => {
            let dir = args
                .dir
                .context("missing DIR to pack (see `assetc pack --help`)")?;
            super::require_input(&dir)?;
            let format = match args.format {
                Some(PackFormat::Spk) => ArchiveFormat::Spk,
                Some(PackFormat::Hpack) => ArchiveFormat::HPack,
                None => args
                    .output
                    .as_deref()
                    .map_or(ArchiveFormat::Spk, ArchiveFormat::of_extension),
            };
            if format == ArchiveFormat::HPack && args.base.is_some() {
                return Err(super::UsageError(anyhow::anyhow!(
                    "--base writes a SparkPak patch; it cannot be used with --format hpack (an .hpack has no layers to mount a patch on)"
                ))
                .into());
            }
            let output = args
                .output
                .unwrap_or_else(|| dir.with_extension(format.extension()));
            pack(&dir, &output, format, args.base.as_deref(), &global)
        }
    }
}

/// Packs `dir` into `output` as `format` (a SparkPak patch against `base` when given),
/// then checks what was written.
pub fn pack(
    dir: &std::path::Path,
    output: &std::path::Path,
    format: ArchiveFormat,
    base: Option<&std::path::Path>,
    global: &GlobalArgs,
) -> anyhow::Result<ExitCode> {
    let other = match format {
        ArchiveFormat::Spk => ArchiveFormat::HPack,
        ArchiveFormat::HPack => ArchiveFormat::Spk,
    };
    let named_other = output
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(other.extension()));
    if named_other {
        eprintln!(
            "warning: writing a {} archive to {}; its extension says otherwise (readers go by the magic)",
            format.extension(),
            output.display()
        );
    }
    let assetc::pack::Packed { bytes, warnings } = assetc::pack::pack_tree_as(dir, format, base)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    assetc::output::write_atomic(output, &bytes)
        .with_context(|| format!("writing {}", output.display()))?;
    let problems = assetc::pack::check(output);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {}: {p}", output.display());
        }
        return Ok(ExitCode::from(super::EXIT_FAILED));
    }
    if !global.quiet {
        let count = match format {
            ArchiveFormat::Spk => assetc::formats::spk::open(&bytes).map(|a| a.len()).ok(),
            ArchiveFormat::HPack => assetc::formats::hpack::read(&bytes).map(|p| p.len()).ok(),
        }
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
    let entries = match assetc::pack::list_any(archives) {
        Ok(assetc::pack::Listing::Layers(entries)) => entries,
        Ok(assetc::pack::Listing::HPack(entries)) => {
            list_hpack(&entries, global);
            return Ok(ExitCode::SUCCESS);
        }
        Err(e @ assetc::pack::PackError::HPackLayers { .. }) => {
            return Err(super::UsageError(e.into()).into())
        }
        Err(e) => return Err(e.into()),
    };
    let json = global.message_format == MessageFormat::Json;
    // Rows are printed as they come (a listing may be piped into `head`), so the archive
    // column is as wide as the longest archive named, known before the first row.
    let archive_width = archives
        .iter()
        .map(|a| a.display().to_string().chars().count())
        .chain(["archive".len()])
        .max()
        .unwrap_or(0);
    if !json {
        println!(
            "{:>10} {:>10} {:>5}  {:<archive_width$}  path",
            "size", "stored", "layer", "archive"
        );
    }
    for e in &entries {
        if json {
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
                "{:>10} {:>10} {:>5}  {:<archive_width$}  {}{shadow}",
                e.original_size,
                e.compressed_size,
                e.layer,
                e.archive.display().to_string(),
                e.path
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A header row, then one line per entry: size, kind, path (JSON: one object per entry).
fn list_hpack(entries: &[assetc::pack::HPackListed], global: &GlobalArgs) {
    if global.message_format != MessageFormat::Json {
        println!("{:>10}  {:<9}  path", "size", "kind");
    }
    for e in entries {
        let kind = assetc::formats::hpack::kind_name(e.kind);
        if global.message_format == MessageFormat::Json {
            println!(
                "{}",
                serde_json::json!({
                    "path": e.path, "size": e.size, "kind": kind, "kind_id": e.kind, "offset": e.offset,
                })
            );
        } else {
            println!("{:>10}  {kind:<9}  {}", e.size, e.path);
        }
    }
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
    let report = assetc::pack::check_archive(archive);
    let problems = &report.problems;
    for p in problems {
        println!("{}: {p}", archive.display());
    }
    for (manifest, why) in &report.unusable_manifests {
        println!(
            "{}: note: {manifest} cannot vouch for the entries it lists: {why}",
            archive.display()
        );
    }
    if !global.quiet {
        eprintln!("{} problem(s) in {}", problems.len(), archive.display());
        if let Some(note) = unverifiable_note(&report) {
            eprintln!("note: {note}");
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

/// What `pack check` cannot vouch for, said plainly: the formats keep no checksum of a
/// stored entry, so a changed byte there passes unless a packed manifest lists the file.
fn unverifiable_note(report: &assetc::pack::ArchiveCheck) -> Option<String> {
    if report.hpack {
        return Some(
            "an .hpack keeps no checksums: a changed byte in an entry cannot be detected".into(),
        );
    }
    if report.entries == 0 {
        return None;
    }
    // Empty entries count as verified: their size is all they hold, and sizes are checked.
    let mut note = format!(
        "{} of {} entries verified: {} deflated (zlib Adler-32 and exact size), {} stored \
         and listed with size and digest by assets.hman",
        report.entries - report.stored_unverified,
        report.entries,
        report.deflated,
        report.stored_by_manifest
    );
    if report.stored_unverified > 0 {
        note.push_str(&format!(
            "; {} stored entries cannot be verified: SparkPak keeps no checksum of an \
             entry, so a changed byte in them goes undetected",
            report.stored_unverified
        ));
    }
    Some(note)
}
