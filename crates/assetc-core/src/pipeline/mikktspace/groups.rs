//! MikkTSpace's groups of triangles around each vertex and the tangent of each corner.

use super::faces::{Face, VertexClasses, DEGENERATE, GROUP_WITH_ANY, ORIENT_PRESERVING};
use super::neighbours::NONE;
use super::vec3::{add, dot, normalized_or_zero, project_normalized, scale, V3};
use super::{Mesh, NO_FRAME};
use rayon::prelude::*;

/// Welded vertices per parallel task.
const VERTICES_PER_TASK: usize = 4096;

/// MikkTSpace's angular threshold, off: frames group unless exactly opposite.
const THRESHOLD_COS: f32 = -1.0;

/// The corner of `face` at welded vertex `v`, if it has one.
fn corner_at(mesh: &Mesh, vertices: &VertexClasses, face: usize, v: u32) -> Option<usize> {
    (0..3).find(|&k| vertices.of_corner(mesh, face * 3 + k) == v)
}

/// The faces across the two edges of `face` that meet at its corner `i`.
fn faces_around(neighbours: &[u32], face: usize, i: usize) -> impl Iterator<Item = usize> + '_ {
    [neighbours[face * 3 + (i + 2) % 3], neighbours[face * 3 + i]]
        .into_iter()
        .filter(|&n| n != NONE)
        .map(|n| n as usize)
}

/// Gives each face without UV area the handedness MikkTSpace gives it: that of the first
/// group, in MikkTSpace's order of group creation (by seed corner), that reaches it.
///
/// Only the vertices such faces touch take part, so this serial pass is short unless most
/// of a mesh lacks UV area; afterwards every vertex's groups can be rebuilt on their own.
pub fn settle_orientations(
    mesh: &Mesh,
    vertices: &VertexClasses,
    neighbours: &[u32],
    faces: &mut [Face],
) {
    let mut entangled = vec![false; vertices.count()];
    let mut any = false;
    for (f, face) in faces.iter().enumerate() {
        if face.is(GROUP_WITH_ANY) {
            any = true;
            for k in 0..3 {
                entangled[vertices.of_corner(mesh, f * 3 + k) as usize] = true;
            }
        }
    }
    if !any {
        return;
    }
    let mut assigned = vec![false; faces.len() * 3];
    let mut stack = Vec::new();
    for seed in 0..faces.len() * 3 {
        let (f, i) = (seed / 3, seed % 3);
        let v = vertices.of_corner(mesh, seed);
        if !entangled[v as usize] || !faces[f].is_good() || assigned[seed] {
            continue;
        }
        let orientation = faces[f].orientation();
        assigned[seed] = true;
        stack.extend(faces_around(neighbours, f, i));
        while let Some(t) = stack.pop() {
            let Some(j) = corner_at(mesh, vertices, t, v) else {
                continue;
            };
            if assigned[t * 3 + j] {
                continue;
            }
            let face = &mut faces[t];
            if face.is(GROUP_WITH_ANY) && !(0..3).any(|k| assigned[t * 3 + k]) {
                face.flags &= !ORIENT_PRESERVING;
                if orientation {
                    face.flags |= ORIENT_PRESERVING;
                }
            }
            if face.orientation() != orientation {
                continue;
            }
            assigned[t * 3 + j] = true;
            stack.extend(faces_around(neighbours, t, j));
        }
    }
}

/// What one task of [`tangents_by_vertex`] found: each mesh vertex's value (that of its
/// first corner) and the later corners whose value differs from their vertex's.
pub struct TaskTangents<T> {
    pub firsts: Vec<(u32, T)>,
    pub differing: Vec<(u32, T)>,
}

