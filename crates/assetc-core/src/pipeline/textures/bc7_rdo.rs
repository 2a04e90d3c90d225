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
//! The same candidates are tried on a second encoding of the block in mode 6 alone
//! (`alternatives`), itself a candidate too: mode 6 lays out every block alike (one mode
//! byte, RGBA endpoints, then 63 index bits), so its index tails fit other mode-6 blocks
//! far more often than tails of the partitioned modes fit each other, and a block that
//! the full encoder put in a partitioned mode can still join a run. A tail is taken only
//! from a block of the same mode as the one it goes into: read against another mode's
//! layout it is noise (measured: the same sizes and PSNR, in less time; docs/performance.md).
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
//! the middle of a block (bc7enc_rdo's any-offset matches: the same curve at ten times
//! the time), skipping a candidate met again for the same block (it may come cheaper at
//! another tail length: its score is memoised instead), other byte costs: each moved
//! along the same size-for-PSNR curve, none above it, and the refit tripled the time.
//! What moved the curve: the mode-6 alternatives, a window of 256 blocks instead of 24,
//! every tail length to 13, and starting from intel_tex_2's basic preset
//! (`encode_bc::encode_bc7_rdo`).
//!
//! Deterministic: one level is walked in one fixed order on the calling thread, and each
//! decision depends only on the level's input and the blocks already decided.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// How many of the blocks just written are tried as sources (raster order, same level):
/// 4 KiB, far inside zstd's window; two rows of a 512² level. Against 128 blocks: 1.3
/// points more saving at the same PSNR for twice the time; 24 gave 4 points less.
pub const WINDOW: usize = 256;

/// Lengths of the block tails taken from an earlier block. zstd's shortest match at the
/// level used with RDO (19) is 3 bytes; BC7's index bits fill the last 4 to 8 bytes of
/// every mode (mode 6: the last 7 bytes and a bit, modes 1 and 3: 5 and 6 bytes); longer
/// tails reach into the endpoints. Every length to 13 (against 3-8, 10, 12 before): 0.4
/// points more saving at the same PSNR for a quarter more time.
pub const TAIL_LENGTHS: [usize; 11] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

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
        self.score_texels(&Self::decode(block))
    }

    fn score_texels(&self, texels: &[u8; 64]) -> Option<u64> {
        if let Some(cutoff) = self.params.alpha_cutoff {
            if Self::visible(texels, cutoff) != self.reference_visible {
                return None;
            }
        }
        Some(self.error(texels))
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

/// The mode of a BC7 block: the number of zero bits before its first set bit (8 for a
/// reserved all-zero first byte).
fn mode_of(block: &[u8; 16]) -> u32 {
    block[0].trailing_zeros()
}

/// Rewrites the BC7 `blocks` of one level in place. `alternatives` is the same level
/// encoded in mode 6 alone, block for block; `source` is the encoders' input: RGBA8,
/// padded to whole blocks, `blocks_wide * 4` texels a row, as many rows as the blocks
/// cover.
pub fn optimize_level(
    blocks: &mut [u8],
    alternatives: &[u8],
    source: &[u8],
    blocks_wide: usize,
    params: &RdoParams,
) {
    if params.lambda.is_nan() || params.lambda <= 0.0 || blocks_wide == 0 {
        return;
    }
    let count = blocks.len() / 16;
    let lambda = f64::from(params.lambda) * mean_block_error(blocks, source, blocks_wide, params);
    let mut search = Search {
        lambda,
        last_distance: None,
        own_error: 0,
        best: (0.0, [0; 16], None),
        scored: HashMap::with_hasher(BlockHashing::new()),
    };
    // The decoded texels of the blocks written so far: whole-block candidates need no
    // decode.
    let mut written: Vec<[u8; 64]> = Vec::with_capacity(count);
    // The longest tail leaves the fewest literal bytes.
    let fewest_literals = 16 - TAIL_LENGTHS[TAIL_LENGTHS.len() - 1];
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
        search.start(own, scorer.error(&own_texels));
        let earlier_block =
            |j: usize| -> Option<[u8; 16]> { blocks[j * 16..][..16].try_into().ok() };
        // Whole blocks first: the cheapest in bytes, they bound the rate of the rest.
        for j in sources(b, bx, by, blocks_wide) {
            if let Some(earlier) = earlier_block(j) {
                search.consider(&scorer, earlier, written.get(j), 0, Some((b - j) * 16));
            }
        }
        let alternative = alternatives
            .get(b * 16..b * 16 + 16)
            .and_then(|a| <[u8; 16]>::try_from(a).ok())
            .filter(|a| *a != own);
        if let Some(a) = alternative {
            search.consider(&scorer, a, None, 16, None);
        }
        for j in sources(b, bx, by, blocks_wide) {
            let Some(earlier) = earlier_block(j) else {
                continue;
            };
            let distance = Some((b - j) * 16);
            // When even the longest tail's rate loses to the best so far, no tail of
            // this source can win.
            if search.rate(fewest_literals, distance) >= search.best.0 {
                continue;
            }
            for base in std::iter::once(own).chain(alternative) {
                if mode_of(&base) != mode_of(&earlier) {
                    continue;
                }
                for tail in TAIL_LENGTHS {
                    let mut candidate = base;
                    candidate[16 - tail..].copy_from_slice(&earlier[16 - tail..]);
                    if candidate != base && candidate != earlier {
                        search.consider(&scorer, candidate, None, 16 - tail, distance);
                    }
                }
            }
        }
        let (_, chosen, distance) = search.best;
        blocks[b * 16..][..16].copy_from_slice(&chosen);
        written.push(if chosen == own {
            own_texels
        } else {
            Scorer::decode(&chosen)
        });
        if distance.is_some() {
            search.last_distance = distance;
        }
    }
}

