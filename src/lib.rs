//! assetc: compiles glTF 2.0 sources into GPU-ready runtime files.
//!
//! With `default-features = false` only [`formats`] is built: the runtime formats as plain
//! structs with writers, readers and validators, for engines that load what assetc writes.
//! The default `pipeline` feature adds the glTF importer, the processing stages, the target
//! writers and the build driver behind the `assetc` command.

pub use assetc_formats as formats;

#[cfg(feature = "pipeline")]
pub mod build;
#[cfg(feature = "pipeline")]
pub mod config;
#[cfg(feature = "pipeline")]
pub mod import;
#[cfg(feature = "pipeline")]
pub mod kinds;
#[cfg(feature = "pipeline")]
pub mod pack;
#[cfg(feature = "pipeline")]
pub mod pipeline;
#[cfg(feature = "pipeline")]
pub mod preview;
#[cfg(feature = "pipeline")]
pub mod report;
#[cfg(feature = "pipeline")]
pub mod rig;
#[cfg(feature = "pipeline")]
pub mod samples;
#[cfg(feature = "pipeline")]
pub mod scene;
#[cfg(feature = "pipeline")]
pub mod targets;

#[cfg(feature = "pipeline")]
pub use build::{BuildOptions, BuildReport, Builder};
