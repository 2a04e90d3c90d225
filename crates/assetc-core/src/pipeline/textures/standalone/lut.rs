//! Colour LUTs: an Adobe/Resolve `.cube` 3D LUT parsed and written as a 3D `.ktx2`.
//!
//! Grammar accepted, line by line (LF or CRLF, a UTF-8 byte order mark ignored):
//! blank lines and lines starting with `#` anywhere; before the data, in any order and
//! each at most once, `TITLE "text"`, `LUT_3D_SIZE N` (2 <= N <= 256), `DOMAIN_MIN r g b`
//! and `DOMAIN_MAX r g b` (defaults 0 0 0 and 1 1 1, max above min per channel), and
//! Resolve's `LUT_3D_INPUT_RANGE min max` (the same domain for all three channels);
//! then exactly N³ lines of three finite numbers, red varying fastest, then green, then
//! blue. Anything else (a 1D LUT, an unknown keyword such as Resolve's video-range flags,
//! whose meaning would be lost) is an error naming its line.

use crate::formats::ktx2::{self, Ktx2Image, PixelFormat};
use thiserror::Error;

/// Smallest and largest `LUT_3D_SIZE` accepted.
pub const MIN_LUT_SIZE: u32 = 2;
pub const MAX_LUT_SIZE: u32 = 256;

/// zstd level of LUT textures. Below level 15 zstd's match finders find almost nothing in
/// a LUT's gradients (a 33³ LUT stays at 75 % of its size); level 19 brings it to 17 %
/// (docs/textures.md). LUTs are few and small, so the deepest usual level is worth it.
const ZSTD_LEVEL_LUT: i32 = super::super::ZSTD_LEVEL_RDO;

/// A parsed `.cube` 3D LUT.
#[derive(Debug, Clone, PartialEq)]
pub struct CubeLut {
    pub title: Option<String>,
    /// Entries per axis (`LUT_3D_SIZE`).
    pub size: u32,
    pub domain_min: [f32; 3],
    pub domain_max: [f32; 3],
    /// size³ output colours, red index fastest, then green, then blue.
    pub values: Vec<[f32; 3]>,
}

/// A malformed `.cube` file: the 1-based line at fault and what is wrong there. Line 0
/// is not about a line (the `.ktx2` could not be written).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {message}")]
pub struct LutError {
    pub line: usize,
    pub message: String,
}

/// The keywords understood (LUT_1D_SIZE only to refuse it).
const KEYWORDS: [&str; 6] = [
    "TITLE",
    "LUT_3D_SIZE",
    "LUT_1D_SIZE",
    "DOMAIN_MIN",
    "DOMAIN_MAX",
    "LUT_3D_INPUT_RANGE",
];

fn err(line: usize, message: impl Into<String>) -> LutError {
    LutError {
        line,
        message: message.into(),
    }
}

/// Parses a `.cube` 3D LUT (the grammar is in the module comment).
pub fn parse_cube_lut(text: &str) -> Result<CubeLut, LutError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut title = None;
    let mut size: Option<u32> = None;
    let mut domain_min: Option<([f32; 3], usize)> = None;
    let mut domain_max: Option<([f32; 3], usize)> = None;
    let mut values: Vec<[f32; 3]> = Vec::new();
    let mut expected = 0usize;
    let mut last_line = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let line_no = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        last_line = line_no;
        let keyword = line.split_whitespace().next().unwrap_or("");
        if !values.is_empty() && KEYWORDS.contains(&keyword) {
            return Err(err(
                line_no,
                format!("keyword {keyword} after the data lines began"),
            ));
        }
        // Before the data, a word that starts with a letter is a keyword (a number can
        // start with one only as inf or nan); once the data began, every line is data.
        let starts_alpha = keyword.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if values.is_empty() && starts_alpha && keyword.parse::<f32>().is_err() {
            let rest = line[keyword.len()..].trim();
            match keyword {
                "TITLE" => {
                    if title.is_some() {
                        return Err(err(line_no, "a second TITLE"));
                    }
                    title = Some(
                        parse_title(rest)
                            .ok_or_else(|| err(line_no, "TITLE needs a text in double quotes"))?,
                    );
                }
                "LUT_3D_SIZE" => {
                    if size.is_some() {
                        return Err(err(line_no, "a second LUT_3D_SIZE"));
                    }
                    let n: u32 = rest.parse().map_err(|_| {
                        err(
                            line_no,
                            format!("LUT_3D_SIZE {rest:?} is not a whole number"),
                        )
                    })?;
                    if !(MIN_LUT_SIZE..=MAX_LUT_SIZE).contains(&n) {
                        return Err(err(
                            line_no,
                            format!(
                                "LUT_3D_SIZE {n} is out of range ({MIN_LUT_SIZE} to {MAX_LUT_SIZE})"
                            ),
                        ));
                    }
                    size = Some(n);
                    expected = (n as usize).pow(3);
                }
                "LUT_1D_SIZE" => return Err(err(line_no, "1D LUTs are not supported")),
                "DOMAIN_MIN" | "DOMAIN_MAX" | "LUT_3D_INPUT_RANGE" => {
                    let (min, max) = (domain_min.is_some(), domain_max.is_some());
                    let taken = match keyword {
                        "DOMAIN_MIN" => min,
                        "DOMAIN_MAX" => max,
                        _ => min || max,
                    };
                    if taken {
                        return Err(err(line_no, format!("{keyword} sets a domain already set")));
                    }
                    if keyword == "LUT_3D_INPUT_RANGE" {
                        let [lo, hi] = numbers::<2>(rest, line_no)?;
                        domain_min = Some(([lo; 3], line_no));
                        domain_max = Some(([hi; 3], line_no));
                    } else {
                        let v = numbers::<3>(rest, line_no)?;
                        let slot = if keyword == "DOMAIN_MIN" {
                            &mut domain_min
                        } else {
                            &mut domain_max
                        };
                        *slot = Some((v, line_no));
                    }
                }
                other => return Err(err(line_no, format!("unknown keyword {other}"))),
            }
            continue;
        }
        if size.is_none() {
            return Err(err(line_no, "data line before LUT_3D_SIZE"));
        }
        if values.is_empty() {
            check_domain(domain_min, domain_max)?;
            // Reserve no more than the text could hold (a data line has at least 5 bytes),
            // so a short file declaring 256³ entries allocates little.
            values.reserve(expected.min(text.len() / 5));
        }
        if values.len() == expected {
            return Err(err(
                line_no,
                format!("more data lines than the {expected} LUT_3D_SIZE asks for"),
            ));
        }
        values.push(numbers::<3>(line, line_no)?);
    }
    let Some(size) = size else {
        return Err(err(last_line.max(1), "no LUT_3D_SIZE"));
    };
    if values.is_empty() {
        check_domain(domain_min, domain_max)?;
    }
    if values.len() != expected {
        return Err(err(
            last_line.max(1),
            format!(
                "{} data lines, LUT_3D_SIZE {size} needs {size}³ = {expected}",
                values.len()
            ),
        ));
    }
    Ok(CubeLut {
        title,
        size,
        domain_min: domain_min.map_or([0.0; 3], |(v, _)| v),
        domain_max: domain_max.map_or([1.0; 3], |(v, _)| v),
        values,
    })
}

