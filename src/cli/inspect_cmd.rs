//! `assetc inspect FILE`: any of our formats in a readable form.

use super::args::{GlobalArgs, InspectArgs, MessageFormat};
use super::table::{Doc, DocText};
use anyhow::Context;
use assetc::formats::describe::Description;
use assetc::formats::registry::{by_path, Format, FORMATS};
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: InspectArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    super::require_input(&args.file)?;
    // A file of no kind it reads is a usage error (exit 2), as `preview` says of one.
    let format = by_path(&args.file).ok_or_else(|| {
        super::UsageError(anyhow::anyhow!(
            "{}: unknown extension (expected {})",
            args.file.display(),
            known_extensions()
        ))
    })?;
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let json = args.json || global.message_format == MessageFormat::Json;
    let problems: Vec<String> = (format.validate)(&bytes)
        .iter()
        .map(ToString::to_string)
        .collect();
    let description =
        (format.describe)(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let doc = match description {
        Description::Document(doc) => with_loudness(doc, format, &args.file, &bytes),
        Description::Text(text) => {
            if !json {
                print!("{text}");
                for p in &problems {
                    println!("PROBLEM: {p}");
                }
                return Ok(exit_code(&problems));
            }
            let mut doc = Doc::new(format!("{}", args.file.display()));
            doc.facts = text
                .lines()
                .enumerate()
                .map(|(i, l)| (format!("{i}"), l.to_string()))
                .collect();
            doc
        }
    };
    if json {
        println!(
            "{}",
            serde_json::json!({"file": args.file, "document": doc.to_json(), "problems": problems})
        );
    } else {
        print!("{}", doc.render());
        for p in &problems {
            println!("PROBLEM: {p}");
        }
    }
    Ok(exit_code(&problems))
}

/// A sound's integrated loudness and true peak (EBU R128), measured on its decoded
/// samples; a sound that does not decode says why in the row.
fn with_loudness(mut doc: Doc, format: &Format, path: &Path, bytes: &[u8]) -> Doc {
    if !format
        .entry_kinds
        .contains(&assetc::formats::hman::EntryKind::Audio)
    {
        return doc;
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match assetc::kinds::audio::loudness_of(bytes.to_vec(), &ext) {
        Ok(l) if l.integrated_lufs.is_finite() => {
            doc.fact(
                "loudness",
                format!("{:.1} LUFS (integrated, EBU R128)", l.integrated_lufs),
            );
            doc.fact("true peak", format!("{:.1} dBTP", l.true_peak_dbtp));
        }
        Ok(_) => doc.fact(
            "loudness",
            "not measurable (silent, or shorter than 400 ms)",
        ),
        Err(e) => doc.fact("loudness", format!("not measured: {e}")),
    }
    doc
}

/// `.hmesh .hmat ...`: every extension `inspect` reads, in the registry's order.
fn known_extensions() -> String {
    let all: Vec<String> = FORMATS
        .iter()
        .flat_map(|f| f.extensions.iter().map(|e| format!(".{e}")))
        .collect();
    all.join(" ")
}

fn exit_code(problems: &[String]) -> ExitCode {
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unknown_extension_message_lists_every_format() {
        assert_eq!(
            known_extensions(),
            ".hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk .hpack .spv .wgsl .hfont .wav .ogg"
        );
    }
}
