//! glTF 2.0 importer: `.gltf` (external or `data:` buffers) and `.glb` into a [`Scene`].
//!
//! The `gltf` crate parses the JSON into typed structs; we skip its validation pass and its
//! accessor readers because the wrapper types index without bounds checks once validation is
//! skipped, and the validated path rejects files we must accept. Every index and byte range
//! from the file is therefore checked here, in the submodules, before it is used.

use crate::code::Warning;
mod accessor;
mod animation;
mod buffers;
mod draco;
mod instancing;
mod material;
mod mesh;
mod meshopt;
mod nodes;
pub(crate) mod paths;
mod placed;
mod skin;
mod spec_gloss;

use crate::scene::Scene;
use gltf::json;
use std::path::{Path, PathBuf};

/// Where the importer may read from and how much it may allocate.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Root of the input tree: external buffers and images must resolve inside it. An empty
    /// path means the folder of the imported file.
    pub input_root: PathBuf,
    pub limits: ImportLimits,
}

impl ImportOptions {
    pub fn new(input_root: impl Into<PathBuf>) -> Self {
        Self {
            input_root: input_root.into(),
            limits: ImportLimits::default(),
        }
    }

    /// The folder of `source` (where its relative references start) and the root they
    /// must stay inside: [`Self::input_root`], or that folder when none is set.
    pub(crate) fn folders(&self, source: &Path) -> (PathBuf, PathBuf) {
        let base_dir = source.parent().unwrap_or(Path::new("")).to_path_buf();
        let input_root = if self.input_root.as_os_str().is_empty() {
            base_dir.clone()
        } else {
            self.input_root.clone()
        };
        (base_dir, input_root)
    }
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self::new(PathBuf::new())
    }
}

/// Resource limits checked against size fields before anything is allocated.
///
/// The counts bound what the pipeline will hold, not only what the importer decodes: a
/// primitive's stages keep a few hundred bytes per vertex at their peak (the 8M-triangle
/// field: 4M vertices, 1.1-1.7 GiB), so 2^24 vertices is about 5 GiB. An accessor without
/// a bufferView (zeros, a few bytes of JSON) may declare any count, so the counts are
/// checked before its data is made.
#[derive(Debug, Clone, Copy)]
pub struct ImportLimits {
    /// Largest `.gltf`/`.glb` or external `.bin` file read.
    pub max_file_bytes: u64,
    /// Largest vertex count of one primitive (its POSITION accessor's count).
    pub max_vertices_per_primitive: u64,
    /// Largest index count of one primitive (three per triangle).
    pub max_indices_per_primitive: u64,
    /// Total decoded accessor and meshopt-decoded bufferView bytes over the whole file.
    pub max_total_accessor_bytes: u64,
    /// Most `EXT_mesh_gpu_instancing` instances over the whole file: each becomes a node
    /// and a copy of its mesh's primitives.
    pub max_instances: u64,
    /// Most triangles the instances of `EXT_mesh_gpu_instancing` bake to, over the whole
    /// file (instances times their mesh's triangles): a few kilobytes of instance
    /// transforms must not make gigabytes of geometry. Twice the triangles of the largest
    /// primitive allowed.
    pub max_instanced_triangles: u64,
}

impl Default for ImportLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 2 << 30,
            max_vertices_per_primitive: 1 << 24,
            max_indices_per_primitive: 3 << 24,
            max_total_accessor_bytes: 4 << 30,
            max_instances: 1 << 20,
            max_instanced_triangles: 2 << 24,
        }
    }
}

use crate::code::{DiagnosticCode, ErrorSite};

