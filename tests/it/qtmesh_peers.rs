//! Checks the Qt Quick 3D `.mesh` support against Qt's own tools: every mesh Balsam 6.4
//! (version 5) and Balsam 6.12 (version 7) writes for the corpus must read, validate
//! clean and be rewritten byte for byte; and Qt 6.4's `meshdebug` must read our version
//! 5 files and report the structure our reader reports.

use crate::common;

use assetc::formats::qtmesh::{
    self, attr, component, IndexBuffer, Lod, QtMesh, QtMeshFile, Subset, VertexBuffer, VertexEntry,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

/// A tool's path, or "" when it was not found (then `Path::new("").is_file()` is false).
fn path_of(tool: Option<PathBuf>) -> String {
    tool.map(|p| p.display().to_string()).unwrap_or_default()
}

static BALSAM_64: LazyLock<String> = LazyLock::new(|| path_of(common::qt6_tool("balsam")));
static MESHDEBUG_64: LazyLock<String> = LazyLock::new(|| path_of(common::qt6_tool("meshdebug")));
static BALSAM_612: LazyLock<String> = LazyLock::new(|| path_of(common::pyside6_tool("balsam")));

fn corpus() -> Option<PathBuf> {
    common::corpus("qtmesh_peers")
}

/// Whether Balsam 6.4, meshdebug 6.4 and PySide6's Balsam 6.12 are all found; names the
/// missing ones (failing under CI) when not.
fn qt_tools_present(test: &str) -> bool {
    let tools = [
        ("balsam (Qt 6.4)", BALSAM_64.as_str()),
        ("meshdebug (Qt 6.4)", MESHDEBUG_64.as_str()),
        ("PySide6's balsam", BALSAM_612.as_str()),
    ];
    let absent: Vec<&str> = tools
        .iter()
        .filter(|(_, p)| !Path::new(p).is_file())
        .map(|(name, _)| *name)
        .collect();
    if !absent.is_empty() {
        common::missing(test, &absent.join(", "));
    }
    absent.is_empty()
}

fn qt(tool: &str) -> Command {
    let mut c = Command::new(tool);
    c.env("QT_QPA_PLATFORM", "offscreen");
    c
}

fn gltf_files(corpus: &Path) -> Vec<PathBuf> {
    common::gltf_files(&corpus.join("gltf"))
}

fn meshes_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            meshes_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "mesh") {
            out.push(p);
        }
    }
}

