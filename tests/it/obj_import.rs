//! OBJ files written by a real exporter: Assimp's `assimp export` (Debian's assimp-utils)
//! turns corpus glTF sources into OBJ + MTL; the scene our OBJ importer reads from them
//! must be the scene the glTF importer reads from the originals, within what the exporter
//! keeps, and the OBJ must build to outputs that `assetc check` accepts.
//!
//! What Assimp does, and so what is compared:
//! - it bakes every node's transform into the OBJ's vertices (OBJ has no hierarchy), so the
//!   glTF side is compared in world space (positions by the world matrix, normals by its
//!   inverse-transpose), as sets of triangles, not by index order;
//! - its glTF importer flips V to its bottom-left convention (`v' = 1 - v`) and its OBJ
//!   exporter writes that as is, which is OBJ's own convention; our importer flips it back
//!   to glTF's top-left, so UVs compare equal to the glTF's directly (to f32 rounding of
//!   `1 - (1 - v)`). Some compared V is far from 0.5, so an unflipped V could not pass;
//! - it writes nine significant digits, so positions, normals and UVs agree within about
//!   1e-6 relative;
//! - `Kd` is glTF's baseColorFactor RGB and `d` its alpha.

use crate::common;

use assetc::formats::qtmesh::{self, component, QtMesh};
use assetc::import::{import_gltf, import_obj, ImportOptions};
use assetc::scene::Scene;
use common::*;
use glam::{Mat3, Vec3};
use std::path::Path;

/// One corner in world space.
#[derive(Debug, Clone, Copy)]
struct Corner {
    position: Vec3,
    normal: Option<Vec3>,
    uv: Option<[f32; 2]>,
}

#[derive(Debug, Clone)]
struct Triangle {
    corners: [Corner; 3],
    base_color: [f32; 4],
}

impl Triangle {
    fn centroid(&self) -> Vec3 {
        self.corners.iter().map(|c| c.position).sum::<Vec3>() / 3.0
    }
    /// Twice the area times the front-face normal (counter-clockwise).
    fn facing(&self) -> Vec3 {
        let [a, b, c] = self.corners.map(|c| c.position);
        (b - a).cross(c - a)
    }
}

/// Every triangle of every primitive instance, baked to world space.
fn triangles(scene: &Scene) -> Vec<Triangle> {
    let mut out = Vec::new();
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        let world = scene.nodes[inst.node].world_matrix;
        let normal_matrix = Mat3::from_mat4(world).inverse().transpose();
        let flip = world.determinant() < 0.0;
        let base_color = prim
            .material
            .and_then(|m| scene.materials.get(m))
            .map_or([1.0; 4], |m| m.base_color_factor);
        for t in prim.indices.chunks_exact(3) {
            let mut corners = [t[0], t[1], t[2]].map(|i| {
                let i = i as usize;
                Corner {
                    position: world.transform_point3(Vec3::from(prim.positions[i])),
                    normal: prim
                        .normals
                        .as_ref()
                        .map(|n| (normal_matrix * Vec3::from(n[i])).normalize()),
                    uv: prim.uv0.as_ref().map(|uv| uv[i]),
                }
            });
            // A mirroring transform turns the winding over; the exporter writes the
            // baked triangle facing the same way as the rendered one.
            if flip {
                corners.swap(1, 2);
            }
            out.push(Triangle {
                corners,
                base_color,
            });
        }
    }
    out
}

/// Compares the OBJ's triangles with the glTF's: same count, and each OBJ triangle has a
/// glTF triangle with the same corners (in the same cyclic order) and base colour.
fn compare(name: &str, gltf: &Scene, obj: &Scene) -> usize {
    compare_triangles(name, triangles(gltf), triangles(obj))
}

