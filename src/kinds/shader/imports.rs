//! Where the modules a shader imports are: in the input tree (`package::` is the input
//! root, `super::` is relative to the importing file) or, for a module of another package
//! (`bevy_pbr::forward_io`), in a folder of `[shader] import_paths`. Every file found is
//! inside the folder it was looked up in, symbolic links resolved: an import never reads
//! a file outside the input and the import folders.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The largest module read, as for a shader source.
pub const MAX_MODULE_BYTES: u64 = 16 << 20;
/// Most modules one shader may read: a generated chain of imports stops here rather than
/// reading a whole disk. Real shaders import tens of modules.
pub const MAX_MODULES: usize = 20_000;

/// Why an import cannot be read. Each names the module as the source spells it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(
        "module `{module}` is not in the input tree{where_}: add the folder that holds \
         `{file}` (.wesl or .wgsl) to `[shader] import_paths` in build.toml"
    )]
    NotFound {
        module: String,
        /// ` nor in import_paths (a, b)`, or ` and [shader] import_paths is not set`.
        where_: String,
        /// The file looked for, relative to a folder of modules.
        file: String,
    },
    #[error("module `{module}`: `{component}` cannot name a file (imports name modules, not paths)")]
    BadComponent { module: String, component: String },
    #[error("module `{module}` resolves to `{file}`, outside the folder it is looked up in ({root}): refused")]
    Outside {
        module: String,
        file: String,
        root: String,
    },
    #[error("module `{module}`: cannot read `{file}`: {reason}")]
    Unreadable {
        module: String,
        file: String,
        reason: String,
    },
    #[error("more than {MAX_MODULES} modules imported: refused")]
    TooMany,
}

/// Where one module's file is found.
#[derive(Debug, Clone)]
pub struct Found {
    pub file: PathBuf,
    pub text: String,
}

/// Looks modules up for one shader, and remembers every file it read (the shader's inputs)
/// and the first failure (the message a build shows, once).
pub struct ModuleFinder {
    /// The input root, as given and canonical: files are named under the first (as
    /// discovery names them), and must be inside the second.
    root: (PathBuf, PathBuf),
    /// `[shader] import_paths`, as given and canonical; those that do not exist are left
    /// out (and named in a not-found message as given).
    import_dirs: Vec<(PathBuf, PathBuf)>,
    import_paths_given: Vec<String>,
    read: RefCell<Vec<PathBuf>>,
    /// `read` as a set: a chain of thousands of modules must not compare paths pairwise.
    read_set: RefCell<HashSet<PathBuf>>,
    files: RefCell<HashMap<String, PathBuf>>,
    failure: RefCell<Option<ImportError>>,
}

impl ModuleFinder {
    pub fn new(input_root: &Path, import_dirs: &[PathBuf], import_paths_given: &[String]) -> Self {
        let both = |p: &Path| {
            (
                p.to_path_buf(),
                p.canonicalize().unwrap_or_else(|_| p.to_path_buf()),
            )
        };
        Self {
            root: both(input_root),
            import_dirs: import_dirs
                .iter()
                .filter(|d| d.is_dir())
                .map(|d| both(d))
                .collect(),
            import_paths_given: import_paths_given.to_vec(),
            read: RefCell::new(Vec::new()),
            read_set: RefCell::new(HashSet::new()),
            files: RefCell::new(HashMap::new()),
            failure: RefCell::new(None),
        }
    }

