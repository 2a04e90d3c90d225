//! Refusing sources whose shape, not size, would exhaust the compiler's stack: naga's
//! parsers, validator and writer recurse over nested expressions, and a stack overflow
//! aborts the whole build rather than failing one source.

use super::location::{line_col, LineCol};

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
pub fn check(text: &str, max_nesting: usize, max_depth: usize) -> Option<(LineCol, Exceeded)> {
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
                    return Some((line_col(text, i), Exceeded::Nesting(max_nesting)));
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
            return Some((line_col(text, i), Exceeded::Expression(max_depth)));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, nesting: usize, depth: usize) -> Option<(usize, usize)> {
        check(text, nesting, depth).map(|(at, _)| (at.line, at.col))
    }

    #[test]
    fn the_first_bracket_past_the_nesting_limit_is_named() {
        assert_eq!(at("f((a)[b]{c})", 2, 100), None);
        let text = format!("x\n  {}", "(".repeat(4));
        assert_eq!(
            check(&text, 3, 100).map(|(a, e)| (a.line, a.col, e)),
            Some((2, 6, Exceeded::Nesting(3)))
        );
        // Closing brackets bring the depth back down.
        assert_eq!(at(&"(), ".repeat(1000), 1, 10), None);
    }

    #[test]
    fn long_chains_are_refused_and_siblings_are_not() {
        let chain = |n: usize, sep: &str| vec!["1.0"; n].join(sep);
        // `1.0+1.0`: each term's `.` and each `+` count.
        assert_eq!(at(&chain(10, "+"), 8, 100), None);
        assert!(at(&chain(100, "+"), 8, 100).is_some());
        // A table of numbers is flat: commas and semicolons start siblings.
        assert_eq!(at(&format!("f({})", chain(10_000, ", -")), 8, 100), None);
        assert_eq!(at(&chain(10_000, "; x = -"), 8, 100), None);
        // Chains in enclosing brackets add up; indexing chains count too.
        let nested = format!("a+a+a+({})", "b+".repeat(20));
        assert!(check(&nested, 8, 24).is_some());
        assert!(at(&"a[0]".repeat(200), 8, 100).is_some());
        // Blocks end their statement: a thousand functions are not one chain.
        assert_eq!(
            at(
                &"fn f() -> vec4<f32> { return x.y; }\n".repeat(1000),
                8,
                100
            ),
            None
        );
    }

    #[test]
    fn comments_do_not_count() {
        let text = format!(
            "// {}\n/* {} ((( */\nx = 1;\n",
            "-".repeat(500),
            "+".repeat(500)
        );
        assert_eq!(at(&text, 2, 100), None);
        let defines = "#define A (x + y * z - w)\n".repeat(100);
        assert_eq!(at(&defines, 2, 100), None);
        // An unterminated block comment runs to the end.
        assert_eq!(at("/* ((((", 1, 100), None);
    }
}
