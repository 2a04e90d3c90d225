//! Drives the geometry stages for one scene and assembles the `.hmesh`.

use super::bake::bake_transform;
use super::bounds::compute_bounds;
use super::geometry::Geometry;
use super::lods::build_lods;
use super::material_refs::{assign_material_slots, MaterialSlots};
use super::meshlets::{build_meshlets, MeshletSet};
use super::normals::generate_normals;
use super::optimize::optimize_vertex_order;
use super::pack::pack_vertices;
use super::settings::MeshSettings;
use super::skinning::{skin_primitive, Skeleton, SkinError};
use super::tangents::generate_tangents;
use super::weld::weld_vertices;
use crate::formats::hmesh::{GpuVertex, HMesh, Lods, MeshLod, Skinning, SubMesh};
use crate::scene::{Primitive, Scene};
use rayon::prelude::*;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("invalid mesh settings: {0}")]
    Settings(String),
    #[error(transparent)]
    Skin(#[from] SkinError),
    #[error("the scene has no triangle geometry to export")]
    Empty,
    #[error("the mesh has {0} vertices after processing; .hmesh indices are 32-bit")]
    TooManyVertices(usize),
}

/// Time spent in each stage, summed over submeshes (CPU time when submeshes run in parallel).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageTimes {
    pub bake: Duration,
    pub normals: Duration,
    pub tangents: Duration,
    pub weld: Duration,
    pub optimize: Duration,
    pub pack: Duration,
    pub meshlets: Duration,
    pub lods: Duration,
}

impl StageTimes {
    fn add(&mut self, o: &StageTimes) {
        self.bake += o.bake;
        self.normals += o.normals;
        self.tangents += o.tangents;
        self.weld += o.weld;
        self.optimize += o.optimize;
        self.pack += o.pack;
        self.meshlets += o.meshlets;
        self.lods += o.lods;
    }

    /// (stage name, time) pairs in pipeline order.
    pub fn entries(&self) -> [(&'static str, Duration); 8] {
        [
            ("bake", self.bake),
            ("normals", self.normals),
            ("tangents", self.tangents),
            ("weld", self.weld),
            ("optimize", self.optimize),
            ("pack", self.pack),
            ("meshlets", self.meshlets),
            ("lods", self.lods),
        ]
    }
}

/// The `.hmesh` of a scene and what the material and report stages need from it.
#[derive(Debug)]
pub struct MeshBuild {
    pub mesh: HMesh,
    pub slots: MaterialSlots,
    pub times: StageTimes,
    /// Triangles of LOD0 (equals the source's triangles over all primitive instances).
    pub triangle_count: usize,
    /// Repairs and dropped primitives, each naming its glTF path.
    pub warnings: Vec<String>,
}

struct ProcessedSubmesh {
    vertices: Vec<GpuVertex>,
    skin: Option<Vec<crate::formats::hmesh::GpuSkinVertex>>,
    indices: Vec<u32>,
    has_tangents: bool,
    meshlets: MeshletSet,
    lods: Vec<Vec<u32>>,
    times: StageTimes,
    material: Option<usize>,
}

/// Builds the `.hmesh` of every primitive instance of `scene`. With a skeleton, every
/// submesh gets skinning data and skinned geometry is left in bind space.
pub fn build_hmesh(
    scene: &Scene,
    settings: &MeshSettings,
    skeleton: Option<&Skeleton>,
) -> Result<MeshBuild, MeshError> {
    settings.validate().map_err(MeshError::Settings)?;
    let instances = scene.primitive_instances();
    if instances.is_empty() {
        return Err(MeshError::Empty);
    }
    let results: Vec<(Option<ProcessedSubmesh>, Vec<String>)> = instances
        .par_iter()
        .map(|&inst| {
            let mut times = StageTimes::default();
            let mut warnings = Vec::new();
            let start = Instant::now();
            let mut geometry = geometry_of(scene.primitive(inst));
            match skeleton {
                Some(skeleton) => match skin_primitive(scene, inst, skeleton) {
                    Ok(skinned) => {
                        warnings.extend(skinned.warnings);
                        geometry.skin = Some(skinned.vertices);
                        bake_transform(&mut geometry, skinned.position_transform);
                    }
                    // A primitive bound to a second skin that cannot be expressed with the
                    // exported joints is dropped alone rather than failing the asset.
                    Err(e @ SkinError::ForeignSkin { .. }) => {
                        warnings.push(format!("{}: dropped: {e}", geometry.gltf_path));
                        return Ok((None, warnings));
                    }
                    Err(e) => return Err(MeshError::Skin(e)),
                },
                None if settings.bake_transforms => {
                    bake_transform(&mut geometry, scene.nodes[inst.node].world_matrix)
                }
                None => {}
            }
            times.bake = start.elapsed();
            Ok((Some(process_submesh(geometry, settings, times)), warnings))
        })
        .collect::<Result<_, MeshError>>()?;
    let mut warnings = Vec::new();
    let mut processed = Vec::with_capacity(results.len());
    for (p, w) in results {
        warnings.extend(w);
        processed.extend(p);
    }
    if processed.is_empty() {
        return Err(MeshError::Empty);
    }
    let material_of: Vec<Option<usize>> = processed.iter().map(|p| p.material).collect();
    let slots = assign_material_slots(&scene.source_ref, &scene.materials, &material_of);
    let mut build = assemble(processed, slots, settings, skeleton)?;
    build.warnings = warnings;
    Ok(build)
}

fn geometry_of(p: &Primitive) -> Geometry {
    Geometry {
        gltf_path: p.gltf_path.clone(),
        positions: p.positions.clone(),
        normals: p.normals.clone(),
        tangents: p.tangents.clone(),
        uvs: p.uv0.clone(),
        skin: None,
        indices: p.indices.clone(),
        indexed: p.indexed,
        material: p.material,
    }
}

fn process_submesh(
    mut g: Geometry,
    settings: &MeshSettings,
    mut times: StageTimes,
) -> ProcessedSubmesh {
    let timed = |slot: &mut Duration, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        *slot += t.elapsed();
    };
    if settings.generate_normals {
        timed(&mut times.normals, &mut || {
            generate_normals(&mut g, settings.normal_smoothing_angle)
        });
    }
    let mut has_tangents = g.tangents.is_some();
    if settings.generate_tangents {
        timed(&mut times.tangents, &mut || {
            has_tangents = generate_tangents(&mut g)
        });
    }
    if settings.weld_vertices {
        timed(&mut times.weld, &mut || {
            weld_vertices(&mut g, settings.weld_threshold)
        });
    }
    if settings.optimize {
        timed(&mut times.optimize, &mut || optimize_vertex_order(&mut g));
    }
    let t = Instant::now();
    let vertices = pack_vertices(&g);
    times.pack = t.elapsed();
    let positions = &g.positions;
    let indices = &g.indices;
    let ((meshlets, meshlet_time), (lods, lod_time)) = rayon::join(
        || {
            let t = Instant::now();
            let m = build_meshlets(
                positions,
                indices,
                settings.meshlet_max_vertices,
                settings.meshlet_max_triangles,
                settings.meshlet_cone_weight,
            );
            (m, t.elapsed())
        },
        || {
            let t = Instant::now();
            (
                build_lods(
                    positions,
                    indices,
                    &settings.lod_ratios,
                    settings.lod_target_error,
                ),
                t.elapsed(),
            )
        },
    );
    times.meshlets = meshlet_time;
    times.lods = lod_time;
    ProcessedSubmesh {
        vertices,
        skin: g.skin,
        indices: g.indices,
        has_tangents,
        meshlets,
        lods,
        times,
        material: g.material,
    }
}

