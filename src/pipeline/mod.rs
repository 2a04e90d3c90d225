//! The processing stages, one per module, each with one entry function.
//!
//! Geometry for `.hmesh`: bake -> normals -> tangents -> weld -> optimize -> pack ->
//! meshlets -> lods -> material_refs -> bounds, driven by [`hmesh_stage`]. Textures,
//! materials, skinning and animation are stages of their own.

pub mod animation;
pub mod materials;
pub mod skinning;
pub mod textures;
