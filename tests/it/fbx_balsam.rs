//! Our Qt Quick 3D target from an FBX against Qt 6.4's Balsam (assimp 5.2 inside) reading
//! the same FBX (Blender 3.4's export of a corpus glTF, made as in tests/it/fbx_import.rs).
//!
//! What must agree: the meshes (paired by name: Balsam writes `meshes/<mesh>.mesh`, we
//! write `meshes/mesh_<mesh>.mesh`), their subsets (one per material, in order) and, per
//! subset, the set of triangles in winding order.
//!
//! The differences, each with its reason, checked as such rather than ignored:
//! - **Units.** assimp keeps the FBX file's own units in the mesh data (Blender's
//!   centimetres for a Y-up export with the unit scale applied: its glTF metres x 100 in
//!   the node scale or geometry); we convert to metres (ufbx `target_unit_meters = 1`,
//!   folded into geometry). The two meshes differ by one uniform factor, which must be
//!   1, 100 or 0.01; triangles are compared after it.
//! - **Colours.** Balsam writes FBX `DiffuseColor` bytes straight into a `DefaultMaterial`'s
//!   `diffuseColor` (an sRGB colour in QML); Blender writes its linear colours there, and
//!   we treat FBX colours as linear like glTF factors, so our `baseColor` is the sRGB
//!   encoding of Balsam's value: checked per material, within one 8-bit step.

use crate::common;

use assetc::formats::qtmesh::{self, QtMesh};
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/export_fbx.py");

fn read_mesh(path: &Path) -> QtMesh {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut file = qtmesh::read(&bytes).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    assert_eq!(file.meshes.len(), 1, "{path:?}");
    file.meshes.remove(0).1
}

/// `.mesh` files below `dir`, by mesh name (file stem without our `mesh_` prefix).
fn meshes(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "mesh") {
                let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
                let name = stem.strip_prefix("mesh_").unwrap_or(&stem).to_string();
                out.push((name, p));
            }
        }
    }
    out.sort();
    out
}

/// Triangles of one subset: corner positions.
fn subset_triangles(m: &QtMesh, s: usize, scale: f32) -> Vec<[[f32; 3]; 3]> {
    let (pos, idx) = (common::qt_positions(m), common::qt_indices(m));
    let sub = &m.subsets[s];
    idx[sub.offset as usize..(sub.offset + sub.count) as usize]
        .chunks_exact(3)
        .map(|t| [0, 1, 2].map(|k| pos[t[k] as usize].map(|c| c * scale)))
        .collect()
}

fn diagonal(m: &QtMesh) -> f32 {
    let p = common::qt_positions(m);
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for v in &p {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt()
}

/// How many triangles of `a` have no partner in `b` (corners within `tol`, winding kept).
fn unmatched(a: &[[[f32; 3]; 3]], b: &[[[f32; 3]; 3]], tol: f32) -> usize {
    let close = |p: [f32; 3], q: [f32; 3]| (0..3).all(|k| (p[k] - q[k]).abs() <= tol);
    let mut used = vec![false; b.len()];
    let mut missing = 0;
    for t in a {
        let hit = b.iter().enumerate().position(|(j, u)| {
            !used[j] && (0..3).any(|r| (0..3).all(|i| close(t[i], u[(i + r) % 3])))
        });
        match hit {
            Some(j) => used[j] = true,
            None => missing += 1,
        }
    }
    missing
}

/// `id: <name>` -> the `#aarrggbb` colour given by `key` inside that QML object.
fn qml_colors(qml: &str, key: &str) -> Vec<(String, [u8; 4])> {
    let mut out = Vec::new();
    let mut id = None;
    for line in qml.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("id: ") {
            id = Some(v.to_string());
        }
        if let (Some(v), Some(id)) = (line.strip_prefix(&format!("{key}: \"#")), &id) {
            let hex = v.trim_end_matches('"');
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
            out.push((id.clone(), [byte(0), byte(2), byte(4), byte(6)]));
        }
    }
    out
}

