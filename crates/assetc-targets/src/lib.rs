//! Targets: each turns an imported scene into one runtime's files, through the shared
//! geometry step ([`pipeline::prepare`]). The build driver knows them only through
//! [`Target`] and [`TargetWriter`]; adding a target is a module here, a variant of
//! [`Target`], its settings in [`ModelSettings`] and the driver's `AssetSettings`.
//!
//! This crate sits on the core (`assetc-core`: scene, importers, pipeline, rig) and the
//! runtime formats; the build driver above it is out of its reach.

use crate::code::Warning;
pub mod bmd1;
pub mod file_names;
pub mod hmesh;
pub mod qtmesh;

// The core's modules under the names the targets have always used (`crate::pipeline`).
use assetc_core::{code, formats, pipeline, rig, scene};

use crate::formats::hman::EntryKind;
use crate::pipeline::prepare::PrepareCache;
use crate::pipeline::textures::TextureMode;
use crate::pipeline::textures::TextureSettings;
use crate::pipeline::{MeshSettings, StageTimes};
use crate::rig::hanim::AnimationSettings;
use crate::scene::Scene;
use std::sync::Arc;

/// Which runtime files a build writes for each source.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize, serde::Serialize,
)]
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
    /// Every target, in the order a build runs them.
    pub const EVERY: &'static [Target] = &[Target::HMesh, Target::Bmd1, Target::QtMesh];

    /// The writer of this target.
    pub fn writer(self) -> &'static dyn TargetWriter {
        match self {
            Target::HMesh => &hmesh::HMeshTarget,
            Target::Bmd1 => &bmd1::Bmd1Target,
            Target::QtMesh => &qtmesh::QtMeshTarget,
        }
    }
}

/// The part of an asset's settings that its targets read.
#[derive(Debug, Clone, Copy)]
pub struct ModelSettings<'a> {
    pub mesh: &'a MeshSettings,
    pub texture: &'a TextureSettings,
    pub animation: &'a AnimationSettings,
    pub bmd1: &'a bmd1::Bmd1Settings,
    pub qtmesh: &'a qtmesh::QtTargetSettings,
}

/// What every target gets for one source.
pub struct TargetInput<'a> {
    pub scene: &'a Scene,
    pub settings: ModelSettings<'a>,
    /// The source file's stem with its case kept (Qt names its QML component after it).
    pub source_stem: Option<String>,
    /// Stage results shared with the source's other targets.
    pub cache: &'a PrepareCache,
}

/// One target: scene in, files out. Implementations call
/// [`crate::pipeline::prepare::prepare`] for geometry so that work shared between targets
/// is done once.
pub trait TargetWriter: Sync {
    fn build(&self, input: &TargetInput) -> Result<TargetOutput, TargetError>;
}

/// One file an asset produces, relative to the output root: what targets and the other
/// kinds' compile steps hand to the build driver, which writes it and lists it in the
/// manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputFile {
    pub rel_path: String,
    pub bytes: Vec<u8>,
    /// How the manifest lists it.
    pub kind: EntryKind,
    /// The manifest hash when it is not that of the path (standalone textures and LUTs
    /// are named by their ref, formats.md "Assets that are not models").
    pub manifest_id: Option<u64>,
    /// The manifest's colorspace flag (sRGB colour textures).
    pub srgb: bool,
}

impl OutputFile {
    /// A file named in the manifest by its path, linear.
    pub fn new(rel_path: String, bytes: Vec<u8>, kind: EntryKind) -> Self {
        Self {
            rel_path,
            bytes,
            kind,
            manifest_id: None,
            srgb: false,
        }
    }

    /// A file listed in the manifest as a raw file.
    pub fn raw(rel_path: String, bytes: Vec<u8>) -> Self {
        Self::new(rel_path, bytes, EntryKind::RawFile)
    }
}

/// One texture to encode: `scene.images[image]` in `mode`, written as `tex/<id>.ktx2`.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureJob {
    pub id: u64,
    pub image: usize,
    pub mode: TextureMode,
    /// Set for MASK base colours: mips keep this cutoff's alpha coverage.
    pub alpha_cutoff: Option<f32>,
    /// The encoded image, already read (the id is a hash of it).
    pub bytes: Arc<Vec<u8>>,
    pub mime_type: Option<String>,
    /// `images[2] (wood.png)`, for messages.
    pub label: String,
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

/// The folder (relative to the output root, with its `/`) of the textures models share.
pub const TEXTURE_DIR: &str = "tex/";

/// Where the texture `id` is written, relative to the output root.
pub fn texture_rel_path(id: u64) -> String {
    format!("{TEXTURE_DIR}{id:016x}.ktx2")
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

/// What a target produced for one source.
#[derive(Debug, Clone, Default)]
pub struct TargetOutput {
    pub files: Vec<OutputFile>,
    /// Textures for the build driver to encode once per build (content-addressed).
    pub textures: Vec<TextureRequest>,
    pub warnings: Vec<Warning>,
    /// Figures for reports, from the target that has them.
    pub stats: Option<AssetStats>,
    pub times: StageTimes,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error(transparent)]
    Mesh(#[from] hmesh::MeshError),
    #[error(transparent)]
    Skin(#[from] crate::rig::skeleton::SkinError),
    #[error(transparent)]
    Animation(#[from] crate::rig::hanim::AnimError),
    #[error(transparent)]
    Texture(#[from] crate::pipeline::textures::TextureError),
    #[error("{0}")]
    Encode(String),
}

impl TargetError {
    /// The diagnostic code, from the variant.
    pub fn code(&self) -> code::DiagnosticCode {
        use crate::rig::hanim::AnimError;
        use crate::rig::skeleton::SkinError;
        use code::DiagnosticCode as C;
        let skin = |e: &SkinError| match e {
            SkinError::JointMissing { .. } => C::DanglingReference,
            SkinError::TooManyJoints { .. } => C::ResourceLimit,
            _ => C::InvalidSource,
        };
        match self {
            Self::Invalid { .. } => C::InvalidSource,
            Self::Mesh(e) => match e {
                hmesh::MeshError::Settings(_) => C::Config,
                hmesh::MeshError::Skin(e) => skin(e),
                hmesh::MeshError::TooManyVertices(_) => C::ResourceLimit,
                _ => C::InvalidSource,
            },
            Self::Skin(e) => skin(e),
            Self::Animation(AnimError::BadTolerance(_)) => C::Config,
            Self::Animation(_) => C::InvalidSource,
            Self::Texture(e) => e.code(),
            // A writer refused what the pipeline produced.
            Self::Encode(_) => C::InvalidOutput,
        }
    }

    /// Where in the source the error is, when the variant says.
    pub fn site(&self) -> Option<code::ErrorSite> {
        match self {
            Self::Invalid { path, message } => Some(code::ErrorSite {
                at: path.clone(),
                detail: message.clone(),
            }),
            Self::Mesh(hmesh::MeshError::Geometry(e)) => Some(code::ErrorSite {
                at: e.path.clone(),
                detail: e.message.clone(),
            }),
            Self::Mesh(hmesh::MeshError::ClusterLod { path, source }) => Some(code::ErrorSite {
                at: path.clone(),
                detail: source.to_string(),
            }),
            _ => None,
        }
    }
}
