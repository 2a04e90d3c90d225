//! Mesh primitives: attributes, indices (strips and fans converted to lists), morph
//! targets. Non-triangle primitives are skipped with a warning.

use super::accessor::{group, Layout, Reader};
use super::buffers::BufferData;
use super::draco;
use super::{bad, dangling, over_limit, Ctx, Res};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{Material, Mesh, MorphTarget, Primitive};
use gltf::json::accessor::{ComponentType, Type};
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::validation::Checked;
use std::collections::BTreeMap;

pub fn import_meshes(
    ctx: &Ctx,
    data: &BufferData,
    reader: &mut Reader,
    materials: &mut [Material],
    warnings: &mut Vec<Warning>,
) -> Res<Vec<Mesh>> {
    let mut meshes = Vec::with_capacity(ctx.root.meshes.len());
    for (mi, m) in ctx.root.meshes.iter().enumerate() {
        let mut primitives = Vec::with_capacity(m.primitives.len());
        for (pi, p) in m.primitives.iter().enumerate() {
            let path = format!("meshes[{mi}].primitives[{pi}]");
            let compressed = draco::decode(ctx, data, reader, p, &path)?;
            let imported = match compressed {
                Some(decoded) => {
                    reader.use_decoded(&path, decoded.accessors)?;
                    let faces = Faces {
                        vertex_count: decoded.vertex_count,
                        indices: decoded.indices,
                    };
                    let imported =
                        import_primitive(ctx, reader, p, &path, Some(faces), materials, warnings);
                    reader.forget_decoded();
                    imported?
                }
                None => import_primitive(ctx, reader, p, &path, None, materials, warnings)?,
            };
            if let Some(prim) = imported {
                primitives.push(prim);
            }
        }
        meshes.push(Mesh {
            name: m.name.clone(),
            primitives,
        });
    }
    Ok(meshes)
}

/// The triangle list a compressed primitive decodes to, for the vertices it decodes.
struct Faces {
    vertex_count: usize,
    indices: Vec<u32>,
}

