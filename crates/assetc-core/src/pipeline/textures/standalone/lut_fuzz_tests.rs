//! Seeded mutations of `.cube` LUT texts through the parser and the encoder: every case
//! returns (a LUT or a line-numbered error), none panics, and whatever parses is what the
//! encoder writes, as a valid 3D KTX2 of the size the text declares.

use super::lut::{encode_lut, parse_cube_lut};
use crate::formats::ktx2;

/// xorshift64*: seeded, the same mutations on every machine.
fn next(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

fn pick(state: &mut u64, n: usize) -> usize {
    (next(state) % n.max(1) as u64) as usize
}

/// Text a hostile or broken `.cube` is likely to hold where a number or keyword was.
const SPLICES: [&str; 14] = [
    "LUT_3D_SIZE 256\n",
    "LUT_3D_SIZE 4294967296\n",
    "LUT_3D_SIZE -1\n",
    "LUT_1D_SIZE 2\n",
    "DOMAIN_MIN 1 1 1\n",
    "DOMAIN_MAX 0 0 0\n",
    "LUT_3D_INPUT_RANGE 2 1\n",
    "TITLE \"",
    "NaN inf -inf\n",
    "1e39 0 0\n",
    "\u{feff}",
    "\r\n",
    "# ",
    "é",
];

/// A mutation of `seed` on character boundaries: a cut, a line dropped or repeated, or a
/// splice of one of [`SPLICES`].
fn mutate(seed: &str, state: &mut u64) -> String {
    let lines: Vec<&str> = seed.split_inclusive('\n').collect();
    match next(state) % 4 {
        0 => {
            let mut at = pick(state, seed.len());
            while !seed.is_char_boundary(at) {
                at -= 1;
            }
            seed[..at].to_owned()
        }
        1 => {
            let drop = pick(state, lines.len());
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, l)| *l)
                .collect()
        }
        2 if !lines.is_empty() => {
            let again = pick(state, lines.len());
            let mut out: Vec<&str> = lines.clone();
            out.insert(pick(state, lines.len()), lines[again]);
            out.concat()
        }
        _ => {
            let mut at = pick(state, seed.len());
            while !seed.is_char_boundary(at) {
                at -= 1;
            }
            let splice = SPLICES[pick(state, SPLICES.len())];
            format!("{}{splice}{}", &seed[..at], &seed[at..])
        }
    }
}

fn seed_text() -> String {
    let mut s = String::from("TITLE \"seed\"\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\nLUT_3D_SIZE 3\n");
    for b in 0..3 {
        for g in 0..3 {
            for r in 0..3 {
                s += &format!("{} {} {}\n", r as f32 / 2.0, g as f32 / 2.0, b as f32 / 2.0);
            }
        }
    }
    s
}

#[test]
fn mutated_cube_luts_parse_or_fail_on_a_line_and_never_panic() {
    let seed = seed_text();
    let line_count = seed.lines().count() + 2;
    let (mut parsed, mut refused) = (0, 0);
    let mut state = 0x5eed_c0be_u64;
    for case in 0..2_000 {
        // Mutations compound: every fourth case starts again from the seed.
        let mut text = seed.clone();
        for _ in 0..1 + case % 4 {
            text = mutate(&text, &mut state);
        }
        match parse_cube_lut(&text) {
            Ok(lut) => {
                parsed += 1;
                let n = lut.size as usize;
                assert_eq!(lut.values.len(), n * n * n, "case {case}:\n{text}");
                let bytes = encode_lut(&text).unwrap_or_else(|e| {
                    panic!("case {case}: parsed but not encoded ({e:?}):\n{text}")
                });
                let problems = ktx2::validate(&bytes);
                assert!(problems.is_empty(), "case {case}: {problems:?}");
                let k = ktx2::read(&bytes).expect("a valid KTX2 reads");
                assert_eq!((k.width, k.height, k.depth), (lut.size, lut.size, lut.size));
            }
            Err(e) => {
                refused += 1;
                // The line named is one of the text's (spliced lines add a few).
                let lines = text.lines().count().max(1) + 1;
                assert!(
                    (1..=lines.max(line_count)).contains(&e.line),
                    "case {case}: line {} of {lines}: {}",
                    e.line,
                    e.message
                );
                assert!(!e.message.is_empty());
            }
        }
    }
    // Both outcomes happen, or the mutations test nothing.
    assert!(
        parsed > 20 && refused > 200,
        "{parsed} parsed, {refused} refused"
    );
}
