//! Atomic output: every file is written to a temporary sibling and renamed into place, so
//! a reader (or a killed build) never sees a partial file.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating parent folders. Skips the write when the
/// file already holds exactly these bytes (keeps modification times stable for tools that
/// watch the output).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    if let Ok(existing) = std::fs::read(path) {
        if existing == bytes {
            return Ok(false);
        }
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        // No fsync: the rename is what makes the write atomic for readers and for a killed
        // build; surviving power loss is the file system's job, as for cargo's outputs.
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| true)
}

/// Removes leftover temporary files of killed builds below `root`.
pub fn remove_stale_temporaries(root: &Path) {
    let Ok(walk) = std::fs::read_dir(root) else {
        return;
    };
    for entry in walk.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            remove_stale_temporaries(&path);
        } else if name.starts_with('.') && name.ends_with(".tmp") {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_replaces_without_leaving_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub/a.bin");
        assert!(write_atomic(&target, b"one").unwrap());
        assert!(write_atomic(&target, b"two").unwrap());
        assert!(
            !write_atomic(&target, b"two").unwrap(),
            "identical content is not rewritten"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path().join("sub"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }
}
