//! FBX importer (binary 6.x/7.x and ASCII) into the same [`Scene`] the glTF importer
//! produces, through `ufbx`.
//!
//! ufbx parses the file, converts it to glTF's frame (right-handed, Y up, metres: see
//! [`load`]), folds pivots and geometric transforms into plain node TRS and geometry, and
//! bakes animation curves to linear keys. ufbx checks its own indices while loading (an
//! index past its array fails the load, see [`load`]); the lists it hands back are read
//! here through `get`, never by unchecked indexing, so a file ufbx accepted still cannot
//! make this code panic.
//!
//! Locations in messages name the FBX element: `meshes["Body"].materials[1]`,
//! `skins["Armature"].clusters[4]`, or `meshes[3]` when the element has no name.

use crate::code::DiagnosticCode;
use crate::code::Warning;
mod animation;
mod load;
mod materials;
mod mesh;
mod morph;
mod names;
mod nodes;
mod skin;

pub use self::load::referenced_files;

use super::gltf::{ImportError, ImportLimits, ImportOptions, Res};
use crate::scene::{ImageSource, NodeWeights, Scene};
use std::path::{Path, PathBuf};

/// What the submodules share while importing one file.
pub(crate) struct Ctx<'a> {
    pub fbx: &'a ufbx::Scene,
    /// The FBX file's folder: relative image paths start here.
    pub base_dir: PathBuf,
    pub input_root: PathBuf,
    pub limits: ImportLimits,
}

/// Imports one FBX file. `source_ref` becomes [`Scene::source_ref`].
pub fn import_fbx(
    path: &Path,
    source_ref: &str,
    opts: &ImportOptions,
) -> Result<Scene, ImportError> {
    let file = path.display().to_string();
    let data = super::read_source(path, &opts.limits)?;
    let fbx = load::load(&data, path, &opts.limits).map_err(|e| {
        if e.limit {
            ImportError::Limit {
                file: file.clone(),
                gltf_path: "file".into(),
                reason: e.reason,
            }
        } else {
            ImportError::Fbx {
                file: file.clone(),
                reason: e.reason,
            }
        }
    })?;
    let (base_dir, input_root) = opts.folders(path);
    let ctx = Ctx {
        fbx: &fbx,
        base_dir,
        input_root,
        limits: opts.limits,
    };
    let scene = build_scene(&ctx, source_ref).map_err(|b| b.with_file(&file))?;
    super::scene_check::check_scene(&scene).map_err(|p| ImportError::Invalid {
        file,
        gltf_path: p.gltf_path,
        reason: p.reason,
        code: p.code,
    })?;
    Ok(scene)
}

fn build_scene(ctx: &Ctx, source_ref: &str) -> Res<Scene> {
    let mut warnings: Vec<Warning> = Vec::new();
    let (nodes, roots) = nodes::import_nodes(ctx)?;
    let images = materials::import_images(ctx, &mut warnings)?;
    let materials = materials::import_materials(ctx, &mut warnings)?;
    let skins = skin::import_skins(ctx, &mut warnings)?;
    let meshes = mesh::import_meshes(ctx, &mut warnings)?;
    let animations = animation::import_animations(ctx, &meshes, &mut warnings)?;
    let morph_weights = initial_weights(ctx, &nodes);
    let mut dependencies: Vec<PathBuf> = images
        .iter()
        .filter_map(|i| match &i.source {
            ImageSource::File(p) => Some(p.clone()),
            ImageSource::Embedded => None,
        })
        .collect();
    dependencies.sort();
    dependencies.dedup();
    if !ctx.fbx.lights.is_empty() || !ctx.fbx.cameras.is_empty() {
        warnings.push(Warning::new(DiagnosticCode::NotExported, format!(
            "the FBX importer does not read lights or cameras; {} light(s) and {} camera(s) skipped",
            ctx.fbx.lights.len(),
            ctx.fbx.cameras.len()
        )));
    }
    Ok(Scene {
        source_ref: source_ref.to_string(),
        meshes,
        nodes,
        roots,
        materials,
        images,
        skins,
        animations,
        lights: Vec::new(),
        cameras: Vec::new(),
        morph_weights,
        warnings,
        dependencies,
    })
}

/// The blend channels' weights at load time, for every node that draws a mesh with morph
/// targets (glTF's node `weights`).
fn initial_weights(ctx: &Ctx, nodes: &[crate::scene::Node]) -> Vec<NodeWeights> {
    nodes
        .iter()
        .enumerate()
        .filter_map(|(n, node)| {
            let mesh = ctx.fbx.meshes.get(node.mesh?)?;
            let weights = morph::channel_weights(mesh);
            (!weights.is_empty()).then_some(NodeWeights { node: n, weights })
        })
        .collect()
}
