//! The rules of the cluster LOD chunks: ranges, the DAG's links, and the monotonic errors
//! and nested spheres a renderer's cut relies on.

use super::read::ClodOffsets;
use super::{ClodTopology, ClusterLod, LodSphere};
use crate::hmesh::sink::Sink;
use crate::hmesh::MeshletTriangle;

/// The codec and the u8 local indices hold at most 256 vertices and triangles.
const MAX_CLUSTER: u32 = 256;

fn finite_sphere(s: &LodSphere) -> bool {
    s.center.iter().all(|x| x.is_finite()) && s.radius.is_finite() && s.radius >= 0.0
}

/// `outer` contains `inner`, up to float rounding relative to their size.
fn contains(outer: &LodSphere, inner: &LodSphere) -> bool {
    let d = (0..3)
        .map(|k| f64::from(outer.center[k]) - f64::from(inner.center[k]))
        .map(|x| x * x)
        .sum::<f64>()
        .sqrt();
    let scale = f64::from(outer.radius)
        + outer
            .center
            .iter()
            .map(|x| f64::from(x.abs()))
            .fold(0.0, f64::max);
    d + f64::from(inner.radius) <= f64::from(outer.radius) + 1e-5 * scale.max(1e-6)
}

fn valid_error(e: f32) -> bool {
    e >= 0.0 && !e.is_nan()
}

