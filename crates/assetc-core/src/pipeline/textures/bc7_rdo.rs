//! Rate-distortion optimisation of BC7 blocks (`texture.bc7_rdo_lambda`): blocks rewritten
//! to repeat bytes zstd has already seen, so that the file is smaller after zstd at a
//! bounded loss of quality.
//!
//! Written here because no crate at hand has such a pass: bc7enc_rdo's RDO post-pass is
//! C++ that `ctt`'s `bc7enc-rdo` backend does not build (it wraps the ISPC block encoder
//! only), intel_tex_2 has none, and the PyPI bindings of bc7enc expose the block
//! encoders only. This is a simpler pass of the same family, over intel_tex_2's blocks.
//!
//! Why it works: zstd sees a BC7 block as 16 nearly random literal bytes, but codes a run
//! of bytes it has seen recently as a match of a few bits. Every BC7 mode stores its index
//! bits at the end of the block, and neighbouring blocks of a smooth texture often fit
//! similar index patterns, so the pass tries, for each block in raster order:
//!   - a whole earlier block, verbatim (one of the last [`WINDOW`] blocks of the level, or
//!     the three blocks of the row above that touch it);
//!   - the block as encoded with its last `L` bytes ([`TAIL_LENGTHS`]) taken from such a
//!     block at the same place: mostly index bits, read against this block's endpoints;
//!   - the block as encoded.
//!
//! It keeps the candidate of least `error increase + lambda * mean error * estimated
//! bytes`: the error is the squared difference of the decoded block (bcdec) against the
//! encoder's input, summed over the 16 texels and the weighted channels (8-bit units);
//! `mean error` is the mean of that error over the level's blocks as encoded, so one
//! lambda costs about the same PSNR on a texture encoded at 42 dB as on one at 53 dB
//! (with an absolute lambda the accurate textures lost several dB for little); the bytes
//! are the literal bytes left plus the match's cost ([`match_bytes`]). The encoder's own
//! block counts 16 bytes and no error increase, so lambda = 0 keeps every block.
//!
//! Tried and not kept (docs/textures.md has the figures): refitting the endpoints of a
//! block to the index bits it copied (modes 1, 3, 6), byte runs copied from the head or
//! the middle of a block, a larger window, other byte costs: each moved along the same
//! size-for-PSNR curve, none above it, and the refit tripled the time.
//!
//! Deterministic: one level is walked in one fixed order on the calling thread, and each
//! decision depends only on the level's input and the blocks already decided.

/// How many of the blocks just written are tried as sources (raster order, same level).
pub const WINDOW: usize = 24;

/// Lengths of the block tails taken from an earlier block. zstd's shortest match at the
/// level used with RDO (19) is 3 bytes; BC7's index bits fill the last 4 to 8 bytes of
/// every mode (mode 6: the last 7 bytes and a bit, modes 1 and 3: 5 and 6 bytes).
pub const TAIL_LENGTHS: [usize; 8] = [3, 4, 5, 6, 7, 8, 10, 12];

/// What the pass needs to know besides the blocks.
#[derive(Debug, Clone, Copy)]
pub struct RdoParams {
    /// The error increase accepted per byte saved, as a fraction of the level's mean
    /// block error. 0 keeps every block.
    pub lambda: f32,
    /// Weight of R, G, B, A in the error (A is 0 for a texture without alpha: its decoded
    /// alpha is 255 whatever the block).
    pub weights: [u32; 4],
    /// MASK materials: the alpha cutoff as an 8-bit threshold (texel visible when alpha
    /// is above it). A candidate that moves any texel to the other side of the cutoff than
    /// the encoder's block put it is refused, so RDO never changes what is cut out.
    pub alpha_cutoff: Option<u8>,
}

/// Estimated bytes zstd spends on a match `distance` bytes back: the offset's bits plus a
/// little for the length; a repeat of the previous match's offset costs half a byte
/// (zstd keeps the last offsets as cheap "repeat" codes, so runs of one offset are cheap).
fn match_bytes(distance: usize, previous: Option<usize>) -> f32 {
    if previous == Some(distance) {
        0.5
    } else {
        1.5 + (distance as f32).log2() / 8.0
    }
}

/// The 16 RGBA8 texels of block (`bx`, `by`) of an image `blocks_wide * 4` texels wide.
fn source_block(source: &[u8], blocks_wide: usize, bx: usize, by: usize) -> [u8; 64] {
    let stride = blocks_wide * 16;
    let mut out = [0u8; 64];
    for row in 0..4 {
        let at = (by * 4 + row) * stride + bx * 16;
        out[row * 16..][..16].copy_from_slice(&source[at..at + 16]);
    }
    out
}

