//! `.wesl` sources: `import`s resolved in the input tree and `[shader] import_paths`,
//! `@if` conditions decided by `[shader] defines`, linked by the `wesl` crate into one
//! WGSL module that naga then compiles as any `.wgsl`.

use super::imports::ModuleFinder;
use super::location::{line_col, LineCol};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wesl::syntax::PathOrigin;
use wesl::{ModulePath, ResolveError, Resolver};

/// A linked module and the files it was linked from (the source first).
#[derive(Debug)]
pub struct Linked {
    pub wgsl: String,
    pub files: Vec<PathBuf>,
}

/// Why a WESL source cannot be linked: in which file, where when known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LinkError {
    pub file: PathBuf,
    pub at: Option<LineCol>,
    pub message: String,
}

/// The `@if` features `defines` set: `"false"` or `"0"` is off, any other value on; a
/// feature none names is off.
pub fn features(defines: &BTreeMap<String, String>) -> wesl::Features {
    wesl::Features {
        default: wesl::Feature::Disable,
        flags: defines
            .iter()
            .map(|(name, value)| {
                let on = !matches!(value.trim(), "false" | "0");
                (name.clone(), wesl::Feature::from(on))
            })
            .collect(),
    }
}

/// The module path of a source at `rel_path` (`shaders/main.wesl` is
/// `package::shaders::main`).
pub fn module_path_of(rel_path: &str) -> ModulePath {
    let without_ext = rel_path
        .rsplit_once('.')
        .map_or(rel_path, |(stem, _)| stem);
    ModulePath::new(
        PathOrigin::Absolute,
        without_ext
            .split(['/', '\\'])
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

struct TreeResolver<'a> {
    finder: &'a ModuleFinder,
    root: ModulePath,
    root_text: &'a str,
    root_file: &'a Path,
}

impl Resolver for TreeResolver<'_> {
    fn resolve_source<'a>(&'a self, path: &ModulePath) -> Result<Cow<'a, str>, ResolveError> {
        if *path == self.root {
            return Ok(Cow::Borrowed(self.root_text));
        }
        let package = match &path.origin {
            PathOrigin::Package(p) => Some(p.as_str()),
            PathOrigin::Absolute | PathOrigin::Relative(_) => None,
        };
        self.finder
            .find(
                &path.to_string(),
                package,
                &path.components,
                &["wesl", "wgsl"],
            )
            .map(|found| Cow::Owned(found.text))
            .map_err(|e| ResolveError::ModuleNotFound(path.clone(), e.to_string()))
    }

    fn display_name(&self, path: &ModulePath) -> Option<String> {
        self.fs_path(path).map(|p| p.display().to_string())
    }

    fn fs_path(&self, path: &ModulePath) -> Option<PathBuf> {
        if *path == self.root {
            return Some(self.root_file.to_path_buf());
        }
        self.finder.file_of(&path.to_string())
    }
}

/// Links the WESL source `text` (the file `file`, at `rel_path` below `input_root`).
pub fn link(
    text: &str,
    file: &Path,
    rel_path: &str,
    input_root: &Path,
    import_dirs: &[PathBuf],
    import_paths_given: &[String],
    defines: &BTreeMap<String, String>,
) -> Result<Linked, LinkError> {
    let finder = ModuleFinder::new(input_root, import_dirs, import_paths_given);
    let resolver = TreeResolver {
        finder: &finder,
        root: module_path_of(rel_path),
        root_text: text,
        root_file: file,
    };
    let options = wesl::CompileOptions {
        features: features(defines),
        // wesl's own checks find what naga's validation of the linked module finds too,
        // but its cycle check is quadratic: a chain of 2,000 imported functions took a
        // minute in it, and milliseconds without it.
        validate: false,
        ..Default::default()
    };
    let linked = wesl::compile_sourcemap(&resolver.root, &resolver, &wesl::EscapeMangler, &options);
    match linked {
        Ok(result) => {
            let mut files = vec![file.to_path_buf()];
            files.extend(finder.files_read());
            Ok(Linked {
                wgsl: result.syntax.to_string(),
                files,
            })
        }
        Err(e) => Err(link_error(e, &resolver)),
    }
}

/// The error in the file it is in, said once: an import that could not be resolved is
/// the finder's own message, not wesl's wrapping of it.
fn link_error(e: wesl::Error, resolver: &TreeResolver) -> LinkError {
    let diagnostic = wesl::Diagnostic::from(e);
    let detail = &diagnostic.detail;
    let file = detail
        .module_path
        .as_ref()
        .and_then(|m| resolver.fs_path(m))
        .unwrap_or_else(|| resolver.root_file.to_path_buf());
    let at = match (&detail.span, &detail.source, &detail.output) {
        (Some(span), Some(source), None) => Some(line_col(source, span.range().start)),
        _ => None,
    };
    let mut message = match resolver.finder.failure() {
        Some(failure) => failure.to_string(),
        None => concise(&diagnostic.error.to_string()),
    };
    if let Some(declaration) = &detail.declaration {
        message.push_str(&format!(" (in `{declaration}`)"));
    }
    LinkError { file, at, message }
}

/// A wesl parse message without the byte range it starts with (the place is given as
/// line:column) and without a list of every token the grammar would have taken.
fn concise(message: &str) -> String {
    let message = match message.strip_prefix("chars ") {
        Some(rest) => rest.split_once(": ").map_or(message, |(_, m)| m),
        None => message,
    };
    const MOST_LISTED: usize = 8;
    match message.split_once(", expected ") {
        Some((head, expected)) if expected.matches(", ").count() >= MOST_LISTED => {
            head.to_string()
        }
        _ => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_messages_are_cut_to_what_helps() {
        let long = format!(
            "chars 21..22: unexpected token `;`, expected {}",
            vec!["`x`"; 20].join(", ")
        );
        assert_eq!(concise(&long), "unexpected token `;`");
        assert_eq!(
            concise("unexpected token `;`, expected `)`"),
            "unexpected token `;`, expected `)`"
        );
    }

    #[test]
    fn sources_are_modules_of_the_tree() {
        let m = module_path_of("shaders/lit/main.wesl");
        assert_eq!(m.to_string(), "package::shaders::lit::main");
    }

    #[test]
    fn defines_turn_features_on_and_off() {
        let defines: BTreeMap<String, String> = [("A", ""), ("B", "false"), ("C", "1")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let f = features(&defines);
        assert_eq!(f.flags["A"], wesl::Feature::Enable);
        assert_eq!(f.flags["B"], wesl::Feature::Disable);
        assert_eq!(f.flags["C"], wesl::Feature::Enable);
        assert_eq!(f.default, wesl::Feature::Disable);
    }
}
