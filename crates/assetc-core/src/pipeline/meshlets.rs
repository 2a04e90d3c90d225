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

/// Triangles per run of the index buffer whose meshlets are built on their own. A fixed
/// size (never the thread count) keeps the output the same on any machine; each run ends
/// in at most one partly filled meshlet. meshoptimizer's builder allocates for its worst
/// case (about 70 MiB for a million triangles, measured with heaptrack) and scales as
/// n log n: runs bound both. Shorter runs build faster but cut more meshlets short at
/// their ends (`cargo bench --bench meshlets`, docs/performance.md): against runs of
/// 65,536 triangles, this size costs 0.3 points of culling (under 1% of what is culled)
/// and 0.2% more meshlets for less time.
pub const RUN_TRIANGLES: usize = 32_768;

/// Splits a triangle list into meshlets of at most `max_vertices`/`max_triangles`, run by
/// run of [`RUN_TRIANGLES`] triangles in parallel. Meshlets never span two runs; after the
/// vertex-cache and vertex-fetch optimisation a run's triangles are close together and
/// its vertices a narrow range of indices, which is all each run's builder is given.
/// When a run's vertex range is wide (an unoptimised mesh), the whole mesh is built in
/// one piece instead.
pub fn build_meshlets(
    positions: &[[f32; 4]],
    indices: &[u32],
    max_vertices: u32,
    max_triangles: u32,
    cone_weight: f32,
) -> MeshletSet {
    use rayon::prelude::*;
    let limits = Limits {
        max_vertices: max_vertices as usize,
        max_triangles: max_triangles as usize,
        cone_weight,
    };
    let runs: Vec<&[u32]> = indices.chunks(RUN_TRIANGLES * 3).collect();
    let ranges: Vec<Option<VertexRange>> = runs.iter().map(|run| VertexRange::of(run)).collect();
    let narrow = ranges
        .iter()
        .zip(&runs)
        .all(|(r, run)| r.as_ref().is_none_or(|r| r.len() <= run.len()));
    if !narrow {
        return build_run(positions, indices, 0, &limits);
    }
    let parts: Vec<MeshletSet> = runs
        .par_iter()
        .with_max_len(1)
        .zip(&ranges)
        .map(|(run, range)| match range {
            Some(r) => {
                let local: Vec<u32> = run.iter().map(|&i| i - r.first).collect();
                build_run(
                    &positions[r.first as usize..=r.last as usize],
                    &local,
                    r.first,
                    &limits,
                )
            }
            None => MeshletSet::default(),
        })
        .collect();
    concatenate(parts)
}

struct Limits {
    max_vertices: usize,
    max_triangles: usize,
    cone_weight: f32,
}

/// The lowest and highest vertex index a run uses.
struct VertexRange {
    first: u32,
    last: u32,
}

impl VertexRange {
    fn of(run: &[u32]) -> Option<VertexRange> {
        let first = *run.iter().min()?;
        let last = *run.iter().max()?;
        Some(VertexRange { first, last })
    }
    fn len(&self) -> usize {
        (self.last - self.first) as usize + 1
    }
}

