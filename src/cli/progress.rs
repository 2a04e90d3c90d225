//! Renders build events. Human: one progress bar over all the work (assets and textures)
//! on a terminal, drawn from the start; one line per built asset as it finishes (streamed
//! when piped too); fresh assets only with `-v`, so a no-op build prints one summary line;
//! each warning once; at the end the failed assets with their first error, as cargo's
//! "could not compile". JSON (`--message-format json`): one object per line, a
//! `diagnostic` object per warning or error, and always a closing `build-finished`.

use super::args::{GlobalArgs, MessageFormat};
use assetc::driver::events::{AssetStatus, Diagnostic, Event, Reporter, Severity};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::HashSet;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

pub struct CliReporter {
    format: MessageFormat,
    quiet: bool,
    verbose: bool,
    bar: Mutex<Option<ProgressBar>>,
    /// Failed assets of the current build: source and first error line.
    failures: Mutex<Vec<(String, String)>>,
    /// Warnings already printed (by this process: `--watch` does not repeat them).
    seen_warnings: Mutex<HashSet<String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CliReporter {
    pub fn new(global: &GlobalArgs) -> Self {
        Self {
            format: global.message_format,
            quiet: global.quiet,
            verbose: global.verbose,
            bar: Mutex::new(None),
            failures: Mutex::new(Vec::new()),
            seen_warnings: Mutex::new(HashSet::new()),
        }
    }

    pub fn is_json(&self) -> bool {
        self.format == MessageFormat::Json
    }

    fn use_bar(&self) -> bool {
        self.format == MessageFormat::Human && !self.quiet && std::io::stderr().is_terminal()
    }

    /// Prints a line without tearing the progress bar.
    fn line(&self, text: &str, to_stderr: bool) {
        let guard = lock(&self.bar);
        match guard.as_ref() {
            Some(bar) => bar.suspend(|| print_line(text, to_stderr)),
            None => print_line(text, to_stderr),
        }
    }

    fn json(&self, value: &impl serde::Serialize) {
        if let Ok(json) = serde_json::to_string(value) {
            println!("{json}");
        }
    }

    /// The build could not run (bad settings, missing input, unwritable output): JSON
    /// consumers still get a closing `build-finished` that says why.
    pub fn build_error(&self, message: &str) {
        if let Some(bar) = lock(&self.bar).take() {
            bar.finish_and_clear();
        }
        if self.is_json() {
            self.json(&Event::BuildFinished {
                success: false,
                built: 0,
                fresh: 0,
                fetched: 0,
                fetched_bytes: 0,
                uploaded_bytes: 0,
                failed: 0,
                skipped: 0,
                textures_encoded: 0,
                removed: 0,
                time_ms: 0,
                verify_problems: Vec::new(),
                verified_files: None,
                error: Some(message.to_string()),
            });
        }
    }

    /// `--watch`: what a burst of saves changed, before the rebuild it causes.
    pub fn changed(&self, names: &[String]) {
        if self.is_json() {
            self.json(&serde_json::json!({"reason": "watch-changed", "paths": names}));
        } else if !self.quiet {
            self.line(&format!("{:>12} {}", "Changed", names.join(", ")), false);
        }
    }

    fn warning(&self, d: &Diagnostic) {
        // Quiet prints none: no need to render each one to remember it.
        if self.quiet {
            return;
        }
        let text = d.rendered();
        if lock(&self.seen_warnings).insert(text.clone()) {
            self.line(&format!("warning: {text}"), true);
        }
    }

    fn human(&self, event: &Event) {
        match event {
            Event::PlatformStarted { platform, output } => {
                if !self.quiet {
                    self.line(&format!("{:>12} {platform} -> {output}", "Platform"), false);
                }
            }
            Event::BuildStarted { to_build, .. } => {
                lock(&self.failures).clear();
                if self.use_bar() && *to_build > 0 {
                    let bar = ProgressBar::new(*to_build as u64);
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{prefix:>12.cyan.bold} [{bar:30}] {pos}/{len} {wide_msg}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar())
                        .progress_chars("=> "),
                    );
                    bar.set_prefix("Building");
                    // Draw now and keep redrawing: the first asset can take seconds.
                    bar.enable_steady_tick(Duration::from_millis(100));
                    *lock(&self.bar) = Some(bar);
                }
            }
            Event::Progress { added, done, name } => {
                if let Some(bar) = lock(&self.bar).as_ref() {
                    bar.inc_length(*added as u64);
                    bar.inc(*done as u64);
                    bar.set_message(name.clone());
                }
            }
            Event::AssetFinished {
                source,
                status,
                outputs,
                diagnostics,
                time_ms,
                ..
            } => {
                let show = match status {
                    AssetStatus::Built | AssetStatus::Fetched => !self.quiet,
                    AssetStatus::Fresh => self.verbose,
                    AssetStatus::Failed | AssetStatus::Skipped => false,
                };
                if show {
                    let verb = match status {
                        AssetStatus::Fresh => "Fresh",
                        AssetStatus::Fetched => "Fetched",
                        _ => "Built",
                    };
                    self.line(
                        &format!(
                            "{verb:>12} {source} ({}, {time_ms} ms)",
                            plural(outputs.len(), "file")
                        ),
                        false,
                    );
                }
                if *status == AssetStatus::Skipped {
                    // Counted in the summary; it has no error of its own to list.
                    return;
                }
                for d in diagnostics {
                    match d.severity {
                        Severity::Warning => self.warning(d),
                        Severity::Error => {
                            self.line(&format!("error: {}", d.rendered()), true);
                            let first = d.message.lines().next().unwrap_or("").to_string();
                            lock(&self.failures).push((source.clone(), first));
                        }
                    }
                }
            }
            Event::Ignored { message, .. }
            | Event::EmbedOverruled { message, .. }
            | Event::UnusedSettings { message, .. } => {
                if !self.quiet {
                    self.line(&format!("warning: {message}"), true);
                }
            }
            Event::RemoteWarning { remote, message } => {
                if !self.quiet {
                    self.line(&format!("warning: remote cache {remote}: {message}"), true);
                }
            }
            Event::BuildFinished {
                success,
                built,
                fresh,
                fetched,
                fetched_bytes,
                uploaded_bytes,
                failed,
                skipped,
                textures_encoded,
                removed,
                time_ms,
                verify_problems,
                verified_files,
                ..
            } => {
                if let Some(bar) = lock(&self.bar).take() {
                    bar.finish_and_clear();
                }
                for p in verify_problems {
                    eprintln!("error: verify: {p}");
                }
                let mut failures = std::mem::take(&mut *lock(&self.failures));
                failures.sort();
                if !failures.is_empty() {
                    eprintln!(
                        "error: could not compile {}:",
                        plural(failures.len(), "asset")
                    );
                    for (source, first) in &failures {
                        eprintln!("  {source}: {first}");
                    }
                }
                // The remote's figures only when one was used.
                let remote = if *fetched_bytes > 0 || *uploaded_bytes > 0 {
                    format!(
                        "{fetched} fetched ({} read, {} uploaded), ",
                        megabytes(*fetched_bytes),
                        megabytes(*uploaded_bytes)
                    )
                } else {
                    String::new()
                };
                let not_built = if *skipped > 0 {
                    format!("{skipped} not built (--fail-fast), ")
                } else {
                    String::new()
                };
                let counts = format!(
                    "{built} built, {remote}{fresh} fresh, {failed} failed, {not_built}{} encoded, {removed} removed in {:.2} s",
                    plural(*textures_encoded, "texture"),
                    *time_ms as f64 / 1000.0
                );
                if *success {
                    if !self.quiet {
                        println!("finished: {counts}");
                        if let Some(n) = verified_files {
                            println!(
                                "verified: {n} written files re-read and valid (every .hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk .hpack .hfont .spv .wgsl .wav .ogg of the output)"
                            );
                        }
                    }
                } else {
                    let mut why = Vec::new();
                    if *failed > 0 {
                        why.push(format!("{} failed", plural(*failed, "asset")));
                    }
                    if !verify_problems.is_empty() {
                        why.push(format!(
                            "--verify found {} in written files, first: {}",
                            plural(verify_problems.len(), "problem"),
                            verify_problems[0]
                        ));
                    }
                    eprintln!("FAILED: {}; {counts}", why.join("; "));
                }
            }
        }
    }
}

