//! `EXT_mesh_gpu_instancing`: a node drawing its mesh once per instance transform. The
//! runtime formats hold static geometry, so each instance becomes a child node of its own
//! (the instance's translation, rotation and scale as its local transform, the node's
//! mesh) and the node keeps none: the instances are then baked like any other node's mesh
//! (`bake_transforms`), one primitive instance per instance transform. The extension puts
//! the node's own transform after the instance's, which is what a child's world matrix is.

use super::accessor::{group, Reader};
use super::{bad, over_limit, Ctx, Res};
use crate::code::{DiagnosticCode, Warning};
use crate::scene::{Mesh, Node};
use glam::{Mat4, Quat, Vec3};
use gltf::json::accessor::Type;

pub const EXTENSION: &str = "EXT_mesh_gpu_instancing";

/// The attributes read; others (`_ID`, `_COLOR`: per-instance data of the application)
/// have nowhere to go in static geometry.
const TRS: [&str; 3] = ["TRANSLATION", "ROTATION", "SCALE"];

/// Replaces each instanced node's mesh by one child node per instance. Runs before world
/// matrices are computed, after the meshes are imported (their triangle counts bound
/// what the copies cost).
pub fn expand(
    ctx: &Ctx,
    reader: &mut Reader,
    nodes: &mut Vec<Node>,
    meshes: &[Mesh],
    warnings: &mut Vec<Warning>,
) -> Res<()> {
    let mut instances_total: u64 = 0;
    let mut triangles_total: u64 = 0;
    for (n, json_node) in ctx.root.nodes.iter().enumerate() {
        let Some(ext) = json_node
            .extensions
            .as_ref()
            .and_then(|e| e.others.get(EXTENSION))
        else {
            continue;
        };
        let path = format!("nodes[{n}].extensions.{EXTENSION}");
        let Some(mesh) = nodes[n].mesh else {
            warnings.push(Warning::at(
                DiagnosticCode::Repaired,
                path,
                "the node has no mesh to instance; ignored",
            ));
            continue;
        };
        let transforms = read_instances(ctx, reader, ext, &path, warnings)?;
        let triangles_each: u64 = meshes.get(mesh).map_or(0, |m| {
            m.primitives
                .iter()
                .map(|p| p.indices.len() as u64 / 3)
                .sum()
        });
        instances_total += transforms.len() as u64;
        triangles_total += triangles_each * transforms.len() as u64;
        if instances_total > ctx.limits.max_instances {
            return over_limit(
                path,
                format!(
                    "{} instances in the file exceed the limit of {}",
                    instances_total, ctx.limits.max_instances
                ),
            );
        }
        if triangles_total > ctx.limits.max_instanced_triangles {
            return over_limit(
                path,
                format!(
                    "{} instances of meshes[{mesh}] ({triangles_each} triangles each) bring the \
                     instanced triangles baked to {triangles_total}, more than the limit of {}",
                    transforms.len(),
                    ctx.limits.max_instanced_triangles
                ),
            );
        }
        let parent_name = nodes[n].name.clone();
        let skin = nodes[n].skin;
        nodes[n].mesh = None;
        for (k, (translation, rotation, scale)) in transforms.into_iter().enumerate() {
            let child = nodes.len();
            let local_matrix = Mat4::from_scale_rotation_translation(scale, rotation, translation);
            nodes.push(Node {
                name: parent_name.as_ref().map(|name| format!("{name}.{k}")),
                parent: Some(n),
                children: Vec::new(),
                translation,
                rotation,
                scale,
                local_matrix,
                world_matrix: local_matrix,
                mesh: Some(mesh),
                skin,
                in_scene: false,
            });
            nodes[n].children.push(child);
        }
    }
    Ok(())
}

type Trs = (Vec3, Quat, Vec3);

/// The instances' transforms; an attribute left out is identity for every instance.
fn read_instances(
    ctx: &Ctx,
    reader: &mut Reader,
    ext: &serde_json::Value,
    path: &str,
    warnings: &mut Vec<Warning>,
) -> Res<Vec<Trs>> {
    let Some(attributes) = ext.get("attributes").and_then(serde_json::Value::as_object) else {
        return bad(path, "has no attributes object");
    };
    for name in attributes.keys() {
        if !TRS.contains(&name.as_str()) {
            warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                format!("{path}.attributes.{name}"),
                "per-instance attribute dropped (static geometry holds only the transforms)",
            ));
        }
    }
    let mut count: Option<usize> = None;
    let mut read = |name: &str, ty: Type| -> Res<Option<Vec<f32>>> {
        let Some(value) = attributes.get(name) else {
            return Ok(None);
        };
        let where_ = format!("{path}.attributes.{name}");
        let Some(accessor) = value.as_u64().and_then(|a| usize::try_from(a).ok()) else {
            return bad(where_, "is not an accessor index");
        };
        let layout = reader
            .layout(accessor)
            .map_err(|e| e.referenced_from(&where_))?;
        if layout.ty != ty {
            return bad(
                format!("{where_} (accessors[{accessor}])"),
                format!("type {:?} is not {ty:?}", layout.ty),
            );
        }
        // Before decoding: an accessor without a bufferView may declare any count.
        if layout.count as u64 > ctx.limits.max_instances {
            return over_limit(
                format!("{where_} (accessors[{accessor}])"),
                format!(
                    "{} instances exceed the limit of {}",
                    layout.count, ctx.limits.max_instances
                ),
            );
        }
        match count {
            Some(c) if c != layout.count => {
                return bad(
                    format!("{where_} (accessors[{accessor}])"),
                    format!(
                        "count {} differs from the other attributes' {c}",
                        layout.count
                    ),
                )
            }
            _ => count = Some(layout.count),
        }
        let (_, values) = reader
            .floats(accessor)
            .map_err(|e| e.referenced_from(&where_))?;
        if values.iter().any(|v| !v.is_finite()) {
            return bad(
                format!("{where_} (accessors[{accessor}])"),
                "contains NaN or infinite values",
            );
        }
        Ok(Some(values))
    };
    let translations = read("TRANSLATION", Type::Vec3)?;
    let rotations = read("ROTATION", Type::Vec4)?;
    let scales = read("SCALE", Type::Vec3)?;
    let Some(count) = count else {
        return bad(
            path,
            "names none of TRANSLATION, ROTATION and SCALE: no instance to place",
        );
    };
    let translations = translations.map(|t| group::<3>(&t));
    let rotations = rotations.map(|r| group::<4>(&r));
    let scales = scales.map(|s| group::<3>(&s));
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let t = translations
            .as_ref()
            .map_or(Vec3::ZERO, |t| Vec3::from(t[i]));
        let s = scales.as_ref().map_or(Vec3::ONE, |s| Vec3::from(s[i]));
        let r = match rotations.as_ref() {
            None => Quat::IDENTITY,
            Some(r) => {
                let q = Quat::from_array(r[i]);
                let len = q.length();
                if len <= 1e-6 {
                    return bad(
                        format!("{path}.attributes.ROTATION"),
                        format!("instance {i} has a zero rotation"),
                    );
                }
                q / len
            }
        };
        out.push((t, r, s));
    }
    Ok(out)
}
