//! Turning compiled files into a [`Scene`]: `.hmesh` (with its `.hmat` and `.ktx2`
//! textures), Qt Quick 3D `.mesh` and BMD1 `.bmd`, read with our own readers.

use super::raster::{RasterVertex, Texture};
use super::scene::{palette, Draw, Material, Scene};
use super::texture::{decode_ktx2, level_for_size};
use super::PreviewError;
use crate::formats::{bmd1, hmat, hmesh, octahedral, qtmesh};
use glam::{Mat4, Quat, Vec3};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which part of an `.hmesh` to draw.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshView {
    /// 0 = full detail, k = LODk.
    pub lod: usize,
    /// Colour each meshlet on its own (meshlets exist for LOD0 only); with
    /// `cluster_error`, each cluster of the cut.
    pub meshlets: bool,
    /// Draw the cluster LOD cut for this many pixels of error, seen from the preview's
    /// camera (the one that frames full detail).
    pub cluster_error: Option<f32>,
}

/// Number of levels an `.hmesh` has, LOD0 included.
pub fn lod_levels(mesh: &hmesh::HMesh) -> usize {
    1 + mesh.lods.as_ref().map_or(0, |l| l.lod_count as usize)
}

/// The triangle list of `submesh` at level `lod`; a level stored empty reuses the one
/// before it (formats.md: "no simpler level").
pub fn lod_indices(mesh: &hmesh::HMesh, submesh: usize, lod: usize) -> Vec<u32> {
    let sub = &mesh.submeshes[submesh];
    if let Some(l) = mesh.lods.as_ref().filter(|_| lod > 0) {
        let per = l.lod_count as usize;
        for k in (1..=lod.min(per)).rev() {
            let Some(r) = l.ranges.get(submesh * per + k - 1) else {
                continue;
            };
            if r.index_count > 0 {
                let (a, n) = (r.first_index as usize, r.index_count as usize);
                return l.indices.get(a..a + n).unwrap_or_default().to_vec();
            }
        }
    }
    let (a, n) = (sub.first_index as usize, sub.index_count as usize);
    mesh.indices
        .get(a..a + n)
        .unwrap_or_default()
        .iter()
        .map(|&i| i + sub.base_vertex)
        .collect()
}

/// An `.hmesh` file, its `.hmat` beside it and the textures under the output root (the
/// nearest ancestor folder holding `tex/<id>.ktx2`).
pub fn load_hmesh(
    path: &Path,
    bytes: &[u8],
    view: MeshView,
    size: u32,
) -> Result<Scene, PreviewError> {
    let mesh = hmesh::read(bytes).map_err(|e| PreviewError::read(path, e))?;
    let levels = lod_levels(&mesh);
    if view.lod >= levels {
        return Err(PreviewError::Option(format!(
            "{} has {levels} level(s) (LOD0..LOD{}), not LOD{}",
            path.display(),
            levels - 1,
            view.lod
        )));
    }
    let vertices = mesh
        .vertices
        .iter()
        .map(|v| RasterVertex {
            position: Vec3::from(v.position),
            normal: Vec3::from(octahedral::decode(v.normal)),
            uv: v.uv,
        })
        .collect();
    let mut notes = Vec::new();
    let materials = hmesh_materials(path, &mesh, size, &mut notes)?;
    let mut draws = Vec::new();
    if let Some(px) = view.cluster_error {
        let full: Vec<Draw> = (0..mesh.submeshes.len())
            .map(|s| Draw {
                indices: lod_indices(&mesh, s, 0),
                material: Material::default(),
            })
            .collect();
        let camera = Scene {
            vertices,
            draws: full,
            ..Scene::default()
        };
        let frame = camera.frame_camera(size);
        let draws = cluster_cut_draws(path, &mesh, &materials, view.meshlets, &frame, px)?;
        return Ok(Scene {
            vertices: camera.vertices,
            draws,
            notes,
            camera: Some(frame),
        });
    }
    if view.meshlets {
        for (i, m) in mesh.meshlets.iter().enumerate() {
            let local = |k: u8| {
                mesh.meshlet_vertices
                    .get(m.vertex_offset as usize + k as usize)
                    .copied()
            };
            let tris = mesh
                .meshlet_triangles
                .get(m.triangle_offset as usize..(m.triangle_offset + m.triangle_count) as usize)
                .unwrap_or_default();
            let indices = tris
                .iter()
                .flat_map(|t| t.0.map(local))
                .collect::<Option<Vec<u32>>>()
                .unwrap_or_default();
            draws.push(Draw {
                indices,
                material: Material {
                    color: palette(i),
                    ..Material::default()
                },
            });
        }
    } else {
        for (s, sub) in mesh.submeshes.iter().enumerate() {
            let material = materials
                .get(sub.material_slot as usize)
                .cloned()
                .unwrap_or_default();
            draws.push(Draw {
                indices: lod_indices(&mesh, s, view.lod),
                material,
            });
        }
    }
    Ok(Scene {
        vertices,
        draws,
        notes,
        camera: None,
    })
}

