//! The processing stages, one per module, each with one entry function.
//!
//! Geometry for `.hmesh`, driven by [`hmesh_stage::build_hmesh`]: bake -> normals ->
//! tangents -> weld -> optimize -> pack -> meshlets + lods, with material refs and bounds.
//! Textures, materials, skinning and animation are stages of their own.

pub mod bake;
pub mod bounds;
pub mod geometry;
pub mod hmesh_stage;
pub mod lods;
pub mod material_refs;
pub mod materials;
pub mod meshlets;
pub mod normals;
pub mod optimize;
pub mod pack;
pub mod settings;
pub mod tangents;
pub mod textures;
pub mod weld;

// The skeleton and clip stages live in `crate::rig`; these names keep older paths valid.
pub use crate::rig::hanim as animation;
pub use crate::rig::skeleton as skinning;
pub use hmesh_stage::{build_hmesh, MeshBuild, MeshError, StageTimes};
pub use settings::MeshSettings;
