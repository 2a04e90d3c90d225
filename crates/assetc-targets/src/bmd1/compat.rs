//! `[bmd1] compat = "loader"`: rewrites a finished BMD1 model so that the format author's
//! own loader (BGBTech3 `btm_loadbmd.c`, `BTM_BmdLoadModelBuffer`) reads it within its
//! arrays and decodes the same values the seed reading gives.
//!
//! Every rule works on the final [`Bmd1`] model, so it does not depend on how geometry or
//! clips were made, and every rule keeps the file valid under the seed reading:
//! 1. quads become two triangles (the loader counts one `n_tris` per entry, the seed counts
//!    a quad as two, and its 64-bit quad decoder overwrites the third index);
//! 2. a mesh never has more triangles than vertices (the loader sizes the triangle arrays
//!    by `n_vtx` and fills them by `n_tris`): meshes over 1024 triangles are split, then
//!    each mesh is padded with copies of one of its own vertices, which no triangle uses;
//! 3. static models (no bones): the mesh with the fewest vertices of the last LOD moves to
//!    the end, and meshes with fewer vertices than the last one are padded to its count (the
//!    loader's colour pass uses the last mesh's `n_vtx` for every mesh);
//! 4. no key on a clip's last frame (after one the loader does not consume the bone's 0x00
//!    end tag, so every later bone is read shifted): a last-frame key that interpolation
//!    reproduces exactly is dropped; otherwise the clip gets one more frame without keys,
//!    so frames 0..n-1 sample exactly as before and only the loop's return to frame 0
//!    takes two frames instead of one;
//! 5. the loader's fixed tables: at most 256 meshes, 256 animations, 64 LODs, material
//!    names of 4..=255 bytes (copied into a 256-byte buffer, and the 4th byte from the end
//!    is inspected); these are errors, not rewrites.
//!
//! The costs (file size on the corpus) are in docs/targets.md.

use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::bmd1::{
    sample_track, Bmd1, Key, Lod, MeshDef, Primitive, Track, TriangleListKind, MAX_MESH_VERTICES,
};
use serde::Deserialize;

/// Which reader the written files are made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bmd1Compat {
    /// Files BGBTech3's own loader reads correctly (the rules of this module).
    #[default]
    Loader,
    /// The plain seed reading, no loader workarounds.
    Spec,
}

/// The loader's fixed tables (`BTM_BtModel`).
const LOADER_MAX_MESHES: usize = 256;
const LOADER_MAX_ANIMS: usize = 256;
const LOADER_MAX_LODS: usize = 64;
/// `char tb[256]` holds the material name with its NUL.
const LOADER_MAX_MATERIAL: usize = 255;
/// The loader looks at the 4th byte from the end of a material name for a `.` extension.
const LOADER_MIN_MATERIAL: usize = 4;
/// The engine's skeleton cache (`btm_bmdskelcache_trans`) holds 64 bone matrices.
const ENGINE_MAX_BONES: usize = 64;

