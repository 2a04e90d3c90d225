//! The BMD1 writer. Layout: header, mesh/LOD/bone/animation lists, then per mesh its
//! vertex and triangle lists, then per animation its frames, then the strings; arrays start
//! 8-aligned, everything else is zero.

use super::*;
use crate::bytes::WriteLe;

fn put_u32_at(out: &mut [u8], at: usize, v: u32) {
    if let Some(dst) = out.get_mut(at..at + 4) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
}

fn offset(out: &[u8]) -> Result<u32, Bmd1Error> {
    u32::try_from(out.len()).map_err(|_| Bmd1Error::TooLarge(out.len()))
}

/// Reserves an 8-aligned list of `n` records; returns its offset (0 when empty).
fn reserve(out: &mut Vec<u8>, n: usize, size: usize) -> Result<u32, Bmd1Error> {
    if n == 0 {
        return Ok(0);
    }
    out.pad_to(8);
    let at = offset(out)?;
    out.resize(out.len() + n * size, 0);
    Ok(at)
}

fn put_string(out: &mut Vec<u8>, s: Option<&str>) -> Result<u32, Bmd1Error> {
    match s {
        None => Ok(0),
        Some(s) => {
            let at = offset(out)?;
            out.extend_from_slice(s.as_bytes());
            out.push(0);
            Ok(at)
        }
    }
}

/// A bone rotation word: all-zero rotations are the identity word 0 [B15].
fn bone_rotation_word(q: [f32; 4]) -> u32 {
    if q.iter().all(|&c| c == 0.0) {
        return 0;
    }
    q.iter()
        .enumerate()
        .fold(0, |w, (i, &c)| w | u32::from(f8a_encode(c)) << (8 * i))
}

