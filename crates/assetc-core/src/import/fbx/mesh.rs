//! Meshes: one [`Mesh`] per FBX mesh, one [`Primitive`] per material it uses (ufbx's
//! material parts). Polygons are triangulated by ufbx; face corners that agree on every
//! attribute (control point, normal, UVs, colour) become one vertex, in first-use order.

use super::super::gltf::{bad, over_limit, Res};
use super::morph::{self, ControlPointTarget};
use super::skin::{self, MAX_INFLUENCES};
use super::{names, Ctx};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{Mesh, MorphTarget, Primitive};
use std::collections::HashMap;

pub fn import_meshes(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Mesh>> {
    let mut meshes = Vec::with_capacity(ctx.fbx.meshes.len());
    for (i, m) in ctx.fbx.meshes.iter().enumerate() {
        let path = names::element_path("meshes", &m.element);
        if m.element.typed_id as usize != i {
            return bad(path, "meshes are numbered out of order");
        }
        meshes.push(import_mesh(ctx, m, &path, warnings)?);
    }
    Ok(meshes)
}

/// What every primitive of one mesh reads besides the corners.
struct Shared<'a> {
    mesh: &'a ufbx::Mesh,
    skin: Option<&'a ufbx::SkinDeformer>,
    /// JOINTS_n/WEIGHTS_n sets per vertex (0 without a skin).
    skin_sets: usize,
    targets: Vec<ControlPointTarget>,
}

fn import_mesh(ctx: &Ctx, mesh: &ufbx::Mesh, path: &str, warnings: &mut Vec<Warning>) -> Res<Mesh> {
    if mesh.skin_deformers.len() > 1 {
        warnings.push(Warning::at(
            DiagnosticCode::NotExported,
            path.to_string(),
            format!(
                "{} skin deformers; only the first is used",
                mesh.skin_deformers.len()
            ),
        ));
    }
    if mesh.uv_sets.len() > 2 {
        warnings.push(Warning::at(
            DiagnosticCode::NotExported,
            path.to_string(),
            format!(
                "{} UV sets; the first two are kept (TEXCOORD_0, TEXCOORD_1)",
                mesh.uv_sets.len()
            ),
        ));
    }
    let skin = mesh.skin_deformers.first().map(|s| &**s);
    let skin_sets = skin.map_or(0, |s| {
        s.max_weights_per_vertex
            .clamp(1, MAX_INFLUENCES)
            .div_ceil(4)
    });
    let shared = Shared {
        mesh,
        skin,
        skin_sets,
        targets: morph::control_point_targets(ctx, mesh, path)?,
    };
    let mut primitives = Vec::with_capacity(mesh.material_parts.len());
    for part in mesh.material_parts.iter() {
        if part.num_triangles == 0 {
            if part.num_faces > 0 {
                warnings.push(Warning::at(
                    DiagnosticCode::NotExported,
                    format!("{path}.materials[{}]", part.index),
                    format!(
                        "{} point or line faces and no polygon; skipped",
                        part.num_faces
                    ),
                ));
            }
            continue;
        }
        let ppath = format!("{path}.materials[{}]", part.index);
        let material = match mesh.materials.get(part.index as usize) {
            Some(m) => Some(m.element.typed_id as usize),
            None if mesh.materials.is_empty() => None,
            None => {
                return bad(
                    ppath,
                    format!("material slot {} does not exist", part.index),
                )
            }
        };
        primitives.push(import_part(ctx, &shared, part, ppath, material)?);
    }
    let skipped = mesh.num_point_faces + mesh.num_line_faces;
    if skipped > 0 && !primitives.is_empty() {
        warnings.push(Warning::at(
            DiagnosticCode::NotExported,
            path.to_string(),
            format!("{skipped} point or line faces skipped"),
        ));
    }
    Ok(Mesh {
        name: names::name(&mesh.element),
        primitives,
    })
}

/// Attribute values of one corner, as bits: the key that merges equal corners.
type CornerKey = [u32; 12];

