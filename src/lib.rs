//! assetc: compiles glTF 2.0 sources into GPU-ready runtime files.
//!
//! With `default-features = false` only [`formats`] is built: the runtime formats as plain
//! structs with writers, readers and validators, for engines that load what assetc writes.
//! The default `pipeline` feature adds the glTF importer, the processing stages, the target
//! writers and the build driver behind the `assetc` command.

pub use assetc_formats as formats;

// The layers below the driver, each a crate of its own (docs/architecture.md "Layers"),
// under the paths they had as modules of this crate.
#[cfg(feature = "pipeline")]
pub use assetc_core::{code, import, pipeline, read_log, rig, scene};
#[cfg(feature = "pipeline")]
pub use assetc_targets as targets;

#[cfg(feature = "pipeline")]
pub mod config;
#[cfg(feature = "pipeline")]
pub mod driver;
#[cfg(feature = "pipeline")]
pub mod kinds;
#[cfg(feature = "pipeline")]
pub mod limits;
#[cfg(feature = "pipeline")]
pub mod options;
#[cfg(feature = "pipeline")]
pub mod outcome;
#[cfg(feature = "pipeline")]
pub mod output;
#[cfg(feature = "pipeline")]
pub mod pack;
#[cfg(feature = "pipeline")]
pub mod preview;
#[cfg(feature = "pipeline")]
pub mod read_error;
#[cfg(feature = "pipeline")]
pub mod remote_store;
#[cfg(feature = "pipeline")]
pub mod report;
#[cfg(feature = "pipeline")]
pub mod samples;

#[cfg(feature = "pipeline")]
pub use driver::{BuildOptions, BuildReport, Builder};
