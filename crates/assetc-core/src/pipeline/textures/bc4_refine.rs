//! Endpoint refinement of BC4 blocks: BC4 textures and both halves of BC5.
//!
//! Written here because intel_tex_2's BC4 and BC5 kernels take no settings and stop a
//! little short of bc7enc_rdo's rgbcx (BC4 42.84 against 43.00 dB, BC5 normal maps 0.370°
//! against 0.322° on FlightHelmet: docs/performance.md), and no other crate at hand
//! encodes BC4 better. Each block keeps the better of the encoder's block and a few
//! candidates: the endpoints refitted by least squares to the block's indices (twice,
//! re-choosing the indices in between), rounded each way, and the block's own minimum
//! and maximum. Every candidate uses the eight-value mode; a block the encoder put in the
//! six-value mode (with exact 0 and 255) is compared with them like any other.
//!
//! The palette is computed as bcdec decodes it (16-bit fixed-point weights, rounded), so
//! the error compared is the error a reader sees.

/// The eight values of a BC4 block with endpoints `e0`, `e1` (bcdec's rounding).
fn palette(e0: u8, e1: u8) -> [u8; 8] {
    let (a0, a1) = (u32::from(e0), u32::from(e1));
    let mix = |w0: u32, w1: u32| ((w0 * a0 + w1 * a1 + 32768) >> 16) as u8;
    if e0 > e1 {
        const W: [u32; 6] = [9363, 18724, 28086, 37450, 46812, 56173];
        [
            e0,
            e1,
            mix(W[5], W[0]),
            mix(W[4], W[1]),
            mix(W[3], W[2]),
            mix(W[2], W[3]),
            mix(W[1], W[4]),
            mix(W[0], W[5]),
        ]
    } else {
        const W: [u32; 4] = [13107, 26215, 39321, 52429];
        [
            e0,
            e1,
            mix(W[3], W[0]),
            mix(W[2], W[1]),
            mix(W[1], W[2]),
            mix(W[0], W[3]),
            0,
            255,
        ]
    }
}

/// The nearest palette entry for each texel in the eight-value mode (`e0 > e1`): the 48
/// index bits and the squared error. The palette runs from e0 down to e1 in this index
/// order, evenly but for rounding, so each texel's nearest entry is its projected place
/// or a neighbour (a test checks against a search of all eight on every endpoint pair).
fn fit_eight(texels: &[u8; 16], e0: u8, e1: u8) -> (u64, u32) {
    const ORDER: [u64; 8] = [0, 2, 3, 4, 5, 6, 7, 1];
    let palette = palette(e0, e1);
    let sorted = ORDER.map(|k| i32::from(palette[k as usize]));
    let (top, span) = (i32::from(e0), i32::from(e0) - i32::from(e1));
    let (mut bits, mut error) = (0u64, 0u32);
    for (i, &v) in texels.iter().enumerate() {
        let v = i32::from(v);
        let place = (((top - v) * 7 + span / 2) / span).clamp(0, 7) as usize;
        let (mut best, mut best_error) = (place, (v - sorted[place]).pow(2));
        for j in [place.wrapping_sub(1), place + 1] {
            if let Some(&p) = sorted.get(j) {
                let e = (v - p).pow(2);
                if e < best_error {
                    (best, best_error) = (j, e);
                }
            }
        }
        bits |= ORDER[best] << (3 * i);
        error += best_error as u32;
    }
    (bits, error)
}

/// A block whose squared error over its 16 texels is at most this (about one level RMS)
/// is kept as encoded: refining such blocks cost 40% of the refinement's time on
/// FlightHelmet's occlusion maps for 0.0002 dB (43.9434 against 43.9432 dB).
const CLOSE_ENOUGH: u32 = 16;

/// Where along e0 -> e1 each index of the eight-value mode lies.
const POSITION: [f32; 8] = [
    0.0,
    1.0,
    1.0 / 7.0,
    2.0 / 7.0,
    3.0 / 7.0,
    4.0 / 7.0,
    5.0 / 7.0,
    6.0 / 7.0,
];