fn import_primitive(
    ctx: &Ctx,
    reader: &mut Reader,
    p: &gltf::json::mesh::Primitive,
    path: &str,
    compressed: Option<Faces>,
    materials: &mut [Material],
    warnings: &mut Vec<Warning>,
) -> Res<Option<Primitive>> {
    let Checked::Valid(mode) = p.mode else {
        return bad(path, "invalid mode");
    };
    if !matches!(
        mode,
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        warnings.push(Warning::at(
            DiagnosticCode::NotExported,
            path.to_string(),
            format!("mode {mode:?} is not triangles; skipped"),
        ));
        return Ok(None);
    }
    let material = p.material.map(|m| m.value());
    if let Some(m) = material.filter(|&m| m >= materials.len()) {
        return dangling(path, format!("material {m} does not exist"));
    }
    note_variants(p, path, material, materials, warnings)?;

    let mut position = None;
    for (semantic, accessor) in &p.attributes {
        if semantic == &Checked::Valid(Semantic::Positions) {
            position = Some(accessor.value());
        }
    }
    let Some(position) = position else {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            path.to_string(),
            "no POSITION attribute; skipped",
        ));
        return Ok(None);
    };
    let vertex_count = reader
        .layout(position)
        .map_err(|e| e.referenced_from(&format!("{path}.attributes.POSITION")))?
        .count;
    if vertex_count as u64 > ctx.limits.max_vertices_per_primitive {
        return over_limit(
            path,
            format!(
                "{vertex_count} vertices exceed the limit of {}",
                ctx.limits.max_vertices_per_primitive
            ),
        );
    }
    let attr = Attr { path, vertex_count };
    let mut prim = Primitive {
        gltf_path: path.to_string(),
        positions: attr.vec::<3>(reader, "POSITION", position, &[Type::Vec3])?,
        material,
        ..Primitive::default()
    };
    let mut joints = BTreeMap::new();
    let mut weights = BTreeMap::new();
    for (semantic, accessor) in &p.attributes {
        let a = accessor.value();
        match semantic {
            Checked::Valid(Semantic::Positions) => {}
            Checked::Valid(Semantic::Normals) => {
                prim.normals = Some(attr.vec::<3>(reader, "NORMAL", a, &[Type::Vec3])?)
            }
            Checked::Valid(Semantic::Tangents) => {
                let mut t = attr.vec::<4>(reader, "TANGENT", a, &[Type::Vec4])?;
                for v in &mut t {
                    v[3] = if v[3] < 0.0 { -1.0 } else { 1.0 };
                }
                prim.tangents = Some(t);
            }
            Checked::Valid(Semantic::TexCoords(0)) => {
                prim.uv0 = Some(attr.vec::<2>(reader, "TEXCOORD_0", a, &[Type::Vec2])?)
            }
            Checked::Valid(Semantic::TexCoords(1)) => {
                prim.uv1 = Some(attr.vec::<2>(reader, "TEXCOORD_1", a, &[Type::Vec2])?)
            }
            Checked::Valid(Semantic::Colors(0)) => {
                prim.colors = Some(attr.color(reader, a)?);
            }
            Checked::Valid(Semantic::Joints(n)) => {
                joints.insert(*n, attr.joints(reader, &format!("JOINTS_{n}"), a)?);
            }
            Checked::Valid(Semantic::Weights(n)) => {
                let name = format!("WEIGHTS_{n}");
                weights.insert(*n, attr.vec::<4>(reader, &name, a, &[Type::Vec4])?);
            }
            Checked::Valid(other) => warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                path.to_string(),
                format!(
                    "attribute {} dropped (no runtime format holds it)",
                    semantic_name(other)
                ),
            )),
            Checked::Invalid => warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                path.to_string(),
                "unknown attribute dropped",
            )),
        }
    }
    pair_skin_sets(path, joints, weights, &mut prim, warnings);

    let (indices, indexed, mode) = match (compressed, p.indices) {
        // The stream's faces are triangles whatever the primitive's mode.
        (Some(faces), _) => {
            if faces.vertex_count != vertex_count {
                return bad(
                    path,
                    format!(
                        "the Draco stream decodes {} points but POSITION has {vertex_count}",
                        faces.vertex_count
                    ),
                );
            }
            (faces.indices, true, Mode::Triangles)
        }
        (None, Some(i)) => (attr.indices(reader, i.value())?, true, mode),
        (None, None) => ((0..vertex_count as u32).collect(), false, mode),
    };
    let (list, dropped) = to_triangle_list(mode, &indices);
    if dropped > 0 {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            path.to_string(),
            format!("{dropped} trailing indices do not form a triangle; dropped"),
        ));
    }
    prim.indices = list;
    prim.indexed = indexed;

    for (ti, target) in p.targets.iter().flatten().enumerate() {
        let read = |reader: &mut Reader, acc: Option<gltf::json::Index<_>>, name: &str| {
            acc.map(|a| {
                attr.vec::<3>(
                    reader,
                    &format!("targets[{ti}].{name}"),
                    a.value(),
                    &[Type::Vec3],
                )
            })
            .transpose()
        };
        prim.targets.push(MorphTarget {
            positions: read(reader, target.positions, "POSITION")?,
            normals: read(reader, target.normals, "NORMAL")?,
            tangents: read(reader, target.tangents, "TANGENT")?,
        });
    }
    Ok(Some(prim))
}

fn semantic_name(s: &Semantic) -> String {
    match s {
        Semantic::Extras(name) => name.clone(),
        Semantic::TexCoords(n) => format!("TEXCOORD_{n}"),
        Semantic::Colors(n) => format!("COLOR_{n}"),
        other => format!("{other:?}"),
    }
}

/// JOINTS_n and WEIGHTS_n only mean something together; sets are kept from 0 up to the
/// first index where either is missing.
fn pair_skin_sets(
    path: &str,
    mut joints: BTreeMap<u32, Vec<[u16; 4]>>,
    mut weights: BTreeMap<u32, Vec<[f32; 4]>>,
    prim: &mut Primitive,
    warnings: &mut Vec<Warning>,
) {
    let total = joints.len().max(weights.len());
    let mut n = 0u32;
    while let (Some(j), Some(w)) = (joints.remove(&n), weights.remove(&n)) {
        prim.joints.push(j);
        prim.weights.push(w);
        n += 1;
    }
    if (n as usize) < total {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            path.to_string(),
            format!("JOINTS/WEIGHTS sets from {n} on are unpaired or not contiguous; dropped"),
        ));
    }
}

