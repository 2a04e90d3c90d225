//! Skinning (being written by the skinning work; this is the agreed interface).

use crate::formats::hmesh::{GpuJoint, GpuSkinVertex};
use crate::scene::{PrimitiveInstance, Scene};
use glam::Mat4;

pub struct Skeleton {
    pub joints: Vec<GpuJoint>,
    pub joint_nodes: Vec<usize>,
    pub skin: usize,
}

pub struct SkinnedPrimitive {
    pub vertices: Vec<GpuSkinVertex>,
    pub position_transform: Mat4,
}

#[derive(Debug, thiserror::Error)]
pub enum SkinError {
    #[error("{0}")]
    Invalid(String),
}

pub fn build_skeleton(_scene: &Scene) -> Result<Option<(Skeleton, Vec<String>)>, SkinError> {
    Ok(None)
}

pub fn skin_primitive(
    _scene: &Scene,
    _inst: PrimitiveInstance,
    _skeleton: &Skeleton,
) -> Result<SkinnedPrimitive, SkinError> {
    Err(SkinError::Invalid("skinning not yet supported".into()))
}
