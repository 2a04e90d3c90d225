//! The one geometry step every target calls: a primitive's streams through bake, normals,
//! tangents, weld, optimize, LODs and meshlets, as the target's [`PrepareRequest`] asks.
//!
//! Results that do not depend on the target are computed once per primitive per build and
//! shared through [`PrepareCache`]: generated normals are computed in the primitive's own
//! (mesh) space from its positions and indices alone, then applied to whichever streams a
//! target keeps and baked with the target's transform. Stage order:
//!
//! streams (the target's selection) -> extra streams (skin) -> normals -> bake -> tangents
//! -> lightmap charts -> weld -> valence bound -> (optimize -> meshlets) ‖ LODs
//!
//! A new stage goes here, behind a request field, so targets opt in one by one.

use super::bake::bake_transform;
use super::geometry::{Geometry, Semantic};
use super::lightmap_uvs::cut_charts;
use super::lods::{build_lods, LodLevel};
use super::meshlets::{build_meshlets, MeshletSet};
use super::normals::{normal_split, NormalSplit};
use super::optimize::vertex_order;
use super::tangents::generate_tangents;
use super::valence::limit_valence;
use super::weld::{weld_vertices, weld_within};
use super::StageTimes;
use crate::scene::Scene;
use glam::Mat4;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Welding: merge vertices equal in every kept stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeldRequest {
    /// Position grid cell (model units); 0 merges only exact duplicates.
    pub threshold: f32,
    /// Drop vertices no triangle uses.
    pub drop_unused: bool,
    /// When above 0, `threshold` is not used: vertices whose every stream is within this
    /// distance of an earlier vertex's merge into it (assimp's rule, for Qt's Balsam).
    pub epsilon: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshletRequest {
    pub max_vertices: u32,
    pub max_triangles: u32,
    pub cone_weight: f32,
}

/// What a target asks of the geometry stages for one primitive.
pub struct PrepareRequest<'a> {
    /// The streams the target stores (positions always): others are dropped first, so
    /// they neither split nor keep apart welded vertices.
    pub keep: &'a (dyn Fn(Semantic, u32) -> bool + Sync),
    /// Baked into positions, normals and tangents after normals are generated; identity
    /// keeps mesh space.
    pub transform: Mat4,
    /// Generate normals where the source has none.
    pub normals: Option<f32>,
    /// Generate MikkTSpace tangents where missing, from this UV set (when it exists). The
    /// set is read even when `keep` drops it, and dropped after the tangents are made.
    pub tangents: Option<u32>,
    /// Cut lightmap charts ([`cut_charts`]: the `LightmapUv` stream, chart-local) after
    /// the transform is baked, so charts are measured in the target's space; the target
    /// packs them over all its primitives with `lightmap_uvs::pack_charts`.
    pub lightmap_charts: bool,
    pub weld: Option<WeldRequest>,
    /// Vertex-cache and vertex-fetch order (drops unused vertices).
    pub optimize: bool,
    /// LOD ratios and the simplifier's target error; empty ratios for none.
    pub lods: (&'a [f32], f32),
    pub meshlets: Option<MeshletRequest>,
}

/// A primitive whose data the stages cannot work on (streams of the wrong length, indices
/// past the vertices).
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct PrepareError {
    /// The primitive's glTF path.
    pub path: String,
    pub message: String,
}

/// A primitive ready for a target's packer.
#[derive(Debug)]
pub struct Prepared {
    pub geometry: Geometry,
    /// The tangent stream is real (source or generated), not absent.
    pub has_tangents: bool,
    /// One per requested ratio.
    pub lods: Vec<LodLevel>,
    pub meshlets: MeshletSet,
    pub times: StageTimes,
}

type PrimitiveKey = (usize, usize, u32);

/// Stage results shared by every target of one source's build. Safe to share between
/// threads; each entry is computed once, whichever thread asks first.
#[derive(Debug, Default)]
pub struct PrepareCache {
    normal_splits: Mutex<HashMap<PrimitiveKey, Arc<OnceLock<Arc<NormalSplit>>>>>,
}

impl PrepareCache {
    /// The generated normals of `scene.meshes[mesh].primitives[primitive]`, in mesh space.
    fn normals(
        &self,
        key: PrimitiveKey,
        compute: impl FnOnce() -> NormalSplit,
    ) -> Arc<NormalSplit> {
        let cell = {
            // A poisoned lock only means another asset thread panicked mid-insert; the map
            // itself is still consistent.
            let mut map = self.normal_splits.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key).or_default().clone()
        };
        cell.get_or_init(|| Arc::new(compute())).clone()
    }
}

