//! The `.qml` scene beside the meshes, shaped like Balsam's: resources (textures,
//! materials, skins, morph targets) first, then the node hierarchy.

use super::literals::{num, quoted};
use super::names::{qml_id, Unique};
use super::{placed, timeline};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::scene::{AlphaMode, Material, Sampler, Scene, TextureRef, TextureTransform, Wrap};
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

type TextureKey = (usize, u32, Sampler, Option<[u32; 5]>);

/// A glTF sampler in Qt's terms, as Balsam 6.12 writes it: a tiling mode only when it is
/// not Repeat (Qt's default), then `magFilter: Texture.Nearest` only for NEAREST (Qt's
/// default is Linear).
fn sampler(s: Sampler) -> String {
    let mut out = String::new();
    for (property, wrap) in [
        ("tilingModeHorizontal", s.wrap_s),
        ("tilingModeVertical", s.wrap_t),
    ] {
        let mode = match wrap {
            Wrap::Repeat => continue,
            Wrap::ClampToEdge => "ClampToEdge",
            Wrap::MirroredRepeat => "MirroredRepeat",
        };
        let _ = writeln!(out, "        {property}: Texture.{mode}");
    }
    if s.mag_nearest {
        out.push_str("        magFilter: Texture.Nearest\n");
    }
    out
}

/// `KHR_texture_transform` in Qt's terms, as Balsam writes it. glTF maps `uv` to
/// `offset + R(rotation) * scale * uv`; in Qt's UVs (`q = (u, 1 - v)`) that is
/// `(0, 1) + (offset.x, -offset.y) + R'(rotation) * scale * (q - (0, 1))` with `R'` the
/// counter-clockwise rotation Qt's `rotationUV` (degrees) applies about the pivot: so
/// the pivot is (0, 1) and V's offset changes sign.
fn texture_transform(tr: &TextureTransform) -> String {
    let mut s = String::from("        pivotV: 1\n");
    let [ox, oy] = tr.offset;
    if ox != 0.0 {
        let _ = writeln!(s, "        positionU: {}", num(ox));
    }
    if oy != 0.0 {
        let _ = writeln!(s, "        positionV: {}", num(-oy));
    }
    if tr.rotation != 0.0 {
        let _ = writeln!(s, "        rotationUV: {}", num(tr.rotation.to_degrees()));
    }
    let [su, sv] = tr.scale;
    if su != 1.0 {
        let _ = writeln!(s, "        scaleU: {}", num(su));
    }
    if sv != 1.0 {
        let _ = writeln!(s, "        scaleV: {}", num(sv));
    }
    s
}

struct Writer<'a> {
    input: &'a QmlInput<'a>,
    out: String,
    ids: Unique,
    /// (image, texCoord, transform bits) to Texture id.
    textures: HashMap<TextureKey, String>,
    /// Source material (None: the default one) to PrincipledMaterial id.
    materials: HashMap<Option<usize>, String>,
    skins: HashMap<usize, String>,
    node_ids: Vec<String>,
    /// Morph target ids of each node's Model (empty for none).
    morph_ids: Vec<Vec<String>>,
    warnings: Vec<Warning>,
}

