//! The fences around one asset's work: a panic anywhere in compiling a source (or encoding
//! a texture) becomes that asset's error instead of ending the build, and every output is
//! checked by its format's validator in memory, before anything is renamed into place, so
//! a build never writes a file that `assetc check` would reject.

use super::code::{DiagnosticCode, Failure};
use super::discover::Source;
use crate::formats::registry::by_path;
use crate::kinds::asset::{compile_asset, AssetSettings, CompiledAsset, TextureRequest};
use crate::limits::Limits;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Compiles one source; a panic or an output that fails validation is its error, naming
/// the source file.
pub fn compile_guarded(
    source: &Source,
    input_root: &Path,
    settings: &AssetSettings,
    limits: &Limits,
) -> Result<CompiledAsset, Failure> {
    let display = source.abs_path.display();
    // AssertUnwindSafe: on a panic everything the closure touched is dropped with it; only
    // shared read-only inputs outlive it.
    let asset = catch_unwind(AssertUnwindSafe(|| {
        compile_asset(source, input_root, settings, limits)
    }))
    .map_err(|payload| {
        Failure::of_source(
            DiagnosticCode::InternalError,
            &display,
            format!(
                "internal error while compiling (a bug in assetc, please report it with this \
                 file): {}",
                panic_message(payload.as_ref())
            ),
        )
    })?
    .map_err(|e| {
        // The source's path starts the message; any other file the error names stays in
        // the detail.
        let source_path = display.to_string();
        let detail = if e.file() == source_path {
            e.detail()
        } else {
            format!("{}: {}", e.file(), e.detail())
        };
        Failure::new(e.code(), e.to_string())
            .with_detail(detail)
            .at_site(e.site())
            .at_position(e.position())
    })?;
    for file in &asset.files {
        check_name_lengths(&file.rel_path).map_err(|e| {
            Failure::of_source(DiagnosticCode::NameTooLong, &display, e.to_string())
        })?;
    }
    // An embedded file is copied as it is, whatever its extension says.
    let copied_as_is = crate::kinds::kind(source.kind).copies_as_is;
    for file in asset.files.iter().filter(|_| !copied_as_is) {
        check_output(&file.rel_path, &file.bytes).map_err(|e| {
            Failure::of_source(DiagnosticCode::InvalidOutput, &display, e.to_string())
        })?;
    }
    Ok(asset)
}

/// Encodes one texture; a panic or an invalid result is that texture's error (the driver
/// names the image and fails the assets that use it).
pub fn encode_texture_guarded(req: &TextureRequest) -> Result<Vec<u8>, Failure> {
    let bytes = catch_unwind(AssertUnwindSafe(|| {
        crate::pipeline::textures::encode_texture(
            &req.job.bytes,
            req.job.mime_type.as_deref(),
            req.job.mode,
            req.job.alpha_cutoff,
            &req.settings,
        )
    }))
    .map_err(|payload| {
        Failure::new(
            DiagnosticCode::InternalError,
            format!(
                "{}: internal error while encoding (a bug in assetc, please report it): {}",
                req.job.label,
                panic_message(payload.as_ref())
            ),
        )
    })?
    .map_err(|e| {
        let e = e.named(&req.job.label);
        Failure::new(e.code(), e.to_string()).at_site(Some(e.site()))
    })?;
    check_output(&req.rel_path(), &bytes).map_err(|e| {
        Failure::new(
            DiagnosticCode::InvalidOutput,
            format!("{}: {e}", req.job.label),
        )
    })?;
    Ok(bytes)
}

/// Refuses an output path with a file or folder name too long to be written: refs and Qt
/// names are shortened to fit (`discover::fit_ref`), but a name kept as it is (an embedded
/// file's) may not fit, and writing it would end the whole build rather than this asset.
fn check_name_lengths(rel_path: &str) -> Result<(), OutputRefused> {
    let most = super::discover::MAX_NAME_BYTES;
    match rel_path.split('/').find(|name| name.len() > most) {
        Some(name) => Err(OutputRefused::NameTooLong {
            rel_path: rel_path.to_owned(),
            name: name.to_owned(),
            most,
        }),
        None => Ok(()),
    }
}

/// Why an output is not written: its path, and what is wrong with its name or bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputRefused {
    #[error(
        "{rel_path} was not written: the name {name:?} has {} bytes, more than the {most} an \
         output name may have (255, less room for the temporary file it is written through)",
        name.len()
    )]
    NameTooLong {
        rel_path: String,
        name: String,
        most: usize,
    },
    /// `problems`: what the format's validator found, as it words each.
    #[error("{rel_path} was not written: it fails validation: {}", problems.join("; "))]
    Invalid {
        rel_path: String,
        problems: Vec<String>,
    },
}

/// Runs the validator of the file's format (by extension) on bytes about to be written.
/// Files of no format of ours (`.qml`, copied images) pass.
pub fn check_output(rel_path: &str, bytes: &[u8]) -> Result<(), OutputRefused> {
    let Some(format) = by_path(Path::new(rel_path)) else {
        return Ok(());
    };
    let problems = (format.validate)(bytes);
    if problems.is_empty() {
        return Ok(());
    }
    Err(OutputRefused::Invalid {
        rel_path: rel_path.to_owned(),
        problems: problems.iter().map(ToString::to_string).collect(),
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic without a message".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_output_bytes_are_refused_naming_the_file() {
        let err = check_output("models/a.hmat", b"HMAT")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("models/a.hmat was not written"), "{err}");
        let table = crate::formats::hmat::write(&crate::formats::hmat::HMat {
            materials: vec![Default::default()],
        });
        assert_eq!(check_output("models/a.hmat", &table), Ok(()));
        assert_eq!(check_output("scene.qml", b"anything"), Ok(()));
    }

    #[test]
    fn names_too_long_to_write_fail_the_asset() {
        let most = crate::driver::discover::MAX_NAME_BYTES;
        assert_eq!(
            check_name_lengths(&format!("a/{}", "x".repeat(most))),
            Ok(())
        );
        let err = check_name_lengths(&format!("{}/b.txt", "x".repeat(most + 1)))
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("has {} bytes", most + 1)), "{err}");
    }

    #[test]
    fn panic_payloads_become_messages() {
        let p = catch_unwind(|| panic!("index out of bounds")).unwrap_err();
        assert_eq!(panic_message(p.as_ref()), "index out of bounds");
        let n = 3;
        let p = catch_unwind(|| panic!("bad {n}")).unwrap_err();
        assert_eq!(panic_message(p.as_ref()), "bad 3");
    }
}
