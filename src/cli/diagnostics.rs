//! Errors that end a command before or outside a build, and configuration warnings, as
//! lines for people or, with `--message-format json`, as JSON objects on stdout in the one
//! shape every diagnostic has: `{"reason": "diagnostic", "diagnostic": {...}}` with the
//! fields of [`assetc::driver::events::Diagnostic`] (docs/diagnostics.md).

use super::args::{GlobalArgs, MessageFormat};
use super::UsageError;
use assetc::config::ConfigError;
use assetc::driver::code::DiagnosticCode;
use assetc::driver::events::{Diagnostic, Severity};

fn emit(
    format: MessageFormat,
    severity: Severity,
    code: DiagnosticCode,
    config: Option<&ConfigError>,
    message: &str,
) {
    let word = match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    match format {
        MessageFormat::Human => eprintln!("{word}: {message}"),
        MessageFormat::Json => {
            let d = Diagnostic {
                severity,
                file: config
                    .map(|c| c.file.display().to_string())
                    .unwrap_or_default(),
                gltf_path: None,
                line: config.and_then(|c| c.line),
                column: config.and_then(|c| c.column),
                message: config.map_or(message, |c| c.message.as_str()).to_string(),
                code: Some(code),
            };
            println!(
                "{}",
                serde_json::json!({"reason": "diagnostic", "diagnostic": d})
            );
        }
    }
}

/// Prints a configuration warning (unless `-q`).
pub fn config_warning(global: &GlobalArgs, warning: &ConfigError) {
    if !global.quiet {
        emit(
            global.message_format,
            Severity::Warning,
            DiagnosticCode::Config,
            Some(warning),
            &warning.to_string(),
        );
    }
}

/// Prints the error a command failed with.
pub fn command_error(format: MessageFormat, error: &anyhow::Error) {
    let message = format!("{error:#}");
    match error.downcast_ref::<UsageError>() {
        Some(usage) => {
            let config = usage
                .0
                .chain()
                .find_map(|e| e.downcast_ref::<ConfigError>());
            let code = if config.is_some() {
                DiagnosticCode::Config
            } else {
                DiagnosticCode::Usage
            };
            emit(format, Severity::Error, code, config, &message);
        }
        None => emit(
            format,
            Severity::Error,
            DiagnosticCode::Error,
            None,
            &message,
        ),
    }
}
