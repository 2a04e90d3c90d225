//! Which codepoints a font's atlas holds: printable ASCII and Latin-1, plus the
//! `font.charset` ranges and the characters of `font.charset_file`.

use crate::import::input_root::InputPathError;
use std::collections::BTreeSet;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

/// Codepoints one font may ask for: a whole plane, far more than one atlas holds at any
/// useful size; it bounds the work a mistaken range (`U+0000-U+10FFFF`) asks for.
pub const MAX_CODEPOINTS: usize = 1 << 16;
/// Largest charset file read: a long list of characters is a few hundred kilobytes.
pub const MAX_CHARSET_FILE_BYTES: u64 = 16 << 20;

/// The charset every font gets: printable ASCII (U+0020-U+007E) and Latin-1
/// (U+00A0-U+00FF).
pub fn default_ranges() -> [RangeInclusive<u32>; 2] {
    [0x20..=0x7E, 0xA0..=0xFF]
}

/// Why a font's charset cannot be resolved, naming the setting or file at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CharsetError {
    #[error("font.charset entry \"{entry}\": {why}")]
    Entry { entry: String, why: &'static str },
    #[error("the charset holds more than {MAX_CODEPOINTS} codepoints")]
    TooMany,
    #[error("font.charset_file \"{name}\": {why}")]
    File { name: String, why: InputPathError },
    /// The file named by `font.charset_file` cannot be read as text (`source` says why).
    #[error("font.charset_file \"{name}\": {source}")]
    FileText {
        name: String,
        source: Box<CharsetError>,
    },
    /// The operating system's error, as it words it.
    #[error("{}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "{}: {size} bytes exceeds the charset file limit of {MAX_CHARSET_FILE_BYTES} bytes",
        path.display()
    )]
    TooLarge { path: PathBuf, size: u64 },
    #[error("{}: not UTF-8 text (byte {byte})", path.display())]
    NotUtf8 { path: PathBuf, byte: usize },
}

/// The resolved charset: codepoints in order (never 0, which is the `.notdef`), and the
/// charset file read, which is an input of the asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charset {
    pub codepoints: BTreeSet<u32>,
    pub file: Option<PathBuf>,
}

/// One `font.charset` entry: `"U+20AC"` or `"U+0400-U+04FF"` (hex digits, either case).
pub fn parse_entry(entry: &str) -> Result<RangeInclusive<u32>, CharsetError> {
    let bad = |why: &'static str| CharsetError::Entry {
        entry: entry.to_owned(),
        why,
    };
    let one = |s: &str| -> Result<u32, CharsetError> {
        let s = s.trim();
        let hex = s
            .strip_prefix("U+")
            .or_else(|| s.strip_prefix("u+"))
            .ok_or_else(|| bad("expected U+XXXX or U+XXXX-U+YYYY"))?;
        if hex.is_empty() || hex.len() > 6 {
            return Err(bad("expected 1 to 6 hex digits after U+"));
        }
        let cp = u32::from_str_radix(hex, 16).map_err(|_| bad("not a hex number"))?;
        if cp > 0x10_FFFF {
            return Err(bad("beyond U+10FFFF"));
        }
        Ok(cp)
    };
    let range = match entry.split_once('-') {
        Some((a, b)) => one(a)?..=one(b)?,
        None => {
            let cp = one(entry)?;
            cp..=cp
        }
    };
    if range.start() > range.end() {
        return Err(bad("the range ends before it starts"));
    }
    Ok(range)
}

/// Whether a codepoint can be drawn: a Unicode scalar value that is not a control
/// character (line breaks and tabs of a charset file are not glyphs).
fn drawable(cp: u32) -> bool {
    char::from_u32(cp).is_some_and(|c| !c.is_control())
}

/// The charset of one font. Errors are messages for the font's `AssetError::Invalid`.
/// `charset` and `charset_file` are `[font]`'s keys of those names.
pub fn resolve(
    charset: &[String],
    charset_file: &str,
    input_root: &Path,
) -> Result<Charset, CharsetError> {
    let mut codepoints = BTreeSet::new();
    for range in default_ranges() {
        add(&mut codepoints, range)?;
    }
    for entry in charset {
        add(&mut codepoints, parse_entry(entry)?)?;
    }
    let file = if charset_file.is_empty() {
        None
    } else {
        let path = charset_file_path(charset_file, input_root)?;
        let text = read_text(&path).map_err(|source| CharsetError::FileText {
            name: charset_file.to_owned(),
            source: Box::new(source),
        })?;
        for c in text.chars() {
            let cp = u32::from(c);
            add(&mut codepoints, cp..=cp)?;
        }
        Some(path)
    };
    Ok(Charset { codepoints, file })
}

/// Adds the drawable codepoints of a range. A range twice the limit fails before it is
/// walked, so `U+0000-U+10FFFF` costs nothing.
fn add(codepoints: &mut BTreeSet<u32>, range: RangeInclusive<u32>) -> Result<(), CharsetError> {
    if (*range.end() - *range.start()) as usize >= 2 * MAX_CODEPOINTS {
        return Err(CharsetError::TooMany);
    }
    codepoints.extend(range.filter(|&c| drawable(c)));
    if codepoints.len() > MAX_CODEPOINTS {
        return Err(CharsetError::TooMany);
    }
    Ok(())
}

