//! The source limits of [`crate::formats::wgsl::limits`] (shared with the `.wgsl`
//! validator), placed as `line:col` in the source.

use super::location::{line_col, LineCol};
pub use crate::formats::wgsl::limits::Exceeded;

/// Where `text` first breaks a limit, if it does.
pub fn check(text: &str, max_nesting: usize, max_depth: usize) -> Option<(LineCol, Exceeded)> {
    crate::formats::wgsl::limits::check(text, max_nesting, max_depth)
        .map(|(offset, exceeded)| (line_col(text, offset), exceeded))
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
