//! Numbers and strings as QML literals: below the scene file and the parts it places
//! (lights and cameras, the animation timeline), which all write them.

use std::fmt::Write;

/// Writes numbers the shortest way that reads back exactly; never NaN or infinity,
/// which QML cannot parse.
pub(super) fn num(f: f32) -> String {
    if f.is_finite() {
        format!("{f}")
    } else {
        "0".into()
    }
}

pub(super) fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