#[test]
fn balsam_output_reads_validates_and_rewrites_identically() {
    let Some(corpus) = corpus() else {
        return;
    };
    if !qt_tools_present("balsam_output_reads_validates_and_rewrites_identically") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    for (tool, version, sub) in [
        (BALSAM_64.as_str(), 5u16, "q64"),
        (BALSAM_612.as_str(), 7, "q612"),
    ] {
        let mut meshes = Vec::new();
        for (i, src) in gltf_files(&corpus).iter().enumerate() {
            let out = tmp.path().join(sub).join(i.to_string());
            // Balsam prints progress and exits 0 even for inputs it rejects; what
            // matters is the meshes it leaves.
            let _ = qt(tool).arg("-o").arg(&out).arg(src).output().unwrap();
            meshes_under(&out, &mut meshes);
        }
        assert!(
            meshes.len() > 20,
            "{tool} wrote only {} meshes",
            meshes.len()
        );
        for path in &meshes {
            let bytes = std::fs::read(path).unwrap();
            let file = qtmesh::read(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            assert_eq!(qtmesh::validate(&bytes), vec![], "{path:?}");
            assert!(!file.meshes.is_empty(), "{path:?}");
            for (_, m) in &file.meshes {
                assert_eq!(m.version, version, "{path:?}");
            }
            let rewritten = qtmesh::write(&file, version).unwrap();
            assert!(
                rewritten == bytes,
                "{path:?}: rewrite differs from {tool}'s bytes"
            );
        }
        println!("{tool}: {} meshes checked", meshes.len());
    }
    morph_targets_agree(&corpus, tmp.path());
    println!("balsam checks took {:?}", started.elapsed());
}

/// Balsam 6.4 stores MorphStressTest's 8 targets as vertex attributes, 6.12 as a target
/// buffer; after our reader's conversion both must have the same layout.
fn morph_targets_agree(corpus: &Path, tmp: &Path) {
    let src = corpus.join("gltf/animated/MorphStressTest.gltf");
    if !src.is_file() {
        common::missing("morph_targets_agree", &src.display().to_string());
        return;
    }
    let read_one = |tool: &str, name: &str| -> QtMesh {
        let out = tmp.join("morph").join(name);
        let _ = qt(tool).arg("-o").arg(&out).arg(&src).output().unwrap();
        let mut found = Vec::new();
        meshes_under(&out, &mut found);
        assert_eq!(found.len(), 1, "{tool}: {found:?}");
        let bytes = std::fs::read(&found[0]).unwrap();
        let mut file = qtmesh::read(&bytes).unwrap();
        file.meshes.remove(0).1
    };
    let old = read_one(BALSAM_64.as_str(), "q64");
    let new = read_one(BALSAM_612.as_str(), "q612");
    let (Some(a), Some(b)) = (&old.target_buffer, &new.target_buffer) else {
        panic!("both Balsams should write morph targets");
    };
    // The two Balsams order and shade vertices differently, so only the layout can be
    // compared; the rewrite check above already pins the conversion's bytes.
    assert_eq!(a.target_count, 8);
    assert_eq!((b.target_count, &a.entries), (8, &b.entries));
    assert_eq!(a.data.len(), b.data.len());
    assert_eq!(
        old.vertex_buffer.vertex_count(),
        new.vertex_buffer.vertex_count()
    );
    assert_eq!(old.vertex_buffer.entries, new.vertex_buffer.entries);
    assert_eq!(old.vertex_buffer.stride, new.vertex_buffer.stride);
}

/// A mesh shaped like Balsam's, with the optional parts switched on or off.
fn synthetic(
    vertices: u32,
    uv1: bool,
    colors: bool,
    skin: bool,
    wide: bool,
    subsets: u32,
) -> QtMesh {
    let mut entries = Vec::new();
    let mut stride = 0;
    let mut add = |name: &str, ty: u32, count: u32| {
        entries.push(VertexEntry {
            name: name.into(),
            component_type: ty,
            component_count: count,
            offset: stride,
        });
        stride += component::size(ty).unwrap() * count;
    };
    add(attr::POSITION, component::F32, 3);
    add(attr::NORMAL, component::F32, 3);
    add(attr::UV0, component::F32, 2);
    if uv1 {
        add(attr::UV1, component::F32, 2);
    }
    if colors {
        add(attr::COLOR, component::F32, 4);
    }
    if skin {
        add(attr::JOINTS, component::U32, 4);
        add(attr::WEIGHTS, component::F32, 4);
    }
    let data: Vec<u8> = (0..vertices * stride / 4)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let indices: Vec<u32> = (0..(vertices - 2) * 3).map(|i| i / 3 + i % 3).collect();
    let index_buffer = if wide {
        IndexBuffer {
            component_type: component::U32,
            data: indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        }
    } else {
        IndexBuffer {
            component_type: component::U16,
            data: indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
        }
    };
    let per = indices.len() as u32 / subsets;
    QtMesh {
        version: 5,
        vertex_buffer: VertexBuffer {
            entries,
            stride,
            data,
        },
        index_buffer,
        subsets: (0..subsets)
            .map(|i| Subset {
                name: format!("part{i}"),
                count: per,
                offset: i * per,
                bounds_min: [-1.0, 0.0, 0.5],
                bounds_max: [2.0, 3.25, 4.0],
                lightmap_size_hint: [16 * i, 8],
                lods: Vec::<Lod>::new(),
            })
            .collect(),
        ..QtMesh::default()
    }
}

/// `meshdebug` lines, trimmed, without the ones that are about the tool itself.
fn meshdebug_lines(path: &Path) -> Vec<String> {
    let out = qt(MESHDEBUG_64.as_str()).arg(path).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "closed meshFile" && !l.starts_with("QStandardPaths"))
        .map(|l| match l.strip_prefix("offset: ") {
            // meshdebug prints a mesh entry's offset in hex without a prefix.
            Some(hex) => format!("offset: {}", u64::from_str_radix(hex, 16).unwrap()),
            None => l,
        })
        .collect()
}

#[test]
fn meshdebug_reads_our_v5_files_as_we_do() {
    if !qt_tools_present("meshdebug_reads_our_v5_files_as_we_do") {
        return;
    }
    let cases: Vec<(&str, QtMeshFile)> = vec![
        ("plain", one(synthetic(4, false, false, false, false, 1))),
        ("uv1", one(synthetic(5, true, false, false, true, 1))),
        ("colours", one(synthetic(6, false, true, false, false, 2))),
        ("skinned", one(synthetic(7, true, true, true, true, 3))),
        (
            "multi",
            QtMeshFile {
                meshes: vec![
                    (1, synthetic(4, false, false, false, false, 1)),
                    (2, synthetic(9, true, true, true, true, 2)),
                ],
            },
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    for (name, file) in cases {
        let bytes = qtmesh::write(&file, 5).unwrap();
        let path = tmp.path().join(format!("{name}.mesh"));
        std::fs::write(&path, &bytes).unwrap();
        let theirs = meshdebug_lines(&path);
        assert!(
            theirs.iter().any(|l| l.starts_with("-- Subset 0 --")),
            "{name}: meshdebug did not read the file:\n{theirs:#?}"
        );
        let ours_text = qtmesh::describe(&qtmesh::read(&bytes).unwrap());
        let ours: Vec<String> = ours_text.lines().map(|l| l.trim().to_string()).collect();
        // Every line meshdebug prints must appear, in order, in our dump; ours has
        // extra lines (vertex count, LODs) that meshdebug 6.4 does not print.
        let mut at = 0;
        for line in &theirs {
            match ours.iter().skip(at).position(|o| o == line) {
                Some(found) => at += found + 1,
                None => panic!("{name}: meshdebug line {line:?} not in our dump:\n{ours_text}"),
            }
        }
    }
}

fn one(mesh: QtMesh) -> QtMeshFile {
    QtMeshFile {
        meshes: vec![(1, mesh)],
    }
}
