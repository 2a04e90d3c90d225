//! `mesh.generate_lightmap_uvs` end to end, on corpus models (glTF), a generated OBJ (a
//! sphere and a spiral ramp whose turns overlap in any one projection) and the Qt target:
//! built by the binary, each output's lightmap UVs pass the library's checker
//! (`pipeline::lightmap_uvs::check`: every UV in [0, 1], no texel of the atlas touched by
//! two charts at the lightmap resolution, charts at least `PADDING_TEXELS` apart, every
//! triangle with an area has a lightmap area) and the charts' texel densities stay within
//! the chart cone's bound (1 / cos 40 deg = 1.31, well under the 2x asked); outputs are
//! byte-identical at -j1 and -j3, and the setting off changes nothing.

use crate::common;

use assetc::formats::{hmesh, qtmesh};
use assetc::pipeline::lightmap_uvs::check::{check_lightmap, LightmapReport};
use assetc::pipeline::lightmap_uvs::{MAX_CHART_ANGLE_DEG, PADDING_TEXELS};
use common::*;
use std::path::{Path, PathBuf};

/// Small exact textures: these tests are about geometry.
const FAST_TEXTURES: &str = "[texture]\nformat = \"rgba8\"\nmax_size = 16\nmipmaps = false\n";

fn density_bound() -> f64 {
    1.0 / MAX_CHART_ANGLE_DEG.to_radians().cos() + 1e-3
}

/// Builds `input` into `dir/<name>` with `config` (a build.toml body) and `extra` flags.
fn build(dir: &Path, name: &str, input: &Path, config: &str, extra: &[&str]) -> PathBuf {
    let config_path = dir.join(format!("{name}.toml"));
    std::fs::write(&config_path, format!("{config}\n{FAST_TEXTURES}")).unwrap();
    let out = dir.join(name);
    let mut args = vec![
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config_path.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let run = assetc(&args);
    assert!(
        run.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let check = assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{name}: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    out
}

/// The lightmap check of one `.hmesh`: LOD0's triangles (every submesh) over UV1S.
fn check_hmesh(path: &Path, resolution: u32) -> LightmapReport {
    let mesh = hmesh::read(&std::fs::read(path).unwrap()).unwrap();
    let uvs = mesh
        .uv1
        .as_ref()
        .unwrap_or_else(|| panic!("{path:?} has no UV1S"));
    let positions: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.position).collect();
    let indices: Vec<u32> = mesh
        .submeshes
        .iter()
        .flat_map(|s| {
            let range = s.first_index as usize..(s.first_index + s.index_count) as usize;
            mesh.indices[range].iter().map(move |i| i + s.base_vertex)
        })
        .collect();
    let report = check_lightmap(&positions, &indices, uvs, resolution, PADDING_TEXELS)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"));
    assert!(
        report.density_ratio < density_bound(),
        "{path:?}: {report:?}"
    );
    report
}

/// Every output file (the cache record, which holds file times, left out).
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .filter(|(name, _)| !name.ends_with(assetc::output::CACHE_NAME))
        .collect()
}

fn hmesh_files(dir: &Path) -> Vec<PathBuf> {
    tree(dir)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".hmesh"))
        .map(|(name, _)| dir.join(name))
        .collect()
}

/// The corpus folders checked: curved (sphere, torus), boxy (cube, CornellBox), many
/// small parts (ship), height fields (terrain: two models), a large real model
/// (FlightHelmet: 94,722 triangles in 6 primitives).
const CORPUS_MODELS: &[&str] = &[
    "cube",
    "sphere",
    "torus",
    "CornellBox",
    "ship",
    "terrain",
    "FlightHelmet",
];

/// `.hmesh` files they give (terrain/ holds two models).
const CORPUS_MESHES: usize = 8;

/// An input folder of the corpus models, each its own folder below one root (copies in
/// the scratch folder: the build does not follow symbolic links).
fn corpus_input(corpus: &Path, scratch: &Path) -> PathBuf {
    let input = scratch.join("input");
    for model in CORPUS_MODELS {
        copy_dir(&corpus.join("gltf").join(model), &input.join(model));
    }
    input
}

