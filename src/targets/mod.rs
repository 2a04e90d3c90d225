//! Target writers: serialise an imported, processed scene for a runtime other than the
//! default `.hmesh` set (which the build driver writes itself from the pipeline stages).

pub mod bmd1;
pub mod qtmesh;

/// A file a target writes, relative to the output root.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetFile {
    pub rel_path: String,
    pub bytes: Vec<u8>,
}

/// What a target produced for one source.
#[derive(Debug, Clone, Default)]
pub struct TargetOutput {
    pub files: Vec<TargetFile>,
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}
