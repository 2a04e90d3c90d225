//! Building from a cargo build script: settings from build.toml, output in `OUT_DIR`,
//! `cargo:rerun-if-changed` for everything that can change the result (new sources
//! included), warnings passed on as `cargo:warning=`, and a failure that names each failed
//! file and why.

use super::events::{AssetStatus, Event, Reporter};
use super::{cache, BuildError, BuildOptions, BuildReport, Builder};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The output folder of [`Builder::for_build_script`]: `$OUT_DIR/assets`.
pub const OUT_DIR_SUBFOLDER: &str = "assets";

impl Builder {
    /// For a `build.rs`: compiles `input` into `$OUT_DIR/assets` (or `runtime` outside
    /// cargo) with the settings of the build.toml cargo's working directory (the crate)
    /// or a parent holds. Run it with [`Builder::run_build_script`].
    pub fn for_build_script(input: impl Into<PathBuf>) -> Self {
        let output = std::env::var_os("OUT_DIR")
            .map(|d| PathBuf::from(d).join(OUT_DIR_SUBFOLDER))
            .unwrap_or_else(|| PathBuf::from("runtime"));
        Self::new(input, output)
    }

    /// Applies the build.toml found in the working directory or a parent (input and output
    /// stay as given); an invalid file makes [`Builder::run`] fail with its error.
    pub(super) fn with_found_config(mut self) -> Self {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let Some(path) = crate::config::find_config(&cwd) else {
            return self;
        };
        let (input, output) = (self.options.input.clone(), self.options.output.clone());
        let applied = crate::config::load_config(&path)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                c.apply_to(&mut self.options, None)
                    .map_err(|e| format!("{}: {e}", path.display()))
            });
        if let Err(e) = applied {
            self.config_error = Some(e);
        }
        self.options.input = input;
        self.options.output = output;
        self.config_file = Some(path);
        self
    }

    /// The build.toml whose settings this builder uses, if any.
    pub fn config_file(&self) -> Option<&Path> {
        self.config_file.as_deref()
    }

    /// Runs the build from a build script: prints `cargo:rerun-if-changed=` for the input
    /// folder (so new sources trigger a rebuild), every input outside it, build.toml and
    /// the output's cache file (so deleting the output triggers one), and every warning as
    /// `cargo:warning=`. Fails naming each failed asset and its first error.
    pub fn run_build_script(&self) -> Result<BuildReport, ScriptError> {
        self.run_build_script_to(&mut std::io::stdout().lock())
    }

    /// [`Builder::run_build_script`], writing the `cargo:` lines to `out`.
    pub fn run_build_script_to(
        &self,
        out: &mut dyn std::io::Write,
    ) -> Result<BuildReport, ScriptError> {
        let reporter = CargoReporter::default();
        let result = self.run_with(&reporter);
        let mut lines = self.rerun_if_changed(result.as_ref().ok());
        for w in reporter
            .warnings
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            lines.push(format!("cargo:warning={w}"));
        }
        let report = match result {
            Ok(r) => r,
            Err(e) => {
                for l in &lines {
                    let _ = writeln!(out, "{l}");
                }
                return Err(e.into());
            }
        };
        pin_cache_mtime(&self.options);
        let failed: Vec<String> = report
            .assets
            .iter()
            .filter(|a| a.status == AssetStatus::Failed)
            .map(|a| format!("  {}: {}", a.source, first_line(a.error.as_deref())))
            .chain(report.verify_problems.iter().map(|p| format!("  {p}")))
            .collect();
        lines.extend(
            failed
                .iter()
                .map(|f| format!("cargo:warning=error: {}", f.trim_start())),
        );
        let written = lines.iter().try_for_each(|l| writeln!(out, "{l}"));
        if failed.is_empty() {
            return written.map(|()| report).map_err(|e| ScriptError {
                message: format!("writing cargo instructions: {e}"),
            });
        }
        Err(ScriptError {
            message: format!(
                "could not compile {} asset(s):\n{}",
                report.failed(),
                failed.join("\n")
            ),
        })
    }

    /// The `cargo:rerun-if-changed=` lines of a build script run.
    pub fn rerun_if_changed(&self, report: Option<&BuildReport>) -> Vec<String> {
        let opts = &self.options;
        let input_dir = if opts.input.is_file() {
            opts.input.parent().unwrap_or(Path::new(".")).to_path_buf()
        } else {
            opts.input.clone()
        };
        let input_abs = std::path::absolute(&input_dir).unwrap_or(input_dir.clone());
        let mut paths = vec![input_dir.clone()];
        if let Some(report) = report {
            // Buffers and images outside the input folder (`../shared/tex.png`).
            paths.extend(report.inputs().into_iter().filter(|p| {
                !std::path::absolute(p)
                    .unwrap_or_else(|_| p.clone())
                    .starts_with(&input_abs)
            }));
        }
        // Without a build.toml, the one a user may add later in the crate's folder (cargo
        // runs build scripts there): naming it now makes cargo rerun the script once it
        // exists. (Cargo reruns a script whose named file is missing; the build is then a
        // no-op of a few milliseconds.)
        paths.push(self.config_file.clone().unwrap_or_else(|| {
            std::env::current_dir()
                .unwrap_or_else(|_| PathBuf::from("."))
                .join(crate::config::CONFIG_NAME)
        }));
        paths.push(opts.output.join(cache::CACHE_NAME));
        paths
            .iter()
            .map(|p| format!("cargo:rerun-if-changed={}", p.display()))
            .collect()
    }
}

