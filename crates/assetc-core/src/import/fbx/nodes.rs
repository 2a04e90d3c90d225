//! The node hierarchy: ufbx's nodes one for one (ufbx's root node included, as node 0 and
//! the only root), local transforms with pivots and inherit modes already folded in by
//! ufbx, and world matrices.

use super::super::gltf::{bad, Res};
use super::{names, Ctx};
use crate::scene::Node;
use glam::{Mat4, Quat, Vec3};

pub fn import_nodes(ctx: &Ctx) -> Res<(Vec<Node>, Vec<usize>)> {
    let fbx = ctx.fbx;
    let count = fbx.nodes.len();
    let index = |element: &ufbx::Element, what: &str, path: &str| -> Res<usize> {
        let i = element.typed_id as usize;
        if i < count {
            Ok(i)
        } else {
            bad(path, format!("{what} {i} does not exist"))
        }
    };
    let mut nodes = Vec::with_capacity(count);
    for (i, n) in fbx.nodes.iter().enumerate() {
        let path = names::element_path("nodes", &n.element);
        if n.element.typed_id as usize != i {
            return bad(
                path,
                format!("is listed as node {i} but numbered {}", n.element.typed_id),
            );
        }
        let parent = match n.parent.as_ref() {
            Some(p) => Some(index(&p.element, "parent node", &path)?),
            None => None,
        };
        let children = n
            .children
            .iter()
            .map(|c| index(&c.element, "child node", &path))
            .collect::<Res<Vec<usize>>>()?;
        let t = &n.local_transform;
        let translation = vec3(t.translation);
        let rotation = quat(t.rotation);
        let scale = vec3(t.scale);
        let local_matrix = mat4(&n.node_to_parent);
        if !translation.is_finite()
            || !rotation.is_finite()
            || !scale.is_finite()
            || !local_matrix.is_finite()
        {
            return bad(path, "transform is not finite");
        }
        let mesh = n.mesh.as_ref().map(|m| m.element.typed_id as usize);
        if let Some(m) = mesh.filter(|&m| m >= fbx.meshes.len()) {
            return bad(path, format!("mesh {m} does not exist"));
        }
        // The mesh's first skin deformer is its skin (see skin.rs).
        let skin = n
            .mesh
            .as_ref()
            .and_then(|m| m.skin_deformers.first())
            .map(|s| s.element.typed_id as usize);
        nodes.push(Node {
            name: names::name(&n.element),
            parent,
            children,
            translation,
            rotation: if rotation.length() > 1e-6 {
                rotation.normalize()
            } else {
                Quat::IDENTITY
            },
            scale,
            local_matrix,
            world_matrix: local_matrix,
            mesh,
            skin,
            in_scene: false,
        });
    }
    let root = fbx.root_node.element.typed_id as usize;
    if root >= count {
        return bad("nodes", format!("root node {root} does not exist"));
    }
    world_matrices(&mut nodes, root)?;
    Ok((nodes, vec![root]))
}

/// World matrices from the root down, with an explicit stack (FBX hierarchies may be
/// thousands of levels deep); a node reached twice is refused.
fn world_matrices(nodes: &mut [Node], root: usize) -> Res<()> {
    let mut stack = vec![(root, Mat4::IDENTITY)];
    while let Some((n, parent_world)) = stack.pop() {
        let Some(node) = nodes.get_mut(n) else {
            return bad(format!("nodes[{n}]"), "node does not exist");
        };
        if node.in_scene {
            return bad(
                format!("nodes[{n}]"),
                "node is reached twice in the hierarchy",
            );
        }
        node.in_scene = true;
        node.world_matrix = parent_world * node.local_matrix;
        let world = node.world_matrix;
        stack.extend(node.children.iter().rev().map(|&c| (c, world)));
    }
    Ok(())
}

pub fn vec3(v: ufbx::Vec3) -> Vec3 {
    Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

pub fn quat(q: ufbx::Quat) -> Quat {
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

/// ufbx's affine 3x4 matrix (columns m?0, m?1, m?2, m?3) as a glam matrix.
pub fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ufbx_matrices_are_column_major_with_translation_in_the_last_column() {
        let m = ufbx::Matrix {
            m00: 1.0,
            m10: 2.0,
            m20: 3.0,
            m01: 4.0,
            m11: 5.0,
            m21: 6.0,
            m02: 7.0,
            m12: 8.0,
            m22: 9.0,
            m03: 10.0,
            m13: 11.0,
            m23: 12.0,
        };
        let g = mat4(&m);
        assert_eq!(g.x_axis.truncate(), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(g.w_axis, glam::Vec4::new(10.0, 11.0, 12.0, 1.0));
        assert_eq!(g.transform_point3(Vec3::ZERO), Vec3::new(10.0, 11.0, 12.0));
    }
}
