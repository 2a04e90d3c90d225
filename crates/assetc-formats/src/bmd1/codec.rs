//! The scalar encodings BMD1 packs into its records: F8A minifloats [B1], packed XYZ [B2],
//! the three S/T fixed-point forms [B3] [B5] [B7] and binary16 positions.
//!
//! Every encoder rounds to the nearest code and returns the canonical code: the one a
//! decode-then-encode cycle gives back, so a file read and written again is byte-identical.

/// Largest F8A magnitude, code 0x7F.
pub const F8A_MAX: f32 = 1.9375;

/// F8A `S.E3.F4`: value = (-1)^S * (1 + F/16) * 2^(E-7); 0x00 / 0x80 are +0 / -0.
pub fn f8a_decode(code: u8) -> f32 {
    let magnitude = code & 0x7F;
    let value = if magnitude == 0 {
        0.0
    } else {
        let exponent = i32::from(magnitude >> 4);
        let fraction = f32::from(magnitude & 0x0F);
        (1.0 + fraction / 16.0) * 2f32.powi(exponent - 7)
    };
    if code & 0x80 != 0 {
        -value
    } else {
        value
    }
}

/// Nearest F8A code; ties go to the smaller magnitude, magnitudes above 1.9375 saturate,
/// the sign (also of zero) is kept. NaN encodes as +0.
pub fn f8a_encode(x: f32) -> u8 {
    if x.is_nan() {
        return 0;
    }
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let target = f64::from(x.abs());
    let mut best = 0u8;
    let mut best_err = f64::INFINITY;
    // 128 magnitudes, monotonic in the code: a scan is simple and cheap enough.
    for magnitude in 0..=0x7Fu8 {
        let err = (f64::from(f8a_decode(magnitude)) - target).abs();
        if err < best_err {
            best = magnitude;
            best_err = err;
        }
    }
    sign | best
}

fn sign_extend_9(bits: u32) -> i32 {
    ((bits & 0x1FF) as i32) << 23 >> 23
}

/// Packed XYZ [B2]: 9-bit two's-complement X/Y/Z in bits 8:0, 17:9, 26:18, exponent in
/// 31:27; value = frac * 2^(E-22).
pub fn xyz_decode(word: u32) -> [f32; 3] {
    let scale = 2f32.powi((word >> 27) as i32 - 22);
    [
        sign_extend_9(word) as f32 * scale,
        sign_extend_9(word >> 9) as f32 * scale,
        sign_extend_9(word >> 18) as f32 * scale,
    ]
}

/// The smallest exponent at which all three components fit, rounded to nearest; `None` for
/// non-finite values or magnitudes beyond 255 * 2^9.
pub fn xyz_encode(v: [f32; 3]) -> Option<u32> {
    if v.iter().any(|c| !c.is_finite()) {
        return None;
    }
    for exponent in 0..32i32 {
        let scale = 2f64.powi(22 - exponent);
        let fracs = v.map(|c| (f64::from(c) * scale).round());
        if fracs.iter().all(|f| (-256.0..=255.0).contains(f)) {
            let mut fracs = fracs.map(|f| f as i32);
            let mut exponent = exponent;
            // Rounding at the exponent below can step just outside the range (-256.6 ->
            // -257) while this exponent gives -128, which the exponent below holds exactly:
            // move there so the code is the canonical one for its value.
            while exponent > 0 && fracs.iter().all(|f| (-128..=127).contains(f)) {
                exponent -= 1;
                fracs = fracs.map(|f| f * 2);
            }
            let [x, y, z] = fracs.map(|f| (f as u32) & 0x1FF);
            return Some(((exponent as u32) << 27) | (z << 18) | (y << 9) | x);
        }
    }
    None
}

/// True when no smaller exponent represents the same value ([B2] "smallest E").
pub fn xyz_is_canonical(word: u32) -> bool {
    word >> 27 == 0
        || [word, word >> 9, word >> 18]
            .iter()
            .any(|&bits| !(-128..=127).contains(&sign_extend_9(bits)))
}

/// The quantisation step of a packed XYZ word: half of it is its rounding error bound.
pub fn xyz_step(word: u32) -> f32 {
    2f32.powi((word >> 27) as i32 - 22)
}

