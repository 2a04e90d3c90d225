//! Round trips, truncation, one hand-built file per validator rule, bit flips.

use super::*;
use proptest::prelude::*;

fn vertex(x: f32, y: f32) -> GpuVertex {
    GpuVertex {
        position: [x, y, 0.0],
        normal: [0, 0],
        tangent: [0, 0],
        uv: [x, y],
    }
}

/// A unit right triangle: 3 vertices, one submesh, one meshlet, one material.
fn triangle() -> HMesh {
    // Sphere around (0.5, 0.5, 0) through every corner: radius sqrt(0.5).
    let bounds = MeshBounds {
        aabb_min: [0.0, 0.0, 0.0],
        aabb_max: [1.0, 1.0, 0.0],
        sphere_center: [0.5, 0.5, 0.0],
        sphere_radius: 0.5f32.sqrt(),
    };
    HMesh {
        bounds,
        vertices: vec![vertex(0.0, 0.0), vertex(1.0, 0.0), vertex(0.0, 1.0)],
        indices: vec![0, 1, 2],
        meshlets: vec![Meshlet {
            vertex_offset: 0,
            vertex_count: 3,
            triangle_offset: 0,
            triangle_count: 1,
        }],
        meshlet_vertices: vec![0, 1, 2],
        meshlet_triangles: vec![MeshletTriangle([0, 1, 2])],
        meshlet_bounds: vec![MeshletBounds {
            center: [0.5, 0.5, 0.0],
            radius: 0.5f32.sqrt(),
            cone_axis: [0.0, 0.0, 1.0],
            cone_cutoff: 1.0,
        }],
        materials: vec![0xabcd],
        submeshes: vec![SubMesh {
            first_index: 0,
            index_count: 3,
            first_meshlet: 0,
            meshlet_count: 1,
            material_slot: 0,
            base_vertex: 0,
            bounds,
        }],
        has_tangents: false,
        meshlet_max_verts: 64,
        meshlet_max_tris: 124,
        skinning: None,
        lods: None,
        uv1: None,
        cluster_lod: None,
    }
}

fn skinned() -> HMesh {
    let mut m = triangle();
    let identity = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let joint = |parent| GpuJoint {
        inverse_bind: identity,
        bind_t: [0.0; 3],
        bind_r: [0.0, 0.0, 0.0, 1.0],
        bind_s: [1.0; 3],
        parent,
        pad: 0,
    };
    m.skinning = Some(Skinning {
        vertices: vec![
            GpuSkinVertex {
                joints: [0, 1, 0, 0],
                weights: [0.5, 0.5, 0.0, 0.0],
            };
            3
        ],
        joints: vec![joint(-1), joint(0)],
    });
    m.lods = Some(Lods {
        lod_count: 1,
        indices: vec![0, 1, 2],
        ranges: vec![MeshLod {
            first_index: 0,
            index_count: 3,
        }],
    });
    // Every optional chunk is present, so the prefix and bit-flip tests cover UV1S too.
    m.uv1 = Some(vec![[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]]);
    m
}

#[test]
fn second_uv_set_is_the_last_chunk_and_reads_back() {
    let bytes = write(&skinned()).unwrap();
    let view = HMeshView::parse(&bytes).unwrap();
    let at = view.chunk_offset(chunk::UV1S) as usize;
    // The writer's fixed order puts UV1S after LODT: its entry is the 15th and last.
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 15);
    let last_entry = 32 + 24 * 14;
    assert_eq!(&bytes[last_entry..last_entry + 4], b"UV1S");
    assert_eq!(at % 16, 0);
    // Vertex 0's second UV, as f32 LE pairs, 24 bytes for 3 vertices.
    assert_eq!(bytes[at..at + 4], 0.25f32.to_le_bytes());
    assert_eq!(bytes[at + 4..at + 8], 0.75f32.to_le_bytes());
    assert_eq!(
        at + 24,
        bytes.len(),
        "UV1S is the last payload: 3 x 8 bytes"
    );
    assert_eq!(
        view.uv1.as_deref(),
        Some(&[[0.25, 0.75], [0.5, 0.5], [1.0, 0.0]][..])
    );
    // Without a second set the file has no UV1S entry at all.
    let plain = write(&triangle()).unwrap();
    assert!(!plain.windows(4).any(|w| w == b"UV1S"));
    assert_eq!(read(&plain).unwrap().uv1, None);
    // A set that is not parallel to the vertices is refused by the writer.
    let mut wrong = skinned();
    wrong.uv1 = Some(vec![[0.0; 2]; 2]);
    assert!(
        matches!(write(&wrong), Err(HMeshError::Inconsistent(m)) if m.contains("2 second-set UVs for 3 vertices"))
    );
    // A UV1S entry whose size is not 8 x vertexCount (16 instead of 24) is refused.
    let mut short = bytes.clone();
    short[last_entry + 16..last_entry + 24].copy_from_slice(&16u64.to_le_bytes());
    let err = HMeshView::parse(&short).unwrap_err();
    assert!(
        err.to_string()
            .contains("chunk UV1S is 16 bytes, expected 3 x 8"),
        "{err}"
    );
    assert!(!validate(&short).is_empty());
}

