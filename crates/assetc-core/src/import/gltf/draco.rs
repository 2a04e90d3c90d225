//! `KHR_draco_mesh_compression`: a primitive whose attributes and indices are one Draco
//! stream in a bufferView. The stream is decoded by `draco-core` (pure Rust); each
//! attribute the extension names (semantic -> Draco unique id) becomes the data of the
//! accessor the primitive names for that semantic, so the primitive is then read like an
//! uncompressed one. The decoded faces are its triangle list, whatever `indices` says
//! (the stream orders the points its own way).

use super::accessor::{Decoded, Reader};
use super::buffers::BufferData;
use super::{bad, dangling, over_limit, Ctx, Res};
use draco_core::{DecodeLimits, DecoderBuffer, ErrorKind, Mesh, MeshDecoder};
use gltf::json::mesh::Primitive;
use std::collections::HashMap;

pub const EXTENSION: &str = "KHR_draco_mesh_compression";

/// A decoded Draco primitive: its accessors' data and its triangle list.
pub struct DracoPrimitive {
    pub accessors: HashMap<usize, Decoded>,
    pub vertex_count: usize,
    pub indices: Vec<u32>,
}

/// Decodes the primitive's Draco stream when it has the extension; `None` when it has not.
pub fn decode(
    ctx: &Ctx,
    data: &BufferData,
    reader: &Reader,
    p: &Primitive,
    path: &str,
) -> Res<Option<DracoPrimitive>> {
    let Some(ext) = p.extensions.as_ref().and_then(|e| e.others.get(EXTENSION)) else {
        return Ok(None);
    };
    let ext_path = format!("{path}.extensions.{EXTENSION}");
    let Some(view) = ext
        .get("bufferView")
        .and_then(serde_json::Value::as_u64)
        .and_then(|v| usize::try_from(v).ok())
    else {
        return bad(ext_path, "has no bufferView");
    };
    let Some(names) = ext.get("attributes").and_then(serde_json::Value::as_object) else {
        return bad(ext_path, "has no attributes object");
    };
    let (bytes, _) = data
        .view(ctx, view)
        .map_err(|e| e.referenced_from(&format!("{ext_path}.bufferView")))?;
    let mesh = decode_stream(ctx, reader, bytes, &ext_path)?;
    let vertex_count = mesh.num_points();

    let mut accessors = HashMap::new();
    for (semantic, id) in names {
        let Some(id) = id.as_u64().and_then(|i| u32::try_from(i).ok()) else {
            return bad(
                format!("{ext_path}.attributes.{semantic}"),
                "is not an attribute id",
            );
        };
        let Some(accessor) = accessor_of(p, semantic) else {
            return bad(
                format!("{ext_path}.attributes.{semantic}"),
                format!("the primitive has no {semantic} attribute"),
            );
        };
        let Some(attribute) = mesh.attribute_by_unique_id(id) else {
            return dangling(
                format!("{ext_path}.attributes.{semantic}"),
                format!("the Draco stream has no attribute with id {id}"),
            );
        };
        let components = reader
            .layout(accessor)
            .map_err(|e| e.referenced_from(&format!("{path}.attributes.{semantic}")))?
            .components();
        if usize::from(attribute.num_components()) != components {
            return bad(
                format!("{ext_path}.attributes.{semantic}"),
                format!(
                    "the Draco attribute {id} has {} components, accessors[{accessor}] {components}",
                    attribute.num_components()
                ),
            );
        }
        let values = attribute.read_f32s(vertex_count, components);
        accessors.insert(
            accessor,
            Decoded {
                count: vertex_count,
                values,
            },
        );
    }

    let mut indices = Vec::with_capacity(mesh.num_faces() * 3);
    for face in mesh.faces() {
        for corner in face {
            if corner.0 as usize >= vertex_count {
                return bad(
                    ext_path,
                    format!(
                        "a decoded face names point {}, not below the point count {vertex_count}",
                        corner.0
                    ),
                );
            }
            indices.push(corner.0);
        }
    }
    Ok(Some(DracoPrimitive {
        accessors,
        vertex_count,
        indices,
    }))
}

/// The primitive's accessor for `semantic` (`POSITION`, `TEXCOORD_0`, ...).
fn accessor_of(p: &Primitive, semantic: &str) -> Option<usize> {
    p.attributes
        .iter()
        .find_map(|(s, a)| (s.to_string() == semantic).then(|| a.value()))
}

/// Decodes the stream under the import's limits: the vertex and index counts of one
/// primitive, and what is left of the decoded-bytes budget.
fn decode_stream(ctx: &Ctx, reader: &Reader, bytes: &[u8], ext_path: &str) -> Res<Mesh> {
    let limits = DecodeLimits::default()
        .with_max_points(ctx.limits.max_vertices_per_primitive)
        .with_max_faces(ctx.limits.max_indices_per_primitive / 3)
        .with_max_decoded_bytes(reader.remaining_budget());
    let mut buffer = DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = Mesh::new();
    // The decoder is safe Rust but not proven panic-free on hostile streams: a panic is
    // this primitive's error, never the build's.
    let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        MeshDecoder::new().decode(&mut buffer, &mut mesh)
    }));
    match decoded {
        Ok(Ok(())) => Ok(mesh),
        Ok(Err(e)) if e.kind() == ErrorKind::LimitExceeded => {
            over_limit(ext_path, format!("the Draco stream {e}"))
        }
        Ok(Err(e)) => bad(ext_path, format!("the Draco stream does not decode: {e}")),
        Err(_) => bad(
            ext_path,
            "the Draco stream does not decode (the decoder stopped on it)",
        ),
    }
}