/// `1 file`, `2 files`: a count and its noun, in the plural unless the count is one.
pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("{count} {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn print_line(text: &str, to_stderr: bool) {
    if to_stderr {
        eprintln!("{text}");
    } else {
        println!("{text}");
    }
}

impl Reporter for CliReporter {
    fn event(&self, event: &Event) {
        if !self.is_json() {
            return self.human(event);
        }
        match event {
            Event::Progress { .. } => {}
            Event::Ignored { message, .. }
            | Event::EmbedOverruled { message, .. }
            | Event::UnusedSettings { message, .. } => {
                let code = match event {
                    Event::Ignored { .. } => assetc::driver::code::DiagnosticCode::IgnoredFiles,
                    Event::UnusedSettings { .. } => {
                        assetc::driver::code::DiagnosticCode::UnusedSettings
                    }
                    _ => assetc::driver::code::DiagnosticCode::EmbedOverruled,
                };
                let d = Diagnostic {
                    severity: Severity::Warning,
                    file: String::new(),
                    gltf_path: None,
                    line: None,
                    column: None,
                    message: message.clone(),
                    code: Some(code),
                };
                self.json(&serde_json::json!({"reason": "diagnostic", "diagnostic": d}));
            }
            Event::RemoteWarning { remote, message } => {
                let d = Diagnostic {
                    severity: Severity::Warning,
                    file: remote.clone(),
                    gltf_path: None,
                    line: None,
                    column: None,
                    message: message.clone(),
                    code: Some(assetc::driver::code::DiagnosticCode::RemoteCache),
                };
                self.json(&serde_json::json!({"reason": "diagnostic", "diagnostic": d}));
            }
            Event::AssetFinished { diagnostics, .. } => {
                for d in diagnostics {
                    self.json(&serde_json::json!({"reason": "diagnostic", "diagnostic": d}));
                }
                self.json(event);
            }
            _ => self.json(event),
        }
    }
}
