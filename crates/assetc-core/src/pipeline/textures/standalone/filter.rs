//! Filters on linear float images that keep every value as it is: the image crate's
//! `imageops::resize` clamps f32 texels to [0, 1] (its notion of a float colour's range),
//! which would flatten HDR light and negative vector components.

use super::super::float_image::FloatImage;
use image::Rgba;

/// Scales `src` to `width` x `height` with an area (box) filter: each texel is the mean of
/// the source area it covers, partial texels weighed by their covered fraction. Meant for
/// downscaling, where it neither rings nor skips texels; sequential and deterministic.
pub(super) fn resize_area(src: &FloatImage, width: u32, height: u32) -> FloatImage {
    let (sw, sh) = src.dimensions();
    let across = area_weights(sw, width);
    let down = area_weights(sh, height);
    // Rows first: sh rows of `width` texels.
    let mut rows = vec![[0.0f32; 4]; width as usize * sh as usize];
    for y in 0..sh {
        for (x, (first, ws)) in across.iter().enumerate() {
            let mut t = [0.0f32; 4];
            for (k, w) in ws.iter().enumerate() {
                let p = src.get_pixel(first + k as u32, y).0;
                for c in 0..4 {
                    t[c] += p[c] * w;
                }
            }
            rows[y as usize * width as usize + x] = t;
        }
    }
    FloatImage::from_fn(width, height, |x, y| {
        let (first, ws) = &down[y as usize];
        let mut t = [0.0f32; 4];
        for (k, w) in ws.iter().enumerate() {
            let p = rows[(*first as usize + k) * width as usize + x as usize];
            for c in 0..4 {
                t[c] += p[c] * w;
            }
        }
        Rgba(t)
    })
}

/// For each of `dst` texels along an axis of `src` texels: the first source texel it
/// covers and the weights of the texels from there on (summing to 1).
fn area_weights(src: u32, dst: u32) -> Vec<(u32, Vec<f32>)> {
    let ratio = f64::from(src) / f64::from(dst.max(1));
    (0..dst)
        .map(|i| {
            let (a, b) = (f64::from(i) * ratio, f64::from(i + 1) * ratio);
            let first = (a.floor() as u32).min(src.saturating_sub(1));
            let end = (b.ceil() as u32).clamp(first + 1, src);
            let covered: Vec<f64> = (first..end)
                .map(|j| (b.min(f64::from(j) + 1.0) - a.max(f64::from(j))).max(0.0))
                .collect();
            let total: f64 = covered.iter().sum();
            let ws = covered
                .iter()
                .map(|c| if total > 0.0 { (c / total) as f32 } else { 1.0 })
                .collect();
            (first, ws)
        })
        .collect()
}

/// The next mip level: each texel the mean of its 2x2 footprint. Along an odd side the
/// last footprint also takes the leftover row or column (2x3, 3x2 or 3x3), so no texel
/// is dropped; along a side of 1 the footprint is 1 wide.
pub(super) fn half_box(src: &FloatImage) -> FloatImage {
    let (w, h) = src.dimensions();
    let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
    let span = |i: u32, n: u32, size: u32| {
        let start = (2 * i).min(size - 1);
        let end = if i + 1 == n { size } else { 2 * i + 2 };
        start..end
    };
    FloatImage::from_fn(nw, nh, |x, y| {
        let mut sum = [0.0f32; 4];
        let mut count = 0.0f32;
        for sy in span(y, nh, h) {
            for sx in span(x, nw, w) {
                let p = src.get_pixel(sx, sy).0;
                for c in 0..4 {
                    sum[c] += p[c];
                }
                count += 1.0;
            }
        }
        Rgba(sum.map(|s| s / count))
    })
}
