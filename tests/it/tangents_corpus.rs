//! The tangent stage gives the tangents of whole-mesh MikkTSpace (`bevy_mikktspace` run
//! once over the primitive) within 1e-4 per component, with the same handedness, on every
//! corpus primitive with UVs and on a generated normal-mapped height field large enough for
//! the stage's parallel implementation; and that implementation is bit-identical to the
//! reference on every corpus primitive once the reference's edge-sorting fault is moved out
//! of the way.

use crate::common;

use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::geometry::{xyz, Geometry, Semantic};
use assetc::pipeline::mikktspace::{corner_tangents, Mesh};
use assetc::pipeline::normals::normal_split;
use assetc::pipeline::tangents::generate_tangents;
use assetc::scene::Primitive;
use bevy_mikktspace::TangentSpace;

/// MikkTSpace's tangent of every corner; `None` where it gives no frame (degenerate).
struct Reference<'a> {
    g: &'a Geometry,
    corners: Vec<Option<[f32; 4]>>,
}

impl Reference<'_> {
    fn stream(&self, semantic: Semantic, face: usize, vert: usize) -> [f32; 4] {
        let v = self.g.indices[face * 3 + vert] as usize;
        self.g.stream(semantic, 0).unwrap()[v]
    }
}

/// `g` with one more triangle, last, on three new vertices beyond its bounds. The C
/// reference (and `bevy_mikktspace`, which reproduces it) leaves the edges of its
/// highest-numbered vertex partly unsorted (MikkTSpace issue #5); those are now this
/// triangle's own, which shares no vertex with the rest, so the rest gets what MikkTSpace
/// with its edges sorted gives.
fn with_sentinel_triangle(g: &Geometry) -> Geometry {
    let mut g = g.clone();
    let far = g
        .positions()
        .iter()
        .flat_map(|p| [p[0], p[1], p[2]])
        .fold(0.0f32, |m, c| m.max(c.abs()))
        + 1.0;
    let first = g.vertex_count() as u32;
    for k in 0..3 {
        let v = g.duplicate_vertex(0) as usize;
        let corner = [
            far + k as f32,
            far + (k == 1) as u8 as f32,
            far + (k == 2) as u8 as f32,
        ];
        for stream in &mut g.streams {
            stream.data[v] = match stream.semantic {
                Semantic::Position => [corner[0], corner[1], corner[2], 0.0],
                Semantic::Normal => [0.0, 0.0, 1.0, 0.0],
                _ => [k as f32, (k == 2) as u8 as f32, 0.0, 0.0],
            };
        }
    }
    g.indices.extend([first, first + 1, first + 2]);
    g
}

/// MikkTSpace's tangent of every corner, `None` where it gives no frame.
fn reference(g: &Geometry) -> Vec<Option<[f32; 4]>> {
    let mut reference = Reference {
        g,
        corners: vec![None; g.indices.len()],
    };
    bevy_mikktspace::generate_tangents::<_, bevy_mikktspace::StdOps>(&mut reference).unwrap();
    reference.corners
}

/// Corners where the parallel implementation and the reference (with the sentinel
/// triangle) differ in any bit; the reference's `None` is the parallel one's `NO_FRAME`.
fn parallel_against_reference(g: &Geometry) -> usize {
    let expected = reference(&with_sentinel_triangle(g));
    let mesh = Mesh::new(
        &g.indices,
        g.positions(),
        g.stream(Semantic::Normal, 0).unwrap(),
        g.stream(Semantic::TexCoord, 0).unwrap(),
    )
    .unwrap();
    let got = corner_tangents(&mesh);
    got.iter()
        .zip(&expected)
        .filter(|(got, expected)| {
            let expected = expected.unwrap_or(assetc::pipeline::mikktspace::NO_FRAME);
            (0..4).any(|k| got[k] != expected[k] && !(got[k].is_nan() && expected[k].is_nan()))
        })
        .count()
}

impl bevy_mikktspace::Geometry for Reference<'_> {
    fn num_faces(&self) -> usize {
        self.g.indices.len() / 3
    }
    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }
    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        xyz(self.stream(Semantic::Position, face, vert))
    }
    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        xyz(self.stream(Semantic::Normal, face, vert))
    }
    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        let uv = self.stream(Semantic::TexCoord, face, vert);
        [uv[0], uv[1]]
    }
    fn set_tangent(&mut self, tangent_space: Option<TangentSpace>, face: usize, vert: usize) {
        self.corners[face * 3 + vert] = tangent_space.map(|t| t.tangent_encoded());
    }
}

