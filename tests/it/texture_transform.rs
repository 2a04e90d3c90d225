//! `KHR_texture_transform` reaches `.hmesh`: on the corpus's MixedLightingExample (the one
//! corpus asset using the extension), the "wood Brown" material, whose baseColor and
//! metallicRoughness textures share one transform (scale 3, rotation 5 degrees, an offset),
//! gets it baked into the UV0 of its primitive, and no longer drops the extension. (Its
//! materials whose textures disagree are variants no primitive uses; the unit tests of
//! `pipeline::texture_transform` cover that warning.)

use crate::common;

use assetc::formats::hmesh;
use assetc::import::{import_gltf, ImportOptions};
use assetc::kinds::asset::AssetSettings;
use assetc::pipeline::prepare::PrepareCache;
use assetc::targets::hmesh::HMeshTarget;
use assetc::targets::{TargetInput, TargetWriter};

/// The extension's uv' = T * R * S * uv, written out from the glTF JSON values.
fn transform(ext: &serde_json::Value, [u, v]: [f32; 2]) -> [f32; 2] {
    let f = |k: &str, i: usize, default: f64| {
        ext[k].get(i).and_then(|x| x.as_f64()).unwrap_or(default) as f32
    };
    let (ox, oy, sx, sy) = (
        f("offset", 0, 0.0),
        f("offset", 1, 0.0),
        f("scale", 0, 1.0),
        f("scale", 1, 1.0),
    );
    let r = ext["rotation"].as_f64().unwrap_or(0.0) as f32;
    [
        r.cos() * sx * u + r.sin() * sy * v + ox,
        -r.sin() * sx * u + r.cos() * sy * v + oy,
    ]
}

/// UV bounding box (min u, min v, max u, max v).
fn bbox(uvs: impl Iterator<Item = [f32; 2]>) -> [f32; 4] {
    uvs.fold(
        [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
        |[a, b, c, d], [u, v]| [a.min(u), b.min(v), c.max(u), d.max(v)],
    )
}

#[test]
fn shared_transforms_are_baked_into_hmesh_uvs() {
    let test = "shared_transforms_are_baked_into_hmesh_uvs";
    let Some(corpus) = common::corpus(test) else {
        return;
    };
    let src = corpus.join("gltf/MixedLightingExample/MixedLightingExample.gltf");
    if !src.is_file() {
        common::missing(test, &src.display().to_string());
        return;
    }
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&src).unwrap()).unwrap();
    let scene = import_gltf(&src, "mixed", &ImportOptions::new(src.parent().unwrap())).unwrap();
    let out = HMeshTarget
        .build(&TargetInput {
            scene: &scene,
            settings: AssetSettings::default().model(),
            source_stem: None,
            cache: &PrepareCache::default(),
        })
        .unwrap();
    // Material 6 is baked: it no longer drops the extension. Materials 3 (whose textures
    // disagree) and 7 are only KHR_materials_variants alternatives, which no primitive
    // uses, so they are neither baked nor named.
    let warnings: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    let warnings = warnings.join("\n");
    assert!(!warnings.contains("KHR_texture_transform"), "{warnings}");

    let mesh_file = out
        .files
        .iter()
        .find(|f| f.rel_path.ends_with(".hmesh"))
        .expect("an .hmesh");
    let mesh = hmesh::read(&mesh_file.bytes).unwrap();
    let slot_materials: Vec<usize> = scene_slots(&scene, &mesh);
    let mut baked_submeshes = 0;
    for (material, name) in [(6usize, "wood Brown")] {
        let m = &doc["materials"][material];
        assert_eq!(m["name"], name);
        let ext =
            &m["pbrMetallicRoughness"]["baseColorTexture"]["extensions"]["KHR_texture_transform"];
        assert!(ext.is_object(), "materials[{material}] has its transform");
        // The source's UV0 of every primitive with this material, transformed here.
        let want = bbox(
            scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .filter(|p| p.material == Some(material))
                .flat_map(|p| p.uv0.iter().flatten())
                .map(|&uv| transform(ext, uv)),
        );
        let untransformed = bbox(
            scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .filter(|p| p.material == Some(material))
                .flat_map(|p| p.uv0.iter().flatten().copied()),
        );
        // What the .hmesh holds for the submeshes of this material.
        let mut uvs = Vec::new();
        for s in &mesh.submeshes {
            if slot_materials.get(s.material_slot as usize) != Some(&material) {
                continue;
            }
            baked_submeshes += 1;
            let first = s.first_index as usize;
            for &i in &mesh.indices[first..first + s.index_count as usize] {
                uvs.push(mesh.vertices[(s.base_vertex + i) as usize].uv);
            }
        }
        let got = bbox(uvs.into_iter());
        eprintln!("materials[{material}]: .hmesh UV bounds {got:?}, source {untransformed:?}");
        for k in 0..4 {
            assert!(
                (got[k] - want[k]).abs() < 1e-3,
                "materials[{material}]: UV bounds {got:?}, transformed source {want:?}, \
                 untransformed {untransformed:?}"
            );
        }
        assert!(
            (0..4).any(|k| (untransformed[k] - want[k]).abs() > 0.1),
            "the transform must move the UVs for the test to mean anything"
        );
    }
    assert!(baked_submeshes >= 1, "{baked_submeshes} submeshes checked");
}

/// The source material of each `.hmesh` material slot: MTRL holds FNV-1a of each slot's
/// material ref, `<sourceRef>/<leaf>`.
fn scene_slots(scene: &assetc::scene::Scene, mesh: &hmesh::HMesh) -> Vec<usize> {
    use assetc::formats::hash::fnv1a64;
    use assetc::pipeline::material_refs::material_ref;
    mesh.materials
        .iter()
        .map(|hash| {
            (0..scene.materials.len())
                .find(|&i| fnv1a64(&material_ref(&scene.source_ref, &scene.materials, i)) == *hash)
                .unwrap_or(usize::MAX)
        })
        .collect()
}