/// Every variant reads `file: detail` (see [`ImportError::detail`]).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: {}", self.detail())]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {}", self.detail())]
    Container { file: String, reason: String },
    #[error("{file}: {}", self.detail())]
    Fbx { file: String, reason: String },
    #[error("{file}: {}", self.detail())]
    Json { file: String, reason: String },
    #[error("{file}: {}", self.detail())]
    UnsupportedExtension { file: String, extension: String },
    #[error("{file}: {}", self.detail())]
    Invalid {
        file: String,
        gltf_path: String,
        reason: String,
        /// What kind of problem it is (a dangling reference, a missing file, ...).
        code: DiagnosticCode,
    },
    #[error("{file}: {}", self.detail())]
    Limit {
        file: String,
        gltf_path: String,
        reason: String,
    },
    /// An OBJ or MTL file: `at` is `line 12` when the line is known, else the object,
    /// group or material (`object "Chair"`, `material "Wood"`).
    #[error("{file}: {}", self.detail())]
    Obj {
        file: String,
        at: String,
        reason: String,
        code: DiagnosticCode,
    },
}

impl ImportError {
    /// The file the error is in: the source, or a file it names (an OBJ's MTL library).
    pub fn file(&self) -> &str {
        match self {
            Self::Io { file, .. }
            | Self::Container { file, .. }
            | Self::Fbx { file, .. }
            | Self::Json { file, .. }
            | Self::UnsupportedExtension { file, .. }
            | Self::Invalid { file, .. }
            | Self::Limit { file, .. }
            | Self::Obj { file, .. } => file,
        }
    }

    /// The error as it reads after the file's name.
    pub fn detail(&self) -> String {
        match self {
            Self::Io { source, .. } => format!("cannot read: {source}"),
            Self::Container { reason, .. } => format!("not a valid glTF/GLB container: {reason}"),
            Self::Fbx { reason, .. } => format!("not a readable FBX file: {reason}"),
            Self::Json { reason, .. } => format!("invalid glTF JSON: {reason}"),
            Self::UnsupportedExtension { extension, .. } => {
                format!("extension {extension} is required but not supported")
            }
            Self::Invalid {
                gltf_path, reason, ..
            } => format!("{gltf_path}: {reason}"),
            Self::Limit {
                gltf_path, reason, ..
            } => format!("{gltf_path}: resource limit exceeded: {reason}"),
            Self::Obj { at, reason, .. } => format!("{at}: {reason}"),
        }
    }

    /// The diagnostic code of this error, from its variant (never from its text).
    pub fn code(&self) -> DiagnosticCode {
        match self {
            Self::Io { source, .. } => DiagnosticCode::of_io(source),
            Self::Container { .. } | Self::Json { .. } | Self::Fbx { .. } => {
                DiagnosticCode::InvalidSource
            }
            Self::UnsupportedExtension { .. } => DiagnosticCode::UnsupportedExtension,
            Self::Invalid { code, .. } => *code,
            Self::Limit { .. } => DiagnosticCode::ResourceLimit,
            Self::Obj { code, .. } => *code,
        }
    }

    /// Where in the source the error is, and what is wrong there, when the variant says.
    pub fn site(&self) -> Option<ErrorSite> {
        let site = |at: &str, detail: String| ErrorSite {
            at: at.to_string(),
            detail,
        };
        match self {
            Self::Invalid {
                gltf_path, reason, ..
            } => Some(site(gltf_path, reason.clone())),
            Self::Limit {
                gltf_path, reason, ..
            } => Some(site(
                gltf_path,
                format!("resource limit exceeded: {reason}"),
            )),
            Self::Obj { at, reason, .. } => Some(site(at, reason.clone())),
            _ => None,
        }
    }
}

/// An error inside the document, before the file name is attached.
#[derive(Debug)]
pub(crate) struct Bad {
    pub path: String,
    pub reason: String,
    /// [`DiagnosticCode::ResourceLimit`] makes it an [`ImportError::Limit`].
    pub code: DiagnosticCode,
}

pub(crate) type Res<T> = Result<T, Bad>;

impl Bad {
    /// An error about an object reached through a reference (`accessors[99]`) names the
    /// reference too: `meshes[0].primitives[0].indices -> accessors[99]`.
    pub(crate) fn referenced_from(mut self, from: &str) -> Self {
        if !self.path.contains(" -> ") && !self.path.starts_with(from) {
            self.path = format!("{from} -> {}", self.path);
        }
        self
    }
}

