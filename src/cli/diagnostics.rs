//! Errors that end a command before or outside a build, and configuration warnings, as
//! lines for people or, with `--message-format json`, as JSON objects on stdout.

use super::args::{GlobalArgs, MessageFormat};
use super::UsageError;
use assetc::config::ConfigError;
use serde::Serialize;

#[derive(Serialize)]
struct Diagnostic<'a> {
    reason: &'static str,
    severity: &'static str,
    /// `config` (build.toml), `usage` (flags, missing input) or `error` (anything else).
    code: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
}

fn emit(
    format: MessageFormat,
    severity: &'static str,
    code: &'static str,
    config: Option<&ConfigError>,
    message: &str,
) {
    match format {
        MessageFormat::Human => eprintln!("{severity}: {message}"),
        MessageFormat::Json => {
            let d = Diagnostic {
                reason: "diagnostic",
                severity,
                code,
                file: config.map(|c| c.file.display().to_string()),
                line: config.and_then(|c| c.line),
                column: config.and_then(|c| c.column),
                message: config.map_or(message, |c| c.message.as_str()),
            };
            if let Ok(json) = serde_json::to_string(&d) {
                println!("{json}");
            }
        }
    }
}

/// Prints a configuration warning (unless `-q`).
pub fn config_warning(global: &GlobalArgs, warning: &ConfigError) {
    if !global.quiet {
        emit(
            global.message_format,
            "warning",
            "config",
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
            let code = if config.is_some() { "config" } else { "usage" };
            emit(format, "error", code, config, &message);
        }
        None => emit(format, "error", "error", None, &message),
    }
}
