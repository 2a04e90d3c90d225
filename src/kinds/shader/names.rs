//! Names that become file names or preprocessor input: entry points and defines.

use std::collections::BTreeMap;

/// Longest entry point name written as a file name (most file systems allow 255 bytes;
/// `.spv` and the case-insensitive clash check need a margin).
pub const MAX_ENTRY_POINT_BYTES: usize = 200;

/// Why a shader's entry points or `shader.defines` cannot be used, naming the one at
/// fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// `problem` is worded to follow the name ("is empty").
    #[error("entry point `{}` {problem}: it cannot name its .spv file", name.escape_default())]
    EntryPoint { name: String, problem: &'static str },
    #[error(
        "entry points `{first}` and `{second}` differ only in case: their .spv files and \
         manifest ids would be the same"
    )]
    CaseClash { first: String, second: String },
    #[error("shader.defines: `{}` is not a GLSL identifier", name.escape_default())]
    NotAnIdentifier { name: String },
    #[error("shader.defines: the value of {name} spans lines (a #define is one line)")]
    MultiLineValue { name: String },
}

/// Why `name` cannot be a file name in the output tree, if it cannot.
pub fn entry_point_problem(name: &str) -> Option<NameError> {
    let problem = if name.is_empty() {
        "is empty"
    } else if name.contains('/') || name.contains('\\') {
        "contains a path separator"
    } else if name.contains("..") {
        "contains `..`"
    } else if name.contains('\0') {
        "contains a NUL byte"
    } else if name.len() > MAX_ENTRY_POINT_BYTES {
        "is longer than 200 bytes"
    } else {
        return None;
    };
    Some(NameError::EntryPoint {
        name: name.to_owned(),
        problem,
    })
}

/// Every entry point can be a file name, and no two differ only in case: the manifest hash
/// (fnv1a64 of the lower-cased id) and case-insensitive file systems could not tell them
/// apart.
pub fn check_entry_points<'a>(names: impl Iterator<Item = &'a str>) -> Result<(), NameError> {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for name in names {
        if let Some(problem) = entry_point_problem(name) {
            return Err(problem);
        }
        if let Some(other) = seen.insert(name.to_ascii_lowercase(), name) {
            return Err(NameError::CaseClash {
                first: other.to_owned(),
                second: name.to_owned(),
            });
        }
    }
    Ok(())
}

/// `shader.defines` as the GLSL preprocessor takes them: names are identifiers, values fit
/// on the `#define` line.
pub fn check_defines(defines: &BTreeMap<String, String>) -> Result<(), NameError> {
    for (name, value) in defines {
        let identifier = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier {
            return Err(NameError::NotAnIdentifier { name: name.clone() });
        }
        if value.contains(['\n', '\r']) {
            return Err(NameError::MultiLineValue { name: name.clone() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_that_cannot_be_file_names_are_refused() {
        assert_eq!(entry_point_problem("vs_main"), None);
        assert_eq!(entry_point_problem("főpont"), None);
        assert_eq!(entry_point_problem(&"a".repeat(200)), None);
        for (name, why) in [
            ("", "is empty"),
            ("a/b", "path separator"),
            ("a\\b", "path separator"),
            ("..", "`..`"),
            ("x..y", "`..`"),
            ("a\0b", "NUL"),
        ] {
            let p = entry_point_problem(name).unwrap().to_string();
            assert!(p.contains(why), "{name:?}: {p}");
        }
        assert!(entry_point_problem(&"a".repeat(201))
            .unwrap()
            .to_string()
            .contains("200 bytes"));
    }

    #[test]
    fn entry_points_differing_only_in_case_clash() {
        assert_eq!(check_entry_points(["vs", "fs"].into_iter()), Ok(()));
        let e = check_entry_points(["Main", "vs", "main"].into_iter())
            .unwrap_err()
            .to_string();
        assert!(e.contains("`Main` and `main` differ only in case"), "{e}");
    }

    #[test]
    fn defines_are_identifiers_on_one_line() {
        let ok: BTreeMap<String, String> = [
            ("QUALITY".into(), "2".into()),
            ("_X1".into(), String::new()),
        ]
        .into();
        assert_eq!(check_defines(&ok), Ok(()));
        for bad in ["1X", "A B", "", "É"] {
            let d = [(bad.to_string(), String::new())].into();
            assert!(check_defines(&d)
                .unwrap_err()
                .to_string()
                .contains("not a GLSL identifier"));
        }
        let d = [("A".to_string(), "1\n#define B".to_string())].into();
        assert!(check_defines(&d)
            .unwrap_err()
            .to_string()
            .contains("spans lines"));
    }
}
