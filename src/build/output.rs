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
    result.map(|()| {
        abort_if_write_limit_reached();
        true
    })
}

/// The environment variable of the killed-build test hook: with `=N`, the process aborts
/// (no cleanup, like SIGKILL) right after its N-th file is renamed into place, so a test
/// can kill a build in the middle of writing without guessing a time.
pub const ABORT_AFTER_WRITES_ENV: &str = "ASSETC_TEST_ABORT_AFTER_WRITES";

fn abort_if_write_limit_reached() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static LIMIT: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    static WRITTEN: AtomicUsize = AtomicUsize::new(0);
    let limit = LIMIT.get_or_init(|| {
        std::env::var(ABORT_AFTER_WRITES_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
    });
    if let Some(limit) = *limit {
        if WRITTEN.fetch_add(1, Ordering::SeqCst) + 1 >= limit {
            std::process::abort();
        }
    }
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

/// The runtime files below `root` that `assetc check` requires the manifest to list
/// (`.hmesh`, `.hmat`, `.hanim`, `.ktx2`), as `/`-separated paths relative to `root`.
pub fn runtime_files(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            matches!(
                e.path().extension().and_then(|x| x.to_str()),
                Some("hmesh" | "hmat" | "hanim" | "ktx2")
            )
        })
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        })
        .collect()
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
