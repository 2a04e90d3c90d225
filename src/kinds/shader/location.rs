//! Byte offsets in a shader source as `line:col`, the way editors count them.

/// A 1-based line and column; the column counts characters (not bytes), so it matches
/// what an editor shows on lines with non-ASCII text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for LineCol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Where byte `offset` of `source` is. An offset past the end is clamped to it and one
/// inside a character moves back to its start: spans come from naga, and a wrong span must
/// not turn an error message into a panic.
pub fn line_col(source: &str, offset: usize) -> LineCol {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &source[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    LineCol {
        line: before.matches('\n').count() + 1,
        col: before[line_start..].chars().count() + 1,
    }
}

/// The location of a naga span, when it has one.
pub fn span_location(source: &str, span: naga::Span) -> Option<LineCol> {
    span.to_range().map(|r| line_col(source, r.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let s = "ab\ncdé f\n";
        assert_eq!(line_col(s, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(s, 3), LineCol { line: 2, col: 1 });
        // `f` follows a two-byte `é`: byte 8, character column 5.
        assert_eq!(s.find('f'), Some(8));
        assert_eq!(line_col(s, 8), LineCol { line: 2, col: 5 });
        // Inside `é` and past the end are clamped, not panics.
        assert_eq!(line_col(s, 6), LineCol { line: 2, col: 3 });
        assert_eq!(line_col(s, 99), LineCol { line: 3, col: 1 });
        assert_eq!(line_col(s, 3).to_string(), "2:1");
    }
}