pub(in crate::hmesh) fn validate(
    lod: &ClusterLod,
    at: &ClodOffsets,
    vertex_count: u32,
    sink: &mut Sink,
) {
    let (o_clsm, o_clus, o_clbn, o_cler, o_clgr, o_clnd) =
        (at[0], at[1], at[2], at[3], at[4], at[5]);
    let n_clusters = lod.clusters.len() as u64;
    let n_groups = lod.groups.len() as u64;
    let n_nodes = lod.nodes.len() as u64;
    // Submesh rows: consecutive, together covering every table.
    let (mut next_c, mut next_g, mut next_n) = (0u64, 0u64, 0u64);
    for (s, row) in lod.submeshes.iter().enumerate() {
        let o = o_clsm + 32 * s as u64;
        if u64::from(row.first_cluster) != next_c
            || u64::from(row.first_group) != next_g
            || u64::from(row.first_node) != next_n
        {
            sink.at("cluster lod packing", o, || format!("CLSM row {s} starts at cluster {} / group {} / node {}, expected {next_c} / {next_g} / {next_n}", row.first_cluster, row.first_group, row.first_node));
        }
        next_c = u64::from(row.first_cluster) + u64::from(row.cluster_count);
        next_g = u64::from(row.first_group) + u64::from(row.group_count);
        next_n = u64::from(row.first_node) + u64::from(row.node_count);
        let empty = row.cluster_count == 0;
        if empty != (row.group_count == 0)
            || empty != (row.level_count == 0)
            || row.node_count < row.level_count
        {
            sink.at("cluster lod packing", o, || {
                format!(
                    "CLSM row {s}: {} clusters, {} groups, {} levels, {} nodes do not agree",
                    row.cluster_count, row.group_count, row.level_count, row.node_count
                )
            });
        }
        if row.pad != 0 {
            sink.at("reserved", o + 28, || {
                format!("CLSM row {s} padding is not zero")
            });
        }
    }
    if next_c != n_clusters || next_g != n_groups || next_n != n_nodes {
        sink.at("cluster lod packing", o_clsm, || format!("CLSM rows cover {next_c} clusters / {next_g} groups / {next_n} nodes, the tables hold {n_clusters} / {n_groups} / {n_nodes}"));
    }

    // Groups: consecutive member ranges; every member names its group.
    let mut next = 0u64;
    for (g, group) in lod.groups.iter().enumerate() {
        let o = o_clgr + 32 * g as u64;
        if u64::from(group.first_cluster) != next || group.cluster_count == 0 {
            sink.at("cluster lod packing", o + 24, || {
                format!(
                    "group {g} holds clusters {}..+{}, expected a non-empty range from {next}",
                    group.first_cluster, group.cluster_count
                )
            });
        }
        next = u64::from(group.first_cluster) + u64::from(group.cluster_count);
        if !finite_sphere(&group.sphere) || !valid_error(group.error) {
            sink.at("finite", o, || {
                format!("group {g} sphere or error is not finite and non-negative")
            });
        }
    }
    if next != n_clusters {
        sink.at("cluster lod packing", o_clgr, || {
            format!("groups cover {next} clusters, CLUS holds {n_clusters}")
        });
    }

    validate_clusters(lod, at, vertex_count, sink);

    // Errors: own from the group that was simplified, parent from the cluster's group;
    // own never above parent and its sphere inside the parent's, so the projected
    // errors grow up every path of the DAG whatever the camera.
    for (c, (cl, e)) in lod.clusters.iter().zip(&lod.errors).enumerate() {
        let o = o_cler + 48 * c as u64;
        if !finite_sphere(&e.own_sphere)
            || !finite_sphere(&e.parent_sphere)
            || !valid_error(e.own_error)
            || !valid_error(e.parent_error)
            || e.pad != [0, 0]
        {
            sink.at("finite", o, || format!("cluster {c} errors: a sphere or error is not finite and non-negative, or padding is not zero"));
            continue;
        }
        if let Some(group) = lod.groups.get(cl.group as usize) {
            if group.sphere != e.parent_sphere || group.error.to_bits() != e.parent_error.to_bits()
            {
                sink.at("cluster lod error", o + 16, || {
                    format!(
                        "cluster {c} parent sphere or error differs from its group {}'s",
                        cl.group
                    )
                });
            }
        }
        match cl.refined {
            -1 => {
                if e.own_error != 0.0 {
                    sink.at("cluster lod error", o + 32, || {
                        format!(
                            "cluster {c} is source geometry but its own error is {}, not 0",
                            e.own_error
                        )
                    });
                }
            }
            r => {
                if let Some(source) = usize::try_from(r).ok().and_then(|r| lod.groups.get(r)) {
                    if source.sphere != e.own_sphere
                        || source.error.to_bits() != e.own_error.to_bits()
                    {
                        sink.at("cluster lod error", o, || format!("cluster {c} own sphere or error differs from its source group {r}'s"));
                    }
                }
                if e.own_error > e.parent_error
                    || (e.parent_error < f32::MAX && !contains(&e.parent_sphere, &e.own_sphere))
                {
                    sink.at("cluster lod monotonic", o, || format!("cluster {c}: own error {} (sphere r {}) is not within its parent's {} (sphere r {})", e.own_error, e.own_sphere.radius, e.parent_error, e.parent_sphere.radius));
                }
            }
        }
    }
    for (c, b) in lod.bounds.iter().enumerate() {
        let v = [
            b.center[0],
            b.center[1],
            b.center[2],
            b.radius,
            b.cone_axis[0],
            b.cone_axis[1],
            b.cone_axis[2],
            b.cone_cutoff,
        ];
        if v.iter().any(|x| !x.is_finite()) || b.radius < 0.0 {
            sink.at("finite", o_clbn + 32 * c as u64, || {
                format!("cluster {c} culling bounds hold a non-finite value or a negative radius")
            });
        }
    }

    validate_nodes(lod, o_clnd, sink);
    let _ = o_clus;
}