/// A block's weighted squared error against `source`, or `None` when it moves a texel
/// across the alpha cutoff differently from the encoder's block (`reference_visible`).
struct Scorer<'a> {
    source: [u8; 64],
    reference_visible: u16,
    params: &'a RdoParams,
}

impl Scorer<'_> {
    fn decode(block: &[u8]) -> [u8; 64] {
        let mut texels = [0u8; 64];
        bcdec_rs::bc7(block, &mut texels, 16);
        texels
    }

    fn visible(texels: &[u8; 64], cutoff: u8) -> u16 {
        (0..16).fold(0, |m, i| m | (u16::from(texels[i * 4 + 3] > cutoff) << i))
    }

    fn error(&self, texels: &[u8; 64]) -> u64 {
        let w = self.params.weights;
        let mut sum = 0u64;
        for (t, s) in texels.chunks_exact(4).zip(self.source.chunks_exact(4)) {
            for c in 0..4 {
                let d = i32::from(t[c]) - i32::from(s[c]);
                sum += u64::from((d * d) as u32 * w[c]);
            }
        }
        sum
    }

    fn score(&self, block: &[u8]) -> Option<u64> {
        let texels = Self::decode(block);
        if let Some(cutoff) = self.params.alpha_cutoff {
            if Self::visible(&texels, cutoff) != self.reference_visible {
                return None;
            }
        }
        Some(self.error(&texels))
    }
}

/// The mean weighted squared error of a level's blocks as encoded (at least 1, so that a
/// level encoded exactly still accepts exact repeats and nothing else).
fn mean_block_error(blocks: &[u8], source: &[u8], blocks_wide: usize, params: &RdoParams) -> f64 {
    let count = blocks.len() / 16;
    let total: u64 = (0..count)
        .map(|b| {
            let scorer = Scorer {
                source: source_block(source, blocks_wide, b % blocks_wide, b / blocks_wide),
                reference_visible: 0,
                params,
            };
            scorer.error(&Scorer::decode(&blocks[b * 16..][..16]))
        })
        .sum();
    (total as f64 / count.max(1) as f64).max(1.0)
}

/// Rewrites the BC7 `blocks` of one level in place. `source` is the encoder's input:
/// RGBA8, padded to whole blocks, `blocks_wide * 4` texels a row, as many rows as the
/// blocks cover.
pub fn optimize_level(blocks: &mut [u8], source: &[u8], blocks_wide: usize, params: &RdoParams) {
    if params.lambda.is_nan() || params.lambda <= 0.0 || blocks_wide == 0 {
        return;
    }
    let count = blocks.len() / 16;
    let lambda = f64::from(params.lambda) * mean_block_error(blocks, source, blocks_wide, params);
    // The offset (in bytes) of the last match made, for zstd's repeat-offset codes.
    let mut last_distance: Option<usize> = None;
    for b in 0..count {
        let (bx, by) = (b % blocks_wide, b / blocks_wide);
        let own: [u8; 16] = match blocks[b * 16..][..16].try_into() {
            Ok(block) => block,
            Err(_) => return,
        };
        let own_texels = Scorer::decode(&own);
        let scorer = Scorer {
            source: source_block(source, blocks_wide, bx, by),
            reference_visible: params
                .alpha_cutoff
                .map_or(0, |c| Scorer::visible(&own_texels, c)),
            params,
        };
        let own_error = scorer.error(&own_texels);
        // (cost, candidate, distance in bytes of the match it makes)
        let mut best: (f64, [u8; 16], Option<usize>) = (lambda * 16.0, own, None);
        let mut consider = |candidate: [u8; 16], literal: usize, distance: usize| {
            let rate = lambda * f64::from(literal as f32 + match_bytes(distance, last_distance));
            // The error increase is never negative past the rate: skip the decode.
            if rate >= best.0 {
                return;
            }
            let Some(error) = scorer.score(&candidate) else {
                return;
            };
            let cost = error.saturating_sub(own_error) as f64 + rate;
            if cost < best.0 {
                best = (cost, candidate, Some(distance));
            }
        };
        for j in sources(b, bx, by, blocks_wide) {
            let earlier: [u8; 16] = match blocks[j * 16..][..16].try_into() {
                Ok(block) => block,
                Err(_) => continue,
            };
            let distance = (b - j) * 16;
            consider(earlier, 0, distance);
            for tail in TAIL_LENGTHS {
                let mut candidate = own;
                candidate[16 - tail..].copy_from_slice(&earlier[16 - tail..]);
                if candidate != own && candidate != earlier {
                    consider(candidate, 16 - tail, distance);
                }
            }
        }
        let (_, chosen, distance) = best;
        blocks[b * 16..][..16].copy_from_slice(&chosen);
        if distance.is_some() {
            last_distance = distance;
        }
    }
}

