//! A hand-built two-level hierarchy: round trips (plain and encoded), one broken file per
//! rule, the two cuts, bit flips.

use super::*;
use crate::hmesh::{read, validate, write, HMesh, HMeshView, MeshBounds, SubMesh};
use proptest::prelude::*;

fn sphere(center: [f32; 3], radius: f32) -> LodSphere {
    LodSphere { center, radius }
}

/// A unit quad as two source clusters (group 0, level 0) simplified into one cluster of
/// both triangles (group 1, level 1, terminal); one root leaf per level.
fn quad_lod() -> ClusterLod {
    let s0 = sphere([0.5, 0.5, 0.0], 0.75);
    let s1 = sphere([0.5, 0.5, 0.0], 0.8);
    let culling = |c: [f32; 3]| MeshletBounds {
        center: c,
        radius: 0.5,
        cone_axis: [0.0, 0.0, 1.0],
        cone_cutoff: 0.5,
    };
    let cluster = |v, t, tc, group, refined, level| ClodCluster {
        vertex_offset: v,
        vertex_count: 3 + tc - 1,
        triangle_offset: t,
        triangle_count: tc,
        group,
        refined,
        submesh: 0,
        level,
    };
    let source = ClodError {
        own_sphere: sphere([0.3, 0.3, 0.0], 0.5),
        parent_sphere: s0,
        own_error: 0.0,
        parent_error: 0.1,
        pad: [0; 2],
    };
    ClusterLod {
        submeshes: vec![ClodSubmesh {
            first_cluster: 0,
            cluster_count: 3,
            first_group: 0,
            group_count: 2,
            first_node: 0,
            node_count: 2,
            level_count: 2,
            pad: 0,
        }],
        clusters: vec![
            cluster(0, 0, 1, 0, -1, 0),
            cluster(3, 1, 1, 0, -1, 0),
            cluster(6, 2, 2, 1, 0, 1),
        ],
        bounds: vec![
            culling([0.3, 0.3, 0.0]),
            culling([0.6, 0.6, 0.0]),
            culling([0.5, 0.5, 0.0]),
        ],
        errors: vec![
            source,
            source,
            ClodError {
                own_sphere: s0,
                parent_sphere: s1,
                own_error: 0.1,
                parent_error: f32::MAX,
                pad: [0; 2],
            },
        ],
        groups: vec![
            ClodGroup {
                sphere: s0,
                error: 0.1,
                level: 0,
                first_cluster: 0,
                cluster_count: 2,
            },
            ClodGroup {
                sphere: s1,
                error: f32::MAX,
                level: 1,
                first_cluster: 2,
                cluster_count: 1,
            },
        ],
        nodes: vec![
            ClodNode {
                sphere: s0,
                error: 0.1,
                group: 0,
                child_offset: 0,
                child_count: 0,
            },
            ClodNode {
                sphere: s1,
                error: f32::MAX,
                group: 1,
                child_offset: 0,
                child_count: 0,
            },
        ],
        topology: ClodTopology::Plain {
            vertices: vec![0, 1, 2, 0, 2, 3, 0, 1, 2, 3],
            triangles: vec![
                MeshletTriangle([0, 1, 2]),
                MeshletTriangle([0, 1, 2]),
                MeshletTriangle([0, 1, 2]),
                MeshletTriangle([0, 2, 3]),
            ],
        },
    }
}

fn quad() -> HMesh {
    let v = |x: f32, y: f32| crate::hmesh::GpuVertex {
        position: [x, y, 0.0],
        uv: [x, y],
        ..Default::default()
    };
    let bounds = MeshBounds {
        aabb_min: [0.0, 0.0, 0.0],
        aabb_max: [1.0, 1.0, 0.0],
        sphere_center: [0.5, 0.5, 0.0],
        sphere_radius: 0.5f32.sqrt(),
    };
    HMesh {
        bounds,
        vertices: vec![v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)],
        indices: vec![0, 1, 2, 0, 2, 3],
        // One meshlet and one material, so that no chunk is empty (the bit-flip test
        // would move an empty chunk's offset unseen, a rule of the core chunks).
        meshlets: vec![crate::hmesh::Meshlet {
            vertex_offset: 0,
            vertex_count: 4,
            triangle_offset: 0,
            triangle_count: 2,
        }],
        meshlet_vertices: vec![0, 1, 2, 3],
        meshlet_triangles: vec![MeshletTriangle([0, 1, 2]), MeshletTriangle([0, 2, 3])],
        meshlet_bounds: vec![MeshletBounds {
            center: [0.5, 0.5, 0.0],
            radius: 0.5f32.sqrt(),
            cone_axis: [0.0, 0.0, 1.0],
            cone_cutoff: 1.0,
        }],
        materials: vec![0xabcd],
        submeshes: vec![SubMesh {
            first_index: 0,
            index_count: 6,
            first_meshlet: 0,
            meshlet_count: 1,
            material_slot: 0,
            bounds,
            ..Default::default()
        }],
        meshlet_max_verts: 64,
        meshlet_max_tris: 124,
        cluster_lod: Some(quad_lod()),
        ..Default::default()
    }
}