/// Every corner's tangent, passed through `finish(corner, tangent)`, gathered per mesh
/// vertex: one [`TaskTangents`] per task, in vertex order.
pub fn tangents_by_vertex<T: Copy + PartialEq + Send>(
    mesh: &Mesh,
    vertices: &VertexClasses,
    neighbours: &[u32],
    faces: &[Face],
    finish: &(impl Fn(usize, [f32; 4]) -> T + Sync),
) -> Vec<TaskTangents<T>> {
    (0..vertices.count().div_ceil(VERTICES_PER_TASK))
        .into_par_iter()
        .map_init(Scratch::default, |scratch, task| {
            let first = task * VERTICES_PER_TASK;
            let last = (first + VERTICES_PER_TASK).min(vertices.count());
            let mut found = TaskTangents {
                firsts: Vec::new(),
                differing: Vec::new(),
            };
            let mut by_vertex: Vec<(u32, u32)> = Vec::new();
            let mut values: Vec<T> = Vec::new();
            for v in first..last {
                let corners = &vertices.corners[vertices.slots(v)];
                let around = Around {
                    mesh,
                    vertices,
                    neighbours,
                    faces,
                    v: v as u32,
                    corners,
                };
                let mut out = std::mem::take(&mut scratch.out);
                out.clear();
                out.resize(corners.len(), NO_FRAME);
                around.tangents(scratch, &mut out);
                values.clear();
                values.extend(
                    corners
                        .iter()
                        .zip(&out)
                        .map(|(&corner, &tangent)| finish(corner as usize, tangent)),
                );
                scratch.out = out;
                // The welded vertex's corners by mesh vertex, each mesh vertex's in corner
                // order (usually one mesh vertex; sorting keeps a vertex duplicated many
                // times over from costing the square of its copies).
                by_vertex.clear();
                by_vertex.extend(
                    corners
                        .iter()
                        .enumerate()
                        .map(|(slot, &corner)| (mesh.indices[corner as usize], slot as u32)),
                );
                if by_vertex.windows(2).any(|w| w[0].0 != w[1].0) {
                    by_vertex.sort_unstable();
                }
                for same in by_vertex.chunk_by(|a, b| a.0 == b.0) {
                    let (vertex, first_slot) = same[0];
                    let value = values[first_slot as usize];
                    found.firsts.push((vertex, value));
                    for &(_, slot) in &same[1..] {
                        if values[slot as usize] != value {
                            found
                                .differing
                                .push((corners[slot as usize], values[slot as usize]));
                        }
                    }
                }
            }
            found
        })
        .collect()
}

/// Buffers reused from vertex to vertex.
#[derive(Default)]
struct Scratch {
    group_of: Vec<u32>,
    /// (face, slot) of the current group's members.
    members: Vec<(u32, u32)>,
    stack: Vec<usize>,
    projected: Vec<(V3, V3)>,
    subgroups: Vec<(Vec<u32>, V3)>,
    subgroup: Vec<u32>,
    /// The current vertex's corners' tangents.
    out: Vec<[f32; 4]>,
}

/// One welded vertex and its corners (ascending).
struct Around<'a> {
    mesh: &'a Mesh<'a>,
    vertices: &'a VertexClasses,
    neighbours: &'a [u32],
    faces: &'a [Face],
    v: u32,
    corners: &'a [u32],
}

