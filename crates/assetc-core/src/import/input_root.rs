//! The input-root rule, in one place: a build reads no file that resolves outside its
//! input folder (README "Inputs"). Every reader of a file named by another file, or found
//! in a source folder, asks [`resolve_below`]: glTF buffers and images, OBJ `mtllib`
//! files and MTL maps, FBX images, cubemap faces, a font's `charset_file`.

use std::path::{Component, Path, PathBuf};

/// Why a file another file names cannot be read: it would leave the input tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputPathError {
    #[error("absolute paths are not allowed")]
    AbsolutePath,
    #[error("resolves to {} outside the input root {}", path.display(), root.display())]
    OutsideRoot { path: PathBuf, root: PathBuf },
    /// The operating system's error, as it words it.
    #[error("{} cannot be resolved: {reason}", path.display())]
    Unresolvable { path: PathBuf, reason: String },
    #[error("the input root {} cannot be resolved: {reason}", root.display())]
    RootUnresolvable { root: PathBuf, reason: String },
    #[error(
        "{} is a link to {}, outside the input root {}",
        path.display(),
        target.display(),
        root.display()
    )]
    LinkOutsideRoot {
        path: PathBuf,
        target: PathBuf,
        root: PathBuf,
    },
}

/// Resolves a file name another file gives (already decoded) against `base_dir`, the
/// folder it is relative to, and checks that it stays inside `input_root`: first
/// lexically (so that a missing file still gets a path its reader can report), then, for
/// a file that exists, by its real path, so that a symbolic link in the tree cannot lead
/// a build to read (or a target to copy) a file outside it.
pub fn resolve_below(
    base_dir: &Path,
    input_root: &Path,
    relative: &Path,
) -> Result<PathBuf, InputPathError> {
    if relative.is_absolute() || relative.has_root() {
        return Err(InputPathError::AbsolutePath);
    }
    let joined = normalize(&absolute(base_dir).join(relative));
    let root = normalize(&absolute(input_root));
    if !joined.starts_with(&root) {
        return Err(InputPathError::OutsideRoot { path: joined, root });
    }
    check_real_path(&joined, &root)?;
    Ok(joined)
}

/// Refuses a path that exists but whose real location (every symbolic link followed) is
/// outside the real input root. A path that does not exist is left to the reader, which
/// reports it missing; a dangling link is refused here because it names a target we will
/// not follow.
fn check_real_path(path: &Path, root: &Path) -> Result<(), InputPathError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let real = std::fs::canonicalize(path).map_err(|e| InputPathError::Unresolvable {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let real_root = std::fs::canonicalize(root).map_err(|e| InputPathError::RootUnresolvable {
        root: root.to_owned(),
        reason: e.to_string(),
    })?;
    if !real.starts_with(&real_root) {
        return Err(InputPathError::LinkOutsideRoot {
            path: path.to_owned(),
            target: real,
            root: real_root,
        });
    }
    Ok(())
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Removes `.` and resolves `..` without touching the file system; `..` above the root stays
/// at the root so that the containment check sees the real target.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn real_path_check_refuses_links_out_of_the_root() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.png"), b"x").unwrap();
        std::fs::write(root.path().join("inside.png"), b"x").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, root.path().join(name)).unwrap();
            root.path().join(name)
        };
        let out_file = link(&outside.path().join("secret.png"), "escape.png");
        let out_dir = link(outside.path(), "dir");
        let in_file = link(&root.path().join("inside.png"), "alias.png");
        let dangling = link(&outside.path().join("gone.png"), "dangling.png");
        let err = check_real_path(&out_file, root.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("outside the input root"), "{err}");
        assert!(check_real_path(&out_dir.join("secret.png"), root.path()).is_err());
        assert!(check_real_path(&in_file, root.path()).is_ok());
        assert!(check_real_path(&root.path().join("inside.png"), root.path()).is_ok());
        assert!(check_real_path(&dangling, root.path()).is_err());
        assert!(
            check_real_path(&root.path().join("missing.png"), root.path()).is_ok(),
            "a missing file is reported by the reader, with its path"
        );
    }

    #[test]
    fn normalize_resolves_parent_components() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/a/../../x")), PathBuf::from("/x"));
    }
}