fn validate_clusters(lod: &ClusterLod, at: &ClodOffsets, vertex_count: u32, sink: &mut Sink) {
    let o_clus = at[1];
    let n_groups = lod.groups.len();
    // Submesh of each cluster index, from the rows (already checked to be consecutive).
    let mut submesh_of = vec![u32::MAX; lod.clusters.len()];
    for (s, row) in lod.submeshes.iter().enumerate() {
        let first = row.first_cluster as usize;
        for slot in submesh_of
            .iter_mut()
            .skip(first)
            .take(row.cluster_count as usize)
        {
            *slot = s as u32;
        }
    }
    let (mut next_v, mut next_t) = (0u64, 0u64);
    for (c, cl) in lod.clusters.iter().enumerate() {
        let o = o_clus + 32 * c as u64;
        if u64::from(cl.vertex_offset) != next_v || u64::from(cl.triangle_offset) != next_t {
            sink.at("cluster lod packing", o, || format!("cluster {c} starts at vertex {} / triangle {}, expected {next_v} / {next_t} (the topology is dense, in cluster order)", cl.vertex_offset, cl.triangle_offset));
        }
        next_v = u64::from(cl.vertex_offset) + u64::from(cl.vertex_count);
        next_t = u64::from(cl.triangle_offset) + u64::from(cl.triangle_count);
        if cl.vertex_count == 0
            || cl.triangle_count == 0
            || cl.vertex_count > MAX_CLUSTER
            || cl.triangle_count > MAX_CLUSTER
        {
            sink.at("cluster lod limits", o, || {
                format!(
                    "cluster {c} has {} vertices / {} triangles (1..=256 each)",
                    cl.vertex_count, cl.triangle_count
                )
            });
        }
        match lod.groups.get(cl.group as usize) {
            None => sink.at("cluster lod link", o + 16, || {
                format!(
                    "cluster {c} names group {}, past the {n_groups} groups",
                    cl.group
                )
            }),
            Some(g) => {
                let inside = (g.first_cluster as usize
                    ..g.first_cluster as usize + g.cluster_count as usize)
                    .contains(&c);
                if !inside || g.level != cl.level {
                    sink.at("cluster lod link", o + 16, || format!("cluster {c} names group {} (level {}), which does not hold it at level {}", cl.group, g.level, cl.level));
                }
            }
        }
        // A cluster comes from a group of the level below, output before its own group.
        if cl.refined != -1 {
            let ok = usize::try_from(cl.refined)
                .ok()
                .filter(|&r| r < cl.group as usize)
                .and_then(|r| lod.groups.get(r))
                .is_some_and(|r| r.level + 1 == cl.level);
            if !ok {
                sink.at("cluster lod link", o + 20, || format!("cluster {c} at level {} names source group {}, which is not a group of level {} before its own", cl.level, cl.refined, cl.level.wrapping_sub(1)));
            }
        } else if cl.level != 0 {
            sink.at("cluster lod link", o + 20, || {
                format!(
                    "cluster {c} is source geometry at level {}, not 0",
                    cl.level
                )
            });
        }
        if submesh_of.get(c) != Some(&cl.submesh) {
            sink.at("cluster lod link", o + 24, || {
                format!(
                    "cluster {c} names submesh {}, but CLSM places it elsewhere",
                    cl.submesh
                )
            });
        }
    }
    let (vertices, triangles) = match &lod.topology {
        ClodTopology::Plain {
            vertices,
            triangles,
        } => (vertices.clone(), triangles.clone()),
        ClodTopology::Encoded { offsets, data } => {
            let o_clco = at[8];
            if offsets.first() != Some(&0)
                || offsets.windows(2).any(|w| w[0] > w[1])
                || offsets.last().map(|&l| l as usize) != Some(data.len())
            {
                sink.at("cluster lod codec", o_clco, || {
                    format!(
                        "CLCO offsets must rise from 0 to CLCD's {} bytes",
                        data.len()
                    )
                });
                return;
            }
            match decoded(lod) {
                Some(Ok((v, t))) => (v, t),
                Some(Err(e)) => {
                    sink.at("cluster lod codec", at[9], || e.to_string());
                    return;
                }
                // A formats-only build has no decoder: the framing above is what it checks.
                None => return,
            }
        }
    };
    if next_v != vertices.len() as u64 || next_t != triangles.len() as u64 {
        sink.at("cluster lod packing", at[6].max(at[9]), || format!("clusters use {next_v} vertices / {next_t} triangles but the topology holds {} / {}", vertices.len(), triangles.len()));
        return;
    }
    for (i, &v) in vertices.iter().enumerate() {
        if v >= vertex_count {
            sink.at("cluster lod vertex", at[6] + 4 * i as u64, || {
                format!("cluster vertex {i} is {v}, not below vertexCount {vertex_count}")
            });
        }
    }
    for (c, cl) in lod.clusters.iter().enumerate() {
        let t0 = cl.triangle_offset as usize;
        let tris = triangles
            .get(t0..t0 + cl.triangle_count as usize)
            .unwrap_or(&[]);
        if let Some(t) = tris
            .iter()
            .position(|t| t.0.iter().any(|&l| u32::from(l) >= cl.vertex_count))
        {
            sink.at(
                "cluster lod local index",
                at[7] + 3 * (t0 + t) as u64,
                || {
                    format!(
                        "cluster {c} triangle {t} uses a local index not below its {} vertices",
                        cl.vertex_count
                    )
                },
            );
        }
    }
}

