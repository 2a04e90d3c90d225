//! The class of a standalone image (colour, normal map, linear data, one channel), told
//! from its file name the way artists name maps (`ScratchedGold-Normal.png`,
//! `rock_nor_gl.png`, `cube_depth.png`) and from what its texels hold. docs/textures.md
//! ("Which mode a standalone image gets") lists every rule in the order they apply.

use super::TextureMode;

/// The words of a file name that call an image a tangent-space normal map.
pub const NORMAL_WORDS: &[&str] = &["normal", "normals", "nrm", "nor"];
/// The words of a file name that call an image linear data of one channel.
pub const SINGLE_CHANNEL_WORDS: &[&str] = &[
    "roughness",
    "metallic",
    "metalness",
    "ao",
    "occlusion",
    "height",
    "depth",
    "displacement",
    "bump",
    "mask",
    "opacity",
    "alpha",
];
/// The original assetc's tags right before the extension (`rock.ao.png`): kept exactly as
/// they were, content unseen, so the files they named keep their bytes.
const SUFFIX_TAGS: &[(&str, TextureMode)] = &[
    ("n", TextureMode::Normal),
    ("ao", TextureMode::Single),
    ("h", TextureMode::Single),
    ("r", TextureMode::Single),
];

/// One word of a file name, lower-case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Whether a separator (`_ - .` or a space) comes right before it, rather than the
    /// start of the name or a change of case.
    pub after_separator: bool,
}

/// The words of a file name without its extension: split at `_`, `-`, `.`, spaces, at a
/// lower-case letter followed by an upper-case one (`GoldNormal`), at the last capital of
/// a run followed by a lower-case letter (`HDRNormal` -> hdr, normal) and around digit runs.
pub fn words(stem: &str) -> Vec<Word> {
    fn flush(current: &mut String, after_separator: bool, out: &mut Vec<Word>) {
        if !current.is_empty() {
            out.push(Word {
                text: current.to_lowercase(),
                after_separator,
            });
            current.clear();
        }
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut after_separator = false;
    let chars: Vec<char> = stem.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if matches!(c, '_' | '-' | '.' | ' ') {
            flush(&mut current, after_separator, &mut out);
            after_separator = true;
            continue;
        }
        if let Some(prev) = current.chars().last() {
            let next_is_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let case_break = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_is_lower);
            let digit_break = prev.is_ascii_digit() != c.is_ascii_digit();
            if case_break || digit_break {
                flush(&mut current, after_separator, &mut out);
                after_separator = false;
            }
        }
        current.push(c);
    }
    flush(&mut current, after_separator, &mut out);
    out
}

/// What a file name says about an image, and the rule that says it (for messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameClass {
    pub class: NamedAs,
    pub rule: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedAs {
    /// An original suffix tag (`.n`, `.ao`, `.h`, `.r`): this mode, whatever the texels.
    Tagged(TextureMode),
    /// A normal-map word.
    Normal,
    /// A single-channel data word: one channel when the texels hold one, else linear.
    LinearData,
}

/// The class a file name gives (`file_name` without folders), or None when no rule
/// matches. The original suffix tags come first; then the last word that is a class word
/// decides (`normal_roughness.png` would be roughness data).
pub fn class_by_name(file_name: &str) -> Option<NameClass> {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(s, _)| s);
    if let Some((_, tag)) = stem.rsplit_once('.') {
        let tag = tag.to_ascii_lowercase();
        if let Some(&(t, mode)) = SUFFIX_TAGS.iter().find(|(t, _)| *t == tag) {
            return Some(NameClass {
                class: NamedAs::Tagged(mode),
                rule: format!("the suffix `.{t}`"),
            });
        }
    }
    words(stem).iter().rev().find_map(|w| {
        let text = w.text.as_str();
        if NORMAL_WORDS.contains(&text) {
            Some(NameClass {
                class: NamedAs::Normal,
                rule: format!("the word `{text}`"),
            })
        } else if text == "n" && w.after_separator {
            Some(NameClass {
                class: NamedAs::Normal,
                rule: "the word `_n`".to_string(),
            })
        } else if SINGLE_CHANNEL_WORDS.contains(&text) {
            Some(NameClass {
                class: NamedAs::LinearData,
                rule: format!("the word `{text}`"),
            })
        } else {
            None
        }
    })
}

