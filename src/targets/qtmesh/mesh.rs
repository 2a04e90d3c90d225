//! One glTF mesh to one Qt `.mesh`: a shared vertex buffer, one subset per primitive,
//! reduced levels of detail and morph targets.

use super::prim::{Prim, TargetDeltas};
use crate::formats::qtmesh::{
    attr, component, target_block_size, IndexBuffer, Lod, QtMesh, Subset, TargetBuffer,
    VertexBuffer, VertexEntry,
};
use crate::pipeline::MeshSettings;
use crate::scene::{Mesh, Scene};
use glam::Vec3;

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
}

/// Builds the Qt mesh for `scene.meshes[index]`. `with_lods` is false for versions
/// before 6, which cannot hold levels of detail.
pub fn build_mesh(
    scene: &Scene,
    index: usize,
    settings: &MeshSettings,
    with_lods: bool,
    warnings: &mut Vec<String>,
) -> Result<BuiltMesh, String> {
    let mesh: &Mesh = scene
        .meshes
        .get(index)
        .ok_or_else(|| format!("meshes[{index}] does not exist"))?;
    // Balsam writes the source's tangent frame only for meshes whose materials sample a
    // normal map; everything else would be unused bytes.
    let normal_mapped = mesh.primitives.iter().any(|p| {
        p.material
            .and_then(|m| scene.materials.get(m))
            .is_some_and(|m| m.normal_texture.is_some())
    });
    let mut prims = Vec::with_capacity(mesh.primitives.len());
    for p in &mesh.primitives {
        let mut prim = Prim::from_scene(p)?;
        if p.joints.len() > 1 {
            warnings.push(format!(
                "{}: only JOINTS_0/WEIGHTS_0 are written (Qt skins with 4 influences)",
                p.gltf_path
            ));
        }
        prim.complete(settings);
        if settings.weld_vertices {
            prim.weld();
        }
        prims.push(prim);
    }
    let layout = Layout {
        normals: prims.iter().any(|p| p.normals.is_some()),
        uv0: prims.iter().any(|p| p.uv0.is_some()),
        uv1: prims.iter().any(|p| p.uv1.is_some()),
        tangents: normal_mapped && prims.iter().any(|p| p.tangents.is_some()),
        skin: prims.iter().any(|p| p.joints.is_some()),
        colors: prims.iter().any(|p| p.colors.is_some()),
    };
    let vertex_count: usize = prims.iter().map(|p| p.positions.len()).sum();
    let vertex_buffer = vertex_buffer(&prims, layout, vertex_count);
    let wide = vertex_count > usize::from(u16::MAX) + 1;
    if u32::try_from(vertex_count).is_err() {
        return Err(format!("{vertex_count} vertices do not fit 32-bit indices"));
    }

    let mut indices: Vec<u32> = Vec::new();
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
            count: prim.indices.len() as u32,
            offset: indices.len() as u32,
            bounds_min,
            bounds_max,
            lightmap_size_hint: [0, 0],
            lods: Vec::new(),
        });
        subset_materials.push(src.material);
        indices.extend(prim.indices.iter().map(|i| i + base));
        base += prim.positions.len() as u32;
    }
    // Reduced levels go after every full-detail subset, so subsets keep Balsam's layout.
    if with_lods && !settings.lod_ratios.is_empty() {
        let mut base = 0u32;
        for (prim, subset) in prims.iter().zip(subsets.iter_mut()) {
            for (level, distance) in lods(prim, settings) {
                subset.lods.push(Lod {
                    count: level.len() as u32,
                    offset: indices.len() as u32,
                    distance,
                });
                indices.extend(level.iter().map(|i| i + base));
            }
            base += prim.positions.len() as u32;
        }
    }
    let index_buffer = if wide {
        IndexBuffer {
            component_type: component::U32,
            data: bytemuck::cast_slice(&indices).to_vec(),
        }
    } else {
        IndexBuffer {
            component_type: component::U16,
            data: indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
        }
    };

    let target_count = prims.iter().map(|p| p.targets.len()).max().unwrap_or(0);
    let has = |f: fn(&TargetDeltas) -> bool| prims.iter().flat_map(|p| &p.targets).any(f);
    let target_has_positions = has(|t| t.positions.is_some());
    let target_has_normals = layout.normals && has(|t| t.normals.is_some());
    let target_has_tangents = layout.tangents && has(|t| t.tangents.is_some());
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

