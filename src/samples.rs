//! Small glTF sources assetc generates itself: `assets-sample/` (through the `gen-samples`
//! binary) and the starter `assets/` of `assetc init`. They exercise the paths a real
//! project hits: several materials, external .bin and PNG, `data:` buffers, a node
//! hierarchy with a negative scale, a non-indexed strip, a GLB needing 32-bit indices.

use base64::Engine;
use serde_json::{json, Value};
use std::path::Path;

/// Accumulates one binary buffer with 4-byte aligned bufferViews.
#[derive(Default)]
struct BufferBuilder {
    data: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl BufferBuilder {
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.data.len().is_multiple_of(4) {
            self.data.push(0);
        }
        let mut v = json!({"buffer": 0, "byteOffset": self.data.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = json!(t);
        }
        self.data.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    fn vec3(&mut self, values: &[[f32; 3]]) -> usize {
        let view = self.view(bytemuck::cast_slice(values), Some(34962));
        let mut min = [f32::MAX; 3];
        let mut max = [f32::MIN; 3];
        for v in values {
            for k in 0..3 {
                min[k] = min[k].min(v[k]);
                max[k] = max[k].max(v[k]);
            }
        }
        self.accessor(json!({"bufferView": view, "componentType": 5126, "count": values.len(), "type": "VEC3", "min": min, "max": max}))
    }

    fn vec2(&mut self, values: &[[f32; 2]]) -> usize {
        let view = self.view(bytemuck::cast_slice(values), Some(34962));
        self.accessor(json!({"bufferView": view, "componentType": 5126, "count": values.len(), "type": "VEC2"}))
    }

    /// Plain float data (no bufferView target): animation inputs/outputs, weights,
    /// inverse-bind matrices. `ty` is the accessor type (`SCALAR`, `VEC3`, `MAT4`, ...).
    fn floats(&mut self, values: &[f32], ty: &str, components: usize) -> usize {
        let view = self.view(bytemuck::cast_slice(values), None);
        let mut a = json!({"bufferView": view, "componentType": 5126, "count": values.len() / components, "type": ty});
        if ty == "SCALAR" {
            let min = values.iter().copied().fold(f32::INFINITY, f32::min);
            let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            a["min"] = json!([min]);
            a["max"] = json!([max]);
        }
        self.accessor(a)
    }

    fn joints_u8(&mut self, values: &[[u8; 4]]) -> usize {
        let view = self.view(bytemuck::cast_slice(values), Some(34962));
        self.accessor(json!({"bufferView": view, "componentType": 5121, "count": values.len(), "type": "VEC4"}))
    }

    fn indices_u16(&mut self, values: &[u16]) -> usize {
        let view = self.view(bytemuck::cast_slice(values), Some(34963));
        self.accessor(json!({"bufferView": view, "componentType": 5123, "count": values.len(), "type": "SCALAR"}))
    }

    fn indices_u32(&mut self, values: &[u32]) -> usize {
        let view = self.view(bytemuck::cast_slice(values), Some(34963));
        self.accessor(json!({"bufferView": view, "componentType": 5125, "count": values.len(), "type": "SCALAR"}))
    }

    /// The buffer as a `data:` URI, for sources that embed it in the JSON.
    fn data_uri(&self) -> String {
        format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.data)
        )
    }