pub(crate) fn bad<T>(path: impl Into<String>, reason: impl Into<String>) -> Res<T> {
    Err(Bad {
        path: path.into(),
        reason: reason.into(),
        code: DiagnosticCode::InvalidSource,
    })
}

/// A reference to an object the document does not have (`mesh 5 does not exist`).
pub(crate) fn dangling<T>(path: impl Into<String>, reason: impl Into<String>) -> Res<T> {
    Err(Bad {
        path: path.into(),
        reason: reason.into(),
        code: DiagnosticCode::DanglingReference,
    })
}

pub(crate) fn over_limit<T>(path: impl Into<String>, reason: impl Into<String>) -> Res<T> {
    Err(Bad {
        path: path.into(),
        reason: reason.into(),
        code: DiagnosticCode::ResourceLimit,
    })
}

impl Bad {
    pub(crate) fn with_file(self, file: &str) -> ImportError {
        let file = file.to_string();
        if self.code == DiagnosticCode::ResourceLimit {
            ImportError::Limit {
                file,
                gltf_path: self.path,
                reason: self.reason,
            }
        } else {
            ImportError::Invalid {
                file,
                gltf_path: self.path,
                reason: self.reason,
                code: self.code,
            }
        }
    }
}

/// Extensions whose data we read, or that change nothing we produce when ignored.
const SUPPORTED_REQUIRED: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_meshopt_compression",
    "KHR_materials_unlit",
    "KHR_materials_emissive_strength",
    "KHR_texture_transform",
    "KHR_lights_punctual",
    "KHR_materials_variants",
    "EXT_texture_webp",
    "KHR_texture_basisu",
    "KHR_draco_mesh_compression",
    "EXT_mesh_gpu_instancing",
    "KHR_materials_pbrSpecularGlossiness",
];

/// Imports one glTF 2.0 file. `source_ref` becomes [`Scene::source_ref`].
pub fn import_gltf(
    path: &Path,
    source_ref: &str,
    opts: &ImportOptions,
) -> Result<Scene, ImportError> {
    let file = path.display().to_string();
    let data = super::read_source(path, &opts.limits)?;
    let named_glb = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("glb"));
    if named_glb && !data.starts_with(b"glTF") {
        // Reading it as JSON would only say "invalid JSON" about a binary file.
        let head: Vec<String> = data.iter().take(4).map(|b| format!("{b:02x}")).collect();
        return Err(ImportError::Container {
            file,
            reason: format!(
                "the GLB header is wrong: the file starts with bytes [{}], not the magic \"glTF\" (67 6c 54 46)",
                head.join(" ")
            ),
        });
    }
    let (json_bytes, blob) = if data.starts_with(b"glTF") {
        let glb = buffers::parse_glb(&data).map_err(|e| ImportError::Container {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        (glb.json, glb.bin)
    } else {
        (&data[..], None)
    };
    let mut value: serde_json::Value =
        serde_json::from_slice(json_bytes).map_err(|e| ImportError::Json {
            file: file.clone(),
            reason: e.to_string(),
        })?;
    let mut warnings = drop_untargeted_channels(&mut value);
    let root: json::Root = json::deserialize::from_value(value).map_err(|e| ImportError::Json {
        file: file.clone(),
        reason: e.to_string(),
    })?;
    for ext in &root.extensions_required {
        if !SUPPORTED_REQUIRED.contains(&ext.as_str()) {
            return Err(ImportError::UnsupportedExtension {
                file,
                extension: ext.clone(),
            });
        }
    }
    let (base_dir, input_root) = opts.folders(path);
    let ctx = Ctx {
        root: &root,
        base_dir,
        input_root,
        limits: opts.limits,
    };
    let scene =
        build_scene(&ctx, blob, source_ref, &mut warnings).map_err(|b| b.with_file(&file))?;
    super::scene_check::check_scene(&scene).map_err(|p| ImportError::Invalid {
        file,
        gltf_path: p.gltf_path,
        reason: p.reason,
        code: p.code,
    })?;
    Ok(scene)
}

/// What the submodules share while importing one file.
pub(crate) struct Ctx<'a> {
    pub root: &'a json::Root,
    pub base_dir: PathBuf,
    pub input_root: PathBuf,
    pub limits: ImportLimits,
}

