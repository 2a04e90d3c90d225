//! The output folder: the names of the files a build keeps there besides the runtime
//! files, and atomic output: every file is written to a temporary sibling and renamed into
//! place, so a reader (or a killed build) never sees a partial file.

/// The manifest of an output folder.
pub const MANIFEST_NAME: &str = "assets.hman";

/// Where each source's outputs went (`driver::source_map`): for tools, not a runtime file.
pub const SOURCE_MAP_NAME: &str = "assets.map.json";

/// The incremental-build cache an output folder keeps (not a runtime file).
pub const CACHE_NAME: &str = ".assetc-cache.bin";

/// The JSON cache of earlier releases: read once for the outputs it lists, removed when
/// the cache is next saved (`driver::cache`).
pub const LEGACY_CACHE_NAME: &str = ".assetc-cache.json";

use std::io::Write;
use std::path::Path;

/// Why [`write_atomic`] refused a destination.
#[derive(Debug, thiserror::Error)]
#[error("it is {what}, not a regular file: refusing to replace it")]
pub struct NotRegularFile {
    /// What is there: "a folder", "a symlink", "a FIFO", "a device", ...
    pub what: &'static str,
}

/// Writes `bytes` to `path` atomically, creating parent folders. Skips the write when the
/// file already holds exactly these bytes (keeps modification times stable for tools that
/// watch the output).
///
/// Only a regular file (or nothing) is ever replaced: the rename would otherwise swap a
/// device node, a FIFO or a symlink for a plain file (as root, `preview -o /dev/zero`
/// replaced the device). Such a destination is refused, untouched, with a
/// [`NotRegularFile`] error, and it is never read: reading a FIFO blocks and a device can
/// stream without end.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => {
            if meta.len() == bytes.len() as u64 && holds(path, bytes) {
                return Ok(false);
            }
        }
        Ok(meta) => {
            return Err(std::io::Error::other(NotRegularFile {
                what: file_type_name(&meta.file_type()),
            }))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
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

/// Whether the regular file at `path` holds exactly `bytes`. Opened without following a
/// symlink and without blocking, then checked again on the open handle, so a file swapped
/// for a FIFO or a device since it was looked at is not read either; at most
/// `bytes.len() + 1` bytes are read.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let Ok(file) = options.open(path) else {
        return false;
    };
    match file.metadata() {
        Ok(meta) if meta.is_file() && meta.len() == bytes.len() as u64 => {}
        _ => return false,
    }
    let mut existing = Vec::with_capacity(bytes.len());
    match file.take(bytes.len() as u64 + 1).read_to_end(&mut existing) {
        Ok(_) => existing == bytes,
        Err(_) => false,
    }
}

/// A file type in words, for messages.
pub fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symlink"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
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