#[test]
fn plain_and_encoded_hierarchies_round_trip_and_validate() {
    let plain = quad();
    let bytes = write(&plain).unwrap();
    assert_eq!(validate(&bytes), vec![]);
    assert_eq!(read(&bytes).unwrap(), plain);
    assert_eq!(
        plain.cluster_lod.as_ref().unwrap().cluster_triangles(2),
        Some(vec![[0, 1, 2], [0, 2, 3]])
    );

    // The codec needs meshoptimizer, which a formats-only build does not have.
    #[cfg(feature = "meshlet-codec")]
    {
        let mut encoded = quad();
        let lod = encoded.cluster_lod.as_mut().unwrap();
        lod.topology = encode_topology(lod).unwrap();
        assert!(matches!(lod.topology, ClodTopology::Encoded { .. }));
        // The codec is lossless on these clusters: decoding gives back the plain arrays.
        assert_eq!(decode_topology(lod).unwrap(), quad_lod().topology);
        let bytes = write(&encoded).unwrap();
        assert_eq!(validate(&bytes), vec![]);
        assert_eq!(read(&bytes).unwrap(), encoded);
        let view = HMeshView::parse(&bytes).unwrap();
        assert!(view.clod_offsets[8] > 0 && view.clod_offsets[6] == 0);
    }
}

#[test]
fn a_mesh_without_the_chunks_reads_as_none_and_unknown_readers_skip_them() {
    let mut m = quad();
    m.cluster_lod = None;
    let without = write(&m).unwrap();
    assert_eq!(read(&without).unwrap().cluster_lod, None);
    // Renaming every cluster tag (what a reader that does not know them sees) leaves a
    // valid file with the same core mesh.
    let mut renamed = write(&quad()).unwrap();
    let mut count = 0;
    for t in tag::ALL {
        let name = t.0.to_le_bytes();
        if let Some(at) = renamed.windows(4).position(|w| w == name) {
            renamed[at] = b'X';
            count += 1;
        }
    }
    assert_eq!(count, 8, "six tables and the plain topology pair");
    assert_eq!(validate(&renamed), vec![]);
    assert_eq!(read(&renamed).unwrap(), m);
}

fn broken(change: impl FnOnce(&mut ClusterLod)) -> Vec<String> {
    let mut m = quad();
    change(m.cluster_lod.as_mut().unwrap());
    let bytes = write(&m).unwrap();
    validate(&bytes).into_iter().map(|p| p.message).collect()
}

#[test]
fn one_broken_hierarchy_per_rule() {
    type Break = Box<dyn FnOnce(&mut ClusterLod)>;
    let cases: Vec<(Break, &str)> = vec![
        (
            Box::new(|l: &mut ClusterLod| l.errors[2].own_error = 0.2),
            "differs from its source group",
        ),
        (
            Box::new(|l: &mut ClusterLod| {
                l.groups[0].error = 0.2;
                l.nodes[0].error = 0.2;
                l.errors[0].parent_error = 0.2;
                l.errors[1].parent_error = 0.2;
                l.errors[2].own_error = 0.2;
                l.groups[1].error = 0.15;
                l.nodes[1].error = 0.15;
                l.errors[2].parent_error = 0.15;
            }),
            "is not within its parent",
        ),
        (
            Box::new(|l: &mut ClusterLod| {
                l.groups[1].sphere.radius = 0.1;
                l.groups[1].error = 0.5;
                l.nodes[1].sphere.radius = 0.1;
                l.nodes[1].error = 0.5;
                l.errors[2].parent_sphere.radius = 0.1;
                l.errors[2].parent_error = 0.5;
            }),
            "is not within its parent",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.errors[0].parent_error = 0.3),
            "parent sphere or error differs",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.errors[0].own_error = 0.01),
            "own error is 0.01, not 0",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.clusters[1].group = 7),
            "past the 2 groups",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.clusters[2].refined = 1),
            "not a group of level 0 before",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.clusters[1].vertex_offset = 4),
            "expected 3 / 1",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.clusters[0].triangle_count = 0),
            "1..=256",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.nodes[1].group = 0),
            "under 2 leaf nodes",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.groups[0].cluster_count = 1),
            "does not hold it",
        ),
        (
            Box::new(|l: &mut ClusterLod| {
                if let ClodTopology::Plain { vertices, .. } = &mut l.topology {
                    vertices[4] = 9;
                }
            }),
            "not below vertexCount 4",
        ),
        (
            Box::new(|l: &mut ClusterLod| {
                if let ClodTopology::Plain { triangles, .. } = &mut l.topology {
                    triangles[1] = MeshletTriangle([0, 1, 3]);
                }
            }),
            "local index not below its 3",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.errors[1].own_sphere.radius = f32::NAN),
            "not finite",
        ),
        (
            Box::new(|l: &mut ClusterLod| l.submeshes[0].cluster_count = 2),
            "cover 2 clusters",
        ),
    ];
    for (change, expected) in cases {
        let problems = broken(change);
        assert!(
            problems.iter().any(|p| p.contains(expected)),
            "expected \"{expected}\" in {problems:#?}"
        );
    }
}

