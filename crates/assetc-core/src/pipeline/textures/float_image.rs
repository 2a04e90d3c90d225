//! The image resampling works in: RGBA in f32, so that normals in [-1, 1] and HDR texels
//! survive filtering. Shared by the mip chain, the windowed-sinc filter and the standalone
//! (HDR, cube) paths, below all of them.

use image::{ImageBuffer, Rgba};

pub(super) type FloatImage = ImageBuffer<Rgba<f32>, Vec<f32>>;
