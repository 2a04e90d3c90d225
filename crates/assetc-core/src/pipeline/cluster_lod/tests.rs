//! The stage on a generated field of 2 x 96² = 18,432 triangles.

use super::field::{bumpy_field, Field};
use super::watertight::{cracks, weld_by_position};
use super::*;
use crate::formats::hmesh::clod::{cut_by_hierarchy, cut_by_test, CutCamera};

fn build(f: &Field) -> ClusterLod {
    build_cluster_lod(&ClusterLodInput {
        positions: &f.positions,
        indices: &f.indices,
        normals: Some(&f.normals),
        uvs: Some(&f.uvs),
    })
    .unwrap()
}

/// The fields' positions one after the other as `.hmesh` vertices (nothing else set).
fn vertices_of(fields: &[&Field]) -> Vec<crate::formats::hmesh::GpuVertex> {
    fields
        .iter()
        .flat_map(|f| &f.positions)
        .map(|p| crate::formats::hmesh::GpuVertex {
            position: [p[0], p[1], p[2]],
            ..Default::default()
        })
        .collect()
}

fn triangles_of(lod: &ClusterLod, clusters: impl IntoIterator<Item = usize>) -> Vec<[u32; 3]> {
    clusters
        .into_iter()
        .flat_map(|c| lod.cluster_triangles(c).unwrap())
        .collect()
}

/// A triangle with its smallest index first (same winding), for comparing sets.
fn canonical(t: [u32; 3]) -> [u32; 3] {
    let k = (0..3).min_by_key(|&k| t[k]).unwrap_or(0);
    [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
}

/// Exact containment, no slack: what [`monotonic`] promises.
fn contains(outer: &LodSphere, inner: &LodSphere) -> bool {
    let d = (0..3)
        .map(|k| f64::from(outer.center[k]) - f64::from(inner.center[k]))
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt();
    d + f64::from(inner.radius) <= f64::from(outer.radius)
}

#[test]
fn level_zero_is_the_source_and_errors_grow_up_every_path() {
    let f = bumpy_field(96);
    let lod = build(&f);
    let levels = lod.submeshes[0].level_count;
    assert!(levels >= 4, "{levels} levels");
    let source: Vec<usize> = (0..lod.clusters.len())
        .filter(|&c| lod.clusters[c].refined == -1)
        .collect();
    let mut got: Vec<[u32; 3]> = triangles_of(&lod, source)
        .into_iter()
        .map(canonical)
        .collect();
    let mut want: Vec<[u32; 3]> = f
        .indices
        .chunks_exact(3)
        .map(|t| canonical([t[0], t[1], t[2]]))
        .collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "level 0 is the source's triangles, winding kept");

    for (c, (cl, e)) in lod.clusters.iter().zip(&lod.errors).enumerate() {
        assert!(e.own_error <= e.parent_error, "cluster {c}");
        if cl.refined >= 0 && e.parent_error < f32::MAX {
            assert!(contains(&e.parent_sphere, &e.own_sphere), "cluster {c}");
            assert!(e.own_error > 0.0 || cl.level == 0, "cluster {c}");
        }
    }
    for n in &lod.nodes {
        if n.group < 0 {
            let first = n.child_offset as usize;
            for child in &lod.nodes[first..first + n.child_count as usize] {
                assert!(child.error <= n.error && contains(&n.sphere, &child.sphere));
            }
        }
    }
}

#[test]
fn cuts_are_watertight_agree_with_the_hierarchy_and_thin_out_with_the_threshold() {
    let f = bumpy_field(96);
    let lod = build(&f);
    let weld = weld_by_position(&f.positions);
    let source: Vec<[u32; 3]> = f
        .indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    // Looking down at the field from above one corner: near parts need more detail.
    let camera = CutCamera::perspective([-0.2, 0.35, -0.2], 1.0 / (0.5f32).tan(), 1080.0, 0.01);
    let mut previous = usize::MAX;
    let mut counts = Vec::new();
    for t in [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 64.0, 1e9] {
        let cut = cut_by_test(&lod, &camera, t);
        assert_eq!(cut_by_hierarchy(&lod, &camera, t), cut, "threshold {t}");
        let tris = triangles_of(&lod, cut.iter().map(|&c| c as usize));
        assert_eq!(cracks(&weld, &source, &tris), vec![], "threshold {t} px");
        assert!(
            tris.len() <= previous,
            "threshold {t}: {} > {previous}",
            tris.len()
        );
        previous = tris.len();
        counts.push(tris.len());
    }
    assert_eq!(counts[0], source.len(), "threshold 0 draws the source");
    assert!(*counts.last().unwrap() <= CLUSTER_TRIANGLES, "{counts:?}");
}