/// Converts to a counter-clockwise triangle list following the glTF definitions of strips
/// (odd triangles swap their last two vertices) and fans (`{v[i+1], v[i+2], v[0]}`).
/// Degenerate triangles are kept: dropping them is a mesh optimisation, not import.
/// Returns the list and how many trailing indices of a list were left over.
fn to_triangle_list(mode: Mode, idx: &[u32]) -> (Vec<u32>, usize) {
    match mode {
        Mode::TriangleStrip => {
            let n = idx.len().saturating_sub(2);
            let mut out = Vec::with_capacity(n * 3);
            for i in 0..n {
                if i % 2 == 0 {
                    out.extend_from_slice(&[idx[i], idx[i + 1], idx[i + 2]]);
                } else {
                    out.extend_from_slice(&[idx[i], idx[i + 2], idx[i + 1]]);
                }
            }
            (out, 0)
        }
        Mode::TriangleFan => {
            let n = idx.len().saturating_sub(2);
            let mut out = Vec::with_capacity(n * 3);
            for i in 0..n {
                out.extend_from_slice(&[idx[i + 1], idx[i + 2], idx[0]]);
            }
            (out, 0)
        }
        _ => {
            let whole = idx.len() - idx.len() % 3;
            (idx[..whole].to_vec(), idx.len() - whole)
        }
    }
}

fn note_variants(
    p: &gltf::json::mesh::Primitive,
    path: &str,
    material: Option<usize>,
    materials: &mut [Material],
    warnings: &mut Vec<Warning>,
) -> Res<()> {
    let Some(variants) = p
        .extensions
        .as_ref()
        .and_then(|e| e.khr_materials_variants.as_ref())
    else {
        return Ok(());
    };
    let mut touched: Vec<usize> = material.into_iter().collect();
    for (k, mapping) in variants.mappings.iter().enumerate() {
        let m = mapping.material as usize;
        if m >= materials.len() {
            return dangling(
                format!("{path}.extensions.KHR_materials_variants.mappings[{k}]"),
                format!("material {m} does not exist"),
            );
        }
        touched.push(m);
    }
    for m in touched {
        let list = &mut materials[m].unsupported_extensions;
        if !list.iter().any(|e| e == "KHR_materials_variants") {
            list.push("KHR_materials_variants".into());
        }
    }
    warnings.push(Warning::at(
        DiagnosticCode::NotExported,
        path.to_string(),
        "KHR_materials_variants mappings ignored; the default material is used",
    ));
    Ok(())
}

struct Attr<'p> {
    path: &'p str,
    vertex_count: usize,
}

