//! MikkTSpace for indexed triangle lists, on every core.
//!
//! Written here rather than taken from a crate because no crate does what the tangent
//! stage needs for large primitives: `bevy_mikktspace` (the reference port, which the stage
//! uses for small primitives and the tests use as the oracle) and the C original run on one
//! thread and read every corner through callbacks: several times the CPU this takes on one
//! core (docs/performance.md, "Figures from code comments"). The result is MikkTSpace's, step for step: the same
//! vertex welding (equal position, normal and UV), per-triangle frames, neighbours across
//! shared edges, "4-rule" groups of triangles around each vertex, sub-groups by frame
//! agreement and the angle-weighted average, with every float operation in the reference's
//! order, so the tangents come out bit for bit equal to the reference's wherever its
//! sorting fault (below) does not bite (`tests/it/tangents_corpus.rs`, on every corpus
//! primitive, and the tests below).
//!
//! What changes is how the work is laid out. MikkTSpace's result at a corner depends only on
//! the triangles around that corner's (welded) vertex, so after two parallel passes
//! (triangle frames with each corner's angle, edge pairing per vertex) every vertex is
//! finished on its own, on any core. The one order dependency MikkTSpace has (a triangle
//! with no usable UV area takes its handedness from the first group that reaches it, in
//! triangle order) is settled first by a serial pass over just the vertices such triangles
//! touch.
//!
//! Two deliberate differences from the reference: edges are paired in fully sorted order,
//! where the C code's quicksort leaves the edges of its highest-numbered vertex partly
//! unsorted (MikkTSpace issue #5, reproduced by `bevy_mikktspace` unless its
//! `corrected-edge-sorting` feature is on), which can leave the faces around that vertex
//! ungrouped (one corpus primitive, 9 corners, up to 0.0027); and vertices are welded per
//! mesh vertex rather than per corner, so two corners of one vertex with a NaN coordinate
//! count as one vertex. The tests compare against the reference run with one extra,
//! isolated triangle appended, which takes the fault onto itself.

mod faces;
mod groups;
mod neighbours;
mod vec3;

use rayon::prelude::*;

/// The frame MikkTSpace writes for a corner it cannot give one (a corner of a degenerate
/// triangle with no usable neighbour, or of a triangle without UV area that no group
/// reached): +X with handedness -1, as the C implementation's default.
pub const NO_FRAME: [f32; 4] = [1.0, 0.0, 0.0, -1.0];

/// An indexed triangle list with the three streams MikkTSpace reads (only the first three,
/// three and two components of each entry are used), checked by [`Mesh::new`].
#[derive(Clone, Copy)]
pub struct Mesh<'a> {
    indices: &'a [u32],
    positions: &'a [[f32; 4]],
    normals: &'a [[f32; 4]],
    uvs: &'a [[f32; 4]],
}

impl<'a> Mesh<'a> {
    /// `None` unless the streams have one entry per vertex, every index names a vertex and
    /// the indices make whole triangles.
    pub fn new(
        indices: &'a [u32],
        positions: &'a [[f32; 4]],
        normals: &'a [[f32; 4]],
        uvs: &'a [[f32; 4]],
    ) -> Option<Self> {
        let n = positions.len();
        let whole = normals.len() == n
            && uvs.len() == n
            && indices.len().is_multiple_of(3)
            && indices.par_iter().all(|&v| (v as usize) < n);
        whole.then_some(Self {
            indices,
            positions,
            normals,
            uvs,
        })
    }
}

impl Mesh<'_> {
    fn position(&self, corner: usize) -> [f32; 3] {
        let p = self.positions[self.indices[corner] as usize];
        [p[0], p[1], p[2]]
    }

    fn normal(&self, corner: usize) -> [f32; 3] {
        let n = self.normals[self.indices[corner] as usize];
        [n[0], n[1], n[2]]
    }

    fn uv(&self, corner: usize) -> [f32; 2] {
        let t = self.uvs[self.indices[corner] as usize];
        [t[0], t[1]]
    }
}

/// MikkTSpace's tangents of a mesh's corners, gathered per mesh vertex (what splitting
/// vertices by corner value needs, without a value per corner in memory).
pub struct VertexTangents<T> {
    /// The value of each vertex's first (lowest-numbered) corner; `None` for a vertex no
    /// triangle uses.
    pub first: Vec<Option<T>>,
    /// Every other corner whose value differs from its vertex's first, in corner order.
    pub differing: Vec<(u32, T)>,
}

impl<T: Copy> VertexTangents<T> {
    /// The value of every corner.
    pub fn corner_values(&self, indices: &[u32]) -> Vec<T>
    where
        T: Default,
    {
        let mut corners: Vec<T> = indices
            .iter()
            .map(|&v| self.first[v as usize].unwrap_or_default())
            .collect();
        for &(corner, value) in &self.differing {
            corners[corner as usize] = value;
        }
        corners
    }
}

/// MikkTSpace's tangent (xyz, handedness in w) of every corner of `mesh`, with MikkTSpace's
/// angular threshold off (as `bevy_mikktspace::generate_tangents`), passed through
/// `finish(corner, tangent)` and gathered per vertex.
pub fn vertex_tangents<T: Copy + PartialEq + Send>(
    mesh: &Mesh,
    finish: impl Fn(usize, [f32; 4]) -> T + Sync,
) -> VertexTangents<T> {
    let mut first = vec![None; mesh.positions.len()];
    if mesh.indices.is_empty() {
        return VertexTangents {
            first,
            differing: Vec::new(),
        };
    }
    let mut faces = faces::triangle_frames(mesh);
    let vertices = faces::VertexClasses::new(mesh);
    let neighbours = neighbours::pair_edges(mesh, &vertices, &faces);
    groups::settle_orientations(mesh, &vertices, &neighbours, &mut faces);
    let tasks = groups::tangents_by_vertex(mesh, &vertices, &neighbours, &faces, &finish);
    drop((neighbours, faces, vertices));
    let mut differing = Vec::new();
    for task in tasks {
        for (vertex, value) in task.firsts {
            first[vertex as usize] = Some(value);
        }
        differing.extend(task.differing);
    }
    differing.sort_unstable_by_key(|&(corner, _)| corner);
    VertexTangents { first, differing }
}

/// [`vertex_tangents`] as one value per corner.
pub fn corner_tangents(mesh: &Mesh) -> Vec<[f32; 4]> {
    vertex_tangents(mesh, |_, t| t).corner_values(mesh.indices)
}

#[cfg(test)]
mod tests;
