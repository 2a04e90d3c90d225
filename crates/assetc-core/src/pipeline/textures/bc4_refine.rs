//! Endpoint refinement of BC4 blocks: BC4 textures and both halves of BC5.
//!
//! Written here because intel_tex_2's BC4 and BC5 kernels take no settings and stop
//! short of bc7enc_rdo's rgbcx (BC4 42.84 against 43.00 dB, BC5 normal maps 0.370°
//! against 0.322° on FlightHelmet: docs/performance.md), and no other crate at hand
//! encodes BC4 better. Each block keeps the cheapest of: the encoder's endpoints with
//! each texel's index chosen again, the block's own minimum and maximum, and endpoints
//! refitted by least squares to the cheapest eight-value fit's indices (up to
//! [`REFITS`] times, rounded each way).
//!
//! "Cheapest" is over three readers at once (see [`Readings`]): the same block reads a
//! level apart in the in-between values depending on whether a reader rounds, truncates
//! or keeps the exact fraction, and on smooth data such as normal maps a block fitted to
//! one of them loses noticeably on the others.

/// The eight values of a BC4 block with endpoints `e0`, `e1` (bcdec's rounding).
#[inline(always)]
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

/// What index `k` of a block reads as, in the three ways readers compute it: the exact
/// fraction the D3D specification gives (what GPUs approximate; kept times 35 so that the
/// sevenths and fifths are whole), truncated to 8 bits (texture2ddecoder, rgbcx's own
/// reference), and rounded (bcdec, our preview). Blocks are chosen for the sum of the
/// three squared errors: fitted to one reader alone, a block loses on the others
/// (docs/textures.md).
#[derive(Clone, Copy)]
struct Readings {
    exact35: [i32; 8],
    floor: [i32; 8],
    round: [i32; 8],
}

#[inline(always)]
fn readings(e0: u8, e1: u8) -> Readings {
    let (a, b) = (i32::from(e0), i32::from(e1));
    let mut r = Readings {
        exact35: [35 * a, 35 * b, 0, 0, 0, 0, 0, 35 * 255],
        floor: [a, b, 0, 0, 0, 0, 0, 255],
        round: palette(e0, e1).map(i32::from),
    };
    if e0 > e1 {
        for k in 2..8 {
            let sevenths = (8 - k as i32) * a + (k as i32 - 1) * b;
            (r.exact35[k], r.floor[k]) = (5 * sevenths, sevenths / 7);
        }
    } else {
        for k in 2..6 {
            let fifths = (6 - k as i32) * a + (k as i32 - 1) * b;
            (r.exact35[k], r.floor[k]) = (7 * fifths, fifths / 5);
        }
    }
    r
}

/// The cheapest index for each texel (either mode): the 48 index bits and the block's
/// cost, the three readings' squared errors summed, times 35².
///
/// Per texel value v and index k that cost is 3675 v² - 2 v A_k + B_k (A_k and B_k from
/// the readings), so the search compares B_k - 2 v A_k alone: a multiply and a subtract
/// for each of the eight indices, on several texels at a time in f32 (SSE2, the baseline
/// x86-64 target, has no 32-bit integer multiply of vectors; the same code is compiled
/// for AVX2 too and picked when the CPU has it: the same IEEE operations without fused
/// multiply-adds, so the same bytes). f32 rounds those terms (up to 4.8e8) to about 0.03
/// of a squared level, so a near tie may take the other index; the block's cost is then
/// summed exactly in integers, and blocks are compared by that.
fn fit(texels: &[u8; 16], e0: u8, e1: u8) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has just been found to support AVX2.
        return unsafe { fit_avx2(texels, e0, e1) };
    }
    fit_any_target(texels, e0, e1)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fit_avx2(texels: &[u8; 16], e0: u8, e1: u8) -> (u64, u64) {
    fit_any_target(texels, e0, e1)
}

