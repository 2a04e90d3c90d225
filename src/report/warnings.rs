//! Grouping warnings by kind for the report's summary.

/// The kind of a warning: its text without the leading glTF path or file name, with
/// numbers replaced by `N` and cut at the first detail (`:`, `(`, `;`), so
/// `meshes[3].primitives[0]: 12 degenerate triangles removed` and
/// `meshes[7].primitives[1]: 4 degenerate triangles removed` are one kind.
pub fn warning_kind(warning: &str) -> String {
    let mut text = warning.trim();
    // Leading locations: `meshes[3].primitives[0]: `, `a/b.gltf: `.
    while let Some((head, rest)) = text.split_once(": ") {
        let is_location =
            !head.contains(' ') && (head.contains('[') || head.contains('.') || head.contains('/'));
        if !is_location {
            break;
        }
        text = rest;
    }
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
        "other".to_owned()
    } else {
        kind
    }
}

#[cfg(test)]
mod tests {
    use super::warning_kind;

    #[test]
    fn locations_and_numbers_do_not_split_kinds() {
        let a = warning_kind("meshes[3].primitives[0]: 12 degenerate triangles removed");
        let b = warning_kind("meshes[7].primitives[1]: 4 degenerate triangles removed");
        assert_eq!(a, b);
        assert_eq!(a, "N degenerate triangles removed");
    }

    #[test]
    fn details_after_a_colon_are_dropped() {
        assert_eq!(
            warning_kind("animations[0].channels[2]: dropped: sampler 5 missing"),
            "dropped"
        );
        assert_eq!(warning_kind(""), "other");
    }
}
