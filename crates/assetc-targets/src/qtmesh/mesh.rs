//! One glTF mesh to one Qt `.mesh`: a shared vertex buffer, one subset per primitive,
//! reduced levels of detail and morph targets.

use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::qtmesh::{
    attr, component, target_block_size, IndexBuffer, Lod, QtMesh, Subset, TargetBuffer,
    VertexBuffer, VertexEntry,
};
use crate::pipeline::geometry::{xyz, Geometry, Semantic};
use crate::pipeline::lightmap_uvs::pack_charts;
use crate::pipeline::lods::LodLevel;
use crate::pipeline::prepare::{prepare, PrepareCache, PrepareRequest, PrimitiveId, WeldRequest};
use crate::pipeline::MeshSettings;
use crate::scene::{Mesh, Scene};
use glam::Vec3;

/// One primitive ready to pack: its streams and reduced levels.
struct Prim {
    g: Geometry,
    lods: Vec<LodLevel>,
    /// Morph targets of the source primitive (some may carry no stream at all).
    target_count: usize,
}

impl Prim {
    fn vertex_count(&self) -> usize {
        self.g.vertex_count()
    }
    fn get(&self, semantic: Semantic, set: u32) -> Option<&[[f32; 4]]> {
        self.g.stream(semantic, set)
    }
}

/// The streams a Qt mesh stores: normal, tangent, two UV sets, colour, one joints/weights
/// set and morph target deltas.
fn stored(semantic: Semantic, set: u32) -> bool {
    use Semantic::*;
    match semantic {
        Normal | Tangent | Color | Joints | Weights => set == 0,
        TexCoord => set <= 1,
        MorphPosition | MorphNormal | MorphTangent => true,
        Position | LightmapUv => true,
    }
}

/// assimp's JoinIdenticalVertices tolerance (Euclidean, per attribute), which Balsam
/// applies: exporters' float noise (normals differing in the 7th digit) does not keep
/// vertex copies apart, and our vertex counts are Balsam's.
const WELD_EPSILON: f32 = 1e-5;

/// What a built mesh holds, for the QML that points at it.
pub struct BuiltMesh {
    pub mesh: QtMesh,
    /// Source material of each subset (`None`: the primitive had none).
    pub subset_materials: Vec<Option<usize>>,
    pub target_count: usize,
    pub target_has_normals: bool,
    pub target_has_tangents: bool,
}

/// Which optional attributes the mesh's vertex buffer carries: any primitive having one
/// gives it to all (the others get neutral values), since a Qt mesh has one layout.
#[derive(Default, Clone, Copy)]
struct Layout {
    normals: bool,
    uv0: bool,
    uv1: bool,
    tangents: bool,
    skin: bool,
    colors: bool,
    /// Generated lightmap UVs (`attr_lightmapuv`).
    lightmap: bool,
}

