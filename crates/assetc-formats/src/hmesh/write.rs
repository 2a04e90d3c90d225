//! The `.hmesh` writer.

use std::borrow::Cow;

use super::{
    align16, chunk, FourCc, HMesh, HMeshError, MeshDesc, DESC_FLAG_TANGENTS, ENTRY_SIZE,
    HEADER_SIZE, MAGIC, PAYLOAD_ALIGN, VERSION, VERTEX_STRIDE,
};
use crate::bytes::WriteLe;

/// Serialises a mesh. DESC is derived from the data; fails when the parts disagree in
/// size (the semantic rules are `validate`'s job, so a writer bug can still be caught).
pub fn write(mesh: &HMesh) -> Result<Vec<u8>, HMeshError> {
    let desc = describe(mesh)?;
    let index_bytes: Cow<'_, [u8]> = if desc.index_width == 2 {
        let mut narrow = Vec::with_capacity(mesh.indices.len() * 2);
        for (i, &index) in mesh.indices.iter().enumerate() {
            let v = u16::try_from(index).map_err(|_| {
                HMeshError::Inconsistent(format!(
                    "index {i} is {index}, which does not fit the 16-bit index buffer used for {} vertices",
                    mesh.vertices.len()
                ))
            })?;
            narrow.put_u16(v);
        }
        Cow::Owned(narrow)
    } else {
        Cow::Borrowed(bytemuck::cast_slice(&mesh.indices))
    };

    let mut chunks: Vec<(FourCc, Cow<'_, [u8]>)> = vec![
        (chunk::DESC, Cow::Borrowed(bytemuck::bytes_of(&desc))),
        (chunk::BNDS, Cow::Borrowed(bytemuck::bytes_of(&mesh.bounds))),
        (
            chunk::VTXS,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.vertices)),
        ),
        (chunk::IDXS, index_bytes),
        (
            chunk::MLET,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlets)),
        ),
        (
            chunk::MLVR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_vertices)),
        ),
        (
            chunk::MLTR,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_triangles)),
        ),
        (
            chunk::MLBN,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.meshlet_bounds)),
        ),
        (
            chunk::MTRL,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.materials)),
        ),
        (
            chunk::SUBM,
            Cow::Borrowed(bytemuck::cast_slice(&mesh.submeshes)),
        ),
    ];
    if let Some(skin) = &mesh.skinning {
        chunks.push((
            chunk::SKIN,
            Cow::Borrowed(bytemuck::cast_slice(&skin.vertices)),
        ));
        chunks.push((
            chunk::SKEL,
            Cow::Borrowed(bytemuck::cast_slice(&skin.joints)),
        ));
    }
    if let Some(lods) = &mesh.lods {
        chunks.push((
            chunk::LODI,
            Cow::Borrowed(bytemuck::cast_slice(&lods.indices)),
        ));
        let mut table = Vec::with_capacity(8 + lods.ranges.len() * 8);
        table.put_u32(lods.lod_count);
        table.put_u32(desc.submesh_count);
        table.extend_from_slice(bytemuck::cast_slice(&lods.ranges));
        chunks.push((chunk::LODT, Cow::Owned(table)));
    }
    if let Some(uv1) = &mesh.uv1 {
        chunks.push((chunk::UV1S, Cow::Borrowed(bytemuck::cast_slice(uv1))));
    }
    // The cluster LOD chunks are assetc's own extension: last, after every chunk the
    // shared contract defines, so those keep their places.
    if let Some(lod) = &mesh.cluster_lod {
        chunks.extend(super::clod::payloads(lod, mesh.submeshes.len())?);
    }
    let refs: Vec<(FourCc, &[u8])> = chunks.iter().map(|(c, d)| (*c, d.as_ref())).collect();
    Ok(assemble(&refs))
}