#[test]
fn corpus_models_get_charts_apart_with_even_density_at_any_thread_count() {
    let test = "corpus_models_get_charts_apart_with_even_density_at_any_thread_count";
    let Some(corpus) = corpus(test) else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let input = corpus_input(&corpus, scratch.path());
    let on = "[mesh]\ngenerate_lightmap_uvs = true\n";
    let one = build(scratch.path(), "j1", &input, on, &["-j", "1"]);
    let three = build(scratch.path(), "j3", &input, on, &["-j", "3"]);
    let (a, b) = (outputs(&one), outputs(&three));
    assert_eq!(a.len(), b.len());
    for ((name_a, bytes_a), (name_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(name_a, name_b);
        assert!(bytes_a == bytes_b, "{name_a} differs between -j1 and -j3");
    }
    let files = hmesh_files(&one);
    assert_eq!(files.len(), CORPUS_MESHES, "{files:?}");
    for path in &files {
        let report = check_hmesh(path, 1024);
        eprintln!("{}: {report:?}", path.display());
        assert!(report.charts >= 1);
    }
    // At 256 texels FlightHelmet's 6,951 charts need 4 x 4 texels each once they have any
    // extent (one texel, one more for the border rounding, two of padding): 4,096 fit, so
    // it fails alone, naming the setting; the others are packed smaller and still pass.
    let config = scratch.path().join("small.toml");
    std::fs::write(
        &config,
        format!("[mesh]\ngenerate_lightmap_uvs = true\nlightmap_resolution = 256\n{FAST_TEXTURES}"),
    )
    .unwrap();
    let small = scratch.path().join("small");
    let run = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        small.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success());
    assert!(
        stderr.contains("FlightHelmet") && stderr.contains("mesh.lightmap_resolution"),
        "{stderr}"
    );
    let files = hmesh_files(&small);
    assert_eq!(files.len(), CORPUS_MESHES - 1, "{files:?}");
    for path in files {
        check_hmesh(&path, 256);
    }
}

#[test]
fn the_setting_off_changes_no_output() {
    let test = "the_setting_off_changes_no_output";
    let Some(corpus) = corpus(test) else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let input = corpus_input(&corpus, scratch.path());
    let both = "targets = [\"hmesh\", \"qtmesh\"]\n";
    let default = build(scratch.path(), "default", &input, both, &[]);
    let off = build(
        scratch.path(),
        "off",
        &input,
        &format!("{both}[mesh]\ngenerate_lightmap_uvs = false\nlightmap_resolution = 64\n"),
        &[],
    );
    let (a, b) = (outputs(&default), outputs(&off));
    assert_eq!(a.len(), b.len());
    for ((name_a, bytes_a), (name_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(name_a, name_b);
        assert!(bytes_a == bytes_b, "{name_a} differs with the setting off");
    }
    // No output of the corpus has a lightmap channel without the setting.
    for (name, bytes) in &a {
        if name.ends_with(".mesh") {
            let file = qtmesh::read(bytes).unwrap();
            for (_, m) in &file.meshes {
                assert!(m
                    .vertex_buffer
                    .entries
                    .iter()
                    .all(|e| e.name != "attr_lightmapuv"));
            }
        }
    }
}

/// An OBJ of a UV sphere and a spiral ramp (three turns, normals within 15 degrees of +Y).
fn generated_obj() -> String {
    use std::f64::consts::PI;
    let mut text = String::from("o sphere\n");
    let (n, m) = (24usize, 12usize);
    for j in 0..=m {
        for i in 0..=n {
            let (theta, phi) = (2.0 * PI * i as f64 / n as f64, PI * j as f64 / m as f64);
            let p = [phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin()];
            text += &format!("v {} {} {}\n", p[0], p[1], p[2]);
        }
    }
    let at = |i: usize, j: usize, base: usize, n: usize| base + j * (n + 1) + i + 1;
    for j in 0..m {
        for i in 0..n {
            let (a, b, c, d) = (
                at(i, j, 0, n),
                at(i + 1, j, 0, n),
                at(i + 1, j + 1, 0, n),
                at(i, j + 1, 0, n),
            );
            // Outward: the sphere's rows run from the top pole down.
            text += &format!("f {a} {c} {b}\nf {a} {d} {c}\n");
        }
    }
    text += "o ramp\n";
    let base = (n + 1) * (m + 1);
    let (n, m) = (96usize, 2usize);
    for j in 0..=m {
        for i in 0..=n {
            let s = i as f64 / n as f64;
            let angle = 6.0 * PI * s;
            let radius = 2.0 + j as f64 / m as f64;
            let p = [radius * angle.cos(), 3.0 * s, radius * angle.sin()];
            text += &format!("v {} {} {}\n", p[0], p[1], p[2]);
        }
    }
    for j in 0..m {
        for i in 0..n {
            let (a, b, c, d) = (
                at(i, j, base, n),
                at(i + 1, j, base, n),
                at(i + 1, j + 1, base, n),
                at(i, j + 1, base, n),
            );
            text += &format!("f {a} {b} {c}\nf {a} {c} {d}\n");
        }
    }
    text
}

#[test]
fn a_generated_obj_gets_lightmap_uvs_in_hmesh_and_qt_meshes() {
    let scratch = tempfile::tempdir().unwrap();
    let input = scratch.path().join("input");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("shapes.obj"), generated_obj()).unwrap();
    let on = "targets = [\"hmesh\", \"qtmesh\"]\n\
              [mesh]\ngenerate_lightmap_uvs = true\nlightmap_resolution = 512\n\
              [qtmesh]\nmesh_version = 5\n";
    let out = build(scratch.path(), "out", &input, on, &[]);
    let report = check_hmesh(&out.join("shapes.hmesh"), 512);
    // The sphere needs more than 8 charts (caps of 40 degrees), the ramp at least one per
    // turn; both share the file's one atlas.
    assert!(report.charts >= 11, "{report:?}");

    let qt: Vec<_> = tree(&out)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".mesh"))
        .collect();
    assert!(!qt.is_empty());
    for (name, bytes) in &qt {
        let file = qtmesh::read(bytes).unwrap();
        for (_, m) in &file.meshes {
            // Balsam's layout: attr_lightmapuv, two f32, after every other attribute.
            let last = m.vertex_buffer.entries.last().unwrap();
            assert_eq!(
                (
                    last.name.as_str(),
                    last.component_type,
                    last.component_count
                ),
                ("attr_lightmapuv", qtmesh::component::F32, 2),
                "{name}"
            );
            assert!(m.subsets.iter().all(|s| s.lightmap_size_hint == [512, 512]));
            let (positions, uvs) = qt_streams(m, last.offset as usize);
            let indices = qt_indices(m);
            let report = check_lightmap(&positions, &indices, &uvs, 512, PADDING_TEXELS)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(report.density_ratio < density_bound(), "{name}: {report:?}");
        }
    }
}

