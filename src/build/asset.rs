//! Compiling one source into its output files, entirely in memory: nothing is written
//! until every part of the asset has succeeded.

use super::discover::Source;
use crate::formats::hman::EntryKind;
use crate::formats::{hanim, hmat, hmesh};
use crate::import::{import_gltf, ImportError, ImportOptions};
use crate::pipeline::animation::{
    build_hanim, warn_without_skeleton, AnimError, AnimationSettings,
};
use crate::pipeline::materials::build_material_table;
use crate::pipeline::skinning::{build_skeleton, SkinError};
use crate::pipeline::textures::{TextureError, TextureMode, TextureSettings};
use crate::pipeline::{build_hmesh, MeshError, MeshSettings, StageTimes};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which runtime files a build writes for each source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// `.hmesh` + `.hmat` + `.ktx2` textures + `.hanim` (the default).
    HMesh,
    /// BGBTech3 `<source>.bmd`.
    Bmd1,
    /// Qt Quick 3D: `<source>.qt/` with a `.qml` scene, `meshes/*.mesh` and `maps/`.
    QtMesh,
}

impl Target {
    pub const ALL: &'static [&'static str] = &["hmesh", "bmd1", "qtmesh"];

    pub fn name(self) -> &'static str {
        match self {
            Target::HMesh => "hmesh",
            Target::Bmd1 => "bmd1",
            Target::QtMesh => "qtmesh",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "hmesh" => Some(Target::HMesh),
            "bmd1" => Some(Target::Bmd1),
            "qtmesh" => Some(Target::QtMesh),
            _ => None,
        }
    }
}

/// The settings one source is built with (defaults, then matching rules, then CLI flags).
#[derive(Debug, Clone, PartialEq)]
pub struct AssetSettings {
    pub mesh: MeshSettings,
    pub texture: TextureSettings,
    pub animation: AnimationSettings,
    pub bmd1: crate::targets::bmd1::Bmd1Settings,
    pub qtmesh: crate::targets::qtmesh::QtTargetSettings,
    pub targets: Vec<Target>,
}

impl Default for AssetSettings {
    fn default() -> Self {
        Self {
            mesh: MeshSettings::default(),
            texture: TextureSettings::default(),
            animation: AnimationSettings::default(),
            bmd1: Default::default(),
            qtmesh: Default::default(),
            targets: vec![Target::HMesh],
        }
    }
}

/// One file an asset produces, relative to the output root.
#[derive(Debug, Clone)]
pub struct OutputFile {
    pub rel_path: String,
    pub bytes: Vec<u8>,
    pub kind: EntryKind,
}

/// A texture an asset needs. Textures are content-addressed and shared between assets, so
/// the driver encodes each id once for the whole build.
#[derive(Debug, Clone)]
pub struct TextureRequest {
    pub id: u64,
    pub image_bytes: Arc<Vec<u8>>,
    pub mime_type: Option<String>,
    pub mode: TextureMode,
    pub alpha_cutoff: Option<f32>,
    /// `images[2] (wood.png)`, for messages.
    pub image_label: String,
    pub settings: TextureSettings,
}

impl TextureRequest {
    pub fn rel_path(&self) -> String {
        texture_rel_path(self.id)
    }
}

pub fn texture_rel_path(id: u64) -> String {
    format!("tex/{id:016x}.ktx2")
}

/// Figures for reports and `assetc info`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AssetStats {
    pub vertices: usize,
    pub triangles: usize,
    pub meshlets: usize,
    pub submeshes: usize,
    pub materials: usize,
    pub clips: usize,
}

#[derive(Debug)]
pub struct CompiledAsset {
    pub files: Vec<OutputFile>,
    pub textures: Vec<TextureRequest>,
    pub warnings: Vec<String>,
    pub stats: AssetStats,
    pub times: StageTimes,
    /// Every file the asset was built from (the source first).
    pub inputs: Vec<PathBuf>,
}