/// The charset file's path: relative to the input root and, once links are resolved,
/// still below it (the input-root rule every reader shares).
fn charset_file_path(name: &str, input_root: &Path) -> Result<PathBuf, CharsetError> {
    crate::import::input_root::resolve_below(input_root, input_root, Path::new(name)).map_err(
        |why| CharsetError::File {
            name: name.to_owned(),
            why,
        },
    )
}

fn read_text(path: &Path) -> Result<String, CharsetError> {
    let unreadable = |e: std::io::Error| CharsetError::Unreadable {
        path: path.to_owned(),
        reason: e.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(unreadable)?;
    let size = meta.len();
    if size > MAX_CHARSET_FILE_BYTES {
        return Err(CharsetError::TooLarge {
            path: path.to_owned(),
            size,
        });
    }
    let bytes = std::fs::read(path).map_err(unreadable)?;
    // The input's cache stamp is the bytes read here (the driver's cache, `read_log`).
    crate::read_log::note_read(path, &meta, &bytes);
    String::from_utf8(bytes).map_err(|e| CharsetError::NotUtf8 {
        path: path.to_owned(),
        byte: e.utf8_error().valid_up_to(),
    })
}

/// Codepoints as compact ranges for messages: `U+0100-U+017F, U+20AC`.
pub fn describe(codepoints: &[u32], most: usize) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &cp in codepoints {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == cp => *end = cp,
            _ => ranges.push((cp, cp)),
        }
    }
    let mut parts: Vec<String> = ranges
        .iter()
        .take(most)
        .map(|&(a, b)| match b - a {
            0 => format!("U+{a:04X}"),
            _ => format!("U+{a:04X}-U+{b:04X}"),
        })
        .collect();
    if ranges.len() > most {
        parts.push(format!("and {} more ranges", ranges.len() - most));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::font::settings::FontSettings;

    fn resolve_settings(s: &FontSettings, root: &Path) -> Result<Charset, CharsetError> {
        resolve(&s.charset, &s.charset_file, root)
    }

    #[test]
    fn entries_are_single_codepoints_or_ranges() {
        assert_eq!(parse_entry("U+20AC"), Ok(0x20AC..=0x20AC));
        assert_eq!(parse_entry("u+0400-U+04ff"), Ok(0x400..=0x4FF));
        assert_eq!(parse_entry(" U+41 - U+5A "), Ok(0x41..=0x5A));
        for bad in [
            "20AC",
            "U+",
            "U+XYZ",
            "U+110000",
            "U+0500-U+0400",
            "U+1234567",
        ] {
            let e = parse_entry(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("\"{bad}\"")), "{e}");
        }
    }

    #[test]
    fn the_default_charset_is_printable_ascii_and_latin1() {
        let dir = tempfile::tempdir().unwrap();
        let c = resolve_settings(&FontSettings::default(), dir.path()).unwrap();
        assert_eq!(c.codepoints.len(), 95 + 96);
        assert_eq!(c.codepoints.first(), Some(&0x20));
        assert_eq!(c.codepoints.last(), Some(&0xFF));
        assert!(!c.codepoints.contains(&0x7F) && !c.codepoints.contains(&0x9F));
        assert_eq!(c.file, None);
    }

    #[test]
    fn ranges_and_file_characters_are_added_without_controls() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("text")).unwrap();
        std::fs::write(dir.path().join("text/chars.txt"), "Ωж€\n\tA\u{85}").unwrap();
        let settings = FontSettings {
            charset: vec!["U+0400-U+0402".into(), "U+0000-U+001F".into()],
            charset_file: "text/chars.txt".into(),
            ..Default::default()
        };
        let c = resolve_settings(&settings, dir.path()).unwrap();
        let added: Vec<u32> = c
            .codepoints
            .iter()
            .copied()
            .filter(|&cp| cp > 0xFF)
            .collect();
        assert_eq!(added, [0x3A9, 0x400, 0x401, 0x402, 0x436, 0x20AC]);
        assert_eq!(c.codepoints.len(), 191 + 6);
        assert!(c.file.unwrap().ends_with("text/chars.txt"));
    }

    #[test]
    fn the_charset_file_stays_below_the_input_folder() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("assets");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "x").unwrap();
        for name in ["../secret.txt", "missing.txt"] {
            let settings = FontSettings {
                charset_file: name.into(),
                ..Default::default()
            };
            let e = resolve_settings(&settings, &root).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("font.charset_file \"{name}\"")),
                "{e}"
            );
        }
        std::fs::write(root.join("bad.txt"), [b'a', 0xFF]).unwrap();
        let settings = FontSettings {
            charset_file: "bad.txt".into(),
            ..Default::default()
        };
        assert!(resolve_settings(&settings, &root)
            .unwrap_err()
            .to_string()
            .contains("not UTF-8 text (byte 1)"));
    }

    #[test]
    fn absurd_charsets_fail_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let settings = FontSettings {
            charset: vec!["U+0000-U+10FFFF".into()],
            ..Default::default()
        };
        assert!(resolve_settings(&settings, dir.path())
            .unwrap_err()
            .to_string()
            .contains("more than 65536"));
    }

    #[test]
    fn codepoints_are_described_as_ranges() {
        assert_eq!(
            describe(&[0x41, 0x42, 0x43, 0x45, 0x20AC], 8),
            "U+0041-U+0043, U+0045, U+20AC"
        );
        assert_eq!(describe(&[1, 3, 5], 2), "U+0001, U+0003, and 1 more ranges");
    }
}