/// [`compare`] on triangle lists: `got` against `expected`.
fn compare_triangles(name: &str, expected: Vec<Triangle>, got: Vec<Triangle>) -> usize {
    assert_eq!(got.len(), expected.len(), "{name}: triangle count");
    let extent = expected
        .iter()
        .flat_map(|t| t.corners.iter().map(|c| c.position.abs().max_element()))
        .fold(0.0f32, f32::max);
    let eps = extent * 2e-6 + 1e-6;
    let mut used = vec![false; expected.len()];
    let mut far_from_half = false;
    for (k, t) in got.iter().enumerate() {
        // The unused glTF triangle whose corners match, in any rotation of the cycle.
        let matched = expected.iter().enumerate().find_map(|(e, x)| {
            if used[e] || x.centroid().distance(t.centroid()) > 3.0 * eps {
                return None;
            }
            (0..3).find_map(|r| {
                let ok = (0..3).all(|i| {
                    let (a, b) = (&t.corners[i], &x.corners[(i + r) % 3]);
                    a.position.distance(b.position) <= eps
                        && match (a.normal, b.normal) {
                            (Some(n), Some(m)) => n.dot(m) > 1.0 - 1e-5,
                            _ => true,
                        }
                        && match (a.uv, b.uv) {
                            (Some(u), Some(v)) => {
                                (u[0] - v[0]).abs() <= 1e-5 && (u[1] - v[1]).abs() <= 1e-5
                            }
                            (None, None) => true,
                            _ => false,
                        }
                });
                ok.then_some(e)
            })
        });
        let Some(e) = matched else {
            panic!("{name}: OBJ triangle {k} {t:?} matches no glTF triangle");
        };
        used[e] = true;
        let x = &expected[e];
        assert!(
            t.facing().dot(x.facing()) >= 0.0,
            "{name}: triangle {k} is wound the other way"
        );
        for (a, b) in t.base_color.iter().zip(x.base_color) {
            assert!(
                (a - b).abs() <= 1e-6,
                "{name}: triangle {k} base colour {:?}, glTF {:?}",
                t.base_color,
                x.base_color
            );
        }
        far_from_half |= t
            .corners
            .iter()
            .any(|c| c.uv.is_some_and(|uv| (uv[1] - 0.5).abs() > 0.2));
    }
    if got.iter().any(|t| t.corners[0].uv.is_some()) {
        assert!(
            far_from_half,
            "{name}: no V far from 0.5: the flip is untested"
        );
    }
    got.len()
}

/// Copies the maps the exported MTL names from the glTF's folder beside the OBJ (Assimp
/// writes their names, not the files).
fn copy_maps(mtl: &Path, from: &Path, to: &Path) {
    let Ok(text) = std::fs::read_to_string(mtl) else {
        return;
    };
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words
            .next()
            .is_some_and(|w| w.starts_with("map_") || w == "bump")
        {
            if let Some(file) = words.last() {
                if from.join(file).is_file() && !to.join(file).exists() {
                    std::fs::copy(from.join(file), to.join(file)).unwrap();
                }
            }
        }
    }
}

/// The corpus sources, and what each brings: several materials and node transforms
/// (CornellBox), one mesh of several materials (ship), a texture and mixed node
/// hierarchies (TonemappingTest), no normals (barycentric), a plain textured cube.
const SOURCES: &[&str] = &[
    "CornellBox/CornellBox.glb",
    "ship/craft_speederD.gltf",
    "TonemappingTest/TonemappingTest.gltf",
    "barycentric/barycentric.gltf",
    "cube/cube.gltf",
];