#[test]
fn round_trips() {
    for mesh in [triangle(), skinned()] {
        let bytes = write(&mesh).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        assert_eq!(read(&bytes).unwrap(), mesh);
        let view = HMeshView::parse(&bytes).unwrap();
        assert_eq!(view.desc.vertex_count, 3);
        assert_eq!(view.desc.index_width, 2);
        assert_eq!(view.indices.to_u32_vec(), vec![0, 1, 2]);
    }
}

#[test]
fn every_prefix_is_refused_once() {
    let bytes = write(&skinned()).unwrap();
    // Zero padding after the last payload is allowed to be absent only at the very end,
    // so every shorter prefix cuts into a payload, the table or the header.
    for n in 0..bytes.len() {
        assert!(HMeshView::parse(&bytes[..n]).is_err(), "prefix {n}");
        let problems = validate(&bytes[..n]);
        assert!(!problems.is_empty(), "prefix {n}");
        for p in &problems {
            let text = p.to_string();
            assert!(!text.contains(": at byte"), "prefix {n}: {text}");
        }
    }
}

/// Writes `mesh` after `change`, then patches bytes at the payload of `chunk` + `at`.
fn file(change: impl FnOnce(&mut HMesh), patch: Option<(FourCc, u64, &[u8])>) -> Vec<u8> {
    let mut mesh = skinned();
    change(&mut mesh);
    let mut bytes = write(&mesh).unwrap();
    if let Some((c, at, with)) = patch {
        let view = HMeshView::parse(&bytes).unwrap();
        let start = (view.chunk_offset(c) + at) as usize;
        bytes[start..start + with.len()].copy_from_slice(with);
    }
    bytes
}

#[test]
fn one_file_per_rule() {
    let none = |_: &mut HMesh| {};
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (file(none, Some((chunk::DESC, 22, &[4]))), "IDXS is 6 bytes"),
        (file(none, Some((chunk::DESC, 22, &[3]))), "indexWidth is 3"),
        (file(none, Some((chunk::DESC, 23, &[2]))), "reserved bits"),
        (
            file(|m| m.bounds.aabb_max = [0.5, 1.0, 0.0], None),
            "outside the mesh AABB",
        ),
        (
            file(|m| m.bounds.sphere_radius = 0.1, None),
            "outside the mesh bounding sphere",
        ),
        (
            file(|m| m.bounds.aabb_min = [2.0, 0.0, 0.0], None),
            "AABB min exceeds max",
        ),
        (
            file(|m| m.vertices[1].position[0] = f32::NAN, None),
            "non-finite",
        ),
        (
            file(|m| m.vertices[1].normal = [i16::MIN, 0], None),
            "-32768",
        ),
        (
            file(|m| m.vertices[1].tangent = [1, 0], None),
            "placeholder tangent",
        ),
        (file(|m| m.indices[2] = 7, None), "not below vertexCount"),
        (file(|m| m.submeshes[0].material_slot = 5, None), "material"),
        (file(|m| m.submeshes[0].base_vertex = 1, None), "base"),
        (
            file(|m| m.meshlet_max_verts = 2, None),
            "over the DESC limits",
        ),
        (
            file(
                |m| m.meshlet_triangles[0] = MeshletTriangle([0, 1, 3]),
                None,
            ),
            "local",
        ),
        (
            file(
                |m| {
                    if let Some(s) = &mut m.skinning {
                        s.vertices[0].joints[0] = 9;
                    }
                },
                None,
            ),
            "joint",
        ),
        (
            file(
                |m| {
                    if let Some(s) = &mut m.skinning {
                        s.vertices[0].weights = [0.9, 0.9, 0.0, 0.0];
                    }
                },
                None,
            ),
            "weight",
        ),
        (
            file(
                |m| {
                    if let Some(s) = &mut m.skinning {
                        s.joints[0].parent = 1;
                    }
                },
                None,
            ),
            "cycle",
        ),
        (
            file(
                |m| {
                    if let Some(l) = &mut m.lods {
                        l.ranges[0].index_count = 2;
                    }
                },
                None,
            ),
            "not a multiple of 3",
        ),
        (
            file(
                |m| {
                    if let Some(l) = &mut m.lods {
                        l.indices[0] = 3;
                    }
                },
                None,
            ),
            "LODI index 0 is 3",
        ),
        (
            file(
                |m| {
                    if let Some(u) = &mut m.uv1 {
                        u[2][1] = f32::INFINITY;
                    }
                },
                None,
            ),
            "UV1S entry 2",
        ),
    ];
    for (i, (bytes, expect)) in cases.into_iter().enumerate() {
        let problems = validate(&bytes);
        assert!(
            problems.iter().any(|p| p.message.contains(expect)),
            "case {i} ({expect}): {problems:?}"
        );
    }
    // Container rules on the bytes.
    let good = write(&triangle()).unwrap();
    let mut b = good.clone();
    b[0] = b'X';
    assert!(validate(&b)[0].message.contains("magic"));
    let mut b = good.clone();
    b[4] = 3;
    assert!(validate(&b)[0].message.contains("version is 3"));
    let mut b = good.clone();
    b[16] = 1;
    assert!(validate(&b).iter().any(|p| p.message.contains("reserved")));
    let mut b = good.clone();
    b.push(1);
    assert!(validate(&b).iter().any(|p| p.message.contains("not zero")));
    // The second entry (BNDS) listed as DESC.
    let mut b = good;
    b[32 + 24..32 + 28].copy_from_slice(b"DESC");
    assert!(validate(&b)
        .iter()
        .any(|p| p.message.contains("second time")));
}