pub fn write(m: &Bmd1) -> Result<Vec<u8>, Bmd1Error> {
    let mut first_issue = None;
    check_model(m, &mut |item, message| {
        first_issue.get_or_insert(Bmd1Error::Model { item, message });
    });
    if let Some(e) = first_issue {
        return Err(e);
    }

    let mut out = vec![0u8; HEADER_SIZE];
    let ofs_meshes = reserve(&mut out, m.meshes.len(), MESH_DEF_SIZE)?;
    let ofs_lods = reserve(&mut out, m.lods.len(), LOD_DEF_SIZE)?;
    let ofs_bones = reserve(&mut out, m.bones.len(), BONE_DEF_SIZE)?;
    let ofs_anims = reserve(&mut out, m.animations.len(), ANIM_DEF_SIZE)?;

    let mut mesh_lists = Vec::with_capacity(m.meshes.len());
    for (mi, mesh) in m.meshes.iter().enumerate() {
        let vtx = append_list(&mut out, |out| {
            for (vi, v) in mesh.vertices.iter().enumerate() {
                let rec =
                    encode_vertex(&v.attrs, v.encoding).map_err(|source| Bmd1Error::Vertex {
                        mesh: mi,
                        vertex: vi,
                        source,
                    })?;
                out.extend_from_slice(rec.as_bytes());
            }
            Ok(())
        })?;
        let tris = append_list(&mut out, |out| {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                let (value, len) = encode_primitive(p, mesh.triangle_list).map_err(|source| {
                    Bmd1Error::Primitive {
                        mesh: mi,
                        primitive: pi,
                        source,
                    }
                })?;
                out.extend_from_slice(value.to_le_bytes().get(..len).unwrap_or(&[]));
            }
            Ok(())
        })?;
        mesh_lists.push((vtx, tris));
    }
    let mut frame_lists = Vec::with_capacity(m.animations.len());
    for (ai, a) in m.animations.iter().enumerate() {
        frame_lists.push(append_list(&mut out, |out| {
            for (bone, track) in a.tracks.iter().enumerate() {
                encode_track(track, a.frame_count, out).map_err(|source| Bmd1Error::Animation {
                    animation: ai,
                    bone,
                    source,
                })?;
            }
            Ok(())
        })?);
    }

    let mut mesh_names = Vec::with_capacity(m.meshes.len());
    for mesh in &m.meshes {
        mesh_names.push(put_string(&mut out, mesh.material.as_deref())?);
    }
    let mut bone_names = Vec::with_capacity(m.bones.len());
    for bone in &m.bones {
        bone_names.push(put_string(&mut out, bone.name.as_deref())?);
    }
    let mut anim_names = Vec::with_capacity(m.animations.len());
    for a in &m.animations {
        anim_names.push(put_string(&mut out, Some(&a.name))?);
    }
    offset(&out)?;

    out[..4].copy_from_slice(&MAGIC);
    let lists = [
        (ofs_meshes, m.meshes.len() * MESH_DEF_SIZE),
        (ofs_lods, m.lods.len() * LOD_DEF_SIZE),
        (ofs_bones, m.bones.len() * BONE_DEF_SIZE),
        (ofs_anims, m.animations.len() * ANIM_DEF_SIZE),
    ];
    for (k, (ofs, size)) in lists.into_iter().enumerate() {
        put_u32_at(&mut out, 0x10 + 8 * k, ofs);
        put_u32_at(&mut out, 0x14 + 8 * k, size as u32);
    }

    for (mi, mesh) in m.meshes.iter().enumerate() {
        let at = ofs_meshes as usize + mi * MESH_DEF_SIZE;
        let ((ofs_vtx, sz_vtx), (ofs_tris, sz_tris)) = mesh_lists[mi];
        let n_tris = mesh.triangle_list.count(&mesh.primitives) as u32;
        let flags = mesh.vertex_list as u32 | (mesh.triangle_list as u32) << 2;
        put_u32_at(&mut out, at, ofs_vtx);
        put_u32_at(&mut out, at + 4, ofs_tris);
        put_u32_at(&mut out, at + 8, mesh_names[mi]);
        put_u32_at(&mut out, at + 12, mesh.vertices.len() as u32 | n_tris << 16);
        put_u32_at(&mut out, at + 16, sz_vtx);
        put_u32_at(&mut out, at + 20, sz_tris);
        put_u32_at(&mut out, at + 24, flags);
    }
    for (li, lod) in m.lods.iter().enumerate() {
        let word = u32::from(lod.first_mesh)
            | u32::from(lod.mesh_count) << 8
            | u32::from(f8a_encode(lod.scale)) << 16;
        put_u32_at(&mut out, ofs_lods as usize + li * LOD_DEF_SIZE, word);
    }
    for (bi, bone) in m.bones.iter().enumerate() {
        let at = ofs_bones as usize + bi * BONE_DEF_SIZE;
        let (xform, parent) = match &bone.kind {
            BoneKind::Normal {
                parent,
                rotation,
                origin,
            } => {
                let origin = xyz_encode(*origin).unwrap_or(0);
                (
                    u64::from(bone_rotation_word(*rotation)) << 32 | u64::from(origin),
                    *parent,
                )
            }
            BoneKind::Pseudo { bones, weights } => {
                let mut bytes = [0u8; 8];
                bytes[..4].copy_from_slice(bones);
                for (dst, &w) in bytes[4..].iter_mut().zip(weights) {
                    *dst = f8a_encode(w);
                }
                (u64::from_le_bytes(bytes), PSEUDO_PARENT)
            }
        };
        put_u32_at(&mut out, at, xform as u32);
        put_u32_at(&mut out, at + 4, (xform >> 32) as u32);
        put_u32_at(&mut out, at + 8, bone_names[bi]);
        put_u32_at(
            &mut out,
            at + 12,
            u32::from(parent) | u32::from(bone.solid) << 8,
        );
    }
    for (ai, a) in m.animations.iter().enumerate() {
        let at = ofs_anims as usize + ai * ANIM_DEF_SIZE;
        let fl_hz = a.rate_quarter_hz & 0x7F | if a.looping { 0 } else { 0x80 };
        let (ofs_frames, sz_frames) = frame_lists[ai];
        put_u32_at(&mut out, at, anim_names[ai]);
        put_u32_at(
            &mut out,
            at + 4,
            u32::from(a.frame_count) | u32::from(fl_hz) << 8,
        );
        put_u32_at(&mut out, at + 8, ofs_frames);
        put_u32_at(&mut out, at + 12, sz_frames);
    }
    Ok(out)
}

/// Appends an 8-aligned array written by `fill`; returns (offset, size), (0, 0) when empty.
fn append_list(
    out: &mut Vec<u8>,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<(), Bmd1Error>,
) -> Result<(u32, u32), Bmd1Error> {
    let unpadded = out.len();
    out.pad_to(8);
    let start = out.len();
    fill(out)?;
    let size = out.len() - start;
    if size == 0 {
        out.truncate(unpadded);
        return Ok((0, 0));
    }
    let size = u32::try_from(size).map_err(|_| Bmd1Error::TooLarge(out.len()))?;
    Ok((offset_of(start)?, size))
}

fn offset_of(at: usize) -> Result<u32, Bmd1Error> {
    u32::try_from(at).map_err(|_| Bmd1Error::TooLarge(at))
}