fn srgb_encode(linear: f32) -> f32 {
    if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

#[test]
fn our_qt_scene_from_fbx_matches_balsam_reading_the_same_fbx() {
    let test = "our_qt_scene_from_fbx_matches_balsam_reading_the_same_fbx";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let (Some(blender), Some(balsam)) = (
        common::tool("ASSETC_BLENDER", "blender", &[]),
        common::qt6_tool("balsam"),
    ) else {
        common::missing(test, "blender or balsam (Qt 6.4)");
        return;
    };
    let mut problems = Vec::new();
    for (rel, stem) in [
        ("ship/craft_speederD.gltf", "ship"),
        ("AlienCake/alien.glb", "alien"),
        ("cube/cube.gltf", "cube"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir(&input).unwrap();
        let fbx = input.join(format!("{stem}.fbx"));
        let out = Command::new(&blender)
            .args(["-b", "--factory-startup", "--python", SCRIPT, "--"])
            .arg(corpus.join("gltf").join(rel))
            .arg(&fbx)
            .arg("--embed")
            .output()
            .unwrap();
        assert!(fbx.is_file(), "{}", String::from_utf8_lossy(&out.stderr));
        let theirs = dir.path().join("balsam");
        let o = Command::new(&balsam)
            .env("QT_QPA_PLATFORM", "offscreen")
            .arg(&fbx)
            .arg("-o")
            .arg(&theirs)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let ours = dir.path().join("ours");
        let o = common::assetc(&[
            "build",
            input.to_str().unwrap(),
            "-o",
            ours.to_str().unwrap(),
            "--target",
            "qtmesh",
            "--qt-mesh-version",
            "5",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

        let (a, b) = (meshes(&ours), meshes(&theirs));
        let names = |l: &[(String, PathBuf)]| l.iter().map(|m| m.0.clone()).collect::<Vec<_>>();
        if names(&a) != names(&b) {
            problems.push(format!(
                "{rel}: meshes {:?} (ours) vs {:?}",
                names(&a),
                names(&b)
            ));
            continue;
        }
        for ((name, pa), (_, pb)) in a.iter().zip(&b) {
            let (ma, mb) = (read_mesh(pa), read_mesh(pb));
            let scale = diagonal(&mb) / diagonal(&ma);
            let unit = [1.0f32, 100.0, 0.01]
                .into_iter()
                .find(|u| (scale / u - 1.0).abs() < 1e-3);
            let Some(unit) = unit else {
                problems.push(format!("{rel} {name}: sizes differ by {scale}"));
                continue;
            };
            if ma.subsets.len() != mb.subsets.len() {
                problems.push(format!(
                    "{rel} {name}: {} subsets (ours), {}",
                    ma.subsets.len(),
                    mb.subsets.len()
                ));
                continue;
            }
            let tol = 1e-4 * diagonal(&mb);
            // Subsets are paired by name (the material's): assimp orders a mesh's
            // materials as the FBX connects them to the node, ufbx as the mesh's material
            // layer numbers them, which differ in alien.glb's export.
            for s in 0..ma.subsets.len() {
                let sub_name = &ma.subsets[s].name;
                let Some(sb) = mb.subsets.iter().position(|x| &x.name == sub_name) else {
                    problems.push(format!(
                        "{rel} {name}: subset {sub_name:?} is not in Balsam's ({:?})",
                        mb.subsets.iter().map(|x| &x.name).collect::<Vec<_>>()
                    ));
                    continue;
                };
                let (ta, tb) = (
                    subset_triangles(&ma, s, unit),
                    subset_triangles(&mb, sb, 1.0),
                );
                let missing = unmatched(&ta, &tb, tol);
                eprintln!(
                    "{rel} {name} subset {s}: {} triangles (ours), {} (Balsam), unit x{unit}, {missing} unmatched",
                    ta.len(),
                    tb.len()
                );
                if ta.len() != tb.len() || missing > 0 {
                    problems.push(format!(
                        "{rel} {name} subset {s}: {} vs {} triangles, {missing} unmatched",
                        ta.len(),
                        tb.len()
                    ));
                }
            }
        }
        // Colours: ours = sRGB(Balsam's bytes taken as linear), per material id.
        let qml = |d: &Path| {
            let mut text = String::new();
            let mut stack = vec![d.to_path_buf()];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).unwrap().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "qml") {
                        text += &std::fs::read_to_string(p).unwrap();
                    }
                }
            }
            text
        };
        let ours_colors = qml_colors(&qml(&ours), "baseColor");
        let balsam_colors = qml_colors(&qml(&theirs), "diffuseColor");
        let mut compared = 0;
        for (id, theirs) in &balsam_colors {
            let Some((_, ours)) = ours_colors.iter().find(|(i, _)| i == id) else {
                problems.push(format!("{rel}: material {id} is only in Balsam's scene"));
                continue;
            };
            compared += 1;
            for k in 1..4 {
                let expected = srgb_encode(f32::from(theirs[k]) / 255.0) * 255.0;
                if (f32::from(ours[k]) - expected).abs() > 1.5 {
                    problems.push(format!(
                        "{rel}: material {id}: ours {ours:?}, Balsam {theirs:?} (sRGB of it: {expected:.1} in channel {k})"
                    ));
                }
            }
        }
        eprintln!("{rel}: {compared} material colours compared");
        assert!(compared > 0, "{rel}: no material colours to compare");
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