fn build_scene(
    ctx: &Ctx,
    blob: Option<&[u8]>,
    source_ref: &str,
    warnings: &mut Vec<Warning>,
) -> Res<Scene> {
    let mut warnings = std::mem::take(warnings);
    let data = buffers::BufferData::load(ctx, blob)?;
    let mut reader = accessor::Reader::new(ctx, &data);
    let mut node_list = nodes::import_nodes(ctx, &mut warnings)?;
    let roots = nodes::scene_roots(ctx, &mut node_list, &mut warnings)?;
    let images = material::import_images(ctx, &data)?;
    let mut materials = material::import_materials(ctx, &mut warnings)?;
    let meshes = mesh::import_meshes(ctx, &data, &mut reader, &mut materials, &mut warnings)?;
    instancing::expand(ctx, &mut reader, &mut node_list, &meshes, &mut warnings)?;
    nodes::finish_transforms(&mut node_list, &roots);
    let skins = skin::import_skins(ctx, &mut reader, &mut warnings)?;
    let animations = animation::import_animations(ctx, &mut reader, &mut warnings)?;
    let dependencies = external_files(ctx, &images);
    let (lights, cameras, morph_weights) = placed::import_placed(ctx, &mut warnings);
    Ok(Scene {
        source_ref: source_ref.to_string(),
        meshes,
        nodes: node_list,
        roots,
        materials,
        images,
        skins,
        animations,
        lights,
        cameras,
        morph_weights,
        warnings,
        dependencies,
    })
}

/// glTF allows a channel target without `node` (extensions such as KHR_animation_pointer
/// supply it) but the `gltf` crate's types require one, which would reject the whole file;
/// such channels animate nothing we export, so they are removed before typed parsing.
fn drop_untargeted_channels(value: &mut serde_json::Value) -> Vec<Warning> {
    let mut warnings: Vec<Warning> = Vec::new();
    let Some(animations) = value.get_mut("animations").and_then(|a| a.as_array_mut()) else {
        return warnings;
    };
    for (ai, anim) in animations.iter_mut().enumerate() {
        let Some(channels) = anim.get_mut("channels").and_then(|c| c.as_array_mut()) else {
            continue;
        };
        let mut ci = 0;
        channels.retain(|ch| {
            let keep = ch.get("target").is_none_or(|t| t.get("node").is_some());
            if !keep {
                warnings.push(Warning::at(
                    DiagnosticCode::NotExported,
                    format!("animations[{ai}].channels[{ci}]"),
                    "target has no node; channel skipped",
                ));
            }
            ci += 1;
            keep
        });
    }
    warnings
}

/// External buffer and image files the source refers to: what an incremental build must
/// watch besides the source itself.
fn external_files(ctx: &Ctx, images: &[crate::scene::Image]) -> Vec<PathBuf> {
    let buffers = ctx
        .root
        .buffers
        .iter()
        .filter_map(|b| b.uri.as_deref())
        .filter(|uri| paths::parse_data_uri(uri).is_none())
        .filter_map(|uri| paths::resolve_relative(ctx, uri).ok());
    let image_files = images.iter().filter_map(|i| match &i.source {
        crate::scene::ImageSource::File(p) => Some(p.clone()),
        crate::scene::ImageSource::Embedded => None,
    });
    let mut out: Vec<PathBuf> = buffers.chain(image_files).collect();
    out.sort();
    out.dedup();
    out
}
