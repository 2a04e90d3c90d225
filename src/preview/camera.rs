//! Where the preview camera stands: a 3/4 view from above and to the front-right that
//! frames what is drawn.

use super::raster::Camera;
use glam::Vec3;

/// The 3/4 view direction (from the model towards the eye), Y up as in glTF.
const VIEW_FROM: Vec3 = Vec3::new(0.62, 0.48, 0.62);
/// Share of the image the framed model's projection spans along its longer side.
const FILL: f32 = 0.9;

/// A camera that looks at the points from the 3/4 direction and fits their projection
/// into `size` x `size` pixels, centred, with a margin.
pub fn frame_points(points: &[Vec3], size: u32) -> Camera {
    let (center, radius) = bounding_sphere(points);
    let back = VIEW_FROM.normalize();
    let forward = -back;
    let right = forward.cross(Vec3::Y).normalize();
    let up = right.cross(forward);
    // Three radii away: every point is at least two radii in front of the eye, so the
    // rasteriser needs no near plane.
    let eye = center + back * (radius * 3.0);
    let mut camera = Camera {
        eye,
        right,
        up,
        forward,
        focal: 1.0,
        cx: 0.0,
        cy: 0.0,
    };
    // Fit the projected extents (at focal 1), then centre them.
    let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
    for &p in points {
        let v = camera.to_view(p);
        let (x, y) = (v.x / v.z, v.y / v.z);
        lo = [lo[0].min(x), lo[1].min(y)];
        hi = [hi[0].max(x), hi[1].max(y)];
    }
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(1e-6);
    let s = size as f32;
    camera.focal = FILL * s / extent;
    camera.cx = s * 0.5 - camera.focal * (lo[0] + hi[0]) * 0.5;
    camera.cy = s * 0.5 + camera.focal * (lo[1] + hi[1]) * 0.5;
    camera
}

/// Centre of the bounding box and the largest distance from it (not the smallest sphere,
/// but enough to keep the eye outside every point); a point set of one point or none
/// gets radius 1.
fn bounding_sphere(points: &[Vec3]) -> (Vec3, f32) {
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for &p in points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    if points.is_empty() {
        return (Vec3::ZERO, 1.0);
    }
    let center = (lo + hi) * 0.5;
    let radius = points
        .iter()
        .map(|p| p.distance(center))
        .fold(0.0f32, f32::max);
    (center, if radius > 0.0 { radius } else { 1.0 })
}
