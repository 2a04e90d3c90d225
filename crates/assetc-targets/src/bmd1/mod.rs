//! The `bmd1` target: one BGBTech3 `.bmd` per source (seed 001, conventions [B1]-[B24]).
//!
//! Geometry: every primitive instance is baked to world space (skinned ones stay in bind
//! space and then move into their bone's space), missing normals are generated, and each
//! instance becomes MeshDefs of at most 1024 vertices with the source's material ref.
//!
//! Vertex encoding, `auto` rule: each vertex gets the smallest record (64, then 96 as
//! F8/F9/FA/FB, then 128 bits) that stores its bone, keeps its normal (a 64-bit record
//! keeps it only when the direction of its bone-relative position, which the seed lets a
//! runtime use as the normal, is within 3 degrees of it), and whose decoded position is
//! within `position_error x E` per component and decoded UV within `uv_error` per
//! component, where `E` is the largest side of the bounding box of the vertex's glTF
//! primitive instance (world or bind space). A vertex no record meets the bound with is
//! stored in 128 bits. `64` and `128` force one record; `96` takes the first of F8, F9,
//! FA, FB within the bound, else the most precise of them.
//!
//! Skinning, animation and LODs: see the `skeleton` module (bones, bind pose and the
//! pose convention), `clips` (resampling) and [`build_bmd1`].

use crate::code::DiagnosticCode;
use crate::code::Warning;
mod clips;
mod compat;
mod geometry;
mod skeleton;

use crate::formats::bmd1::{self, split_mesh, Bmd1, Lod, MeshDef, SourcePrimitive};
use crate::pipeline::material_refs::material_ref;
use crate::pipeline::prepare::PrepareCache;
use crate::pipeline::{MeshSettings, SettingRangeError};
use crate::scene::Scene;
use crate::{OutputFile, TargetError, TargetInput, TargetOutput, TargetWriter};

/// The `bmd1` target for the build driver.
pub struct Bmd1Target;

impl TargetWriter for Bmd1Target {
    fn build(&self, input: &TargetInput) -> Result<TargetOutput, TargetError> {
        build_bmd1_shared(
            input.scene,
            input.settings.bmd1,
            input.settings.mesh,
            input.cache,
        )
    }
}

pub use compat::Bmd1Compat;
pub use skeleton::MAX_JOINTS;

/// How vertices are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Bmd1VertexEncoding {
    /// Per vertex, the smallest record within the error bound (see the module docs).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "64")]
    Bits64,
    #[serde(rename = "96")]
    Bits96,
    #[serde(rename = "128")]
    Bits128,
}

/// The BGBTech3 target. Every field is a `[bmd1]` key of `build.toml`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bmd1Settings {
    pub vertex_encoding: Bmd1VertexEncoding,
    /// Clip sampling rate; stored in 0.25 Hz steps, 0.25..=31.75 Hz.
    pub sample_rate_hz: f32,
    /// Largest position error per component, as a fraction of the largest side of the
    /// primitive instance's bounding box.
    pub position_error: f32,
    /// Largest UV error per component, in texture units (1.0 = the whole texture).
    pub uv_error: f32,
    /// Which reader the files are made for (see the `compat` module).
    pub compat: Bmd1Compat,
}

impl Default for Bmd1Settings {
    fn default() -> Self {
        Self {
            vertex_encoding: Bmd1VertexEncoding::Auto,
            sample_rate_hz: 30.0,
            position_error: 1.0 / 1024.0,
            uv_error: 1.0 / 512.0,
            compat: Bmd1Compat::Loader,
        }
    }
}

impl Bmd1Settings {
    pub fn validate(&self) -> Result<(), SettingRangeError> {
        if !(0.25..=31.75).contains(&self.sample_rate_hz) {
            return Err(SettingRangeError::new(
                "bmd1 sample_rate_hz",
                "be in 0.25..=31.75 (stored in 0.25 Hz steps up to 127)",
                self.sample_rate_hz,
            ));
        }
        for (name, v) in [
            ("position_error", self.position_error),
            ("uv_error", self.uv_error),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SettingRangeError::new(
                    format!("bmd1 {name}"),
                    "be a finite number >= 0",
                    v,
                ));
            }
        }
        Ok(())
    }
}

