//! Gathering the primitives' hierarchies into one mesh's tables.

use crate::formats::hmesh::clod::{ClodTopology, ClusterLod};

/// Appends `part` (one primitive, numbered from 0) as submesh `submesh` whose vertices
/// start at `base_vertex` in the mesh: every offset, link and vertex index rebased.
pub fn append(total: &mut ClusterLod, part: ClusterLod, submesh: u32, base_vertex: u32) {
    let cluster_base = total.clusters.len() as u32;
    let group_base = total.groups.len() as u32;
    let node_base = total.nodes.len() as u32;
    let (vertex_base, triangle_base) = match &total.topology {
        ClodTopology::Plain {
            vertices,
            triangles,
        } => (vertices.len() as u32, triangles.len() as u32),
        ClodTopology::Encoded { .. } => (0, 0),
    };
    for mut row in part.submeshes {
        row.first_cluster += cluster_base;
        row.first_group += group_base;
        row.first_node += node_base;
        total.submeshes.push(row);
    }
    total
        .clusters
        .extend(part.clusters.into_iter().map(|mut c| {
            c.vertex_offset += vertex_base;
            c.triangle_offset += triangle_base;
            c.group += group_base;
            if c.refined >= 0 {
                c.refined += group_base as i32;
            }
            c.submesh = submesh;
            c
        }));
    total.bounds.extend(part.bounds);
    total.errors.extend(part.errors);
    total.groups.extend(part.groups.into_iter().map(|mut g| {
        g.first_cluster += cluster_base;
        g
    }));
    total.nodes.extend(part.nodes.into_iter().map(|mut n| {
        if n.group >= 0 {
            n.group += group_base as i32;
        } else {
            n.child_offset += node_base;
        }
        n
    }));
    if let (
        ClodTopology::Plain {
            vertices,
            triangles,
        },
        ClodTopology::Plain {
            vertices: v,
            triangles: t,
        },
    ) = (&mut total.topology, part.topology)
    {
        vertices.extend(v.into_iter().map(|i| i + base_vertex));
        triangles.extend(t);
    }
}