impl Attr<'_> {
    /// An error about the accessor itself, with the attribute that referenced it.
    fn referenced(&self, e: super::Bad, name: &str) -> super::Bad {
        e.referenced_from(&format!("{}.attributes.{name}", self.path))
    }

    fn check(&self, name: &str, accessor: usize, layout: &Layout, types: &[Type]) -> Res<()> {
        let where_ = format!("{}.attributes.{name} (accessors[{accessor}])", self.path);
        if !types.contains(&layout.ty) {
            return bad(where_, format!("type {:?} is not allowed", layout.ty));
        }
        if layout.count != self.vertex_count {
            return bad(
                where_,
                format!(
                    "count {} differs from the POSITION count {}",
                    layout.count, self.vertex_count
                ),
            );
        }
        Ok(())
    }

    fn vec<const N: usize>(
        &self,
        reader: &mut Reader,
        name: &str,
        accessor: usize,
        types: &[Type],
    ) -> Res<Vec<[f32; N]>> {
        let layout = reader
            .layout(accessor)
            .map_err(|e| self.referenced(e, name))?;
        self.check(name, accessor, &layout, types)?;
        let (_, flat) = reader.floats(accessor)?;
        if flat.iter().any(|v| !v.is_finite()) {
            return bad(
                format!("{}.attributes.{name} (accessors[{accessor}])", self.path),
                "contains NaN or infinite values",
            );
        }
        Ok(group::<N>(&flat))
    }

    fn color(&self, reader: &mut Reader, accessor: usize) -> Res<Vec<[f32; 4]>> {
        let layout = reader
            .layout(accessor)
            .map_err(|e| self.referenced(e, "COLOR_0"))?;
        self.check("COLOR_0", accessor, &layout, &[Type::Vec3, Type::Vec4])?;
        if layout.ty == Type::Vec3 {
            let rgb = self.vec::<3>(reader, "COLOR_0", accessor, &[Type::Vec3])?;
            Ok(rgb.into_iter().map(|[r, g, b]| [r, g, b, 1.0]).collect())
        } else {
            self.vec::<4>(reader, "COLOR_0", accessor, &[Type::Vec4])
        }
    }

    fn joints(&self, reader: &mut Reader, name: &str, accessor: usize) -> Res<Vec<[u16; 4]>> {
        let layout = reader
            .layout(accessor)
            .map_err(|e| self.referenced(e, name))?;
        self.check(name, accessor, &layout, &[Type::Vec4])?;
        let (_, flat) = reader.integers(accessor)?;
        let mut out = Vec::with_capacity(flat.len() / 4);
        for c in flat.chunks_exact(4) {
            let mut j = [0u16; 4];
            for (dst, &src) in j.iter_mut().zip(c) {
                *dst = u16::try_from(src).map_err(|_| super::Bad {
                    path: format!("{}.attributes.{name} (accessors[{accessor}])", self.path),
                    reason: format!("joint index {src} does not fit 16 bits"),
                    code: crate::code::DiagnosticCode::InvalidSource,
                })?;
            }
            out.push(j);
        }
        Ok(out)
    }

    fn indices(&self, reader: &mut Reader, accessor: usize) -> Res<Vec<u32>> {
        let where_ = format!("{}.indices (accessors[{accessor}])", self.path);
        let layout = reader
            .layout(accessor)
            .map_err(|e| e.referenced_from(&format!("{}.indices", self.path)))?;
        if layout.ty != Type::Scalar
            || !matches!(
                layout.component,
                ComponentType::U8 | ComponentType::U16 | ComponentType::U32
            )
        {
            return bad(where_, "indices must be SCALAR unsigned integers");
        }
        // Checked before decoding: an index accessor without a bufferView is zeros of
        // any declared count.
        let most = reader.limits().max_indices_per_primitive;
        if layout.count as u64 > most {
            return over_limit(
                where_,
                format!("{} indices exceed the limit of {most}", layout.count),
            );
        }
        let (_, idx) = reader.integers(accessor)?;
        if let Some(&i) = idx.iter().find(|&&i| i as usize >= self.vertex_count) {
            return Err(super::Bad {
                path: where_,
                reason: format!(
                    "index {i} is out of range: not below the vertex count {}",
                    self.vertex_count
                ),
                code: crate::code::DiagnosticCode::IndexOutOfRange,
            });
        }
        Ok(idx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_alternates_winding() {
        let (list, _) = to_triangle_list(Mode::TriangleStrip, &[0, 1, 2, 3, 4]);
        assert_eq!(list, vec![0, 1, 2, 1, 3, 2, 2, 3, 4]);
    }

    #[test]
    fn fan_pivots_on_first_vertex() {
        let (list, _) = to_triangle_list(Mode::TriangleFan, &[0, 1, 2, 3]);
        assert_eq!(list, vec![1, 2, 0, 2, 3, 0]);
    }

    #[test]
    fn list_drops_trailing_partial_triangle() {
        assert_eq!(
            to_triangle_list(Mode::Triangles, &[0, 1, 2, 0, 2]),
            (vec![0, 1, 2], 2)
        );
        assert!(to_triangle_list(Mode::TriangleStrip, &[0, 1]).0.is_empty());
    }
}
