//! Blend shapes as morph targets: every channel of a mesh's blend deformers, in order, is
//! one target (glTF's morph target), holding the shape at full weight (the channel's last
//! keyframe: in-between shapes of progressive morphs are not kept). FBX gives offsets per
//! control point for some of them; they are spread here to every control point, and the
//! mesh stage picks each vertex's from its control point.

use super::super::gltf::{bad, over_limit, Res};
use super::Ctx;

/// A target's displacements per control point.
pub struct ControlPointTarget {
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
}

/// Every blend channel of the mesh, in deformer then channel order: target `t` of the
/// mesh's primitives is the `t`-th.
pub fn channels(mesh: &ufbx::Mesh) -> impl Iterator<Item = &ufbx::BlendChannel> {
    mesh.blend_deformers
        .iter()
        .flat_map(|d| d.channels.iter().map(|c| &**c))
}

/// The channels' current weights (FBX `DeformPercent` / 100), the node's initial weights.
pub fn channel_weights(mesh: &ufbx::Mesh) -> Vec<f32> {
    channels(mesh).map(|c| c.weight as f32).collect()
}

pub fn control_point_targets(
    ctx: &Ctx,
    mesh: &ufbx::Mesh,
    path: &str,
) -> Res<Vec<ControlPointTarget>> {
    let count = channels(mesh).count();
    if count == 0 {
        return Ok(Vec::new());
    }
    let points = mesh.vertices.len();
    // Dense arrays: targets x control points x 12 bytes (x2 with normals), checked
    // before they are made.
    let bytes = (count as u64)
        .saturating_mul(points as u64)
        .saturating_mul(24);
    if bytes > ctx.limits.max_total_accessor_bytes {
        return over_limit(
            path,
            format!(
                "{count} blend shapes over {points} control points need {bytes} bytes; the limit is {}",
                ctx.limits.max_total_accessor_bytes
            ),
        );
    }
    let mut out = Vec::with_capacity(count);
    for (t, channel) in channels(mesh).enumerate() {
        let tpath = format!("{path}.targets[{t}]");
        let shape = channel
            .target_shape
            .as_ref()
            .or_else(|| channel.keyframes.last().map(|k| &k.shape));
        let mut positions = vec![[0f32; 3]; points];
        let mut normals = None;
        if let Some(shape) = shape {
            let with_normals = !shape.normal_offsets.is_empty();
            if with_normals {
                normals = Some(vec![[0f32; 3]; points]);
            }
            for (k, &v) in shape.offset_vertices.iter().enumerate() {
                let v = v as usize;
                let Some(slot) = positions.get_mut(v) else {
                    return bad(
                        tpath,
                        format!("offset {k} moves control point {v}, past the mesh's {points}"),
                    );
                };
                let Some(p) = shape.position_offsets.get(k) else {
                    return bad(tpath, format!("offset {k} has no position"));
                };
                *slot = [p.x as f32, p.y as f32, p.z as f32];
                if let (Some(normals), Some(n)) = (normals.as_mut(), shape.normal_offsets.get(k)) {
                    if let Some(slot) = normals.get_mut(v) {
                        *slot = [n.x as f32, n.y as f32, n.z as f32];
                    }
                }
            }
        }
        out.push(ControlPointTarget { positions, normals });
    }
    Ok(out)
}