/// Least-squares endpoints (e0, e1) for `texels` at the positions their `indices` give,
/// or `None` when the positions do not determine them (all texels at one position).
fn least_squares(texels: &[u8; 16], indices: u64) -> Option<(f32, f32)> {
    let (mut aa, mut ab, mut bb, mut av, mut bv) = (0f32, 0f32, 0f32, 0f32, 0f32);
    for (i, &v) in texels.iter().enumerate() {
        let t = POSITION[((indices >> (3 * i)) & 7) as usize];
        let (a, b, v) = (1.0 - t, t, f32::from(v));
        aa += a * a;
        ab += a * b;
        bb += b * b;
        av += a * v;
        bv += b * v;
    }
    let det = aa * bb - ab * ab;
    if det.abs() < 1e-6 {
        return None;
    }
    Some(((av * bb - bv * ab) / det, (bv * aa - av * ab) / det))
}

fn block_bytes(e0: u8, e1: u8, indices: u64) -> [u8; 8] {
    let mut out = (indices << 16).to_le_bytes();
    out[0] = e0;
    out[1] = e1;
    out
}

/// The best of `block` and its candidates for `texels` (the block itself unless one has
/// less error).
fn refine_block(block: [u8; 8], texels: &[u8; 16]) -> [u8; 8] {
    let own_indices = u64::from_le_bytes(block) >> 16;
    let own_palette = palette(block[0], block[1]);
    let own_error: u32 = texels
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let d = i32::from(v) - i32::from(own_palette[((own_indices >> (3 * i)) & 7) as usize]);
            (d * d) as u32
        })
        .sum();
    if own_error <= CLOSE_ENOUGH {
        return block;
    }
    let mut best = (own_error, block);
    let try_endpoints = |e0: u8, e1: u8, best: &mut (u32, [u8; 8])| -> Option<u64> {
        if e0 <= e1 {
            return None;
        }
        let (indices, error) = fit_eight(texels, e0, e1);
        if error < best.0 {
            *best = (error, block_bytes(e0, e1, indices));
        }
        Some(indices)
    };
    let (low, high) = (
        *texels.iter().min().unwrap_or(&0),
        *texels.iter().max().unwrap_or(&0),
    );
    let min_max = try_endpoints(high, low, &mut best);
    // The refit reads positions of the eight-value mode; a six-value block's indices
    // mean other positions, so it starts from the min-max fit instead.
    let mut indices = if block[0] > block[1] {
        Some(own_indices)
    } else {
        min_max
    };
    for _ in 0..2 {
        let Some((e0, e1)) = indices.and_then(|i| least_squares(texels, i)) else {
            break;
        };
        let clamp = |v: f32| v.clamp(0.0, 255.0);
        let (e0, e1) = (clamp(e0), clamp(e1));
        let mut tried = false;
        for a in [e0.floor(), e0.ceil()] {
            for b in [e1.floor(), e1.ceil()] {
                tried |= try_endpoints(a as u8, b as u8, &mut best).is_some();
            }
        }
        // Refit again from the indices of the best block so far.
        indices = tried.then(|| u64::from_le_bytes(best.1) >> 16);
    }
    best.1
}

/// Refines the BC4 blocks found every `stride` bytes of `blocks` from byte `offset` (BC4:
/// stride 8, offset 0; BC5: stride 16, offsets 0 and 8) against `values`: the channel the
/// encoder was given, one byte a texel, `blocks_wide * 4` texels a row, padded to whole
/// blocks.
pub fn refine(blocks: &mut [u8], stride: usize, offset: usize, values: &[u8], blocks_wide: usize) {
    for (b, chunk) in blocks.chunks_exact_mut(stride).enumerate() {
        let Some(texels) = block_texels(values, blocks_wide, b) else {
            return;
        };
        let Ok(block) = <[u8; 8]>::try_from(&chunk[offset..offset + 8]) else {
            return;
        };
        chunk[offset..offset + 8].copy_from_slice(&refine_block(block, &texels));
    }
}

