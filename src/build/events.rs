//! What a build tells its caller as it goes: one event per asset, then a summary. The CLI
//! renders them as progress and lines, or as JSON (`--message-format json`).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AssetStatus {
    /// Compiled and written.
    Built,
    /// Unchanged since the last build: outputs kept.
    Fresh,
    Failed,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Event {
    BuildStarted {
        assets: usize,
    },
    AssetFinished {
        source: String,
        status: AssetStatus,
        outputs: Vec<String>,
        warnings: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        time_ms: f64,
        /// Time per geometry stage (CPU time summed over submeshes), for built assets.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        stages_ms: Vec<(String, f64)>,
    },
    BuildFinished {
        success: bool,
        built: usize,
        fresh: usize,
        failed: usize,
        textures_encoded: usize,
        removed: usize,
        time_ms: f64,
    },
}

/// Receives events; called from worker threads.
pub trait Reporter: Sync {
    fn event(&self, event: &Event);
}

/// Ignores every event (library use without output).
pub struct SilentReporter;

impl Reporter for SilentReporter {
    fn event(&self, _event: &Event) {}
}
