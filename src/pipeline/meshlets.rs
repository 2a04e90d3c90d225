//! Meshlets with culling bounds (meshoptimizer), repacked densely as `.hmesh` stores them.

use crate::formats::hmesh::{Meshlet, MeshletBounds, MeshletTriangle};

/// The meshlets of one submesh; vertex indices are local to the submesh's vertex range.
#[derive(Debug, Default)]
pub struct MeshletSet {
    pub meshlets: Vec<Meshlet>,
    pub vertices: Vec<u32>,
    pub triangles: Vec<MeshletTriangle>,
    pub bounds: Vec<MeshletBounds>,
}

/// Splits a triangle list into meshlets of at most `max_vertices`/`max_triangles`.
/// meshoptimizer pads each meshlet's triangle bytes to 4; `.hmesh` wants them dense and
/// counted in triangles, so they are copied out.
pub fn build_meshlets(
    positions: &[[f32; 4]],
    indices: &[u32],
    max_vertices: u32,
    max_triangles: u32,
    cone_weight: f32,
) -> MeshletSet {
    let mut out = MeshletSet::default();
    if indices.is_empty() {
        return out;
    }
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(positions);
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytes, 16, 0) else {
        return out;
    };
    let built = meshopt::build_meshlets(
        indices,
        &adapter,
        max_vertices as usize,
        max_triangles as usize,
        cone_weight,
    );
    for m in built.iter() {
        let b = meshopt::compute_meshlet_bounds(m, &adapter);
        out.meshlets.push(Meshlet {
            vertex_offset: out.vertices.len() as u32,
            vertex_count: m.vertices.len() as u32,
            triangle_offset: out.triangles.len() as u32,
            triangle_count: (m.triangles.len() / 3) as u32,
        });
        out.vertices.extend_from_slice(m.vertices);
        out.triangles.extend(
            m.triangles
                .chunks_exact(3)
                .map(|t| MeshletTriangle([t[0], t[1], t[2]])),
        );
        out.bounds.push(MeshletBounds {
            center: b.center,
            radius: b.radius,
            cone_axis: b.cone_axis,
            cone_cutoff: b.cone_cutoff,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meshlets_cover_every_triangle_within_limits() {
        // A 20x20 grid: 800 triangles, 441 vertices.
        let n = 21u32;
        let positions: Vec<[f32; 4]> = (0..n * n)
            .map(|i| [(i % n) as f32, (i / n) as f32, 0.0, 0.0])
            .collect();
        let mut indices = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let i = y * n + x;
                indices.extend_from_slice(&[i, i + 1, i + n, i + 1, i + n + 1, i + n]);
            }
        }
        let set = build_meshlets(&positions, &indices, 64, 124, 0.25);
        let total: u32 = set.meshlets.iter().map(|m| m.triangle_count).sum();
        assert_eq!(total as usize, indices.len() / 3);
        let mut rebuilt = Vec::new();
        for m in &set.meshlets {
            assert!(m.vertex_count <= 64 && m.triangle_count <= 124);
            for t in &set.triangles
                [m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize]
            {
                let mut tri: Vec<u32> =
                    t.0.iter()
                        .map(|&l| set.vertices[(m.vertex_offset + l as u32) as usize])
                        .collect();
                let r = (0..3).min_by_key(|&k| tri[k]).unwrap();
                tri.rotate_left(r);
                rebuilt.push(tri);
            }
        }
        let mut original: Vec<Vec<u32>> = indices
            .chunks(3)
            .map(|t| {
                let mut t = t.to_vec();
                let r = (0..3).min_by_key(|&k| t[k]).unwrap();
                t.rotate_left(r);
                t
            })
            .collect();
        rebuilt.sort();
        original.sort();
        assert_eq!(
            rebuilt, original,
            "meshlets hold exactly the source triangles, winding kept"
        );
    }
}
