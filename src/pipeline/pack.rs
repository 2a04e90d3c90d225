//! Octahedral-pack normals and tangents into the 28-byte `GpuVertex`.

use super::geometry::Geometry;
use super::tangents::perpendicular;
use crate::formats::hmesh::GpuVertex;
use crate::formats::octahedral;

/// Packs every vertex. Missing normals are written as +Z; missing tangents as a fixed unit
/// vector perpendicular to the normal with handedness +1; missing UVs as 0.
pub fn pack_vertices(geometry: &Geometry) -> Vec<GpuVertex> {
    (0..geometry.vertex_count())
        .map(|v| {
            let normal = geometry.normals.as_ref().map_or([0.0, 0.0, 1.0], |n| n[v]);
            let tangent = match &geometry.tangents {
                Some(t) => octahedral::encode_tangent([t[v][0], t[v][1], t[v][2]], t[v][3]),
                None => octahedral::encode_tangent(perpendicular(normal), 1.0),
            };
            GpuVertex {
                position: geometry.positions[v],
                normal: octahedral::encode(normal),
                tangent,
                uv: geometry.uvs.as_ref().map_or([0.0, 0.0], |uv| uv[v]),
            }
        })
        .collect()
}