    /// The files read so far, in the order they were first read.
    pub fn files_read(&self) -> Vec<PathBuf> {
        self.read.borrow().clone()
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<ImportError> {
        self.failure.borrow().clone()
    }

    /// The file of a module read before (by its display name), for messages.
    pub fn file_of(&self, module: &str) -> Option<PathBuf> {
        self.files.borrow().get(module).cloned()
    }

    fn fail(&self, e: ImportError) -> ImportError {
        let mut failure = self.failure.borrow_mut();
        if failure.is_none() {
            *failure = Some(e.clone());
        }
        e
    }

    /// The module `components` of package `package` (`None`: the input tree's own), as
    /// `module` spells it; `extensions` are tried in order.
    pub fn find(
        &self,
        module: &str,
        package: Option<&str>,
        components: &[String],
        extensions: &[&str],
    ) -> Result<Found, ImportError> {
        if self.read.borrow().len() >= MAX_MODULES {
            return Err(self.fail(ImportError::TooMany));
        }
        let mut relative = PathBuf::new();
        // A sub-package import is spelled `outer/inner` by wesl: the inner package is the
        // one whose folder is looked up.
        let package = package.map(|p| p.rsplit('/').next().unwrap_or(p));
        for part in package.into_iter().chain(components.iter().map(String::as_str)) {
            if !is_plain_name(part) {
                return Err(self.fail(ImportError::BadComponent {
                    module: module.to_string(),
                    component: part.to_string(),
                }));
            }
            relative.push(part);
        }
        // A package's root module (`constants::X`, which an engine makes at run time) is
        // the file named after the package.
        if components.is_empty() && package.is_none() {
            return Err(self.fail(ImportError::BadComponent {
                module: module.to_string(),
                component: String::new(),
            }));
        }
        let bases: Vec<&(PathBuf, PathBuf)> = match package {
            None => std::iter::once(&self.root).chain(&self.import_dirs).collect(),
            Some(_) => self.import_dirs.iter().collect(),
        };
        // A package's modules are in its folder, or in its `src/` when the folder is a
        // crate's (`bevy_pbr/src/render/forward_io.wesl`, as engines ship them).
        let in_crate = package.filter(|_| !components.is_empty()).map(|p| {
            let mut r = PathBuf::from(p);
            r.push("src");
            r.extend(components);
            r
        });
        for (given, canonical) in bases {
            for relative in std::iter::once(&relative).chain(&in_crate) {
                for ext in extensions {
                    let candidate = given.join(relative).with_extension(ext);
                    if !candidate.is_file() {
                        continue;
                    }
                    return self.read_inside(module, canonical, &candidate);
                }
            }
        }
        let where_ = match self.import_paths_given.as_slice() {
            [] => " and `[shader] import_paths` is not set".to_string(),
            given => format!(" nor in `[shader] import_paths` ({})", given.join(", ")),
        };
        Err(self.fail(ImportError::NotFound {
            module: module.to_string(),
            where_,
            file: relative.display().to_string().replace('\\', "/"),
        }))
    }

    fn read_inside(&self, module: &str, base: &Path, file: &Path) -> Result<Found, ImportError> {
        let unreadable = |reason: String| ImportError::Unreadable {
            module: module.to_string(),
            file: file.display().to_string(),
            reason,
        };
        let real = file
            .canonicalize()
            .map_err(|e| self.fail(unreadable(e.to_string())))?;
        if !real.starts_with(base) {
            return Err(self.fail(ImportError::Outside {
                module: module.to_string(),
                file: real.display().to_string(),
                root: base.display().to_string(),
            }));
        }
        let bytes = crate::kinds::texture::read_limited(&real, MAX_MODULE_BYTES)
            .map_err(|e| self.fail(unreadable(e.to_string())))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            self.fail(unreadable(format!(
                "not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            )))
        })?;
        let file = file.to_path_buf();
        if self.read_set.borrow_mut().insert(file.clone()) {
            self.read.borrow_mut().push(file.clone());
        }
        self.files
            .borrow_mut()
            .insert(module.to_string(), file.clone());
        Ok(Found { file, text })
    }
}

/// A module path component that is one plain file name: no separator, not `.` or `..`.
fn is_plain_name(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && !part.contains(['/', '\\', ':', '\0'])
        && !part.starts_with('.')
}

/// The input root of a source: its path less its path relative to the root.
fn input_root_of(source: &crate::kinds::source::Source) -> PathBuf {
    let depth = source
        .rel_path
        .split(['/', '\\'])
        .filter(|c| !c.is_empty())
        .count();
    source
        .abs_path
        .ancestors()
        .nth(depth)
        .map_or_else(PathBuf::new, Path::to_path_buf)
}

/// The files of the input tree a shader source imports directly, read cheaply from its
/// text (without parsing its code, so a source with a syntax error still lists them):
/// the modules that exist of its `import` statements (`.wesl`) or `#import` lines (WGSL
/// for naga_oil). They are its inputs, not sources of their own.
pub fn referenced_files(source: &crate::kinds::source::Source) -> Vec<PathBuf> {
    let Ok(bytes) = crate::kinds::texture::read_limited(&source.abs_path, MAX_MODULE_BYTES)
    else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    let root = input_root_of(source);
    if super::language::has_directives(&text) {
        let roots = [root];
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(&text);
        let index = super::module_index::index_of(&roots, false);
        return imports
            .iter()
            .filter(|i| followable_import(&i.import))
            .filter_map(|i| {
                let mut name = i.import.as_str();
                loop {
                    if let Some(file) = index.get(name) {
                        return Some(file.clone());
                    }
                    name = name.rsplit_once("::")?.0;
                }
            })
            .collect();
    }
    let module: Vec<&str> = source
        .rel_path
        .rsplit_once('.')
        .map_or(source.rel_path.as_str(), |(stem, _)| stem)
        .split(['/', '\\'])
        .filter(|c| !c.is_empty())
        .collect();
    let mut files = Vec::new();
    for path in wesl_import_paths(&text) {
        let (dir_parts, rest): (Vec<&str>, &[String]) = match path.first().map(String::as_str) {
            Some("package") => (Vec::new(), &path[1..]),
            Some("super") => {
                let supers = path.iter().take_while(|c| *c == "super").count();
                let keep = module.len().saturating_sub(supers);
                (module[..keep].to_vec(), &path[supers..])
            }
            _ => continue,
        };
        if rest.iter().any(|c| !is_plain_name(c)) {
            continue;
        }
        let mut candidate = root.clone();
        candidate.extend(dir_parts);
        for part in rest {
            candidate.push(part);
            for ext in ["wesl", "wgsl"] {
                let file = candidate.with_extension(ext);
                if file.is_file() && !files.contains(&file) {
                    files.push(file);
                }
            }
        }
    }
    files
}

/// Deepest `{ }` nesting of one import statement read.
const MAX_IMPORT_NESTING: usize = 32;

/// Most components of one import path (`a::b::c` has three). Module paths mirror folder
/// depth, so real ones have a handful; a longer one is not followed, which keeps reading
/// imports linear in the text: each path named is copied once per item that ends it, so
/// `import a::a::…::{b, b, …}` would otherwise cost its length squared.
pub const MAX_IMPORT_PATH_COMPONENTS: usize = 64;

/// Whether an import path written `a::b::c` (naga_oil's form) is short enough to follow.
pub fn followable_import(path: &str) -> bool {
    path.split("::").nth(MAX_IMPORT_PATH_COMPONENTS).is_none()
}

/// Every path an `import` statement of a WESL text names, each a list of components
/// (`import package::a::{b, c::d};` names `package::a::b` and `package::a::c::d`).
pub fn wesl_import_paths(text: &str) -> Vec<Vec<String>> {
    let tokens = tokens(text);
    let mut paths = Vec::new();
    let mut i = 0;
    let mut statement_start = true;
    while i < tokens.len() {
        let t = tokens[i];
        if statement_start && t == "import" {
            let mut prefix = Vec::new();
            i = import_tree(&tokens, i + 1, &mut prefix, &mut paths, 0);
            statement_start = true;
            continue;
        }
        statement_start = matches!(t, ";" | "}" | ")");
        i += 1;
    }
    paths
}

/// Reads one import tree from `tokens[i..]` after `prefix`, adding the paths it names;
/// returns where it ends.
fn import_tree(
    tokens: &[&str],
    mut i: usize,
    prefix: &mut Vec<String>,
    paths: &mut Vec<Vec<String>>,
    depth: usize,
) -> usize {
    let start_len = prefix.len();
    loop {
        match tokens.get(i).copied() {
            Some("{") if depth < MAX_IMPORT_NESTING => {
                i += 1;
                loop {
                    i = import_tree(tokens, i, prefix, paths, depth + 1);
                    match tokens.get(i).copied() {
                        Some(",") => i += 1,
                        Some("}") => {
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                    if tokens.get(i) == Some(&"}") {
                        i += 1;
                        break;
                    }
                }
                prefix.truncate(start_len);
                return i;
            }
            Some(word) if is_word(word) && prefix.len() < MAX_IMPORT_PATH_COMPONENTS => {
                prefix.push(word.to_string());
                i += 1;
                if tokens.get(i) == Some(&"::") {
                    i += 1;
                    continue;
                }
                paths.push(prefix.clone());
                if tokens.get(i) == Some(&"as") {
                    i += 2;
                }
                prefix.truncate(start_len);
                return i;
            }
            _ => {
                prefix.truncate(start_len);
                return i;
            }
        }
    }
}

fn is_word(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Words, `::` and single punctuation of `text`, comments left out.
fn tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            // Block comments nest in WGSL.
            let mut depth = 0usize;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if bytes[i..].starts_with(b"::") {
            out.push("::");
            i += 2;
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            // Word boundaries fall on ASCII bytes, so the slice is on char boundaries.
            if let Some(word) = text.get(start..i) {
                out.push(word);
            }
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            if let Some(p) = text.get(i..i + len) {
                out.push(p);
            }
            i += len;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_statements_name_their_paths() {
        let text = "// import package::commented;\n\
                    import package::a::{b, c::{d, e as f}};\n\
                    @if(X) import super::g;\n\
                    /* import package::no; */ fn main() {}\n";
        let paths: Vec<String> = wesl_import_paths(text)
            .iter()
            .map(|p| p.join("::"))
            .collect();
        assert_eq!(
            paths,
            ["package::a::b", "package::a::c::d", "package::a::c::e", "super::g"]
        );
    }

    #[test]
    fn an_import_path_longer_than_the_limit_is_not_followed() {
        let n = MAX_IMPORT_PATH_COMPONENTS;
        let fits = format!("import {}b;", "a::".repeat(n - 1));
        assert_eq!(wesl_import_paths(&fits).len(), 1);
        // A long prefix shared by many items: none is followed, and no path is longer
        // than the limit (each item would otherwise copy the whole prefix).
        let items = vec!["b"; 10_000].join(", ");
        let hostile = format!("import {}{{{items}}};", "a::".repeat(10_000));
        let paths = wesl_import_paths(&hostile);
        assert!(paths.iter().all(|p| p.len() <= n), "{}", paths.len());
        assert!(paths.len() <= 1, "{}", paths.len());
        assert!(followable_import(&format!("{}b", "a::".repeat(n - 1))));
        assert!(!followable_import(&format!("{}b", "a::".repeat(n))));
    }

    /// Seeded mutations of a WESL text with imports through the scanner: every path it
    /// returns is within the limits and made of words, whatever the text.
    #[test]
    fn mutated_import_statements_give_bounded_paths_of_words() {
        let seed = "import package::a::{b, c::{d, e as f}};\n@if(X) import super::g;\n\
                    /* import package::no; /* nested */ */ fn main() {}\n// import x;\n";
        let pieces = ["import ", "::", "{", "}", ",", ";", "/*", "*/", "//", "\n", "as ", "é", "super"];
        let mut state = 0x1234_5678_9abc_def0_u64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let mut found = 0;
        for _ in 0..3_000 {
            let mut text = seed.to_string();
            for _ in 0..1 + next() % 6 {
                let mut at = (next() % (text.len() as u64 + 1)) as usize;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if next() % 3 == 0 {
                    let mut end = (at + (next() % 8) as usize).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, "");
                } else {
                    text.insert_str(at, pieces[(next() % pieces.len() as u64) as usize]);
                }
            }
            for path in wesl_import_paths(&text) {
                found += 1;
                assert!(!path.is_empty() && path.len() <= MAX_IMPORT_PATH_COMPONENTS, "{text}");
                assert!(path.iter().all(|c| is_word(c)), "{path:?} from {text}");
            }
        }
        assert!(found > 1_000, "the mutations left {found} paths");
    }

    #[test]
    fn names_that_are_paths_are_refused() {
        assert!(is_plain_name("lighting"));
        for bad in ["", "..", ".", "a/b", "a\\b", ".hidden"] {
            assert!(!is_plain_name(bad), "{bad}");
        }
    }
}