    fn accessor(&mut self, a: Value) -> usize {
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

fn gltf_doc(b: &BufferBuilder, buffer_uri: Option<String>, rest: Value) -> Value {
    let mut buffer = json!({"byteLength": b.data.len()});
    if let Some(uri) = buffer_uri {
        buffer["uri"] = json!(uri);
    }
    let mut doc = json!({
        "asset": {"version": "2.0", "generator": "assetc gen-samples"},
        "buffers": [buffer],
        "bufferViews": b.views,
        "accessors": b.accessors,
    });
    if let (Some(d), Some(r)) = (doc.as_object_mut(), rest.as_object()) {
        for (k, v) in r {
            d.insert(k.clone(), v.clone());
        }
    }
    doc
}

fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

fn write_json(path: &Path, doc: &Value) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(doc).map_err(std::io::Error::other)?;
    write(path, text.as_bytes())
}

/// A unit box with separate vertices per face (so each face has its own normal and UVs),
/// faces 0-3 in one primitive with a textured material, faces 4-5 in a second primitive
/// with a plain red material. External `.bin` and `.png`.
pub fn multi_material_box(dir: &Path) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut uvs = Vec::new();
    let axes: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
        ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]),
        ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ];
    for (n, u, v) in axes {
        for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            positions.push([
                0.5 * (n[0] + su * u[0] + sv * v[0]),
                0.5 * (n[1] + su * u[1] + sv * v[1]),
                0.5 * (n[2] + su * u[2] + sv * v[2]),
            ]);
            normals.push(n);
            uvs.push([(su + 1.0) * 0.5, 1.0 - (sv + 1.0) * 0.5]);
        }
    }
    let face_indices = |faces: std::ops::Range<u16>| -> Vec<u16> {
        faces
            .flat_map(|f| [0, 1, 2, 0, 2, 3].map(|k| f * 4 + k))
            .collect()
    };
    let pos = b.vec3(&positions);
    let nrm = b.vec3(&normals);
    let uv = b.vec2(&uvs);
    let first = b.indices_u16(&face_indices(0..4));
    let second = b.indices_u16(&face_indices(4..6));
    let attrs = json!({"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv});
    let doc = gltf_doc(
        &b,
        Some("box.bin".into()),
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "Box", "mesh": 0}],
            "meshes": [{"name": "Box", "primitives": [
                {"attributes": attrs, "indices": first, "material": 0},
                {"attributes": attrs, "indices": second, "material": 1}
            ]}],
            "materials": [
                {"name": "Checker", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0}},
                {"name": "Red", "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.1, 0.1, 1.0], "roughnessFactor": 0.4}}
            ],
            "textures": [{"source": 0, "sampler": 0}],
            "samplers": [{"magFilter": 9729, "minFilter": 9987}],
            "images": [{"uri": "checker.png"}]
        }),
    );
    write(&dir.join("box/box.bin"), &b.data)?;
    write_json(&dir.join("box/box.gltf"), &doc)?;
    let checker = image::RgbaImage::from_fn(64, 64, |x, y| {
        if (x / 8 + y / 8) % 2 == 0 {
            image::Rgba([240, 240, 240, 255])
        } else {
            image::Rgba([30, 60, 200, 255])
        }
    });
    let mut png = Vec::new();
    checker
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(std::io::Error::other)?;
    write(&dir.join("box/checker.png"), &png)
}

/// A root with two children sharing one triangle mesh: one translated and rotated, one
/// mirrored by a negative scale (its winding must be flipped when baked), the second
/// given by a matrix. Buffer embedded as a `data:` URI.
pub fn hierarchy(dir: &Path) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let pos = b.vec3(&[
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ]);
    let idx = b.indices_u16(&[0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]);
    let uri = b.data_uri();
    let doc = gltf_doc(
        &b,
        Some(uri),
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [
                {"name": "Root", "children": [1, 2], "translation": [0.0, 1.0, 0.0]},
                {"name": "Turned", "mesh": 0, "translation": [2.0, 0.0, 0.0], "rotation": [0.0, std::f32::consts::FRAC_1_SQRT_2, 0.0, std::f32::consts::FRAC_1_SQRT_2]},
                {"name": "Mirrored", "mesh": 0, "matrix": [-1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, -2.0,0.0,0.0,1.0]}
            ],
            "meshes": [{"name": "Tetrahedron", "primitives": [{"attributes": {"POSITION": pos}, "indices": idx}]}]
        }),
    );
    write_json(&dir.join("hierarchy.gltf"), &doc)
}

/// A non-indexed TRIANGLE_STRIP ribbon with normals and no UVs (so tangents are the fixed
/// fallback).
pub fn strip(dir: &Path) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let positions: Vec<[f32; 3]> = (0..12)
        .map(|i| {
            [
                (i / 2) as f32 * 0.5,
                (i % 2) as f32,
                ((i / 2) as f32 * 0.8).sin() * 0.2,
            ]
        })
        .collect();
    let pos = b.vec3(&positions);
    let uri = b.data_uri();
    let doc = gltf_doc(
        &b,
        Some(uri),
        json!({
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "Ribbon", "mesh": 0}],
            "meshes": [{"name": "Ribbon", "primitives": [{"attributes": {"POSITION": pos}, "mode": 5}]}]
        }),
    );
    write_json(&dir.join("strip.gltf"), &doc)
}

