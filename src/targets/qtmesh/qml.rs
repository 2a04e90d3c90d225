//! The `.qml` scene beside the meshes, shaped like Balsam's: resources (textures,
//! materials, skins, morph targets) first, then the node hierarchy.

use super::names::{qml_id, Unique};
use crate::scene::{AlphaMode, Material, Scene, TextureRef};
use std::collections::HashMap;
use std::fmt::Write;

/// What the QML needs to know about each written mesh.
pub struct MeshInfo {
    /// Path relative to the QML file (`meshes/cube_mesh.mesh`).
    pub source: String,
    pub subset_materials: Vec<Option<usize>>,
    pub target_count: usize,
    pub target_has_normals: bool,
    pub target_has_tangents: bool,
}

/// Inputs of the QML writer. `meshes[i]` is `None` for glTF meshes no scene node uses.
pub struct QmlInput<'a> {
    pub scene: &'a Scene,
    pub meshes: &'a [Option<MeshInfo>],
    /// Path relative to the QML file of each image that was copied (`maps/a.png`).
    pub image_paths: &'a [Option<String>],
}

/// Writes numbers the shortest way that reads back exactly; never NaN or infinity,
/// which QML cannot parse.
fn num(f: f32) -> String {
    if f.is_finite() {
        format!("{f}")
    } else {
        "0".into()
    }
}

fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Linear factor to the sRGB `#aarrggbb` Qt takes for a colour property.
fn srgb_hex(c: [f32; 4]) -> String {
    let enc = |x: f32| {
        let x = x.clamp(0.0, 1.0);
        let s = if x <= 0.003_130_8 {
            12.92 * x
        } else {
            1.055 * x.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0).round() as u8
    };
    let a = (c[3].clamp(0.0, 1.0) * 255.0).round() as u8;
    format!(
        "#{a:02x}{:02x}{:02x}{:02x}",
        enc(c[0]),
        enc(c[1]),
        enc(c[2])
    )
}

struct Writer<'a> {
    input: &'a QmlInput<'a>,
    out: String,
    ids: Unique,
    /// (image, texCoord) to Texture id.
    textures: HashMap<(usize, u32), String>,
    /// Source material (None: the default one) to PrincipledMaterial id.
    materials: HashMap<Option<usize>, String>,
    skins: HashMap<usize, String>,
    node_ids: Vec<String>,
    warnings: Vec<String>,
}

pub fn write_qml(input: &QmlInput) -> (String, Vec<String>) {
    let scene = input.scene;
    let mut w = Writer {
        input,
        out: String::new(),
        ids: Unique::default(),
        textures: HashMap::new(),
        materials: HashMap::new(),
        skins: HashMap::new(),
        node_ids: Vec::new(),
        warnings: Vec::new(),
    };
    w.ids.claim("root", "");
    // Node ids first: skins refer to joints by id before the hierarchy is written.
    w.node_ids = scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let name = node_name(n.name.as_deref(), i);
            w.ids.claim(&qml_id(&name), "")
        })
        .collect();
    w.out
        .push_str("import QtQuick\nimport QtQuick3D\n\nNode {\n    id: root\n");
    w.out.push_str("\n    // Resources\n");
    let used = w.used_materials();
    for m in &used {
        w.material(*m);
    }
    w.skins();
    w.out.push_str("\n    // Nodes:\n");
    for &r in &scene.roots {
        w.node(r, 1, &mut vec![false; scene.nodes.len()]);
    }
    w.out.push_str("}\n");
    (w.out, w.warnings)
}

/// Balsam names an unnamed node after its glTF path.
pub fn node_name(name: Option<&str>, index: usize) -> String {
    match name {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => format!("nodes[{index}]"),
    }
}