/// Which primitive: `scene.meshes[mesh].primitives[primitive]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PrimitiveId {
    pub mesh: usize,
    pub primitive: usize,
}

impl From<crate::scene::PrimitiveInstance> for PrimitiveId {
    fn from(inst: crate::scene::PrimitiveInstance) -> Self {
        Self {
            mesh: inst.mesh,
            primitive: inst.primitive,
        }
    }
}

/// Runs the requested stages on one primitive (placed by `request.transform`). `extra`
/// adds target-computed streams (skinning) before any stage, so every split and weld keeps
/// them in step. Errors name the primitive's glTF path.
pub fn prepare(
    scene: &Scene,
    id: PrimitiveId,
    request: &PrepareRequest,
    cache: &PrepareCache,
    extra: impl FnOnce(&mut Geometry),
) -> Result<Prepared, PrepareError> {
    let mut times = StageTimes::default();
    let start = Instant::now();
    let prim = scene
        .meshes
        .get(id.mesh)
        .and_then(|m| m.primitives.get(id.primitive))
        .ok_or_else(|| PrepareError {
            path: format!("meshes[{}].primitives[{}]", id.mesh, id.primitive),
            message: "does not exist".into(),
        })?;
    let tangent_uvs = request.tangents;
    let mut g = Geometry::from_primitive(prim, |semantic, set| {
        (request.keep)(semantic, set)
            || (semantic == Semantic::TexCoord && Some(set) == tangent_uvs)
    });
    extra(&mut g);
    g.check().map_err(|e| PrepareError {
        path: prim.gltf_path.clone(),
        message: e.to_string(),
    })?;
    times.bake = start.elapsed();

    if let Some(angle) = request.normals {
        if !g.has(Semantic::Normal, 0) {
            let t = Instant::now();
            let key = (id.mesh, id.primitive, angle.to_bits());
            cache.normals(key, || normal_split(&g, angle)).apply(&mut g);
            times.normals = t.elapsed();
        }
    }
    let t = Instant::now();
    bake_transform(&mut g, request.transform);
    times.bake += t.elapsed();
    let mut has_tangents = g.has(Semantic::Tangent, 0);
    if let Some(set) = tangent_uvs {
        let t = Instant::now();
        has_tangents = generate_tangents(&mut g, set);
        g.streams.retain(|s| {
            s.semantic != Semantic::TexCoord || s.set != set || (request.keep)(s.semantic, s.set)
        });
        times.tangents = t.elapsed();
    }
    if request.lightmap_charts {
        // Charts cut seams: before welding and the vertex order fix the vertices.
        let t = Instant::now();
        cut_charts(&mut g);
        times.lightmap = t.elapsed();
    }
    if let Some(weld) = request.weld {
        let t = Instant::now();
        if weld.epsilon > 0.0 {
            weld_within(&mut g, weld.epsilon, weld.drop_unused);
        } else {
            weld_vertices(&mut g, weld.threshold, weld.drop_unused);
        }
        times.weld = t.elapsed();
    }
    let (ratios, target_error) = request.lods;
    if request.optimize || request.meshlets.is_some() || !ratios.is_empty() {
        // meshoptimizer's stages are quadratic in a vertex's valence: bound it first.
        let t = Instant::now();
        limit_valence(&mut g);
        times.weld += t.elapsed();
    }
    // LODs do not need the vertex-cache order: they are simplified from the welded
    // triangles beside the optimisation and the meshlets (which need it), then renumbered.
    let ((order, optimize_time, meshlets, meshlet_time), (mut lods, lod_time)) = rayon::join(
        || {
            let t = Instant::now();
            let order = if request.optimize {
                vertex_order(&g)
            } else {
                None
            };
            let positions = order.as_ref().map(|o| o.positions(&g));
            let optimize_time = t.elapsed();
            let t = Instant::now();
            let meshlets = match request.meshlets {
                Some(m) => {
                    let (positions, indices) = match (&order, &positions) {
                        (Some(o), Some(p)) => (p.as_slice(), o.indices.as_slice()),
                        _ => (g.positions(), g.indices.as_slice()),
                    };
                    build_meshlets(
                        positions,
                        indices,
                        m.max_vertices,
                        m.max_triangles,
                        m.cone_weight,
                    )
                }
                None => MeshletSet::default(),
            };
            ((order, positions), optimize_time, meshlets, t.elapsed())
        },
        || {
            let t = Instant::now();
            let l = if ratios.is_empty() {
                Vec::new()
            } else {
                build_lods(g.positions(), &g.indices, ratios, target_error)
            };
            (l, t.elapsed())
        },
    );
    let (order, positions) = order;
    if let Some(order) = order {
        let t = Instant::now();
        for level in &mut lods {
            order.renumber(&mut level.indices);
        }
        order.apply(&mut g, positions);
        times.optimize = optimize_time + t.elapsed();
    }
    times.meshlets = meshlet_time;
    times.lods = lod_time;
    Ok(Prepared {
        geometry: g,
        has_tangents,
        lods,
        meshlets,
        times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{Mesh, Node, Primitive};

    fn scene_without_normals() -> Scene {
        let prim = Primitive {
            gltf_path: "meshes[0].primitives[0]".into(),
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            uv1: Some(vec![[0.0; 2], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            indices: vec![0, 1, 2, 0, 3, 1],
            indexed: true,
            ..Default::default()
        };
        let node = Node {
            name: None,
            parent: None,
            children: vec![],
            translation: glam::Vec3::ZERO,
            rotation: glam::Quat::IDENTITY,
            scale: glam::Vec3::ONE,
            local_matrix: Mat4::IDENTITY,
            world_matrix: Mat4::IDENTITY,
            mesh: Some(0),
            skin: None,
            in_scene: true,
        };
        Scene {
            source_ref: "t".into(),
            meshes: vec![Mesh {
                name: None,
                primitives: vec![prim],
            }],
            nodes: vec![node],
            roots: vec![0],
            ..Default::default()
        }
    }

    fn request<'a>(keep: &'a (dyn Fn(Semantic, u32) -> bool + Sync)) -> PrepareRequest<'a> {
        PrepareRequest {
            keep,
            transform: Mat4::IDENTITY,
            normals: Some(60.0),
            tangents: None,
            lightmap_charts: false,
            weld: None,
            optimize: false,
            lods: (&[], 0.0),
            meshlets: None,
        }
    }

    #[test]
    fn normals_are_generated_once_and_serve_every_stream_selection() {
        let scene = scene_without_normals();
        let inst = scene.primitive_instances()[0].into();
        let cache = PrepareCache::default();
        let with_uv1 = |s: Semantic, set: u32| s == Semantic::TexCoord && set == 1;
        let nothing = |_: Semantic, _: u32| false;
        let a = prepare(&scene, inst, &request(&with_uv1), &cache, |_| {}).unwrap();
        let b = prepare(&scene, inst, &request(&nothing), &cache, |_| {}).unwrap();
        assert_eq!(
            cache.normal_splits.lock().unwrap().len(),
            1,
            "one normal split"
        );
        // The fold at 90 degrees splits the shared edge's vertices; both selections agree.
        assert_eq!(a.geometry.vertex_count(), 6);
        assert_eq!(a.geometry.indices, b.geometry.indices);
        assert_eq!(
            a.geometry.stream(Semantic::Normal, 0),
            b.geometry.stream(Semantic::Normal, 0)
        );
        assert!(!b.geometry.has(Semantic::TexCoord, 1));
        // UV1 follows the split vertices: a copy keeps its source vertex's value.
        let uv1 = a.geometry.stream(Semantic::TexCoord, 1).unwrap();
        for (p, uv) in a.geometry.positions().iter().zip(uv1) {
            let source = scene.meshes[0].primitives[0]
                .positions
                .iter()
                .position(|q| q[..] == p[..3])
                .unwrap();
            let expected = scene.meshes[0].primitives[0].uv1.as_ref().unwrap()[source];
            assert_eq!(uv[..2], expected[..]);
        }
    }

    #[test]
    fn bad_indices_are_an_error_naming_the_primitive() {
        let mut scene = scene_without_normals();
        scene.meshes[0].primitives[0].indices[5] = 9;
        let inst = scene.primitive_instances()[0].into();
        let keep = |_: Semantic, _: u32| true;
        let err = prepare(
            &scene,
            inst,
            &request(&keep),
            &PrepareCache::default(),
            |_| {},
        )
        .unwrap_err();
        assert_eq!(err.path, "meshes[0].primitives[0]");
        assert!(err.message.contains("index 9"), "{err}");
    }
}