/// Why one glTF mesh cannot become a Qt mesh.
#[derive(Debug, thiserror::Error)]
pub enum QtMeshBuildError {
    #[error("meshes[{0}] does not exist")]
    NoMesh(usize),
    #[error("{gltf_path}: JOINTS_n and WEIGHTS_n must come together")]
    UnpairedSkin { gltf_path: String },
    #[error(transparent)]
    Prepare(#[from] crate::pipeline::prepare::PrepareError),
    #[error("meshes[{index}]: {source}")]
    Lightmap {
        index: usize,
        source: crate::pipeline::lightmap_uvs::LightmapError,
    },
    #[error("{0} vertices do not fit 32-bit indices")]
    TooManyVertices(usize),
}

/// Builds the Qt mesh for `scene.meshes[index]`. `with_lods` is false for versions
/// before 6, which cannot hold levels of detail.
pub fn build_mesh(
    scene: &Scene,
    index: usize,
    settings: &MeshSettings,
    with_lods: bool,
    cache: &PrepareCache,
    warnings: &mut Vec<Warning>,
) -> Result<BuiltMesh, QtMeshBuildError> {
    let mesh: &Mesh = scene
        .meshes
        .get(index)
        .ok_or(QtMeshBuildError::NoMesh(index))?;
    // Balsam writes the source's tangent frame only for meshes whose materials sample a
    // normal map; everything else would be unused bytes.
    let normal_mapped = mesh.primitives.iter().any(|p| {
        p.material
            .and_then(|m| scene.materials.get(m))
            .is_some_and(|m| m.normal_texture.is_some())
    });
    // The simplifier bounds its error on the rest pose; a skinned or morphing mesh moves
    // its vertices far from it, and Qt picks a level by distance alone, so such meshes
    // get none (a bent arm would snap to a straight, coarser one).
    let deforms = mesh
        .primitives
        .iter()
        .any(|p| !p.joints.is_empty() || !p.targets.is_empty());
    let with_lods = with_lods && !deforms;
    // Geometry stays in mesh space (node transforms go in the QML). Vertices are welded
    // the way Balsam's assimp does (every attribute within WELD_EPSILON of an earlier
    // vertex), and vertices no triangle uses are dropped, as Balsam does.
    let request = PrepareRequest {
        keep: &stored,
        transform: glam::Mat4::IDENTITY,
        normals: settings
            .generate_normals
            .then_some(settings.normal_smoothing_angle),
        // Balsam writes a tangent frame only when the source has one (terrain.glb, normal
        // mapped without tangents, gets none; Qt then derives tangents in the shader).
        tangents: None,
        // Balsam's --generateLightmapUV: one atlas per mesh, in mesh space.
        lightmap_charts: settings.generate_lightmap_uvs,
        weld: settings.weld_vertices.then_some(WeldRequest {
            threshold: 0.0,
            drop_unused: true,
            epsilon: WELD_EPSILON,
        }),
        optimize: false,
        lods: if with_lods {
            (settings.lod_ratios.as_slice(), settings.lod_target_error)
        } else {
            (&[], 0.0)
        },
        meshlets: None,
    };
    let mut prims = Vec::with_capacity(mesh.primitives.len());
    for (j, p) in mesh.primitives.iter().enumerate() {
        if p.joints.len() > 1 {
            warnings.push(Warning::at(
                DiagnosticCode::TargetLimit,
                p.gltf_path.to_string(),
                "only JOINTS_0/WEIGHTS_0 are written (Qt skins with 4 influences)",
            ));
        }
        if p.joints.len() != p.weights.len() {
            return Err(QtMeshBuildError::UnpairedSkin {
                gltf_path: p.gltf_path.to_string(),
            });
        }
        let id = PrimitiveId {
            mesh: index,
            primitive: j,
        };
        let prepared = prepare(scene, id, &request, cache, |_| {})?;
        prims.push(Prim {
            g: prepared.geometry,
            lods: prepared.lods,
            target_count: p.targets.len(),
        });
    }
    let lightmap_size_hint = if settings.generate_lightmap_uvs {
        let mut geometries: Vec<&mut Geometry> = prims.iter_mut().map(|p| &mut p.g).collect();
        pack_charts(&mut geometries, settings.lightmap_resolution)
            .map_err(|source| QtMeshBuildError::Lightmap { index, source })?;
        // Balsam's hint is the size of xatlas' atlas; ours is always the square we fill.
        [settings.lightmap_resolution; 2]
    } else {
        [0, 0]
    };
    let any = |s: Semantic, set: u32| prims.iter().any(|p| p.g.has(s, set));
    let layout = Layout {
        normals: any(Semantic::Normal, 0),
        uv0: any(Semantic::TexCoord, 0),
        uv1: any(Semantic::TexCoord, 1),
        tangents: normal_mapped && any(Semantic::Tangent, 0),
        skin: any(Semantic::Joints, 0),
        colors: any(Semantic::Color, 0),
        lightmap: any(Semantic::LightmapUv, 0),
    };
    let vertex_count: usize = prims.iter().map(Prim::vertex_count).sum();
    let vertex_buffer = vertex_buffer(&prims, layout, vertex_count);
    let wide = vertex_count > usize::from(u16::MAX) + 1;
    if u32::try_from(vertex_count).is_err() {
        return Err(QtMeshBuildError::TooManyVertices(vertex_count));
    }

    // The index buffer's bytes are written as the subsets are laid out: a 1M-triangle
    // mesh with its levels has over five million indices, which a `Vec<u32>` copied into
    // bytes afterwards held twice (fresh pages and a copy on the build's serial tail).
    let with_levels = with_lods && !settings.lod_ratios.is_empty();
    let index_total: usize = prims
        .iter()
        .map(|p| {
            let levels: usize = if with_levels {
                p.lods.iter().map(|l| l.indices.len()).sum()
            } else {
                0
            };
            p.g.indices.len() + levels
        })
        .sum();
    let mut indices = IndexBytes::new(wide, index_total);
    let mut subsets = Vec::with_capacity(prims.len());
    let mut subset_materials = Vec::with_capacity(prims.len());
    let mut base = 0u32;
    for (prim, src) in prims.iter().zip(&mesh.primitives) {
        let (bounds_min, bounds_max) = bounds(prim);
        subsets.push(Subset {
            name: src
                .material
                .and_then(|m| scene.materials.get(m))
                .and_then(|m| m.name.clone())
                .unwrap_or_default(),
            count: prim.g.indices.len() as u32,
            offset: indices.count() as u32,
            bounds_min,
            bounds_max,
            lightmap_size_hint,
            lods: Vec::new(),
        });
        subset_materials.push(src.material);
        indices.push(&prim.g.indices, base);
        base += prim.vertex_count() as u32;
    }
    // Reduced levels go after every full-detail subset, so subsets keep Balsam's layout.
    if with_levels {
        let mut base = 0u32;
        for (prim, subset) in prims.iter().zip(subsets.iter_mut()) {
            // Stalled levels are left out (Qt has no "reuse the previous level" entry).
            for level in prim.lods.iter().filter(|l| !l.indices.is_empty()) {
                subset.lods.push(Lod {
                    count: level.indices.len() as u32,
                    offset: indices.count() as u32,
                    distance: level.error,
                });
                indices.push(&level.indices, base);
            }
            base += prim.vertex_count() as u32;
        }
    }
    let index_buffer = IndexBuffer {
        component_type: if wide { component::U32 } else { component::U16 },
        data: indices.bytes,
    };

    let target_count = prims.iter().map(|p| p.target_count).max().unwrap_or(0);
    let has = |s: Semantic| {
        prims
            .iter()
            .any(|p| (0..p.target_count as u32).any(|t| p.g.has(s, t)))
    };
    let target_has_positions = has(Semantic::MorphPosition);
    let target_has_normals = layout.normals && has(Semantic::MorphNormal);
    let target_has_tangents = layout.tangents && has(Semantic::MorphTangent);
    let target_buffer = (target_count > 0).then(|| {
        target_buffer(
            &prims,
            target_count,
            vertex_count,
            [
                target_has_positions,
                target_has_normals,
                target_has_tangents,
            ],
        )
    });
    Ok(BuiltMesh {
        mesh: QtMesh {
            vertex_buffer,
            index_buffer,
            subsets,
            target_buffer,
            ..QtMesh::default()
        },
        subset_materials,
        target_count,
        target_has_normals,
        target_has_tangents,
    })
}

/// A `.mesh` index buffer's bytes, little-endian u32 or u16, written index by index.
struct IndexBytes {
    /// Bytes per index: 4 or 2.
    width: usize,
    bytes: Vec<u8>,
}

impl IndexBytes {
    fn new(wide: bool, capacity: usize) -> Self {
        let width = if wide { 4 } else { 2 };
        Self {
            width,
            bytes: Vec::with_capacity(capacity * width),
        }
    }

