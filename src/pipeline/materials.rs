//! Material table stage (being written; this is the agreed interface).
use super::textures::{TextureMode, TextureSettings};
use crate::formats::hmat::GpuMaterial;
use crate::scene::Scene;

pub struct TextureJob {
    pub id: u64,
    pub image: usize,
    pub mode: TextureMode,
    pub alpha_cutoff: Option<f32>,
}
pub struct MaterialTable {
    pub rows: Vec<GpuMaterial>,
    pub textures: Vec<TextureJob>,
    pub warnings: Vec<String>,
}
pub fn build_material_table(
    _scene: &Scene,
    slots: &[Option<usize>],
    _settings: &TextureSettings,
) -> MaterialTable {
    MaterialTable {
        rows: slots.iter().map(|_| GpuMaterial::default()).collect(),
        textures: vec![],
        warnings: vec![],
    }
}