fn import_part(
    ctx: &Ctx,
    shared: &Shared,
    part: &ufbx::MeshPart,
    gltf_path: String,
    material: Option<usize>,
) -> Res<Primitive> {
    let mesh = shared.mesh;
    let limits = &ctx.limits;
    let index_count = (part.num_triangles as u64).saturating_mul(3);
    if index_count > limits.max_indices_per_primitive {
        return over_limit(
            gltf_path,
            format!(
                "{} triangles ({index_count} indices) exceed the limit of {} indices",
                part.num_triangles, limits.max_indices_per_primitive
            ),
        );
    }
    let normals = mesh.vertex_normal.exists.then_some(&mesh.vertex_normal);
    let uv0 = mesh
        .uv_sets
        .first()
        .map(|s| &s.vertex_uv)
        .filter(|a| a.exists);
    let uv1 = mesh
        .uv_sets
        .get(1)
        .map(|s| &s.vertex_uv)
        .filter(|a| a.exists);
    let colors = mesh.vertex_color.exists.then_some(&mesh.vertex_color);

    let mut p = Primitive {
        gltf_path,
        indexed: true,
        material,
        normals: normals.map(|_| Vec::new()),
        uv0: uv0.map(|_| Vec::new()),
        uv1: uv1.map(|_| Vec::new()),
        colors: colors.map(|_| Vec::new()),
        joints: vec![Vec::new(); shared.skin_sets],
        weights: vec![Vec::new(); shared.skin_sets],
        targets: shared
            .targets
            .iter()
            .map(|t| MorphTarget {
                positions: Some(Vec::new()),
                normals: t.normals.as_ref().map(|_| Vec::new()),
                tangents: None,
            })
            .collect(),
        ..Default::default()
    };
    p.indices.reserve(index_count as usize);
    let mut seen: HashMap<CornerKey, u32> = HashMap::new();
    // ufbx writes at most `max_face_triangles` triangles per face.
    let mut tri = vec![0u32; mesh.max_face_triangles.saturating_mul(3).max(3)];
    for &f in part.face_indices.iter() {
        let Some(&face) = mesh.faces.get(f as usize) else {
            return bad(&p.gltf_path, format!("face {f} does not exist"));
        };
        if face.num_indices < 3 {
            continue;
        }
        let needed = (face.num_indices as usize - 2) * 3;
        if needed > tri.len() {
            return bad(
                &p.gltf_path,
                format!("face {f} has more corners than the mesh declares"),
            );
        }
        let n = ufbx::triangulate_face(&mut tri, mesh, face) as usize;
        for &corner in tri.get(..n * 3).unwrap_or(&[]) {
            let corner = corner as usize;
            let cp = *get(
                &mesh.vertex_position.indices,
                corner,
                &p.gltf_path,
                "position index",
            )? as usize;
            let pos = *get(&mesh.vertex_position.values, cp, &p.gltf_path, "position")?;
            let mut key: CornerKey = [0; 12];
            key[0] = cp as u32;
            let normal = match normals {
                Some(a) => Some(value(
                    &a.values,
                    &a.indices,
                    corner,
                    &p.gltf_path,
                    "normal",
                )?),
                None => None,
            };
            let uv_a = match uv0 {
                Some(a) => Some(value(
                    &a.values,
                    &a.indices,
                    corner,
                    &p.gltf_path,
                    "UV set 0",
                )?),
                None => None,
            };
            let uv_b = match uv1 {
                Some(a) => Some(value(
                    &a.values,
                    &a.indices,
                    corner,
                    &p.gltf_path,
                    "UV set 1",
                )?),
                None => None,
            };
            let color = match colors {
                Some(a) => Some(value(
                    &a.values,
                    &a.indices,
                    corner,
                    &p.gltf_path,
                    "colour",
                )?),
                None => None,
            };
            // FBX UVs have V up from the image's bottom row; glTF's V runs down from its
            // top row.
            let normal = normal.map(|n| [n.x as f32, n.y as f32, n.z as f32]);
            let uv_a = uv_a.map(|t| [t.x as f32, 1.0 - t.y as f32]);
            let uv_b = uv_b.map(|t| [t.x as f32, 1.0 - t.y as f32]);
            let color = color.map(|c| [c.x as f32, c.y as f32, c.z as f32, c.w as f32]);
            let bits = normal
                .iter()
                .flatten()
                .chain(uv_a.iter().flatten())
                .chain(uv_b.iter().flatten())
                .chain(color.iter().flatten())
                .map(|v| v.to_bits());
            for (slot, b) in key[1..].iter_mut().zip(bits) {
                *slot = b;
            }
            let next = p.positions.len() as u32;
            let index = *seen.entry(key).or_insert(next);
            if index == next {
                if p.positions.len() as u64 >= limits.max_vertices_per_primitive {
                    return over_limit(
                        &p.gltf_path,
                        format!(
                            "more than {} vertices (distinct face corners)",
                            limits.max_vertices_per_primitive
                        ),
                    );
                }
                p.positions.push([pos.x as f32, pos.y as f32, pos.z as f32]);
                push(&mut p.normals, normal);
                push(&mut p.uv0, uv_a);
                push(&mut p.uv1, uv_b);
                push(&mut p.colors, color);
                if let Some(deformer) = shared.skin {
                    let (j, w) = skin::influences(deformer, cp, shared.skin_sets, &p.gltf_path)?;
                    for (set, (j, w)) in j.into_iter().zip(w).enumerate() {
                        p.joints[set].push(j);
                        p.weights[set].push(w);
                    }
                }
                for (target, source) in p.targets.iter_mut().zip(&shared.targets) {
                    push(&mut target.positions, source.positions.get(cp).copied());
                    if let Some(normals) = &source.normals {
                        push(&mut target.normals, normals.get(cp).copied());
                    }
                }
            }
            p.indices.push(index);
        }
    }
    Ok(p)
}

fn push<T>(list: &mut Option<Vec<T>>, value: Option<T>) {
    if let (Some(list), Some(value)) = (list.as_mut(), value) {
        list.push(value);
    }
}

fn get<'a, T>(list: &'a [T], i: usize, path: &str, what: &str) -> Res<&'a T> {
    match list.get(i) {
        Some(v) => Ok(v),
        None => bad(
            path,
            format!("{what} {i} is past the end of its list ({})", list.len()),
        ),
    }
}

/// A vertex attribute's value at a face corner (through its index list).
fn value<T: Copy>(values: &[T], indices: &[u32], corner: usize, path: &str, what: &str) -> Res<T> {
    let i = *get(indices, corner, path, &format!("{what} index"))? as usize;
    Ok(*get(values, i, path, what)?)
}
