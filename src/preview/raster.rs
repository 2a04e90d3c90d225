//! A small z-buffer triangle rasteriser with perspective-correct attributes.
//!
//! Written by hand rather than taken from a crate: the Rust software renderers we looked
//! at (`euc`, a few `tiny-renderer`-style crates) either pull in their own math and
//! pipeline traits, render on several threads, or are 2D only (`tiny-skia`). A preview
//! needs one opaque pass with a depth test, exact control over the order of float
//! operations (so the same file always gives the same bytes) and nothing else, which is
//! about two hundred lines. Triangles are drawn one after another on one thread, pixels
//! are visited in a fixed order, and ties in depth keep the earlier triangle.
//!
//! No near-plane clipping: [`super::camera`] always places the eye outside the bounding
//! sphere of every vertex drawn, so every vertex lies in front of it.

use glam::Vec3;

/// A camera looking along `forward`, `right` and `up` completing an orthonormal basis;
/// `focal` and the principal point (`cx`, `cy`) are in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    pub eye: Vec3,
    pub right: Vec3,
    pub up: Vec3,
    pub forward: Vec3,
    pub focal: f32,
    pub cx: f32,
    pub cy: f32,
}

impl Camera {
    /// View-space coordinates (x right, y up, z depth in front of the eye).
    pub fn to_view(&self, p: Vec3) -> Vec3 {
        let d = p - self.eye;
        Vec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.forward))
    }

    /// Pixel coordinates (x right, y down) and 1/z of a point in front of the eye.
    pub fn project(&self, p: Vec3) -> (f32, f32, f32) {
        let v = self.to_view(p);
        let inv_z = 1.0 / v.z;
        (
            self.cx + self.focal * v.x * inv_z,
            self.cy - self.focal * v.y * inv_z,
            inv_z,
        )
    }
}

pub use crate::pipeline::textures::decode::Texture;

/// How one triangle's pixels are coloured.
#[derive(Debug, Clone, Copy)]
pub struct Shading<'a> {
    /// Linear RGBA multiplied with the texture.
    pub color: [f32; 4],
    pub texture: Option<&'a Texture>,
    /// Pixels whose alpha is below this are not drawn (glTF MASK).
    pub alpha_cutoff: Option<f32>,
    /// No lighting: the pixel is the (textured) colour itself.
    pub unlit: bool,
}

/// One vertex as the rasteriser needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterVertex {
    pub position: Vec3,
    /// Zero when the mesh has none: the face normal is used.
    pub normal: Vec3,
    pub uv: [f32; 2],
}

/// Light from over the viewer's left shoulder, in view space (x right, y up, z away).
const LIGHT_VIEW: Vec3 = Vec3::new(-0.40, 0.55, -0.73);
const AMBIENT: f32 = 0.35;
const DIFFUSE: f32 = 0.65;

/// Colour and depth buffers.
pub struct Framebuffer {
    pub width: u32,
    pub height: u32,
    /// RGBA8, row-major, top row first.
    pub color: Vec<u8>,
    /// 1/z of the nearest surface so far; 0 = nothing drawn.
    depth: Vec<f32>,
    light: Vec3,
}

impl Framebuffer {
    pub fn new(width: u32, height: u32, background: [u8; 4], camera: &Camera) -> Self {
        let n = width as usize * height as usize;
        let mut color = Vec::with_capacity(n * 4);
        for _ in 0..n {
            color.extend_from_slice(&background);
        }
        // The light in world space, so lighting follows the camera.
        let l = LIGHT_VIEW.normalize();
        let light = (camera.right * l.x + camera.up * l.y + camera.forward * l.z).normalize();
        Self {
            width,
            height,
            color,
            depth: vec![0.0; n],
            light: -light,
        }
    }

