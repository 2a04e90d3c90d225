//! Texture stage (being written; this is the agreed interface).
use crate::scene::Scene;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureMode {
    Color,
    Linear,
    Normal,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextureFormat {
    Uastc,
    Bc7,
    Bc1,
    Bc3,
    Rgba8,
}
#[derive(Debug, Clone, PartialEq)]
pub struct TextureSettings {
    pub format: TextureFormat,
    pub max_size: u32,
    pub mipmaps: bool,
    pub quality: f32,
}
impl Default for TextureSettings {
    fn default() -> Self {
        Self {
            format: TextureFormat::Uastc,
            max_size: 4096,
            mipmaps: true,
            quality: 0.8,
        }
    }
}
#[derive(Debug, thiserror::Error)]
pub enum TextureError {
    #[error("{0}")]
    Other(String),
}
pub fn texture_id(_image_bytes: &[u8], _mode: TextureMode, _settings: &TextureSettings) -> u64 {
    0
}
pub fn load_image_bytes(scene: &Scene, image: usize) -> Result<Arc<Vec<u8>>, TextureError> {
    Ok(scene.images[image].bytes.clone())
}
pub fn encode_texture(
    _bytes: &[u8],
    _mime: Option<&str>,
    _mode: TextureMode,
    _alpha_cutoff: Option<f32>,
    _settings: &TextureSettings,
) -> Result<Vec<u8>, TextureError> {
    Err(TextureError::Other("textures not yet supported".into()))
}