/// Decoded topology: the vertex references and the local triangles, or why not.
type Decoded = Result<(Vec<u32>, Vec<MeshletTriangle>), super::TopologyCodecError>;

#[cfg(feature = "meshlet-codec")]
fn decoded(lod: &ClusterLod) -> Option<Decoded> {
    Some(super::decode_topology(lod).map(|t| match t {
        ClodTopology::Plain {
            vertices,
            triangles,
        } => (vertices, triangles),
        ClodTopology::Encoded { .. } => (Vec::new(), Vec::new()),
    }))
}

#[cfg(not(feature = "meshlet-codec"))]
fn decoded(_: &ClusterLod) -> Option<Decoded> {
    None
}

/// Each submesh's nodes: roots first (one per level), children after the roots and, below
/// a root, before their parent (so the trees have no cycles), every group under exactly
/// one leaf, and every node's sphere and error covering its children's.
fn validate_nodes(lod: &ClusterLod, o_clnd: u64, sink: &mut Sink) {
    let mut leaves = vec![0u32; lod.groups.len()];
    for row in &lod.submeshes {
        let first = row.first_node as usize;
        let end = first + row.node_count as usize;
        let roots_end = first + row.level_count as usize;
        let groups = row.first_group as usize..row.first_group as usize + row.group_count as usize;
        for n in first..end.min(lod.nodes.len()) {
            let node = &lod.nodes[n];
            let o = o_clnd + 32 * n as u64;
            if !finite_sphere(&node.sphere) || !valid_error(node.error) {
                sink.at("finite", o, || {
                    format!("node {n} sphere or error is not finite and non-negative")
                });
                continue;
            }
            if node.group >= 0 {
                let g = node.group as usize;
                match lod.groups.get(g).filter(|_| groups.contains(&g)) {
                    None => sink.at("cluster lod node", o + 20, || {
                        format!("leaf node {n} names group {g}, not a group of its submesh")
                    }),
                    Some(group) => {
                        leaves[g] += 1;
                        if group.sphere != node.sphere
                            || group.error.to_bits() != node.error.to_bits()
                        {
                            sink.at("cluster lod node", o, || {
                                format!("leaf node {n} bounds differ from its group {g}'s")
                            });
                        }
                    }
                }
                continue;
            }
            let (a, b) = (
                node.child_offset as usize,
                node.child_offset as usize + node.child_count as usize,
            );
            let upper = if n < roots_end { end } else { n };
            if node.child_count == 0 || a < roots_end || b > upper {
                sink.at("cluster lod node", o + 24, || {
                    format!("node {n} children {a}..{b} must lie in {roots_end}..{upper}")
                });
                continue;
            }
            for child in &lod.nodes[a..b] {
                if child.error > node.error || !contains(&node.sphere, &child.sphere) {
                    sink.at("cluster lod monotonic", o, || {
                        format!("node {n} does not cover its child's sphere and error")
                    });
                    break;
                }
            }
        }
    }
    for (g, &count) in leaves.iter().enumerate() {
        if count != 1 {
            sink.at("cluster lod node", o_clnd, || {
                format!("group {g} is under {count} leaf nodes, expected 1")
            });
        }
    }
}
