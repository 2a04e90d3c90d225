//! The `qtmesh` target against Qt's own tools, over the corpus:
//! - our `.mesh` files carry the same geometry as Balsam 6.12's: same attributes, same
//!   subsets (names and index counts), the same set of triangles (positions within
//!   1e-4, compared per subset as position triples so vertex order and welding do not
//!   matter), bounds within 1e-3;
//! - Qt 6.4's `meshdebug` reads every version 5 file we write and prints the structure
//!   our reader reports.
//!
//! Mesh correspondence: Balsam names files inconsistently (sometimes after the node), so
//! meshes are matched through the two QML files: the k-th `Model` with a given
//! `objectName` in ours is paired with the k-th one in Balsam's (both keep glTF node
//! order and both name an unnamed node `nodes[i]`), and their `source` files are
//! compared. Subsets are compared in order (both follow glTF primitive order).

mod common;

use assetc::formats::qtmesh::{self, component, QtMesh};
use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::MeshSettings;
use assetc::targets::qtmesh::{build_qtmesh, QtTargetSettings};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

/// A tool's path, or "" when it was not found (then `Path::new("").is_file()` is false).
fn path_of(tool: Option<PathBuf>) -> String {
    tool.map(|p| p.display().to_string()).unwrap_or_default()
}

static QMLLINT: LazyLock<String> = LazyLock::new(|| path_of(common::pyside6_tool("qmllint")));
static MESHDEBUG_64: LazyLock<String> = LazyLock::new(|| path_of(common::qt6_tool("meshdebug")));
static BALSAM_612: LazyLock<String> = LazyLock::new(|| path_of(common::pyside6_tool("balsam")));

fn corpus() -> Option<PathBuf> {
    common::corpus("qtmesh_target")
}

fn qt(tool: &str) -> Command {
    let mut c = Command::new(tool);
    c.env("QT_QPA_PLATFORM", "offscreen");
    c
}

fn gltf_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(corpus.join("gltf"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        here.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")));
        here.sort();
        files.extend(here);
    }
    files
}

/// `(objectName, source)` of every `Model` in a QML file, in file order.
fn models(qml: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut in_model = false;
    let mut name = None;
    for line in qml.lines().map(str::trim) {
        if line == "Model {" {
            in_model = true;
            name = None;
        } else if in_model {
            if let Some(n) = line.strip_prefix("objectName: ") {
                name = Some(n.trim_matches('"').to_string());
            } else if let Some(s) = line.strip_prefix("source: ") {
                out.push((
                    name.take().unwrap_or_default(),
                    s.trim_matches('"').to_string(),
                ));
                in_model = false;
            }
        }
    }
    out
}

fn find_qml(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "qml"))
}

/// Mesh file pairs (ours, Balsam's), each once, via the QML correspondence.
fn mesh_pairs(ours: &Path, theirs: &Path) -> Vec<(PathBuf, PathBuf)> {
    let read = |dir: &Path| {
        find_qml(dir)
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| models(&t))
            .unwrap_or_default()
    };
    let (a, b) = (read(ours), read(theirs));
    let mut theirs_by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for (n, s) in &b {
        theirs_by_name.entry(n).or_default().push(s);
    }
    let mut seen_count: HashMap<&str, usize> = HashMap::new();
    let mut pairs = Vec::new();
    for (n, s) in &a {
        let k = seen_count.entry(n).or_default();
        if let Some(t) = theirs_by_name.get(n.as_str()).and_then(|l| l.get(*k)) {
            let pair = (ours.join(s), theirs.join(t));
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
        *k += 1;
    }
    pairs
}

