//! Skeleton extraction shared by every target ([`select_skin`], [`joint_links`]), the
//! `.hmesh` skeleton (`SKEL`) and per-vertex influences (`SKIN`).
//!
//! Runtime model this stage targets: a joint's pose matrix is the product of the local
//! TRS of its SKEL ancestors and itself (bind TRS, or the `.hanim` keys), and a vertex is
//! placed at `sum_i w_i * pose(j_i) * inverseBind(j_i) * position`.
//!
//! Rules (also in `docs/formats.md` terms):
//! - Only one skin is exported, the lowest-indexed one a mesh node of the scene uses
//!   ([`select_skin`], for every target); every other used skin gets a warning. Primitives of another skin are remapped onto the exported joints when all
//!   their joints belong to it and the two skins agree on the bind pose; otherwise they
//!   are an error ([`SkinError::ForeignSkin`]) that the caller turns into a dropped
//!   primitive.
//! - Non-joint nodes between a joint and its nearest joint ancestor (or above a root
//!   joint) are not in SKEL, so their static transform (the joint's *offset*) is folded
//!   into the joint's bind TRS and, by [`JointOffset::apply`], into every animation key.
//!   That keeps the runtime rest pose equal to the glTF world matrices. The fold is exact
//!   for offsets without non-uniform scale; otherwise it is approximated with a warning.
//!   Animations of those non-joint nodes are not exported to `.hanim` (it warns). BMD1
//!   takes the same skin and links ([`joint_links`]) but poses bones from sampled world
//!   matrices, so its bones do follow animated non-joint ancestors.
//! - Static primitive rule: a primitive that is not skinned by the exported skin is bound
//!   rigidly (weight 1) to the nearest joint at or above its node; a primitive not under
//!   any joint is bound to the first root joint with a warning (it then follows that
//!   joint's animation). Its `position_transform` is
//!   `inverse(world(joint) * inverseBind(joint)) * world(node)`, so that the rest pose
//!   `world(joint) * inverseBind(joint) * position_transform` is `world(node)` and the
//!   mesh follows the joint rigidly when it moves.
//! - Influences: all `JOINTS_n`/`WEIGHTS_n` sets are merged (a joint listed twice sums
//!   its weights), the 4 largest kept, renormalised to sum 1; a vertex left without
//!   weight binds rigidly to joint 0. Weights that are negative or not finite, and
//!   weights on joint indices beyond the skin, are dropped with a warning (repair).

use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::hmesh::{GpuJoint, GpuSkinVertex};
use crate::scene::{PrimitiveInstance, Scene};
use glam::{Mat4, Quat, Vec3};
use thiserror::Error;

/// Relative tolerance under which an offset's scale counts as uniform and two bind
/// poses count as equal.
const MATRIX_EPS: f32 = 1e-4;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SkinError {
    #[error("{skin}: joint {joint} is node {node}, which does not exist")]
    JointMissing {
        skin: String,
        joint: usize,
        node: usize,
    },
    #[error("{skin}: joint {joint} (node {node}) is not in the exported scene")]
    JointNotInScene {
        skin: String,
        joint: usize,
        node: usize,
    },
    #[error("{skin}: node {node} is listed twice, as joints {first} and {second}")]
    DuplicateJoint {
        skin: String,
        node: usize,
        first: usize,
        second: usize,
    },
    #[error("{skin}: {count} joints, more than the 65536 a u16 joint index can address")]
    TooManyJoints { skin: String, count: usize },
    #[error("{skin}: {count} inverse-bind matrices for {joints} joints")]
    InverseBindCount {
        skin: String,
        count: usize,
        joints: usize,
    },
    #[error("{skin}: inverse-bind matrix {joint} is not finite")]
    InverseBindNotFinite { skin: String, joint: usize },
    #[error("{skin}: the skin has no joints")]
    NoJoints { skin: String },
    #[error("{primitive}: {what} has {got} entries for {vertices} vertices")]
    AttributeLength {
        primitive: String,
        what: String,
        got: usize,
        vertices: usize,
    },
    #[error("nodes[{node}] or its primitive {mesh}/{primitive} does not exist")]
    NoSuchInstance {
        node: usize,
        mesh: usize,
        primitive: usize,
    },
    #[error("{primitive} (nodes[{node}]) uses skins[{skin}], which cannot be mapped onto the exported skin: {reason}")]
    ForeignSkin {
        primitive: String,
        node: usize,
        skin: usize,
        reason: String,
    },
    #[error("{primitive} (nodes[{node}]): joint {joint}'s bind transform is singular, so the static mesh cannot be bound to it")]
    SingularBind {
        primitive: String,
        node: usize,
        joint: usize,
    },
}