/// Box of the vertices the primitive's triangles use.
fn bounds(prim: &Prim) -> ([f32; 3], [f32; 3]) {
    let mut min = Vec3::splat(f32::INFINITY);
    let mut max = Vec3::splat(f32::NEG_INFINITY);
    for &i in &prim.indices {
        if let Some(p) = prim.positions.get(i as usize) {
            min = min.min(Vec3::from(*p));
            max = max.max(Vec3::from(*p));
        }
    }
    if min.x > max.x {
        return ([0.0; 3], [0.0; 3]);
    }
    (min.to_array(), max.to_array())
}

/// Reduced index lists with the distance Qt selects them by: the simplifier's error in
/// model units, as Balsam's `--generateMeshLevelsOfDetail` stores it. Same targets and
/// stall rule as `pipeline::lods::build_lods`, called directly because Qt needs each
/// level's error, which that stage does not return. Stalled levels are left out (Qt has
/// no "reuse the previous level" entry).
fn lods(prim: &Prim, settings: &MeshSettings) -> Vec<(Vec<u32>, f32)> {
    let Ok(adapter) = meshopt::VertexDataAdapter::new(bytemuck::cast_slice(&prim.positions), 12, 0)
    else {
        return Vec::new();
    };
    if prim.indices.is_empty() {
        return Vec::new();
    }
    let scale = meshopt::simplify_scale(&adapter);
    let mut levels = Vec::new();
    let mut previous_len = prim.indices.len();
    for &ratio in &settings.lod_ratios {
        let target = ((prim.indices.len() as f64 * f64::from(ratio)) as usize / 3) * 3;
        let mut error = 0.0f32;
        let level = meshopt::simplify(
            &prim.indices,
            &adapter,
            target,
            settings.lod_target_error,
            meshopt::SimplifyOptions::empty(),
            Some(&mut error),
        );
        if level.is_empty() || level.len() >= previous_len {
            continue;
        }
        previous_len = level.len();
        levels.push((level, error * scale));
    }
    levels
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
    let mut data: Vec<u8> = Vec::with_capacity(vertex_count * stride as usize);
    let mut put = |v: &[f32]| {
        for f in v {
            data.extend_from_slice(&f.to_le_bytes());
        }
    };
    for p in prims {
        for v in 0..p.positions.len() {
            put(&p.positions[v]);
            let normal = p.normals.as_ref().map_or([0.0, 0.0, 1.0], |n| n[v]);
            if layout.normals {
                put(&normal);
            }
            if layout.uv0 {
                put(&p.uv0.as_ref().map_or([0.0; 2], |a| a[v]));
            }
            if layout.uv1 {
                put(&p.uv1.as_ref().map_or([0.0; 2], |a| a[v]));
            }
            if layout.tangents {
                let t = p.tangents.as_ref().map_or_else(
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
                let j = p.joints.as_ref().map_or([0; 4], |j| j[v]);
                // Bit-identical to i32 for any u16 joint index.
                put(&j.map(|i| f32::from_bits(u32::from(i))));
                put(&p.weights.as_ref().map_or([0.0; 4], |w| w[v]));
            }
            if layout.colors {
                put(&p.colors.as_ref().map_or([1.0; 4], |c| c[v]));
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
/// target's deltas as one 16-byte texel per vertex, padded to Qt's square texture.
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
        for t in 0..target_count {
            let start = data.len();
            for p in prims {
                let deltas = p.targets.get(t).and_then(|d| match kind {
                    0 => d.positions.as_ref(),
                    1 => d.normals.as_ref(),
                    _ => d.tangents.as_ref(),
                });
                for v in 0..p.positions.len() {
                    let d = deltas.map_or([0.0; 3], |d| d[v]);
                    for f in [d[0], d[1], d[2], 0.0] {
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
