//! The `.hmesh` of a scene: every primitive instance through [`prepare`], packed into
//! `GpuVertex`es, with meshlets, LODs, material slots and bounds.

use super::pack::{pack_skin, pack_uv1, pack_vertices, skin_streams};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::formats::hmesh::clod::{encode_topology, ClusterLod};
use crate::formats::hmesh::{HMesh, Lods, MeshLod, Skinning, SubMesh};
use crate::pipeline::bounds::compute_bounds;
use crate::pipeline::cluster_lod::{
    append, build_cluster_lod, first_use_order, give_levels_their_own_vertices, renumber_clusters,
    renumber_mesh, reorder_for_codec, ClusterLodError, ClusterLodInput,
};
use crate::pipeline::geometry::{Geometry, Semantic};
use crate::pipeline::lightmap_uvs::{pack_charts, LightmapError};
use crate::pipeline::material_refs::{assign_material_slots, MaterialSlots};
use crate::pipeline::prepare::{
    prepare, MeshletRequest, PrepareCache, PrepareError, PrepareRequest, Prepared, WeldRequest,
};
use crate::pipeline::{MeshSettings, StageTimes, TangentMode};
use crate::rig::skeleton::{skin_primitive, Skeleton, SkinError};
use crate::scene::Scene;
use rayon::prelude::*;
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    #[error("invalid mesh settings: {0}")]
    Settings(#[from] crate::pipeline::SettingRangeError),
    #[error(transparent)]
    Skin(#[from] SkinError),
    #[error("the scene has no triangle geometry to export")]
    Empty,
    #[error("the mesh has {0} vertices after processing; .hmesh indices are 32-bit")]
    TooManyVertices(usize),
    #[error(transparent)]
    Geometry(#[from] PrepareError),
    #[error("{path}: {source}")]
    ClusterLod {
        path: String,
        source: ClusterLodError,
    },
    #[error(transparent)]
    Lightmap(#[from] LightmapError),
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
    pub warnings: Vec<Warning>,
}

/// The streams `.hmesh` stores: position, normal, tangent, UV0, UV1 (the optional UV1S
/// chunk) and (added by the skinning stage, not taken from the source) joints and weights
/// set 0. Keeping UV1 means welding never merges two vertices whose second UVs differ, and
/// every later stage (optimisation, LODs, meshlets) carries it like UV0.
fn stored(semantic: Semantic, set: u32) -> bool {
    matches!(
        (semantic, set),
        (Semantic::Normal | Semantic::Tangent | Semantic::TexCoord, 0) | (Semantic::TexCoord, 1)
    )
}

/// [`stored`] with generated lightmap UVs: UV1S holds those, so the source's second UV set
/// is dropped before it could split vertices for nothing.
fn stored_with_lightmap(semantic: Semantic, set: u32) -> bool {
    stored(semantic, set) && (semantic, set) != (Semantic::TexCoord, 1)
}

/// Builds the `.hmesh` of every primitive instance of `scene`. With a skeleton, every
/// submesh gets skinning data and skinned geometry is left in bind space.
pub fn build_hmesh(
    scene: &Scene,
    settings: &MeshSettings,
    skeleton: Option<&Skeleton>,
    cache: &PrepareCache,
) -> Result<MeshBuild, MeshError> {
    settings.validate().map_err(MeshError::Settings)?;
    let instances = scene.primitive_instances();
    if instances.is_empty() {
        return Err(MeshError::Empty);
    }
    let lightmap = settings.generate_lightmap_uvs;
    let keep: &(dyn Fn(Semantic, u32) -> bool + Sync) = if lightmap {
        &stored_with_lightmap
    } else {
        &stored
    };
    let request = |transform, tangents| PrepareRequest {
        keep,
        transform,
        normals: settings
            .generate_normals
            .then_some(settings.normal_smoothing_angle),
        tangents,
        lightmap_charts: lightmap,
        weld: settings.weld_vertices.then_some(WeldRequest {
            threshold: settings.weld_threshold,
            drop_unused: false,
            epsilon: 0.0,
        }),
        optimize: settings.optimize,
        lods: (&settings.lod_ratios, settings.lod_target_error),
        meshlets: Some(MeshletRequest {
            max_vertices: settings.meshlet_max_vertices,
            max_triangles: settings.meshlet_max_triangles,
            cone_weight: settings.meshlet_cone_weight,
        }),
    };
    let results: Vec<(Option<PreparedInstance>, Vec<Warning>)> = instances
        .par_iter()
        .map(|&inst| {
            let mut warnings: Vec<Warning> = Vec::new();
            let path = &scene.primitive(inst).gltf_path;
            let (transform, skin) = match skeleton {
                Some(skeleton) => match skin_primitive(scene, inst, skeleton) {
                    Ok(skinned) => {
                        warnings.extend(skinned.warnings);
                        (skinned.position_transform, Some(skinned.vertices))
                    }
                    // A primitive bound to a second skin that cannot be expressed with the
                    // exported joints is dropped alone rather than failing the asset.
                    Err(e @ SkinError::ForeignSkin { .. }) => {
                        warnings.push(Warning::at(
                            DiagnosticCode::NotExported,
                            path.to_string(),
                            format!("dropped: {e}"),
                        ));
                        return Ok((None, warnings));
                    }
                    Err(e) => return Err(MeshError::Skin(e)),
                },
                None if settings.bake_transforms => (scene.nodes[inst.node].world_matrix, None),
                None => (glam::Mat4::IDENTITY, None),
            };
            let tangents = tangent_uv_set(scene, scene.primitive(inst).material, settings);
            let prepared = prepare(
                scene,
                inst.into(),
                &request(transform, tangents),
                cache,
                |g| {
                    if let Some(skin) = &skin {
                        skin_streams(g, skin);
                    }
                },
            )?;
            // Under "auto" only a normal-mapped primitive needs a real tangent frame;
            // otherwise any primitive with UVs does.
            let needs_tangents = match settings.generate_tangents {
                TangentMode::Auto => {
                    tangents.is_some_and(|set| scene.primitive(inst).has_tex_coords(set))
                }
                _ => prepared.geometry.has(Semantic::TexCoord, 0),
            };
            let cluster_lod = if settings.cluster_lod {
                let g = &prepared.geometry;
                let input = ClusterLodInput {
                    positions: g.positions(),
                    indices: &g.indices,
                    normals: g.stream(Semantic::Normal, 0),
                    uvs: g.stream(Semantic::TexCoord, 0),
                };
                Some(
                    build_cluster_lod(&input).map_err(|source| MeshError::ClusterLod {
                        path: path.clone(),
                        source,
                    })?,
                )
            } else {
                None
            };
            Ok((Some((prepared, needs_tangents, cluster_lod)), warnings))
        })
        .collect::<Result<_, MeshError>>()?;
    let mut warnings: Vec<Warning> = Vec::new();
    let mut processed = Vec::with_capacity(results.len());
    let mut needs_tangents = Vec::with_capacity(results.len());
    let mut cluster_lods = Vec::with_capacity(results.len());
    for (p, w) in results {
        warnings.extend(w);
        if let Some((p, needs, lod)) = p {
            processed.push(p);
            needs_tangents.push(needs);
            cluster_lods.push(lod);
        }
    }
    if processed.is_empty() {
        return Err(MeshError::Empty);
    }
    if lightmap {
        // One atlas for the whole file: every instance gets charts of its own.
        let t = Instant::now();
        let mut geometries: Vec<&mut Geometry> =
            processed.iter_mut().map(|p| &mut p.geometry).collect();
        pack_charts(&mut geometries, settings.lightmap_resolution)?;
        if let Some(first) = processed.first_mut() {
            first.times.lightmap += t.elapsed();
        }
    }
    let material_of: Vec<Option<usize>> = processed.iter().map(|p| p.geometry.material).collect();
    let slots = assign_material_slots(&scene.source_ref, &scene.materials, &material_of);
    let has_tangents = mesh_has_tangents(&processed, &needs_tangents);
    let vertex_counts: Vec<usize> = processed
        .iter()
        .map(|p| p.geometry.vertex_count())
        .collect();
    let mut build = assemble(processed, has_tangents, slots, settings, skeleton)?;
    if settings.cluster_lod {
        build.mesh.cluster_lod = Some(gather_cluster_lods(
            &mut build.mesh,
            cluster_lods,
            &vertex_counts,
            settings,
        )?);
    }
    build.warnings = warnings;
    Ok(build)
}

/// A prepared primitive instance, whether it needs a real tangent frame, and its cluster
/// LOD hierarchy when one is asked for.
type PreparedInstance = (Prepared, bool, Option<ClusterLod>);

/// One hierarchy for the mesh: each submesh's, rebased onto the mesh's vertices (those
/// of submesh i start after the `vertex_counts` of the ones before, as `assemble` packs
/// them); the mesh's vertices renumbered in the order the clusters first use them (cheap
/// references for the codec, see `cluster_lod::renumber`), the coarser levels given their
/// own vertex copies when asked (`cluster_lod::copies`), then encoded with the meshlet
/// codec when asked.
fn gather_cluster_lods(
    mesh: &mut HMesh,
    parts: Vec<Option<ClusterLod>>,
    vertex_counts: &[usize],
    settings: &MeshSettings,
) -> Result<ClusterLod, MeshError> {
    let compress = settings.cluster_compress;
    let mut total = ClusterLod::default();
    let mut base = 0u32;
    for (s, (part, &count)) in parts.into_iter().zip(vertex_counts).enumerate() {
        if let Some(part) = part {
            append(&mut total, part, s as u32, base);
        }
        base += count as u32;
    }
    if compress {
        reorder_for_codec(&mut total);
    }
    let order = first_use_order(&total, vertex_counts);
    if let Some(new_of_old) = order.filter(|o| o.len() == mesh.vertices.len()) {
        renumber_clusters(&mut total, &new_of_old);
        renumber_mesh(mesh, &new_of_old);
    }
    if settings.cluster_vertex_copies {
        give_levels_their_own_vertices(&mut total, mesh);
    }
    if compress {
        total.topology = encode_topology(&total).map_err(|e| MeshError::ClusterLod {
            path: "cluster topology".into(),
            source: ClusterLodError::Codec(e),
        })?;
    }
    Ok(total)
}

/// The UV set tangents are generated from for a primitive with `material`, if any: the
/// normal texture's set, or (`generate_tangents = true`, no normal texture) TEXCOORD_0.
fn tangent_uv_set(scene: &Scene, material: Option<usize>, settings: &MeshSettings) -> Option<u32> {
    let normal_uvs = material
        .and_then(|m| scene.materials.get(m))
        .and_then(|m| m.normal_texture.as_ref())
        .map(|t| t.tex_coord);
    match settings.generate_tangents {
        TangentMode::Off => None,
        TangentMode::On => Some(normal_uvs.unwrap_or(0)),
        TangentMode::Auto => normal_uvs,
    }
}

/// DESC's tangent flag is mesh-wide: set when some submesh has real tangents and every
/// submesh either has them or does not need them (`needs[i]` false: no UVs, a frame
/// nothing can normal-map along, or under `generate_tangents = "auto"` no normal texture;
/// for those the fixed perpendicular is as good as any). A submesh that needs tangents but
/// has none (tangent generation off) clears it, and then every tangent is written as the
/// placeholder.
fn mesh_has_tangents(processed: &[Prepared], needs: &[bool]) -> bool {
    processed.iter().any(|p| p.has_tangents)
        && processed
            .iter()
            .zip(needs)
            .all(|(p, &needs)| p.has_tangents || !needs)
}

fn assemble(
    processed: Vec<Prepared>,
    has_tangents: bool,
    slots: MaterialSlots,
    settings: &MeshSettings,
    skeleton: Option<&Skeleton>,
) -> Result<MeshBuild, MeshError> {
    let total_vertices: usize = processed.iter().map(|p| p.geometry.vertex_count()).sum();
    if total_vertices > u32::MAX as usize {
        return Err(MeshError::TooManyVertices(total_vertices));
    }
    let mut mesh = HMesh {
        has_tangents,
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
    // UV1S is written when any submesh has a second UV set; the others get zeros there,
    // as absent UV0 does in VTXS.
    let any_uv1 = processed
        .iter()
        .any(|p| p.geometry.has(Semantic::TexCoord, 1) || p.geometry.has(Semantic::LightmapUv, 0));
    let mut uv1 = Vec::new();
    let mut times = StageTimes::default();
    for (i, mut p) in processed.into_iter().enumerate() {
        let t = Instant::now();
        let vertices = pack_vertices(&p.geometry, has_tangents && p.has_tangents);
        let mut submesh_times = p.times;
        submesh_times.pack = t.elapsed();
        times.add(&submesh_times);
        let base = mesh.vertices.len() as u32;
        let first_index = mesh.indices.len() as u32;
        let first_meshlet = mesh.meshlets.len() as u32;
        let bounds = compute_bounds(vertices.iter().map(|v| &v.position));
        let index_count = p.geometry.indices.len() as u32;
        append_rebased(
            &mut mesh.indices,
            std::mem::take(&mut p.geometry.indices),
            base,
        );
        let vertex_offset = mesh.meshlet_vertices.len() as u32;
        let triangle_offset = mesh.meshlet_triangles.len() as u32;
        let meshlet_count = p.meshlets.meshlets.len() as u32;
        if mesh.meshlets.is_empty() && vertex_offset == 0 && triangle_offset == 0 {
            // The first submesh's meshlets start at offset 0 in every array: moved as
            // they are (a million-triangle mesh's are megabytes).
            mesh.meshlets = p.meshlets.meshlets;
            mesh.meshlet_triangles = p.meshlets.triangles;
            mesh.meshlet_bounds = p.meshlets.bounds;
        } else {
            mesh.meshlets.extend(p.meshlets.meshlets.iter().map(|m| {
                crate::formats::hmesh::Meshlet {
                    vertex_offset: m.vertex_offset + vertex_offset,
                    triangle_offset: m.triangle_offset + triangle_offset,
                    ..*m
                }
            }));
            mesh.meshlet_triangles
                .extend_from_slice(&p.meshlets.triangles);
            mesh.meshlet_bounds.extend_from_slice(&p.meshlets.bounds);
        }
        append_rebased(&mut mesh.meshlet_vertices, p.meshlets.vertices, base);
        for level in p.lods {
            lods.ranges.push(MeshLod {
                first_index: lods.indices.len() as u32,
                index_count: level.indices.len() as u32,
            });
            append_rebased(&mut lods.indices, level.indices, base);
        }
        mesh.submeshes.push(SubMesh {
            first_index,
            index_count,
            first_meshlet,
            meshlet_count,
            material_slot: slots.submesh_slots[i],
            base_vertex: 0,
            bounds,
        });
        if let Some(s) = pack_skin(&p.geometry) {
            skin_vertices.extend(s);
        }
        if any_uv1 {
            uv1.extend(pack_uv1(&p.geometry));
        }
        if mesh.vertices.is_empty() {
            mesh.vertices = vertices;
        } else {
            mesh.vertices.extend(vertices);
        }
    }
    // One submesh: the mesh's bounds are its bounds, computed from the same vertices.
    mesh.bounds = match mesh.submeshes.as_slice() {
        [only] => only.bounds,
        _ => compute_bounds(mesh.vertices.iter().map(|v| &v.position)),
    };
    if lod_count > 0 {
        mesh.lods = Some(lods);
    }
    if any_uv1 {
        mesh.uv1 = Some(uv1);
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

/// Appends `values + base` to `out`; into an empty `out` with no offset the vector is
/// moved rather than copied.
fn append_rebased(out: &mut Vec<u32>, values: Vec<u32>, base: u32) {
    if out.is_empty() && base == 0 {
        *out = values;
    } else {
        out.extend(values.iter().map(|&i| i + base));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::octahedral;
    use crate::scene::{Material, Mesh, Node, Primitive, TextureRef};
    use glam::{Mat4, Vec3};

    /// One mesh of two quads in the XY plane facing +Z: primitive 0 with a material whose
    /// normal texture reads TEXCOORD_1 (u along +Y there, along +X in TEXCOORD_0),
    /// primitive 1 with a plain material and TEXCOORD_0 only.
    fn two_quads() -> Scene {
        let positions = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let uv0 = vec![[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
        let uv1 = vec![[0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]];
        let quad = |material, uv1: Option<Vec<[f32; 2]>>| Primitive {
            gltf_path: format!("meshes[0].primitives[{material}]"),
            positions: positions.clone(),
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            uv0: Some(uv0.clone()),
            uv1,
            indices: vec![0, 1, 2, 0, 2, 3],
            indexed: true,
            material: Some(material),
            ..Default::default()
        };
        let normal_mapped = Material {
            normal_texture: Some(TextureRef {
                image: 0,
                tex_coord: 1,
                ..TextureRef::default()
            }),
            ..Default::default()
        };
        Scene {
            source_ref: "quads".into(),
            meshes: vec![Mesh {
                name: None,
                primitives: vec![quad(0, Some(uv1)), quad(1, None)],
            }],
            nodes: vec![Node {
                name: None,
                parent: None,
                children: vec![],
                translation: Vec3::ZERO,
                rotation: glam::Quat::IDENTITY,
                scale: Vec3::ONE,
                local_matrix: Mat4::IDENTITY,
                world_matrix: Mat4::IDENTITY,
                mesh: Some(0),
                skin: None,
                in_scene: true,
            }],
            roots: vec![0],
            materials: vec![normal_mapped, Material::default()],
            ..Default::default()
        }
    }

    /// The decoded tangent direction and handedness of every vertex of submesh `s`.
    fn submesh_tangents(mesh: &HMesh, s: usize) -> Vec<(Vec3, f32)> {
        let sub = &mesh.submeshes[s];
        mesh.indices[sub.first_index as usize..(sub.first_index + sub.index_count) as usize]
            .iter()
            .map(|&v| {
                let (t, w) = octahedral::decode_tangent(mesh.vertices[v as usize].tangent);
                (Vec3::from(t), w)
            })
            .collect()
    }

    fn build(mode: TangentMode) -> HMesh {
        let settings = MeshSettings {
            generate_tangents: mode,
            ..Default::default()
        };
        build_hmesh(&two_quads(), &settings, None, &PrepareCache::default())
            .unwrap()
            .mesh
    }

    #[test]
    fn auto_tangents_only_for_the_normal_mapped_primitive_from_its_uv_set() {
        let mesh = build(TangentMode::Auto);
        assert!(
            mesh.has_tangents,
            "the normal-mapped primitive has real tangents"
        );
        for (t, _) in submesh_tangents(&mesh, 0) {
            assert!(
                t.dot(Vec3::Y) > 0.999,
                "tangent follows TEXCOORD_1's u: {t}"
            );
        }
        // The plain primitive gets the fixed frame, not one along its TEXCOORD_0.
        let fixed = Vec3::from(crate::pipeline::tangents::perpendicular([0.0, 0.0, 1.0]));
        for (t, w) in submesh_tangents(&mesh, 1) {
            assert!(t.dot(fixed) > 0.999 && w == 1.0, "{t} {w}");
        }
        // TEXCOORD_1 goes to UV1S, not VTXS: the UVs there are TEXCOORD_0's.
        for v in &mesh.vertices {
            assert_eq!(
                v.uv,
                [v.position[0], 1.0 - v.position[1]],
                "TEXCOORD_0 stored"
            );
        }
    }

    #[test]
    fn the_second_uv_set_is_stored_per_vertex_and_zero_where_a_submesh_has_none() {
        let mesh = build(TangentMode::Auto);
        let uv1 = mesh.uv1.as_ref().expect("primitive 0 has TEXCOORD_1");
        assert_eq!(uv1.len(), mesh.vertices.len());
        let vertices_of = |s: usize| {
            let sub = &mesh.submeshes[s];
            mesh.indices[sub.first_index as usize..(sub.first_index + sub.index_count) as usize]
                .to_vec()
        };
        // two_quads' TEXCOORD_1 is (y, x) of each corner's position.
        for v in vertices_of(0) {
            let p = mesh.vertices[v as usize].position;
            assert_eq!(uv1[v as usize], [p[1], p[0]], "vertex {v}");
        }
        // Primitive 1 has no second set: zeros, as the writer documents.
        for v in vertices_of(1) {
            assert_eq!(uv1[v as usize], [0.0, 0.0], "vertex {v}");
        }
        // Without any second set there is no UV1S.
        let mut scene = two_quads();
        scene.meshes[0].primitives[0].uv1 = None;
        let plain = build_hmesh(
            &scene,
            &MeshSettings::default(),
            None,
            &PrepareCache::default(),
        )
        .unwrap()
        .mesh;
        assert_eq!(plain.uv1, None);
    }

    #[test]
    fn tangents_on_for_every_primitive_and_off_for_none() {
        let on = build(TangentMode::On);
        assert!(on.has_tangents);
        for (t, _) in submesh_tangents(&on, 1) {
            assert!(
                t.dot(Vec3::X) > 0.999,
                "tangent follows TEXCOORD_0's u: {t}"
            );
        }
        for (t, _) in submesh_tangents(&on, 0) {
            assert!(
                t.dot(Vec3::Y) > 0.999,
                "the normal texture's set still wins: {t}"
            );
        }
        assert!(!build(TangentMode::Off).has_tangents);
    }
}
