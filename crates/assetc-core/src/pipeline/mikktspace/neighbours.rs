//! Neighbours across shared edges, as MikkTSpace's `BuildNeighborsFast` pairs them.

use super::faces::{Face, VertexClasses, DEGENERATE};
use super::Mesh;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// No neighbour across an edge.
pub const NONE: u32 = u32::MAX;

/// One side of an edge, seen from its lower welded vertex.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Side {
    /// The edge's higher welded vertex.
    other: u32,
    face: u32,
    /// Runs from the lower vertex to the higher one in the face's winding.
    upward: bool,
    /// Edge number in the face: from corner `edge` to corner `edge + 1`.
    edge: u8,
}

/// The neighbour of every face across each of its edges (`3 * face + edge`; [`NONE`] for an
/// open edge, a degenerate face, or an edge whose other sides were all taken).
///
/// MikkTSpace sorts every edge by (lower vertex, higher vertex, face) and pairs each
/// unpaired side with the first later unpaired side of the same edge that runs the other
/// way. An edge's sides all meet at its lower vertex, so each vertex pairs its own edges,
/// in parallel, with the same result.
pub fn pair_edges(mesh: &Mesh, vertices: &VertexClasses, faces: &[Face]) -> Vec<u32> {
    let neighbours: Vec<AtomicU32> = (0..faces.len() * 3)
        .into_par_iter()
        .map(|_| AtomicU32::new(NONE))
        .collect();
    (0..vertices.count())
        .into_par_iter()
        .with_min_len(1024)
        .for_each_init(Vec::new, |sides: &mut Vec<Side>, v| {
            sides.clear();
            let v_class = v as u32;
            for &corner in &vertices.corners[vertices.slots(v)] {
                let (face, i) = (corner as usize / 3, corner as usize % 3);
                if faces[face].is(DEGENERATE) {
                    continue;
                }
                let next = vertices.of_corner(mesh, face * 3 + (i + 1) % 3);
                let previous = vertices.of_corner(mesh, face * 3 + (i + 2) % 3);
                if next > v_class {
                    sides.push(Side {
                        other: next,
                        face: face as u32,
                        upward: true,
                        edge: i as u8,
                    });
                }
                if previous > v_class {
                    sides.push(Side {
                        other: previous,
                        face: face as u32,
                        upward: false,
                        edge: ((i + 2) % 3) as u8,
                    });
                }
            }
            sides.sort_unstable();
            for edge in sides.chunk_by_mut(|a, b| a.other == b.other) {
                pair_sides(edge, &neighbours);
            }
        });
    neighbours
        .into_par_iter()
        .map(AtomicU32::into_inner)
        .collect()
}

/// Pairs the sides of one edge (in face order), each with the first later free side
/// running the other way.
fn pair_sides(edge: &[Side], neighbours: &[AtomicU32]) {
    if edge.len() < 2 {
        return;
    }
    let mut paired = [false; 8];
    let mut paired_long = Vec::new();
    let paired: &mut [bool] = if edge.len() <= paired.len() {
        &mut paired[..edge.len()]
    } else {
        paired_long.resize(edge.len(), false);
        &mut paired_long
    };
    for a in 0..edge.len() {
        if paired[a] {
            continue;
        }
        let Some(b) = (a + 1..edge.len()).find(|&b| !paired[b] && edge[b].upward != edge[a].upward)
        else {
            continue;
        };
        paired[a] = true;
        paired[b] = true;
        let (sa, sb) = (edge[a], edge[b]);
        neighbours[sa.face as usize * 3 + sa.edge as usize].store(sb.face, Ordering::Relaxed);
        neighbours[sb.face as usize * 3 + sb.edge as usize].store(sa.face, Ordering::Relaxed);
    }
}