impl Around<'_> {
    fn face_of(&self, slot: usize) -> usize {
        self.corners[slot] as usize / 3
    }

    /// Builds the vertex's groups as MikkTSpace's `Build4RuleGroups` does (each good face not
    /// yet in a group seeds one, which spreads across shared edges to faces of the same
    /// handedness) and writes each corner's tangent.
    fn tangents(&self, scratch: &mut Scratch, out: &mut [[f32; 4]]) {
        scratch.group_of.clear();
        scratch.group_of.resize(self.corners.len(), NONE);
        for seed in 0..self.corners.len() {
            let f = self.face_of(seed);
            if !self.faces[f].is_good() || scratch.group_of[seed] != NONE {
                continue;
            }
            self.spread_group(seed, scratch);
            self.write_group(scratch, out);
        }
        // Degenerate faces' corners copy the first non-degenerate corner at this vertex.
        let first = (0..self.corners.len()).find(|&s| !self.faces[self.face_of(s)].is(DEGENERATE));
        let copied = first.map_or(NO_FRAME, |s| out[s]);
        for (slot, out) in out.iter_mut().enumerate() {
            if self.faces[self.face_of(slot)].is(DEGENERATE) {
                *out = copied;
            }
        }
    }

    /// Collects the group seeded at `seed` into `scratch.members`.
    fn spread_group(&self, seed: usize, scratch: &mut Scratch) {
        let group = seed as u32;
        let f = self.face_of(seed);
        let orientation = self.faces[f].orientation();
        scratch.members.clear();
        scratch.members.push((f as u32, seed as u32));
        scratch.group_of[seed] = group;
        let i = self.corners[seed] as usize % 3;
        scratch.stack.clear();
        scratch.stack.extend(faces_around(self.neighbours, f, i));
        while let Some(t) = scratch.stack.pop() {
            let Some(j) = corner_at(self.mesh, self.vertices, t, self.v) else {
                continue;
            };
            let Ok(slot) = self.corners.binary_search(&((t * 3 + j) as u32)) else {
                continue;
            };
            if scratch.group_of[slot] != NONE || self.faces[t].orientation() != orientation {
                continue;
            }
            scratch.group_of[slot] = group;
            scratch.members.push((t as u32, slot as u32));
            scratch.stack.extend(faces_around(self.neighbours, t, j));
        }
        scratch.members.sort_unstable();
    }

    /// Splits the group in `scratch.members` into MikkTSpace's sub-groups (the members whose
    /// frames agree with each member's) and writes each member corner's tangent: the
    /// sub-group's angle-weighted average, with the group's handedness.
    fn write_group(&self, scratch: &mut Scratch, out: &mut [[f32; 4]]) {
        let (first_face, first_slot) = scratch.members[0];
        let n = self.mesh.normal(self.corners[first_slot as usize] as usize);
        let w = if self.faces[first_face as usize].orientation() {
            1.0
        } else {
            -1.0
        };
        scratch.projected.clear();
        scratch
            .projected
            .extend(scratch.members.iter().map(|&(f, _)| {
                let face = &self.faces[f as usize];
                (project_normalized(face.s, n), project_normalized(face.t, n))
            }));
        let joins = |a: usize, b: usize| {
            let (fa, fb) = (scratch.members[a].0, scratch.members[b].0);
            let (pa, pb) = (scratch.projected[a], scratch.projected[b]);
            self.faces[fa as usize].is(GROUP_WITH_ANY)
                || self.faces[fb as usize].is(GROUP_WITH_ANY)
                || fa == fb
                || (dot(pa.0, pb.0) > THRESHOLD_COS && dot(pa.1, pb.1) > THRESHOLD_COS)
        };
        let k = scratch.members.len();
        let all_join = (0..k).all(|a| (a + 1..k).all(|b| joins(a, b)));
        if all_join {
            let tangent = self.average(scratch, |_| true);
            for &(_, slot) in &scratch.members {
                out[slot as usize] = [tangent[0], tangent[1], tangent[2], w];
            }
            return;
        }
        scratch.subgroups.clear();
        for a in 0..k {
            scratch.subgroup.clear();
            scratch
                .subgroup
                .extend((0..k).filter(|&b| joins(a, b)).map(|b| b as u32));
            let known = scratch
                .subgroups
                .iter()
                .find(|(members, _)| *members == scratch.subgroup);
            let tangent = match known {
                Some((_, tangent)) => *tangent,
                None => {
                    let chosen = &scratch.subgroup;
                    let tangent =
                        self.average(scratch, |m| chosen.binary_search(&(m as u32)).is_ok());
                    scratch.subgroups.push((chosen.clone(), tangent));
                    tangent
                }
            };
            let slot = scratch.members[a].1 as usize;
            out[slot] = [tangent[0], tangent[1], tangent[2], w];
        }
    }

    /// MikkTSpace's `EvalTspace`: the members' frames projected into the tangent plane,
    /// weighted by each face's angle at the vertex, summed in face order and normalised.
    fn average(&self, scratch: &Scratch, chosen: impl Fn(usize) -> bool) -> V3 {
        let mut sum = [0.0f32; 3];
        for (m, &(f, slot)) in scratch.members.iter().enumerate() {
            let face = &self.faces[f as usize];
            if !chosen(m) || face.is(GROUP_WITH_ANY) {
                continue;
            }
            let angle = face.angles[self.corners[slot as usize] as usize % 3];
            sum = add(sum, scale(angle, scratch.projected[m].0));
        }
        normalized_or_zero(sum)
    }
}
