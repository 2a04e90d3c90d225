//! WGSL written for naga_oil (`#define_import_path`, `#import a::b::{c, d}`, `#ifdef`), as
//! Bevy's shaders are: the modules it imports are found by the import path their files
//! define, in the input tree and in `[shader] import_paths`, and composed with it by the
//! `naga_oil` crate into one naga module.

use super::location::{line_col, LineCol};
use super::module_index::{defined_import_path, index_of, Index};
use naga_oil::compose::{
    ComposableModuleDescriptor, Composer, ComposerErrorInner, ErrSource, NagaModuleDescriptor,
    ShaderDefValue, ShaderLanguage, ShaderType,
};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A composed module and the files it was composed from (the source first).
pub struct Composed {
    pub module: naga::Module,
    pub files: Vec<PathBuf>,
}

/// Why a source cannot be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ComposeError {
    pub file: PathBuf,
    pub at: Option<LineCol>,
    pub message: String,
}

/// What can go wrong before naga_oil is asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    #[error(
        "module `{module}` is defined (`#define_import_path`) by no .wgsl file in the input \
         tree{where_}: add the folder of its modules to `[shader] import_paths` in build.toml"
    )]
    NotFound { module: String, where_: String },
    #[error("import cycle: {0}")]
    Cycle(String),
    #[error("module `{module}`: {problem}")]
    Unreadable { module: String, problem: String },
    #[error(
        "an #import path of {components} components: longer than the {} a module path may have",
        super::imports::MAX_IMPORT_PATH_COMPONENTS
    )]
    TooLong { components: usize },
}

/// `[shader] defines` as naga_oil's shader defs: `"true"`/`"false"` and integers are
/// themselves, any other value (an empty one too) defines the name as true.
pub fn shader_defs(defines: &BTreeMap<String, String>) -> HashMap<String, ShaderDefValue> {
    defines
        .iter()
        .map(|(name, value)| {
            let value = match value.trim() {
                "false" => ShaderDefValue::Bool(false),
                v => match v.parse::<i32>() {
                    Ok(i) => ShaderDefValue::Int(i),
                    Err(_) => ShaderDefValue::Bool(true),
                },
            };
            (name.clone(), value)
        })
        .collect()
}

/// One module found, with what it imports.
struct Module {
    name: String,
    file: PathBuf,
    text: String,
    imports: Vec<String>,
}

/// Composes the source `text` (the file `file`) with the modules it imports.
pub fn compose(
    text: &str,
    file: &Path,
    input_root: &Path,
    import_dirs: &[PathBuf],
    import_paths_given: &[String],
    defines: &BTreeMap<String, String>,
) -> Result<Composed, ComposeError> {
    // Walked as given (files are named as discovery names them), checked canonical.
    let roots: Vec<PathBuf> = std::iter::once(input_root.to_path_buf())
        .chain(import_dirs.iter().filter(|d| d.is_dir()).cloned())
        .collect();
    let canonical_roots: Vec<PathBuf> = roots
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.to_path_buf()))
        .collect();
    let at_source = |message: String| ComposeError {
        file: file.to_path_buf(),
        at: None,
        message,
    };
    let where_ = match import_paths_given {
        [] => " and `[shader] import_paths` is not set".to_string(),
        given => format!(" nor in `[shader] import_paths` ({})", given.join(", ")),
    };
    let finder = Finder {
        roots: &roots,
        canonical_roots: &canonical_roots,
        where_,
        index: std::cell::RefCell::new(index_of(&roots, false)),
    };
    // Every module reachable, found breadth-first; then added to the composer after the
    // modules they import (naga_oil needs those first), an import cycle refused.
    let (_, source_imports, _) = naga_oil::compose::get_preprocessor_data(text);
    let mut modules: Vec<Module> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut queue: Vec<(String, PathBuf)> = Vec::new();
    let mut root_imports = Vec::new();
    // An import not found is left to naga_oil: one under an `#ifdef` that is off is no
    // error; one it needs is, with its place (`composer_error`).
    for import in &source_imports {
        if let Ok(name) = finder.module_of(&import.import) {
            root_imports.push(name.0.clone());
            queue.push(name);
        }
    }
    while let Some((name, path)) = queue.pop() {
        if by_name.contains_key(&name) {
            continue;
        }
        if modules.len() >= super::imports::MAX_MODULES {
            return Err(at_source(super::imports::ImportError::TooMany.to_string()));
        }
        let module_text = finder.read(&name, &path).map_err(|e| at_source(e.to_string()))?;
        let (_, imports, _) = naga_oil::compose::get_preprocessor_data(&module_text);
        let mut names = Vec::new();
        for import in &imports {
            if let Ok(found) = finder.module_of(&import.import) {
                names.push(found.0.clone());
                queue.push(found);
            }
        }
        by_name.insert(name.clone(), modules.len());
        modules.push(Module {
            name,
            file: path,
            text: module_text,
            imports: names,
        });
    }
    let order = dependency_order(&modules, &by_name, &root_imports)
        .map_err(|e| at_source(e.to_string()))?;
    let where_ = finder.where_.clone();

    let defs = shader_defs(defines);
    let mut composer = Composer::default().with_capabilities(naga::valid::Capabilities::all());
    let texts: HashMap<String, &str> = modules
        .iter()
        .map(|m| (m.file.display().to_string(), m.text.as_str()))
        .chain(std::iter::once((file.display().to_string(), text)))
        .collect();
    for &i in &order {
        let m = &modules[i];
        let path = m.file.display().to_string();
        let failed = composer
            .add_composable_module(ComposableModuleDescriptor {
                source: &m.text,
                file_path: &path,
                language: ShaderLanguage::Wgsl,
                as_name: None,
                additional_imports: &[],
                shader_defs: defs.clone(),
            })
            .err();
        if let Some(e) = failed {
            return Err(composer_error(&composer, e, &texts, &where_));
        }
    }
    let path = file.display().to_string();
    let module = composer
        .make_naga_module(NagaModuleDescriptor {
            source: text,
            file_path: &path,
            shader_type: ShaderType::Wgsl,
            shader_defs: defs,
            additional_imports: &[],
        })
        .map_err(|e| composer_error(&composer, e, &texts, &where_))?;
    let mut files = vec![file.to_path_buf()];
    files.extend(order.iter().map(|&i| modules[i].file.clone()));
    Ok(Composed { module, files })
}