pub fn write_qml(input: &QmlInput) -> (String, Vec<Warning>) {
    let scene = input.scene;
    let mut w = Writer {
        input,
        out: String::new(),
        ids: Unique::default(),
        textures: HashMap::new(),
        materials: HashMap::new(),
        skins: HashMap::new(),
        node_ids: Vec::new(),
        morph_ids: vec![Vec::new(); scene.nodes.len()],
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
    let written = written_nodes(scene);
    w.out.push_str("\n    // Resources\n");
    let used = w.used_materials();
    for m in &used {
        w.material(*m);
    }
    w.skins();
    w.morph_targets(&written);
    w.out.push_str("\n    // Nodes:\n");
    w.hierarchy();
    let node_targets: Vec<Option<String>> = written
        .iter()
        .zip(&w.node_ids)
        .map(|(&on, id)| on.then(|| id.clone()))
        .collect();
    let timelines = timeline::write_timelines(
        scene,
        &timeline::Targets {
            nodes: &node_targets,
            morph_targets: &w.morph_ids,
        },
        &mut w.ids,
        &mut w.warnings,
    );
    if let Some(t) = &timelines {
        w.out.push_str("\n    // Animations:\n");
        w.out.push_str(t);
    }
    w.out.push_str("}\n");
    let header = if timelines.is_some() {
        "import QtQuick\nimport QtQuick3D\nimport QtQuick.Timeline\n\nNode {\n    id: root\n"
    } else {
        "import QtQuick\nimport QtQuick3D\n\nNode {\n    id: root\n"
    };
    (format!("{header}{}", w.out), w.warnings)
}

/// Appends `props` (lines relative to an element's body) indented below `pad`.
fn push_indented(out: &mut String, props: &str, pad: &str) {
    for line in props.lines() {
        let _ = writeln!(out, "{pad}    {line}");
    }
}

/// Nodes the hierarchy writes: those reached from the roots, each once.
fn written_nodes(scene: &Scene) -> Vec<bool> {
    let mut seen = vec![false; scene.nodes.len()];
    let mut stack: Vec<usize> = scene.roots.iter().rev().copied().collect();
    while let Some(i) = stack.pop() {
        match seen.get_mut(i) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        stack.extend(scene.nodes[i].children.iter().rev());
    }
    seen
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
        let transform = t.transform.filter(|tr| *tr != TextureTransform::default());
        let key = (
            t.image,
            t.tex_coord,
            t.sampler,
            transform.map(|tr| {
                [
                    tr.offset[0].to_bits(),
                    tr.offset[1].to_bits(),
                    tr.rotation.to_bits(),
                    tr.scale[0].to_bits(),
                    tr.scale[1].to_bits(),
                ]
            }),
        );
        if let Some(id) = self.textures.get(&key) {
            return Some(id.clone());
        }
        let path = self.input.image_paths.get(t.image)?.clone()?;
        let base = path.rsplit('/').next().unwrap_or(&path);
        let id = self.ids.claim(&qml_id(&format!("{base}_texture")), "");
        let mut s = format!("    Texture {{\n        id: {id}\n");
        let _ = writeln!(s, "        objectName: {}", quoted(base));
        if t.tex_coord == 1 {
            s.push_str("        indexUV: 1\n");
        } else if t.tex_coord > 1 {
            self.warnings.push(Warning::at(
                DiagnosticCode::TargetLimit,
                format!("images[{}] ({slot})", t.image),
                format!("texCoord {} is not available in Qt (UV0 used)", t.tex_coord),
            ));
        }
        s.push_str(&sampler(t.sampler));
        if let Some(tr) = transform {
            s.push_str(&texture_transform(&tr));
        }
        s.push_str("        generateMipmaps: true\n        mipFilter: Texture.Linear\n");
        let _ = writeln!(s, "        source: {}\n    }}", quoted(&path));
        self.out.push_str(&s);
        self.textures.insert(key, id.clone());
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

    /// One `MorphTarget` per target of each written Model (weights and animations are
    /// per instance), with the node's initial weight.
    fn morph_targets(&mut self, written: &[bool]) {
        let scene = self.input.scene;
        for (i, node) in scene.nodes.iter().enumerate() {
            if !written[i] {
                continue;
            }
            let Some(mesh) = node
                .mesh
                .and_then(|m| self.input.meshes.get(m))
                .and_then(|m| m.as_ref())
            else {
                continue;
            };
            let mut attrs = vec!["MorphTarget.Position"];
            if mesh.target_has_normals {
                attrs.push("MorphTarget.Normal");
            }
            if mesh.target_has_tangents {
                attrs.push("MorphTarget.Tangent");
            }
            let weights = scene
                .morph_weights
                .iter()
                .find(|w| w.node == i)
                .map_or(&[][..], |w| w.weights.as_slice());
            let node_id = self.node_ids.get(i).cloned().unwrap_or_default();
            let mut ids = Vec::with_capacity(mesh.target_count);
            for t in 0..mesh.target_count {
                let id = self
                    .ids
                    .claim(&qml_id(&format!("{node_id}_morphtarget{t}")), "");
                let name = format!("target {t}");
                let _ = write!(
                    self.out,
                    "    MorphTarget {{\n        id: {id}\n        objectName: {}\n        attributes: {}\n",
                    quoted(&name),
                    attrs.join(" | ")
                );
                match weights.get(t) {
                    Some(&w) if w != 0.0 => {
                        let _ = writeln!(self.out, "        weight: {}", num(w));
                    }
                    _ => {}
                }
                self.out.push_str("    }\n");
                ids.push(id);
            }
            self.morph_ids[i] = ids;
        }
    }

    /// Writes the node hierarchy from the roots, depth first, each node once. The walk
    /// keeps its own stack: a source controls the depth (a chain of 4,000 nodes overflowed
    /// the thread's stack when this recursed).
    fn hierarchy(&mut self) {
        let scene = self.input.scene;
        // The first light and camera of each node, found once rather than per node.
        let mut light_of = vec![None; scene.nodes.len()];
        for (i, l) in scene.lights.iter().enumerate().rev() {
            if let Some(slot) = light_of.get_mut(l.node) {
                *slot = Some(i);
            }
        }
        let mut camera_of = vec![None; scene.nodes.len()];
        for (i, c) in scene.cameras.iter().enumerate().rev() {
            if let Some(slot) = camera_of.get_mut(c.node) {
                *slot = Some(i);
            }
        }
        enum Step {
            Open { index: usize, depth: usize },
            Close { depth: usize },
        }
        let mut visited = vec![false; scene.nodes.len()];
        let mut stack: Vec<Step> = scene
            .roots
            .iter()
            .rev()
            .map(|&index| Step::Open { index, depth: 1 })
            .collect();
        while let Some(step) = stack.pop() {
            match step {
                Step::Open { index, depth } => {
                    let Some(node) = scene.nodes.get(index) else {
                        continue;
                    };
                    if std::mem::replace(&mut visited[index], true) {
                        continue;
                    }
                    let light = light_of[index].and_then(|i| scene.lights.get(i));
                    let camera = camera_of[index].and_then(|i| scene.cameras.get(i));
                    self.node(index, depth, light, camera);
                    stack.push(Step::Close { depth });
                    stack.extend(node.children.iter().rev().map(|&index| Step::Open {
                        index,
                        depth: depth + 1,
                    }));
                }
                Step::Close { depth } => {
                    let _ = writeln!(self.out, "{}}}", indent(depth));
                }
            }
        }
    }

    /// Writes one node's element up to (not including) its children and closing brace.
    fn node(
        &mut self,
        index: usize,
        depth: usize,
        light: Option<&crate::scene::Light>,
        camera: Option<&crate::scene::Camera>,
    ) {
        let scene = self.input.scene;
        let Some(node) = scene.nodes.get(index) else {
            return;
        };
        let pad = indent(depth);
        let mesh = node
            .mesh
            .and_then(|m| self.input.meshes.get(m))
            .and_then(|m| m.as_ref());
        // A node that only places a light or camera becomes it, as in Balsam's scenes;
        // one that also draws a mesh gets it as a child.
        let (kind, own) = match (mesh, light, camera) {
            (Some(_), _, _) => ("Model", None),
            (None, Some(l), _) => {
                let (k, props) = placed::light(l);
                (k, Some(props))
            }
            (None, None, Some(c)) => {
                let (k, props) = placed::camera(c);
                (k, Some(props))
            }
            (None, None, None) => ("Node", None),
        };
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
            let morphs = self.morph_ids.get(index).map_or(&[][..], Vec::as_slice);
            if !morphs.is_empty() {
                let _ = writeln!(
                    s,
                    "{pad}    morphTargets: [\n{pad}        {}\n{pad}    ]",
                    morphs.join(&format!(",\n{pad}        "))
                );
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
        // What the element itself is not becomes a child: a light or camera beside a
        // mesh, a camera beside a light.
        let light_is_own = mesh.is_none() && light.is_some();
        let camera_is_own = mesh.is_none() && light.is_none();
        if let Some(props) = own {
            push_indented(&mut s, &props, &pad);
        }
        {
            let attached = [
                light.filter(|_| !light_is_own).map(placed::light),
                camera.filter(|_| !camera_is_own).map(placed::camera),
            ];
            for (kind, props) in attached.into_iter().flatten() {
                let _ = writeln!(s, "{pad}    {kind} {{");
                push_indented(&mut s, &props, &format!("{pad}    "));
                let _ = writeln!(s, "{pad}    }}");
            }
        }
        self.out.push_str(&s);
    }
}

/// Nesting levels the QML indents: deeper elements are written at this level's
/// indentation, so that a chain of thousands of nodes (3,000 wrote 69 MB) costs a bounded
/// number of bytes per node. QML does not read indentation; real rigs nest far less
/// (the corpus: 8 levels).
pub const MAX_INDENT_LEVELS: usize = 32;

/// The indentation of an element `depth` levels deep (4 spaces a level, at most
/// [`MAX_INDENT_LEVELS`]).
fn indent(depth: usize) -> String {
    "    ".repeat(depth.min(MAX_INDENT_LEVELS))
}