    /// Draws one triangle. Back faces are drawn too (with their normal flipped), so
    /// single-sided and mirrored geometry both show.
    pub fn draw_triangle(&mut self, camera: &Camera, v: [&RasterVertex; 3], shading: &Shading) {
        let p = v.map(|v| camera.project(v.position));
        let area = edge(p[0], p[1], p[2].0, p[2].1);
        if area == 0.0 || !area.is_finite() {
            return;
        }
        let face = (v[1].position - v[0].position)
            .cross(v[2].position - v[0].position)
            .normalize_or_zero();
        let to_eye = (camera.eye - v[0].position).normalize_or_zero();
        let (w, h) = (self.width as f32, self.height as f32);
        let min_x = p.iter().map(|q| q.0).fold(f32::INFINITY, f32::min).max(0.0);
        let max_x = p
            .iter()
            .map(|q| q.0)
            .fold(f32::NEG_INFINITY, f32::max)
            .min(w);
        let min_y = p.iter().map(|q| q.1).fold(f32::INFINITY, f32::min).max(0.0);
        let max_y = p
            .iter()
            .map(|q| q.1)
            .fold(f32::NEG_INFINITY, f32::max)
            .min(h);
        if min_x >= max_x || min_y >= max_y {
            return;
        }
        let (x0, x1) = (min_x.floor() as u32, (max_x.ceil() as u32).min(self.width));
        let (y0, y1) = (min_y.floor() as u32, (max_y.ceil() as u32).min(self.height));
        // Orient the edges so the inside is positive whatever the winding.
        let sign = area.signum();
        let inv_area = 1.0 / area.abs();
        let top_left = [
            is_top_left(p[1], p[2], sign),
            is_top_left(p[2], p[0], sign),
            is_top_left(p[0], p[1], sign),
        ];
        for y in y0..y1 {
            let py = y as f32 + 0.5;
            for x in x0..x1 {
                let px = x as f32 + 0.5;
                let e = [
                    edge(p[1], p[2], px, py) * sign,
                    edge(p[2], p[0], px, py) * sign,
                    edge(p[0], p[1], px, py) * sign,
                ];
                if (0..3).any(|i| e[i] < 0.0 || (e[i] == 0.0 && !top_left[i])) {
                    continue;
                }
                let b = [e[0] * inv_area, e[1] * inv_area, e[2] * inv_area];
                let inv_z = b[0] * p[0].2 + b[1] * p[1].2 + b[2] * p[2].2;
                let at = y as usize * self.width as usize + x as usize;
                if inv_z <= self.depth[at] {
                    continue;
                }
                // Perspective-correct weights: interpolate attribute/z, divide by 1/z.
                let pc = [
                    b[0] * p[0].2 / inv_z,
                    b[1] * p[1].2 / inv_z,
                    b[2] * p[2].2 / inv_z,
                ];
                let Some(rgba) = self.shade(v, pc, face, to_eye, shading) else {
                    continue;
                };
                self.depth[at] = inv_z;
                self.color[at * 4..at * 4 + 4].copy_from_slice(&rgba);
            }
        }
    }

    fn shade(
        &self,
        v: [&RasterVertex; 3],
        w: [f32; 3],
        face: Vec3,
        to_eye: Vec3,
        s: &Shading,
    ) -> Option<[u8; 4]> {
        let mut c = s.color;
        if let Some(t) = s.texture {
            let u = w[0] * v[0].uv[0] + w[1] * v[1].uv[0] + w[2] * v[2].uv[0];
            let vv = w[0] * v[0].uv[1] + w[1] * v[1].uv[1] + w[2] * v[2].uv[1];
            let texel = t.sample(u, vv);
            for (ch, &t) in c.iter_mut().take(3).zip(&texel) {
                *ch *= srgb_to_linear(t);
            }
            c[3] *= f32::from(texel[3]) / 255.0;
        }
        if s.alpha_cutoff.is_some_and(|cut| c[3] < cut) {
            return None;
        }
        if !s.unlit {
            let n = v[0].normal * w[0] + v[1].normal * w[1] + v[2].normal * w[2];
            let mut n = n.try_normalize().unwrap_or(face);
            if n.dot(to_eye) < 0.0 {
                n = -n;
            }
            let k = AMBIENT + DIFFUSE * n.dot(self.light).max(0.0);
            for ch in c.iter_mut().take(3) {
                *ch *= k;
            }
        }
        Some([
            linear_to_srgb(c[0]),
            linear_to_srgb(c[1]),
            linear_to_srgb(c[2]),
            255,
        ])
    }
}

/// Twice the signed area of (a, b, (x, y)).
fn edge(a: (f32, f32, f32), b: (f32, f32, f32), x: f32, y: f32) -> f32 {
    (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
}

/// The top-left fill rule: a pixel centre exactly on a shared edge belongs to one
/// triangle only, so no pixel is drawn twice and none is missed.
fn is_top_left(a: (f32, f32, f32), b: (f32, f32, f32), sign: f32) -> bool {
    let (dx, dy) = ((b.0 - a.0) * sign, (b.1 - a.1) * sign);
    (dy == 0.0 && dx < 0.0) || dy > 0.0
}

pub use crate::pipeline::textures::srgb_to_linear;

/// Linear to an sRGB byte, through a 4096-entry table (fast, and the same on every call).
pub fn linear_to_srgb(v: f32) -> u8 {
    const N: usize = 4096;
    static TABLE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..N)
            .map(|i| {
                let c = i as f32 / (N - 1) as f32;
                let s = if c <= 0.003_130_8 {
                    c * 12.92
                } else {
                    1.055 * c.powf(1.0 / 2.4) - 0.055
                };
                (s * 255.0 + 0.5) as u8
            })
            .collect()
    });
    let i = (v.clamp(0.0, 1.0) * (N - 1) as f32 + 0.5) as usize;
    table[i.min(N - 1)]
}