/// The static transform between a joint's SKEL parent (or the scene root) and the
/// joint's node, as translation, rotation and a uniform scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointOffset {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: f32,
}

impl Default for JointOffset {
    fn default() -> Self {
        Self {
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: 1.0,
        }
    }
}

impl JointOffset {
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }
    /// `offset * TRS(t, r, s)` as a TRS. Each output part depends only on the same input
    /// part, so animation channels can be folded one at a time, and the map commutes with
    /// linear interpolation and slerp of the keys.
    pub fn apply(&self, t: Vec3, r: Quat, s: Vec3) -> (Vec3, Quat, Vec3) {
        (
            self.apply_translation(t),
            self.apply_rotation(r),
            self.apply_scale(s),
        )
    }
    pub fn apply_translation(&self, t: Vec3) -> Vec3 {
        self.translation + self.rotation * (self.scale * t)
    }
    pub fn apply_rotation(&self, r: Quat) -> Quat {
        (self.rotation * r).normalize()
    }
    pub fn apply_scale(&self, s: Vec3) -> Vec3 {
        self.scale * s
    }
}

/// The exported skeleton: SKEL rows plus what the other stages need to map glTF data
/// onto it.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    pub joints: Vec<GpuJoint>,
    /// Node of each joint, in SKEL order (= the skin's `joints` order).
    pub joint_nodes: Vec<usize>,
    /// Index into [`Scene::skins`] of the exported skin.
    pub skin: usize,
    /// Folded into the bind TRS already; the animation stage folds it into keys.
    pub joint_offsets: Vec<JointOffset>,
}

impl Skeleton {
    /// SKEL index of `node`, when it is a joint.
    pub fn joint_of_node(&self, node: usize) -> Option<usize> {
        self.joint_nodes.iter().position(|&n| n == node)
    }
}

/// What the `.hmesh` stage writes for one primitive instance of a skinned source.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinnedPrimitive {
    /// One per vertex of the primitive, weights summing to 1.
    pub vertices: Vec<GpuSkinVertex>,
    /// Apply to positions (normals by its inverse-transpose, tangents by its 3x3) before
    /// writing; identity for a primitive skinned by the exported skin.
    pub position_transform: Mat4,
    pub warnings: Vec<Warning>,
}

fn skin_label(scene: &Scene, skin: usize) -> String {
    scene
        .skins
        .get(skin)
        .map(|s| match &s.name {
            Some(n) => format!("{} ({n:?})", s.gltf_path),
            None => s.gltf_path.clone(),
        })
        .unwrap_or_else(|| format!("skins[{skin}]"))
}

/// The skin a scene exports: the lowest-indexed skin used by a mesh node of the scene;
/// `None` when no such node is skinned. Also returns a warning for each other used skin.
pub fn select_skin(scene: &Scene) -> Option<(usize, Vec<Warning>)> {
    let mut used: Vec<(usize, usize)> = scene
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.in_scene && n.mesh.is_some())
        .filter_map(|(i, n)| n.skin.filter(|&s| s < scene.skins.len()).map(|s| (s, i)))
        .collect();
    used.sort_unstable();
    let &(skin_index, _) = used.first()?;
    let mut warnings: Vec<Warning> = Vec::new();
    let mut other_skins: Vec<usize> = used
        .iter()
        .map(|&(s, _)| s)
        .filter(|&s| s != skin_index)
        .collect();
    other_skins.dedup();
    for s in other_skins {
        let nodes: Vec<String> = used
            .iter()
            .filter(|&&(us, _)| us == s)
            .map(|&(_, n)| format!("nodes[{n}]"))
            .collect();
        warnings.push(Warning::new(
            DiagnosticCode::NotExported,
            format!(
                "{} (used by {}) is not exported: only the first skin, {}, is",
                skin_label(scene, s),
                nodes.join(", "),
                skin_label(scene, skin_index)
            ),
        ));
    }
    Some((skin_index, warnings))
}

/// Where a joint hangs in the exported hierarchy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLink {
    /// The nearest ancestor node that is a joint of the skin, as a joint index; `None`
    /// for a root joint.
    pub parent: Option<usize>,
    /// The static transform of the non-joint nodes between that ancestor (or the scene
    /// root) and the joint's node: what is folded into the joint (see the module docs).
    pub offset: Mat4,
}