pub(crate) fn invalid(path: impl Into<String>, message: impl Into<String>) -> TargetError {
    TargetError::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

/// Writes `<source_ref>.bmd` for `scene`; a scene without triangles gives no file and a
/// warning.
///
/// Skinned sources use the skin the rig exports (see [`crate::rig::skeleton`]): one bone per vertex (its largest
/// weight), bone 0 the unmoving base, joints as bones 1.. (at most [`MAX_JOINTS`]) with
/// their node names. Every clip is resampled at `sample_rate_hz` (lowered for clips longer
/// than 255 frames), redundant keys dropped, looping set. LOD `k` holds the simplifier's
/// level for `mesh.lod_ratios[k-1]` (instances it cannot simplify repeat the level above),
/// with nominal scale 1.0 for LOD 0 and the ratio for the others.
pub fn build_bmd1(
    scene: &Scene,
    settings: &Bmd1Settings,
    mesh: &MeshSettings,
) -> Result<TargetOutput, TargetError> {
    build_bmd1_shared(scene, settings, mesh, &PrepareCache::default())
}

/// [`build_bmd1`] with geometry results shared with the source's other targets.
pub fn build_bmd1_shared(
    scene: &Scene,
    settings: &Bmd1Settings,
    mesh: &MeshSettings,
    cache: &PrepareCache,
) -> Result<TargetOutput, TargetError> {
    settings
        .validate()
        .and_then(|()| mesh.validate())
        .map_err(|m| invalid(&scene.source_ref, m.to_string()))?;
    let mut warnings: Vec<Warning> = Vec::new();
    let skeleton = skeleton::build_skeleton(scene, &mut warnings)?;
    let mut prepared = Vec::new();
    for inst in scene.primitive_instances() {
        let p = geometry::prepare(
            scene,
            inst,
            skeleton.as_ref(),
            settings,
            mesh,
            cache,
            &mut warnings,
        )?;
        if !p.indices.is_empty() {
            prepared.push(p);
        }
    }
    if prepared.is_empty() {
        warnings.push(Warning::at(
            DiagnosticCode::NothingWritten,
            scene.source_ref.to_string(),
            "no triangle geometry; no .bmd written",
        ));
        return Ok(TargetOutput {
            warnings,
            ..Default::default()
        });
    }

    let (meshes, lods) = assemble(scene, &prepared, &mesh.lod_ratios, &mut warnings)?;
    let (bones, animations) = match &skeleton {
        Some(skel) => {
            let extent = prepared.iter().map(|p| p.extent).fold(0.0, f32::max);
            let anims = clips::build_animations(
                scene,
                skel,
                settings,
                settings.position_error * extent,
                &mut warnings,
            )?;
            (skel.bones.clone(), anims)
        }
        None => {
            if !scene.animations.is_empty() {
                warnings.push(Warning::at(DiagnosticCode::TargetLimit, scene.source_ref.to_string(), format!("{} animation(s) dropped: the source has no skin and BMD1 animates only bones", scene.animations.len())));
            }
            (Vec::new(), Vec::new())
        }
    };
    let mut model = Bmd1 {
        meshes,
        lods,
        bones,
        animations,
    };
    if settings.compat == Bmd1Compat::Loader {
        model = compat::for_loader(model, &scene.source_ref, &mut warnings)
            .map_err(|m| invalid(&scene.source_ref, format!("compat = \"loader\": {m}")))?;
    }
    let bytes = bmd1::write(&model).map_err(|e| invalid(&scene.source_ref, e.to_string()))?;
    Ok(TargetOutput {
        files: vec![OutputFile::raw(format!("{}.bmd", scene.source_ref), bytes)],
        warnings,
        ..Default::default()
    })
}

/// MeshDefs level by level (LOD 0 first) and the LOD ranges over them.
fn assemble(
    scene: &Scene,
    prepared: &[geometry::Prepared],
    ratios: &[f32],
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<MeshDef>, Vec<Lod>), TargetError> {
    let mut meshes = Vec::new();
    let mut lods = Vec::new();
    let mut current: Vec<&[u32]> = prepared.iter().map(|p| p.indices.as_slice()).collect();
    for level in 0..=ratios.len() {
        if level > 0 {
            let mut simplified = false;
            for (slot, p) in current.iter_mut().zip(prepared) {
                if let Some(l) = p.lods.get(level - 1).filter(|l| !l.is_empty()) {
                    *slot = l;
                    simplified = true;
                }
            }
            if !simplified {
                continue;
            }
        }
        let first = meshes.len();
        let mut level_meshes = Vec::new();
        for (p, indices) in prepared.iter().zip(&current) {
            let material = match p.material {
                Some(m) => material_ref(&scene.source_ref, &scene.materials, m),
                None => format!("{}/default", scene.source_ref),
            };
            let triangles: Vec<SourcePrimitive> = indices
                .chunks_exact(3)
                .map(|t| SourcePrimitive::Triangle([t[0], t[1], t[2]]))
                .collect();
            let pieces = split_mesh(&p.vertices, &triangles)
                .map_err(|e| invalid(&p.gltf_path, e.to_string()))?;
            for piece in pieces {
                level_meshes.push(MeshDef::new(
                    Some(material.clone()),
                    piece.vertices,
                    piece.primitives,
                ));
            }
        }
        let count = level_meshes.len();
        if first > usize::from(u8::MAX) || count > usize::from(u8::MAX) {
            if level == 0 {
                return Err(invalid(
                    &scene.source_ref,
                    format!(
                        "the model needs {count} meshes of at most 1024 vertices; a BMD1 LOD names at most 255"
                    ),
                ));
            }
            warnings.push(Warning::at(
                DiagnosticCode::TargetLimit,
                scene.source_ref.to_string(),
                format!("LOD {level} and below dropped: BMD1 LOD ranges reach only mesh 255"),
            ));
            break;
        }
        meshes.extend(level_meshes);
        lods.push(Lod {
            first_mesh: first as u8,
            mesh_count: count as u8,
            scale: if level == 0 {
                1.0
            } else {
                ratios.get(level - 1).copied().unwrap_or(1.0)
            },
        });
    }
    Ok((meshes, lods))
}