/// Removes leftover temporary files of killed builds below `root`. Symlinks are never
/// followed (a link inside the output would make the sweep delete `.tmp` files in the
/// folder it points to, and two links to `.` would make it loop for ever): a symlinked
/// folder is left alone, a symlink named like a temporary is removed as a link.
pub fn remove_stale_temporaries(root: &Path) {
    let Ok(walk) = std::fs::read_dir(root) else {
        return;
    };
    for entry in walk.flatten() {
        // `DirEntry::file_type` does not follow symlinks.
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        // Every output file passes here on every build (a no-op one too): the name is
        // looked at as bytes, and a path made only for what is entered or removed.
        let name = entry.file_name();
        let bytes = name.as_encoded_bytes();
        if file_type.is_dir() {
            remove_stale_temporaries(&entry.path());
        } else if bytes.starts_with(b".") && bytes.ends_with(b".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Why an output folder is refused before anything is written or swept.
#[derive(Debug, thiserror::Error)]
pub enum OutputFolderError {
    #[error("output folder {0} is the root of a file system: a build sweeps and removes files below its output")]
    FileSystemRoot(std::path::PathBuf),
    #[error("output folder {output} is the input folder or contains it ({input}): a build sweeps and removes files below its output")]
    ContainsInput {
        output: std::path::PathBuf,
        input: std::path::PathBuf,
    },
}

/// Checks that `output` may be a build's output folder: a build deletes stale temporaries
/// and orphaned outputs below it (and with `--no-cache` every runtime file it did not
/// write), so a file-system root, the input folder or a folder that contains the input
/// is refused. Paths are compared by their real paths (an output that does not exist yet
/// is resolved through its nearest existing ancestor).
pub fn check_output_folder(output: &Path, input_root: &Path) -> Result<(), OutputFolderError> {
    let out = real_path(output);
    if out.parent().is_none() {
        return Err(OutputFolderError::FileSystemRoot(output.to_path_buf()));
    }
    let input = real_path(input_root);
    if input.starts_with(&out) {
        return Err(OutputFolderError::ContainsInput {
            output: output.to_path_buf(),
            input: input_root.to_path_buf(),
        });
    }
    Ok(())
}

/// The real path of `path`, or of its nearest existing ancestor with the rest appended
/// (`.` and `..` in the rest resolved by name).
fn real_path(path: &Path) -> std::path::PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| Path::new("/").to_path_buf())
            .join(path)
    };
    let mut rest = Vec::new();
    let mut base = absolute.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            let mut out = real;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::Normal(p) => out.push(p),
                    _ => {}
                }
            }
            return out;
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => return absolute,
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

    /// Each destination is refused with an error naming what is there, returns at once
    /// (a read of the FIFO would block, of /dev/zero would not end), and is left as it
    /// was.
    #[test]
    #[cfg(unix)]
    fn destinations_that_are_not_regular_files_are_refused_and_left_alone() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.png");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let link = dir.path().join("zero.png");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let folder = dir.path().join("folder.png");
        std::fs::create_dir(&folder).unwrap();
        for (path, what) in [
            (fifo.as_path(), "a FIFO"),
            (link.as_path(), "a symlink"),
            (folder.as_path(), "a folder"),
            (Path::new("/dev/null"), "a device"),
        ] {
            let started = std::time::Instant::now();
            let e = write_atomic(path, b"png bytes").unwrap_err();
            assert!(started.elapsed() < std::time::Duration::from_secs(2));
            assert!(e.to_string().contains(what), "{}: {e}", path.display());
            assert!(e.to_string().contains("refusing to replace it"), "{e}");
        }
        let t = |p: &Path| std::fs::symlink_metadata(p).unwrap().file_type();
        assert!(t(&fifo).is_fifo());
        assert!(t(&link).is_symlink());
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/dev/zero"));
        assert!(t(&folder).is_dir());
        assert!(t(Path::new("/dev/null")).is_char_device());
        // Nothing was left behind beside them.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 3);
    }

    #[test]
    #[cfg(unix)]
    fn the_sweep_follows_no_symlink_and_ends_on_self_links() {
        let dir = tempfile::tempdir().unwrap();
        let (out, elsewhere) = (dir.path().join("out"), dir.path().join("elsewhere"));
        std::fs::create_dir_all(out.join("sub")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(out.join("sub/.a.hmesh.1.tmp"), b"x").unwrap();
        std::fs::write(elsewhere.join(".keep.tmp"), b"x").unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("link")).unwrap();
        std::os::unix::fs::symlink(".", out.join("l1")).unwrap();
        std::os::unix::fs::symlink(".", out.join("l2")).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let root = out.clone();
        std::thread::spawn(move || {
            remove_stale_temporaries(&root);
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(10))
            .expect("the sweep ends");
        assert!(
            !out.join("sub/.a.hmesh.1.tmp").exists(),
            "its own temporaries go"
        );
        assert!(
            elsewhere.join(".keep.tmp").exists(),
            "a folder outside the output is not swept"
        );
    }

    #[test]
    fn roots_and_folders_holding_the_input_are_no_output_folders() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("game/assets");
        std::fs::create_dir_all(&input).unwrap();
        let refused = |out: &Path| check_output_folder(out, &input).unwrap_err().to_string();
        assert!(refused(Path::new("/")).contains("root of a file system"));
        assert!(refused(&input).contains("contains it"));
        assert!(refused(&dir.path().join("game")).contains("contains it"));
        assert!(refused(&input.join("../../game/./")).contains("contains it"));
        // Inside the input (discovery skips it), beside it, not created yet: fine.
        for ok in ["game/assets/runtime", "game/runtime", "new/deeper/out"] {
            check_output_folder(&dir.path().join(ok), &input).unwrap();
        }
    }

    #[test]
    fn a_regular_file_of_another_size_is_replaced_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.bin");
        std::fs::write(&target, vec![7u8; 1 << 20]).unwrap();
        assert!(write_atomic(&target, b"short").unwrap());
        assert_eq!(std::fs::read(&target).unwrap(), b"short");
    }
}