fn read_mesh(path: &Path) -> QtMesh {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut file = qtmesh::read(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    assert_eq!(qtmesh::validate(&bytes), vec![], "{path:?}");
    assert_eq!(file.meshes.len(), 1, "{path:?}");
    file.meshes.remove(0).1
}

fn indices(m: &QtMesh) -> Vec<u32> {
    let d = &m.index_buffer.data;
    match m.index_buffer.component_type {
        component::U16 => d
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        component::U32 => d
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("index type {other}"),
    }
}

fn positions(m: &QtMesh) -> Vec<[f32; 3]> {
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

type Tri = [[f32; 3]; 3];

/// Triangles of subset `s` as position triples, rotated so the smallest corner comes
/// first (winding is kept: a flipped triangle does not match).
fn triangles(m: &QtMesh, s: usize) -> Vec<Tri> {
    let (pos, idx) = (positions(m), indices(m));
    let sub = &m.subsets[s];
    let range = sub.offset as usize..(sub.offset + sub.count) as usize;
    idx[range]
        .chunks_exact(3)
        .map(|t| {
            let mut tri = [pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]];
            let first = (0..3)
                .min_by(|&a, &b| tri[a].partial_cmp(&tri[b]).unwrap())
                .unwrap();
            tri.rotate_left(first);
            tri
        })
        .collect()
}

/// Whether the two triangle lists are the same multiset within `tol` per coordinate.
fn same_triangles(a: &[Tri], b: &[Tri], tol: f32) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let cell = 1e-3f32;
    let key = |t: &Tri| {
        let c = [0, 1, 2].map(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0);
        c.map(|x| (x / cell).floor() as i64)
    };
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, t) in b.iter().enumerate() {
        grid.entry(key(t)).or_default().push(i);
    }
    let mut used = vec![false; b.len()];
    let close = |x: &Tri, y: &Tri| {
        x.iter()
            .flatten()
            .zip(y.iter().flatten())
            .all(|(p, q)| (p - q).abs() <= tol)
    };
    'outer: for t in a {
        let k = key(t);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(list) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in list {
                        if !used[j] && close(t, &b[j]) {
                            used[j] = true;
                            continue 'outer;
                        }
                    }
                }
            }
        }
        return false;
    }
    true
}

/// Compares one mesh pair; returns (subsets, our triangles, their triangles, problems).
fn compare(ours: &QtMesh, theirs: &QtMesh) -> (usize, usize, usize, Vec<String>) {
    let mut problems = Vec::new();
    let names = |m: &QtMesh| {
        let mut n: Vec<String> = m
            .vertex_buffer
            .entries
            .iter()
            .map(|e| e.name.clone())
            .collect();
        n.sort();
        n
    };
    if names(ours) != names(theirs) {
        problems.push(format!(
            "attributes {:?} vs {:?}",
            names(ours),
            names(theirs)
        ));
    }
    let tri_count = |m: &QtMesh| {
        m.subsets
            .iter()
            .map(|s| s.count as usize / 3)
            .sum::<usize>()
    };
    if ours.subsets.len() != theirs.subsets.len() {
        problems.push(format!(
            "{} subsets vs {}",
            ours.subsets.len(),
            theirs.subsets.len()
        ));
    }
    for (i, (a, b)) in ours.subsets.iter().zip(&theirs.subsets).enumerate() {
        if a.name != b.name || a.count != b.count {
            problems.push(format!(
                "subset {i}: {:?}/{} vs {:?}/{}",
                a.name, a.count, b.name, b.count
            ));
            continue;
        }
        let bounds_ok = a
            .bounds_min
            .iter()
            .chain(&a.bounds_max)
            .zip(b.bounds_min.iter().chain(&b.bounds_max))
            .all(|(x, y)| (x - y).abs() <= 1e-3);
        if !bounds_ok {
            problems.push(format!(
                "subset {i} bounds {:?}..{:?} vs {:?}..{:?}",
                a.bounds_min, a.bounds_max, b.bounds_min, b.bounds_max
            ));
        }
        if !same_triangles(&triangles(ours, i), &triangles(theirs, i), 1e-4) {
            problems.push(format!("subset {i} ({:?}): triangles differ", a.name));
        }
    }
    (
        ours.subsets.len(),
        tri_count(ours),
        tri_count(theirs),
        problems,
    )
}

