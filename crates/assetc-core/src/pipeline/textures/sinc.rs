//! Windowed-sinc resampling for `texture.mip_filter = "lanczos3"` / `"lanczos4"`
//! (`ktx create`'s default is Lanczos-4): separable, in f32, one pass per axis.
//!
//! Written here rather than taken from `image::imageops::resize`: that one clamps float
//! texels to [0, 1], which would cut normals in [-1, 1] (see `mips::resize`), and has no
//! Lanczos-4. Values are not clamped: the lobes overshoot at edges (ringing), and the
//! caller's conversion back to 8 bits clamps colour, alpha and renormalises normals.

use super::float_image::FloatImage;

/// The Lanczos kernel of `a` lobes: sinc(x) * sinc(x / a) for |x| < a, else 0.
fn lanczos(x: f32, a: f32) -> f32 {
    if x.abs() < 1e-6 {
        return 1.0;
    }
    if x.abs() >= a {
        return 0.0;
    }
    let px = std::f32::consts::PI * x;
    a * px.sin() * (px / a).sin() / (px * px)
}

/// The source texels one destination texel reads, and their weights (summing to 1).
struct Taps {
    first: usize,
    weights: Vec<f32>,
}

/// Taps of every destination texel of a `src` -> `dst` resampling along one axis. When
/// shrinking, the kernel is stretched by the scale so that it low-passes below the new
/// Nyquist frequency; texels past the border are left out and the rest renormalised.
fn taps(src: u32, dst: u32, a: f32) -> Vec<Taps> {
    let scale = src as f32 / dst.max(1) as f32;
    let stretch = scale.max(1.0);
    let support = a * stretch;
    (0..dst)
        .map(|o| {
            // Texel centres in source coordinates, where texel i spans [i, i + 1).
            let center = (o as f32 + 0.5) * scale;
            let lo = (center - support).floor().max(0.0) as usize;
            let hi = ((center + support).ceil().max(0.0) as usize).min(src as usize);
            let mut weights: Vec<f32> = (lo..hi)
                .map(|i| lanczos((i as f32 + 0.5 - center) / stretch, a))
                .collect();
            let sum: f32 = weights.iter().sum();
            if sum.abs() > 1e-6 {
                weights.iter_mut().for_each(|w| *w /= sum);
            }
            Taps { first: lo, weights }
        })
        .collect()
}

/// Resamples `img` to `width` x `height` with a Lanczos kernel of `lobes` lobes.
pub(super) fn resize_lanczos(img: &FloatImage, width: u32, height: u32, lobes: u32) -> FloatImage {
    let a = lobes as f32;
    let (sw, sh) = (img.width() as usize, img.height() as usize);
    let (dw, dh) = (width.max(1) as usize, height.max(1) as usize);
    let src = img.as_raw();
    // Horizontal pass: dw x sh.
    let mut across = vec![0f32; dw * sh * 4];
    for (x, t) in taps(img.width(), dw as u32, a).iter().enumerate() {
        for y in 0..sh {
            let mut sum = [0f32; 4];
            for (k, w) in t.weights.iter().enumerate() {
                let at = (y * sw + t.first + k) * 4;
                for (s, v) in sum.iter_mut().zip(&src[at..at + 4]) {
                    *s += v * w;
                }
            }
            across[(y * dw + x) * 4..][..4].copy_from_slice(&sum);
        }
    }
    // Vertical pass: dw x dh.
    let mut out = vec![0f32; dw * dh * 4];
    for (y, t) in taps(img.height(), dh as u32, a).iter().enumerate() {
        for x in 0..dw {
            let mut sum = [0f32; 4];
            for (k, w) in t.weights.iter().enumerate() {
                let at = ((t.first + k) * dw + x) * 4;
                for (s, v) in sum.iter_mut().zip(&across[at..at + 4]) {
                    *s += v * w;
                }
            }
            out[(y * dw + x) * 4..][..4].copy_from_slice(&sum);
        }
    }
    // The buffer length is width * height * 4 by construction.
    FloatImage::from_raw(dw as u32, dh as u32, out).unwrap_or_else(|| FloatImage::new(1, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_are_symmetric_at_exact_halves() {
        for a in [3.0, 4.0] {
            for t in taps(16, 8, a) {
                let sum: f32 = t.weights.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5);
            }
            // An interior texel of a 2:1 shrink sits between two source texels: its
            // weights mirror each other.
            let t = &taps(64, 32, a)[16];
            let w = &t.weights;
            assert!(w
                .iter()
                .zip(w.iter().rev())
                .all(|(a, b)| (a - b).abs() < 1e-6));
            let n = w.len();
            // Support: a lobes stretched by 2 on each side of the centre.
            assert_eq!(n, 4 * a as usize);
        }
    }

    #[test]
    fn a_uniform_image_stays_uniform_and_negative_values_survive() {
        let img = FloatImage::from_pixel(13, 7, image::Rgba([-0.6, 0.25, 1.5, 1.0]));
        let out = resize_lanczos(&img, 6, 3, 4);
        for p in out.pixels() {
            let want = [-0.6, 0.25, 1.5, 1.0];
            for (got, want) in p.0.iter().zip(want) {
                assert!((got - want).abs() < 1e-5, "{:?}", p.0);
            }
        }
    }
}
