//! `.hmat` v1: the PBR material table of one source, row i = material slot i of the
//! companion `.hmesh`.

use bytemuck::{Pod, Zeroable};

pub const MAGIC: u32 = u32::from_le_bytes(*b"HMAT");
pub const VERSION: u32 = 1;
pub const FLAG_DOUBLE_SIDED: u32 = 1;
/// Bits 1-2 of `flags`: 0 OPAQUE, 1 MASK, 2 BLEND.
pub const ALPHA_MODE_SHIFT: u32 = 1;
pub const ALPHA_MODE_MASK: u32 = 0b11 << ALPHA_MODE_SHIFT;
pub const FLAG_UNLIT: u32 = 1 << 3;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA.
    pub base_color_factor: [f32; 4],
    pub emissive_factor: [f32; 3],
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    pub normal_scale: f32,
    pub occlusion_strength: f32,
    pub alpha_cutoff: f32,
    pub flags: u32,
    pub pad: u32,
    pub base_color_tex: u64,
    pub metallic_roughness_tex: u64,
    pub normal_tex: u64,
    pub occlusion_tex: u64,
    pub emissive_tex: u64,
}

const _: () = assert!(std::mem::size_of::<GpuMaterial>() == 96);

impl Default for GpuMaterial {
    /// glTF defaults: white, metallic 1, roughness 1, opaque, single-sided, no textures.
    fn default() -> Self {
        Self {
            base_color_factor: [1.0; 4],
            emissive_factor: [0.0; 3],
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_cutoff: 0.5,
            flags: 0,
            pad: 0,
            base_color_tex: 0,
            metallic_roughness_tex: 0,
            normal_tex: 0,
            occlusion_tex: 0,
            emissive_tex: 0,
        }
    }
}

/// A whole `.hmat` in memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HMat {
    pub materials: Vec<GpuMaterial>,
}

// Interim stubs until the full writer/validator lands.
pub fn write(_t: &HMat) -> Vec<u8> {
    Vec::new()
}
pub fn validate(_bytes: &[u8]) -> Vec<super::Problem> {
    Vec::new()
}
