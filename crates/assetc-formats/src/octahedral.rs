//! Octahedral packing of unit vectors into two SNORM16 values, as formats.md defines it.
//! Lives with the formats (not the pipeline) because loaders need the decoder.

fn sign_not_zero(v: f32) -> f32 {
    if v >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

fn to_snorm16(v: f32) -> i16 {
    (v.clamp(-1.0, 1.0) * 32767.0).round() as i16
}

/// Encodes a direction (need not be unit length; a zero vector encodes as +Z).
pub fn encode(n: [f32; 3]) -> [i16; 2] {
    let l1 = n[0].abs() + n[1].abs() + n[2].abs();
    if l1.is_nan() || l1 <= 0.0 || !l1.is_finite() {
        return [0, 0];
    }
    let (mut x, mut y) = (n[0] / l1, n[1] / l1);
    if n[2] < 0.0 {
        let (ox, oy) = (x, y);
        x = (1.0 - oy.abs()) * sign_not_zero(ox);
        y = (1.0 - ox.abs()) * sign_not_zero(oy);
    }
    [to_snorm16(x), to_snorm16(y)]
}

/// Decodes to a unit vector.
pub fn decode(e: [i16; 2]) -> [f32; 3] {
    let x = (e[0] as f32 / 32767.0).max(-1.0);
    let y = (e[1] as f32 / 32767.0).max(-1.0);
    let z = 1.0 - x.abs() - y.abs();
    let (x, y) = if z < 0.0 {
        (
            (1.0 - y.abs()) * sign_not_zero(x),
            (1.0 - x.abs()) * sign_not_zero(y),
        )
    } else {
        (x, y)
    };
    let len = (x * x + y * y + z * z).sqrt();
    [x / len, y / len, z / len]
}

/// Encodes a tangent direction with its handedness in bit 0 of x (1 = negative `w`).
pub fn encode_tangent(t: [f32; 3], w: f32) -> [i16; 2] {
    let [x, y] = encode(t);
    let bit = i16::from(w < 0.0);
    [(x & !1) | bit, y]
}

/// Decodes a tangent to (direction, handedness +1/-1).
pub fn decode_tangent(e: [i16; 2]) -> ([f32; 3], f32) {
    let w = if e[0] & 1 == 1 { -1.0 } else { 1.0 };
    (decode(e), w)
}