/// Cargo reruns a build script when a `rerun-if-changed` file is newer than the script's
/// last start. The cache file is written during the run, so it is given an old time: it
/// then only triggers a rerun when it is deleted (the output folder removed) or rewritten
/// by another build into the same folder (`assetc build` with changed sources).
fn pin_cache_mtime(opts: &BuildOptions) {
    let path = opts.output.join(cache::CACHE_NAME);
    if let Ok(f) = std::fs::File::options().write(true).open(&path) {
        let _ = f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1));
    }
}

fn first_line(text: Option<&str>) -> &str {
    text.unwrap_or("failed").lines().next().unwrap_or("failed")
}

/// Collects warnings for `cargo:warning=` lines (one line each: cargo shows one line).
#[derive(Default)]
struct CargoReporter {
    warnings: Mutex<Vec<String>>,
}

impl Reporter for CargoReporter {
    fn event(&self, event: &Event) {
        let mut w = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        match event {
            Event::AssetFinished { diagnostics, .. } => {
                for d in diagnostics
                    .iter()
                    .filter(|d| d.severity == super::events::Severity::Warning)
                {
                    w.push(d.rendered().replace('\n', " "));
                }
            }
            Event::RemoteWarning { remote, message } => {
                w.push(format!("remote cache {remote}: {message}").replace('\n', " "));
            }
            Event::Ignored { message, .. }
            | Event::EmbedOverruled { message, .. }
            | Event::UnusedSettings { message, .. } => w.push(message.clone()),
            _ => {}
        }
    }
}

/// A build script's failure: the build could not run, or assets failed (each named with
/// its first error). `Debug` prints the same text, so `.unwrap()` and `main() -> Result`
/// show it readably.
pub struct ScriptError {
    pub message: String,
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::fmt::Debug for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScriptError {}

impl From<BuildError> for ScriptError {
    fn from(e: BuildError) -> Self {
        Self {
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_cache_warning_reaches_cargo_on_one_line() {
        let reporter = CargoReporter::default();
        reporter.event(&Event::RemoteWarning {
            remote: "redis://127.0.0.1:1/0".into(),
            message: "cannot connect\nto it".into(),
        });
        let w = reporter.warnings.lock().unwrap();
        assert_eq!(
            *w,
            ["remote cache redis://127.0.0.1:1/0: cannot connect to it"]
        );
    }
}

#[cfg(test)]
mod rerun_tests {
    use super::*;

    #[test]
    fn a_crate_without_build_toml_still_names_where_one_would_go() {
        let builder = Builder::from_options(BuildOptions::new("assets", "out"));
        assert!(builder.config_file().is_none());
        let cwd = std::env::current_dir().unwrap();
        let lines = builder.rerun_if_changed(None);
        let wanted = format!(
            "cargo:rerun-if-changed={}",
            cwd.join("build.toml").display()
        );
        assert!(lines.contains(&wanted), "{lines:#?}");
    }
}
