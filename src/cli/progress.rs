//! Renders build events: a progress bar on a terminal, plain lines otherwise, JSON lines
//! with `--message-format json`, errors only with `-q`.

use super::args::{GlobalArgs, MessageFormat};
use assetc::build::events::{AssetStatus, Event, Reporter};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

pub struct CliReporter {
    format: MessageFormat,
    quiet: bool,
    verbose: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl CliReporter {
    pub fn new(global: &GlobalArgs) -> Self {
        Self {
            format: global.message_format,
            quiet: global.quiet,
            verbose: global.verbose,
            bar: Mutex::new(None),
        }
    }

    fn use_bar(&self) -> bool {
        self.format == MessageFormat::Human && !self.quiet && std::io::stderr().is_terminal()
    }

    /// Prints a line without tearing the progress bar.
    fn line(&self, text: &str, to_stderr: bool) {
        let guard = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some(bar) => bar.suspend(|| print_line(text, to_stderr)),
            None => print_line(text, to_stderr),
        }
    }
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
        if self.format == MessageFormat::Json {
            if let Ok(json) = serde_json::to_string(event) {
                println!("{json}");
            }
            return;
        }
        match event {
            Event::BuildStarted { assets } => {
                if self.use_bar() {
                    let bar = ProgressBar::new(*assets as u64);
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {wide_msg}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
                }
            }
            Event::AssetFinished {
                source,
                status,
                outputs,
                warnings,
                error,
                time_ms,
                ..
            } => {
                if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
                    bar.inc(1);
                    bar.set_message(source.clone());
                }
                match status {
                    AssetStatus::Failed => {
                        self.line(
                            &format!("error: {}", error.as_deref().unwrap_or("failed")),
                            true,
                        );
                    }
                    _ if self.quiet => {}
                    _ => {
                        if self.verbose || !self.use_bar() {
                            let verb = if *status == AssetStatus::Fresh {
                                "fresh"
                            } else {
                                "built"
                            };
                            self.line(
                                &format!(
                                    "{verb:>8} {source} ({} files, {time_ms:.0} ms)",
                                    outputs.len()
                                ),
                                false,
                            );
                        }
                        for w in warnings {
                            self.line(&format!("warning: {w}"), true);
                        }
                    }
                }
            }
            Event::BuildFinished {
                success,
                built,
                fresh,
                failed,
                textures_encoded,
                removed,
                time_ms,
            } => {
                if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    bar.finish_and_clear();
                }
                if !self.quiet || !success {
                    let summary = format!(
                        "{} {built} built, {fresh} fresh, {failed} failed, {textures_encoded} textures encoded, {removed} removed in {:.2} s",
                        if *success { "finished:" } else { "FAILED:" },
                        time_ms / 1000.0
                    );
                    self.line(&summary, !success);
                }
            }
        }
    }
}