/// A cube as a non-indexed triangle soup with per-face normals, as many exporters write
/// it: 36 corners of which welding keeps 24.
pub fn triangle_soup(dir: &Path) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |a: f32, c: f32| {
                let mut p = [0.0; 3];
                p[axis] = 0.5 * sign;
                p[u] = 0.5 * a;
                p[v] = 0.5 * c * sign;
                p
            };
            for (a, c) in [
                (-1.0, -1.0),
                (1.0, -1.0),
                (1.0, 1.0),
                (-1.0, -1.0),
                (1.0, 1.0),
                (-1.0, 1.0),
            ] {
                positions.push(corner(a, c));
                normals.push(n);
            }
        }
    }
    let pos = b.vec3(&positions);
    let nrm = b.vec3(&normals);
    let uri = b.data_uri();
    let doc = gltf_doc(
        &b,
        Some(uri),
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0]}],
            "nodes": [{"name": "Soup", "mesh": 0}],
            "meshes": [{"name": "Soup", "primitives": [{"attributes": {"POSITION": pos, "NORMAL": nrm}}]}]
        }),
    );
    write_json(&dir.join("soup.gltf"), &doc)
}

/// A 257 x 256 height field (65,792 vertices, above the u16 index range) in a GLB.
pub fn big_terrain(dir: &Path) -> std::io::Result<()> {
    height_field_glb(&dir.join("terrain/big_terrain.glb"), 257, 256)
}

/// What material a generated height field gets (`gen-samples --grid ... --material`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldMaterial {
    /// No material at all.
    None,
    /// A plain green material without textures (the bundled `big_terrain.glb`).
    Plain,
    /// A material with a small embedded normal texture (so tangents are needed).
    NormalMapped,
}

/// The shape of a generated height field (`gen-samples --grid ... --surface`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldSurface {
    /// Long gentle hills, 1/16 unit between vertices, y = 0.5 sin(1.3x) cos(0.7z): about
    /// 77 vertices per wavelength and slopes under 0.65, so simplification and meshlet
    /// cones have little to do (the bundled `big_terrain.glb`, the "flat" benchmark fields).
    #[default]
    Gentle,
    /// The unit square, y = 0.05 sin(40x) cos(37z): slopes up to 2, the normal turning
    /// everywhere, so the simplifier meets its error limit and meshlet cones differ (the
    /// "curved" benchmark fields: 709 x 709 vertices give 1,002,528 triangles).
    Curved,
}

/// A height field's vertices and triangles (what [`height_field_glb_with`] stores).
pub struct FieldMesh {
    pub positions: Vec<[f32; 3]>,
    /// The surface's analytic unit normals.
    pub normals: Vec<[f32; 3]>,
    /// 0..1 across the field.
    pub uvs: Vec<[f32; 2]>,
    pub indices: Vec<u32>,
}

/// A `w` x `h` vertex height field of `surface`: 2(w-1)(h-1) triangles, rows of quads
/// each cut into two triangles.
pub fn height_field(w: u32, h: u32, surface: FieldSurface) -> FieldMesh {
    // (x, z) of grid vertex (i, j), then height and its gradient (dy/dx, dy/dz).
    let at = |i: u32, j: u32| match surface {
        FieldSurface::Gentle => (i as f32 / 16.0, j as f32 / 16.0),
        FieldSurface::Curved => (
            i as f32 / (w - 1).max(1) as f32,
            j as f32 / (h - 1).max(1) as f32,
        ),
    };
    let shape = |x: f32, z: f32| match surface {
        FieldSurface::Gentle => (
            (x * 1.3).sin() * (z * 0.7).cos() * 0.5,
            1.3 * (x * 1.3).cos() * (z * 0.7).cos() * 0.5,
            -0.7 * (x * 1.3).sin() * (z * 0.7).sin() * 0.5,
        ),
        FieldSurface::Curved => (
            0.05 * (40.0 * x).sin() * (37.0 * z).cos(),
            2.0 * (40.0 * x).cos() * (37.0 * z).cos(),
            -1.85 * (40.0 * x).sin() * (37.0 * z).sin(),
        ),
    };
    let count = (w * h) as usize;
    let (mut positions, mut normals, mut uvs) = (
        Vec::with_capacity(count),
        Vec::with_capacity(count),
        Vec::with_capacity(count),
    );
    for j in 0..h {
        for i in 0..w {
            let (x, z) = at(i, j);
            let (y, dx, dz) = shape(x, z);
            positions.push([x, y, z]);
            // The surface's gradient: n = (-dy/dx, 1, -dy/dz), normalised.
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            normals.push([-dx / len, 1.0 / len, -dz / len]);
            uvs.push([i as f32 / (w - 1) as f32, j as f32 / (h - 1) as f32]);
        }
    }
    let mut indices = Vec::with_capacity(((w - 1) * (h - 1) * 6) as usize);
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            let i = y * w + x;
            indices.extend_from_slice(&[i, i + w, i + 1, i + 1, i + w, i + w + 1]);
        }
    }
    FieldMesh {
        positions,
        normals,
        uvs,
        indices,
    }
}

