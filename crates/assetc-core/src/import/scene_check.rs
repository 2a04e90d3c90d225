//! The last import stage: the guarantees every later stage may rely on, checked once on
//! the finished [`Scene`] before any pipeline stage, target or C library sees it.
//!
//! Pipeline code indexes attribute arrays by vertex index and hands positions to
//! meshoptimizer (C++), whose cluster-bounds code asserts on the squares of coordinate
//! differences: a finite but huge position (1e25) aborts the whole process with SIGABRT
//! in builds that keep C asserts. So, for every primitive reachable from the scene:
//! - every attribute array has one entry per vertex, and every index names a vertex;
//! - the index count is a whole number of triangles;
//! - every value is finite (positions, normals, tangents, UVs, colours, weights, morph
//!   displacements), and so is the node's world transform;
//! - positions, with the node's world transform applied, stay within
//!   [`MAX_COORDINATE`] of the origin.
//!
//! Degenerate triangles (a repeated index, zero area) are valid glTF and stay: the
//! pipeline keeps source triangle counts, meshoptimizer handles them, and tangent
//! generation falls back on them.

use crate::code::DiagnosticCode;
use crate::pipeline::geometry::first_index_out_of_range;
use crate::scene::{Primitive, Scene};
use glam::{DVec3, Mat4, Vec3};

/// Largest coordinate magnitude accepted after the world transform. The square of the
/// distance between two such points (about 4·3·1e32) stays far inside f32's range
/// (3.4e38), which the cluster-bounds and simplifier code in meshoptimizer relies on;
/// real content (a planet in metres is ~1e7) is many orders of magnitude smaller.
pub const MAX_COORDINATE: f64 = 1e16;

/// What is wrong and where, before the importer attaches the file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneProblem {
    /// `meshes[3].primitives[0]` or `nodes[2]`.
    pub gltf_path: String,
    pub reason: String,
    pub code: DiagnosticCode,
}

/// Checks every drawable primitive of `scene`; the first problem fails the source.
pub fn check_scene(scene: &Scene) -> Result<(), SceneProblem> {
    // Each primitive's own data once, then its bounds under every node that draws it.
    let mut checked = std::collections::HashSet::new();
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        let fail = |(code, reason): (DiagnosticCode, String)| SceneProblem {
            gltf_path: prim.gltf_path.clone(),
            reason,
            code,
        };
        if checked.insert((inst.mesh, inst.primitive)) {
            check_primitive(prim)
                .and_then(|()| check_indices(prim))
                .map_err(|e| fail((e.code(), e.to_string())))?;
        }
        let world = scene.nodes[inst.node].world_matrix;
        if !world.is_finite() {
            return Err(SceneProblem {
                gltf_path: format!("nodes[{}]", inst.node),
                reason: "the world transform (product of the node transforms from the root) \
                         is not finite"
                    .into(),
                code: DiagnosticCode::InvalidSource,
            });
        }
        if let Some(reach) = world_reach(prim, world) {
            if reach > MAX_COORDINATE {
                return Err(fail((
                    DiagnosticCode::ResourceLimit,
                    format!(
                        "positions reach {reach:.3e} from the origin under nodes[{}]'s world \
                         transform; at most {MAX_COORDINATE:.0e} is accepted",
                        inst.node
                    ),
                )));
            }
        }
    }
    Ok(())
}

/// What is wrong with one primitive's own data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrimitiveProblem {
    #[error("{attribute} has {len} entries for {vertices} vertices")]
    Length {
        attribute: String,
        len: usize,
        vertices: usize,
    },
    #[error("{attribute} holds a non-finite value (component {component})")]
    NonFinite { attribute: String, component: usize },
    #[error("{0} indices are not a whole number of triangles")]
    PartialTriangle(usize),
    #[error("index {index} is out of range for {vertices} vertices")]
    IndexOutOfRange { index: u32, vertices: usize },
}

impl PrimitiveProblem {
    pub fn code(&self) -> DiagnosticCode {
        match self {
            Self::IndexOutOfRange { .. } => DiagnosticCode::IndexOutOfRange,
            _ => DiagnosticCode::InvalidSource,
        }
    }
}