/// The choice for one block: the best candidate so far and how candidates are priced.
struct Search {
    /// The level's lambda times its mean block error: error units per byte.
    lambda: f64,
    /// The offset (in bytes) of the last match made, for zstd's repeat-offset codes.
    last_distance: Option<usize>,
    /// The error of the block as encoded.
    own_error: u64,
    /// (cost, candidate, distance in bytes of the match it makes)
    best: (f64, [u8; 16], Option<usize>),
    /// The scores of the candidates decoded for the current block: runs of repeated
    /// blocks offer the same candidate many times over, at other distances and lengths.
    scored: HashMap<u128, Option<u64>, BlockHashing>,
}

impl Search {
    /// A new block: keeping it costs its 16 literal bytes.
    fn start(&mut self, own: [u8; 16], own_error: u64) {
        self.own_error = own_error;
        self.best = (self.lambda * 16.0, own, None);
        self.scored.clear();
    }

    fn rate(&self, literal: usize, distance: Option<usize>) -> f64 {
        let match_cost = distance.map_or(0.0, |d| match_bytes(d, self.last_distance));
        self.lambda * f64::from(literal as f32 + match_cost)
    }

    /// Prices `candidate` (decoded `texels` when known) and keeps it if it is the best.
    fn consider(
        &mut self,
        scorer: &Scorer,
        candidate: [u8; 16],
        texels: Option<&[u8; 64]>,
        literal: usize,
        distance: Option<usize>,
    ) {
        let rate = self.rate(literal, distance);
        // The error increase is never negative past the rate: skip the decode.
        if rate >= self.best.0 {
            return;
        }
        let score = match texels {
            Some(texels) => scorer.score_texels(texels),
            None => *self
                .scored
                .entry(u128::from_le_bytes(candidate))
                .or_insert_with(|| scorer.score(&candidate)),
        };
        let Some(error) = score else {
            return;
        };
        let cost = error.saturating_sub(self.own_error) as f64 + rate;
        if cost < self.best.0 {
            self.best = (cost, candidate, distance);
        }
    }
}

/// Hashes the candidate blocks of [`Search::scored`]: xxh3 (quick on 16 bytes) with a
/// seed drawn once per level, so that no crafted texture can make its candidates collide
/// (the blocks follow from the input). The map is a memo: the seed changes no output.
#[derive(Clone)]
struct BlockHashing {
    seed: u64,
}

impl BlockHashing {
    fn new() -> Self {
        Self {
            seed: RandomState::new().hash_one(0x5eed_u64),
        }
    }
}

impl BuildHasher for BlockHashing {
    type Hasher = BlockHasher;

    fn build_hasher(&self) -> BlockHasher {
        BlockHasher {
            seed: self.seed,
            hash: 0,
        }
    }
}

struct BlockHasher {
    seed: u64,
    hash: u64,
}

impl Hasher for BlockHasher {
    fn finish(&self) -> u64 {
        self.hash
    }

    fn write(&mut self, bytes: &[u8]) {
        self.hash = xxh3_64_with_seed(bytes, self.seed ^ self.hash);
    }

