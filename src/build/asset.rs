//! Compiling one source into its output files, entirely in memory: nothing is written
//! until every part of the asset has succeeded.

use super::discover::Source;
use crate::formats::hman::EntryKind;
use crate::import::{import_gltf, ImportError, ImportOptions};
use crate::pipeline::animation::AnimationSettings;
use crate::pipeline::materials::TextureJob;
use crate::pipeline::prepare::PrepareCache;
use crate::pipeline::textures::TextureSettings;
use crate::pipeline::{MeshSettings, StageTimes};
use crate::targets::{TargetError, TargetInput};
use std::path::{Path, PathBuf};

pub use crate::targets::Target;

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
    pub job: TextureJob,
    pub settings: TextureSettings,
}

impl TextureRequest {
    pub fn rel_path(&self) -> String {
        texture_rel_path(self.job.id)
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
    Target { path: String, source: TargetError },
}

/// Imports `source` and runs every target the settings ask for. Targets share one
/// [`PrepareCache`], so geometry work common to them is done once.
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
    let mut compiled = CompiledAsset {
        files: Vec::new(),
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: AssetStats::default(),
        times: StageTimes::default(),
        inputs,
    };
    if scene.primitive_instances().is_empty() {
        // Material libraries, animation-only files and empty scenes are valid glTF; the
        // runtime formats need at least one submesh, so such a source writes nothing.
        warnings.push(format!(
            "{display}: the scene has no triangle geometry; nothing is written for it"
        ));
        compiled.warnings = warnings;
        return Ok(compiled);
    }
    compiled.warnings = warnings;
    let cache = PrepareCache::default();
    let input = TargetInput {
        scene: &scene,
        settings,
        // Balsam names the QML component after the source file's stem, case kept.
        source_stem: source
            .abs_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned()),
        cache: &cache,
    };
    // A fixed order, whatever the order the settings name targets in, so outputs and
    // warnings do not depend on it.
    let chosen = Target::EVERY
        .iter()
        .filter(|t| settings.targets.contains(t));
    for target in chosen {
        let out = target
            .writer()
            .build(&input)
            .map_err(|source| AssetError::Target {
                path: display.clone(),
                source,
            })?;
        add_target_output(&mut compiled, out, &display);
    }
    compiled.inputs.sort();
    compiled.inputs.dedup();
    Ok(compiled)
}

/// Adds a target's files, textures, warnings and figures to the asset.
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
            kind: f.kind,
        }));
    compiled.textures.extend(out.textures);
    if let Some(stats) = out.stats {
        compiled.stats = stats;
        compiled.times = out.times;
    }
}
