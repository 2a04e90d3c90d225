//! Names that become file names and QML ids: sanitised the way Balsam does (first letter
//! lower-cased, anything outside `[A-Za-z0-9_]` replaced by `_`) and made unique.

pub use crate::file_names::fit_file_name;
use std::collections::HashSet;

/// `Cube.001` -> `cube_001`, `meshes[0]` -> `meshes_0_`.
pub fn balsam_stem(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if let Some(first) = out.get(..1) {
        let lower = first.to_ascii_lowercase();
        out.replace_range(..1, &lower);
    }
    if out.is_empty() {
        out.push('_');
    }
    out
}

/// A QML id: a Balsam stem that also starts with a lower-case letter or `_`.
pub fn qml_id(name: &str) -> String {
    let stem = balsam_stem(name);
    if stem.starts_with(|c: char| c.is_ascii_digit()) || is_reserved(&stem) {
        format!("_{stem}")
    } else {
        stem
    }
}

/// A QML component (file) name: first letter upper-cased, which QML requires.
pub fn component_name(name: &str) -> String {
    let mut stem = balsam_stem(name);
    if stem.starts_with(|c: char| c.is_ascii_digit() || c == '_') {
        stem.insert(0, 'Q');
    }
    let upper = stem[..1].to_ascii_uppercase();
    stem.replace_range(..1, &upper);
    stem
}

/// The QML file of a component: `<component_name>.qml`, shortened like any other file
/// name when too long, with `_` before the hash so that the name stays a QML type
/// name.
pub fn component_file_name(name: &str) -> String {
    // The component name holds only [A-Za-z0-9_], so the one `-` is the hash's.
    fit_file_name(&component_name(name), ".qml").replace('-', "_")
}

/// A file name inside `maps/`: keeps dots and dashes so extensions survive.
pub fn file_name(name: &str) -> String {
    let out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match out.trim_start_matches('.') {
        "" => "_".into(),
        s => s.to_string(),
    }
}

fn is_reserved(id: &str) -> bool {
    matches!(
        id,
        "root"
            | "parent"
            | "import"
            | "property"
            | "signal"
            | "function"
            | "var"
            | "if"
            | "else"
            | "for"
            | "while"
            | "do"
            | "return"
            | "true"
            | "false"
            | "null"
            | "this"
            | "new"
            | "delete"
            | "in"
            | "of"
            | "case"
            | "switch"
            | "default"
            | "break"
            | "continue"
            | "typeof"
            | "instanceof"
            | "void"
            | "with"
            | "try"
            | "catch"
            | "finally"
            | "throw"
            | "let"
            | "const"
            | "class"
            | "enum"
            | "super"
            | "yield"
            | "readonly"
            | "required"
            | "alias"
            | "component"
            | "on"
            | "as"
            | "debugger"
            | "export"
            | "extends"
            | "implements"
            | "interface"
            | "package"
            | "private"
            | "protected"
            | "public"
            | "static"
    )
}

/// Hands out names unique case-insensitively (so files do not collide on
/// case-insensitive file systems): the first `x` stays `x`, later ones become `x_2`, `x_3`.
#[derive(Default)]
pub struct Unique {
    taken: HashSet<String>,
}

impl Unique {
    /// `suffix` is kept after the counter (`.png`, `_mesh.mesh`).
    pub fn claim(&mut self, base: &str, suffix: &str) -> String {
        self.claim_with(base, suffix, |stem, suffix| format!("{stem}{suffix}"))
    }

    /// [`Self::claim`] for a file name, which must fit the file system: a name over
    /// `MAX_NAME_BYTES` keeps a prefix of its stem and gets `-<hash>` before the suffix
    /// ([`fit_file_name`]), so a 300-character mesh name still gives a file.
    pub fn claim_file(&mut self, base: &str, suffix: &str) -> String {
        self.claim_with(base, suffix, fit_file_name)
    }

    fn claim_with(
        &mut self,
        base: &str,
        suffix: &str,
        join: impl Fn(&str, &str) -> String,
    ) -> String {
        let mut n = 1usize;
        loop {
            let candidate = if n == 1 {
                join(base, suffix)
            } else {
                join(&format!("{base}_{n}"), suffix)
            };
            if self.taken.insert(candidate.to_lowercase()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_balsam_and_stay_unique() {
        assert_eq!(balsam_stem("Cube.001"), "cube_001");
        assert_eq!(balsam_stem("meshes[0]"), "meshes_0_");
        assert_eq!(balsam_stem("Grüße"), "gr__e");
        assert_eq!(qml_id("1st"), "_1st");
        assert_eq!(qml_id("root"), "_root");
        assert_eq!(component_name("flighthelmet"), "Flighthelmet");
        assert_eq!(component_name("3d"), "Q3d");
        assert_eq!(component_file_name("3d"), "Q3d.qml");
        let long = component_file_name(&"c".repeat(260));
        assert_eq!(long.len(), crate::file_names::MAX_NAME_BYTES);
        assert!(long.starts_with("Cccc") && long.ends_with(".qml") && !long.contains('-'));
        assert_eq!(file_name("../a b.png"), "_a_b.png");
        let mut u = Unique::default();
        assert_eq!(u.claim("a", ".png"), "a.png");
        assert_eq!(u.claim("A", ".png"), "A_2.png");
        assert_eq!(u.claim("a", ".png"), "a_3.png");
        // File names fit the limit, suffix kept, and stay unique.
        let long = "m".repeat(300);
        let first = u.claim_file(&long, "_mesh.mesh");
        let second = u.claim_file(&long, "_mesh.mesh");
        let most = crate::file_names::MAX_NAME_BYTES;
        assert_eq!((first.len(), second.len()), (most, most));
        assert!(first.ends_with("_mesh.mesh") && second.ends_with("_mesh.mesh"));
        assert_ne!(first, second);
        assert_eq!(u.claim_file("b", ".png"), "b.png");
    }
}