fn qt_indices(m: &qtmesh::QtMesh) -> Vec<u32> {
    let d = &m.index_buffer.data;
    match m.index_buffer.component_type {
        qtmesh::component::U16 => d
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        _ => d
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    }
}

/// Positions (attr_pos) and the two floats at `offset` of every vertex.
fn qt_streams(m: &qtmesh::QtMesh, offset: usize) -> (Vec<[f32; 3]>, Vec<[f32; 2]>) {
    let vb = &m.vertex_buffer;
    let pos = vb.entries.iter().find(|e| e.name == "attr_pos").unwrap();
    let f = |v: &[u8], o: usize| f32::from_le_bytes([v[o], v[o + 1], v[o + 2], v[o + 3]]);
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for v in vb.data.chunks_exact(vb.stride as usize) {
        let p = pos.offset as usize;
        positions.push([f(v, p), f(v, p + 4), f(v, p + 8)]);
        uvs.push([f(v, offset), f(v, offset + 4)]);
    }
    (positions, uvs)
}

#[test]
fn balsam_writes_the_same_lightmap_attribute() {
    let test = "balsam_writes_the_same_lightmap_attribute";
    let (Some(corpus), Some(balsam)) = (corpus(test), qt6_tool("balsam")) else {
        if qt6_tool("balsam").is_none() {
            missing(test, "balsam (Qt 6.4, Debian's qt6-quick3d-dev-tools)");
        }
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let source = corpus.join("gltf/cube/cube.gltf");
    let theirs = scratch.path().join("balsam");
    let run = std::process::Command::new(&balsam)
        .env("QT_QPA_PLATFORM", "offscreen")
        .arg("--generateLightmapUV")
        .arg("-o")
        .arg(&theirs)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let input = scratch.path().join("input");
    copy_dir(&corpus.join("gltf/cube"), &input.join("cube"));
    let ours = build(
        scratch.path(),
        "ours",
        &input,
        "[mesh]\ngenerate_lightmap_uvs = true\n[qtmesh]\nmesh_version = 5\n",
        &["--target", "qtmesh"],
    );
    let read = |dir: &Path| -> qtmesh::QtMesh {
        let (_, bytes) = tree(dir)
            .into_iter()
            .find(|(n, _)| n.ends_with(".mesh"))
            .unwrap_or_else(|| panic!("no .mesh below {dir:?}"));
        qtmesh::read(&bytes).unwrap().meshes.remove(0).1
    };
    let (b, o) = (read(&theirs), read(&ours));
    let layout = |m: &qtmesh::QtMesh| -> Vec<(String, u32, u32)> {
        m.vertex_buffer
            .entries
            .iter()
            .map(|e| (e.name.clone(), e.component_type, e.component_count))
            .collect()
    };
    assert_eq!(layout(&o), layout(&b), "attribute names, types and order");
    assert_eq!(o.subsets.len(), b.subsets.len());
    // Both give a size hint: Balsam the size of xatlas' atlas, we the resolution.
    assert!(b.subsets.iter().all(|s| s.lightmap_size_hint[0] > 0));
    assert!(o
        .subsets
        .iter()
        .all(|s| s.lightmap_size_hint == [1024, 1024]));
    // The cube's six faces are six charts on both sides: ours by the checker's count,
    // Balsam's by the same union of corners sharing a lightmap UV (its atlas is not
    // square, so it is not rasterised here).
    let offset = o.vertex_buffer.entries.last().unwrap().offset as usize;
    let (positions, uvs) = qt_streams(&o, offset);
    let report = check_lightmap(&positions, &qt_indices(&o), &uvs, 1024, PADDING_TEXELS).unwrap();
    assert_eq!(report.charts, 6, "{report:?}");
}