/// The clusters of the reference cut ([`hmesh::clod::cut_by_hierarchy`]) for `px` pixels
/// of error seen from `frame`: one draw per cluster, in its submesh's material or (with
/// `by_cluster`) a colour of its own.
fn cluster_cut_draws(
    path: &Path,
    mesh: &hmesh::HMesh,
    materials: &[Material],
    by_cluster: bool,
    frame: &super::raster::Camera,
    px: f32,
) -> Result<Vec<Draw>, PreviewError> {
    let Some(lod) = &mesh.cluster_lod else {
        return Err(PreviewError::Option(format!(
            "{} has no cluster LOD chunks (built without mesh.cluster_lod = true)",
            path.display()
        )));
    };
    let mut lod = lod.clone();
    lod.topology = hmesh::clod::decode_topology(&lod).map_err(|e| PreviewError::read(path, e))?;
    let camera = hmesh::clod::CutCamera {
        eye: frame.eye.into(),
        focal_px: frame.focal,
        // The preview camera stands outside every vertex's bounding sphere; any small
        // positive distance will do.
        znear: 1e-6,
    };
    let cut = hmesh::clod::cut_by_hierarchy(&lod, &camera, px);
    let mut draws = Vec::with_capacity(cut.len());
    for c in cut {
        let tris = lod.cluster_triangles(c as usize).unwrap_or_default();
        let material = match lod.clusters.get(c as usize) {
            _ if by_cluster => Material {
                color: palette(c as usize),
                ..Material::default()
            },
            Some(cl) => mesh
                .submeshes
                .get(cl.submesh as usize)
                .and_then(|s| materials.get(s.material_slot as usize))
                .cloned()
                .unwrap_or_default(),
            None => Material::default(),
        };
        draws.push(Draw {
            indices: tris.into_iter().flatten().collect(),
            material,
        });
    }
    Ok(draws)
}

/// The material of each slot, from the `.hmat` beside the mesh; grey when it is missing
/// (a preview of geometry alone is still useful), and said in `notes`, as is each texture
/// that cannot be found.
fn hmesh_materials(
    path: &Path,
    mesh: &hmesh::HMesh,
    size: u32,
    notes: &mut Vec<String>,
) -> Result<Vec<Material>, PreviewError> {
    let hmat_path = path.with_extension("hmat");
    let Ok(bytes) = std::fs::read(&hmat_path) else {
        if !mesh.materials.is_empty() {
            notes.push(format!(
                "{} not found: drawn grey, without materials or textures",
                hmat_path.display()
            ));
        }
        return Ok(vec![Material::default(); mesh.materials.len()]);
    };
    let table = hmat::read(&bytes).map_err(|e| PreviewError::read(&hmat_path, e))?;
    let mut textures: BTreeMap<u64, Option<Arc<Texture>>> = BTreeMap::new();
    let mut out = Vec::new();
    for m in &table.materials {
        let texture = match m.base_color_tex {
            0 => None,
            id => match textures.get(&id) {
                Some(t) => t.clone(),
                None => {
                    let t = load_texture(path, id, size)?.map(Arc::new);
                    if t.is_none() {
                        notes.push(format!(
                            "base colour texture tex/{id:016x}.ktx2 not found in any folder \
                             above {}: its materials are drawn with their colour factor alone",
                            path.display()
                        ));
                    }
                    textures.insert(id, t.clone());
                    t
                }
            },
        };
        let alpha_mode = (m.flags & hmat::ALPHA_MODE_MASK) >> hmat::ALPHA_MODE_SHIFT;
        out.push(Material {
            color: m.base_color_factor,
            texture,
            alpha_cutoff: (alpha_mode == 1).then_some(m.alpha_cutoff),
            unlit: m.flags & hmat::FLAG_UNLIT != 0,
        });
    }
    Ok(out)
}

