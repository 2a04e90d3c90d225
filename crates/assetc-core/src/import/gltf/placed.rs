//! What nodes place besides meshes: `KHR_lights_punctual` lights, cameras, and the
//! initial morph weights of mesh instances. Only targets that keep a hierarchy (Qt) use
//! them; a bad light or camera is dropped with a warning, since no geometry depends on it.

use super::Ctx;
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{Camera, Light, LightKind, NodeWeights, Projection};
use gltf::json;
use gltf::json::validation::Checked;
use serde_json::Value;

/// Lights, cameras and morph weights of every node, in node order.
pub fn import_placed(
    ctx: &Ctx,
    warnings: &mut Vec<Warning>,
) -> (Vec<Light>, Vec<Camera>, Vec<NodeWeights>) {
    let root = ctx.root;
    let light_defs: &[Value] = root
        .extensions
        .as_ref()
        .and_then(|e| e.others.get("KHR_lights_punctual"))
        .and_then(|l| l.get("lights"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let (mut lights, mut cameras, mut weights) = (Vec::new(), Vec::new(), Vec::new());
    for (i, n) in root.nodes.iter().enumerate() {
        let path = format!("nodes[{i}]");
        let light_index = n
            .extensions
            .as_ref()
            .and_then(|e| e.others.get("KHR_lights_punctual"))
            .and_then(|l| l.get("light"));
        if let Some(index) = light_index {
            let def = index
                .as_u64()
                .and_then(|l| usize::try_from(l).ok())
                .and_then(|l| light_defs.get(l));
            match def.map(|d| light(i, d)) {
                Some(Ok(l)) => lights.push(l),
                Some(Err(reason)) => warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    path.to_string(),
                    format!("KHR_lights_punctual light {index} {reason}; light dropped"),
                )),
                None => warnings.push(Warning::at(
                    DiagnosticCode::DanglingReference,
                    path.to_string(),
                    format!("KHR_lights_punctual light {index} does not exist; light dropped"),
                )),
            }
        }
        if let Some(c) = n.camera.map(|c| c.value()) {
            match root.cameras.get(c).map(camera) {
                Some(Ok(projection)) => cameras.push(Camera {
                    node: i,
                    name: root.cameras[c].name.clone(),
                    projection,
                }),
                Some(Err(reason)) => warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    path.to_string(),
                    format!("cameras[{c}] {reason}; camera dropped"),
                )),
                None => warnings.push(Warning::at(
                    DiagnosticCode::DanglingReference,
                    path.to_string(),
                    format!("camera {c} does not exist; camera dropped"),
                )),
            }
        }
        let mesh_weights = n
            .mesh
            .and_then(|m| root.meshes.get(m.value()))
            .and_then(|m| m.weights.as_ref());
        if let Some(w) = n.weights.as_ref().or(mesh_weights) {
            if w.iter().all(|f| f.is_finite()) {
                weights.push(NodeWeights {
                    node: i,
                    weights: w.clone(),
                });
            } else {
                warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    path.to_string(),
                    "morph weights are not finite; ignored",
                ));
            }
        }
    }
    (lights, cameras, weights)
}

/// Why a light or camera is dropped, worded to follow its name ("cameras[2] has ...").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Unusable {
    #[error("has a {0} that is not a finite number")]
    NotFinite(&'static str),
    /// The type as JSON gave it (`Debug` of the string, `None` when absent).
    #[error("has an unknown type {0:?}")]
    UnknownType(Option<String>),
    #[error("has a color that is not 3 finite numbers")]
    Color,
    #[error("has a perspective projection that is not usable")]
    Perspective,
    #[error("has an orthographic projection that is not finite")]
    Orthographic,
    #[error("has no projection matching its type")]
    NoProjection,
}

fn number(v: &Value, key: &'static str) -> Result<Option<f32>, Unusable> {
    match v.get(key) {
        None => Ok(None),
        Some(x) => match x.as_f64().map(|f| f as f32) {
            Some(f) if f.is_finite() => Ok(Some(f)),
            _ => Err(Unusable::NotFinite(key)),
        },
    }
}

fn light(node: usize, def: &Value) -> Result<Light, Unusable> {
    let kind = match def.get("type").and_then(Value::as_str) {
        Some("directional") => LightKind::Directional,
        Some("point") => LightKind::Point,
        Some("spot") => {
            let spot = def.get("spot").unwrap_or(&Value::Null);
            LightKind::Spot {
                inner_cone: number(spot, "innerConeAngle")?.unwrap_or(0.0),
                outer_cone: number(spot, "outerConeAngle")?.unwrap_or(std::f32::consts::FRAC_PI_4),
            }
        }
        other => return Err(Unusable::UnknownType(other.map(str::to_owned))),
    };
    let mut color = [1.0f32; 3];
    if let Some(c) = def.get("color") {
        let values: Option<Vec<f32>> = c
            .as_array()
            .map(|a| a.iter().map(|x| x.as_f64().map(|f| f as f32)).collect())
            .and_then(|v: Option<Vec<f32>>| v);
        match values.as_deref() {
            Some(&[r, g, b]) if [r, g, b].iter().all(|f| f.is_finite()) => color = [r, g, b],
            _ => return Err(Unusable::Color),
        }
    }
    Ok(Light {
        node,
        name: def.get("name").and_then(Value::as_str).map(str::to_string),
        kind,
        color,
        intensity: number(def, "intensity")?.unwrap_or(1.0),
        range: number(def, "range")?.filter(|r| *r > 0.0),
    })
}

fn camera(c: &json::Camera) -> Result<Projection, Unusable> {
    let finite = |fs: &[f32]| fs.iter().all(|f| f.is_finite());
    match (&c.type_, &c.perspective, &c.orthographic) {
        (Checked::Valid(json::camera::Type::Perspective), Some(p), _) => {
            if !finite(&[p.yfov, p.znear]) || p.yfov <= 0.0 {
                return Err(Unusable::Perspective);
            }
            Ok(Projection::Perspective {
                yfov: p.yfov,
                aspect_ratio: p.aspect_ratio.filter(|a| a.is_finite() && *a > 0.0),
                znear: p.znear,
                zfar: p.zfar.filter(|f| f.is_finite() && *f > p.znear),
            })
        }
        (Checked::Valid(json::camera::Type::Orthographic), _, Some(o)) => {
            if !finite(&[o.xmag, o.ymag, o.znear, o.zfar]) {
                return Err(Unusable::Orthographic);
            }
            Ok(Projection::Orthographic {
                xmag: o.xmag,
                ymag: o.ymag,
                znear: o.znear,
                zfar: o.zfar,
            })
        }
        _ => Err(Unusable::NoProjection),
    }
}