/// Checks the joints of skin `skin_index` and links each to its nearest joint ancestor.
pub fn joint_links(scene: &Scene, skin_index: usize) -> Result<Vec<JointLink>, SkinError> {
    let label = skin_label(scene, skin_index);
    let Some(skin) = scene.skins.get(skin_index) else {
        return Err(SkinError::NoJoints { skin: label });
    };
    if skin.joints.is_empty() {
        return Err(SkinError::NoJoints { skin: label });
    }
    if skin.joints.len() > usize::from(u16::MAX) + 1 {
        return Err(SkinError::TooManyJoints {
            skin: label,
            count: skin.joints.len(),
        });
    }
    if skin.inverse_bind_matrices.len() != skin.joints.len() {
        return Err(SkinError::InverseBindCount {
            skin: label,
            count: skin.inverse_bind_matrices.len(),
            joints: skin.joints.len(),
        });
    }
    let mut joint_index_of_node = std::collections::HashMap::new();
    for (j, &node) in skin.joints.iter().enumerate() {
        let Some(n) = scene.nodes.get(node) else {
            return Err(SkinError::JointMissing {
                skin: label,
                joint: j,
                node,
            });
        };
        if !n.in_scene {
            return Err(SkinError::JointNotInScene {
                skin: label,
                joint: j,
                node,
            });
        }
        if let Some(first) = joint_index_of_node.insert(node, j) {
            return Err(SkinError::DuplicateJoint {
                skin: label,
                node,
                first,
                second: j,
            });
        }
        if !skin.inverse_bind_matrices[j].is_finite() {
            return Err(SkinError::InverseBindNotFinite {
                skin: label,
                joint: j,
            });
        }
    }
    let mut links = Vec::with_capacity(skin.joints.len());
    for &node_index in &skin.joints {
        let node = &scene.nodes[node_index];
        // Walk up to the nearest joint ancestor, composing the non-joint nodes between.
        // The step bound guards against a parent cycle the importer should have refused.
        let mut offset = Mat4::IDENTITY;
        let mut parent = None;
        let mut cursor = node.parent;
        let mut steps = 0;
        while let Some(p) = cursor {
            if let Some(&pj) = joint_index_of_node.get(&p) {
                parent = Some(pj);
                break;
            }
            let Some(pn) = scene.nodes.get(p) else { break };
            offset = pn.local_matrix * offset;
            cursor = pn.parent;
            steps += 1;
            if steps > scene.nodes.len() {
                break;
            }
        }
        links.push(JointLink { parent, offset });
    }
    Ok(links)
}

/// Builds the skeleton of the skin [`select_skin`] picks; `None` when no node in the
/// scene is skinned. Also returns warnings (other skins, approximated offsets).
pub fn build_skeleton(scene: &Scene) -> Result<Option<(Skeleton, Vec<Warning>)>, SkinError> {
    let Some((skin_index, mut warnings)) = select_skin(scene) else {
        return Ok(None);
    };
    let links = joint_links(scene, skin_index)?;
    let skin = &scene.skins[skin_index];
    let label = skin_label(scene, skin_index);
    let mut joints = Vec::with_capacity(skin.joints.len());
    let mut offsets = Vec::with_capacity(skin.joints.len());
    for (j, (&node_index, link)) in skin.joints.iter().zip(&links).enumerate() {
        let node = &scene.nodes[node_index];
        let offset_matrix = link.offset;
        let offset = offset_from_matrix(&offset_matrix).unwrap_or_else(|| {
            warnings.push(Warning::at(DiagnosticCode::Repaired, label.to_string(), format!("joint {j} (nodes[{node_index}]) sits under non-joint nodes with non-uniform scale or shear; its animation is approximated")));
            let (s, r, t) = offset_matrix.to_scale_rotation_translation();
            JointOffset {
                translation: t,
                rotation: r.normalize(),
                scale: (s.x * s.y * s.z).abs().cbrt(),
            }
        });
        let (t, r, s) = offset.apply(node.translation, node.rotation.normalize(), node.scale);
        joints.push(GpuJoint {
            inverse_bind: skin.inverse_bind_matrices[j].to_cols_array(),
            bind_t: t.to_array(),
            bind_r: r.to_array(),
            bind_s: s.to_array(),
            parent: link.parent.map_or(-1, |p| p as i32),
            pad: 0,
        });
        offsets.push(offset);
    }
    Ok(Some((
        Skeleton {
            joints,
            joint_nodes: skin.joints.clone(),
            skin: skin_index,
            joint_offsets: offsets,
        },
        warnings,
    )))
}

/// The offset as uniform-scale TRS when the matrix is one (within [`MATRIX_EPS`]).
fn offset_from_matrix(m: &Mat4) -> Option<JointOffset> {
    if *m == Mat4::IDENTITY {
        return Some(JointOffset::default());
    }
    let (s, r, t) = m.to_scale_rotation_translation();
    let scale = s.x;
    let uniform = (s.y - scale).abs() <= MATRIX_EPS * scale.abs()
        && (s.z - scale).abs() <= MATRIX_EPS * scale.abs()
        && scale > 0.0;
    let offset = JointOffset {
        translation: t,
        rotation: r.normalize(),
        scale,
    };
    let recomposed = Mat4::from_scale_rotation_translation(Vec3::splat(scale), r, t);
    (uniform && matrices_close(&recomposed, m)).then_some(offset)
}

