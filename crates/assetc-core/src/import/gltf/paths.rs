//! URI handling shared by buffers and images: `data:` URIs and relative file references that
//! must stay inside the input tree.

use super::Ctx;
use base64::Engine;
use std::path::{Component, Path, PathBuf};

/// Why a URI or a file name cannot be read from: a `data:` URI we cannot decode, or a
/// reference that would leave the input tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UriError {
    #[error("data: URI without a ',' separator")]
    NoSeparator,
    #[error("bad base64 in data: URI: {0}")]
    BadBase64(String),
    #[error("absolute or remote URIs are not allowed")]
    AbsoluteUri,
    #[error("URI is not UTF-8 after percent-decoding")]
    NotUtf8,
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

/// A decoded `data:` URI.
pub struct DataUri {
    pub mime_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// `None` when `uri` is not a `data:` URI; `Some(Err)` when it is one we cannot decode.
pub fn parse_data_uri(uri: &str) -> Option<Result<DataUri, UriError>> {
    let rest = uri.strip_prefix("data:")?;
    let Some((header, payload)) = rest.split_once(',') else {
        return Some(Err(UriError::NoSeparator));
    };
    let (mime, is_base64) = match header.strip_suffix(";base64") {
        Some(mime) => (mime, true),
        None => (header, false),
    };
    let mime_type = (!mime.is_empty()).then(|| mime.to_string());
    let bytes = if is_base64 {
        match base64::engine::general_purpose::STANDARD.decode(payload.trim()) {
            Ok(b) => b,
            Err(e) => return Some(Err(UriError::BadBase64(e.to_string()))),
        }
    } else {
        percent_encoding::percent_decode_str(payload).collect()
    };
    Some(Ok(DataUri { mime_type, bytes }))
}

/// Resolves a relative URI against the source folder and checks that it stays inside the
/// input root: first lexically (so that a missing file still gets a path the texture stage
/// can report), then, for a file that exists, by its real path, so that a symbolic link in
/// the tree cannot lead a build to read (or the Qt target to copy) a file outside it.
pub fn resolve_relative(ctx: &Ctx, uri: &str) -> Result<PathBuf, UriError> {
    if uri.contains("://") || uri.starts_with('/') || uri.starts_with('\\') {
        return Err(UriError::AbsoluteUri);
    }
    let decoded = percent_encoding::percent_decode_str(uri)
        .decode_utf8()
        .map_err(|_| UriError::NotUtf8)?;
    resolve_below(&ctx.base_dir, &ctx.input_root, Path::new(decoded.as_ref()))
}

/// Resolves a relative file name (already decoded) against `base_dir` and checks that it
/// stays inside `input_root`, lexically and by its real path, as [`resolve_relative`]
/// describes. Shared with the OBJ importer (`mtllib` files and MTL texture maps).
pub fn resolve_below(
    base_dir: &Path,
    input_root: &Path,
    relative: &Path,
) -> Result<PathBuf, UriError> {
    if relative.is_absolute() || relative.has_root() {
        return Err(UriError::AbsolutePath);
    }
    let joined = normalize(&absolute(base_dir).join(relative));
    let root = normalize(&absolute(input_root));
    if !joined.starts_with(&root) {
        return Err(UriError::OutsideRoot { path: joined, root });
    }
    check_real_path(&joined, &root)?;
    Ok(joined)
}

/// Refuses a path that exists but whose real location (every symbolic link followed) is
/// outside the real input root. A path that does not exist is left to the reader, which
/// reports it missing; a dangling link is refused here because it names a target we will
/// not follow.
fn check_real_path(path: &Path, root: &Path) -> Result<(), UriError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let real = std::fs::canonicalize(path).map_err(|e| UriError::Unresolvable {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    let real_root = std::fs::canonicalize(root).map_err(|e| UriError::RootUnresolvable {
        root: root.to_owned(),
        reason: e.to_string(),
    })?;
    if !real.starts_with(&real_root) {
        return Err(UriError::LinkOutsideRoot {
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

    #[test]
    fn data_uri_base64_and_plain() {
        let d = parse_data_uri("data:application/octet-stream;base64,AAEC")
            .and_then(Result::ok)
            .map(|d| (d.mime_type, d.bytes));
        assert_eq!(
            d,
            Some((Some("application/octet-stream".into()), vec![0, 1, 2]))
        );
        assert!(parse_data_uri("foo.bin").is_none());
        assert!(matches!(parse_data_uri("data:;base64,@@"), Some(Err(_))));
    }

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
