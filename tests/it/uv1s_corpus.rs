//! `.hmesh` UV1S on a real asset with TEXCOORD_1 (the corpus's MixedLightingExample, whose
//! occlusion maps all read texCoord 1): built by the binary, every corner of every submesh
//! carries the source's second UV, and the output passes `assetc check`.

use crate::common;

use assetc::formats::hmesh;
use assetc::import::{import_gltf, ImportOptions};
use common::*;
use glam::Vec3;
use std::collections::HashMap;

/// One triangle corner: position (world space), UV0 and UV1, the UVs as bit patterns (the
/// pipeline copies them, so they must survive exactly).
#[derive(Debug, Clone, Copy)]
struct Corner {
    position: Vec3,
    uv0: [u32; 2],
    uv1: [u32; 2],
}

fn bits(uv: [f32; 2]) -> [u32; 2] {
    uv.map(f32::to_bits)
}

/// Whether `corners` holds one at `c`'s UVs within `eps` of its position.
fn has(corners: &HashMap<[u32; 2], Vec<Corner>>, c: &Corner, eps: f32) -> bool {
    corners
        .get(&c.uv0)
        .into_iter()
        .flatten()
        .any(|o| o.uv1 == c.uv1 && o.position.distance(c.position) <= eps)
}

fn by_uv0(corners: &[Corner]) -> HashMap<[u32; 2], Vec<Corner>> {
    let mut map: HashMap<[u32; 2], Vec<Corner>> = HashMap::new();
    for c in corners {
        map.entry(c.uv0).or_default().push(*c);
    }
    map
}

#[test]
fn second_uv_set_reaches_every_corner_of_the_built_hmesh() {
    let Some(corpus) = corpus("uv1s_corpus") else {
        return;
    };
    let src = corpus.join("gltf/MixedLightingExample");
    let source = src.join("MixedLightingExample.gltf");
    let out = tempfile::tempdir().unwrap();
    let config = out.path().join("build.toml");
    // Small exact textures: the test is about geometry, not texture encoding time.
    std::fs::write(
        &config,
        "[texture]\nformat = \"rgba8\"\nmax_size = 16\nmipmaps = false\n",
    )
    .unwrap();
    let runtime = out.path().join("runtime");
    let build = assetc(&[
        "build",
        src.to_str().unwrap(),
        "-o",
        runtime.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let check = assetc(&["check", runtime.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let mesh =
        hmesh::read(&std::fs::read(runtime.join("mixedlightingexample.hmesh")).unwrap()).unwrap();
    let uv1 = mesh.uv1.as_ref().expect("the source has TEXCOORD_1: UV1S");
    assert_eq!(uv1.len(), mesh.vertices.len());

    let imported = import_gltf(&source, "mixedlightingexample", &ImportOptions::new(&src)).unwrap();
    // The .hmesh target bakes KHR_texture_transform into the UVs first (one material of
    // this asset has one): the source corners are those of the baked scene.
    let (scene, _) = assetc::pipeline::texture_transform::bake_texture_transforms(&imported);
    let instances = scene.primitive_instances();
    assert_eq!(
        instances.len(),
        mesh.submeshes.len(),
        "one submesh per instance"
    );
    let mut compared = 0usize;
    let mut differing = 0usize;
    for (inst, sub) in instances.iter().zip(&mesh.submeshes) {
        let prim = scene.primitive(*inst);
        let world = scene.nodes[inst.node].world_matrix;
        let (Some(suv0), Some(suv1)) = (&prim.uv0, &prim.uv1) else {
            panic!(
                "{}: every primitive of this asset has both sets",
                prim.gltf_path
            );
        };
        let source: Vec<Corner> = prim
            .indices
            .iter()
            .map(|&i| Corner {
                position: world.transform_point3(Vec3::from(prim.positions[i as usize])),
                uv0: bits(suv0[i as usize]),
                uv1: bits(suv1[i as usize]),
            })
            .collect();
        let range = sub.first_index as usize..(sub.first_index + sub.index_count) as usize;
        let built: Vec<Corner> = mesh.indices[range]
            .iter()
            .map(|&v| Corner {
                position: Vec3::from(mesh.vertices[v as usize].position),
                uv0: bits(mesh.vertices[v as usize].uv),
                uv1: bits(uv1[v as usize]),
            })
            .collect();
        assert_eq!(
            built.len(),
            source.len(),
            "{}: corner count",
            prim.gltf_path
        );
        // Positions are baked by the node's world matrix in f32: allow for its rounding,
        // relative to the primitive's extent.
        let extent = source
            .iter()
            .map(|c| c.position.abs().max_element())
            .fold(0.0f32, f32::max);
        let eps = extent * 1e-5 + 1e-6;
        let (source_map, built_map) = (by_uv0(&source), by_uv0(&built));
        for c in &built {
            assert!(
                has(&source_map, c, eps),
                "{}: built corner {c:?} has no source corner with the same UVs",
                prim.gltf_path
            );
        }
        for c in &source {
            assert!(
                has(&built_map, c, eps),
                "{}: source corner {c:?} is missing from the .hmesh",
                prim.gltf_path
            );
        }
        differing += source.iter().filter(|c| c.uv0 != c.uv1).count();
        compared += source.len();
    }
    assert!(compared > 1000, "only {compared} corners compared");
    // The two sets differ on most of this asset (its floor plane has the same UVs in
    // both), so the check above could not pass by reading UV0 twice.
    assert!(
        differing * 2 > compared,
        "UV1 differs from UV0 at only {differing} of {compared} corners"
    );
}
