//! Qt Quick 3D target: what Balsam writes for a glTF file, so an application can swap
//! Balsam for assetc.
//!
//! Output, under `<source_ref>.qt/`: `<Stem>.qml` (node hierarchy with transforms,
//! `Model`s, `PrincipledMaterial`s, `Texture`s with `KHR_texture_transform`, `Skin`s,
//! `MorphTarget`s with their initial weights, lights, cameras, and a `Timeline` per
//! animation), `meshes/` with one `.mesh` per glTF mesh that a scene node uses (a mesh
//! used by two nodes is written once; Balsam 6.12 names it `<mesh>_mesh.mesh`, 6.4
//! `<mesh>.mesh`), and `maps/` with the images the materials use, copied byte for byte.
//! Geometry stays in each mesh's own space; node transforms go in the QML, as Balsam does.
//!
//! As in Balsam's files, UVs use Qt's texture origin (`v` is stored as `1 - v`; the
//! images are not touched) and morph targets hold complete attributes (base + glTF
//! displacement), which is what Qt's morphing shader expects.
//!
//! Where the output differs from Balsam on purpose:
//! - Vertices are welded per primitive with assimp's rule (every attribute within 1e-5
//!   of an earlier vertex), as Balsam does, and kept in first-use order; vertices no
//!   triangle uses are dropped. Balsam orders vertices differently.
//! - Indices are 16-bit when a mesh has at most 65,536 vertices (Balsam always writes
//!   32-bit): half the index memory, and Qt reads both.
//! - Missing normals are generated with assetc's normal stage (area-weighted, 60 degree
//!   smoothing angle, flat for non-indexed sources, as glTF asks). Like Balsam, the
//!   source's tangent frame (`attr_textan`, `attr_binormal` = cross(normal, tangent) *
//!   w) is written only for meshes whose materials use a normal map, and none is
//!   generated (Qt derives one in the shader).
//! - Version 6+ meshes carry reduced levels of detail from assetc's simplifier
//!   (`[mesh] lod_ratios`), which Balsam writes only with `--generateMeshLevelsOfDetail`;
//!   skinned and morphing meshes get none (the simplifier only sees the rest pose).
//! - Only `JOINTS_0`/`WEIGHTS_0` are written (Qt skins with 4 influences).
//! - Animations: keyframes are inline in the QML rather than in `.qad` files, and only
//!   the first clip plays (see `timeline.rs`).
//! - Names: a mesh is named after the glTF mesh (Balsam sometimes takes the node name),
//!   and repeated names get `_2`, `_3` (Balsam appends other numbers).

use crate::code::Warning;
mod literals;
mod mesh;
mod names;
mod placed;
mod qml;
mod timeline;

use super::{OutputFile, TargetError, TargetInput, TargetOutput, TargetWriter};
use crate::formats::qtmesh::{self, QtMeshFile};
use crate::pipeline::prepare::PrepareCache;
use crate::pipeline::textures::HeaderError;
use crate::pipeline::{MeshSettings, SettingRangeError};
use crate::scene::{ImageSource, Scene};
use names::{balsam_stem, component_file_name, file_name, Unique};

/// How meshes are named in `meshes/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QtNaming {
    /// `<mesh>_mesh.mesh`, as Balsam 6.12 writes.
    #[default]
    Qt612,
    /// `<mesh>.mesh`, as Balsam 6.4 writes.
    Qt64,
}

/// The Qt Quick 3D target. Every field but `component_name` is a `[qtmesh]` key of
/// `build.toml`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QtTargetSettings {
    /// 7 (current Qt) or 5 (Qt 6.4 and older, no levels of detail).
    pub mesh_version: u16,
    pub naming: QtNaming,
    /// Name of the QML component (file stem), normally the source file's stem with its
    /// original case; `None` derives it from the (lower-cased) source ref.
    #[serde(skip)]
    pub component_name: Option<String>,
}

impl Default for QtTargetSettings {
    fn default() -> Self {
        Self {
            mesh_version: 7,
            naming: QtNaming::Qt612,
            component_name: None,
        }
    }
}

