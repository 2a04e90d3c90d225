//! How the vertex numbering changes the meshlet codec's size for a cluster LOD hierarchy
//! (docs/performance.md, "Vertex numbering for the codec"): the generated field of
//! `pipeline::cluster_lod::field` (708 x 708 quads), built with `clod_build` as assetc's
//! stage builds it, each cluster ordered with `optimizeMeshletLevel(3)` as
//! `mesh.cluster_compress` writes it, then encoded under several vertex orders.
//!
//! cargo run --release -p assetc-formats --features meshlet-codec --example clod_vertex_orders

use std::collections::{BTreeMap, HashMap};

const N: usize = 708;

/// The height of `pipeline::cluster_lod::field::bumpy_field`.
fn height(x: f32, z: f32) -> f32 {
    0.04 * ((x * 9.0).sin() * (z * 9.0 * 0.7).cos() + 0.5 * (x * 9.0 * 2.3 + z * 3.1).sin())
}

struct Cluster {
    level: u32,
    group: usize,
    refined: i32,
    vertices: Vec<u32>,
    triangles: Vec<u8>,
}

fn encoded_size(vertices: &[u32], triangles: &[u8]) -> usize {
    meshopt::encode_meshlet(meshopt::Meshlet {
        vertices,
        triangles,
    })
    .map(|s| s.len())
    .unwrap_or(0)
}

/// Bits per stored triangle with CLCO's 4 bytes per cluster, then per level without.
fn report(label: &str, clusters: &[Cluster], sizes: &[usize]) {
    let mut levels: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    for (c, &size) in clusters.iter().zip(sizes) {
        let e = levels.entry(c.level).or_default();
        e.0 += size;
        e.1 += c.triangles.len() / 3;
    }
    let triangles: usize = clusters.iter().map(|c| c.triangles.len() / 3).sum();
    let bytes: usize = sizes.iter().sum::<usize>() + 4 * (clusters.len() + 1);
    let per_level: Vec<String> = levels
        .iter()
        .map(|(l, (b, t))| format!("L{l} {:.2}", *b as f64 * 8.0 / *t as f64))
        .collect();
    println!(
        "{label}: {:.2} bits per stored triangle; {}",
        bytes as f64 * 8.0 / triangles as f64,
        per_level.join(", ")
    );
}

/// Sizes with every vertex renumbered by `map`.
fn sizes_under(clusters: &[Cluster], map: &[u32]) -> Vec<usize> {
    clusters
        .iter()
        .map(|c| {
            let v: Vec<u32> = c.vertices.iter().map(|&v| map[v as usize]).collect();
            encoded_size(&v, &c.triangles)
        })
        .collect()
}

/// Numbers vertices by first use over the clusters in `order`.
fn first_use(clusters: &[Cluster], order: impl Iterator<Item = usize>, count: usize) -> Vec<u32> {
    let mut map = vec![u32::MAX; count];
    let mut next = 0;
    for c in order {
        for &v in &clusters[c].vertices {
            if map[v as usize] == u32::MAX {
                map[v as usize] = next;
                next += 1;
            }
        }
    }
    for m in map.iter_mut().filter(|m| **m == u32::MAX) {
        *m = next;
        next += 1;
    }
    map
}