struct Finder<'a> {
    roots: &'a [PathBuf],
    canonical_roots: &'a [PathBuf],
    where_: String,
    index: std::cell::RefCell<Arc<Index>>,
}

impl Finder<'_> {
    /// The module an `#import` names and its file: the longest prefix of the path that a
    /// file defines (`#import a::b::c` imports item `c` of module `a::b`).
    fn module_of(&self, import: &str) -> Result<(String, PathBuf), ModuleError> {
        let import = import.trim().trim_matches('"');
        if !super::imports::followable_import(import) {
            return Err(ModuleError::TooLong {
                components: import.split("::").count(),
            });
        }
        for fresh in [false, true] {
            if fresh {
                *self.index.borrow_mut() = index_of(self.roots, true);
            }
            let index = self.index.borrow();
            let mut name = import;
            loop {
                if let Some(path) = index.get(name) {
                    return Ok((name.to_string(), path.clone()));
                }
                match name.rsplit_once("::") {
                    Some((shorter, _)) => name = shorter,
                    None => break,
                }
            }
        }
        Err(ModuleError::NotFound {
            module: import.to_string(),
            where_: self.where_.clone(),
        })
    }

    /// The module's text, from a file still inside its folder that still defines it.
    fn read(&self, name: &str, path: &Path) -> Result<String, ModuleError> {
        let unreadable = |problem: String| ModuleError::Unreadable {
            module: name.to_string(),
            problem,
        };
        let real = path
            .canonicalize()
            .map_err(|e| unreadable(format!("{}: {e}", path.display())))?;
        if !self.canonical_roots.iter().any(|r| real.starts_with(r)) {
            return Err(unreadable(format!(
                "{} is outside the input and the import folders: refused",
                real.display()
            )));
        }
        let bytes = crate::kinds::texture::read_limited(&real, super::imports::MAX_MODULE_BYTES)
            .map_err(|e| unreadable(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            unreadable(format!(
                "{}: not UTF-8 text (byte {})",
                real.display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        if defined_import_path(&text) != Some(name) {
            return Err(unreadable(format!(
                "{} no longer defines it (it was changed during the build)",
                real.display()
            )));
        }
        Ok(text)
    }
}

/// The modules in an order where each comes after those it imports; a cycle is an error
/// naming its modules.
fn dependency_order(
    modules: &[Module],
    by_name: &HashMap<String, usize>,
    roots: &[String],
) -> Result<Vec<usize>, ModuleError> {
    // Iterative depth-first search: a chain of thousands of imports must not recurse.
    let mut order = Vec::with_capacity(modules.len());
    let mut done: HashSet<usize> = HashSet::new();
    let mut on_path: Vec<usize> = Vec::new();
    let mut on_path_set: HashSet<usize> = HashSet::new();
    for root in roots {
        let Some(&start) = by_name.get(root) else {
            continue;
        };
        if done.contains(&start) {
            continue;
        }
        // (module, next import to visit)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        on_path.push(start);
        on_path_set.insert(start);
        while let Some((m, next)) = stack.last_mut() {
            let m = *m;
            if let Some(import) = modules[m].imports.get(*next) {
                *next += 1;
                let Some(&child) = by_name.get(import) else {
                    continue;
                };
                if done.contains(&child) {
                    continue;
                }
                if on_path_set.contains(&child) {
                    let from = on_path.iter().position(|&x| x == child).unwrap_or(0);
                    let cycle: Vec<&str> = on_path[from..]
                        .iter()
                        .chain(std::iter::once(&child))
                        .map(|&x| modules[x].name.as_str())
                        .collect();
                    return Err(ModuleError::Cycle(cycle.join(" -> ")));
                }
                stack.push((child, 0));
                on_path.push(child);
                on_path_set.insert(child);
            } else {
                stack.pop();
                on_path.pop();
                on_path_set.remove(&m);
                done.insert(m);
                order.push(m);
            }
        }
    }
    Ok(order)
}

/// naga_oil's error in the file it is in, at its line where it says.
fn composer_error(
    composer: &Composer,
    e: naga_oil::compose::ComposerError,
    texts: &HashMap<String, &str>,
    where_: &str,
) -> ComposeError {
    let (path, base) = match &e.source {
        ErrSource::Module { name, offset, .. } => (
            composer
                .module_sets
                .get(name)
                .map(|m| m.file_path.clone())
                .unwrap_or_else(|| name.clone()),
            *offset,
        ),
        ErrSource::Constructing { path, offset, .. } => (path.clone(), *offset),
    };
    let offset = match &e.inner {
        ComposerErrorInner::ImportNotFound(_, o) | ComposerErrorInner::ImportParseError(_, o) => {
            Some(*o)
        }
        ComposerErrorInner::WgslParseError(p) => p
            .labels()
            .next()
            .and_then(|(span, _)| span.to_range())
            .map(|r| r.start),
        _ => None,
    };
    let at = match &e.inner {
        // naga_oil's offset of a missing import does not point at its line: the
        // `#import` line that names it does.
        ComposerErrorInner::ImportNotFound(module, _) => texts.get(&path).and_then(|t| {
            let module = module.trim_matches('"');
            t.lines().enumerate().find_map(|(i, line)| {
                let directive = line.trim_start();
                (directive.starts_with("#import") && directive.contains(module)).then(|| {
                    LineCol {
                        line: i + 1,
                        col: line.len() - directive.len() + 1,
                    }
                })
            })
        }),
        _ => offset.and_then(|o| texts.get(&path).map(|t| line_col(t, base + o))),
    };
    let message = match &e.inner {
        ComposerErrorInner::ImportNotFound(module, _) => ModuleError::NotFound {
            module: module.trim_matches('"').to_string(),
            where_: where_.to_string(),
        }
        .to_string(),
        ComposerErrorInner::WgslParseError(p) => {
            let text = texts.get(&path).copied().unwrap_or("");
            super::compile::wgsl_diagnostic(text, p).message
        }
        inner => inner.to_string(),
    };
    ComposeError {
        file: PathBuf::from(path),
        at,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(name: &str, imports: &[&str]) -> Module {
        Module {
            name: name.to_string(),
            file: PathBuf::new(),
            text: String::new(),
            imports: imports.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn modules_come_after_their_imports_and_a_cycle_is_named() {
        let modules = vec![module("a", &["b", "c"]), module("b", &["c"]), module("c", &[])];
        let by_name: HashMap<String, usize> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect();
        let order = dependency_order(&modules, &by_name, &["a".to_string()]).unwrap();
        assert_eq!(order, vec![2, 1, 0]);
        let cyclic = vec![module("a", &["b"]), module("b", &["a"])];
        let by_name: HashMap<String, usize> = [("a".to_string(), 0), ("b".to_string(), 1)].into();
        let e = dependency_order(&cyclic, &by_name, &["a".to_string()]).unwrap_err();
        assert_eq!(e.to_string(), "import cycle: a -> b -> a");
    }
}