/// S/T of 64-bit, F9 and FB vertices [B3]: 11-bit unsigned, value = (u/1024 - 0.5) * 4^E.
/// Returns the 22-bit field pair (S in bits 10:0, T in 21:11) and the exponent.
pub fn st11_encode(uv: [f32; 2]) -> Option<(u32, u32)> {
    st_encode(uv, ScaledSt::ST11)
}

pub fn st11_decode(s: u32, t: u32, exponent: u32) -> [f32; 2] {
    st_decode(s, t, exponent, ScaledSt::ST11)
}

/// S/T of 128-bit vertices [B7]: 14-bit unsigned, value = (u/4096 - 2) * 2^E, E in 0..=15.
pub fn st14_encode(uv: [f32; 2]) -> Option<(u32, u32)> {
    st_encode(uv, ScaledSt::ST14)
}

pub fn st14_decode(s: u32, t: u32, exponent: u32) -> [f32; 2] {
    st_decode(s, t, exponent, ScaledSt::ST14)
}

/// S/T of F8 and FA vertices [B5]: 12-bit unsigned, value = u/2048 - 0.5. Returns the pair
/// packed as S in bits 11:0, T in 23:12.
pub fn st12_encode(uv: [f32; 2]) -> Option<u32> {
    let [s, t] = uv.map(|c| (f64::from(c) + 0.5) * 2048.0);
    let fits = |u: f64| u.is_finite() && (-0.5..4095.5).contains(&u);
    if !(fits(s) && fits(t)) {
        return None;
    }
    Some(((t.round() as u32) << 12) | s.round() as u32)
}

pub fn st12_decode(packed: u32) -> [f32; 2] {
    [packed & 0xFFF, (packed >> 12) & 0xFFF].map(|u| u as f32 / 2048.0 - 0.5)
}

/// An S/T form "u / unit - bias, scaled by base^E".
struct ScaledSt {
    bits: u32,
    unit: f64,
    bias: f64,
    /// log2 of the per-exponent scale (4^E -> 2, 2^E -> 1).
    scale_log2: i32,
    max_exponent: u32,
}

impl ScaledSt {
    const ST11: Self = Self {
        bits: 11,
        unit: 1024.0,
        bias: 0.5,
        scale_log2: 2,
        max_exponent: 3,
    };
    const ST14: Self = Self {
        bits: 14,
        unit: 4096.0,
        bias: 2.0,
        scale_log2: 1,
        max_exponent: 15,
    };
}

fn st_encode(uv: [f32; 2], form: ScaledSt) -> Option<(u32, u32)> {
    if uv.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let max_u = f64::from((1u32 << form.bits) - 1);
    let per_step = 1i64 << form.scale_log2;
    let bias_u = (form.bias * form.unit) as i64;
    for exponent in 0..=form.max_exponent {
        let scale = 2f64.powi(form.scale_log2 * exponent as i32);
        let us = uv.map(|c| ((f64::from(c) / scale + form.bias) * form.unit).round());
        if us.iter().all(|u| (0.0..=max_u).contains(u)) {
            let mut us = us.map(|u| u as i64);
            let mut exponent = exponent;
            // Same canonicalisation as packed XYZ: prefer the smaller exponent when it
            // holds the rounded value exactly.
            while exponent > 0 {
                let lower = us.map(|u| (u - bias_u) * per_step + bias_u);
                if lower.iter().all(|u| (0..=max_u as i64).contains(u)) {
                    us = lower;
                    exponent -= 1;
                } else {
                    break;
                }
            }
            let packed = (us[1] as u32) << form.bits | us[0] as u32;
            return Some((packed, exponent));
        }
    }
    None
}

fn st_decode(s: u32, t: u32, exponent: u32, form: ScaledSt) -> [f32; 2] {
    let mask = (1u32 << form.bits) - 1;
    let scale = 2f64.powi(form.scale_log2 * exponent.min(form.max_exponent) as i32);
    [s & mask, t & mask].map(|u| ((f64::from(u) / form.unit - form.bias) * scale) as f32)
}

/// IEEE binary16 bits of `v`, or `None` when it is not finite or rounds to infinity.
pub fn half_encode(v: f32) -> Option<u16> {
    let h = half::f16::from_f32(v);
    h.is_finite().then(|| h.to_bits())
}