/// Lays out header, chunk table and 16-aligned payloads in the given order.
fn assemble(chunks: &[(FourCc, &[u8])]) -> Vec<u8> {
    let table_end = HEADER_SIZE + ENTRY_SIZE * chunks.len() as u64;
    let mut offsets = Vec::with_capacity(chunks.len());
    let mut end = table_end;
    for (_, data) in chunks {
        let start = align16(end);
        offsets.push(start);
        end = start + data.len() as u64;
    }
    let mut out = Vec::with_capacity(usize::try_from(end).unwrap_or(0));
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(chunks.len() as u32);
    out.put_u32(0);
    out.put_u64(0);
    out.put_u64(0);
    for ((fourcc, data), offset) in chunks.iter().zip(&offsets) {
        out.put_u32(fourcc.0);
        out.put_u32(0);
        out.put_u64(*offset);
        out.put_u64(data.len() as u64);
    }
    for (_, data) in chunks {
        out.pad_to(PAYLOAD_ALIGN as usize);
        out.extend_from_slice(data);
    }
    out
}

fn describe(mesh: &HMesh) -> Result<MeshDesc, HMeshError> {
    let count = |what: &str, n: usize| {
        u32::try_from(n)
            .map_err(|_| HMeshError::Inconsistent(format!("{n} {what} do not fit a u32 count")))
    };
    let vertex_count = count("vertices", mesh.vertices.len())?;
    let index_count = count("indices", mesh.indices.len())?;
    let meshlet_count = count("meshlets", mesh.meshlets.len())?;
    let submesh_count = count("submeshes", mesh.submeshes.len())?;
    let material_count = count("materials", mesh.materials.len())?;
    if submesh_count == 0 {
        return Err(HMeshError::Inconsistent(
            "a mesh needs at least one submesh".into(),
        ));
    }
    if mesh.meshlet_bounds.len() != mesh.meshlets.len() {
        return Err(HMeshError::Inconsistent(format!(
            "{} meshlet bounds for {} meshlets",
            mesh.meshlet_bounds.len(),
            mesh.meshlets.len()
        )));
    }
    let verts: u64 = mesh
        .meshlets
        .iter()
        .map(|m| u64::from(m.vertex_count))
        .sum();
    let tris: u64 = mesh
        .meshlets
        .iter()
        .map(|m| u64::from(m.triangle_count))
        .sum();
    if verts != mesh.meshlet_vertices.len() as u64 {
        return Err(HMeshError::Inconsistent(format!(
            "meshlets use {verts} meshlet vertices but MLVR holds {}",
            mesh.meshlet_vertices.len()
        )));
    }
    if tris != mesh.meshlet_triangles.len() as u64 {
        return Err(HMeshError::Inconsistent(format!(
            "meshlets use {tris} meshlet triangles but MLTR holds {}",
            mesh.meshlet_triangles.len()
        )));
    }
    if let Some(skin) = &mesh.skinning {
        if skin.vertices.len() != mesh.vertices.len() {
            return Err(HMeshError::Inconsistent(format!(
                "{} skin vertices for {} vertices",
                skin.vertices.len(),
                mesh.vertices.len()
            )));
        }
        count("joints", skin.joints.len())?;
    }
    if let Some(uv1) = &mesh.uv1 {
        if uv1.len() != mesh.vertices.len() {
            return Err(HMeshError::Inconsistent(format!(
                "{} second-set UVs for {} vertices",
                uv1.len(),
                mesh.vertices.len()
            )));
        }
    }
    if let Some(lods) = &mesh.lods {
        count("LOD indices", lods.indices.len())?;
        let rows = u64::from(lods.lod_count) * u64::from(submesh_count);
        if rows != lods.ranges.len() as u64 {
            return Err(HMeshError::Inconsistent(format!(
                "{} LOD ranges for {} levels x {submesh_count} submeshes",
                lods.ranges.len(),
                lods.lod_count
            )));
        }
    }
    Ok(MeshDesc {
        vertex_count,
        index_count,
        meshlet_count,
        submesh_count,
        material_count,
        vertex_stride: VERTEX_STRIDE,
        index_width: if vertex_count <= 65535 { 2 } else { 4 },
        flags: if mesh.has_tangents {
            DESC_FLAG_TANGENTS
        } else {
            0
        },
        meshlet_max_verts: mesh.meshlet_max_verts,
        meshlet_max_tris: mesh.meshlet_max_tris,
    })
}