fn check_primitive(p: &Primitive) -> Result<(), PrimitiveProblem> {
    let n = p.positions.len();
    let same_len = |name: &str, len: usize| {
        if len == n {
            Ok(())
        } else {
            Err(PrimitiveProblem::Length {
                attribute: name.to_owned(),
                len,
                vertices: n,
            })
        }
    };
    // Whole-slice folds first (vectorised; a 1M-triangle field's streams are millions of
    // values, checked on one core before its stages start), the position only on failure.
    let finite = |name: &str, values: &[f32]| {
        if values.iter().fold(true, |ok, v| ok & v.is_finite()) {
            return Ok(());
        }
        match values.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(i) => Err(PrimitiveProblem::NonFinite {
                attribute: name.to_owned(),
                component: i,
            }),
        }
    };
    finite("POSITION", p.positions.as_flattened())?;
    if let Some(v) = &p.normals {
        same_len("NORMAL", v.len())?;
        finite("NORMAL", v.as_flattened())?;
    }
    if let Some(v) = &p.tangents {
        same_len("TANGENT", v.len())?;
        finite("TANGENT", v.as_flattened())?;
    }
    for (name, set) in [("TEXCOORD_0", &p.uv0), ("TEXCOORD_1", &p.uv1)] {
        if let Some(v) = set {
            same_len(name, v.len())?;
            finite(name, v.as_flattened())?;
        }
    }
    if let Some(v) = &p.colors {
        same_len("COLOR_0", v.len())?;
        finite("COLOR_0", v.as_flattened())?;
    }
    for (i, v) in p.joints.iter().enumerate() {
        same_len(&format!("JOINTS_{i}"), v.len())?;
    }
    for (i, v) in p.weights.iter().enumerate() {
        let name = format!("WEIGHTS_{i}");
        same_len(&name, v.len())?;
        finite(&name, v.as_flattened())?;
    }
    for (t, target) in p.targets.iter().enumerate() {
        let name = format!("targets[{t}]");
        for (attr, len, values) in [
            (
                "POSITION",
                target.positions.as_ref().map(Vec::len),
                target.positions.as_ref().map(|v| v.as_flattened()),
            ),
            (
                "NORMAL",
                target.normals.as_ref().map(Vec::len),
                target.normals.as_ref().map(|v| v.as_flattened()),
            ),
            (
                "TANGENT",
                target.tangents.as_ref().map(Vec::len),
                target.tangents.as_ref().map(|v| v.as_flattened()),
            ),
        ] {
            if let (Some(len), Some(values)) = (len, values) {
                same_len(&format!("{name}.{attr}"), len)?;
                finite(&format!("{name}.{attr}"), values)?;
            }
        }
    }
    if !p.indices.len().is_multiple_of(3) {
        return Err(PrimitiveProblem::PartialTriangle(p.indices.len()));
    }
    Ok(())
}

fn check_indices(p: &Primitive) -> Result<(), PrimitiveProblem> {
    let n = p.positions.len();
    match first_index_out_of_range(&p.indices, n) {
        Some(index) => Err(PrimitiveProblem::IndexOutOfRange { index, vertices: n }),
        None => Ok(()),
    }
}