    fn write_u128(&mut self, value: u128) {
        self.write(&value.to_le_bytes());
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
        // 400 blocks a row, block 1000 = (200, 2): the window is the 256 blocks 744..1000,
        // above: (199..=201, 1) = 599..=601.
        assert_eq!(WINDOW, 256);
        let got: Vec<usize> = sources(1000, 200, 2, 400).collect();
        let mut want: Vec<usize> = (744..1000).rev().collect();
        want.extend([599, 600, 601]);
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
        // is. Endpoints 50 and 51 (7 bits) differ in their lowest bit only; with every
        // index 0 only the first endpoint of each channel is seen. Keeping the near block
        // costs 16 bytes: 16 lambda. Its copies of the first (a match 16 bytes back costs
        // 2): the last 11 bytes (from bit 40: the top bits of blue's first endpoint, the
        // same, then the unseen second endpoint, alpha and indices) change no texel: 0 +
        // 7 lambda; the last 12 or 13 also move blue's first endpoint (100 for 102, 16 x
        // 2^2 = 64 more error): 64 + 6 or 5 lambda; the whole block moves all three
        // channels: 192 + 2 lambda. Shorter tails are equal to the block's own. At lambda
        // 1 the 11-byte tail wins (7 against 16) and nothing seen changes; at lambda 50
        // the whole block (292) beats it (350), the 13-byte tail (314) and keeping (800).
        let mut kept = blocks.clone();
        optimize_level(&mut kept, &[], &source, 3, &params(1.0));
        assert_eq!(
            &kept[21..32],
            &a[5..],
            "the first's 11-byte tail at lambda 1"
        );
        assert_eq!(&kept[16..21], &b[..5], "and the block's own head");
        assert_eq!(
            texels(&kept[16..32].try_into().unwrap()),
            texels(&b),
            "no texel changed"
        );
        optimize_level(&mut blocks, &[], &source, 3, &params(50.0));
        assert_eq!(&blocks[16..32], &a, "the whole first block at lambda 50");
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
        optimize_level(&mut blocks, &[], &[0u8; 2 * 64], 2, &params(0.0));
        assert_eq!(blocks, before);
    }

    #[test]
    fn the_mode_is_the_count_of_zero_bits_before_the_first_set_bit() {
        assert_eq!(mode_of(&flat_block(10)), 6);
        let mut block = [0u8; 16];
        for mode in 0..8 {
            block[0] = 1 << mode;
            assert_eq!(mode_of(&block), mode);
        }
        block[0] = 0;
        assert_eq!(mode_of(&block), 8, "reserved");
    }

    /// A 64x64 image of ripples, soft edges and a little noise, so that the encoder uses
    /// several modes: every block the pass writes is the encoder's block, its mode-6
    /// alternative, a whole earlier block, or one of the first two with the tail of an
    /// earlier block of its own mode; and some blocks come from the alternatives.
    #[test]
    fn every_block_written_is_a_candidate_the_pass_may_make() {
        let (w, h) = (64u32, 64u32);
        let mut state = 12345u32;
        let mut source = Vec::new();
        for y in 0..h {
            for x in 0..w {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let noise = f32::from((state >> 24) as u8 % 4);
                let (fx, fy) = (x as f32, y as f32);
                let r = 128.0 + 90.0 * (fx / 5.0).sin() * (fy / 7.0).cos() + noise;
                let g = if (fx + 0.7 * fy) % 23.0 < 11.0 {
                    60.0
                } else {
                    190.0
                } + noise;
                let b = 100.0 + fy * 2.0 - noise;
                source.extend([r as u8, g as u8, b as u8, 255]);
            }
        }
        let surface = intel_tex_2::RgbaSurface {
            data: &source,
            width: w,
            height: h,
            stride: w * 4,
        };
        let encoded =
            intel_tex_2::bc7::compress_blocks(&intel_tex_2::bc7::opaque_basic_settings(), &surface);
        let mut mode6 = intel_tex_2::bc7::opaque_very_fast_settings();
        mode6.mode_selection = [false, false, false, true];
        let alternatives = intel_tex_2::bc7::compress_blocks(&mode6, &surface);
        let modes: std::collections::BTreeSet<u32> = encoded
            .chunks_exact(16)
            .map(|b| mode_of(b.try_into().unwrap()))
            .collect();
        assert!(
            modes.len() >= 3,
            "the test image uses several modes: {modes:?}"
        );
        let mut blocks = encoded.clone();
        optimize_level(&mut blocks, &alternatives, &source, 16, &params(0.3));
        let block =
            |data: &[u8], i: usize| -> [u8; 16] { data[i * 16..][..16].try_into().unwrap() };
        let (mut changed, mut from_alternative) = (0, 0);
        for b in 0..blocks.len() / 16 {
            let (out, own, alt) = (
                block(&blocks, b),
                block(&encoded, b),
                block(&alternatives, b),
            );
            if out == own {
                continue;
            }
            changed += 1;
            let earlier = |j: usize| block(&blocks, j);
            let whole = (0..b).any(|j| earlier(j) == out);
            let tail = [own, alt].iter().any(|base| {
                (0..b).any(|j| {
                    mode_of(base) == mode_of(&earlier(j))
                        && TAIL_LENGTHS.iter().any(|&t| {
                            out[..16 - t] == base[..16 - t] && out[16 - t..] == earlier(j)[16 - t..]
                        })
                })
            });
            if out[..8] == alt[..8] && own[..8] != alt[..8] {
                from_alternative += 1;
            }
            assert!(
                out == alt || whole || tail,
                "block {b} is no candidate of the pass: {out:02x?}"
            );
        }
        assert!(
            changed > 0 && from_alternative > 0,
            "{changed} changed, {from_alternative} from the mode-6 encoding"
        );
    }
}
