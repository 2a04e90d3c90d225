//! The tangent stage gives the tangents of whole-mesh MikkTSpace (`bevy_mikktspace` run
//! once over the primitive, as before the stage cut large primitives into chunks) within
//! 1e-4 per component, with the same handedness, on every corpus primitive with UVs and on
//! a generated normal-mapped height field large enough to be cut into chunks.

mod common;

use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::geometry::{xyz, Geometry, Semantic};
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
    let mut g =
        prim.streams(|s, set| set == 0 && matches!(s, Semantic::Normal | Semantic::TexCoord));
    g.check().unwrap();
    if !g.has(Semantic::Normal, 0) {
        normal_split(&g, 60.0).apply(&mut g);
    }
    g
}

/// Largest component difference and corners compared; panics on a handedness mismatch.
fn compare(name: &str, g: &Geometry) -> (f32, usize) {
    let mut reference = Reference {
        g,
        corners: vec![None; g.indices.len()],
    };
    bevy_mikktspace::generate_tangents::<_, bevy_mikktspace::StdOps>(&mut reference)
        .unwrap_or_else(|e| panic!("{name}: MikkTSpace failed: {e:?}"));
    let mut ours = g.clone();
    assert!(generate_tangents(&mut ours, 0), "{name}: no tangents");
    let tangents = ours.stream(Semantic::Tangent, 0).unwrap();
    let mut worst = 0.0f32;
    let mut compared = 0;
    for (corner, expected) in reference.corners.iter().enumerate() {
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
fn tangents_match_mikktspace_on_a_normal_mapped_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("field.glb");
    // 320,000 triangles: five chunks of the stage's 65,536.
    assetc::samples::height_field_glb_with(
        &path,
        401,
        401,
        true,
        assetc::samples::FieldMaterial::NormalMapped,
    )
    .unwrap();
    let scene = import_gltf(&path, "field", &ImportOptions::new(dir.path())).unwrap();
    let (diff, n) = compare("field", &stage_input(&scene.meshes[0].primitives[0]));
    assert_eq!(n, 400 * 400 * 6, "every corner has a frame");
    assert!(diff <= 1e-4, "differs from MikkTSpace by {diff}");
}
