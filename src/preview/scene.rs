//! What the loaders produce and the renderer draws: vertices, and index lists each with
//! its material.

use super::camera::frame_points;
use super::raster::{Camera, Framebuffer, RasterVertex, Shading, Texture};
use glam::Vec3;
use std::sync::Arc;

/// Behind the model: a dark blue-grey no lit surface colour is likely to match exactly.
pub const BACKGROUND: [u8; 4] = [0x2b, 0x30, 0x3b, 0xff];

#[derive(Debug, Clone)]
pub struct Material {
    /// Linear RGBA.
    pub color: [f32; 4],
    pub texture: Option<Arc<Texture>>,
    pub alpha_cutoff: Option<f32>,
    pub unlit: bool,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            color: [0.8, 0.8, 0.8, 1.0],
            texture: None,
            alpha_cutoff: None,
            unlit: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Draw {
    /// Triangle list into [`Scene::vertices`].
    pub indices: Vec<u32>,
    pub material: Material,
}

#[derive(Debug, Clone, Default)]
pub struct Scene {
    pub vertices: Vec<RasterVertex>,
    pub draws: Vec<Draw>,
    /// What the picture leaves out and why (a missing `.hmat` or texture, materials the
    /// file cannot hold), for the user to be told: a preview is never silently partial.
    pub notes: Vec<String>,
    /// Where the picture is taken from; `None` frames what is drawn from the 3/4 view.
    pub camera: Option<Camera>,
}

impl Scene {
    pub fn triangle_count(&self) -> usize {
        self.draws.iter().map(|d| d.indices.len() / 3).sum()
    }

    /// Positions of the vertices some triangle uses (what the camera frames).
    fn drawn_points(&self) -> Vec<Vec3> {
        let mut used = vec![false; self.vertices.len()];
        for d in &self.draws {
            for &i in &d.indices {
                if let Some(u) = used.get_mut(i as usize) {
                    *u = true;
                }
            }
        }
        self.vertices
            .iter()
            .zip(used)
            .filter(|(v, u)| *u && v.position.is_finite())
            .map(|(v, _)| v.position)
            .collect()
    }

    /// The 3/4 view camera that frames what is drawn in a `size` x `size` image.
    pub fn frame_camera(&self, size: u32) -> Camera {
        frame_points(&self.drawn_points(), size.max(1))
    }

    /// Renders a `size` x `size` RGBA8 image from [`Scene::camera`], else from the 3/4
    /// view framing what is drawn.
    pub fn render(&self, size: u32) -> image::RgbaImage {
        let size = size.max(1);
        let camera = self.camera.unwrap_or_else(|| self.frame_camera(size));
        let mut fb = Framebuffer::new(size, size, BACKGROUND, &camera);
        for d in &self.draws {
            let shading = Shading {
                color: d.material.color,
                texture: d.material.texture.as_deref(),
                alpha_cutoff: d.material.alpha_cutoff,
                unlit: d.material.unlit,
            };
            for tri in d.indices.chunks_exact(3) {
                let v = [tri[0], tri[1], tri[2]].map(|i| self.vertices.get(i as usize));
                if let [Some(a), Some(b), Some(c)] = v {
                    if a.position.is_finite() && b.position.is_finite() && c.position.is_finite() {
                        fb.draw_triangle(&camera, [a, b, c], &shading);
                    }
                }
            }
        }
        // The buffer is exactly size * size * 4 bytes, so this cannot fail.
        image::RgbaImage::from_raw(size, size, fb.color).unwrap_or_default()
    }
}

/// A distinct, stable colour for item `i` (meshlets): hues spaced by the golden angle.
pub fn palette(i: usize) -> [f32; 4] {
    let h = (i as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    // Pastel, linear.
    [0.15 + 0.7 * r, 0.15 + 0.7 * g, 0.15 + 0.7 * b, 1.0]
}
