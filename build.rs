//! Hashes the compiler's own sources into `ASSETC_SOURCE_HASH`, which keys the incremental
//! build cache (`src/build/cache.rs`): outputs written by one build of assetc are never
//! taken as fresh by a differently built one, even when the package version is the same.

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("src"), &mut files);
    files.sort();
    for name in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        files.push(root.join(name));
    }
    // FNV-1a 64 over each file's relative path and content, by hand: a build script
    // cannot use the crate's own hash module, and this needs no dependency.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for file in &files {
        let rel = file.strip_prefix(root).unwrap_or(file);
        feed(rel.to_string_lossy().as_bytes());
        feed(&[0]);
        feed(&std::fs::read(file).unwrap_or_default());
        feed(&[0]);
    }
    println!("cargo:rustc-env=ASSETC_SOURCE_HASH={hash:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}