/// The 16 values of block `b` (raster order) of a one-byte-a-texel image `blocks_wide * 4`
/// texels wide, or `None` past its end.
fn block_texels(values: &[u8], blocks_wide: usize, b: usize) -> Option<[u8; 16]> {
    let (bx, by, row) = (b % blocks_wide, b / blocks_wide, blocks_wide * 4);
    let mut texels = [0u8; 16];
    for y in 0..4 {
        let at = (by * 4 + y) * row + bx * 4;
        texels[y * 4..][..4].copy_from_slice(values.get(at..at + 4)?);
    }
    Some(texels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest palette entry for each texel: the 48 index bits and the squared error.
    fn fit(texels: &[u8; 16], palette: &[u8; 8]) -> (u64, u32) {
        let (mut bits, mut error) = (0u64, 0u32);
        for (i, &v) in texels.iter().enumerate() {
            let (mut best, mut best_error) = (0usize, u32::MAX);
            for (k, &p) in palette.iter().enumerate() {
                let d = i32::from(v) - i32::from(p);
                let e = (d * d) as u32;
                if e < best_error {
                    (best, best_error) = (k, e);
                }
            }
            bits |= (best as u64) << (3 * i);
            error += best_error;
        }
        (bits, error)
    }

    fn decode(block: &[u8; 8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        bcdec_rs::bc4(block, &mut out, 4, false);
        out
    }

    fn error(block: &[u8; 8], texels: &[u8; 16]) -> u32 {
        decode(block)
            .iter()
            .zip(texels)
            .map(|(&a, &b)| (i32::from(a) - i32::from(b)).pow(2) as u32)
            .sum()
    }

    #[test]
    fn the_palette_is_what_bcdec_decodes_for_every_endpoint_pair() {
        for e0 in 0..=255u8 {
            for e1 in 0..=255u8 {
                let p = palette(e0, e1);
                for k in 0..8u64 {
                    // All 16 texels on index k.
                    let indices = (0..16).fold(0u64, |m, i| m | (k << (3 * i)));
                    let texels = decode(&block_bytes(e0, e1, indices));
                    assert!(texels.iter().all(|&t| t == p[k as usize]), "{e0} {e1} {k}");
                }
            }
        }
    }

    /// The projected search finds an entry as near as the full search's, for every
    /// eight-value endpoint pair and texels spread over the whole range.
    #[test]
    fn the_quick_fit_is_as_good_as_the_full_one() {
        let texels: [u8; 16] = std::array::from_fn(|i| (i * 17) as u8);
        let shifted: [u8; 16] = std::array::from_fn(|i| (i * 17 + 8) as u8);
        for e0 in 1..=255u8 {
            for e1 in 0..e0 {
                for t in [&texels, &shifted] {
                    let quick = fit_eight(t, e0, e1);
                    let full = fit(t, &palette(e0, e1));
                    assert_eq!(quick.1, full.1, "{e0} {e1}");
                    assert_eq!(
                        error(&block_bytes(e0, e1, quick.0), t),
                        quick.1,
                        "{e0} {e1}: the indices give the error"
                    );
                }
            }
        }
    }

    /// On intel_tex_2's own blocks of a noisy ramp: no block gets worse, the total error
    /// falls, and every written block decodes to its reported error.
    #[test]
    fn refined_blocks_are_never_worse_and_on_the_whole_better() {
        let (w, h) = (64usize, 64usize);
        let mut state = 7u32;
        let values: Vec<u8> = (0..w * h)
            .map(|i| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let (x, y) = (i % w, i / w);
                ((x * 3 + y) as u32 % 200 + (state >> 27)) as u8
            })
            .collect();
        let encoded = intel_tex_2::bc4::compress_blocks(&intel_tex_2::RSurface {
            data: &values,
            width: w as u32,
            height: h as u32,
            stride: w as u32,
        });
        let mut refined = encoded.clone();
        refine(&mut refined, 8, 0, &values, w / 4);
        let (mut before, mut after) = (0u64, 0u64);
        for b in 0..encoded.len() / 8 {
            let texels = block_texels(&values, w / 4, b).unwrap();
            let old: [u8; 8] = encoded[b * 8..][..8].try_into().unwrap();
            let new: [u8; 8] = refined[b * 8..][..8].try_into().unwrap();
            let (e_old, e_new) = (error(&old, &texels), error(&new, &texels));
            assert!(e_new <= e_old, "block {b}: {e_old} -> {e_new}");
            before += u64::from(e_old);
            after += u64::from(e_new);
        }
        assert!(after < before, "no block improved: {before} -> {after}");
    }

    /// BC5: each half is refined against its own channel and the other half is left as
    /// it was.
    #[test]
    fn a_bc5_half_is_refined_alone() {
        let texels: [u8; 16] = [
            10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 161,
        ];
        // A poor block for the second half: endpoints 200 and 0, every index 1 (0).
        let poor = block_bytes(200, 0, 0x249249249249);
        let mut blocks = [[0x55u8; 8], poor].concat();
        refine(&mut blocks, 16, 8, &texels, 1);
        assert_eq!(&blocks[..8], &[0x55u8; 8], "the other half untouched");
        let new: [u8; 8] = blocks[8..].try_into().unwrap();
        assert!(error(&new, &texels) < error(&poor, &texels) / 10);
    }
}