impl QtTargetSettings {
    /// The `.mesh` versions the target writes.
    pub const MESH_VERSIONS: [u16; 2] = [5, 7];

    /// Why `version` cannot be written, if it cannot: the one statement of that rule for
    /// build.toml, `--qt-mesh-version` and the target itself.
    pub fn check_mesh_version(version: u16) -> Result<(), SettingRangeError> {
        match Self::MESH_VERSIONS.contains(&version) {
            true => Ok(()),
            false => Err(SettingRangeError::new("mesh_version", "be 5 or 7", version)),
        }
    }

    /// Sets the `.mesh` version; Qt 6.4 and older (version 5) also name meshes the old
    /// way unless `naming_given` (the user chose the naming too).
    pub fn set_mesh_version(&mut self, version: u16, naming_given: bool) {
        self.mesh_version = version;
        if version == 5 && !naming_given {
            self.naming = QtNaming::Qt64;
        }
    }
}

fn invalid(path: impl Into<String>, message: impl Into<String>) -> TargetError {
    TargetError::Invalid {
        path: path.into(),
        message: message.into(),
    }
}

/// The `qtmesh` target for the build driver.
pub struct QtMeshTarget;

impl TargetWriter for QtMeshTarget {
    fn build(&self, input: &TargetInput) -> Result<TargetOutput, TargetError> {
        let mut qt = input.settings.qtmesh.clone();
        if qt.component_name.is_none() {
            // Balsam names the QML component after the source file's stem, case kept.
            qt.component_name.clone_from(&input.source_stem);
        }
        build_qtmesh_shared(input.scene, &qt, input.settings.mesh, input.cache)
    }
}

/// Builds the Qt Quick 3D files for `scene`, rel paths under `<source_ref>.qt/`.
pub fn build_qtmesh(
    scene: &Scene,
    settings: &QtTargetSettings,
    mesh: &MeshSettings,
) -> Result<TargetOutput, TargetError> {
    build_qtmesh_shared(scene, settings, mesh, &PrepareCache::default())
}

/// [`build_qtmesh`] with geometry results shared with the source's other targets.
pub fn build_qtmesh_shared(
    scene: &Scene,
    settings: &QtTargetSettings,
    mesh: &MeshSettings,
    cache: &PrepareCache,
) -> Result<TargetOutput, TargetError> {
    QtTargetSettings::check_mesh_version(settings.mesh_version)
        .map_err(|e| invalid(&scene.source_ref, e.to_string()))?;
    let root = format!("{}.qt", scene.source_ref);
    let mut out = TargetOutput::default();

    // Meshes that a scene node draws, each once.
    let mut used = vec![false; scene.meshes.len()];
    for n in scene.nodes.iter().filter(|n| n.in_scene) {
        if let Some(u) = n.mesh.and_then(|m| used.get_mut(m)) {
            *u = true;
        }
    }
    let mut files = Unique::default();
    let mut infos: Vec<Option<qml::MeshInfo>> = Vec::with_capacity(scene.meshes.len());
    for (index, m) in scene.meshes.iter().enumerate() {
        if !used[index] {
            infos.push(None);
            continue;
        }
        let name = match &m.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("meshes[{index}]"),
        };
        let suffix = match settings.naming {
            QtNaming::Qt612 => "_mesh.mesh",
            QtNaming::Qt64 => ".mesh",
        };
        let file = files.claim_file(&balsam_stem(&name), suffix);
        let built = mesh::build_mesh(
            scene,
            index,
            mesh,
            settings.mesh_version >= 6,
            cache,
            &mut out.warnings,
        )
        .map_err(|e| invalid(format!("meshes[{index}]"), e.to_string()))?;
        let bytes = qtmesh::write(
            &QtMeshFile {
                meshes: vec![(1, built.mesh)],
            },
            settings.mesh_version,
        )
        .map_err(|e| invalid(format!("meshes[{index}]"), e.to_string()))?;
        out.files
            .push(OutputFile::raw(format!("{root}/meshes/{file}"), bytes));
        infos.push(Some(qml::MeshInfo {
            source: format!("meshes/{file}"),
            subset_materials: built.subset_materials,
            target_count: built.target_count,
            target_has_normals: built.target_has_normals,
            target_has_tangents: built.target_has_tangents,
        }));
    }

    let image_paths = copy_images(scene, &infos, &root, &mut out)?;
    let (text, warnings) = qml::write_qml(&qml::QmlInput {
        scene,
        meshes: &infos,
        image_paths: &image_paths,
    });
    out.warnings.extend(warnings);
    let stem = settings.component_name.clone().unwrap_or_else(|| {
        let leaf = scene.source_ref.rsplit('/').next().unwrap_or("");
        leaf.to_string()
    });
    out.files.push(OutputFile::raw(
        format!("{root}/{}", component_file_name(&stem)),
        text.into_bytes(),
    ));
    Ok(out)
}

