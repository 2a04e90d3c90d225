//! The few vector operations MikkTSpace uses, each with the reference's exact float
//! operations and order (a fused or reordered sum would change the last bit of a tangent).

pub type V3 = [f32; 3];

#[inline]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[inline]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[inline]
pub fn scale(s: f32, v: V3) -> V3 {
    [s * v[0], s * v[1], s * v[2]]
}

#[inline]
pub fn dot(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
pub fn length(v: V3) -> f32 {
    dot(v, v).sqrt()
}

/// MikkTSpace's test for a usable value: above the smallest normal float.
#[inline]
pub fn not_zero(x: f32) -> bool {
    x.abs() > f32::MIN_POSITIVE
}

/// `v` scaled to unit length, or `v` itself when every component is (nearly) zero.
#[inline]
pub fn normalized_or_zero(v: V3) -> V3 {
    if not_zero(v[0]) || not_zero(v[1]) || not_zero(v[2]) {
        scale(length(v).recip(), v)
    } else {
        v
    }
}

/// `v` without its component along the unit normal `n`, normalised.
#[inline]
pub fn project_normalized(v: V3, n: V3) -> V3 {
    normalized_or_zero(sub(v, scale(dot(n, v), n)))
}
