//! Animation stage (being written; this is the agreed interface).
use super::skinning::Skeleton;
use crate::scene::Scene;

#[derive(Debug, Clone, PartialEq)]
pub struct AnimationSettings {
    pub import: bool,
    pub keyframe_reduction: bool,
    pub tolerance: f32,
}
impl Default for AnimationSettings {
    fn default() -> Self {
        Self {
            import: true,
            keyframe_reduction: true,
            tolerance: 0.0,
        }
    }
}
#[derive(Debug, thiserror::Error)]
pub enum AnimError {
    #[error("{0}")]
    Invalid(String),
}
pub struct HAnimStub;
pub fn build_clips(
    _scene: &Scene,
    _skeleton: &Skeleton,
    _settings: &AnimationSettings,
) -> Result<(Vec<u8>, Vec<String>), AnimError> {
    Err(AnimError::Invalid("animation not yet supported".into()))
}