/// Copies every image a used material samples into `maps/`: a file keeps its name, an
/// embedded image is named after the image (or its index) with the extension of its
/// MIME type. Returns each image's path relative to the QML.
fn copy_images(
    scene: &Scene,
    meshes: &[Option<qml::MeshInfo>],
    root: &str,
    out: &mut TargetOutput,
) -> Result<Vec<Option<String>>, TargetError> {
    let mut wanted = vec![false; scene.images.len()];
    for info in meshes.iter().flatten() {
        for m in info
            .subset_materials
            .iter()
            .flatten()
            .filter_map(|&m| scene.materials.get(m))
        {
            let slots = [
                &m.base_color_texture,
                &m.metallic_roughness_texture,
                &m.normal_texture,
                &m.occlusion_texture,
                &m.emissive_texture,
            ];
            for t in slots.into_iter().flatten() {
                if let Some(w) = wanted.get_mut(t.image) {
                    *w = true;
                }
            }
        }
    }
    let mut names = Unique::default();
    let mut paths = vec![None; scene.images.len()];
    for (i, img) in scene.images.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let bytes = match crate::pipeline::textures::load_image_bytes(scene, i) {
            Ok(b) => b,
            Err(e) => {
                out.warnings.push(Warning::at(
                    e.code(),
                    img.gltf_path.to_string(),
                    format!("not copied: {e}"),
                ));
                continue;
            }
        };
        // The input limits every target applies: an image declaring more than the
        // default target would decode fails this asset here too, though it is only
        // copied (Qt would try to load it).
        match crate::pipeline::textures::declared_size(&bytes, img.mime_type.as_deref()) {
            Ok(_) => {}
            Err(HeaderError::OverLimit(reason)) => {
                return Err(invalid(&img.gltf_path, reason));
            }
            // A format assetc does not read (Qt reads a few more) is copied unchecked.
            Err(HeaderError::Unreadable(reason)) => out.warnings.push(Warning::at(
                crate::code::DiagnosticCode::BadImage,
                img.gltf_path.to_string(),
                format!("copied without a size check: {reason}"),
            )),
        }
        let (base, ext) = match (&img.source, &img.uri) {
            (ImageSource::File(path), _) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let name = file_name(&name);
                match name.rsplit_once('.') {
                    Some((b, e)) if !b.is_empty() => (b.to_string(), format!(".{e}")),
                    _ => (name, String::new()),
                }
            }
            _ => {
                let ext = match img.mime_type.as_deref() {
                    Some("image/jpeg") => ".jpg",
                    Some("image/webp") => ".webp",
                    Some("image/ktx2") => ".ktx2",
                    _ => sniff_extension(&bytes),
                };
                let base = match &img.name {
                    Some(n) if !n.is_empty() => file_name(n),
                    _ => format!("image{i}"),
                };
                (base, ext.to_string())
            }
        };
        let file = names.claim_file(&base, &ext);
        out.files.push(OutputFile::raw(
            format!("{root}/maps/{file}"),
            bytes.as_ref().clone(),
        ));
        paths[i] = Some(format!("maps/{file}"));
    }
    Ok(paths)
}

fn sniff_extension(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ".jpg"
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        ".webp"
    } else {
        ".png"
    }
}

#[cfg(test)]
mod tests;