/// The geometry the tangent stage sees: positions, normals (generated as the pipeline
/// does when missing) and UV0.
fn stage_input(prim: &Primitive) -> Geometry {
    let mut g = Geometry::from_primitive(prim, |s, set| {
        set == 0 && matches!(s, Semantic::Normal | Semantic::TexCoord)
    });
    g.check().unwrap();
    if !g.has(Semantic::Normal, 0) {
        normal_split(&g, 60.0).apply(&mut g);
    }
    g
}

/// Largest component difference and corners compared; panics on a handedness mismatch.
fn compare(name: &str, g: &Geometry) -> (f32, usize) {
    let reference = reference(g);
    let mut ours = g.clone();
    assert!(generate_tangents(&mut ours, 0), "{name}: no tangents");
    let tangents = ours.stream(Semantic::Tangent, 0).unwrap();
    let mut worst = 0.0f32;
    let mut compared = 0;
    for (corner, expected) in reference.iter().enumerate() {
        let Some(expected) = expected else { continue };
        let got = tangents[ours.indices[corner] as usize];
        let diff = (0..3)
            .map(|k| (got[k] - expected[k]).abs())
            .fold(0.0, f32::max);
        assert_eq!(
            got[3].signum(),
            expected[3].signum(),
            "{name}: corner {corner}: handedness of {got:?} against MikkTSpace's {expected:?}"
        );
        worst = worst.max(diff);
        compared += 1;
    }
    (worst, compared)
}

#[test]
fn tangents_match_mikktspace_on_the_corpus() {
    let Some(corpus) = common::corpus("tangents_match_mikktspace_on_the_corpus") else {
        return;
    };
    let root = corpus.join("gltf");
    let files = common::gltf_files(&root);
    let mut primitives = 0;
    let mut corners = 0;
    let mut worst = (0.0f32, String::new());
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let Ok(scene) = import_gltf(file, &rel, &ImportOptions::new(&root)) else {
            continue; // files the importer refuses are tests of their own
        };
        for mesh in &scene.meshes {
            for prim in mesh.primitives.iter().filter(|p| p.uv0.is_some()) {
                let name = format!("{rel} {}", prim.gltf_path);
                let (diff, n) = compare(&name, &stage_input(prim));
                primitives += 1;
                corners += n;
                if diff > worst.0 {
                    worst = (diff, name);
                }
            }
        }
    }
    eprintln!(
        "{primitives} primitives, {corners} corners: largest difference {} ({})",
        worst.0, worst.1
    );
    assert!(primitives > 10, "the corpus has primitives with UVs");
    assert!(
        worst.0 <= 1e-4,
        "{} differs from MikkTSpace by {}",
        worst.1,
        worst.0
    );
}

#[test]
fn the_parallel_implementation_is_the_reference_without_its_sort_fault_on_the_corpus() {
    let Some(corpus) = common::corpus(
        "the_parallel_implementation_is_the_reference_without_its_sort_fault_on_the_corpus",
    ) else {
        return;
    };
    let root = corpus.join("gltf");
    let (mut primitives, mut faulted) = (0, Vec::new());
    for file in &common::gltf_files(&root) {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let Ok(scene) = import_gltf(file, &rel, &ImportOptions::new(&root)) else {
            continue;
        };
        for mesh in &scene.meshes {
            for prim in mesh.primitives.iter().filter(|p| p.uv0.is_some()) {
                let name = format!("{rel} {}", prim.gltf_path);
                let g = stage_input(prim);
                let differing = parallel_against_reference(&g);
                assert_eq!(differing, 0, "{name}: {differing} corners differ");
                primitives += 1;
                // Where the fault bites, the plain reference differs from the sentinel run.
                let plain = reference(&g);
                let sentinel = reference(&with_sentinel_triangle(&g));
                if plain.iter().zip(&sentinel).any(|(a, b)| a != b) {
                    faulted.push(name);
                }
            }
        }
    }
    eprintln!("{primitives} primitives; the reference's sort fault bites on {faulted:?}");
    assert!(primitives > 10, "the corpus has primitives with UVs");
}

#[test]
fn tangents_match_mikktspace_on_a_normal_mapped_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("field.glb");
    // 320,000 triangles: above the stage's limit for the reference implementation.
    assetc::samples::height_field_glb_with(
        &path,
        401,
        401,
        true,
        assetc::samples::FieldMaterial::NormalMapped,
    )
    .unwrap();
    let scene = import_gltf(&path, "field", &ImportOptions::new(dir.path())).unwrap();
    let g = stage_input(&scene.meshes[0].primitives[0]);
    assert!(g.indices.len() / 3 > assetc::pipeline::tangents::REFERENCE_TRIANGLES);
    let (diff, n) = compare("field", &g);
    assert_eq!(n, 400 * 400 * 6, "every corner has a frame");
    assert!(diff <= 1e-4, "differs from MikkTSpace by {diff}");
    assert_eq!(parallel_against_reference(&g), 0);
}