fn matrices_close(a: &Mat4, b: &Mat4) -> bool {
    let scale = a
        .to_cols_array()
        .iter()
        .chain(b.to_cols_array().iter())
        .fold(1.0f32, |m, v| m.max(v.abs()));
    a.abs_diff_eq(*b, MATRIX_EPS * scale)
}

/// Influences and placement for one primitive instance of a skinned source. See the
/// module comment for the rules.
pub fn skin_primitive(
    scene: &Scene,
    inst: PrimitiveInstance,
    skeleton: &Skeleton,
) -> Result<SkinnedPrimitive, SkinError> {
    let missing = || SkinError::NoSuchInstance {
        node: inst.node,
        mesh: inst.mesh,
        primitive: inst.primitive,
    };
    let node = scene.nodes.get(inst.node).ok_or_else(missing)?;
    let prim = scene
        .meshes
        .get(inst.mesh)
        .and_then(|m| m.primitives.get(inst.primitive))
        .ok_or_else(missing)?;
    let mut warnings: Vec<Warning> = Vec::new();
    let has_influences = !prim.joints.is_empty() && !prim.weights.is_empty();

    match node.skin {
        Some(s) if has_influences && s == skeleton.skin => {
            let vertices = influences(prim, &|j| Some(j), skeleton.joints.len(), &mut warnings)?;
            return Ok(SkinnedPrimitive {
                vertices,
                position_transform: Mat4::IDENTITY,
                warnings,
            });
        }
        Some(s) if has_influences => {
            let (map, correction) = foreign_skin_map(scene, inst, s, skeleton)?;
            let vertices = influences(
                prim,
                &|j| map.get(usize::from(j)).copied().flatten(),
                usize::from(u16::MAX) + 1,
                &mut warnings,
            )?;
            warnings.push(Warning::new(DiagnosticCode::Repaired, format!(
                "{} (nodes[{}]) uses {}; its joints were remapped onto the exported skin",
                prim.gltf_path,
                inst.node,
                skin_label(scene, s)
            )));
            return Ok(SkinnedPrimitive {
                vertices,
                position_transform: correction,
                warnings,
            });
        }
        Some(_) => warnings.push(Warning::new(DiagnosticCode::Repaired, format!(
            "{} (nodes[{}]) is on a skinned node but has no JOINTS_0/WEIGHTS_0; bound rigidly as a static mesh",
            prim.gltf_path, inst.node
        ))),
        None => {}
    }

    let joint = match nearest_joint_at_or_above(scene, inst.node, skeleton) {
        Some(j) => j,
        None => {
            let root = skeleton
                .joints
                .iter()
                .position(|j| j.parent < 0)
                .unwrap_or(0);
            warnings.push(Warning::new(DiagnosticCode::Repaired, format!(
                "{} (nodes[{}]) is not under a joint of the skin; bound rigidly to joint {root}, whose animation it follows",
                prim.gltf_path, inst.node
            )));
            root
        }
    };
    let joint_world = scene.nodes[skeleton.joint_nodes[joint]].world_matrix;
    let inverse_bind = Mat4::from_cols_array(&skeleton.joints[joint].inverse_bind);
    let rest = joint_world * inverse_bind;
    let det = rest.determinant();
    if !det.is_finite() || det.abs() < 1e-12 {
        return Err(SkinError::SingularBind {
            primitive: prim.gltf_path.clone(),
            node: inst.node,
            joint,
        });
    }
    let rigid = GpuSkinVertex {
        joints: [joint as u16, 0, 0, 0],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    Ok(SkinnedPrimitive {
        vertices: vec![rigid; prim.vertex_count()],
        position_transform: rest.inverse() * node.world_matrix,
        warnings,
    })
}

fn nearest_joint_at_or_above(scene: &Scene, node: usize, skeleton: &Skeleton) -> Option<usize> {
    let mut cursor = Some(node);
    for _ in 0..=scene.nodes.len() {
        let n = cursor?;
        if let Some(j) = skeleton.joint_of_node(n) {
            return Some(j);
        }
        cursor = scene.nodes.get(n)?.parent;
    }
    None
}

/// Maps the joints of another skin onto the exported one. Exact when every joint the
/// other skin lists is an exported joint and `inverse(ourIBM) * theirIBM` is one matrix
/// for all of them (the skins share a bind pose up to a fixed mesh transform); that
/// matrix becomes the position transform.
fn foreign_skin_map(
    scene: &Scene,
    inst: PrimitiveInstance,
    skin_index: usize,
    skeleton: &Skeleton,
) -> Result<(Vec<Option<u16>>, Mat4), SkinError> {
    let prim = scene.primitive(inst);
    let fail = |reason: String| SkinError::ForeignSkin {
        primitive: prim.gltf_path.clone(),
        node: inst.node,
        skin: skin_index,
        reason,
    };
    let skin = scene
        .skins
        .get(skin_index)
        .ok_or_else(|| fail("no such skin".into()))?;
    if skin.inverse_bind_matrices.len() != skin.joints.len() {
        return Err(fail("inverse-bind count differs from joint count".into()));
    }
    let mut map = Vec::with_capacity(skin.joints.len());
    let mut correction: Option<Mat4> = None;
    for (j, &node) in skin.joints.iter().enumerate() {
        let ours = skeleton.joint_of_node(node).ok_or_else(|| {
            fail(format!(
                "its joint {j} (nodes[{node}]) is not an exported joint"
            ))
        })?;
        let our_ibm = Mat4::from_cols_array(&skeleton.joints[ours].inverse_bind);
        let c = our_ibm.inverse() * skin.inverse_bind_matrices[j];
        if !c.is_finite() {
            return Err(fail(format!("joint {j}'s bind matrices are singular")));
        }
        match correction {
            None => correction = Some(c),
            Some(prev) if matrices_close(&prev, &c) => {}
            Some(_) => return Err(fail("the two skins have different bind poses".into())),
        }
        map.push(Some(ours as u16));
    }
    Ok((map, correction.unwrap_or(Mat4::IDENTITY)))
}

/// Merges a primitive's JOINTS_n/WEIGHTS_n sets into 4 normalised influences per vertex.
/// `map` turns a source joint index into an exported one (None = out of range).
fn influences(
    prim: &crate::scene::Primitive,
    map: &dyn Fn(u16) -> Option<u16>,
    joint_limit: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<GpuSkinVertex>, SkinError> {
    let vertices = prim.vertex_count();
    let sets = prim.joints.len().min(prim.weights.len());
    for s in 0..sets {
        for (what, got) in [
            (format!("JOINTS_{s}"), prim.joints[s].len()),
            (format!("WEIGHTS_{s}"), prim.weights[s].len()),
        ] {
            if got != vertices {
                return Err(SkinError::AttributeLength {
                    primitive: prim.gltf_path.clone(),
                    what,
                    got,
                    vertices,
                });
            }
        }
    }
    let mut bad_joint = 0usize;
    let mut bad_weight = 0usize;
    let mut unweighted = 0usize;
    let mut out = Vec::with_capacity(vertices);
    let mut list: Vec<(u16, f32)> = Vec::with_capacity(4 * sets);
    for v in 0..vertices {
        list.clear();
        for s in 0..sets {
            for k in 0..4 {
                let w = prim.weights[s][v][k];
                let j = prim.joints[s][v][k];
                if w == 0.0 {
                    continue;
                }
                if !w.is_finite() || w < 0.0 {
                    bad_weight += 1;
                    continue;
                }
                let Some(mj) = map(j).filter(|&mj| usize::from(mj) < joint_limit) else {
                    bad_joint += 1;
                    continue;
                };
                match list.iter_mut().find(|(lj, _)| *lj == mj) {
                    Some(e) => e.1 += w,
                    None => list.push((mj, w)),
                }
            }
        }
        list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        list.truncate(4);
        let sum: f32 = list.iter().map(|e| e.1).sum();
        let mut sv = GpuSkinVertex {
            joints: [0; 4],
            weights: [1.0, 0.0, 0.0, 0.0],
        };
        if sum > 0.0 && sum.is_finite() {
            for (k, &(j, w)) in list.iter().enumerate() {
                sv.joints[k] = j;
                sv.weights[k] = w / sum;
            }
            // The largest weight absorbs the rounding so the sum is 1 as exactly as f32
            // allows.
            sv.weights[0] = 1.0 - (sv.weights[1] + sv.weights[2] + sv.weights[3]);
        } else {
            unweighted += 1;
        }
        out.push(sv);
    }
    if bad_joint > 0 {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            prim.gltf_path.to_string(),
            format!("{bad_joint} weights on joint indices beyond the skin were dropped"),
        ));
    }
    if bad_weight > 0 {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            prim.gltf_path.to_string(),
            format!("{bad_weight} negative or non-finite weights were dropped"),
        ));
    }
    if unweighted > 0 {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            prim.gltf_path.to_string(),
            format!("{unweighted} vertices without weight were bound rigidly to joint 0"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::scene::{Mesh, Node, Primitive, Skin};

    pub(crate) fn node(
        parent: Option<usize>,
        t: Vec3,
        r: Quat,
        s: Vec3,
        mesh: Option<usize>,
        skin: Option<usize>,
    ) -> Node {
        Node {
            name: None,
            parent,
            children: vec![],
            translation: t,
            rotation: r,
            scale: s,
            local_matrix: Mat4::from_scale_rotation_translation(s, r, t),
            world_matrix: Mat4::IDENTITY,
            mesh,
            skin,
            in_scene: true,
        }
    }

    /// Links children and computes world matrices (parents come before children).
    pub(crate) fn finish(scene: &mut Scene) {
        for i in 0..scene.nodes.len() {
            let parent_world = match scene.nodes[i].parent {
                Some(p) => {
                    scene.nodes[p].children.push(i);
                    scene.nodes[p].world_matrix
                }
                None => {
                    scene.roots.push(i);
                    Mat4::IDENTITY
                }
            };
            scene.nodes[i].world_matrix = parent_world * scene.nodes[i].local_matrix;
        }
    }

    /// root(non-joint, T+R+uniform S) -> A(joint) -> X(non-joint, T) -> B(joint) ->
    /// M(static mesh 1); skinned mesh 0 on node S (child of root, its transform ignored).
    pub(crate) fn rig() -> Scene {
        let q = Quat::from_rotation_z(0.7);
        let mut scene = Scene {
            nodes: vec![
                node(
                    None,
                    Vec3::new(1.0, 2.0, 3.0),
                    Quat::from_rotation_y(0.3),
                    Vec3::splat(2.0),
                    None,
                    None,
                ),
                node(Some(0), Vec3::new(0.0, 1.0, 0.0), q, Vec3::ONE, None, None),
                node(
                    Some(1),
                    Vec3::new(0.5, 0.0, 0.0),
                    Quat::IDENTITY,
                    Vec3::ONE,
                    None,
                    None,
                ),
                node(
                    Some(2),
                    Vec3::new(0.0, 1.0, 0.0),
                    Quat::from_rotation_x(0.4),
                    Vec3::new(1.0, 2.0, 1.0),
                    None,
                    None,
                ),
                node(
                    Some(3),
                    Vec3::new(0.0, 0.5, 0.2),
                    Quat::from_rotation_y(1.0),
                    Vec3::ONE,
                    Some(1),
                    None,
                ),
                node(
                    Some(0),
                    Vec3::new(9.0, 9.0, 9.0),
                    Quat::IDENTITY,
                    Vec3::ONE,
                    Some(0),
                    Some(0),
                ),
            ],
            ..Default::default()
        };
        finish(&mut scene);
        let ibm = |n: usize, scene: &Scene| scene.nodes[n].world_matrix.inverse();
        scene.skins.push(Skin {
            gltf_path: "skins[0]".into(),
            name: None,
            joints: vec![1, 3],
            inverse_bind_matrices: vec![ibm(1, &scene), ibm(3, &scene)],
            skeleton: None,
        });
        let positions = vec![
            [0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 2.0, 0.0],
            [1.0, 1.0, 1.0],
        ];
        scene.meshes.push(Mesh {
            name: None,
            primitives: vec![Primitive {
                gltf_path: "meshes[0].primitives[0]".into(),
                positions: positions.clone(),
                joints: vec![vec![[0, 1, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]],
                weights: vec![vec![
                    [1.0, 0.0, 0.0, 0.0],
                    [0.25, 0.25, 0.0, 0.0],
                    [2.0, 0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 0.0],
                ]],
                ..Default::default()
            }],
        });
        scene.meshes.push(Mesh {
            name: None,
            primitives: vec![Primitive {
                gltf_path: "meshes[1].primitives[0]".into(),
                positions,
                ..Default::default()
            }],
        });
        scene
    }

    /// Runtime pose: product of the SKEL local TRS up the parent chain.
    pub(crate) fn runtime_globals(joints: &[GpuJoint], locals: &[Mat4]) -> Vec<Mat4> {
        (0..joints.len())
            .map(|mut j| {
                let mut m = locals[j];
                while joints[j].parent >= 0 {
                    j = joints[j].parent as usize;
                    m = locals[j] * m;
                }
                m
            })
            .collect()
    }

    pub(crate) fn bind_locals(joints: &[GpuJoint]) -> Vec<Mat4> {
        joints
            .iter()
            .map(|j| {
                Mat4::from_scale_rotation_translation(
                    Vec3::from_array(j.bind_s),
                    Quat::from_array(j.bind_r),
                    Vec3::from_array(j.bind_t),
                )
            })
            .collect()
    }

    #[test]
    fn skeleton_rest_pose_reproduces_world_matrices() {
        let scene = rig();
        let (skel, warnings) = build_skeleton(&scene).unwrap().unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(skel.joint_nodes, vec![1, 3]);
        assert_eq!(skel.joints[0].parent, -1);
        assert_eq!(skel.joints[1].parent, 0);
        // The non-joint root and the non-joint X are folded into the bind TRS.
        assert!(!skel.joint_offsets[0].is_identity());
        let globals = runtime_globals(&skel.joints, &bind_locals(&skel.joints));
        for (j, &n) in skel.joint_nodes.iter().enumerate() {
            assert!(
                globals[j].abs_diff_eq(scene.nodes[n].world_matrix, 1e-5),
                "joint {j}: {:?} vs {:?}",
                globals[j],
                scene.nodes[n].world_matrix
            );
        }
        for j in &skel.joints {
            assert!((Quat::from_array(j.bind_r).length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn weights_are_normalised_and_unweighted_vertices_bind_to_joint_0() {
        let scene = rig();
        let (skel, _) = build_skeleton(&scene).unwrap().unwrap();
        let inst = PrimitiveInstance {
            node: 5,
            mesh: 0,
            primitive: 0,
        };
        let sp = skin_primitive(&scene, inst, &skel).unwrap();
        assert_eq!(sp.position_transform, Mat4::IDENTITY);
        assert_eq!(
            sp.vertices[0],
            GpuSkinVertex {
                joints: [0, 0, 0, 0],
                weights: [1.0, 0.0, 0.0, 0.0]
            }
        );
        // 0.25/0.25 -> 0.5/0.5, joint order by weight then index.
        assert_eq!(
            sp.vertices[1],
            GpuSkinVertex {
                joints: [0, 1, 0, 0],
                weights: [0.5, 0.5, 0.0, 0.0]
            }
        );
        assert_eq!(
            sp.vertices[2],
            GpuSkinVertex {
                joints: [1, 0, 0, 0],
                weights: [1.0, 0.0, 0.0, 0.0]
            }
        );
        assert_eq!(sp.vertices[3].weights, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(sp.warnings.len(), 1, "{:?}", sp.warnings);
    }

    #[test]
    fn eight_influences_keep_the_four_largest_and_repair_bad_ones() {
        let mut scene = rig();
        let p = &mut scene.meshes[0].primitives[0];
        p.positions.truncate(1);
        p.joints = vec![vec![[0, 1, 1, 7]], vec![[1, 0, 0, 0]]];
        p.weights = vec![vec![[0.1, 0.2, 0.3, 0.9]], vec![[f32::NAN, 0.4, -1.0, 0.0]]];
        let (skel, _) = build_skeleton(&scene).unwrap().unwrap();
        let sp = skin_primitive(
            &scene,
            PrimitiveInstance {
                node: 5,
                mesh: 0,
                primitive: 0,
            },
            &skel,
        )
        .unwrap();
        // joint 7 is beyond the skin; NaN and -1 are dropped; joint 1 sums 0.5, joint 0 0.5.
        let v = sp.vertices[0];
        assert_eq!(v.joints[..2], [0, 1]);
        assert!((v.weights[0] - 0.5).abs() < 1e-6 && (v.weights[1] - 0.5).abs() < 1e-6);
        assert_eq!(v.weights.iter().sum::<f32>(), 1.0);
        assert_eq!(sp.warnings.len(), 2, "{:?}", sp.warnings);
    }

    #[test]
    fn static_mesh_follows_its_joint_rigidly() {
        let scene = rig();
        let (skel, _) = build_skeleton(&scene).unwrap().unwrap();
        let sp = skin_primitive(
            &scene,
            PrimitiveInstance {
                node: 4,
                mesh: 1,
                primitive: 0,
            },
            &skel,
        )
        .unwrap();
        assert!(sp
            .vertices
            .iter()
            .all(|v| v.joints[0] == 1 && v.weights == [1.0, 0.0, 0.0, 0.0]));
        let ibm = Mat4::from_cols_array(&skel.joints[1].inverse_bind);
        // Rest pose: the mesh lands where glTF places it.
        let mut locals = bind_locals(&skel.joints);
        let rest = runtime_globals(&skel.joints, &locals)[1] * ibm * sp.position_transform;
        assert!(rest.abs_diff_eq(scene.nodes[4].world_matrix, 1e-5));
        // Posed: rotate joint B; glTF moves M with B.
        let turn = Quat::from_rotation_z(1.1);
        locals[1] *= Mat4::from_quat(turn);
        let posed = runtime_globals(&skel.joints, &locals)[1] * ibm * sp.position_transform;
        let expected =
            scene.nodes[3].world_matrix * Mat4::from_quat(turn) * scene.nodes[4].local_matrix;
        assert!(posed.abs_diff_eq(expected, 1e-5));
    }

    #[test]
    fn static_mesh_outside_the_skeleton_binds_to_the_root_joint_with_a_warning() {
        let mut scene = rig();
        scene.nodes[5].skin = None;
        scene.nodes[5].mesh = Some(1);
        scene.nodes[4].mesh = Some(0); // keep a skinned user of skin 0
        scene.nodes[4].skin = Some(0);
        let (skel, _) = build_skeleton(&scene).unwrap().unwrap();
        let sp = skin_primitive(
            &scene,
            PrimitiveInstance {
                node: 5,
                mesh: 1,
                primitive: 0,
            },
            &skel,
        )
        .unwrap();
        assert_eq!(sp.vertices[0].joints[0], 0);
        assert_eq!(sp.warnings.len(), 1);
        let rest = scene.nodes[1].world_matrix
            * Mat4::from_cols_array(&skel.joints[0].inverse_bind)
            * sp.position_transform;
        assert!(rest.abs_diff_eq(scene.nodes[5].world_matrix, 1e-4));
    }

    #[test]
    fn bad_skins_are_errors() {
        let mut s = rig();
        s.skins[0].inverse_bind_matrices.pop();
        assert!(matches!(
            build_skeleton(&s),
            Err(SkinError::InverseBindCount { .. })
        ));
        let mut s = rig();
        s.skins[0].joints[1] = 99;
        assert!(matches!(
            build_skeleton(&s),
            Err(SkinError::JointMissing { .. })
        ));
        let mut s = rig();
        s.nodes[3].in_scene = false;
        assert!(matches!(
            build_skeleton(&s),
            Err(SkinError::JointNotInScene { .. })
        ));
        let mut s = rig();
        s.skins[0].joints[1] = 1;
        assert!(matches!(
            build_skeleton(&s),
            Err(SkinError::DuplicateJoint { .. })
        ));
        let mut s = rig();
        s.skins[0].inverse_bind_matrices[0].x_axis.x = f32::NAN;
        assert!(matches!(
            build_skeleton(&s),
            Err(SkinError::InverseBindNotFinite { .. })
        ));
        let mut s = rig();
        s.meshes[0].primitives[0].weights[0].pop();
        let (skel, _) = build_skeleton(&s).unwrap().unwrap();
        let r = skin_primitive(
            &s,
            PrimitiveInstance {
                node: 5,
                mesh: 0,
                primitive: 0,
            },
            &skel,
        );
        assert!(matches!(r, Err(SkinError::AttributeLength { .. })));
        let r = skin_primitive(
            &s,
            PrimitiveInstance {
                node: 50,
                mesh: 0,
                primitive: 0,
            },
            &skel,
        );
        assert!(matches!(r, Err(SkinError::NoSuchInstance { .. })));
    }

    #[test]
    fn only_the_first_used_skin_is_exported_and_a_compatible_second_is_remapped() {
        let mut scene = rig();
        let mut second = scene.skins[0].clone();
        second.gltf_path = "skins[1]".into();
        second.joints.reverse();
        second.inverse_bind_matrices.reverse();
        scene.skins.push(second);
        scene.nodes[4].skin = Some(1);
        scene.nodes[4].mesh = Some(0);
        let (skel, warnings) = build_skeleton(&scene).unwrap().unwrap();
        assert_eq!(skel.skin, 0);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].to_string().contains("skins[1]")
                && warnings[0].to_string().contains("nodes[4]"),
            "{warnings:?}"
        );
        let sp = skin_primitive(
            &scene,
            PrimitiveInstance {
                node: 4,
                mesh: 0,
                primitive: 0,
            },
            &skel,
        )
        .unwrap();
        // Source joint 0 of skin 1 is node 3 = exported joint 1.
        assert_eq!(sp.vertices[0].joints[0], 1);
        assert!(sp.position_transform.abs_diff_eq(Mat4::IDENTITY, 1e-5));
        // A second skin with a different bind pose cannot be remapped.
        scene.skins[1].inverse_bind_matrices[0] =
            Mat4::from_translation(Vec3::X) * scene.skins[1].inverse_bind_matrices[0];
        let r = skin_primitive(
            &scene,
            PrimitiveInstance {
                node: 4,
                mesh: 0,
                primitive: 0,
            },
            &skel,
        );
        assert!(matches!(r, Err(SkinError::ForeignSkin { .. })));
    }

    #[test]
    fn unskinned_scene_has_no_skeleton() {
        let mut scene = rig();
        scene.nodes[5].skin = None;
        assert_eq!(build_skeleton(&scene).unwrap(), None);
    }
}