/// The earlier blocks tried for block `b` (at `bx`, `by`): the last [`WINDOW`] in raster
/// order, then the ones above-left, above and above-right when the window misses them.
fn sources(b: usize, bx: usize, by: usize, blocks_wide: usize) -> impl Iterator<Item = usize> {
    let recent = b.saturating_sub(WINDOW)..b;
    let above = (by > 0)
        .then(|| {
            let row = (by - 1) * blocks_wide;
            (bx.saturating_sub(1)..(bx + 2).min(blocks_wide)).map(move |x| row + x)
        })
        .into_iter()
        .flatten()
        .filter(move |&j| j < b.saturating_sub(WINDOW));
    recent.rev().chain(above)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(lambda: f32) -> RdoParams {
        RdoParams {
            lambda,
            weights: [1, 1, 1, 0],
            alpha_cutoff: None,
        }
    }

    /// Mode 6 block of one colour: mode bit 6 set, all endpoints `v` (7 bits), indices 0.
    fn flat_block(v: u8) -> [u8; 16] {
        let mut bits: u128 = 1 << 6;
        for (i, shift) in (0..8).map(|i| (i, 7 + i * 7)) {
            let value = if i < 6 { u128::from(v >> 1) } else { 127 };
            bits |= value << shift;
        }
        bits.to_le_bytes()
    }

    #[test]
    fn sources_are_the_window_then_the_row_above() {
        // 40 blocks a row, block 100 = (20, 2): window 76..100, above (19..=21, 1) = 59..=61.
        let got: Vec<usize> = sources(100, 20, 2, 40).collect();
        let mut want: Vec<usize> = (76..100).rev().collect();
        want.extend([59, 60, 61]);
        assert_eq!(got, want);
        // Inside the window already: not repeated.
        let got: Vec<usize> = sources(12, 2, 1, 10).collect();
        assert_eq!(got, (0..12).rev().collect::<Vec<_>>());
    }

    #[test]
    fn a_block_close_to_an_earlier_one_is_replaced_and_a_distant_one_kept() {
        let (a, b, far) = (flat_block(100), flat_block(102), flat_block(200));
        let texels = |blk: &[u8; 16]| Scorer::decode(blk);
        // Source: the three blocks' own colours side by side, one block row of 3.
        let mut source = vec![0u8; 3 * 16 * 4];
        for (bx, blk) in [a, b, far].iter().enumerate() {
            let t = texels(blk);
            for row in 0..4 {
                source[row * 48 + bx * 16..][..16].copy_from_slice(&t[row * 16..][..16]);
            }
        }
        let mut blocks: Vec<u8> = [a, b, far].concat();
        // The blocks are exact, so the mean error is its floor of 1 and lambda counts as
        // is. Keeping the near block costs 16 bytes (lambda x 16). Its cheapest copy of the
        // first: the last 12 bytes (blue, alpha, indices: blue 100 for 102, 16 texels x
        // 2^2 = 64 more error) with 4 literal bytes and a match of 2: 64 + 6 lambda; the
        // whole block: 192 + 2 lambda. At lambda 1 neither beats 16; at lambda 20 the
        // tail (184) beats the whole block (232) and keeping it (320).
        let mut kept = blocks.clone();
        optimize_level(&mut kept, &source, 3, &params(1.0));
        assert_eq!(&kept[16..32], &b, "kept at lambda 1");
        optimize_level(&mut blocks, &source, 3, &params(20.0));
        assert_eq!(
            &blocks[20..32],
            &a[4..],
            "the near block repeats the first's tail"
        );
        assert_eq!(&blocks[16..20], &b[..4], "and keeps its head");
        // The far block keeps its colour. (Its alpha bits may change: this source has
        // alpha weight 0, so a tail that only moves alpha is a free saving.)
        let rgb =
            |t: [u8; 64]| -> Vec<u8> { t.chunks_exact(4).flat_map(|p| p[..3].to_vec()).collect() };
        assert_eq!(
            rgb(texels(&blocks[32..48].try_into().unwrap())),
            rgb(texels(&far))
        );
    }

    #[test]
    fn lambda_zero_keeps_every_block() {
        let mut blocks: Vec<u8> = [flat_block(10), flat_block(10)].concat();
        let before = blocks.clone();
        optimize_level(&mut blocks, &[0u8; 2 * 64], 2, &params(0.0));
        assert_eq!(blocks, before);
    }
}
