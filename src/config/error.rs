//! Configuration errors: where in `build.toml` (line and column when known) and what is
//! wrong, in the words of the file rather than of Rust types.

use super::suggest::nearest;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A problem with `build.toml` or with how it is used (`--preset` naming no preset). The
/// CLI exits with 2 for these, as for any usage error.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
pub struct ConfigError {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line of the offending key or value, when the problem has one place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let (Some(line), Some(column)) = (self.line, self.column) {
            write!(f, ":{line}:{column}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl ConfigError {
    /// An error for the whole file (or its use), without a position.
    pub fn new(file: &Path, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    /// An error at byte `offset` of `text`.
    pub fn at(file: &Path, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(text, offset);
        Self {
            line: Some(line),
            column: Some(column),
            ..Self::new(file, message)
        }
    }

    /// A TOML or serde error, positioned by its span and worded for people. An unknown
    /// key is pointed at where the key is written: the span serde gives is its value's.
    pub fn from_toml(file: &Path, text: &str, error: &toml::de::Error) -> Self {
        let message = plain_words(&with_suggestion(error.message()));
        let Some(span) = error.span() else {
            return Self::new(file, message);
        };
        let offset = unknown_key(error.message())
            .and_then(|key| key_offset(text, span.end, key))
            .unwrap_or(span.start);
        Self::at(file, text, offset, message)
    }
}

/// The key an "unknown field `name`, expected ..." message is about.
pub(crate) fn unknown_key(message: &str) -> Option<&str> {
    let rest = message.trim().strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(key, _)| key)
}

/// Byte offset of the last place before `end` where `key` is written as a key (bare or
/// quoted; at the start of a line, after `.`, `[`, `{` or `,`; followed by `=`, `.` or `]`),
/// not as part of a value or of a longer name.
pub(crate) fn key_offset(text: &str, end: usize, key: &str) -> Option<usize> {
    let before = text.get(..end.min(text.len()))?;
    let mut search_end = before.len();
    while let Some(found) = before[..search_end].rfind(key) {
        search_end = found;
        let (mut start, mut after) = (found, found + key.len());
        if text[..start].ends_with('"') && text[after..].starts_with('"') {
            start -= 1;
            after += 1;
        }
        let opens_key = text[..start]
            .trim_end_matches([' ', '\t'])
            .chars()
            .next_back()
            .is_none_or(|c| matches!(c, '\n' | '.' | '[' | '{' | ','));
        let closes_key = text[after..]
            .trim_start_matches([' ', '\t'])
            .starts_with(['=', '.', ']']);
        if opens_key && closes_key {
            return Some(start);
        }
    }
    None
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// serde names the expected alternatives in its message: add the nearest one.
pub(crate) fn with_suggestion(message: &str) -> String {
    let message = message.trim().to_string();
    let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    let (Some(&wrong), Some(_)) = (quoted.first(), quoted.get(1)) else {
        return message;
    };
    if !(message.starts_with("unknown field") || message.starts_with("unknown variant")) {
        return message;
    }
    match nearest(wrong, quoted[1..].iter().copied()) {
        Some(best) => format!("{message}; did you mean `{best}`?"),
        None => message,
    }
}

/// Replaces Rust type names in serde's messages ("expected u32") with what a user of the
/// file knows ("expected a whole number").
pub(crate) fn plain_words(message: &str) -> String {
    const WORDS: &[(&str, &str)] = &[
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        ("expected u32", "expected a whole number >= 0"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected usize", "expected a whole number >= 0"),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f32", "expected a number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected a list like [0.5, 0.25]"),
        ("expected a string", "expected a quoted string"),
        ("unknown field", "unknown key"),
        ("unknown variant", "unknown value"),
        ("floating point", "number"),
        ("integer `", "whole number `"),
    ];
    let mut out = message.to_string();
    for (rust, plain) in WORDS {
        out = out.replace(rust, plain);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_type_names_become_plain_words() {
        assert_eq!(
            plain_words("invalid value: integer `-1`, expected u32"),
            "invalid value: whole number `-1`, expected a whole number >= 0"
        );
        assert_eq!(
            plain_words("invalid type: floating point `1.5`, expected u32"),
            "invalid type: number `1.5`, expected a whole number >= 0"
        );
    }

    #[test]
    fn an_unknown_key_is_found_where_it_is_written_not_in_values_or_longer_names() {
        let text = "[texture]\nname = \"max_sise\"\nmax_sise_x = 1\n  max_sise = 512\n";
        let at = key_offset(text, text.len(), "max_sise").unwrap();
        assert_eq!(line_column(text, at), (4, 3));
        let dotted = "[[rules]]\nmatch = \"a\"\ntexture.qualty = 1\n";
        let at = key_offset(dotted, dotted.len(), "qualty").unwrap();
        assert_eq!(line_column(dotted, at), (3, 9));
        let quoted = "\"max_sise\" = 1\n";
        assert_eq!(key_offset(quoted, quoted.len(), "max_sise"), Some(0));
        assert_eq!(key_offset("a = \"max_sise\"\n", 15, "max_sise"), None);
        assert_eq!(
            unknown_key("unknown field `max_sise`, expected one of `max_size`"),
            Some("max_sise")
        );
        assert_eq!(unknown_key("invalid type: string"), None);
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(line_column("a\nbc", 3), (2, 2));
        assert_eq!(line_column("abc", 0), (1, 1));
    }
}