/// Applies the loader rules (see the module docs) to `model`; warnings name `source`.
pub fn for_loader(
    model: Bmd1,
    source: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Bmd1, LoaderError> {
    let mut model = model;
    for mesh in &mut model.meshes {
        quads_to_triangles(mesh);
    }
    model = split_large_meshes(model)?;
    for mesh in &mut model.meshes {
        let triangles = mesh.primitives.len();
        pad_vertices(mesh, triangles);
    }
    if model.bones.is_empty() {
        order_for_colour_pass(&mut model);
    }
    for anim in &mut model.animations {
        clear_last_frame(anim);
    }
    check_tables(&model)?;
    if model.bones.len() > ENGINE_MAX_BONES {
        warnings.push(Warning::at(DiagnosticCode::TargetLimit, source.to_string(), format!("{} bones; BGBTech3's skeleton cache holds {ENGINE_MAX_BONES}, so the engine cannot draw this model animated", model.bones.len())));
    }
    Ok(model)
}

/// Rule 1: a quad `(a, b, c, d)` is drawn as `(a, b, c)` and `(a, c, d)`.
fn quads_to_triangles(mesh: &mut MeshDef) {
    if !mesh
        .primitives
        .iter()
        .any(|p| matches!(p, Primitive::Quad(_)))
    {
        return;
    }
    mesh.primitives = mesh
        .primitives
        .iter()
        .flat_map(|p| match *p {
            Primitive::Triangle(t) => vec![Primitive::Triangle(t)],
            Primitive::Quad([a, b, c, d]) => {
                vec![
                    Primitive::Triangle([a, b, c]),
                    Primitive::Triangle([a, c, d]),
                ]
            }
        })
        .collect();
    mesh.triangle_list = TriangleListKind::smallest_for(&mesh.primitives);
}

/// Rule 2, first half: meshes with more than 1024 triangles become pieces of at most 1024
/// triangles and 1024 vertices (primitive order kept, shared vertices duplicated); LOD
/// ranges and bone solids follow their meshes.
fn split_large_meshes(model: Bmd1) -> Result<Bmd1, LoaderError> {
    if model
        .meshes
        .iter()
        .all(|m| m.primitives.len() <= MAX_MESH_VERTICES)
    {
        return Ok(model);
    }
    let Bmd1 {
        meshes,
        lods,
        mut bones,
        animations,
    } = model;
    // new_range[i] = the meshes old mesh i became.
    let mut new_range = Vec::with_capacity(meshes.len());
    let mut out = Vec::new();
    for (i, mesh) in meshes.into_iter().enumerate() {
        let start = out.len();
        if mesh.primitives.len() <= MAX_MESH_VERTICES {
            out.push(mesh);
        } else {
            if bones.iter().any(|b| usize::from(b.solid) == i) {
                return Err(LoaderError::LargeBoneSolid {
                    mesh: i,
                    triangles: mesh.primitives.len(),
                });
            }
            out.extend(split_mesh(&mesh));
        }
        new_range.push(start..out.len());
    }
    if out.len() > LOADER_MAX_MESHES {
        return Err(LoaderError::TooManySplitMeshes(out.len()));
    }
    let mut new_lods = Vec::with_capacity(lods.len());
    for lod in lods {
        let first = usize::from(lod.first_mesh);
        let end = first + usize::from(lod.mesh_count);
        let start = new_range.get(first).map_or(out.len(), |r| r.start);
        let stop = new_range
            .get(end.wrapping_sub(1))
            .map_or(start, |r| r.end)
            .max(start);
        let (Ok(first_mesh), Ok(mesh_count)) = (u8::try_from(start), u8::try_from(stop - start))
        else {
            return Err(LoaderError::LodRange { start, stop });
        };
        new_lods.push(Lod {
            first_mesh,
            mesh_count,
            scale: lod.scale,
        });
    }
    for bone in &mut bones {
        if bone.solid != 0 {
            if let Some(r) = new_range.get(usize::from(bone.solid)) {
                bone.solid =
                    u8::try_from(r.start).map_err(|_| LoaderError::BoneSolidMoved(r.start))?;
            }
        }
    }
    Ok(Bmd1 {
        meshes: out,
        lods: new_lods,
        bones,
        animations,
    })
}

/// Greedy pieces of at most 1024 triangles and 1024 vertices, in primitive order.
fn split_mesh(mesh: &MeshDef) -> Vec<MeshDef> {
    let mut pieces = Vec::new();
    let mut local: Vec<Option<u16>> = vec![None; mesh.vertices.len()];
    let mut used: Vec<usize> = Vec::new();
    let mut prims: Vec<Primitive> = Vec::new();
    let flush = |used: &mut Vec<usize>,
                 prims: &mut Vec<Primitive>,
                 local: &mut Vec<Option<u16>>,
                 pieces: &mut Vec<MeshDef>| {
        if prims.is_empty() {
            return;
        }
        let vertices = used
            .iter()
            .filter_map(|&v| mesh.vertices.get(v).copied())
            .collect();
        for &v in used.iter() {
            if let Some(slot) = local.get_mut(v) {
                *slot = None;
            }
        }
        used.clear();
        pieces.push(MeshDef::new(
            mesh.material.clone(),
            vertices,
            std::mem::take(prims),
        ));
    };
    for p in &mesh.primitives {
        let idx = p.indices();
        let new = idx
            .iter()
            .enumerate()
            .filter(|&(k, &v)| {
                local.get(usize::from(v)).is_some_and(Option::is_none) && !idx[..k].contains(&v)
            })
            .count();
        if prims.len() + 1 > MAX_MESH_VERTICES || used.len() + new > MAX_MESH_VERTICES {
            flush(&mut used, &mut prims, &mut local, &mut pieces);
        }
        let mut mapped = [0u16; 4];
        for (slot, &v) in mapped.iter_mut().zip(idx) {
            let entry = local.get_mut(usize::from(v));
            *slot = match entry {
                Some(Some(l)) => *l,
                Some(e) => {
                    let l = used.len() as u16; // below 1024
                    *e = Some(l);
                    used.push(usize::from(v));
                    l
                }
                None => 0, // index checked by the validator when writing
            };
        }
        prims.push(match p {
            Primitive::Triangle(_) => Primitive::Triangle([mapped[0], mapped[1], mapped[2]]),
            Primitive::Quad(_) => Primitive::Quad(mapped),
        });
    }
    flush(&mut used, &mut prims, &mut local, &mut pieces);
    pieces
}

/// Appends copies of the mesh's smallest vertex record until it has `count` vertices.
/// No triangle uses them; a copy keeps the bounding box, the bone set and the list kind.
fn pad_vertices(mesh: &mut MeshDef, count: usize) {
    let Some(copy) = mesh
        .vertices
        .iter()
        .min_by_key(|v| v.encoding.size())
        .copied()
    else {
        return;
    };
    // The copy's size is one the list already holds, so the list kind stays valid.
    if mesh.vertices.len() < count {
        mesh.vertices.resize(count, copy);
    }
}

/// Rule 3: the loader's colour pass over a static model runs `j < n_vtx(last mesh)` over
/// every mesh. The smallest mesh of the LOD holding the last mesh moves to the end (when
/// every LOD range holds all of that LOD's meshes or none, so no range changes); meshes
/// still smaller than the last one are padded.
fn order_for_colour_pass(model: &mut Bmd1) {
    let n = model.meshes.len();
    if n == 0 {
        return;
    }
    let holder = model
        .lods
        .iter()
        .find(|l| usize::from(l.first_mesh) + usize::from(l.mesh_count) == n && l.mesh_count > 0);
    if let Some(lod) = holder {
        let range = usize::from(lod.first_mesh)..n;
        let keeps_ranges = model.lods.iter().all(|l| {
            let (a, b) = (
                usize::from(l.first_mesh),
                usize::from(l.first_mesh) + usize::from(l.mesh_count),
            );
            b <= range.start || a >= range.end || (a <= range.start && b >= range.end)
        });
        if keeps_ranges {
            // The last of the smallest, so equal counts keep their order.
            let smallest = range
                .clone()
                .rev()
                .min_by_key(|&i| model.meshes.get(i).map_or(0, |m| m.vertices.len()));
            if let Some(i) = smallest {
                let mesh = model.meshes.remove(i);
                model.meshes.push(mesh);
            }
        }
    }
    let last = model.meshes.last().map_or(0, |m| m.vertices.len());
    for mesh in &mut model.meshes {
        pad_vertices(mesh, last);
    }
}

/// Rule 4 for one clip.
fn clear_last_frame(anim: &mut crate::formats::bmd1::Animation) {
    let last = anim.frame_count.saturating_sub(1);
    let keyed_last = |t: &Track| t.keys.last().is_some_and(|k| k.frame == last);
    for track in &mut anim.tracks {
        if keyed_last(track) && last_key_is_redundant(track, anim.frame_count, anim.looping) {
            track.keys.pop();
        }
    }
    if anim.tracks.iter().any(keyed_last) {
        if anim.frame_count < u8::MAX {
            if anim.looping {
                for track in &mut anim.tracks {
                    pin_loop_ends(track, anim.frame_count);
                }
            }
            anim.frame_count += 1;
        } else {
            // 255 frames cannot grow: the last key goes, the loop interpolates over it.
            for track in &mut anim.tracks {
                if keyed_last(track) {
                    track.keys.pop();
                }
            }
        }
    }
}

/// Before a looping clip of `n` frames grows by one: every channel gets keys at frames 0
/// and n-1 holding the values the loop gave it there (unnormalised, as the sampler lerps),
/// so the wrap segment that grows only spans the new frame and frames 0..n-1 keep their
/// motion (up to the rounding of the added keys' values to F8A / packed XYZ).
fn pin_loop_ends(track: &mut Track, n: u8) {
    type Get = fn(&Key) -> Option<[f32; 4]>;
    type Set = fn(&mut Key, [f32; 4]);
    let channels: [(Get, Set); 3] = [
        (|k| k.rotation, |k, v| k.rotation = Some(v)),
        (
            |k| k.translation.map(|t| [t[0], t[1], t[2], 0.0]),
            |k, v| k.translation = Some([v[0], v[1], v[2]]),
        ),
        (
            |k| k.scale.map(|t| [t[0], t[1], t[2], 0.0]),
            |k, v| k.scale = Some([v[0], v[1], v[2]]),
        ),
    ];
    for (get, set) in channels {
        let keys: Vec<(u8, [f32; 4])> = track
            .keys
            .iter()
            .filter_map(|k| Some((k.frame, get(k)?)))
            .collect();
        let (Some(&(f0, v0)), Some(&(f1, v1))) = (keys.first(), keys.last()) else {
            continue;
        };
        // The wrap segment runs from (f1, v1) to (f0 + n, v0).
        let span = f32::from(f0) + f32::from(n) - f32::from(f1);
        let at = |frame: f32| {
            let into = if frame >= f32::from(f1) {
                frame - f32::from(f1)
            } else {
                frame + f32::from(n) - f32::from(f1)
            };
            let t = if span > 0.0 { into / span } else { 0.0 };
            [0, 1, 2, 3].map(|i| v1[i] + (v0[i] - v1[i]) * t)
        };
        let last = n - 1;
        for frame in [0, last] {
            if keys.iter().any(|&(f, _)| f == frame) {
                continue;
            }
            let value = at(f32::from(frame));
            match track.keys.iter().position(|k| k.frame >= frame) {
                Some(i) if track.keys[i].frame == frame => set(&mut track.keys[i], value),
                Some(i) => {
                    let mut key = Key {
                        frame,
                        ..Key::default()
                    };
                    set(&mut key, value);
                    track.keys.insert(i, key);
                }
                None => {
                    let mut key = Key {
                        frame,
                        ..Key::default()
                    };
                    set(&mut key, value);
                    track.keys.push(key);
                }
            }
        }
    }
}

/// True when the track without its last key samples the same at every frame: then the
/// piecewise-linear motion is the same everywhere.
fn last_key_is_redundant(track: &Track, frame_count: u8, looping: bool) -> bool {
    let mut without = track.clone();
    without.keys.pop();
    if without.keys.is_empty() {
        return false;
    }
    (0..frame_count).all(|f| {
        let a = sample_track(track, frame_count, looping, f32::from(f));
        let b = sample_track(&without, frame_count, looping, f32::from(f));
        let parts = |t: crate::formats::bmd1::Transform| {
            let mut v = t.rotation.to_vec();
            v.extend(t.translation);
            v.extend(t.scale);
            v
        };
        parts(a)
            .iter()
            .zip(parts(b))
            .all(|(x, y)| (x - y).abs() <= 1e-6)
    })
}

/// Rule 5: the loader's fixed tables and buffers.
fn check_tables(model: &Bmd1) -> Result<(), LoaderError> {
    let over = |table, count, most| LoaderError::Table { table, count, most };
    if model.meshes.len() > LOADER_MAX_MESHES {
        return Err(over("meshes", model.meshes.len(), LOADER_MAX_MESHES));
    }
    if model.animations.len() > LOADER_MAX_ANIMS {
        return Err(over("animations", model.animations.len(), LOADER_MAX_ANIMS));
    }
    if model.lods.len() > LOADER_MAX_LODS {
        return Err(over("LODs", model.lods.len(), LOADER_MAX_LODS));
    }
    for (i, mesh) in model.meshes.iter().enumerate() {
        if let Some(name) = &mesh.material {
            if !(LOADER_MIN_MATERIAL..=LOADER_MAX_MATERIAL).contains(&name.len()) {
                return Err(LoaderError::MaterialName {
                    mesh: i,
                    name: name.clone(),
                });
            }
        }
    }
    Ok(())
}

/// What BGBTech3's loader cannot take (see the module docs' rules).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoaderError {
    #[error(
        "mesh {mesh} is a bone solid with {triangles} triangles; BGBTech3's loader needs at most 1024 (or compat = \"spec\")"
    )]
    LargeBoneSolid { mesh: usize, triangles: usize },
    #[error(
        "splitting meshes to at most 1024 triangles gives {0} meshes; BMD1 LODs and BGBTech3's loader reach 255"
    )]
    TooManySplitMeshes(usize),
    #[error(
        "after splitting meshes to at most 1024 triangles, LOD meshes {start}..{stop} do not fit BMD1's 8-bit LOD range"
    )]
    LodRange { start: usize, stop: usize },
    #[error("a bone solid moved to mesh {0}, beyond 255")]
    BoneSolidMoved(usize),
    #[error("{count} {table}; BGBTech3's loader holds {most}")]
    Table {
        table: &'static str,
        count: usize,
        most: usize,
    },
    #[error(
        "mesh {mesh}: material name {name:?} has {} bytes; BGBTech3's loader needs {LOADER_MIN_MATERIAL}..={LOADER_MAX_MATERIAL} (or compat = \"spec\")",
        name.len()
    )]
    MaterialName { mesh: usize, name: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bmd1::{
        self, Animation, Bone, BoneKind, Key, Vertex, VertexEncoding, VertexIn,
    };

    fn vertex(x: f32) -> Vertex {
        Vertex {
            attrs: VertexIn {
                position: [x, 1.0, 0.0],
                uv: [0.0, 0.0],
                normal: [0.0, 0.0, 1.0],
                bone: 0,
                shade: 0,
            },
            encoding: VertexEncoding::V64,
        }
    }

    /// A fan of `triangles` triangles over `vertices` vertices (indices wrap).
    fn mesh(vertices: usize, triangles: usize) -> MeshDef {
        let n = vertices as u16;
        let prims = (0..triangles as u16)
            .map(|t| Primitive::Triangle([0, 1 + t % (n - 2), 2 + t % (n - 2)]))
            .collect();
        MeshDef::new(
            Some("src/mat".into()),
            (0..vertices).map(|i| vertex(i as f32)).collect(),
            prims,
        )
    }

    fn lod(first: u8, count: u8) -> Lod {
        Lod {
            first_mesh: first,
            mesh_count: count,
            scale: 1.0,
        }
    }

    fn apply(m: Bmd1) -> Bmd1 {
        let out = for_loader(m, "t", &mut Vec::new()).expect("compat");
        bmd1::write(&out).expect("still a valid BMD1 file");
        out
    }

    #[test]
    fn meshes_are_padded_to_their_triangle_count_with_unused_copies() {
        let m = apply(Bmd1 {
            meshes: vec![mesh(6, 8)],
            lods: vec![lod(0, 1)],
            ..Bmd1::default()
        });
        let out = &m.meshes[0];
        assert_eq!(out.vertices.len(), 8);
        assert_eq!(out.primitives, mesh(6, 8).primitives);
        assert_eq!(out.vertices[..6], mesh(6, 8).vertices[..]);
        assert!(out.vertices[6..]
            .iter()
            .all(|v| mesh(6, 8).vertices.contains(v)));
    }

    #[test]
    fn meshes_over_1024_triangles_split_and_lods_follow() {
        let m = apply(Bmd1 {
            meshes: vec![mesh(3, 1), mesh(10, 2000), mesh(4, 2)],
            lods: vec![lod(0, 2), lod(2, 1)],
            ..Bmd1::default()
        });
        let counts: Vec<(usize, usize)> = m
            .meshes
            .iter()
            .map(|x| (x.vertices.len(), x.primitives.len()))
            .collect();
        // 2000 = 1024 + 976 triangles; the static model's smallest LOD 1 mesh (4) is last,
        // so every earlier mesh has at least 4 vertices.
        assert_eq!(counts, [(4, 1), (1024, 1024), (976, 976), (4, 2)]);
        assert_eq!(m.lods, [lod(0, 3), lod(3, 1)]);
    }

    #[test]
    fn quads_become_two_triangles() {
        let mut q = mesh(4, 0);
        q.primitives = vec![Primitive::Quad([0, 1, 2, 3])];
        q.triangle_list = TriangleListKind::Variable;
        let m = apply(Bmd1 {
            meshes: vec![q],
            lods: vec![lod(0, 1)],
            ..Bmd1::default()
        });
        assert_eq!(
            m.meshes[0].primitives,
            [
                Primitive::Triangle([0, 1, 2]),
                Primitive::Triangle([0, 2, 3])
            ]
        );
        assert_eq!(m.meshes[0].triangle_list, TriangleListKind::Tri32);
    }

    #[test]
    fn static_models_end_with_their_smallest_mesh() {
        let m = apply(Bmd1 {
            meshes: vec![mesh(3, 1), mesh(5, 1), mesh(7, 1), mesh(6, 1)],
            lods: vec![lod(0, 1), lod(1, 3)],
            ..Bmd1::default()
        });
        let counts: Vec<usize> = m.meshes.iter().map(|x| x.vertices.len()).collect();
        // LOD 1 reordered (7, 6, 5); mesh 0 padded from 3 to the last mesh's 5.
        assert_eq!(counts, [5, 7, 6, 5]);
        assert_eq!(m.lods, [lod(0, 1), lod(1, 3)]);
    }

    fn skinned(track: Track, frame_count: u8) -> Bmd1 {
        let base = Bone {
            name: None,
            solid: 0,
            kind: BoneKind::Normal {
                parent: 0,
                rotation: [0.0; 4],
                origin: [0.0; 3],
            },
        };
        Bmd1 {
            meshes: vec![mesh(3, 1)],
            lods: vec![lod(0, 1)],
            bones: vec![base],
            animations: vec![Animation {
                name: "a".into(),
                frame_count,
                rate_quarter_hz: 120,
                looping: true,
                tracks: vec![track],
            }],
        }
    }

    fn key(frame: u8, x: f32) -> Key {
        Key {
            frame,
            translation: Some([x, 0.0, 0.0]),
            ..Key::default()
        }
    }

    #[test]
    fn a_needed_last_frame_key_gets_one_more_frame_and_the_same_motion() {
        let track = Track {
            keys: vec![key(0, 0.0), key(5, 1.0), key(9, 0.5)],
        };
        let m = apply(skinned(track.clone(), 10));
        let a = &m.animations[0];
        assert_eq!(a.frame_count, 11);
        assert_eq!(a.tracks[0], track);
        for f in 0..10u8 {
            let t = f32::from(f);
            assert_eq!(
                sample_track(&track, 10, true, t),
                sample_track(&a.tracks[0], 11, true, t),
                "frame {f}"
            );
        }
    }

    #[test]
    fn channels_not_keyed_at_the_loop_ends_keep_their_motion() {
        // Rotation keyed on the last frame forces a new frame; the translation starts at
        // frame 3 and ends at frame 6, so its wrap segment would otherwise grow.
        let mut r = Key {
            frame: 0,
            rotation: Some([0.0, 0.0, 0.0, 1.0]),
            ..Key::default()
        };
        let mut keys = vec![r, key(3, 1.0), key(6, 0.5)];
        r.frame = 9;
        r.rotation = Some([0.0, 0.5, 0.0, 1.0]);
        keys.push(r);
        let track = Track { keys };
        let m = apply(skinned(track.clone(), 10));
        let a = &m.animations[0];
        assert_eq!(a.frame_count, 11);
        for f in 0..10u8 {
            let want = sample_track(&track, 10, true, f32::from(f)).translation;
            let got = sample_track(&a.tracks[0], 11, true, f32::from(f)).translation;
            for (w, g) in want.iter().zip(got) {
                assert!((w - g).abs() < 1e-6, "frame {f}: {want:?} {got:?}");
            }
        }
    }

    #[test]
    fn a_redundant_last_frame_key_is_dropped() {
        // Frame 9 lies on the line from frame 5 (1.0) to frame 10 = frame 0 (0.0).
        let track = Track {
            keys: vec![key(0, 0.0), key(5, 1.0), key(9, 0.2)],
        };
        let m = apply(skinned(track.clone(), 10));
        let a = &m.animations[0];
        assert_eq!(a.frame_count, 10);
        assert_eq!(a.tracks[0].keys, track.keys[..2]);
    }

    #[test]
    fn a_full_255_frame_clip_drops_its_last_key() {
        let track = Track {
            keys: vec![key(0, 0.0), key(254, 1.0)],
        };
        let m = apply(skinned(track, 255));
        assert_eq!(m.animations[0].frame_count, 255);
        assert_eq!(m.animations[0].tracks[0].keys, [key(0, 0.0)]);
    }

    #[test]
    fn loader_tables_are_checked() {
        let mut m = mesh(3, 1);
        m.material = Some("abc".into());
        let err = for_loader(
            Bmd1 {
                meshes: vec![m],
                lods: vec![lod(0, 1)],
                ..Bmd1::default()
            },
            "t",
            &mut Vec::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("material name \"abc\""), "{err}");
    }
}
