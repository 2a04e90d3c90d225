//! Bones from a glTF skin: order (parents first), names, parents and bind transforms.
//!
//! Convention (what a BMD1 runtime does with our files): a bone's pose is its parent's
//! pose times its local transform, bone 0 being the identity; the bind pose uses the bone
//! xforms, an animated pose uses the clip's per-bone transforms in place of them. Vertices
//! are stored in their bone's space, so the skinned position is simply `pose(bone) * v`.
//! The bind world of bone j is the rigid part of `inverse(inverseBindMatrix[j])`, and each
//! local xform is quantised with the already quantised parent in hand, so F8A rounding
//! does not pile up down the chain.

use super::invalid;
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::bmd1::{
    f8a_decode, f8a_encode, xyz_decode, xyz_encode, Bone, BoneKind, F8A_MAX,
};
use crate::rig;
use crate::scene::Scene;
use crate::TargetError;
use glam::{Mat4, Quat, Vec3};
use std::collections::HashSet;

/// Most skin joints a BMD1 file holds: bone ids are below 0xF0 and bone 0 is the base.
pub const MAX_JOINTS: usize = crate::formats::bmd1::MAX_BONES - 1;

pub(crate) struct Skeleton {
    /// Index into `Scene::skins`.
    pub skin: usize,
    /// Skin joint index of bone `b` is `joint_of_bone[b - 1]`.
    pub joint_of_bone: Vec<usize>,
    /// Bone id of each skin joint.
    pub bone_of_joint: Vec<u8>,
    /// Bone 0 first; what the file stores.
    pub bones: Vec<Bone>,
    /// Parent bone of each bone (0 for bone 0 and for roots).
    pub parents: Vec<usize>,
    /// Bind pose of each bone as a runtime decodes it (quantised xforms composed).
    pub bind_world: Vec<Mat4>,
    /// `inverseBindMatrix` of each bone (identity for bone 0).
    pub inverse_bind: Vec<Mat4>,
}

impl Skeleton {
    pub fn joint_node(&self, scene: &Scene, bone: usize) -> Option<usize> {
        let joint = *self.joint_of_bone.get(bone.checked_sub(1)?)?;
        scene.skins.get(self.skin)?.joints.get(joint).copied()
    }
}

/// The skeleton of the skin the rig exports ([`rig::skeleton::select_skin`]), with
/// its joint hierarchy from [`rig::skeleton::joint_links`]; `None` for an unskinned
/// scene.
pub(crate) fn build_skeleton(
    scene: &Scene,
    warnings: &mut Vec<Warning>,
) -> Result<Option<Skeleton>, TargetError> {
    let Some((skin_index, skin_warnings)) = rig::skeleton::select_skin(scene) else {
        return Ok(None);
    };
    warnings.extend(skin_warnings);
    let skin = scene
        .skins
        .get(skin_index)
        .ok_or_else(|| invalid(format!("skins[{skin_index}]"), "skin does not exist"))?;
    let path = &skin.gltf_path;
    // The skin error names the skin and joint itself.
    let links = rig::skeleton::joint_links(scene, skin_index)
        .map_err(|e| invalid(&scene.source_ref, e.to_string()))?;
    if skin.joints.len() > MAX_JOINTS {
        return Err(invalid(
            path,
            format!(
                "skin has {} joints; BMD1 holds at most {MAX_JOINTS} bones besides the base bone 0",
                skin.joints.len()
            ),
        ));
    }
    let parent_joint: Vec<Option<usize>> = links.iter().map(|l| l.parent).collect();
    let depth = |mut j: usize| {
        let mut d = 0;
        while let Some(p) = parent_joint.get(j).copied().flatten() {
            d += 1;
            j = p;
            if d > skin.joints.len() {
                break;
            }
        }
        d
    };
    let mut joint_of_bone: Vec<usize> = (0..skin.joints.len()).collect();
    joint_of_bone.sort_by_key(|&j| depth(j));
    let mut bone_of_joint = vec![0u8; skin.joints.len()];
    for (b, &j) in joint_of_bone.iter().enumerate() {
        if let Some(slot) = bone_of_joint.get_mut(j) {
            *slot = (b + 1) as u8;
        }
    }

    let mut bones = vec![Bone {
        name: None,
        solid: 0,
        kind: BoneKind::Normal {
            parent: 0,
            rotation: [0.0; 4],
            origin: [0.0; 3],
        },
    }];
    let mut parents = vec![0usize];
    let mut bind_world = vec![Mat4::IDENTITY];
    let mut inverse_bind = vec![Mat4::IDENTITY];
    let mut used_names: HashSet<String> = HashSet::new();
    for &joint in &joint_of_bone {
        let node_index = skin.joints.get(joint).copied().unwrap_or(0);
        let parent = parent_joint
            .get(joint)
            .copied()
            .flatten()
            .and_then(|p| bone_of_joint.get(p))
            .map_or(0, |&b| usize::from(b));
        let ibm = skin
            .inverse_bind_matrices
            .get(joint)
            .copied()
            .unwrap_or(Mat4::IDENTITY);
        let joint_path = format!("{path}.joints[{joint}]");
        if ibm.determinant().abs() <= f32::MIN_POSITIVE || !ibm.is_finite() {
            return Err(invalid(
                &joint_path,
                "inverse bind matrix is singular or not finite",
            ));
        }
        let (_, rotation, translation) = ibm.inverse().to_scale_rotation_translation();
        let target = Mat4::from_rotation_translation(rotation.normalize(), translation);
        let parent_world = bind_world.get(parent).copied().unwrap_or(Mat4::IDENTITY);
        let (_, local_rotation, local_origin) =
            (parent_world.inverse() * target).to_scale_rotation_translation();
        let rotation_raw = quantize_rotation(local_rotation);
        let origin_word = xyz_encode(local_origin.to_array()).ok_or_else(|| {
            invalid(
                &joint_path,
                format!("bind origin {local_origin} is outside the packed XYZ range"),
            )
        })?;
        let origin = xyz_decode(origin_word);
        let local = Mat4::from_rotation_translation(raw_to_quat(rotation_raw), Vec3::from(origin));
        bind_world.push(parent_world * local);
        inverse_bind.push(ibm);
        parents.push(parent);
        let name = bone_name(scene, node_index, &joint_path, &mut used_names, warnings);
        bones.push(Bone {
            name: Some(name),
            solid: 0,
            kind: BoneKind::Normal {
                parent: parent as u8,
                rotation: rotation_raw,
                origin,
            },
        });
    }
    Ok(Some(Skeleton {
        skin: skin_index,
        joint_of_bone,
        bone_of_joint,
        bones,
        parents,
        bind_world,
        inverse_bind,
    }))
}