#[test]
fn almost_nothing_is_stuck_and_the_build_is_repeatable() {
    let f = bumpy_field(96);
    let lod = build(&f);
    let stuck = stuck_triangles(&lod);
    assert!(stuck * 100 < f.indices.len() / 3, "{stuck} stuck triangles");
    assert_eq!(build(&f), lod);
}

#[test]
fn appended_primitives_keep_their_own_numbering_and_validate() {
    use crate::formats::hmesh::{self, HMesh, SubMesh};
    let a = bumpy_field(12);
    let b = bumpy_field(8);
    let mut total = ClusterLod::default();
    append(&mut total, build(&a), 0, 0);
    append(&mut total, build(&b), 1, a.positions.len() as u32);
    let vertices = vertices_of(&[&a, &b]);
    let mut indices = a.indices.clone();
    indices.extend(b.indices.iter().map(|i| i + a.positions.len() as u32));
    let bounds = crate::pipeline::bounds::compute_bounds(vertices.iter().map(|v| &v.position));
    let sub = |first: usize, count: usize| {
        let slice = &indices[first..first + count];
        SubMesh {
            first_index: first as u32,
            index_count: count as u32,
            material_slot: hmesh::NO_MATERIAL,
            bounds: crate::pipeline::bounds::compute_bounds(
                slice.iter().map(|&i| &vertices[i as usize].position),
            ),
            ..Default::default()
        }
    };
    let mesh = HMesh {
        bounds,
        submeshes: vec![
            sub(0, a.indices.len()),
            sub(a.indices.len(), b.indices.len()),
        ],
        vertices,
        indices,
        meshlet_max_verts: 64,
        meshlet_max_tris: 124,
        cluster_lod: Some(total.clone()),
        ..Default::default()
    };
    let bytes = hmesh::write(&mesh).unwrap();
    assert_eq!(hmesh::validate(&bytes), vec![]);
    let second = &total.submeshes[1];
    let c = second.first_cluster as usize;
    let tris = total.cluster_triangles(c).unwrap();
    assert!(tris
        .iter()
        .flatten()
        .all(|&v| v >= a.positions.len() as u32));
    assert_eq!(total.clusters[c].submesh, 1);

    let mut encoded = mesh.clone();
    let lod = encoded.cluster_lod.as_mut().unwrap();
    lod.topology = crate::formats::hmesh::clod::encode_topology(lod).unwrap();
    let bytes = hmesh::write(&encoded).unwrap();
    assert_eq!(hmesh::validate(&bytes), vec![]);
    let back = hmesh::read(&bytes).unwrap();
    let mut decoded = back.cluster_lod.unwrap();
    decoded.topology = crate::formats::hmesh::clod::decode_topology(&decoded).unwrap();
    // The codec keeps every triangle and its winding but may start it at another corner.
    for c in 0..total.clusters.len() {
        let canon = |l: &ClusterLod| -> Vec<[u32; 3]> {
            l.cluster_triangles(c)
                .unwrap()
                .into_iter()
                .map(canonical)
                .collect()
        };
        assert_eq!(canon(&decoded), canon(&total), "cluster {c}");
    }
}

#[test]
fn indices_past_the_vertices_are_an_error_not_a_crash() {
    let f = bumpy_field(2);
    let err = build_cluster_lod(&ClusterLodInput {
        positions: &f.positions,
        indices: &[0, 1, 99],
        normals: None,
        uvs: None,
    })
    .unwrap_err();
    assert!(err.to_string().contains("indices"), "{err}");
}

/// Bytes of the meshlet codec's streams for `lod`'s plain topology.
fn codec_bytes(lod: &ClusterLod) -> usize {
    let mut encoded = lod.clone();
    encoded.topology = crate::formats::hmesh::clod::encode_topology(lod).unwrap();
    encoded.topology_bytes()
}