fn main() {
    let row = N + 1;
    let (mut positions, mut attributes, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    let h = 1e-3f32;
    for j in 0..row {
        for i in 0..row {
            let (x, z) = (i as f32 / N as f32, j as f32 / N as f32);
            let dx = (height(x + h, z) - height(x - h, z)) / (2.0 * h);
            let dz = (height(x, z + h) - height(x, z - h)) / (2.0 * h);
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            positions.push([x, height(x, z), z, 0.0f32]);
            attributes.extend_from_slice(&[-dx / len, 1.0 / len, -dz / len, x, z]);
        }
    }
    for j in 0..N {
        for i in 0..N {
            let a = (j * row + i) as u32;
            let (b, c, d) = (a + 1, a + row as u32, a + row as u32 + 1);
            indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let count = positions.len();
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytemuck::cast_slice(&positions), 16, 0)
    else {
        return;
    };
    let mesh = meshopt::ClodMesh {
        vertex_attributes: &attributes,
        vertex_attributes_stride: 20,
        attribute_weights: &[0.5, 0.5, 0.5, 1.0, 1.0],
        attribute_protect_mask: 0b11000,
        ..meshopt::ClodMesh::new(&indices, &adapter)
    };
    // As the stage configures it.
    let mut config = meshopt::clod_default_config(128);
    config.optimize_clusters_level = 0;
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut groups = 0;
    meshopt::clod_build(config, &mesh, |group, members| {
        for c in members {
            let (mut vertices, mut triangles) = meshopt::clod_local_indices(c.indices);
            meshopt::optimize_meshlet_level(&mut vertices, &mut triangles, 3);
            clusters.push(Cluster {
                level: group.depth.max(0) as u32,
                group: groups,
                refined: c.refined,
                vertices,
                triangles,
            });
        }
        groups += 1;
        groups as i32 - 1
    });

    let identity: Vec<u32> = (0..count as u32).collect();
    report("row-major", &clusters, &sizes_under(&clusters, &identity));
    let cluster_order = first_use(&clusters, 0..clusters.len(), count);
    report(
        "first use, CLUS order",
        &clusters,
        &sizes_under(&clusters, &cluster_order),
    );
    let mut coarse_first: Vec<usize> = (0..clusters.len()).collect();
    coarse_first.sort_by_key(|&c| std::cmp::Reverse(clusters[c].level));
    let map = first_use(&clusters, coarse_first.into_iter(), count);
    report(
        "first use, coarsest first",
        &clusters,
        &sizes_under(&clusters, &map),
    );
    let mut one_first: Vec<usize> = (0..clusters.len()).collect();
    one_first.sort_by_key(|&c| clusters[c].level != 1);
    let map = first_use(&clusters, one_first.into_iter(), count);
    report(
        "first use, level 1 first",
        &clusters,
        &sizes_under(&clusters, &map),
    );

    // Morton order of the positions (10 bits per axis over the unit cube around the field).
    let spread = |mut v: u64| {
        (0..10).fold(0u64, |r, b| {
            let r = r | ((v & 1) << (3 * b));
            v >>= 1;
            r
        })
    };
    let q = |x: f32| (x.clamp(0.0, 1.0) * 1023.0) as u64;
    let mut morton: Vec<(u64, usize)> = positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                spread(q(p[0])) | spread(q(p[1] + 0.5)) << 1 | spread(q(p[2])) << 2,
                i,
            )
        })
        .collect();
    morton.sort_unstable();
    let mut map = vec![0u32; count];
    for (k, &(_, i)) in morton.iter().enumerate() {
        map[i] = k as u32;
    }
    report("Morton", &clusters, &sizes_under(&clusters, &map));

    // Groups depth-first from the last (coarsest) one: each group after the groups its
    // clusters were simplified from.
    let group_count = groups;
    let mut members = vec![Vec::new(); group_count];
    for (i, c) in clusters.iter().enumerate() {
        members[c.group].push(i);
    }
    let mut seen = vec![false; group_count];
    let mut order = Vec::new();
    let mut stack: Vec<(usize, bool)> = (0..group_count).map(|g| (g, false)).collect();
    while let Some((g, expanded)) = stack.pop() {
        if expanded {
            order.extend(members[g].iter().copied());
            continue;
        }
        if std::mem::replace(&mut seen[g], true) {
            continue;
        }
        stack.push((g, true));
        for &c in members[g].iter().rev() {
            if let Ok(r) = usize::try_from(clusters[c].refined) {
                if !seen[r] {
                    stack.push((r, false));
                }
            }
        }
    }
    let map = first_use(&clusters, order.into_iter(), count);
    report(
        "first use, groups depth-first",
        &clusters,
        &sizes_under(&clusters, &map),
    );

    // First use, and per cluster the references numbered by earlier clusters sorted last
    // when that encodes smaller.
    let mut sizes = Vec::with_capacity(clusters.len());
    let mut map = vec![u32::MAX; count];
    let mut next = 0;
    for c in &clusters {
        let mut new = vec![false; c.vertices.len()];
        for (k, &v) in c.vertices.iter().enumerate() {
            if map[v as usize] == u32::MAX {
                map[v as usize] = next;
                next += 1;
                new[k] = true;
            }
        }
        let global: Vec<u32> = c.vertices.iter().map(|&v| map[v as usize]).collect();
        let mut order: Vec<usize> = (0..global.len()).filter(|&k| new[k]).collect();
        let mut old: Vec<usize> = (0..global.len()).filter(|&k| !new[k]).collect();
        old.sort_by_key(|&k| global[k]);
        order.extend(old);
        let mut local = vec![0u8; global.len()];
        for (n, &k) in order.iter().enumerate() {
            local[k] = n as u8;
        }
        let vertices: Vec<u32> = order.iter().map(|&k| global[k]).collect();
        let triangles: Vec<u8> = c.triangles.iter().map(|&t| local[t as usize]).collect();
        sizes.push(encoded_size(&global, &c.triangles).min(encoded_size(&vertices, &triangles)));
    }
    report(
        "first use, numbered references last when smaller",
        &clusters,
        &sizes,
    );

    // Each level its own copy of the vertices it uses.
    let mut copies = 0;
    let mut sizes = vec![0; clusters.len()];
    let levels = clusters.iter().map(|c| c.level).max().unwrap_or(0);
    for level in 0..=levels {
        let mut own: HashMap<u32, u32> = HashMap::new();
        for (i, c) in clusters
            .iter()
            .enumerate()
            .filter(|(_, c)| c.level == level)
        {
            let v: Vec<u32> = c
                .vertices
                .iter()
                .map(|&v| {
                    let k = own.len() as u32;
                    *own.entry(v).or_insert(k)
                })
                .collect();
            sizes[i] = encoded_size(&v, &c.triangles);
        }
        if level > 0 {
            copies += own.len();
        }
    }
    report("each level its own vertices", &clusters, &sizes);
    println!("  ({copies} more vertices over the field's {count})");
    let alone: usize = clusters
        .iter()
        .map(|c| encoded_size(&[], &c.triangles))
        .sum();
    let stored: usize = clusters.iter().map(|c| c.triangles.len() / 3).sum();
    println!(
        "triangles alone: {:.2} bits per stored triangle; {} clusters, {stored} stored triangles",
        alone as f64 * 8.0 / stored as f64,
        clusters.len()
    );
}
