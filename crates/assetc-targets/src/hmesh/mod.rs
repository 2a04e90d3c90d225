//! The default target: `<source>.hmesh`, `.hmat`, `tex/<id>.ktx2` texture requests and
//! `.hanim`.

use crate::code::Warning;
pub mod materials;
mod mesh;
pub mod pack;

pub use mesh::{build_hmesh, MeshBuild, MeshError};

use super::{OutputFile, TargetError, TargetInput, TargetOutput, TargetWriter};
use crate::formats::hman::EntryKind;
use crate::formats::{hanim, hmat, hmesh};
use crate::pipeline::animation::{build_hanim, warn_without_skeleton};
use crate::pipeline::skinning::build_skeleton;
use crate::pipeline::texture_transform::bake_texture_transforms;
use crate::scene::Scene;
use crate::{AssetStats, TextureRequest};
use materials::build_material_table;

pub struct HMeshTarget;

/// One warning per asset when the simplifier could not reduce some LOD levels (small or
/// locked meshes): such a level is stored empty, meaning "draw the previous level", so a
/// renderer switching to it saves nothing. Said at build time, not only by `info`.
fn stalled_lods_warning(lods: Option<&hmesh::Lods>) -> Option<Warning> {
    let lods = lods?;
    let empty = lods.ranges.iter().filter(|r| r.index_count == 0).count();
    (empty > 0).then(|| {
        let message = format!(
            "{empty} of {} LOD levels (submeshes x levels) could not be reduced (the \
             simplifier stalled: too few triangles, or borders it must keep); they reuse \
             the previous level",
            lods.ranges.len()
        );
        Warning::new(crate::code::DiagnosticCode::LodStalled, message)
    })
}

impl TargetWriter for HMeshTarget {
    fn build(&self, input: &TargetInput) -> Result<TargetOutput, TargetError> {
        let settings = input.settings;
        let mut out = TargetOutput::default();
        // `.hmat` holds no texture transform: shared ones are baked into the UVs.
        let (scene, transform_warnings) = bake_texture_transforms(input.scene);
        let scene: &Scene = &scene;
        out.warnings.extend(transform_warnings);
        let skeleton = build_skeleton(scene)?.map(|(skeleton, skin_warnings)| {
            out.warnings.extend(skin_warnings);
            skeleton
        });
        let mesh_build = build_hmesh(scene, settings.mesh, skeleton.as_ref(), input.cache)?;
        out.warnings.extend(mesh_build.warnings.iter().cloned());
        out.warnings
            .extend(stalled_lods_warning(mesh_build.mesh.lods.as_ref()));
        let hmesh_bytes =
            hmesh::write(&mesh_build.mesh).map_err(|e| TargetError::Encode(e.to_string()))?;
        out.files.push(OutputFile::new(
            format!("{}.hmesh", scene.source_ref),
            hmesh_bytes,
            EntryKind::Mesh,
        ));

        let slots: Vec<Option<usize>> = mesh_build
            .slots
            .source_materials
            .iter()
            .map(|&m| Some(m))
            .collect();
        let table = build_material_table(scene, &slots, settings.texture)?;
        out.warnings.extend(table.warnings.iter().cloned());
        out.files.push(OutputFile::new(
            format!("{}.hmat", scene.source_ref),
            hmat::write(&hmat::HMat {
                materials: table.rows.clone(),
            }),
            EntryKind::MaterialTable,
        ));
        // External image files are already inputs: the importer lists them in
        // `scene.dependencies`.
        out.textures
            .extend(table.textures.into_iter().map(|job| TextureRequest {
                job,
                settings: *settings.texture,
            }));

        let mut clips = 0;
        match &skeleton {
            Some(skeleton) if settings.animation.import && !scene.animations.is_empty() => {
                let (anim, clip_warnings) = build_hanim(scene, skeleton, settings.animation)?;
                out.warnings.extend(clip_warnings);
                clips = anim.clips.len();
                if clips > 0 {
                    let bytes =
                        hanim::write(&anim).map_err(|e| TargetError::Encode(e.to_string()))?;
                    out.files.push(OutputFile::new(
                        format!("{}.hanim", scene.source_ref),
                        bytes,
                        EntryKind::Animation,
                    ));
                }
            }
            None if settings.animation.import => {
                out.warnings.extend(warn_without_skeleton(scene));
            }
            _ => {}
        }
        let mesh = &mesh_build.mesh;
        out.stats = Some(AssetStats {
            vertices: mesh.vertices.len(),
            triangles: mesh_build.triangle_count,
            meshlets: mesh.meshlets.len(),
            submeshes: mesh.submeshes.len(),
            materials: mesh.materials.len(),
            clips,
        });
        out.times = mesh_build.times;
        Ok(out)
    }
}