fn build_ours(src: &Path, settings: &QtTargetSettings, out: &Path) -> Option<PathBuf> {
    let stem = src.file_stem()?.to_string_lossy().into_owned();
    let scene = import_gltf(
        src,
        &stem.to_lowercase(),
        &ImportOptions::new(src.parent()?),
    )
    .unwrap_or_else(|e| panic!("{src:?}: {e}"));
    let output = build_qtmesh(&scene, settings, &MeshSettings::default())
        .unwrap_or_else(|e| panic!("{src:?}: {e}"));
    for f in &output.files {
        let p = out.join(&f.rel_path);
        std::fs::create_dir_all(p.parent()?).ok()?;
        std::fs::write(&p, &f.bytes).ok()?;
    }
    Some(out.join(format!("{}.qt", stem.to_lowercase())))
}

#[test]
fn our_meshes_carry_balsams_geometry() {
    let Some(corpus) = corpus() else {
        return;
    };
    if !Path::new(BALSAM_612.as_str()).is_file() {
        common::missing("our_meshes_carry_balsams_geometry", "PySide6's balsam");
        return;
    }
    let started = std::time::Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let settings = QtTargetSettings {
        component_name: None,
        ..Default::default()
    };
    let mut table = vec![
        "| file | meshes ours/balsam | subsets | triangles ours/balsam | match |".to_string(),
        "|---|---|---|---|---|".to_string(),
    ];
    let mut failures = Vec::new();
    let mut compared = 0;
    for (i, src) in gltf_files(&corpus).iter().enumerate() {
        let label = src
            .strip_prefix(corpus.join("gltf"))
            .unwrap_or(src)
            .display()
            .to_string();
        let ours = build_ours(src, &settings, &tmp.path().join("ours").join(i.to_string()))
            .expect("our output");
        if Path::new(QMLLINT.as_str()).is_file() {
            let qml = find_qml(&ours).expect("our QML");
            let lint = qt(QMLLINT.as_str()).arg(&qml).output().unwrap();
            let text = String::from_utf8_lossy(&lint.stdout).into_owned()
                + &String::from_utf8_lossy(&lint.stderr);
            assert!(
                lint.status.success() && !text.contains("Warning"),
                "{label}: qmllint rejects our QML:\n{text}"
            );
        }
        let theirs = tmp.path().join("balsam").join(i.to_string());
        let _ = qt(BALSAM_612.as_str())
            .arg("-o")
            .arg(&theirs)
            .arg(src)
            .output()
            .unwrap();
        let count = |d: &Path| {
            std::fs::read_dir(d.join("meshes"))
                .map(|r| r.count())
                .unwrap_or(0)
        };
        let (our_meshes, their_meshes) = (count(&ours), count(&theirs));
        if their_meshes == 0 {
            // Balsam rejects the file (pirate.glb: EXT_meshopt_compression); ours must
            // still read back.
            let mut tris = 0;
            for e in std::fs::read_dir(ours.join("meshes")).unwrap().flatten() {
                let m = read_mesh(&e.path());
                tris += m
                    .subsets
                    .iter()
                    .map(|s| s.count as usize / 3)
                    .sum::<usize>();
            }
            table.push(format!(
                "| {label} | {our_meshes}/rejected | - | {tris}/- | n/a (Balsam cannot read it) |"
            ));
            continue;
        }
        let pairs = mesh_pairs(&ours, &theirs);
        let (mut subsets, mut tri_ours, mut tri_theirs, mut problems) = (0, 0, 0, Vec::new());
        if pairs.is_empty() {
            problems.push("no Model pairs found in the two QML files".to_string());
        }
        for (a, b) in &pairs {
            let (s, ta, tb, p) = compare(&read_mesh(a), &read_mesh(b));
            subsets += s;
            tri_ours += ta;
            tri_theirs += tb;
            problems.extend(p.into_iter().map(|p| format!("{}: {p}", a.display())));
            compared += 1;
        }
        let ok = problems.is_empty();
        table.push(format!(
            "| {label} | {our_meshes}/{their_meshes} | {subsets} | {tri_ours}/{tri_theirs} | {} |",
            if ok { "yes" } else { "no" }
        ));
        if !ok {
            failures.push(format!("{label}:\n  {}", problems.join("\n  ")));
        }
    }
    println!("{}", table.join("\n"));
    println!("{compared} mesh pairs compared in {:?}", started.elapsed());
    assert!(compared > 20, "only {compared} mesh pairs compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `meshdebug` lines, trimmed, without the ones about the tool itself.
fn meshdebug_lines(path: &Path) -> Vec<String> {
    let out = qt(MESHDEBUG_64.as_str()).arg(path).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "closed meshFile" && !l.starts_with("QStandardPaths"))
        .map(|l| match l.strip_prefix("offset: ") {
            Some(hex) => format!("offset: {}", u64::from_str_radix(hex, 16).unwrap()),
            None => l,
        })
        .collect()
}

/// Equal lines; `bounds:` lines are compared as numbers, since meshdebug prints floats
/// with 6 significant digits and we print them exactly.
fn same_line(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    let numbers = |l: &str| -> Option<Vec<f64>> {
        l.strip_prefix("bounds:")?
            .split(['(', ')', ','])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().ok())
            .collect()
    };
    match (numbers(ours), numbers(theirs)) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(x, y)| (x - y).abs() <= 1e-5 * x.abs().max(1e-3))
        }
        _ => false,
    }
}