/// `tex/<id>.ktx2` in the nearest ancestor of the mesh that has it; `None` when no
/// ancestor does (the preview then shows the colour factor alone).
fn load_texture(mesh_path: &Path, id: u64, size: u32) -> Result<Option<Texture>, PreviewError> {
    let rel = PathBuf::from(format!("tex/{id:016x}.ktx2"));
    let Some(path) = mesh_path
        .ancestors()
        .skip(1)
        .map(|d| d.join(&rel))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let bytes = std::fs::read(&path).map_err(|e| PreviewError::io(&path, e))?;
    let ktx = crate::formats::ktx2::read(&bytes).map_err(|e| PreviewError::read(&path, e))?;
    // A texel per output pixel or so is plenty for a preview, and decoding a small level
    // is much faster than decoding the top one.
    let level = level_for_size(&ktx, size * 2);
    decode_ktx2(&ktx, level)
        .map(Some)
        .map_err(|e| PreviewError::read(&path, e))
}

/// Every mesh of a Qt Quick 3D `.mesh` file, untextured (materials live in the `.qml`).
pub fn load_qtmesh(path: &Path, bytes: &[u8], lod: usize) -> Result<Scene, PreviewError> {
    let file = qtmesh::read(bytes).map_err(|e| PreviewError::read(path, e))?;
    let mut scene = Scene {
        camera: None,
        notes: vec![
            "drawn untextured in grey: a Qt .mesh holds geometry only (its materials are in \
             the .qml beside it)"
                .into(),
        ],
        ..Scene::default()
    };
    for (_, m) in &file.meshes {
        let base = scene.vertices.len() as u32;
        let vb = &m.vertex_buffer;
        let attr = |name: &str| {
            vb.entries
                .iter()
                .find(|e| e.name == name && e.component_type == qtmesh::component::F32)
        };
        let Some(pos) = attr(qtmesh::attr::POSITION).filter(|e| e.component_count >= 3) else {
            return Err(PreviewError::Option(format!(
                "{}: a mesh has no float attr_pos",
                path.display()
            )));
        };
        let norm = attr(qtmesh::attr::NORMAL).filter(|e| e.component_count >= 3);
        let stride = vb.stride as usize;
        let read_f32s = |vertex: usize, offset: u32, n: usize| -> [f32; 3] {
            let mut out = [0.0; 3];
            for (k, o) in out.iter_mut().enumerate().take(n) {
                let at = vertex * stride + offset as usize + k * 4;
                if let Some(b) = vb.data.get(at..at + 4) {
                    *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            out
        };
        for i in 0..vb.vertex_count() {
            scene.vertices.push(RasterVertex {
                position: Vec3::from(read_f32s(i, pos.offset, 3)),
                normal: norm.map_or(Vec3::ZERO, |n| Vec3::from(read_f32s(i, n.offset, 3))),
                uv: [0.0; 2],
            });
        }
        let ib = &m.index_buffer;
        let index = |i: usize| -> Option<u32> {
            match ib.component_type {
                qtmesh::component::U16 => ib
                    .data
                    .get(i * 2..i * 2 + 2)
                    .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]]))),
                qtmesh::component::U32 => ib
                    .data
                    .get(i * 4..i * 4 + 4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                _ => None,
            }
        };
        let indexed = ib.index_count() > 0;
        for s in &m.subsets {
            // LODs in the subset: Qt's lod 0 is the first reduced level.
            let (offset, count) = match lod.checked_sub(1).and_then(|k| s.lods.get(k)) {
                Some(l) => (l.offset, l.count),
                None => (s.offset, s.count),
            };
            let indices = (offset as usize..offset as usize + count as usize)
                .map(|i| if indexed { index(i) } else { Some(i as u32) })
                .map(|i| i.map(|i| i + base))
                .collect::<Option<Vec<u32>>>()
                .unwrap_or_default();
            scene.draws.push(Draw {
                indices,
                material: Material::default(),
            });
        }
    }
    Ok(scene)
}