#[test]
fn assimp_exported_obj_matches_its_gltf_and_builds() {
    let test = "assimp_exported_obj_matches_its_gltf_and_builds";
    let Some(corpus) = corpus(test) else {
        return;
    };
    let Some(assimp) = tool("ASSETC_ASSIMP", "assimp", &["/usr/bin"]) else {
        missing(test, "assimp (Debian package assimp-utils)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let mut total = 0;
    for source in SOURCES {
        let path = corpus.join("gltf").join(source);
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let obj = input.join(format!("{stem}.obj"));
        let export = std::process::Command::new(&assimp)
            .arg("export")
            .arg(&path)
            .arg(&obj)
            .output()
            .unwrap();
        assert!(
            export.status.success() && obj.is_file(),
            "assimp export {source}: {}",
            String::from_utf8_lossy(&export.stderr)
        );
        copy_maps(
            &input.join(format!("{stem}.mtl")),
            path.parent().unwrap(),
            &input,
        );
        let gltf = import_gltf(&path, stem, &ImportOptions::new(path.parent().unwrap()))
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let from_obj = import_obj(&obj, stem, &ImportOptions::new(&input))
            .unwrap_or_else(|e| panic!("{source} as OBJ: {e}"));
        assert!(
            from_obj
                .dependencies
                .contains(&input.join(format!("{stem}.mtl"))),
            "{source}: the MTL is an input: {:?}",
            from_obj.dependencies
        );
        total += compare(source, &gltf, &from_obj);
    }
    assert!(total > 1000, "only {total} triangles compared");

    // Every exported OBJ builds, and every output passes its validator.
    let out = dir.path().join("out");
    let config = dir.path().join("build.toml");
    std::fs::write(
        &config,
        "[texture]\nformat = \"rgba8\"\nmax_size = 16\nmipmaps = false\n",
    )
    .unwrap();
    let build = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    for source in SOURCES {
        let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
        let hmesh = out.join(format!("{}.hmesh", stem.to_lowercase()));
        assert!(hmesh.is_file(), "{} was not written", hmesh.display());
    }
    let check = assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// The triangles of a Balsam `.mesh` (positions, `attr_norm`, `attr_uv0`), base colour 1.
/// Balsam writes UVs in Qt's bottom-left origin, OBJ's own: V is flipped to glTF's here.
fn balsam_triangles(m: &QtMesh) -> Vec<Triangle> {
    let vb = &m.vertex_buffer;
    let attribute = |name: &str, n: usize| -> Option<Vec<Vec<f32>>> {
        let e = vb.entries.iter().find(|e| e.name == name)?;
        assert_eq!(e.component_type, component::F32, "{name}");
        Some(
            vb.data
                .chunks_exact(vb.stride as usize)
                .map(|v| {
                    (0..n)
                        .map(|k| {
                            let o = e.offset as usize + 4 * k;
                            f32::from_le_bytes([v[o], v[o + 1], v[o + 2], v[o + 3]])
                        })
                        .collect()
                })
                .collect(),
        )
    };
    let positions = attribute("attr_pos", 3).expect("attr_pos");
    let normals = attribute("attr_norm", 3);
    let uvs = attribute("attr_uv0", 2);
    let ib = &m.index_buffer;
    let indices: Vec<usize> = match ib.component_type {
        component::U16 => ib
            .data
            .chunks_exact(2)
            .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        _ => ib
            .data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
            .collect(),
    };
    indices
        .chunks_exact(3)
        .map(|t| Triangle {
            corners: [t[0], t[1], t[2]].map(|i| Corner {
                position: Vec3::from_slice(&positions[i]),
                normal: normals
                    .as_ref()
                    .map(|n| Vec3::from_slice(&n[i]).normalize()),
                uv: uvs.as_ref().map(|uv| [uv[i][0], 1.0 - uv[i][1]]),
            }),
            base_color: [1.0; 4],
        })
        .collect()
}

/// A second, independent OBJ reader: Qt 6.4's Balsam (Assimp's OBJ importer) reads the
/// same exported OBJ files; its meshes (one per group, no transforms) must hold the
/// triangles our importer reads, corner for corner (positions, normals, UVs).
#[test]
fn balsam_reads_the_same_obj_triangles_as_we_do() {
    let test = "balsam_reads_the_same_obj_triangles_as_we_do";
    let Some(corpus) = corpus(test) else {
        return;
    };
    let (Some(assimp), Some(balsam)) = (
        tool("ASSETC_ASSIMP", "assimp", &["/usr/bin"]),
        qt6_tool("balsam"),
    ) else {
        missing(test, "assimp (assimp-utils) or balsam (Qt 6.4)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    for source in SOURCES {
        let path = corpus.join("gltf").join(source);
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let obj = dir.path().join(format!("{stem}.obj"));
        let export = std::process::Command::new(&assimp)
            .arg("export")
            .arg(&path)
            .arg(&obj)
            .output()
            .unwrap();
        assert!(export.status.success(), "assimp export {source}");
        let out = dir.path().join(format!("{stem}.qt"));
        let _ = std::process::Command::new(&balsam)
            .env("QT_QPA_PLATFORM", "offscreen")
            .arg("-o")
            .arg(&out)
            .arg(&obj)
            .output()
            .unwrap();
        let mut theirs = Vec::new();
        let mut meshes: Vec<_> = std::fs::read_dir(out.join("meshes"))
            .unwrap_or_else(|e| panic!("{source}: Balsam wrote no meshes: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        meshes.sort();
        for mesh in meshes {
            let file = qtmesh::read(&std::fs::read(&mesh).unwrap()).unwrap();
            for (_, m) in &file.meshes {
                theirs.extend(balsam_triangles(m));
            }
        }
        let ours = import_obj(&obj, stem, &ImportOptions::new(dir.path()))
            .unwrap_or_else(|e| panic!("{source} as OBJ: {e}"));
        let mut ours = triangles(&ours);
        for t in &mut ours {
            t.base_color = [1.0; 4];
        }
        total += compare_triangles(&format!("{source} (Balsam)"), theirs, ours);
    }
    assert!(total > 1000, "only {total} triangles compared");
}

/// A broken OBJ fails alone, naming its file and line; the good one beside it builds, and
/// an edit of its MTL (an input, not a source) rebuilds it.
#[test]
fn a_bad_obj_fails_alone_and_an_mtl_edit_rebuilds_its_obj() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let out = dir.path().join("out");
    std::fs::create_dir(&input).unwrap();
    let quad = "mtllib good.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nusemtl Red\nf 1 2 3 4\n";
    std::fs::write(input.join("good.obj"), quad).unwrap();
    std::fs::write(input.join("good.mtl"), "newmtl Red\nKd 1 0 0\n").unwrap();
    std::fs::write(input.join("bad.obj"), "v 0 0 0\nv 1 0 0\nf 1 2 7\n").unwrap();
    let build = || {
        assetc(&[
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
    };
    let first = build();
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert_eq!(first.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.obj: line 3: f: corner \"7\": position index 7 is out of range"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.join("good.hmesh").is_file() && out.join("good.hmat").is_file());
    assert!(!out.join("bad.hmesh").exists() && !out.join("bad.hmat").exists());
    let table =
        assetc::formats::hmat::read(&std::fs::read(out.join("good.hmat")).unwrap()).unwrap();
    assert_eq!(table.materials[0].base_color_factor, [1.0, 0.0, 0.0, 1.0]);

    // Unchanged: fresh. The MTL edited: the OBJ is built again with the new colour.
    std::fs::remove_file(input.join("bad.obj")).unwrap();
    let text = |o: &std::process::Output| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    };
    let second = build();
    assert!(second.status.success(), "{}", text(&second));
    assert!(
        text(&second).contains("0 built, 1 fresh"),
        "{}",
        text(&second)
    );
    std::fs::write(input.join("good.mtl"), "newmtl Red\nKd 0 0 1\n").unwrap();
    let third = build();
    assert!(
        text(&third).contains("1 built, 0 fresh"),
        "{}",
        text(&third)
    );
    let table =
        assetc::formats::hmat::read(&std::fs::read(out.join("good.hmat")).unwrap()).unwrap();
    assert_eq!(table.materials[0].base_color_factor, [0.0, 0.0, 1.0, 1.0]);
}
