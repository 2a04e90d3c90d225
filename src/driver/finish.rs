//! Reporting each asset as it finishes: its textures encoded (shared ones once), then one
//! `AssetFinished` event with its structured diagnostics, from the worker that built it.

use super::code::Failure;
use super::discover::Source;
use super::events::{AssetStatus, Diagnostic, Event, Reporter};
use super::texture_store::TextureStore;
use super::AssetReport;
use crate::kinds::asset::CompiledAsset;

/// Encodes the textures of a compiled asset (or waits for them); a texture that fails
/// fails the asset. Ticks progress for the asset and for each texture encoded here.
pub(super) fn with_textures(
    result: Result<CompiledAsset, Failure>,
    store: &TextureStore<'_>,
    source: &Source,
    reporter: &dyn Reporter,
) -> Result<CompiledAsset, Failure> {
    let asset = match result {
        Ok(asset) => asset,
        Err(e) => {
            progress(reporter, 0, &source.rel_path);
            return Err(e);
        }
    };
    store
        .ensure(
            &asset.textures,
            |new| progress(reporter, new, &source.rel_path),
            |label| progress(reporter, 0, label),
        )
        // The encoder's error already names the image (`images[0] (a.png): ...`): the
        // source's path goes before it, the detail stays as it is.
        .map_err(|e| Failure {
            message: format!("{}: {}", source.abs_path.display(), e.message),
            ..e
        })?;
    Ok(asset)
}

pub(super) fn progress(reporter: &dyn Reporter, added: usize, name: &str) {
    reporter.event(&Event::Progress {
        added,
        done: 1,
        name: name.to_string(),
    });
}

pub(super) fn report_finished(
    reporter: &dyn Reporter,
    source: &Source,
    report: &AssetReport,
    time_ms: u64,
) {
    reporter.event(&Event::AssetFinished {
        source: report.source.clone(),
        status: report.status,
        outputs: report.outputs.clone(),
        // As people read them: the source's path, then where in it, then the text.
        warnings: report
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", source.abs_path.display()))
            .collect(),
        error: report.error.clone(),
        diagnostics: diagnostics(source, report),
        time_ms,
        stages_us: if report.status == AssetStatus::Built {
            report
                .times
                .entries()
                .iter()
                .map(|(n, d)| (n.to_string(), d.as_micros() as u64))
                .collect()
        } else {
            Vec::new()
        },
    });
}

/// The warnings and the error as raised: the error's site and detail come from its type,
/// nothing is read back from the rendered line.
fn diagnostics(source: &Source, report: &AssetReport) -> Vec<Diagnostic> {
    let warnings = report
        .warnings
        .iter()
        .map(|w| Diagnostic::from_warning(&source.rel_path, w));
    let error = report.error.iter().map(|message| {
        match (&report.error_site, &report.error_detail) {
            (Some(site), _) => Diagnostic::from_site(&source.rel_path, site, report.error_code),
            (None, Some(detail)) => {
                Diagnostic::from_detail(&source.rel_path, detail, report.error_code)
                    .at_position(report.error_position)
            }
            // An error without its parts (none is made so): the whole line as it reads.
            (None, None) => Diagnostic::from_detail(&source.rel_path, message, report.error_code),
        }
    });
    warnings.chain(error).collect()
}
