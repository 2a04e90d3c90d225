//! The size a texture is scaled to: below loading (which keeps a KTX2 whose size already
//! fits) and the mip chains, which both need it.

/// Size after fitting the longest side into `max_size`, keeping the aspect ratio.
pub fn fitted_size(width: u32, height: u32, max_size: u32) -> (u32, u32) {
    let max_size = max_size.max(1);
    let longest = width.max(height);
    if longest <= max_size {
        return (width, height);
    }
    let scale = f64::from(max_size) / f64::from(longest);
    let fit = |v: u32| ((f64::from(v) * scale).round() as u32).clamp(1, max_size);
    (fit(width), fit(height))
}