proptest! {
    #[test]
    fn bit_flips_never_panic_and_are_seen(bit in 0usize..(8 * 1024)) {
        let original = write(&skinned()).unwrap();
        let mut b = original.clone();
        let byte = bit / 8 % b.len();
        b[byte] ^= 1 << (bit % 8);
        let problems = validate(&b);
        // UV1S is optional and flagged nowhere else: a flip in its tag makes an unknown
        // chunk, which readers skip by the spec, so the file is valid without it.
        let uv1s_tag = original.windows(4).position(|w| w == b"UV1S");
        let renames_optional = uv1s_tag.is_some_and(|at| (at..at + 4).contains(&byte));
        // A flip the reader carries through (the same bytes written back) is another
        // file; one it drops or refuses must be named by the validator. Free values
        // (material refs, UVs, pads of the joint) may pass both ways.
        if !renames_optional && read(&b).ok().and_then(|m| write(&m).ok()) != Some(b.clone()) {
            prop_assert!(!problems.is_empty(), "flip at byte {byte} unseen");
        }
    }
}

/// The submesh containment rule names every index of a vertex outside the submesh's
/// bounds, in each submesh whose bounds it leaves, although each vertex is looked at once
/// per submesh: here vertex 1 is inside submesh 0's bounds, outside submesh 1's, and
/// named by index 1 (submesh 0) and index 5 (submesh 1).
fn messages(mesh: &HMesh) -> Vec<String> {
    validate(&write(mesh).unwrap())
        .iter()
        .map(|p| p.message.clone())
        .collect()
}

#[test]
fn vertices_outside_a_submesh_are_named_by_each_index_of_that_submesh() {
    let mut mesh = triangle();
    mesh.indices = vec![0, 1, 2, 0, 2, 1];
    mesh.meshlets.push(Meshlet {
        vertex_offset: 3,
        vertex_count: 3,
        triangle_offset: 1,
        triangle_count: 1,
    });
    mesh.meshlet_vertices.extend([0, 2, 1]);
    mesh.meshlet_triangles.push(MeshletTriangle([0, 1, 2]));
    mesh.meshlet_bounds.push(mesh.meshlet_bounds[0]);
    let mut second = mesh.submeshes[0];
    second.first_index = 3;
    second.first_meshlet = 1;
    mesh.submeshes.push(second);
    assert_eq!(validate(&write(&mesh).unwrap()), vec![]);

    mesh.submeshes[1].bounds.aabb_max[0] = 0.5;
    let problems = messages(&mesh);
    assert_eq!(
        problems,
        vec!["submesh 1: vertex of index 5 lies outside the submesh AABB".to_string()]
    );

    // Outside both submeshes: each names it by its own index (the look-ups of submesh 0
    // do not hide it from submesh 1).
    mesh.indices = vec![0, 1, 2, 1, 2, 0];
    mesh.meshlet_vertices = vec![0, 1, 2, 1, 2, 0];
    mesh.submeshes[0].bounds.aabb_max[0] = 0.5;
    let problems = messages(&mesh);
    assert_eq!(
        problems,
        vec![
            "submesh 0: vertex of index 1 lies outside the submesh AABB".to_string(),
            "submesh 1: vertex of index 3 lies outside the submesh AABB".to_string(),
        ]
    );
}
