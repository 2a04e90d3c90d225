//! Hashes the compiler's own sources that can change an output into `ASSETC_SOURCE_HASH`,
//! which keys the incremental build cache and the remote cache (`src/driver/cache.rs`):
//! outputs written by one build of assetc are never taken as fresh by one whose importers,
//! pipeline, target writers or formats differ, even when the package version is the same.
//! The command line, the driver, previews, reports and tests are left out, so that a new
//! `--help` text or test does not invalidate every local and shared cache (docs/scale.md).

use std::path::{Path, PathBuf};

/// What decides the bytes of an output: the formats, the core (importers, stages, rig,
/// scene), the targets, the standalone kinds, and the dependencies' versions.
const OUTPUT_SOURCES: &[&str] = &[
    "crates/assetc-formats/src",
    "crates/assetc-formats/Cargo.toml",
    "crates/assetc-core/src",
    "crates/assetc-core/Cargo.toml",
    "crates/assetc-targets/src",
    "crates/assetc-targets/Cargo.toml",
    "src/kinds",
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for part in OUTPUT_SOURCES {
        collect(&root.join(part), &mut files);
        println!("cargo:rerun-if-changed={part}");
    }
    files.sort();
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
    println!(
        "cargo:rustc-env=ASSETC_ENCODER_VERSIONS={}",
        encoder_versions(&root.join("Cargo.lock"))
    );
}

/// The crates that encode or decode an asset's bytes, whose versions the kinds name in
/// their keys (`src/kinds/key.rs`): `name version;` for each, as Cargo.lock resolved it.
const ENCODERS: &[&str] = &[
    "aotuv_lancer_vorbis_sys",
    "basis-universal",
    "draco-core",
    "ebur128",
    "fdsm",
    "gltf",
    "image",
    "intel_tex_2",
    "meshopt",
    "naga",
    "rubato",
    "symphonia",
    "ttf-parser",
    "ufbx",
    "vorbis_rs",
    "zstd",
];

/// Read by hand from Cargo.lock's `[[package]]` entries: a build script has no TOML parser
/// without a build dependency, and the lock file's layout is two plain lines per package.
fn encoder_versions(lock: &Path) -> String {
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .strip_prefix("name = \"")
            .and_then(|n| n.strip_suffix('"'))
        else {
            continue;
        };
        let version = lines
            .next()
            .and_then(|v| v.strip_prefix("version = \""))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or("?");
        if ENCODERS.contains(&name) {
            found.push(format!("{name} {version}"));
        }
    }
    found.sort();
    found.join(";")
}

/// Every file below `path` (or `path` itself), except unit-test files (`tests.rs`,
/// `tuning.rs`), which cannot change an output.
fn collect(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !matches!(name, "tests.rs" | "tuning.rs") {
            out.push(path.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        collect(&entry.path(), out);
    }
}
