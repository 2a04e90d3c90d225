//! Finding the sources of a build and naming their outputs.

use std::path::{Path, PathBuf};

/// A source file found under the input root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    /// Path relative to the input root, `/`-separated, as found (case kept).
    pub rel_path: String,
    pub abs_path: PathBuf,
}

impl Source {
    /// The runtime ref: relative path without extension, lower-cased (`models/chair`).
    pub fn runtime_ref(&self) -> String {
        runtime_ref(&self.rel_path)
    }
    /// `<runtime ref>.<ext>`: the output path of this source's file of that kind.
    pub fn output_rel(&self, ext: &str) -> String {
        format!("{}.{ext}", self.runtime_ref())
    }
}

/// Runtime ref of a relative path: extension dropped, lower-cased, `/`-separated.
pub fn runtime_ref(rel_path: &str) -> String {
    let unified = rel_path.replace('\\', "/");
    let without_ext = match unified.rfind('.') {
        Some(dot) if !unified[dot..].contains('/') => &unified[..dot],
        _ => unified.as_str(),
    };
    without_ext.to_lowercase()
}

fn is_source(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("gltf" | "glb")
    )
}

/// Every `.gltf`/`.glb` below `root` (or `root` itself when it is a file), sorted by
/// relative path so the build order never depends on the file system.
pub fn discover_sources(root: &Path) -> std::io::Result<Vec<Source>> {
    if root.is_file() {
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(vec![Source {
            rel_path: name,
            abs_path: root.to_path_buf(),
        }]);
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
    {
        let entry = entry.map_err(std::io::Error::other)?;
        if !entry.file_type().is_file() || !is_source(entry.path()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel_path = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.push(Source {
            rel_path,
            abs_path: entry.path().to_path_buf(),
        });
    }
    out.sort();
    Ok(out)
}

/// The root that source paths are relative to: the input folder, or a single file's folder.
pub fn input_root(input: &Path) -> PathBuf {
    if input.is_file() {
        input
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        input.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_ref_examples() {
        assert_eq!(runtime_ref("models/Chair.glb"), "models/chair");
        assert_eq!(runtime_ref("a.b/C"), "a.b/c");
        assert_eq!(runtime_ref("x\\Y.gltf"), "x/y");
    }
}
