//! `--emit-deps`: a depfile for Make and ninja. One rule whose target is the manifest (the
//! one file every build writes) and whose prerequisites are every input of every asset,
//! the input folders (so adding a source reruns the rule), the `<file>.meta.toml` files
//! and build.toml. Paths follow the
//! output path as given: an absolute `-o` gives absolute paths everywhere; a relative one
//! gives paths relative to the working directory (absolute only for files outside it), so
//! the target matches the rule's output as the Makefile or build.ninja spells it. They are
//! escaped the way both Make and ninja read them.
//!
//! Every prerequisite also gets an empty rule of its own, as `gcc -MP` writes them: when a
//! source is deleted, Make then treats it as a target with no recipe that is out of date
//! (so the manifest is rebuilt) instead of failing with "No rule to make target".
//!
//! A Make or ninja rule compares the manifest's time with its inputs', so after writing
//! the depfile the manifest is touched even when its bytes did not change: otherwise an
//! edit that leaves the manifest identical would make the tool rerun the rule forever
//! (ninja's `restat = 1` is then not needed).

use super::BuildReport;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The depfile text for a build whose manifest is `manifest`.
pub fn depfile_text(
    report: &BuildReport,
    manifest: &Path,
    input: &Path,
    config: Option<&Path>,
) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let spell = |p: &Path| {
        let abs = absolute(p);
        match abs.strip_prefix(&cwd) {
            Ok(rel) if manifest.is_relative() && rel.as_os_str().is_empty() => PathBuf::from("."),
            Ok(rel) if manifest.is_relative() => rel.to_path_buf(),
            _ => abs,
        }
    };
    let mut deps: BTreeSet<PathBuf> = report.inputs().iter().map(|p| spell(p)).collect();
    deps.extend(folders_and_settings_below(input).iter().map(|p| spell(p)));
    deps.extend(config.map(spell));
    let mut out = escape(&spell(manifest));
    out.push(':');
    for d in &deps {
        out.push_str(" \\\n  ");
        out.push_str(&escape(d));
    }
    out.push('\n');
    for d in &deps {
        out.push('\n');
        out.push_str(&escape(d));
        out.push_str(":\n");
    }
    out
}

/// Sets the manifest's modification time to now (see the module comment).
pub fn touch(path: &Path) -> std::io::Result<()> {
    set_modified(path, std::time::SystemTime::now())
}

/// After a failed build: sets the manifest's modification time to the Unix epoch, older
/// than any input, so that Make and ninja run the build again next time instead of
/// calling the failed tree up to date (as a compiler deletes its output on failure).
pub fn mark_out_of_date(path: &Path) -> std::io::Result<()> {
    set_modified(path, std::time::UNIX_EPOCH)
}

fn set_modified(path: &Path, time: std::time::SystemTime) -> std::io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(time)
}

/// The input folder and every folder below it (a folder's time changes when a file is
/// added to or removed from it), and the settings files beside sources (`.meta.toml`: an
/// edit changes no folder's time). A single-file input gives its folder.
fn folders_and_settings_below(input: &Path) -> Vec<PathBuf> {
    let root = if input.is_file() {
        input.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        input.to_path_buf()
    };
    let mut out = vec![root.clone()];
    out.extend(
        walkdir::WalkDir::new(&root)
            .min_depth(1)
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .filter(|e| {
                let settings =
                    || crate::config::meta::is_meta_file(&e.file_name().to_string_lossy());
                (e.file_type().is_dir() || settings()) && !is_hidden(e.path())
            })
            .map(|e| e.path().to_path_buf()),
    );
    out
}

fn is_hidden(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Escapes a path for a Make/ninja depfile: space, `#` and `:` take a backslash, `$`
/// doubles, and a backslash before one of those (or at the end) doubles so that it stays
/// literal. Written by hand: no maintained crate writes depfiles.
pub fn escape(p: &Path) -> String {
    let s = p.to_string_lossy();
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        match c {
            ' ' | '#' | ':' => {
                out.push('\\');
                out.push(c);
            }
            '$' => out.push_str("$$"),
            '\\' if matches!(chars.get(i + 1), None | Some(' ' | '#' | ':')) => {
                out.push_str("\\\\")
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_make_and_ninja_split_on() {
        assert_eq!(escape(Path::new("/a b/c:d#e$f")), "/a\\ b/c\\:d\\#e$$f");
        assert_eq!(escape(Path::new("/plain/x.gltf")), "/plain/x.gltf");
        assert_eq!(escape(Path::new("/a\\b")), "/a\\b");
        assert_eq!(escape(Path::new("/a\\ b")), "/a\\\\\\ b");
    }
}
