//! Refusing sources whose shape, not size, would exhaust the compiler's stack.

use super::location::{line_col, LineCol};

/// Where the brackets `( [ {` of `text` first nest deeper than `max`, if they do. Brackets
/// in comments count too: a source that deep is absurd either way.
pub fn too_deep(text: &str, max: usize) -> Option<LineCol> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return Some(line_col(text, i));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bracket_past_the_limit_is_named() {
        assert_eq!(too_deep("f((a)[b]{c})", 2), None);
        let text = format!("x\n  {}", "(".repeat(4));
        assert_eq!(too_deep(&text, 3), Some(LineCol { line: 2, col: 6 }));
        // Closing brackets bring the depth back down.
        assert_eq!(too_deep(&"()".repeat(1000), 1), None);
    }
}