#[test]
fn a_missing_table_or_both_topologies_are_refused() {
    let mut bytes = write(&quad()).unwrap();
    let at = bytes.windows(4).position(|w| w == b"CLER").unwrap();
    bytes[at] = b'X';
    let e = HMeshView::parse(&bytes).unwrap_err().to_string();
    assert!(e.contains("without its companion CLER"), "{e}");
    assert!(!validate(&bytes).is_empty());
    let mut bytes = write(&quad()).unwrap();
    let at = bytes.windows(4).position(|w| w == b"CLTR").unwrap();
    bytes[at..at + 4].copy_from_slice(b"CLCD");
    let e = HMeshView::parse(&bytes).unwrap_err().to_string();
    assert!(e.contains("companion"), "{e}");
}

#[test]
fn the_cut_moves_from_source_to_simplified_clusters_with_distance() {
    let lod = quad_lod();
    // focal 1000 px per unit at unit distance; the group-0 sphere (r 0.75) is 0.25 from
    // an eye 1 unit above its centre, so its error 0.1 projects to 0.1 / 0.25 * 1000 =
    // 400 px; at 10 units above, 0.1 / 9.25 * 1000 = 10.8 px.
    let near = CutCamera {
        eye: [0.5, 0.5, 1.0],
        focal_px: 1000.0,
        znear: 0.01,
    };
    let far = CutCamera {
        eye: [0.5, 0.5, 10.0],
        ..near
    };
    let e = projected_error(&lod.groups[0].sphere, 0.1, &near);
    assert!((e - 400.0).abs() < 1e-3, "{e}");
    for (camera, t, expected) in [
        (near, 1.0, vec![0, 1]),
        (near, 399.0, vec![0, 1]),
        (near, 401.0, vec![2]),
        (far, 10.0, vec![0, 1]),
        (far, 11.0, vec![2]),
        (far, 1e30, vec![2]),
    ] {
        assert_eq!(cut_by_test(&lod, &camera, t), expected, "threshold {t}");
        assert_eq!(
            cut_by_hierarchy(&lod, &camera, t),
            expected,
            "threshold {t}"
        );
    }
}

proptest! {
    #[test]
    fn bit_flips_never_panic_and_are_seen(bit in 0usize..(8 * 2048), encode in any::<bool>()) {
        // Only a build with the pipeline feature has the encoder.
        #[allow(unused_mut)]
        let mut mesh = quad();
        #[cfg(feature = "meshlet-codec")]
        if encode {
            let lod = mesh.cluster_lod.as_mut().unwrap();
            lod.topology = encode_topology(lod).unwrap();
        }
        #[cfg(not(feature = "meshlet-codec"))]
        let _ = encode;
        let original = write(&mesh).unwrap();
        let mut b = original.clone();
        let byte = bit / 8 % b.len();
        b[byte] ^= 1 << (bit % 8);
        let problems = validate(&b);
        if let Ok(m) = read(&b) {
            if let Some(lod) = &m.cluster_lod {
                let camera = CutCamera { eye: [0.0, 0.0, 2.0], focal_px: 500.0, znear: 0.01 };
                let _ = cut_by_hierarchy(lod, &camera, 1.0);
                #[cfg(feature = "meshlet-codec")]
                let _ = decode_topology(lod);
            }
        }
        // As for the core chunks: a flip the reader carries through is another file;
        // one it drops or refuses must be named by the validator.
        if read(&b).ok().and_then(|m| write(&m).ok()) != Some(b.clone()) {
            prop_assert!(!problems.is_empty(), "flip at byte {byte} unseen");
        }
    }
}

#[test]
fn the_summary_counts_what_the_chunks_hold() {
    let lod = quad_lod();
    let s = ClodSummary::of(&lod);
    // Two source triangles in clusters 0 and 1, both again in the level-1 cluster 2.
    assert_eq!(s.levels, 2);
    assert_eq!((s.clusters, s.groups, s.nodes), (3, 2, 2));
    assert_eq!(s.triangles_per_level, vec![2, 2]);
    assert_eq!(s.stored_triangles(), 4);
    // The bytes are the chunks' payloads: six tables, then the topology pair.
    let chunks = payloads(&lod, 1).unwrap();
    let size = |range: std::ops::Range<usize>| -> u64 {
        chunks[range].iter().map(|(_, p)| p.len() as u64).sum()
    };
    assert_eq!(s.table_bytes, size(0..tag::TABLES));
    assert_eq!(s.table_bytes, 32 + 3 * (32 + 32 + 48) + 2 * 32 + 2 * 32);
    assert_eq!(s.topology_bytes, size(tag::TABLES..chunks.len()));
    assert_eq!(s.topology_bytes, 10 * 4 + 4 * 3);
    assert!(!s.encoded);
    assert_eq!(s.topology_bits_per_triangle(), 52.0 * 8.0 / 4.0);
    let line = s.describe();
    assert!(
        line.starts_with("2 levels, 3 clusters in 2 groups; triangles per level 2 / 2;"),
        "{line}"
    );
    assert!(
        line.contains("(plain, 104.00 bits per stored triangle)"),
        "{line}"
    );
}
