//! assetc's core: the in-memory [`scene`] that every model importer produces ([`import`]:
//! glTF, OBJ, FBX), the [`pipeline`] stages that transform it (bake, normals and tangents,
//! weld, optimize, meshlets, LODs, cluster LODs, lightmap UVs, texture encoding), the
//! skeleton and animation sampling of [`rig`], and the two things every layer above
//! reports through: diagnostic [`code`]s and the [`read_log`] of input files.
//!
//! It depends on the runtime formats only; the target writers (`assetc-targets`) and the
//! build driver (`assetc`) sit above it, and the compiler keeps it from reaching up.

pub use assetc_formats as formats;

pub mod code;
pub mod import;
pub mod pipeline;
pub mod read_log;
pub mod rig;
pub mod scene;
