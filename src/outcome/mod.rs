//! What a build tells its caller when it is over: each source's outcome and the build's
//! figures ([`BuildReport`]), and the depfile made from them. The driver produces it; the
//! HTML report, the CLI and build scripts read it without reaching into the driver.

pub mod depfile;

use crate::code;
use crate::kinds::asset::AssetStats;
use crate::output::MANIFEST_NAME;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AssetStatus {
    /// Compiled and written.
    Built,
    /// Unchanged since the last build: outputs kept.
    Fresh,
    /// Served by the remote cache: outputs built elsewhere, fetched and checked.
    Fetched,
    Failed,
    /// Not attempted: `--fail-fast` stopped the build after another asset failed.
    Skipped,
}

/// The outcome of one source.
#[derive(Debug, Clone)]
pub struct AssetReport {
    pub source: String,
    pub status: AssetStatus,
    pub outputs: Vec<String>,
    pub warnings: Vec<code::Warning>,
    pub error: Option<String>,
    /// The error's code, decided from its type where it arose.
    pub error_code: Option<code::DiagnosticCode>,
    /// Where in the source the error is, when its type says.
    pub error_site: Option<code::ErrorSite>,
    /// The error as it reads after the source's name (see [`code::Failure::detail`]).
    pub error_detail: Option<String>,
    /// The error's line (and column) in a text source, when its type says.
    pub error_position: Option<code::TextPosition>,
    pub stats: AssetStats,
    pub inputs: Vec<PathBuf>,
    pub times: crate::pipeline::StageTimes,
    /// Wall time of its compilation (0 when fresh).
    pub time_ms: f64,
    /// Wall time of the compile that made its outputs: this build's, or the earlier one's
    /// when fresh (None when failed, or fetched from a remote cache).
    pub made_in_ms: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub assets: Vec<AssetReport>,
    pub textures_encoded: usize,
    pub removed: usize,
    /// Problems `--verify` found in written files.
    pub verify_problems: Vec<String>,
    /// Files `--verify` re-read and validated (None without `--verify`).
    pub verified_files: Option<usize>,
    /// Files below the input that no kind compiles, counted by extension.
    pub ignored: Vec<(String, usize)>,
    /// The archive written with `pack_spk` or `pack_hpack`.
    pub archive: Option<PathBuf>,
    /// The HTML report written with `report`.
    pub report_page: Option<PathBuf>,
    /// Bytes read from and written to the remote cache.
    pub fetched_bytes: u64,
    pub uploaded_bytes: u64,
    /// Wall-clock time from the start of the build to the manifest written, in
    /// milliseconds: what the user waited, unlike the sum of per-asset times, which counts
    /// every thread's work.
    pub wall_ms: f64,
}

impl BuildReport {
    pub fn failed(&self) -> usize {
        self.count(AssetStatus::Failed)
    }
    /// Assets that finished with `status`.
    pub fn count(&self, status: AssetStatus) -> usize {
        self.assets.iter().filter(|a| a.status == status).count()
    }
    pub fn success(&self) -> bool {
        self.failed() == 0 && self.verify_problems.is_empty()
    }
    /// The `.ktx2` files that assets built by this build wrote as outputs of their own
    /// (standalone images, cubemaps, LUTs, font atlases): every one but those in `shared`,
    /// a model's textures, which the texture store encodes once and counts.
    pub fn own_textures_built(&self, shared: &BTreeSet<String>) -> usize {
        self.assets
            .iter()
            .filter(|a| a.status == AssetStatus::Built)
            .flat_map(|a| &a.outputs)
            .filter(|path| path.ends_with(".ktx2") && !shared.contains(path.as_str()))
            .count()
    }
    /// Every input file of every asset.
    pub fn inputs(&self) -> BTreeSet<PathBuf> {
        self.assets
            .iter()
            .flat_map(|a| a.inputs.iter().cloned())
            .collect()
    }
    /// For build scripts: `cargo:rerun-if-changed=` for every input.
    pub fn print_rerun_if_changed(&self) {
        for input in self.inputs() {
            println!("cargo:rerun-if-changed={}", input.display());
        }
    }
    /// A depfile for Make and ninja: the manifest depends on every input, the input
    /// folders and `config`; see [`depfile`].
    pub fn depfile(&self, output: &Path, input: &Path, config: Option<&Path>) -> String {
        depfile::depfile_text(self, &output.join(MANIFEST_NAME), input, config)
    }
}
