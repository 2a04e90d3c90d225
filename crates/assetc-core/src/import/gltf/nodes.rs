//! The node hierarchy: local transforms, parent links (cycles and shared children are
//! errors), scene roots and world matrices.

use super::{bad, dangling, Ctx, Res};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::Node;
use glam::{Mat4, Quat, Vec3};

pub fn import_nodes(ctx: &Ctx, warnings: &mut Vec<Warning>) -> Res<Vec<Node>> {
    let root = ctx.root;
    let count = root.nodes.len();
    let mut nodes = Vec::with_capacity(count);
    for (i, n) in root.nodes.iter().enumerate() {
        let path = format!("nodes[{i}]");
        let (translation, rotation, scale, local_matrix) = match n.matrix {
            Some(m) => {
                let local = Mat4::from_cols_array(&m);
                if !local.is_finite() {
                    return bad(path, "matrix is not finite");
                }
                let (s, r, t) = local.to_scale_rotation_translation();
                let (s, r) = if r.is_finite() && s.is_finite() {
                    (s, r.normalize())
                } else {
                    warnings.push(Warning::at(
                        DiagnosticCode::Repaired,
                        path.to_string(),
                        "matrix cannot be decomposed; TRS is identity",
                    ));
                    (Vec3::ONE, Quat::IDENTITY)
                };
                (t, r, s, local)
            }
            None => {
                let t = Vec3::from(n.translation.unwrap_or([0.0; 3]));
                let s = Vec3::from(n.scale.unwrap_or([1.0; 3]));
                let r = Quat::from_array(n.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0));
                let r = match r.length() {
                    len if len.is_finite() && (len - 1.0).abs() <= 1e-3 => r,
                    len if len.is_finite() && len > 1e-6 => {
                        warnings.push(Warning::at(
                            DiagnosticCode::Repaired,
                            path.to_string(),
                            "rotation is not unit length; normalized",
                        ));
                        r / len
                    }
                    _ => return bad(path, "rotation is zero or not finite"),
                };
                if !t.is_finite() || !s.is_finite() {
                    return bad(path, "translation or scale is not finite");
                }
                (t, r, s, Mat4::from_scale_rotation_translation(s, r, t))
            }
        };
        let mesh = n.mesh.map(|m| m.value());
        if let Some(m) = mesh.filter(|&m| m >= root.meshes.len()) {
            return dangling(path, format!("mesh {m} does not exist"));
        }
        let skin = n.skin.map(|s| s.value());
        if let Some(s) = skin.filter(|&s| s >= root.skins.len()) {
            return dangling(path, format!("skin {s} does not exist"));
        }
        let children: Vec<usize> = n.children.iter().flatten().map(|c| c.value()).collect();
        if let Some(c) = children.iter().find(|&&c| c >= count) {
            return dangling(path, format!("child {c} does not exist"));
        }
        nodes.push(Node {
            name: n.name.clone(),
            parent: None,
            children,
            translation,
            rotation,
            scale,
            local_matrix,
            world_matrix: local_matrix,
            mesh,
            skin,
            in_scene: false,
        });
    }
    link_parents(&mut nodes)?;
    Ok(nodes)
}

fn link_parents(nodes: &mut [Node]) -> Res<()> {
    for p in 0..nodes.len() {
        for k in 0..nodes[p].children.len() {
            let c = nodes[p].children[k];
            if c == p {
                return bad(format!("nodes[{p}]"), "node is its own child");
            }
            match nodes[c].parent {
                Some(q) if q == p => {
                    return bad(format!("nodes[{p}]"), format!("lists child {c} twice"))
                }
                Some(q) => {
                    return bad(
                        format!("nodes[{c}]"),
                        format!("node has two parents (nodes[{q}] and nodes[{p}])"),
                    )
                }
                None => nodes[c].parent = Some(p),
            }
        }
    }
    // With one parent each, a cycle is a parent chain that never reaches a root.
    let mut state = vec![0u8; nodes.len()]; // 0 unknown, 1 on the current walk, 2 reaches a root
    for start in 0..nodes.len() {
        let mut walk = Vec::new();
        let mut n = start;
        loop {
            match state[n] {
                2 => break,
                1 => return bad(format!("nodes[{n}]"), "node hierarchy has a cycle"),
                _ => {}
            }
            state[n] = 1;
            walk.push(n);
            match nodes[n].parent {
                Some(p) => n = p,
                None => break,
            }
        }
        for w in walk {
            state[w] = 2;
        }
    }
    Ok(())
}

/// The exported roots. Some exporters list a child node as a scene root (Kenney's kits keep
/// an unused `tmpParent` above it); such a node is detached from its parent so that the
/// roots really are roots and world matrices start at them, as the scene says.
pub fn scene_roots(ctx: &Ctx, nodes: &mut [Node], warnings: &mut Vec<Warning>) -> Res<Vec<usize>> {
    let root = ctx.root;
    let scenes: Vec<usize> = match root.scene {
        Some(s) if s.value() < root.scenes.len() => vec![s.value()],
        Some(s) => {
            return dangling(
                "scene",
                format!("default scene {} does not exist", s.value()),
            )
        }
        None => (0..root.scenes.len()).collect(),
    };
    if root.scenes.is_empty() && !nodes.is_empty() {
        warnings.push(Warning::new(
            DiagnosticCode::NotExported,
            "scenes: the file has no scene, so no node is exported",
        ));
    }
    let mut roots = Vec::new();
    for s in scenes {
        for (k, n) in root.scenes[s].nodes.iter().enumerate() {
            let n = n.value();
            let path = format!("scenes[{s}].nodes[{k}]");
            let Some(node) = nodes.get_mut(n) else {
                return dangling(path, format!("node {n} does not exist"));
            };
            if let Some(p) = node.parent.take() {
                nodes[p].children.retain(|&c| c != n);
                warnings.push(Warning::at(
                    DiagnosticCode::Repaired,
                    path.to_string(),
                    format!("nodes[{n}] is a child of nodes[{p}]; detached to be a root"),
                ));
            }
            if !roots.contains(&n) {
                roots.push(n);
            }
        }
    }
    Ok(roots)
}

/// World matrices for every node (also those outside the scene, which skins may name) and
/// the `in_scene` flags. Parents always come before children in the walk, which is
/// guaranteed because the hierarchy has been checked to be a forest.
pub fn finish_transforms(nodes: &mut [Node], roots: &[usize]) {
    let mut stack: Vec<(usize, Mat4)> = (0..nodes.len())
        .filter(|&n| nodes[n].parent.is_none())
        .map(|n| (n, Mat4::IDENTITY))
        .collect();
    while let Some((n, parent_world)) = stack.pop() {
        let world = parent_world * nodes[n].local_matrix;
        nodes[n].world_matrix = world;
        stack.extend(nodes[n].children.iter().map(|&c| (c, world)));
    }
    let mut stack: Vec<usize> = roots.to_vec();
    while let Some(n) = stack.pop() {
        if let Some(node) = nodes.get_mut(n) {
            if !std::mem::replace(&mut node.in_scene, true) {
                stack.extend(node.children.iter().copied());
            }
        }
    }
}