/// The meshes of a BMD1 model's first LOD (all meshes when it declares none), untextured
/// (materials are names the engine resolves). Skinned vertices are stored relative to
/// their bone [B8]; they are placed by the bind pose of the skeleton.
pub fn load_bmd(path: &Path, bytes: &[u8]) -> Result<Scene, PreviewError> {
    let model = bmd1::read(bytes).map_err(|e| PreviewError::read(path, e))?;
    let bind = bmd_bind_pose(&model.bones);
    let meshes = match model.lods.first() {
        Some(l) => l.first_mesh as usize..l.first_mesh as usize + l.mesh_count as usize,
        None => 0..model.meshes.len(),
    };
    let mut scene = Scene {
        camera: None,
        notes: vec![
            "drawn untextured in grey: a .bmd names its materials for the engine to resolve".into(),
        ],
        ..Scene::default()
    };
    for mesh in model.meshes.get(meshes).unwrap_or_default() {
        if mesh.material.is_none() {
            continue;
        }
        let base = scene.vertices.len() as u32;
        scene.vertices.extend(mesh.vertices.iter().map(|v| {
            let m = bind
                .get(usize::from(v.attrs.bone))
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            RasterVertex {
                position: m.transform_point3(Vec3::from(v.attrs.position)),
                normal: m.transform_vector3(Vec3::from(v.attrs.normal)),
                uv: v.attrs.uv,
            }
        }));
        let mut indices = Vec::new();
        for p in &mesh.primitives {
            let tri: &[usize] = match p {
                bmd1::Primitive::Triangle(_) => &[0, 1, 2],
                bmd1::Primitive::Quad(_) => &[0, 1, 2, 0, 2, 3],
            };
            indices.extend(tri.iter().map(|&k| u32::from(p.indices()[k]) + base));
        }
        scene.draws.push(Draw {
            indices,
            material: Material::default(),
        });
    }
    Ok(scene)
}

/// Model-space bind transform of every bone: a normal bone is its parent's transform, then
/// its origin, then its rotation (raw F8A quaternion, normalised; all zero = identity). A
/// pseudo-bone takes the transform of its first bone (enough to place a picture).
fn bmd_bind_pose(bones: &[bmd1::Bone]) -> Vec<Mat4> {
    let mut world: Vec<Mat4> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let m = match &b.kind {
            bmd1::BoneKind::Normal {
                parent,
                rotation,
                origin,
            } => {
                let q = Quat::from_array(*rotation);
                let len = q.length();
                let q = if len > 0.0 && len.is_finite() {
                    q / len
                } else {
                    Quat::IDENTITY
                };
                let parent = match i {
                    0 => Mat4::IDENTITY,
                    _ => world
                        .get(usize::from(*parent))
                        .copied()
                        .unwrap_or(Mat4::IDENTITY),
                };
                parent * Mat4::from_rotation_translation(q, Vec3::from(*origin))
            }
            bmd1::BoneKind::Pseudo { bones: ids, .. } => world
                .get(usize::from(ids[0]))
                .copied()
                .unwrap_or(Mat4::IDENTITY),
        };
        world.push(m);
    }
    world
}