fn assemble(
    processed: Vec<ProcessedSubmesh>,
    slots: MaterialSlots,
    settings: &MeshSettings,
    skeleton: Option<&Skeleton>,
) -> Result<MeshBuild, MeshError> {
    let total_vertices: usize = processed.iter().map(|p| p.vertices.len()).sum();
    if total_vertices > u32::MAX as usize {
        return Err(MeshError::TooManyVertices(total_vertices));
    }
    let mut mesh = HMesh {
        has_tangents: processed.iter().all(|p| p.has_tangents),
        meshlet_max_verts: settings.meshlet_max_vertices,
        meshlet_max_tris: settings.meshlet_max_triangles,
        materials: slots.hashes.clone(),
        ..Default::default()
    };
    let lod_count = settings.lod_ratios.len();
    let mut lods = Lods {
        lod_count: lod_count as u32,
        ..Default::default()
    };
    let mut skin_vertices = Vec::new();
    let mut times = StageTimes::default();
    for (i, p) in processed.into_iter().enumerate() {
        times.add(&p.times);
        let base = mesh.vertices.len() as u32;
        let first_index = mesh.indices.len() as u32;
        let first_meshlet = mesh.meshlets.len() as u32;
        let bounds = compute_bounds(p.vertices.iter().map(|v| &v.position));
        mesh.indices.extend(p.indices.iter().map(|&i| i + base));
        let vertex_offset = mesh.meshlet_vertices.len() as u32;
        let triangle_offset = mesh.meshlet_triangles.len() as u32;
        mesh.meshlets.extend(
            p.meshlets
                .meshlets
                .iter()
                .map(|m| crate::formats::hmesh::Meshlet {
                    vertex_offset: m.vertex_offset + vertex_offset,
                    triangle_offset: m.triangle_offset + triangle_offset,
                    ..*m
                }),
        );
        mesh.meshlet_vertices
            .extend(p.meshlets.vertices.iter().map(|&v| v + base));
        mesh.meshlet_triangles
            .extend_from_slice(&p.meshlets.triangles);
        mesh.meshlet_bounds.extend_from_slice(&p.meshlets.bounds);
        for level in &p.lods {
            lods.ranges.push(MeshLod {
                first_index: lods.indices.len() as u32,
                index_count: level.len() as u32,
            });
            lods.indices.extend(level.iter().map(|&i| i + base));
        }
        mesh.submeshes.push(SubMesh {
            first_index,
            index_count: p.indices.len() as u32,
            first_meshlet,
            meshlet_count: p.meshlets.meshlets.len() as u32,
            material_slot: slots.submesh_slots[i],
            base_vertex: 0,
            bounds,
        });
        if let Some(s) = p.skin {
            skin_vertices.extend(s);
        }
        mesh.vertices.extend(p.vertices);
    }
    mesh.bounds = compute_bounds(mesh.vertices.iter().map(|v| &v.position));
    if lod_count > 0 {
        mesh.lods = Some(lods);
    }
    if let Some(skeleton) = skeleton {
        mesh.skinning = Some(Skinning {
            vertices: skin_vertices,
            joints: skeleton.joints.clone(),
        });
    }
    let triangle_count = mesh.indices.len() / 3;
    Ok(MeshBuild {
        mesh,
        slots,
        times,
        triangle_count,
        warnings: Vec::new(),
    })
}
