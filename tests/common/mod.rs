//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared corpus, from `ASSETC_CORPUS` or `../shared/corpus`; `None` (and a printed
/// note) when it is absent.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ASSETC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped {test}: corpus not found at {} (set ASSETC_CORPUS)",
            dir.display()
        );
        None
    }
}

pub fn assetc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run assetc")
}

pub fn assetc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run assetc")
}

pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets-sample")
}

/// Every file below `root` (relative path -> bytes), sorted.
pub fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Copies a folder recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every `.gltf`/`.glb` below `dir`, sorted.
pub fn gltf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("gltf" | "glb")) {
                out.push(p);
            }
        }
    }
    walk(dir, &mut out);
    out.sort();
    out
}
