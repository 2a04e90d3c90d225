//! Compiling one source into its output files, entirely in memory: nothing is written
//! until every part of the asset has succeeded.

use super::source::Source;
use crate::code::Warning;
use crate::import::ImportError;
use crate::pipeline::StageTimes;
use crate::targets::TargetError;
use std::path::{Path, PathBuf};

pub use crate::targets::{texture_rel_path, AssetStats, OutputFile, Target, TextureRequest};

macro_rules! asset_settings {
    ([$($table:ident: $ty:ty,)*]) => {
        /// The settings one source is built with (defaults, then matching rules, then CLI
        /// flags): one field per settings table ([`super::tables`]), then its targets. Its
        /// kind puts the tables it reads into the source's keys ([`super::key`]).
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        pub struct AssetSettings {
            $(pub $table: $ty,)*
            pub targets: Vec<Target>,
            /// Outputs named with the source's case (build.toml's top-level `keep_case`).
            pub keep_case: bool,
        }

        impl Default for AssetSettings {
            fn default() -> Self {
                Self {
                    $($table: Default::default(),)*
                    targets: vec![Target::HMesh],
                    keep_case: false,
                }
            }
        }
    };
}

use super::tables::tables_of_kinds;
super::tables::with_settings_tables!(asset_settings! {});

impl AssetSettings {
    /// What a model's targets read of these settings.
    pub fn model(&self) -> crate::targets::ModelSettings<'_> {
        crate::targets::ModelSettings {
            mesh: &self.mesh,
            texture: &self.texture,
            animation: &self.animation,
            bmd1: &self.bmd1,
            qtmesh: &self.qtmesh,
        }
    }
}

#[derive(Debug)]
pub struct CompiledAsset {
    pub files: Vec<OutputFile>,
    pub textures: Vec<TextureRequest>,
    pub warnings: Vec<Warning>,
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
    #[error("{path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// A standalone texture, cubemap or LUT that cannot be encoded (`path` may end in
    /// `:line` for text sources).
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    /// A source refused before it is decoded: its header asks for more than a limit of the
    /// build allows (`[limits]`, `crate::limits`).
    #[error("{path}: {message}")]
    OverLimit { path: String, message: String },
    /// As [`Self::Invalid`], at a place in a text source (a LUT's line, a shader's line
    /// and column).
    #[error("{path}:{position}: {message}")]
    InvalidText {
        path: String,
        position: crate::code::TextPosition,
        message: String,
    },
}

impl AssetError {
    /// The diagnostic code, from the variant (see [`crate::code`]).
    pub fn code(&self) -> crate::code::DiagnosticCode {
        use crate::code::DiagnosticCode;
        match self {
            Self::Import(e) => e.code(),
            Self::Target { source, .. } => source.code(),
            Self::Read { source, .. } => DiagnosticCode::of_io(source),
            Self::Invalid { .. } | Self::InvalidText { .. } => DiagnosticCode::InvalidSource,
            Self::OverLimit { .. } => DiagnosticCode::ResourceLimit,
        }
    }

    /// The file the error names first: the source, or another file it read (an OBJ's
    /// MTL library).
    pub fn file(&self) -> &str {
        match self {
            Self::Import(e) => e.file(),
            Self::Target { path, .. }
            | Self::Read { path, .. }
            | Self::Invalid { path, .. }
            | Self::InvalidText { path, .. }
            | Self::OverLimit { path, .. } => path,
        }
    }

    /// The error as it reads after [`Self::file`].
    pub fn detail(&self) -> String {
        match self {
            Self::Import(e) => e.detail(),
            Self::Target { source, .. } => source.to_string(),
            Self::Read { source, .. } => source.to_string(),
            Self::Invalid { message, .. }
            | Self::InvalidText { message, .. }
            | Self::OverLimit { message, .. } => message.clone(),
        }
    }

    /// The line (and column) in a text source, when the error has one.
    pub fn position(&self) -> Option<crate::code::TextPosition> {
        match self {
            Self::InvalidText { position, .. } => Some(*position),
            _ => None,
        }
    }

    /// Where in the source the error is, when its type says (see [`crate::code::ErrorSite`]).
    pub fn site(&self) -> Option<crate::code::ErrorSite> {
        match self {
            Self::Import(e) => e.site(),
            Self::Target { source, .. } => source.site(),
            Self::Read { .. }
            | Self::Invalid { .. }
            | Self::InvalidText { .. }
            | Self::OverLimit { .. } => None,
        }
    }
}

/// Compiles one source with the compile step of its kind (see [`crate::kinds`]).
pub fn compile_asset(
    source: &Source,
    input_root: &Path,
    settings: &AssetSettings,
    limits: &crate::limits::Limits,
) -> Result<CompiledAsset, AssetError> {
    let context = crate::kinds::CompileContext {
        input_root,
        settings,
        limits,
    };
    (crate::kinds::kind(source.kind).compile)(source, &context)
}

/// Adds a target's files, textures, warnings and figures to the asset.
pub(crate) fn add_target_output(compiled: &mut CompiledAsset, out: crate::targets::TargetOutput) {
    compiled.warnings.extend(out.warnings);
    compiled.files.extend(out.files);
    compiled.textures.extend(out.textures);
    if let Some(stats) = out.stats {
        compiled.stats = stats;
        compiled.times = out.times;
    }
}