#[test]
fn vertices_numbered_by_first_use_keep_every_triangle_and_shrink_the_codec() {
    use crate::formats::hmesh::{GpuSkinVertex, GpuVertex, HMesh, Lods, Skinning};
    let (a, b) = (bumpy_field(40), bumpy_field(24));
    let (na, nb) = (a.positions.len(), b.positions.len());
    let mut lod = ClusterLod::default();
    append(&mut lod, build(&a), 0, 0);
    append(&mut lod, build(&b), 1, na as u32);
    reorder_for_codec(&mut lod);
    let before = lod.clone();
    let positions: Vec<[f32; 3]> = a
        .positions
        .iter()
        .chain(&b.positions)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut indices = a.indices.clone();
    indices.extend(b.indices.iter().map(|i| i + na as u32));
    // Per-vertex data that names its vertex, so we can see it travel with it.
    let mut mesh = HMesh {
        vertices: positions
            .iter()
            .map(|&position| GpuVertex {
                position,
                ..Default::default()
            })
            .collect(),
        indices: indices.clone(),
        meshlet_vertices: (0..(na + nb) as u32).rev().collect(),
        skinning: Some(Skinning {
            vertices: (0..na + nb)
                .map(|v| GpuSkinVertex {
                    joints: [0; 4],
                    weights: [v as f32, 0.0, 0.0, 0.0],
                })
                .collect(),
            joints: Vec::new(),
        }),
        uv1: Some((0..na + nb).map(|v| [v as f32, 0.5]).collect()),
        lods: Some(Lods {
            lod_count: 1,
            indices: indices[..30].to_vec(),
            ranges: Vec::new(),
        }),
        ..Default::default()
    };

    let new_of_old = first_use_order(&lod, &[na, nb]).unwrap();
    renumber_clusters(&mut lod, &new_of_old);
    renumber_mesh(&mut mesh, &new_of_old);

    // A permutation that keeps each primitive's range.
    let mut seen = vec![false; na + nb];
    for (old, &new) in new_of_old.iter().enumerate() {
        assert!(!std::mem::replace(&mut seen[new as usize], true));
        assert_eq!(
            (old < na),
            ((new as usize) < na),
            "vertex {old} left its primitive"
        );
    }
    // Per-vertex data moved with its vertex; references follow.
    for (old, &new) in new_of_old.iter().enumerate() {
        let new = new as usize;
        assert_eq!(mesh.vertices[new].position, positions[old]);
        assert_eq!(
            mesh.skinning.as_ref().unwrap().vertices[new].weights[0],
            old as f32
        );
        assert_eq!(mesh.uv1.as_ref().unwrap()[new][0], old as f32);
    }
    let moved = |i: &u32| new_of_old[*i as usize];
    assert_eq!(mesh.indices, indices.iter().map(moved).collect::<Vec<_>>());
    let rev: Vec<u32> = (0..(na + nb) as u32).rev().map(|i| moved(&i)).collect();
    assert_eq!(mesh.meshlet_vertices, rev);
    assert_eq!(
        mesh.lods.as_ref().unwrap().indices,
        indices[..30].iter().map(moved).collect::<Vec<_>>()
    );
    // Every cluster keeps its triangles (same corners, same order).
    for c in 0..lod.clusters.len() {
        let old: Vec<[u32; 3]> = before
            .cluster_triangles(c)
            .unwrap()
            .into_iter()
            .map(|t| t.map(|v| new_of_old[v as usize]))
            .collect();
        assert_eq!(lod.cluster_triangles(c).unwrap(), old, "cluster {c}");
    }
    // The defining property: read in cluster order, each vertex seen for the first time
    // is the next number of its primitive.
    let ClodTopology::Plain { vertices, .. } = &lod.topology else {
        unreachable!()
    };
    let mut next = [0u32, na as u32];
    let mut first = vec![true; na + nb];
    for c in &lod.clusters {
        let at = c.vertex_offset as usize;
        for &v in &vertices[at..at + c.vertex_count as usize] {
            if std::mem::replace(&mut first[v as usize], false) {
                let s = c.submesh as usize;
                assert_eq!(v, next[s]);
                next[s] += 1;
            }
        }
    }
    // References outside their submesh's range, or encoded topology: no order.
    assert_eq!(first_use_order(&before, &[nb, na]), None);
    let mut encoded = before.clone();
    encoded.topology = crate::formats::hmesh::clod::encode_topology(&before).unwrap();
    assert_eq!(first_use_order(&encoded, &[na, nb]), None);

    let (old_bytes, new_bytes) = (codec_bytes(&before), codec_bytes(&lod));
    eprintln!("codec: {old_bytes} B in row order, {new_bytes} B numbered by first use");
    assert!(new_bytes < old_bytes, "{new_bytes} >= {old_bytes}");
}