/// A `w` x `h` vertex height field with UVs as one GLB primitive: 2(w-1)(h-1) triangles.
/// Benchmarks use it for meshes of any size (1001 x 501 gives 1,000,000 triangles).
pub fn height_field_glb(path: &Path, w: u32, h: u32) -> std::io::Result<()> {
    height_field_glb_with(path, w, h, false, FieldMaterial::Plain)
}

/// [`height_field_glb`] with a choice of material and, with `normals`, analytic NORMALs
/// (without them assetc generates normals itself), on the gentle surface.
pub fn height_field_glb_with(
    path: &Path,
    w: u32,
    h: u32,
    normals: bool,
    material: FieldMaterial,
) -> std::io::Result<()> {
    height_field_glb_of(path, w, h, FieldSurface::Gentle, normals, material)
}

/// [`height_field_glb_with`] on a chosen surface.
pub fn height_field_glb_of(
    path: &Path,
    w: u32,
    h: u32,
    surface: FieldSurface,
    normals: bool,
    material: FieldMaterial,
) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let field = height_field(w, h, surface);
    let pos = b.vec3(&field.positions);
    let uv = b.vec2(&field.uvs);
    let mut attributes = json!({"POSITION": pos, "TEXCOORD_0": uv});
    if normals {
        attributes["NORMAL"] = json!(b.vec3(&field.normals));
    }
    let FieldMesh { indices, .. } = field;
    let idx = b.indices_u32(&indices);
    let mut primitive = json!({"attributes": attributes, "indices": idx});
    let mut rest = json!({
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Terrain", "mesh": 0}],
    });
    match material {
        FieldMaterial::None => {}
        FieldMaterial::Plain => {
            primitive["material"] = json!(0);
            rest["materials"] = json!([{"name": "Grass", "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.6, 0.2, 1.0], "metallicFactor": 0.0}}]);
        }
        FieldMaterial::NormalMapped => {
            // A 64 x 64 tangent-space normal map of gentle bumps, embedded in the GLB.
            let bumps = image::RgbImage::from_fn(64, 64, |x, y| {
                let a = (x as f32 * 0.4).sin() * 0.3;
                let c = (y as f32 * 0.4).cos() * 0.3;
                let len = (a * a + c * c + 1.0).sqrt();
                let byte = |v: f32| ((v / len * 0.5 + 0.5) * 255.0).round() as u8;
                image::Rgb([byte(a), byte(c), byte(1.0)])
            });
            let mut png = Vec::new();
            bumps
                .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .map_err(std::io::Error::other)?;
            let view = b.view(&png, None);
            primitive["material"] = json!(0);
            rest["materials"] = json!([{"name": "BumpyGrass", "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.6, 0.2, 1.0], "metallicFactor": 0.0}, "normalTexture": {"index": 0}}]);
            rest["textures"] = json!([{"source": 0}]);
            rest["images"] = json!([{"bufferView": view, "mimeType": "image/png"}]);
        }
    }
    rest["meshes"] = json!([{"name": "Terrain", "primitives": [primitive]}]);
    let doc = gltf_doc(&b, None, rest);
    let mut json_bytes = serde_json::to_vec(&doc).map_err(std::io::Error::other)?;
    while json_bytes.len() % 4 != 0 {
        json_bytes.push(b' ');
    }
    let mut bin = b.data;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let mut glb = Vec::new();
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(total as u32).to_le_bytes());
    glb.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json_bytes);
    glb.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    write(path, &glb)
}

/// `skinned_clips.gltf`: a ribbon skinned to a chain of three joints (`hip` at the
/// origin, `knee` and `foot` 1 above each other along +Y; vertex pairs 0.1 either side
/// of the axis at heights 0..=3, each weighted 1 to the joint at its height, the top pair
/// to `foot`), with two clips:
/// - `wave`, CUBICSPLINE, keys at 0, 1, 2 s: `hip` turns about Z (key values identity,
///   0.6 rad, identity; tangents 0.9, 0, -0.9 on the quaternion's z), and `knee` moves
///   although its three translation keys are equal, (0, 1, 0): out-tangent (4, 0, 0) at
///   key 0, zero at key 1, in-tangent (4, 0, 0) at key 2, so x is 0.5 at 0.5 s
///   (4 * (u^3 - 2u^2 + u) at u = 1/2), back to 0 at 1 s and -0.5 at 1.5 s
///   (4 * (u^3 - u^2));
/// - `late`, LINEAR, keys below zero as some exporters write them: `foot` translation at
///   -0.5 and 0.5 s, `knee` rotation at -0.25 and 0.75 s.
pub fn skinned_clips(dir: &Path) -> std::io::Result<()> {
    let mut b = BufferBuilder::default();
    let mut positions = Vec::new();
    let mut joints = Vec::new();
    for level in 0..4u8 {
        for x in [-0.1f32, 0.1] {
            positions.push([x, f32::from(level), 0.0]);
            joints.push([level.min(2), 0, 0, 0]);
        }
    }
    let weights: Vec<f32> = (0..8).flat_map(|_| [1.0, 0.0, 0.0, 0.0]).collect();
    let mut indices = Vec::new();
    for level in 0..3u16 {
        let v = 2 * level;
        indices.extend_from_slice(&[v, v + 1, v + 3, v, v + 3, v + 2]);
    }
    let pos = b.vec3(&positions);
    let jnt = b.joints_u8(&joints);
    let wgt = b.floats(&weights, "VEC4", 4);
    let idx = b.indices_u16(&indices);
    let mut ibm = Vec::new();
    for y in [0.0f32, -1.0, -2.0] {
        ibm.extend_from_slice(&[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, y, 0.0, 1.0,
        ]);
    }
    let ibm = b.floats(&ibm, "MAT4", 16);
    let wave_times = b.floats(&[0.0, 1.0, 2.0], "SCALAR", 1);
    let (s, c) = (0.3f32.sin(), 0.3f32.cos());
    #[rustfmt::skip]
    let hip_rotation = b.floats(&[
        0.0, 0.0, 0.0, 0.0,  0.0, 0.0, 0.0, 1.0,  0.0, 0.0, 0.9, 0.0,
        0.0, 0.0, 0.0, 0.0,  0.0, 0.0, s, c,      0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, -0.9, 0.0, 0.0, 0.0, 0.0, 1.0,  0.0, 0.0, 0.0, 0.0,
    ], "VEC4", 4);
    #[rustfmt::skip]
    let knee_translation = b.floats(&[
        0.0, 0.0, 0.0,  0.0, 1.0, 0.0,  4.0, 0.0, 0.0,
        0.0, 0.0, 0.0,  0.0, 1.0, 0.0,  0.0, 0.0, 0.0,
        4.0, 0.0, 0.0,  0.0, 1.0, 0.0,  0.0, 0.0, 0.0,
    ], "VEC3", 3);
    let foot_times = b.floats(&[-0.5, 0.5], "SCALAR", 1);
    let foot_translation = b.floats(&[0.0, 1.0, 0.0, 0.5, 1.0, 0.0], "VEC3", 3);
    let knee_times = b.floats(&[-0.25, 0.75], "SCALAR", 1);
    let knee_rotation = b.floats(&[0.0, 0.0, 0.0, 1.0, s, 0.0, 0.0, c], "VEC4", 4);
    let uri = b.data_uri();
    let doc = gltf_doc(
        &b,
        Some(uri),
        json!({
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": [
                {"name": "ribbon", "mesh": 0, "skin": 0},
                {"name": "hip", "children": [2]},
                {"name": "knee", "translation": [0.0, 1.0, 0.0], "children": [3]},
                {"name": "foot", "translation": [0.0, 1.0, 0.0]}
            ],
            "meshes": [{"name": "ribbon", "primitives": [{
                "attributes": {"POSITION": pos, "JOINTS_0": jnt, "WEIGHTS_0": wgt},
                "indices": idx
            }]}],
            "skins": [{"joints": [1, 2, 3], "inverseBindMatrices": ibm, "skeleton": 1}],
            "animations": [
                {"name": "wave", "samplers": [
                    {"input": wave_times, "output": hip_rotation, "interpolation": "CUBICSPLINE"},
                    {"input": wave_times, "output": knee_translation, "interpolation": "CUBICSPLINE"}
                ], "channels": [
                    {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
                    {"sampler": 1, "target": {"node": 2, "path": "translation"}}
                ]},
                {"name": "late", "samplers": [
                    {"input": foot_times, "output": foot_translation},
                    {"input": knee_times, "output": knee_rotation}
                ], "channels": [
                    {"sampler": 0, "target": {"node": 3, "path": "translation"}},
                    {"sampler": 1, "target": {"node": 2, "path": "rotation"}}
                ]}
            ]
        }),
    );
    write_json(&dir.join("skinned_clips.gltf"), &doc)
}

/// Writes every sample below `dir`.
pub fn write_all(dir: &Path) -> std::io::Result<()> {
    multi_material_box(dir)?;
    hierarchy(dir)?;
    strip(dir)?;
    triangle_soup(dir)?;
    big_terrain(dir)
}
