//! Why a file of one of our runtime formats cannot be read, whichever format it is: the
//! readers' own error types, kept as they are for the commands that describe files.

use crate::formats::{bmd1, hanim, hfont, hman, hmat, hmesh, hpack, ktx2, qtmesh, spirv, spk, wav};

#[derive(Debug, thiserror::Error)]
pub enum FormatReadError {
    #[error(transparent)]
    HMesh(#[from] hmesh::HMeshError),
    #[error(transparent)]
    HMat(#[from] hmat::HMatError),
    #[error(transparent)]
    HAnim(#[from] hanim::HAnimError),
    #[error(transparent)]
    HMan(#[from] hman::HManError),
    #[error(transparent)]
    Ktx2(#[from] ktx2::Ktx2Error),
    #[error(transparent)]
    QtMesh(#[from] qtmesh::QtMeshError),
    #[error(transparent)]
    Bmd1(#[from] bmd1::Bmd1Error),
    #[error(transparent)]
    Spk(#[from] spk::SpkError),
    #[error(transparent)]
    HPack(#[from] hpack::HPackError),
    #[error(transparent)]
    HFont(#[from] hfont::HFontError),
    #[error(transparent)]
    Spirv(#[from] spirv::SpirvError),
    #[error(transparent)]
    Wav(#[from] wav::WavError),
}