/// The node's name, repaired to a non-empty, NUL-free name no earlier bone uses.
fn bone_name(
    scene: &Scene,
    node: usize,
    joint_path: &str,
    used: &mut HashSet<String>,
    warnings: &mut Vec<Warning>,
) -> String {
    let given = scene
        .nodes
        .get(node)
        .and_then(|n| n.name.clone())
        .unwrap_or_default();
    let base = if given.is_empty() {
        format!("joint_{node}")
    } else {
        given.replace('\0', "")
    };
    let mut name = base.clone();
    let mut suffix = 1;
    while used.contains(&name) {
        name = format!("{base}_{suffix}");
        suffix += 1;
    }
    if name != given {
        warnings.push(Warning::at(
            DiagnosticCode::Repaired,
            joint_path.to_string(),
            format!(
                "bone name {given:?} is empty, has NUL or repeats an earlier bone; named {name:?}"
            ),
        ));
    }
    used.insert(name.clone());
    name
}

/// The unit quaternion a runtime gets from raw F8A components (normalised [B24]).
pub(crate) fn raw_to_quat(raw: [f32; 4]) -> Quat {
    let q = Quat::from_array(raw);
    let len = q.length();
    if len > 0.0 && len.is_finite() {
        q / len
    } else {
        Quat::IDENTITY
    }
}

/// F8A components for `q`. Runtimes normalise after decoding, so any positive multiple of
/// `q` stands for it; trying multiples up to the F8A maximum and keeping the one whose
/// rounding bends the rotation least cuts the error well below plain rounding (per
/// component at most 1/32 relative, about 3.6 degrees in the worst case).
pub(crate) fn quantize_rotation(q: Quat) -> [f32; 4] {
    let q = if q.is_finite() && q.length() > 0.0 {
        q.normalize()
    } else {
        Quat::IDENTITY
    };
    let components = q.to_array();
    let largest = components.iter().fold(0f32, |m, c| m.max(c.abs()));
    let top = F8A_MAX / largest.max(0.5);
    const STEPS: usize = 48;
    let mut best = (f32::INFINITY, components.map(|c| f8a_decode(f8a_encode(c))));
    for k in 0..=STEPS {
        let scale = 1.0 + (top - 1.0) * k as f32 / STEPS as f32;
        let raw = components.map(|c| f8a_decode(f8a_encode(c * scale)));
        let error = 1.0 - raw_to_quat(raw).dot(q).abs();
        if error < best.0 {
            best = (error, raw);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_rotation_is_exactly_encodable_and_close() {
        let mut worst: f32 = 0.0;
        for i in 0..200 {
            let a = i as f32 * 0.173;
            let q = Quat::from_euler(glam::EulerRot::XYZ, a, a * 0.7 + 0.3, a * 1.3 - 1.0);
            let raw = quantize_rotation(q);
            for c in raw {
                assert_eq!(f8a_decode(f8a_encode(c)), c);
            }
            worst = worst.max(raw_to_quat(raw).angle_between(q));
        }
        // Plain rounding can miss by about 3.6 degrees (0.063 rad); searching scales must do
        // clearly better than that on every sample.
        assert!(worst < 0.03, "worst angle {worst}");
    }
}
