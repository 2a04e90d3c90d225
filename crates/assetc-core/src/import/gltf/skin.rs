//! Skins: joint node lists and inverse bind matrices.

use super::accessor::Reader;
use super::{bad, dangling, Ctx, Res};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::Skin;
use glam::Mat4;
use gltf::json::accessor::Type;

pub fn import_skins(ctx: &Ctx, reader: &mut Reader, warnings: &mut Vec<Warning>) -> Res<Vec<Skin>> {
    let node_count = ctx.root.nodes.len();
    let mut skins = Vec::with_capacity(ctx.root.skins.len());
    for (i, s) in ctx.root.skins.iter().enumerate() {
        let path = format!("skins[{i}]");
        let joints: Vec<usize> = s.joints.iter().map(|j| j.value()).collect();
        if joints.is_empty() {
            return bad(path, "skin has no joints");
        }
        for (k, &j) in joints.iter().enumerate() {
            if j >= node_count {
                return dangling(
                    format!("{path}.joints[{k}]"),
                    format!("node {j} does not exist"),
                );
            }
            if joints[..k].contains(&j) {
                return bad(
                    format!("{path}.joints[{k}]"),
                    format!("node {j} is listed twice"),
                );
            }
        }
        let skeleton = s.skeleton.map(|n| n.value());
        if let Some(n) = skeleton.filter(|&n| n >= node_count) {
            return dangling(
                format!("{path}.skeleton"),
                format!("node {n} does not exist"),
            );
        }
        let inverse_bind_matrices = match s.inverse_bind_matrices {
            None => vec![Mat4::IDENTITY; joints.len()],
            Some(a) => {
                let a = a.value();
                let where_ = format!("{path}.inverseBindMatrices (accessors[{a}])");
                let layout = reader.layout(a)?;
                if layout.ty != Type::Mat4 || !layout.is_float() {
                    return bad(where_, "must be MAT4 of FLOAT");
                }
                if layout.count < joints.len() {
                    return bad(
                        where_,
                        format!("{} matrices for {} joints", layout.count, joints.len()),
                    );
                }
                if layout.count > joints.len() {
                    warnings.push(Warning::at(
                        DiagnosticCode::Repaired,
                        where_.to_string(),
                        format!(
                            "{} matrices for {} joints; extra ones ignored",
                            layout.count,
                            joints.len()
                        ),
                    ));
                }
                let (_, flat) = reader.floats(a)?;
                if flat.iter().any(|v| !v.is_finite()) {
                    return bad(where_, "contains NaN or infinite values");
                }
                flat.chunks_exact(16)
                    .take(joints.len())
                    .map(Mat4::from_cols_slice)
                    .collect()
            }
        };
        skins.push(Skin {
            gltf_path: path,
            name: s.name.clone(),
            joints,
            inverse_bind_matrices,
            skeleton,
        });
    }
    Ok(skins)
}
