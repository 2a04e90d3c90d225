//! Refusing sources whose shape, not size, would exhaust the compiler's stack: naga's
//! parsers, validator and writer recurse over nested expressions, and a stack overflow
//! aborts the whole build (or `assetc check`) rather than failing one file. Here, below
//! the pipeline, so that the shader kind (before naga reads a source) and the `.wgsl`
//! validator (before naga reads an output) hold the same bounds.

/// Deepest bracket nesting, and longest operator chain (summed over the enclosing
/// brackets), accepted: measured, a chain of 10,000 `+` compiles on [`STACK_BYTES`], one of
/// 50,000 overflows it; real shaders stay far below both limits.
pub const MAX_NESTING: usize = 256;
pub const MAX_EXPRESSION_DEPTH: usize = 4096;
/// The stack naga runs on (a thread of its own), so the limits above hold in debug builds
/// too and whatever stack the caller's thread has.
pub const STACK_BYTES: usize = 64 << 20;

/// Which limit a source breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exceeded {
    /// Brackets `( [ {` nested deeper than this.
    Nesting(usize),
    /// An expression that may be this deep: operators chained without a `,` or `;`
    /// between them, summed over the enclosing brackets.
    Expression(usize),
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Nesting(max) => write!(f, "brackets nest deeper than {max} levels"),
            Self::Expression(max) => write!(
                f,
                "an expression chains more than {max} operators (the compiler recurses once per \
                 operator)"
            ),
        }
    }
}

/// Where `text` first breaks a limit, if it does. An upper bound of the expression depth
/// is counted from the text alone, so it holds before naga sees the source: every
/// operator (and every `.` and closing bracket, which apply a member, index or call to
/// what precedes them) adds one within its bracket level, a `,` or `;` starts a sibling,
/// and a closed `{ }` block ends the statement that opened it. Comments and preprocessor
/// lines do not count.
/// The place is a byte offset into `text`.
pub fn check(text: &str, max_nesting: usize, max_depth: usize) -> Option<(usize, Exceeded)> {
    let bytes = text.as_bytes();
    // Operators chained at each open bracket level, the outermost first, and their sum.
    let mut levels: Vec<usize> = vec![0];
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match (b, bytes.get(i + 1)) {
            // Line comments, and GLSL's preprocessor lines (WGSL has no `#`), whose
            // operators are not an expression until a macro is used.
            (b'/', Some(b'/')) | (b'#', _) => {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            (b'/', Some(b'*')) => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| i + 2 + n + 2);
                continue;
            }
            (b'(' | b'[' | b'{', _) => {
                levels.push(0);
                if levels.len() - 1 > max_nesting {
                    return Some((i, Exceeded::Nesting(max_nesting)));
                }
            }
            (b')' | b']' | b'}', _) => {
                if levels.len() > 1 {
                    depth -= levels.pop().unwrap_or(0);
                }
                let last = levels.len() - 1;
                if b == b'}' {
                    depth -= levels[last];
                    levels[last] = 0;
                } else {
                    levels[last] += 1;
                    depth += 1;
                }
            }
            (b',' | b';', _) => {
                let last = levels.len() - 1;
                depth -= levels[last];
                levels[last] = 0;
            }
            (
                b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' | b'&' | b'|' | b'^'
                | b'~' | b'?' | b':' | b'.',
                _,
            ) => {
                let last = levels.len() - 1;
                levels[last] += 1;
                depth += 1;
            }
            _ => {}
        }
        if depth + levels.len() > max_depth {
            return Some((i, Exceeded::Expression(max_depth)));
        }
        i += 1;
    }
    None
}