/// The largest coordinate magnitude of the primitive's positions under `world`, from the
/// corners of its local bounding box (an affine map sends the box's hull onto the points'
/// hull, so no point lies further out), in f64 so that the answer itself cannot overflow.
/// `None` for a primitive without positions.
fn world_reach(p: &Primitive, world: Mat4) -> Option<f64> {
    // The box in f32, then widened: f32 to f64 is exact and keeps the order, so the
    // corners are those an f64 fold would find (and the f32 fold vectorises).
    let first = Vec3::from(*p.positions.first()?);
    let (lo, hi) = p.positions.iter().fold((first, first), |(lo, hi), q| {
        let q = Vec3::from(*q);
        (lo.min(q), hi.max(q))
    });
    let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
    let world = world.as_dmat4();
    let reach = (0..8)
        .map(|corner| {
            let pick = |bit: usize, axis: usize| {
                if corner & bit == 0 {
                    lo[axis]
                } else {
                    hi[axis]
                }
            };
            let c = DVec3::new(pick(1, 0), pick(2, 1), pick(4, 2));
            world.transform_point3(c).abs().max_element()
        })
        .fold(0.0, f64::max);
    Some(reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Node};
    use glam::{Quat, Vec3};

    fn scene_with(prim: Primitive, world: Mat4) -> Scene {
        Scene {
            meshes: vec![Mesh {
                name: None,
                primitives: vec![prim],
            }],
            nodes: vec![Node {
                name: None,
                parent: None,
                children: vec![],
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
                local_matrix: world,
                world_matrix: world,
                mesh: Some(0),
                skin: None,
                in_scene: true,
            }],
            roots: vec![0],
            ..Default::default()
        }
    }

    fn triangle() -> Primitive {
        Primitive {
            gltf_path: "meshes[0].primitives[0]".into(),
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            uv0: Some(vec![[0.0; 2]; 3]),
            indices: vec![0, 1, 2],
            indexed: true,
            ..Default::default()
        }
    }

    fn reason(scene: &Scene) -> String {
        check_scene(scene).unwrap_err().reason
    }

    #[test]
    fn a_plain_triangle_passes_and_degenerate_faces_stay_valid() {
        assert_eq!(check_scene(&scene_with(triangle(), Mat4::IDENTITY)), Ok(()));
        let mut p = triangle();
        p.indices = vec![0, 1, 1, 2, 2, 2];
        assert_eq!(check_scene(&scene_with(p, Mat4::IDENTITY)), Ok(()));
    }

    #[test]
    fn huge_coordinates_after_the_world_transform_fail_naming_the_primitive() {
        // Each position alone is fine; the node's scale takes them to 1e25.
        let world = Mat4::from_scale(Vec3::splat(1e25));
        let err = check_scene(&scene_with(triangle(), world)).unwrap_err();
        assert_eq!(err.gltf_path, "meshes[0].primitives[0]");
        assert!(err.reason.contains("1.000e25"), "{}", err.reason);
        // The same in the data itself.
        let mut p = triangle();
        p.positions[1][0] = 1e25;
        assert!(reason(&scene_with(p, Mat4::IDENTITY)).contains("reach"));
        // Just inside the limit passes.
        let world = Mat4::from_translation(Vec3::new(9e15, 0.0, 0.0));
        assert_eq!(check_scene(&scene_with(triangle(), world)), Ok(()));
    }

    #[test]
    fn non_finite_values_and_transforms_fail() {
        let mut p = triangle();
        p.positions[2][1] = f32::NAN;
        assert!(reason(&scene_with(p, Mat4::IDENTITY)).starts_with("POSITION"));
        let mut p = triangle();
        p.uv0.as_mut().unwrap()[1][0] = f32::INFINITY;
        assert!(reason(&scene_with(p, Mat4::IDENTITY)).starts_with("TEXCOORD_0"));
        let world = Mat4::from_scale(Vec3::new(f32::INFINITY, 1.0, 1.0));
        let err = check_scene(&scene_with(triangle(), world)).unwrap_err();
        assert_eq!(err.gltf_path, "nodes[0]");
    }

    #[test]
    fn index_and_attribute_ranges_fail() {
        let mut p = triangle();
        p.indices[2] = 3;
        assert_eq!(
            reason(&scene_with(p, Mat4::IDENTITY)),
            "index 3 is out of range for 3 vertices"
        );
        let mut p = triangle();
        p.indices.pop();
        assert!(reason(&scene_with(p, Mat4::IDENTITY)).contains("whole number"));
        let mut p = triangle();
        p.normals = Some(vec![[0.0, 0.0, 1.0]; 2]);
        assert_eq!(
            reason(&scene_with(p, Mat4::IDENTITY)),
            "NORMAL has 2 entries for 3 vertices"
        );
    }
}