    fn count(&self) -> usize {
        self.bytes.len() / self.width
    }

    /// Appends `indices + base`; narrow buffers keep the low 16 bits (the caller chose the
    /// width from the vertex count).
    fn push(&mut self, indices: &[u32], base: u32) {
        if self.width == 4 {
            self.bytes
                .extend(indices.iter().flat_map(|&i| (i + base).to_le_bytes()));
        } else {
            self.bytes.extend(
                indices
                    .iter()
                    .flat_map(|&i| ((i + base) as u16).to_le_bytes()),
            );
        }
    }
}

/// Box of the vertices the primitive's triangles use.
fn bounds(prim: &Prim) -> ([f32; 3], [f32; 3]) {
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for &i in &prim.g.indices {
        if let Some(p) = prim.g.positions().get(i as usize) {
            min = min.min(Vec3::from(xyz(*p)));
            max = max.max(Vec3::from(xyz(*p)));
        }
    }
    if min.x > max.x {
        return ([0.0; 3], [0.0; 3]);
    }
    (min.to_array(), max.to_array())
}

/// glTF puts the UV origin at the image's top-left corner, Qt at its bottom-left (Qt
/// uploads images bottom row first), so V is mirrored: `(u, 1 - v)`, as Balsam writes.
fn qt_uv(uv: [f32; 4]) -> [f32; 2] {
    [uv[0], 1.0 - uv[1]]
}

fn vertex_buffer(prims: &[Prim], layout: Layout, vertex_count: usize) -> VertexBuffer {
    let mut entries = Vec::new();
    let mut stride = 0u32;
    let mut add = |name: &str, ty: u32, count: u32| {
        entries.push(VertexEntry {
            name: name.into(),
            component_type: ty,
            component_count: count,
            offset: stride,
        });
        stride += 4 * count;
    };
    // Balsam's attribute order.
    add(attr::POSITION, component::F32, 3);
    if layout.normals {
        add(attr::NORMAL, component::F32, 3);
    }
    if layout.uv0 {
        add(attr::UV0, component::F32, 2);
    }
    if layout.uv1 {
        add(attr::UV1, component::F32, 2);
    }
    if layout.tangents {
        add(attr::TANGENT, component::F32, 3);
        add(attr::BINORMAL, component::F32, 3);
    }
    if layout.skin {
        add(attr::JOINTS, component::I32, 4);
        add(attr::WEIGHTS, component::F32, 4);
    }
    if layout.colors {
        add(attr::COLOR, component::F32, 4);
    }
    // Balsam appends the lightmap channel after every other attribute.
    if layout.lightmap {
        add(attr::LIGHTMAP_UV, component::F32, 2);
    }
    let mut data: Vec<u8> = Vec::with_capacity(vertex_count * stride as usize);
    let mut put = |v: &[f32]| {
        for f in v {
            data.extend_from_slice(&f.to_le_bytes());
        }
    };
    for p in prims {
        let normals = p.get(Semantic::Normal, 0);
        let uv0 = p.get(Semantic::TexCoord, 0);
        let uv1 = p.get(Semantic::TexCoord, 1);
        let tangents = p.get(Semantic::Tangent, 0);
        let joints = p.get(Semantic::Joints, 0);
        let weights = p.get(Semantic::Weights, 0);
        let colors = p.get(Semantic::Color, 0);
        let lightmap = p.get(Semantic::LightmapUv, 0);
        for (v, position) in p.g.positions().iter().enumerate() {
            put(&position[..3]);
            let normal = normals.map_or([0.0, 0.0, 1.0], |n| xyz(n[v]));
            if layout.normals {
                put(&normal);
            }
            if layout.uv0 {
                put(&qt_uv(uv0.map_or([0.0; 4], |a| a[v])));
            }
            if layout.uv1 {
                put(&qt_uv(uv1.map_or([0.0; 4], |a| a[v])));
            }
            if layout.tangents {
                let t = tangents.map_or_else(
                    || {
                        let t = crate::pipeline::tangents::perpendicular(normal);
                        [t[0], t[1], t[2], 1.0]
                    },
                    |t| t[v],
                );
                let tangent = Vec3::new(t[0], t[1], t[2]);
                // glTF's bitangent: cross(normal, tangent) * handedness.
                let binormal = Vec3::from(normal).cross(tangent) * t[3];
                put(&tangent.to_array());
                put(&binormal.to_array());
            }
            if layout.skin {
                // Joint indices are stored as exact floats of u16 values; written as i32.
                let j = joints.map_or([0.0; 4], |j| j[v]);
                put(&j.map(|i| f32::from_bits(i as u32)));
                put(&weights.map_or([0.0; 4], |w| w[v]));
            }
            if layout.colors {
                put(&colors.map_or([1.0; 4], |c| c[v]));
            }
            if layout.lightmap {
                // As generated, not mirrored like UV0/UV1: no image exists yet; Qt's baker
                // writes the lightmap from these same coordinates (Balsam writes xatlas'
                // coordinates as they are too).
                put(&lightmap.map_or([0.0; 2], |l| [l[v][0], l[v][1]]));
            }
        }
    }
    VertexBuffer {
        entries,
        stride,
        data,
    }
}

/// The version 7 target buffer: for each kind present (position, normal, tangent), each
/// target's attribute as one 16-byte texel per vertex, padded to Qt's square texture.
///
/// glTF targets hold displacements, but Qt stores complete target attributes (its
/// morphing shader adds `weight * (target - base)`, and Balsam writes assimp's anim
/// meshes, which are complete too), so each texel is `base + delta`; a target without
/// a kind's displacements stores the base itself.
fn target_buffer(
    prims: &[Prim],
    target_count: usize,
    vertex_count: usize,
    kinds: [bool; 3],
) -> TargetBuffer {
    let block = target_block_size(vertex_count).unwrap_or(0);
    let names = [attr::POSITION, attr::NORMAL, attr::TANGENT];
    let mut entries = Vec::new();
    let mut data = Vec::new();
    for (kind, name) in names.iter().enumerate() {
        if !kinds[kind] {
            continue;
        }
        entries.push(VertexEntry {
            name: (*name).into(),
            component_type: component::F32,
            component_count: 3,
            offset: data.len() as u32,
        });
        let semantic = match kind {
            0 => Semantic::MorphPosition,
            1 => Semantic::MorphNormal,
            _ => Semantic::MorphTangent,
        };
        for t in 0..target_count {
            let start = data.len();
            for p in prims {
                let deltas = p.get(semantic, t as u32);
                for v in 0..p.vertex_count() {
                    let base = base_attribute(p, kind, v);
                    let d = deltas.map_or([0.0; 3], |d| xyz(d[v]));
                    for f in [base[0] + d[0], base[1] + d[1], base[2] + d[2], 0.0] {
                        data.extend_from_slice(&f.to_le_bytes());
                    }
                }
            }
            data.resize(start + block, 0);
        }
    }
    TargetBuffer {
        target_count: target_count as u32,
        entries,
        data,
    }
}

/// Vertex `v`'s position (kind 0), normal (1) or tangent (2) as the vertex buffer holds
/// it, neutral values included.
fn base_attribute(p: &Prim, kind: usize, v: usize) -> [f32; 3] {
    let normal = p
        .get(Semantic::Normal, 0)
        .map_or([0.0, 0.0, 1.0], |n| xyz(n[v]));
    match kind {
        0 => xyz(p.g.positions()[v]),
        1 => normal,
        _ => p.get(Semantic::Tangent, 0).map_or_else(
            || crate::pipeline::tangents::perpendicular(normal),
            |t| xyz(t[v]),
        ),
    }
}
