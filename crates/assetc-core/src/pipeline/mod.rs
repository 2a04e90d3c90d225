//! The processing stages, one per module, each with one entry function.
//!
//! Geometry: [`prepare::prepare`] runs a primitive's attribute streams
//! ([`geometry::Geometry`]) through normals -> bake -> tangents -> weld -> optimize ->
//! LODs + meshlets, as each target asks (with generated lightmap UVs cut before weld and
//! packed by the target over all its primitives, `lightmap_uvs`), sharing what it can between targets. Packing into
//! a format is each target's own (the `.hmesh` target's `pack`, its `.hmat` rows in
//! `materials`). Textures are a stage of their own; skinning and animation are the rig's
//! (`crate::rig::skeleton`, `crate::rig::hanim`). See `docs/architecture.md`.

pub mod bake;
pub mod bounds;
pub mod cluster_lod;
pub mod geometry;
pub mod lightmap_uvs;
pub mod lods;
pub mod material_refs;
pub mod meshlets;
pub mod mikktspace;
pub mod normals;
pub mod optimize;
pub mod prepare;
pub mod regions;
pub mod settings;
pub mod tangents;
pub mod texture_transform;
pub mod textures;
pub mod times;
pub mod valence;
pub mod weld;
pub mod weld_grid;

pub use settings::{MeshSettings, SettingRangeError, TangentMode};
pub use times::StageTimes;