/// The text of `"..."` (all of it up to the last quote, so a title may hold quotes).
fn parse_title(rest: &str) -> Option<String> {
    let inner = rest.strip_prefix('"')?;
    let end = inner.rfind('"')?;
    inner[end + 1..]
        .trim()
        .is_empty()
        .then(|| inner[..end].to_owned())
}

/// Exactly `N` finite numbers separated by white space.
fn numbers<const N: usize>(text: &str, line: usize) -> Result<[f32; N], LutError> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() != N {
        return Err(err(
            line,
            format!("{} values where {N} are expected", words.len()),
        ));
    }
    let mut out = [0.0f32; N];
    for (slot, word) in out.iter_mut().zip(&words) {
        *slot = word
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| err(line, format!("{word:?} is not a finite number")))?;
    }
    Ok(out)
}

/// DOMAIN_MAX must exceed DOMAIN_MIN in every channel; the error names the later line.
fn check_domain(
    min: Option<([f32; 3], usize)>,
    max: Option<([f32; 3], usize)>,
) -> Result<(), LutError> {
    let (lo, lo_line) = min.unwrap_or(([0.0; 3], 0));
    let (hi, hi_line) = max.unwrap_or(([1.0; 3], 0));
    for c in 0..3 {
        if hi[c] <= lo[c] {
            return Err(err(
                lo_line.max(hi_line),
                format!(
                    "domain max {} is not above domain min {} in the {} channel",
                    hi[c],
                    lo[c],
                    ["red", "green", "blue"][c]
                ),
            ));
        }
    }
    Ok(())
}

/// Parses a `.cube` 3D LUT and writes it as a 3D `.ktx2`: N x N x N texels of
/// R8G8B8A8_UNORM, one level, zstd supercompressed. The texel at (x, y, z) is the entry
/// for red index x, green index y, blue index z (so the file's order is the texture's),
/// each channel round(255 * clamp((v - min) / (max - min), 0, 1)) over the channel's
/// domain, alpha 255.
pub fn encode_lut(text: &str) -> Result<Vec<u8>, LutError> {
    let lut = parse_cube_lut(text)?;
    let (lo, hi) = (lut.domain_min, lut.domain_max);
    let texels: Vec<u8> = lut
        .values
        .iter()
        .flat_map(|v| {
            let c = |i: usize| {
                let t = (v[i] - lo[i]) / (hi[i] - lo[i]);
                (255.0 * t.clamp(0.0, 1.0)).round() as u8
            };
            [c(0), c(1), c(2), 255]
        })
        .collect();
    ktx2::write(&Ktx2Image {
        format: PixelFormat::Rgba8,
        srgb: false,
        has_alpha: false,
        width: lut.size,
        height: lut.size,
        depth: lut.size,
        faces: 1,
        levels: vec![texels],
        zstd_level: Some(ZSTD_LEVEL_LUT),
    })
    .map_err(|e| err(0, format!("cannot write the .ktx2: {e}")))
}