impl CompiledAsset {
    /// Every output path, textures included, sorted and without repeats.
    pub fn output_paths(&self) -> Vec<String> {
        let mut outputs: Vec<String> = self.files.iter().map(|f| f.rel_path.clone()).collect();
        outputs.extend(self.textures.iter().map(|t| t.rel_path()));
        outputs.sort();
        outputs.dedup();
        outputs
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error("{path}: {source}")]
    Mesh { path: String, source: MeshError },
    #[error("{path}: {source}")]
    Skin { path: String, source: SkinError },
    #[error("{path}: {source}")]
    Animation { path: String, source: AnimError },
    #[error("{path}: {source}")]
    Texture { path: String, source: TextureError },
    #[error("{path}: {message}")]
    Encode { path: String, message: String },
}

/// Imports `source` and runs every stage the settings' targets need.
pub fn compile_asset(
    source: &Source,
    input_root: &Path,
    settings: &AssetSettings,
) -> Result<CompiledAsset, AssetError> {
    let display = source.abs_path.display().to_string();
    let source_ref = source.runtime_ref();
    let import_options = ImportOptions {
        input_root: input_root.to_path_buf(),
        ..Default::default()
    };
    let scene = import_gltf(&source.abs_path, &source_ref, &import_options)?;
    let mut warnings: Vec<String> = scene
        .warnings
        .iter()
        .map(|w| format!("{display}: {w}"))
        .collect();
    let mut inputs = vec![source.abs_path.clone()];
    inputs.extend(scene.dependencies.iter().cloned());

    if scene.primitive_instances().is_empty() {
        // Material libraries, animation-only files and empty scenes are valid glTF; the
        // runtime formats need at least one submesh, so such a source writes nothing.
        warnings.push(format!(
            "{display}: the scene has no triangle geometry; nothing is written for it"
        ));
        return Ok(CompiledAsset {
            files: Vec::new(),
            textures: Vec::new(),
            warnings,
            stats: AssetStats::default(),
            times: StageTimes::default(),
            inputs,
        });
    }
    let mut compiled = CompiledAsset {
        files: Vec::new(),
        textures: Vec::new(),
        warnings,
        stats: AssetStats::default(),
        times: StageTimes::default(),
        inputs,
    };
    if settings.targets.contains(&Target::HMesh) {
        compile_hmesh_set(&scene, source, settings, &display, &mut compiled)?;
    }
    if settings.targets.contains(&Target::Bmd1) {
        let out = crate::targets::bmd1::build_bmd1(&scene, &settings.bmd1, &settings.mesh)
            .map_err(|e| AssetError::Encode {
                path: display.clone(),
                message: e.to_string(),
            })?;
        add_target_output(&mut compiled, out, &display);
    }
    if settings.targets.contains(&Target::QtMesh) {
        // Balsam names the QML component after the source file's stem, case kept.
        let mut qt = settings.qtmesh.clone();
        if qt.component_name.is_none() {
            qt.component_name = source
                .abs_path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
        }
        let out =
            crate::targets::qtmesh::build_qtmesh(&scene, &qt, &settings.mesh).map_err(|e| {
                AssetError::Encode {
                    path: display.clone(),
                    message: e.to_string(),
                }
            })?;
        add_target_output(&mut compiled, out, &display);
    }
    compiled.inputs.sort();
    compiled.inputs.dedup();
    Ok(compiled)
}

/// Files of another target, listed in the manifest as raw files.
fn add_target_output(
    compiled: &mut CompiledAsset,
    out: crate::targets::TargetOutput,
    display: &str,
) {
    compiled
        .warnings
        .extend(out.warnings.into_iter().map(|w| format!("{display}: {w}")));
    compiled
        .files
        .extend(out.files.into_iter().map(|f| OutputFile {
            rel_path: f.rel_path,
            bytes: f.bytes,
            kind: EntryKind::RawFile,
        }));
}