#[inline(always)]
fn fit_any_target(texels: &[u8; 16], e0: u8, e1: u8) -> (u64, u64) {
    let r = readings(e0, e1);
    let (mut slope, mut offset) = ([0i32; 8], [0i32; 8]);
    for k in 0..8 {
        let (f, n, x) = (r.floor[k], r.round[k], r.exact35[k]);
        slope[k] = 2 * (1225 * (f + n) + 35 * x);
        offset[k] = 1225 * (f * f + n * n) + x * x;
    }
    let (slope_f, offset_f) = (slope.map(|s| s as f32), offset.map(|o| o as f32));
    let mut best = [0usize; 16];
    for (lanes, chosen) in texels.chunks_exact(4).zip(best.chunks_exact_mut(4)) {
        let v: [f32; 4] = std::array::from_fn(|l| f32::from(lanes[l]));
        let mut best_cost = [f32::MAX; 4];
        let mut best_k = [0f32; 4];
        for k in 0..8 {
            for l in 0..4 {
                let c = offset_f[k] - v[l] * slope_f[k];
                let less = c < best_cost[l];
                best_cost[l] = if less { c } else { best_cost[l] };
                best_k[l] = if less { k as f32 } else { best_k[l] };
            }
        }
        for (out, k) in chosen.iter_mut().zip(best_k) {
            *out = k as usize;
        }
    }
    let (mut bits, mut total) = (0u64, 0u64);
    for (i, (&k, &v)) in best.iter().zip(texels).enumerate() {
        let v = i32::from(v);
        bits |= (k as u64) << (3 * i);
        // Each term within i32 (above), the sum a texel's cost: >= 0, <= 2.4e8.
        total += (offset[k] - v * slope[k] + 3675 * v * v) as u64;
    }
    (bits, total)
}

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

/// Least-squares refits per block at most. Each starts from the cheapest eight-value
/// fit so far and the loop stops as soon as a refit finds nothing cheaper, so most blocks
/// take one or two: three instead of two cost no measurable time and gain 0.05 dB on
/// FlightHelmet's occlusion maps (docs/textures.md).
const REFITS: usize = 3;

/// The candidates of one block tried so far.
struct Search<'a> {
    texels: &'a [u8; 16],
    /// The cheapest block: cost and bytes.
    best: (u64, [u8; 8]),
    /// The cheapest eight-value fit (cost, indices): what the refits start from, as they
    /// read indices as eight-value positions.
    best_eight: Option<(u64, u64)>,
    /// Endpoint pairs fitted so far (a refit often lands on one again): at most the
    /// block's own, the min-max pair and four a refit.
    tried: [(u8, u8); 2 + 4 * REFITS],
    tried_count: usize,
}

impl Search<'_> {
    /// Tries the eight-value block with endpoints `e0 > e1` (else nothing).
    fn try_endpoints(&mut self, e0: u8, e1: u8) {
        if e0 <= e1 || self.tried[..self.tried_count].contains(&(e0, e1)) {
            return;
        }
        self.tried[self.tried_count] = (e0, e1);
        self.tried_count += 1;
        let (indices, cost) = fit(self.texels, e0, e1);
        if cost < self.best.0 {
            self.best = (cost, block_bytes(e0, e1, indices));
        }
        if self.best_eight.is_none_or(|(c, _)| cost < c) {
            self.best_eight = Some((cost, indices));
        }
    }
}