/// The meshlets of one run whose indices point into `positions`; `base` is added to every
/// meshlet vertex so that they index the whole mesh again. meshoptimizer pads each
/// meshlet's triangle bytes to 4; `.hmesh` wants them dense and counted in triangles, so
/// they are copied out.
fn build_run(positions: &[[f32; 4]], indices: &[u32], base: u32, limits: &Limits) -> MeshletSet {
    let mut out = MeshletSet::default();
    if indices.is_empty() {
        return out;
    }
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(positions);
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytes, 16, 0) else {
        return out;
    };
    // Cone weight 0 asks for no cone culling: meshoptimizer's scan builder, which fills
    // meshlets in index order (vertex-cache order here) without a spatial search, takes a
    // fraction of the regular builder's CPU time for about 2% more meshlets (`cargo bench
    // --bench meshlets`, docs/performance.md). Above 0 the regular builder
    // weighs cones against fullness as asked.
    let built = if limits.cone_weight > 0.0 {
        meshopt::build_meshlets(
            indices,
            &adapter,
            limits.max_vertices,
            limits.max_triangles,
            limits.cone_weight,
        )
    } else {
        meshopt::build_meshlets_scan(
            indices,
            positions.len(),
            limits.max_vertices,
            limits.max_triangles,
        )
    };
    for m in built.iter() {
        let b = meshopt::compute_meshlet_bounds(m, &adapter);
        out.meshlets.push(Meshlet {
            vertex_offset: out.vertices.len() as u32,
            vertex_count: m.vertices.len() as u32,
            triangle_offset: out.triangles.len() as u32,
            triangle_count: (m.triangles.len() / 3) as u32,
        });
        out.vertices.extend(m.vertices.iter().map(|&v| v + base));
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

/// The runs' meshlets one after another, offsets moved past the runs before.
fn concatenate(parts: Vec<MeshletSet>) -> MeshletSet {
    let mut out = MeshletSet {
        meshlets: Vec::with_capacity(parts.iter().map(|p| p.meshlets.len()).sum()),
        vertices: Vec::with_capacity(parts.iter().map(|p| p.vertices.len()).sum()),
        triangles: Vec::with_capacity(parts.iter().map(|p| p.triangles.len()).sum()),
        bounds: Vec::with_capacity(parts.iter().map(|p| p.bounds.len()).sum()),
    };
    for part in parts {
        let (vertex_base, triangle_base) = (out.vertices.len() as u32, out.triangles.len() as u32);
        out.meshlets
            .extend(part.meshlets.into_iter().map(|m| Meshlet {
                vertex_offset: m.vertex_offset + vertex_base,
                triangle_offset: m.triangle_offset + triangle_base,
                ..m
            }));
        out.vertices.extend(part.vertices);
        out.triangles.extend(part.triangles);
        out.bounds.extend(part.bounds);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `n` x `n` vertex grid in row order: 2 (n-1)^2 triangles.
    fn grid(n: u32) -> (Vec<[f32; 4]>, Vec<u32>) {
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
        (positions, indices)
    }

    /// Every meshlet within the limits, and the meshlets hold exactly the source
    /// triangles (each once, winding kept).
    fn assert_holds_exactly(set: &MeshletSet, indices: &[u32], max_v: u32, max_t: u32) {
        let canonical = |mut t: Vec<u32>| {
            let r = (0..3).min_by_key(|&k| t[k]).unwrap();
            t.rotate_left(r);
            t
        };
        let mut rebuilt = Vec::new();
        for m in &set.meshlets {
            assert!(m.vertex_count <= max_v && m.triangle_count <= max_t);
            for t in &set.triangles
                [m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize]
            {
                assert!(t.0.iter().all(|&l| u32::from(l) < m.vertex_count));
                let tri =
                    t.0.iter()
                        .map(|&l| set.vertices[(m.vertex_offset + l as u32) as usize])
                        .collect();
                rebuilt.push(canonical(tri));
            }
        }
        let mut original: Vec<Vec<u32>> =
            indices.chunks(3).map(|t| canonical(t.to_vec())).collect();
        rebuilt.sort();
        original.sort();
        assert_eq!(
            rebuilt, original,
            "meshlets hold exactly the source triangles"
        );
        assert_eq!(set.bounds.len(), set.meshlets.len());
    }

    #[test]
    fn meshlets_cover_every_triangle_within_limits() {
        let (positions, indices) = grid(21);
        let set = build_meshlets(&positions, &indices, 64, 124, 0.25);
        assert_holds_exactly(&set, &indices, 64, 124);
    }

    #[test]
    fn cone_weight_zero_takes_the_scan_builder_within_the_same_limits() {
        let (positions, indices) = grid(200);
        let scan = build_meshlets(&positions, &indices, 64, 124, 0.0);
        assert_holds_exactly(&scan, &indices, 64, 124);
        // The scan builder fills meshlets in index order: each meshlet holds the next run
        // of the index buffer (the crate then reorders triangles inside a meshlet; the
        // regular builder picks them by adjacency).
        let canonical = |t: &[u32]| {
            let r = (0..3).min_by_key(|&k| t[k]).unwrap();
            let mut t = t.to_vec();
            t.rotate_left(r);
            t
        };
        let mut next = 0usize;
        for m in &scan.meshlets {
            let mut got: Vec<Vec<u32>> = scan.triangles
                [m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize]
                .iter()
                .map(|t| {
                    let corners: Vec<u32> =
                        t.0.iter()
                            .map(|&l| scan.vertices[(m.vertex_offset + l as u32) as usize])
                            .collect();
                    canonical(&corners)
                })
                .collect();
            let count = m.triangle_count as usize;
            let mut want: Vec<Vec<u32>> = indices[next * 3..(next + count) * 3]
                .chunks(3)
                .map(canonical)
                .collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "meshlet at triangle {next} is the next run");
            next += count;
        }
        assert_eq!(next, indices.len() / 3);
        let regular = build_meshlets(&positions, &indices, 64, 124, 0.25);
        assert_ne!(
            scan.triangles, regular.triangles,
            "cone weight 0.25 takes the regular builder"
        );
    }

    #[test]
    fn a_mesh_of_several_runs_is_split_into_runs_and_joined_back() {
        // 2 * 199^2 = 79,202 triangles: two runs, the second starting at a high vertex.
        let (positions, indices) = grid(200);
        assert!(indices.len() / 3 > RUN_TRIANGLES);
        let set = build_meshlets(&positions, &indices, 64, 124, 0.25);
        assert_holds_exactly(&set, &indices, 64, 124);
        // The first run's meshlets end where its triangles end: no meshlet spans runs.
        let mut seen = 0usize;
        let boundary = set
            .meshlets
            .iter()
            .position(|m| {
                seen += m.triangle_count as usize;
                seen >= RUN_TRIANGLES
            })
            .unwrap();
        assert_eq!(
            seen, RUN_TRIANGLES,
            "a meshlet ends exactly at the run boundary"
        );
        assert!(boundary + 1 < set.meshlets.len());
    }

    #[test]
    fn a_mesh_with_scattered_vertices_is_built_in_one_piece() {
        // A triangle soup (no shared vertices) whose first run also holds the last
        // triangle: that run's vertex range is wider than the run, so the whole mesh is
        // built in one piece. Still every triangle, once.
        let triangles = RUN_TRIANGLES as u32 + 4_000;
        let positions: Vec<[f32; 4]> = (0..triangles * 3)
            .map(|i| {
                let t = i / 3;
                let (x, y) = ((t % 300) as f32, (t / 300) as f32);
                [
                    x + (i % 3 == 1) as u8 as f32,
                    y + (i % 3 == 2) as u8 as f32,
                    0.0,
                    0.0,
                ]
            })
            .collect();
        let mut indices: Vec<u32> = (0..triangles * 3).collect();
        let last: Vec<u32> = indices.split_off(indices.len() - 3);
        indices.splice(0..0, last);
        let first_run = VertexRange::of(&indices[..RUN_TRIANGLES * 3]).unwrap();
        assert!(first_run.len() > RUN_TRIANGLES * 3, "the case under test");
        let set = build_meshlets(&positions, &indices, 64, 124, 0.25);
        assert_holds_exactly(&set, &indices, 64, 124);
    }
}