/// The default target: `.hmesh`, `.hmat`, texture requests and `.hanim`.
fn compile_hmesh_set(
    scene: &crate::scene::Scene,
    source: &Source,
    settings: &AssetSettings,
    display: &str,
    compiled: &mut CompiledAsset,
) -> Result<(), AssetError> {
    let display = display.to_string();
    let warnings = &mut compiled.warnings;
    let skeleton = build_skeleton(scene).map_err(|source| AssetError::Skin {
        path: display.clone(),
        source,
    })?;
    let skeleton = skeleton.map(|(skeleton, skin_warnings)| {
        warnings.extend(skin_warnings.into_iter().map(|w| format!("{display}: {w}")));
        skeleton
    });
    let mesh_build = build_hmesh(scene, &settings.mesh, skeleton.as_ref()).map_err(|source| {
        AssetError::Mesh {
            path: display.clone(),
            source,
        }
    })?;
    warnings.extend(
        mesh_build
            .warnings
            .iter()
            .map(|w| format!("{display}: {w}")),
    );
    let files = &mut compiled.files;
    let hmesh_bytes = hmesh::write(&mesh_build.mesh).map_err(|e| AssetError::Encode {
        path: display.clone(),
        message: e.to_string(),
    })?;
    files.push(OutputFile {
        rel_path: source.output_rel("hmesh"),
        bytes: hmesh_bytes,
        kind: EntryKind::Mesh,
    });

    let slots: Vec<Option<usize>> = mesh_build
        .slots
        .source_materials
        .iter()
        .map(|&m| Some(m))
        .collect();
    let table = build_material_table(scene, &slots, &settings.texture).map_err(|source| {
        AssetError::Texture {
            path: display.clone(),
            source,
        }
    })?;
    warnings.extend(table.warnings.iter().map(|w| format!("{display}: {w}")));
    let hmat_bytes = hmat::write(&hmat::HMat {
        materials: table.rows.clone(),
    });
    files.push(OutputFile {
        rel_path: source.output_rel("hmat"),
        bytes: hmat_bytes,
        kind: EntryKind::MaterialTable,
    });

    let textures = &mut compiled.textures;
    // External image files are already inputs: the importer lists them in
    // `scene.dependencies`.
    for job in table.textures {
        textures.push(TextureRequest {
            id: job.id,
            image_bytes: job.bytes,
            mime_type: job.mime_type,
            mode: job.mode,
            alpha_cutoff: job.alpha_cutoff,
            image_label: job.label,
            settings: settings.texture,
        });
    }

    let mut clips = 0;
    match &skeleton {
        Some(skeleton) if settings.animation.import && !scene.animations.is_empty() => {
            let (anim, clip_warnings) =
                build_hanim(scene, skeleton, &settings.animation).map_err(|source| {
                    AssetError::Animation {
                        path: display.clone(),
                        source,
                    }
                })?;
            warnings.extend(clip_warnings.into_iter().map(|w| format!("{display}: {w}")));
            clips = anim.clips.len();
            if clips > 0 {
                let bytes = hanim::write(&anim).map_err(|e| AssetError::Encode {
                    path: display.clone(),
                    message: e.to_string(),
                })?;
                files.push(OutputFile {
                    rel_path: source.output_rel("hanim"),
                    bytes,
                    kind: EntryKind::Animation,
                });
            }
        }
        None if settings.animation.import => {
            warnings.extend(
                warn_without_skeleton(scene)
                    .into_iter()
                    .map(|w| format!("{display}: {w}")),
            );
        }
        _ => {}
    }
    let mesh = &mesh_build.mesh;
    compiled.stats = AssetStats {
        vertices: mesh.vertices.len(),
        triangles: mesh_build.triangle_count,
        meshlets: mesh.meshlets.len(),
        submeshes: mesh.submeshes.len(),
        materials: mesh.materials.len(),
        clips,
    };
    compiled.times = mesh_build.times;
    Ok(())
}