/// `None` for the Inf/NaN codes [B7] forbids.
pub fn half_decode(bits: u16) -> Option<f32> {
    let h = half::f16::from_bits(bits);
    h.is_finite().then(|| h.to_f32())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_f8a_code_round_trips_and_keeps_zero_sign() {
        for code in 0..=255u8 {
            let v = f8a_decode(code);
            assert_eq!(f8a_encode(v), code, "code {code:#04x} value {v}");
        }
        assert_eq!(f8a_encode(-0.0), 0x80);
        assert_eq!(f8a_encode(-0.0001), 0x80);
        assert_eq!(f8a_encode(1.0), 0x70);
        assert_eq!(f8a_decode(0x7F), F8A_MAX);
        assert_eq!(f8a_encode(100.0), 0x7F);
    }

    #[test]
    fn f8a_encode_picks_nearest() {
        // 1.0 (0x70) and 1.0625 (0x71): 1.04 is nearer 1.0625, 1.02 nearer 1.0.
        assert_eq!(f8a_encode(1.04), 0x71);
        assert_eq!(f8a_encode(1.02), 0x70);
        // Between +0 and the smallest non-zero 17/16 * 2^-7 = 0.0083.
        assert_eq!(f8a_encode(0.004), 0x00);
        assert_eq!(f8a_encode(0.005), 0x01);
    }

    #[test]
    fn xyz_uses_the_smallest_exponent() {
        let w = xyz_encode([1.0, 0.0, 0.0]).unwrap();
        assert_eq!((w >> 27, w & 0x1FF), (15, 128));
        assert_eq!(xyz_decode(w), [1.0, 0.0, 0.0]);
        let w = xyz_encode([-3.0, 0.5, 2.25]).unwrap();
        assert_eq!(xyz_decode(w), [-3.0, 0.5, 2.25]);
        assert!(xyz_is_canonical(w));
        assert_eq!(xyz_encode([0.0; 3]), Some(0));
        assert!(xyz_encode([2e5, 0.0, 0.0]).is_none());
        assert!(xyz_encode([f32::NAN, 0.0, 0.0]).is_none());
        // E=16 frac=64 is 1.0 too, but not canonical.
        assert!(!xyz_is_canonical((16 << 27) | 64));
    }

    #[test]
    fn xyz_decode_encode_is_identity_on_canonical_words() {
        for e in 0..32u32 {
            for frac in [-256i32, -200, -129, -128, -1, 0, 1, 127, 128, 255] {
                let word = (e << 27) | ((frac as u32) & 0x1FF) | (300 << 9);
                if xyz_is_canonical(word) {
                    assert_eq!(xyz_encode(xyz_decode(word)), Some(word), "{word:#x}");
                }
            }
        }
    }

    #[test]
    fn st_ranges_match_the_seed_table() {
        // [B3] ranges: E0 -0.5..1.499, E3 -32..95.936.
        assert_eq!(st11_decode(0, 2047, 0), [-0.5, 1.499_023_4]);
        assert_eq!(st11_decode(0, 2047, 3), [-32.0, 95.9375]);
        let (p, e) = st11_encode([0.25, 1.0]).unwrap();
        assert_eq!(e, 0);
        assert_eq!(st11_decode(p & 0x7FF, p >> 11, e), [0.25, 1.0]);
        let (p, e) = st11_encode([-1.5, 3.0]).unwrap();
        assert_eq!(e, 1);
        assert_eq!(st11_decode(p & 0x7FF, p >> 11, e), [-1.5, 3.0]);
        assert!(st11_encode([100.0, 0.0]).is_none());
        let p = st12_encode([0.0, 1.0]).unwrap();
        assert_eq!(st12_decode(p), [0.0, 1.0]);
        assert!(st12_encode([1.6, 0.0]).is_none());
        let (p, e) = st14_encode([-2.0, 1000.0]).unwrap();
        assert_eq!(st14_decode(p & 0x3FFF, p >> 14, e), [-2.0, 1000.0]);
    }

    #[test]
    fn half_rejects_overflow() {
        assert_eq!(half_encode(1.5).and_then(half_decode), Some(1.5));
        assert!(half_encode(70000.0).is_none());
        assert!(half_decode(0x7C00).is_none());
    }
}
