//! The processing stages, one per module, each with one entry function.
//!
//! Geometry for `.hmesh`, driven by [`hmesh_stage::build_hmesh`]: bake -> normals ->
//! tangents -> weld -> optimize -> pack -> meshlets + lods, with material refs and bounds.
//! Textures, materials, skinning and animation are stages of their own.

pub mod animation;
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
pub mod skinning;
pub mod tangents;
pub mod textures;
pub mod weld;

pub use hmesh_stage::{build_hmesh, MeshBuild, MeshError, StageTimes};
pub use settings::MeshSettings;