impl Writer<'_> {
    /// Materials of every subset of every written mesh, in first-use order.
    fn used_materials(&self) -> Vec<Option<usize>> {
        let mut seen = Vec::new();
        for m in self.input.meshes.iter().flatten() {
            for s in &m.subset_materials {
                let s = s.filter(|i| *i < self.input.scene.materials.len());
                if !seen.contains(&s) {
                    seen.push(s);
                }
            }
        }
        seen
    }

    fn texture(&mut self, slot: &str, t: &TextureRef) -> Option<String> {
        if let Some(id) = self.textures.get(&(t.image, t.tex_coord)) {
            return Some(id.clone());
        }
        let path = self.input.image_paths.get(t.image)?.clone()?;
        if t.has_transform {
            self.warnings.push(format!(
                "images[{}] ({slot}): KHR_texture_transform is not written to the QML",
                t.image
            ));
        }
        let base = path.rsplit('/').next().unwrap_or(&path);
        let id = self.ids.claim(&qml_id(&format!("{base}_texture")), "");
        let mut s = format!("    Texture {{\n        id: {id}\n");
        let _ = writeln!(s, "        objectName: {}", quoted(base));
        if t.tex_coord == 1 {
            s.push_str("        indexUV: 1\n");
        } else if t.tex_coord > 1 {
            self.warnings.push(format!(
                "images[{}] ({slot}): texCoord {} is not available in Qt (UV0 used)",
                t.image, t.tex_coord
            ));
        }
        s.push_str("        generateMipmaps: true\n        mipFilter: Texture.Linear\n");
        let _ = writeln!(s, "        source: {}\n    }}", quoted(&path));
        self.out.push_str(&s);
        self.textures.insert((t.image, t.tex_coord), id.clone());
        Some(id)
    }

    fn material(&mut self, index: Option<usize>) {
        let default = Material::default();
        let scene = self.input.scene;
        let m = index
            .and_then(|i| scene.materials.get(i))
            .unwrap_or(&default);
        let name = match (index, &m.name) {
            (Some(_), Some(n)) if !n.is_empty() => n.clone(),
            (Some(i), _) => format!("materials[{i}]"),
            (None, _) => "PrincipledMaterial".into(),
        };
        let mut maps = Vec::new();
        let slots = [
            ("baseColorMap", &m.base_color_texture),
            ("metalnessMap", &m.metallic_roughness_texture),
            ("roughnessMap", &m.metallic_roughness_texture),
            ("normalMap", &m.normal_texture),
            ("occlusionMap", &m.occlusion_texture),
            ("emissiveMap", &m.emissive_texture),
        ];
        for (slot, tex) in slots {
            if let Some(t) = tex {
                if let Some(id) = self.texture(slot, t) {
                    maps.push((slot, id));
                }
            }
        }
        let id = self.ids.claim(&qml_id(&format!("{name}_material")), "");
        let mut s = format!("    PrincipledMaterial {{\n        id: {id}\n");
        let _ = writeln!(s, "        objectName: {}", quoted(&name));
        if m.base_color_factor != [1.0; 4] {
            let _ = writeln!(
                s,
                "        baseColor: \"{}\"",
                srgb_hex(m.base_color_factor)
            );
        }
        for (slot, map) in &maps {
            let _ = writeln!(s, "        {slot}: {map}");
        }
        // Qt's defaults (metalness 0) differ from glTF's (1), so both are always written;
        // Qt's default channels (metalness B, roughness G, occlusion R) are glTF's.
        let _ = writeln!(s, "        metalness: {}", num(m.metallic_factor));
        let _ = writeln!(s, "        roughness: {}", num(m.roughness_factor));
        if m.normal_texture.is_some() && m.normal_scale != 1.0 {
            let _ = writeln!(s, "        normalStrength: {}", num(m.normal_scale));
        }
        if m.occlusion_texture.is_some() && m.occlusion_strength != 1.0 {
            let _ = writeln!(s, "        occlusionAmount: {}", num(m.occlusion_strength));
        }
        if m.emissive_factor != [0.0; 3] || m.emissive_texture.is_some() {
            let [r, g, b] = m.emissive_factor;
            let _ = writeln!(
                s,
                "        emissiveFactor: Qt.vector3d({}, {}, {})",
                num(r),
                num(g),
                num(b)
            );
        }
        if m.double_sided {
            s.push_str("        cullMode: PrincipledMaterial.NoCulling\n");
        }
        if m.unlit {
            s.push_str("        lighting: PrincipledMaterial.NoLighting\n");
        }
        let mode = match m.alpha_mode {
            AlphaMode::Opaque => "Opaque",
            AlphaMode::Mask => "Mask",
            AlphaMode::Blend => "Blend",
        };
        let _ = writeln!(s, "        alphaMode: PrincipledMaterial.{mode}");
        if m.alpha_mode == AlphaMode::Mask {
            let _ = writeln!(s, "        alphaCutoff: {}", num(m.alpha_cutoff));
        }
        s.push_str("    }\n");
        self.out.push_str(&s);
        self.materials.insert(index, id);
    }

    /// Skins used by a scene node that draws a mesh.
    fn skins(&mut self) {
        let scene = self.input.scene;
        for n in scene
            .nodes
            .iter()
            .filter(|n| n.in_scene && n.mesh.is_some())
        {
            let Some(si) = n.skin else { continue };
            let Some(skin) = scene.skins.get(si) else {
                continue;
            };
            if self.skins.contains_key(&si) {
                continue;
            }
            let name = skin.name.clone().unwrap_or_else(|| format!("skins[{si}]"));
            // A bare `skin` id would shadow Model's `skin` property.
            let id = self.ids.claim(&qml_id(&format!("{name}_skin")), "");
            let mut s = format!("    Skin {{\n        id: {id}\n        joints: [\n");
            let joints: Vec<String> = skin
                .joints
                .iter()
                .filter_map(|&j| self.node_ids.get(j).cloned())
                .collect();
            let _ = writeln!(
                s,
                "            {}\n        ]",
                joints.join(",\n            ")
            );
            s.push_str("        inverseBindPoses: [\n");
            let poses: Vec<String> = skin
                .inverse_bind_matrices
                .iter()
                .map(|m| {
                    // Qt.matrix4x4 takes rows; glam stores columns.
                    let rows = m.transpose().to_cols_array();
                    let v: Vec<String> = rows.iter().map(|f| num(*f)).collect();
                    format!("Qt.matrix4x4({})", v.join(", "))
                })
                .collect();
            let _ = writeln!(
                s,
                "            {}\n        ]\n    }}",
                poses.join(",\n            ")
            );
            self.out.push_str(&s);
            self.skins.insert(si, id);
        }
    }

    fn node(&mut self, index: usize, depth: usize, visited: &mut Vec<bool>) {
        let scene = self.input.scene;
        let Some(node) = scene.nodes.get(index) else {
            return;
        };
        if std::mem::replace(&mut visited[index], true) {
            return;
        }
        let pad = "    ".repeat(depth);
        let mesh = node
            .mesh
            .and_then(|m| self.input.meshes.get(m))
            .and_then(|m| m.as_ref());
        let kind = if mesh.is_some() { "Model" } else { "Node" };
        let id = self.node_ids.get(index).cloned().unwrap_or_default();
        let mut s = format!("{pad}{kind} {{\n{pad}    id: {id}\n");
        let name = node_name(node.name.as_deref(), index);
        let _ = writeln!(s, "{pad}    objectName: {}", quoted(&name));
        let t = node.translation;
        if t != glam::Vec3::ZERO {
            let _ = writeln!(
                s,
                "{pad}    position: Qt.vector3d({}, {}, {})",
                num(t.x),
                num(t.y),
                num(t.z)
            );
        }
        let r = node.rotation;
        if r != glam::Quat::IDENTITY {
            // Qt.quaternion takes the scalar first.
            let _ = writeln!(
                s,
                "{pad}    rotation: Qt.quaternion({}, {}, {}, {})",
                num(r.w),
                num(r.x),
                num(r.y),
                num(r.z)
            );
        }
        let sc = node.scale;
        if sc != glam::Vec3::ONE {
            let _ = writeln!(
                s,
                "{pad}    scale: Qt.vector3d({}, {}, {})",
                num(sc.x),
                num(sc.y),
                num(sc.z)
            );
        }
        if let Some(mesh) = mesh {
            let _ = writeln!(s, "{pad}    source: {}", quoted(&mesh.source));
            if let Some(skin) = node.skin.and_then(|k| self.skins.get(&k)) {
                let _ = writeln!(s, "{pad}    skin: {skin}");
            }
            if mesh.target_count > 0 {
                let mut attrs = vec!["MorphTarget.Position"];
                if mesh.target_has_normals {
                    attrs.push("MorphTarget.Normal");
                }
                if mesh.target_has_tangents {
                    attrs.push("MorphTarget.Tangent");
                }
                let _ = writeln!(s, "{pad}    morphTargets: [");
                for t in 0..mesh.target_count {
                    let _ = writeln!(
                        s,
                        "{pad}        MorphTarget {{ objectName: \"target {t}\"; attributes: {} }}{}",
                        attrs.join(" | "),
                        if t + 1 < mesh.target_count { "," } else { "" }
                    );
                }
                let _ = writeln!(s, "{pad}    ]");
            }
            let mats: Vec<String> = mesh
                .subset_materials
                .iter()
                .map(|m| {
                    let m = m.filter(|i| *i < scene.materials.len());
                    self.materials.get(&m).cloned().unwrap_or_default()
                })
                .collect();
            let _ = writeln!(
                s,
                "{pad}    materials: [\n{pad}        {}\n{pad}    ]",
                mats.join(&format!(",\n{pad}        "))
            );
        }
        self.out.push_str(&s);
        for &c in &node.children {
            self.node(c, depth + 1, visited);
        }
        let _ = writeln!(self.out, "{pad}}}");
    }
}
