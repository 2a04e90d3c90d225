//! Importers: turn a source file into a [`crate::scene::Scene`].

pub mod gltf;
pub mod scene_check;

pub use self::gltf::{import_gltf, ImportError, ImportLimits, ImportOptions};