#[test]
fn meshdebug_reads_every_v5_mesh_we_write() {
    let Some(corpus) = corpus() else {
        return;
    };
    if !Path::new(MESHDEBUG_64.as_str()).is_file() {
        common::missing(
            "meshdebug_reads_every_v5_mesh_we_write",
            "meshdebug (Qt 6.4)",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let settings = QtTargetSettings {
        mesh_version: 5,
        ..Default::default()
    };
    let (mut checked, mut morph_meshes) = (0, 0);
    for (i, src) in gltf_files(&corpus).iter().enumerate() {
        let ours = build_ours(src, &settings, &tmp.path().join(i.to_string())).unwrap();
        for e in std::fs::read_dir(ours.join("meshes")).unwrap().flatten() {
            let path = e.path();
            let bytes = std::fs::read(&path).unwrap();
            let file = qtmesh::read(&bytes).unwrap();
            assert!(file.meshes.iter().all(|(_, m)| m.version == 5), "{path:?}");
            let mut theirs = meshdebug_lines(&path);
            // Our reader turns version 5 morph attributes (attr_tpos0...) into a version 7
            // target buffer, so for such meshes only the parts after the vertex buffer
            // are comparable line by line.
            if file.meshes.iter().any(|(_, m)| m.target_buffer.is_some()) {
                let from = theirs.iter().position(|l| l == "-- Index Buffer --");
                theirs.drain(..from.unwrap_or(0));
                morph_meshes += 1;
            }
            assert!(
                theirs.iter().any(|l| l.starts_with("-- Subset 0 --")),
                "{path:?}: meshdebug did not read the file:\n{theirs:#?}"
            );
            let ours_text = qtmesh::describe(&file);
            let ours: Vec<String> = ours_text.lines().map(|l| l.trim().to_string()).collect();
            // Every meshdebug line must appear, in order, in our dump (ours adds a few).
            let mut at = 0;
            for line in &theirs {
                match ours.iter().skip(at).position(|o| same_line(o, line)) {
                    Some(found) => at += found + 1,
                    None => {
                        panic!("{path:?}: meshdebug line {line:?} not in our dump:\n{ours_text}")
                    }
                }
            }
            checked += 1;
        }
    }
    println!(
        "meshdebug read {checked} version 5 meshes as we do \
         ({morph_meshes} with morph targets compared from the index buffer on)"
    );
    assert!(checked > 20);
}