/// What an image's texels hold, as far as its class goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Content {
    /// Every texel grey (R = G = B) and opaque: one channel of information.
    pub one_channel: bool,
    /// Most texels are unit vectors stored as n * 0.5 + 0.5 and they lean towards +Z, as
    /// a tangent-space normal map's do (around (0.5, 0.5, 1)).
    pub looks_like_normals: bool,
}

/// Texels looked at for [`Content::looks_like_normals`] at most: an evenly spaced sample
/// of a larger image tells unit vectors from pictures as well as every texel does.
const NORMAL_SAMPLE: usize = 1 << 20;
/// A stored vector counts as unit length within this much (8-bit storage moves a unit
/// vector's length by under 0.02).
const UNIT_TOLERANCE: f32 = 0.1;
/// Share of sampled texels that must be unit vectors facing +Z.
const UNIT_SHARE: f32 = 0.95;
/// The sampled vectors' mean Z must reach this: a normal map's vectors lean to +Z, while
/// grey texels of the one level whose (2v - 1, 2v - 1, 2v - 1) is unit length give 0.58.
const MEAN_Z: f32 = 0.75;

/// The facts of [`Content`] for RGBA8 texels.
pub fn content_of(rgba: &[u8]) -> Content {
    let texels = rgba.len() / 4;
    let one_channel = rgba
        .chunks_exact(4)
        .all(|p| p[0] == p[1] && p[1] == p[2] && p[3] == 255);
    let step = texels.div_ceil(NORMAL_SAMPLE).max(1);
    let (mut sampled, mut unit, mut z_sum) = (0usize, 0usize, 0.0f32);
    for p in rgba.chunks_exact(4).step_by(step) {
        let [x, y, z] = [p[0], p[1], p[2]].map(|v| f32::from(v) / 127.5 - 1.0);
        let length = (x * x + y * y + z * z).sqrt();
        sampled += 1;
        z_sum += z;
        if (length - 1.0).abs() <= UNIT_TOLERANCE && z > 0.0 {
            unit += 1;
        }
    }
    let looks_like_normals = sampled > 0
        && !one_channel
        && unit as f32 >= UNIT_SHARE * sampled as f32
        && z_sum / sampled as f32 >= MEAN_Z;
    Content {
        one_channel,
        looks_like_normals,
    }
}

/// A standalone image's mode and what decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    pub mode: TextureMode,
    /// A warning for the build's output when the texels contradict the mode chosen.
    pub warning: Option<String>,
}

/// The mode of an LDR standalone image from its file name and, when its texels were
/// looked at, their [`Content`] (docs/textures.md lists the rules in this order).
pub fn classify(file_name: &str, content: Option<Content>) -> Classified {
    let plain = |mode| Classified {
        mode,
        warning: None,
    };
    let named = class_by_name(file_name);
    match (named, content) {
        (
            Some(NameClass {
                class: NamedAs::Tagged(mode),
                ..
            }),
            _,
        ) => plain(mode),
        (
            Some(NameClass {
                class: NamedAs::Normal,
                rule,
            }),
            Some(c),
        ) if !c.looks_like_normals => Classified {
            mode: TextureMode::Normal,
            warning: Some(format!(
                "compiled as a normal map by {rule} in its name, but its texels are not unit \
                 vectors around (0.5, 0.5, 1); if it is a picture, set texture.mode = \"color\" \
                 in a rule"
            )),
        },
        (
            Some(NameClass {
                class: NamedAs::Normal,
                ..
            }),
            _,
        ) => plain(TextureMode::Normal),
        (
            Some(NameClass {
                class: NamedAs::LinearData,
                ..
            }),
            Some(c),
        ) if c.one_channel => plain(TextureMode::Single),
        // Several channels (a packed occlusion-roughness-metal map), or texels not looked
        // at: every channel is kept rather than all but red dropped.
        (
            Some(NameClass {
                class: NamedAs::LinearData,
                ..
            }),
            _,
        ) => plain(TextureMode::Linear),
        (None, Some(c)) if c.one_channel => plain(TextureMode::Single),
        (None, Some(c)) if c.looks_like_normals => Classified {
            mode: TextureMode::Color,
            warning: Some(
                "compiled as sRGB colour, but its texels are unit vectors around \
                 (0.5, 0.5, 1), as a normal map's are; a name word (`normal`, `nrm`, `nor`, \
                 `_n`: `rock_normal.png`) or texture.mode = \"normal\" compiles it as one"
                    .to_string(),
            ),
        },
        (None, _) => plain(TextureMode::Color),
    }
}

#[cfg(test)]
#[path = "class_tests.rs"]
mod tests;