#[test]
fn each_level_above_zero_gets_its_own_copies_with_their_rows() {
    use crate::formats::hmesh::{GpuSkinVertex, HMesh, Skinning};
    let (a, b) = (bumpy_field(40), bumpy_field(24));
    let (na, nb) = (a.positions.len(), b.positions.len());
    let n = na + nb;
    let mut lod = ClusterLod::default();
    append(&mut lod, build(&a), 0, 0);
    append(&mut lod, build(&b), 1, na as u32);
    reorder_for_codec(&mut lod);
    let order = first_use_order(&lod, &[na, nb]).unwrap();
    renumber_clusters(&mut lod, &order);
    let before = lod.clone();
    let mut indices = a.indices.clone();
    indices.extend(b.indices.iter().map(|i| i + na as u32));
    // Rows that name their vertex, so a copy shows whose rows it carries.
    let mut mesh = HMesh {
        vertices: vertices_of(&[&a, &b]),
        indices: indices.clone(),
        skinning: Some(Skinning {
            vertices: (0..n)
                .map(|v| GpuSkinVertex {
                    joints: [0; 4],
                    weights: [v as f32, 0.0, 0.0, 0.0],
                })
                .collect(),
            joints: Vec::new(),
        }),
        uv1: Some((0..n).map(|v| [v as f32, 0.5]).collect()),
        ..Default::default()
    };
    give_levels_their_own_vertices(&mut lod, &mut mesh);

    let (ClodTopology::Plain { vertices: old, .. }, ClodTopology::Plain { vertices: new, .. }) =
        (&before.topology, &lod.topology)
    else {
        unreachable!()
    };
    let total = mesh.vertices.len();
    assert_eq!(mesh.skinning.as_ref().unwrap().vertices.len(), total);
    assert_eq!(mesh.uv1.as_ref().unwrap().len(), total);
    assert_eq!(
        mesh.indices, indices,
        "the index buffer keeps the originals"
    );
    // Level 0 unchanged; above it one copy per (level, vertex), numbered after the
    // originals in first-use order, carrying the original's rows.
    let mut copy_of = std::collections::HashMap::new();
    let mut next = n as u32;
    for c in &lod.clusters {
        let at = c.vertex_offset as usize..(c.vertex_offset + c.vertex_count) as usize;
        for (&o, &v) in old[at.clone()].iter().zip(&new[at]) {
            if c.level == 0 {
                assert_eq!(v, o);
                continue;
            }
            let expected = *copy_of.entry((c.level, o)).or_insert_with(|| {
                next += 1;
                next - 1
            });
            assert_eq!(v, expected, "level {} reference to {o}", c.level);
            let (v, o) = (v as usize, o as usize);
            assert_eq!(mesh.vertices[v], mesh.vertices[o]);
            assert_eq!(
                mesh.skinning.as_ref().unwrap().vertices[v].weights[0],
                o as f32
            );
            assert_eq!(mesh.uv1.as_ref().unwrap()[v][0], o as f32);
        }
    }
    assert!(next as usize > n, "no level above 0");
    assert_eq!(total, next as usize, "nothing but the copies added");
    // Same clusters, same local triangles; the references cost less in the codec.
    assert_eq!(lod.clusters, before.clusters);
    let (shared, copied) = (codec_bytes(&before), codec_bytes(&lod));
    eprintln!("codec: {shared} B with shared vertices, {copied} B with each level's copies");
    assert!(copied < shared, "{copied} >= {shared}");
}
