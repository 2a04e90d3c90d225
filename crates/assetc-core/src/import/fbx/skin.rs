//! Skins: one [`Skin`] per FBX skin deformer. Its clusters, in file order, are the joints
//! (each cluster's bone node); a cluster's `geometry_to_bone` (the inverse of the bone's
//! bind pose times the mesh's, which ufbx reads from the cluster's `Transform` and
//! `TransformLink`) is the joint's inverse bind matrix in the mesh's own space, as glTF
//! defines it.

use super::super::gltf::{bad, Res};
use super::nodes::mat4;
use super::{names, Ctx};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::Skin;

/// Most joints one skin may name: joint indices are 16-bit in every runtime format.
const MAX_JOINTS: usize = u16::MAX as usize;
/// Most influences kept per vertex (JOINTS_0 and JOINTS_1): the runtime formats keep four,
/// choosing the largest, so more is never used.
pub const MAX_INFLUENCES: usize = 8;

pub fn import_skins(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Skin>> {
    let node_count = ctx.fbx.nodes.len();
    let mut skins = Vec::with_capacity(ctx.fbx.skin_deformers.len());
    for (i, d) in ctx.fbx.skin_deformers.iter().enumerate() {
        let path = names::element_path("skins", &d.element);
        if d.element.typed_id as usize != i {
            return bad(path, "skin deformers are numbered out of order");
        }
        if d.clusters.is_empty() {
            return bad(path, "skin has no clusters");
        }
        if d.clusters.len() > MAX_JOINTS {
            return bad(
                path,
                format!(
                    "{} clusters; at most {MAX_JOINTS} joints are supported",
                    d.clusters.len()
                ),
            );
        }
        let mut joints = Vec::with_capacity(d.clusters.len());
        let mut inverse_bind_matrices = Vec::with_capacity(d.clusters.len());
        for (k, c) in d.clusters.iter().enumerate() {
            let cpath = format!("{path}.clusters[{k}]");
            let Some(bone) = c.bone_node.as_ref() else {
                return bad(cpath, "cluster has no bone node");
            };
            let node = bone.element.typed_id as usize;
            if node >= node_count {
                return bad(cpath, format!("bone node {node} does not exist"));
            }
            if joints.contains(&node) {
                return bad(
                    cpath,
                    format!(
                        "bone {} is bound by two clusters",
                        names::element_path("nodes", &bone.element)
                    ),
                );
            }
            let ibm = mat4(&c.geometry_to_bone);
            if !ibm.is_finite() {
                return bad(cpath, "bind matrix is not finite");
            }
            joints.push(node);
            inverse_bind_matrices.push(ibm);
        }
        if d.max_weights_per_vertex > MAX_INFLUENCES {
            warnings.push(Warning::at(
                DiagnosticCode::NotExported,
                path.to_string(),
                format!(
                    "up to {} influences per vertex; the {MAX_INFLUENCES} largest are kept",
                    d.max_weights_per_vertex
                ),
            ));
        }
        skins.push(Skin {
            gltf_path: path,
            name: names::name(&d.element),
            joints,
            inverse_bind_matrices,
            skeleton: None,
        });
    }
    Ok(skins)
}

/// JOINTS_n and WEIGHTS_n sets of one vertex, parallel.
pub type Influences = (Vec<[u16; 4]>, Vec<[f32; 4]>);

/// One control point's influences as JOINTS_n/WEIGHTS_n sets: `sets` sets of four,
/// largest weights first (ufbx sorts them: `clean_skin_weights`), unused slots zero.
pub fn influences(
    deformer: &ufbx::SkinDeformer,
    control_point: usize,
    sets: usize,
    path: &str,
) -> Res<Influences> {
    let mut joints = vec![[0u16; 4]; sets];
    let mut weights = vec![[0f32; 4]; sets];
    let Some(v) = deformer.vertices.get(control_point) else {
        // ufbx lists every control point of the mesh; one past them has no weights.
        return Ok((joints, weights));
    };
    let begin = v.weight_begin as usize;
    let count = (v.num_weights as usize).min(sets * 4);
    let Some(list) = deformer.weights.get(begin..begin.saturating_add(count)) else {
        return bad(
            path,
            format!("control point {control_point}: skin weights past the end of the list"),
        );
    };
    for (slot, w) in list.iter().enumerate() {
        let joint = w.cluster_index as usize;
        if joint >= deformer.clusters.len() {
            return bad(
                path,
                format!("control point {control_point}: cluster {joint} does not exist"),
            );
        }
        joints[slot / 4][slot % 4] = joint as u16;
        weights[slot / 4][slot % 4] = w.weight as f32;
    }
    Ok((joints, weights))
}
