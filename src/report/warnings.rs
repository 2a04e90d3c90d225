//! Grouping warnings by kind for the report's summary.

use crate::code::Warning;

/// The kind of a warning: its code, and its text (the place in the source is a field of
/// its own, not part of it) with numbers replaced by `N` and cut at the first detail
/// (`:`, `(`, `;`), so `meshes[3].primitives[0]: 12 degenerate triangles removed` and
/// `meshes[7].primitives[1]: 4 degenerate triangles removed` are one kind.
pub fn warning_kind(warning: &Warning) -> String {
    let text = warning.message.trim();
    let cut = text.find([':', '(', ';']).unwrap_or(text.len());
    let mut kind = String::new();
    let mut in_number = false;
    for c in text[..cut].trim().chars() {
        if c.is_ascii_digit() {
            if !in_number {
                kind.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            kind.push(c);
        }
    }
    if kind.is_empty() {
        kind.push_str("other");
    }
    match warning.code {
        Some(code) => format!("{}: {kind}", code.name()),
        None => kind,
    }
}

#[cfg(test)]
mod tests {
    use super::warning_kind;
    use crate::code::{DiagnosticCode, Warning};

    #[test]
    fn places_and_numbers_do_not_split_kinds() {
        let code = DiagnosticCode::Repaired;
        let a = warning_kind(&Warning::at(
            code,
            "meshes[3].primitives[0]",
            "12 degenerate triangles removed",
        ));
        let b = warning_kind(&Warning::at(
            code,
            "meshes[7].primitives[1]",
            "4 degenerate triangles removed",
        ));
        assert_eq!(a, b);
        assert_eq!(a, "repaired: N degenerate triangles removed");
    }

    #[test]
    fn details_after_a_colon_are_dropped_and_codes_split_kinds() {
        let dropped = |code| warning_kind(&Warning::new(code, "dropped: sampler 5 missing"));
        assert_eq!(dropped(DiagnosticCode::Repaired), "repaired: dropped");
        assert_ne!(
            dropped(DiagnosticCode::Repaired),
            dropped(DiagnosticCode::NotExported)
        );
        assert_eq!(
            warning_kind(&Warning::new(DiagnosticCode::Repaired, "")),
            "repaired: other"
        );
    }
}