/// The best of `block` and its candidates for `texels`: the block's own endpoints with
/// each texel's cheapest index, the block's minimum and maximum, and least-squares
/// refits (up to [`REFITS`] times, rounded each way).
fn refine_block(block: [u8; 8], texels: &[u8; 16]) -> [u8; 8] {
    let (own_indices, own_cost) = fit(texels, block[0], block[1]);
    if own_cost == 0 {
        return block;
    }
    let mut search = Search {
        texels,
        best: (own_cost, block_bytes(block[0], block[1], own_indices)),
        best_eight: (block[0] > block[1]).then_some((own_cost, own_indices)),
        tried: [(block[0], block[1]); 2 + 4 * REFITS],
        tried_count: 1,
    };
    let (low, high) = (
        *texels.iter().min().unwrap_or(&0),
        *texels.iter().max().unwrap_or(&0),
    );
    search.try_endpoints(high, low);
    for _ in 0..REFITS {
        let Some((start, (e0, e1))) = search
            .best_eight
            .and_then(|(_, indices)| Some((indices, least_squares(texels, indices)?)))
        else {
            break;
        };
        let clamp = |v: f32| v.clamp(0.0, 255.0);
        let (e0, e1) = (clamp(e0), clamp(e1));
        for a in [e0.floor(), e0.ceil()] {
            for b in [e1.floor(), e1.ceil()] {
                search.try_endpoints(a as u8, b as u8);
            }
        }
        // The next refit would start from the same indices and find the same pairs.
        if search.best_eight.map(|(_, i)| i) == Some(start) {
            break;
        }
    }
    search.best.1
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

    fn decode(block: &[u8; 8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        bcdec_rs::bc4(block, &mut out, 4, false);
        out
    }

    /// bcdec's squared error.
    fn error(block: &[u8; 8], texels: &[u8; 16]) -> u32 {
        decode(block)
            .iter()
            .zip(texels)
            .map(|(&a, &b)| (i32::from(a) - i32::from(b)).pow(2) as u32)
            .sum()
    }

    /// Each texel's squared error for the three readers, times 35²: bcdec's decode
    /// (rounded), and the specification's fraction truncated and exact, computed here
    /// from the format's formula rather than from [`readings`].
    fn reader_errors(block: &[u8; 8], texels: &[u8; 16]) -> [u64; 3] {
        let rounded = decode(block);
        let indices = u64::from_le_bytes(*block) >> 16;
        let (e0, e1) = (i64::from(block[0]), i64::from(block[1]));
        let mut sums = [0u64; 3];
        for (i, &v) in texels.iter().enumerate() {
            let k = ((indices >> (3 * i)) & 7) as i64;
            let (numerator, denominator) = match (e0 > e1, k) {
                (_, 0) => (e0, 1),
                (_, 1) => (e1, 1),
                (true, k) => ((8 - k) * e0 + (k - 1) * e1, 7),
                (false, 6) => (0, 1),
                (false, 7) => (255, 1),
                (false, k) => ((6 - k) * e0 + (k - 1) * e1, 5),
            };
            let v = i64::from(v);
            let exact35 = numerator * 35 / denominator;
            sums[0] += (1225 * (v - i64::from(rounded[i])).pow(2)) as u64;
            sums[1] += (1225 * (v - numerator / denominator).pow(2)) as u64;
            sums[2] += (35 * v - exact35).pow(2) as u64;
        }
        sums
    }

    fn three_reader_cost(block: &[u8; 8], texels: &[u8; 16]) -> u64 {
        reader_errors(block, texels).iter().sum()
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

    /// For every endpoint pair (both modes): the cost `fit` reports is what the three
    /// readers make of the block it describes, and each texel's index is the cheapest
    /// of the eight but for f32's near ties (at most 128, a tenth of a squared level, a
    /// texel above the cheapest). Texel values move with the pair so that all 256 occur.
    #[test]
    fn fit_reports_the_readers_cost_and_picks_the_cheapest_indices() {
        for e0 in 0..=255u8 {
            for e1 in 0..=255u8 {
                let shift = (usize::from(e0) + usize::from(e1)) % 17;
                let texels: [u8; 16] = std::array::from_fn(|i| (i * 17 + shift).min(255) as u8);
                let (bits, cost) = fit(&texels, e0, e1);
                let block = block_bytes(e0, e1, bits);
                assert_eq!(cost, three_reader_cost(&block, &texels), "{e0} {e1}");
                let cheapest: u64 = texels
                    .iter()
                    .map(|&v| {
                        (0..8u64)
                            .map(|k| {
                                let all_k = (0..16).fold(0u64, |m, i| m | (k << (3 * i)));
                                three_reader_cost(&block_bytes(e0, e1, all_k), &[v; 16]) / 16
                            })
                            .min()
                            .unwrap_or(0)
                    })
                    .sum();
                assert!(
                    cost >= cheapest && cost <= cheapest + 16 * 128,
                    "{e0} {e1}: {cost} {cheapest}"
                );
            }
        }
    }

    /// On intel_tex_2's own blocks of a noisy ramp: no block costs more over the three
    /// readers, the total falls, and so does each reader's own error.
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
        let (mut before, mut after) = ([0u64; 3], [0u64; 3]);
        for b in 0..encoded.len() / 8 {
            let texels = block_texels(&values, w / 4, b).unwrap();
            let old: [u8; 8] = encoded[b * 8..][..8].try_into().unwrap();
            let new: [u8; 8] = refined[b * 8..][..8].try_into().unwrap();
            let (e_old, e_new) = (reader_errors(&old, &texels), reader_errors(&new, &texels));
            assert!(
                e_new.iter().sum::<u64>() <= e_old.iter().sum::<u64>(),
                "block {b}: {e_old:?} -> {e_new:?}"
            );
            for r in 0..3 {
                before[r] += e_old[r];
                after[r] += e_new[r];
            }
        }
        for r in 0..3 {
            assert!(after[r] < before[r], "reader {r}: {before:?} -> {after:?}");
        }
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
