//! `tobj`'s models (one per object/group and `usemtl` run) as triangle [`Primitive`]s.
//!
//! `tobj` keeps a separate index per attribute (position, texture coordinate, normal);
//! a runtime vertex is one distinct combination of the three, plus the smoothing group
//! when the importer makes the normals. Polygons are split by [`triangulate`]: a fan from
//! the first corner when convex (what `tobj` and exporters assume), ear clipping when
//! concave.

use super::polygon::triangulate;
use crate::import::ImportLimits;
use crate::scene::Primitive;
use glam::Vec3;
use std::collections::HashMap;

/// What the importer knows about one model besides `tobj`'s data.
pub struct ModelContext<'a> {
    /// `object "Chair"` (or `group`), for messages: the primitive's path.
    pub path: String,
    /// Smoothing group of each of the model's faces, in order (0: off); used only when
    /// `smooth_by_groups`.
    pub face_groups: &'a [u32],
    /// The file has smoothing groups and no normals for this model: normals are made
    /// here, smooth within a group, flat in group 0.
    pub smooth_by_groups: bool,
    pub material: Option<usize>,
}

/// Why a model's faces do not make a primitive.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjMeshError {
    #[error("{corners} face corners do not add up to the {indices} indices read")]
    CornerCount { corners: usize, indices: usize },
    #[error(
        "{triangles} triangles ({} indices) exceed the limit of {limit} indices per primitive",
        triangles * 3
    )]
    TooManyIndices { triangles: u64, limit: u64 },
    #[error(
        "{corners} face corners (up to as many vertices) exceed the limit of {limit} vertices per primitive"
    )]
    TooManyCorners { corners: usize, limit: u64 },
    #[error("{read} faces read but {recorded} recorded")]
    FaceCount { read: usize, recorded: usize },
    #[error("{what} {index} does not exist")]
    Missing { what: &'static str, index: usize },
}

impl ObjMeshError {
    /// Past one of the import limits (a [`super::super::ImportError::Limit`]).
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            Self::TooManyIndices { .. } | Self::TooManyCorners { .. }
        )
    }
}

/// The model's triangles. Fails over the per-primitive limits, before the arrays are built.
pub fn primitive(
    mesh: &tobj::Mesh,
    ctx: &ModelContext,
    limits: &ImportLimits,
) -> Result<Primitive, ObjMeshError> {
    let corners = mesh.indices.len();
    let arities: Vec<usize> = if mesh.face_arities.is_empty() {
        vec![3; corners / 3]
    } else {
        mesh.face_arities.iter().map(|&a| a as usize).collect()
    };
    if arities.iter().sum::<usize>() != corners {
        return Err(ObjMeshError::CornerCount {
            corners: arities.iter().sum::<usize>(),
            indices: corners,
        });
    }
    let triangles: u64 = arities.iter().map(|&a| a.saturating_sub(2) as u64).sum();
    if triangles * 3 > limits.max_indices_per_primitive {
        return Err(ObjMeshError::TooManyIndices {
            triangles,
            limit: limits.max_indices_per_primitive,
        });
    }
    if corners as u64 > limits.max_vertices_per_primitive {
        return Err(ObjMeshError::TooManyCorners {
            corners,
            limit: limits.max_vertices_per_primitive,
        });
    }
    let has_uv = !mesh.texcoord_indices.is_empty();
    let has_normals = !mesh.normal_indices.is_empty();
    let by_groups = ctx.smooth_by_groups && !has_normals;
    if by_groups && ctx.face_groups.len() != arities.len() {
        return Err(ObjMeshError::FaceCount {
            read: arities.len(),
            recorded: ctx.face_groups.len(),
        });
    }

    // One vertex per distinct (position, uv, normal, smoothing key) corner.
    let mut vertex_of: HashMap<[u32; 4], u32> = HashMap::new();
    let mut keys: Vec<[u32; 4]> = Vec::new();
    let mut corner_vertex = Vec::with_capacity(corners);
    let mut start = 0usize;
    for (face, &arity) in arities.iter().enumerate() {
        // Group 0 (off) is flat: a key of its own for each face.
        let smoothing = if by_groups {
            match ctx.face_groups[face] {
                0 => u32::MAX - face as u32,
                g => g,
            }
        } else {
            0
        };
        for c in start..start + arity {
            let key = [
                mesh.indices[c],
                if has_uv { mesh.texcoord_indices[c] } else { 0 },
                if has_normals {
                    mesh.normal_indices[c]
                } else {
                    0
                },
                smoothing,
            ];
            let next = keys.len() as u32;
            let v = *vertex_of.entry(key).or_insert_with(|| {
                keys.push(key);
                next
            });
            corner_vertex.push(v);
        }
        start += arity;
    }

    let get3 = |data: &[f32], i: u32, what: &'static str| -> Result<[f32; 3], ObjMeshError> {
        let i = i as usize;
        data.get(i * 3..i * 3 + 3)
            .map(|s| [s[0], s[1], s[2]])
            .ok_or(ObjMeshError::Missing { what, index: i })
    };
    let mut positions = Vec::with_capacity(keys.len());
    let mut uvs = Vec::with_capacity(if has_uv { keys.len() } else { 0 });
    let mut normals = Vec::with_capacity(if has_normals { keys.len() } else { 0 });
    for k in &keys {
        positions.push(get3(&mesh.positions, k[0], "position")?);
        if has_uv {
            let i = k[1] as usize;
            let uv = mesh
                .texcoords
                .get(i * 2..i * 2 + 2)
                .ok_or(ObjMeshError::Missing {
                    what: "texture coordinate",
                    index: i,
                })?;
            // OBJ's V runs up from the bottom of the image, glTF's (and the runtime
            // formats') down from the top.
            uvs.push([uv[0], 1.0 - uv[1]]);
        }
        if has_normals {
            normals.push(get3(&mesh.normals, k[2], "normal")?);
        }
    }

    let mut indices = Vec::with_capacity(triangles as usize * 3);
    let mut start = 0usize;
    for &arity in &arities {
        let face = &corner_vertex[start..start + arity];
        triangulate(&positions, face, &mut indices);
        start += arity;
    }
    let normals = if has_normals {
        Some(normals)
    } else if by_groups {
        Some(smooth_normals(&positions, &arities, &corner_vertex, &keys))
    } else {
        None
    };
    Ok(Primitive {
        gltf_path: ctx.path.clone(),
        positions,
        normals,
        uv0: has_uv.then_some(uvs),
        indices,
        indexed: true,
        material: ctx.material,
        ..Default::default()
    })
}

/// Area-weighted face normals, summed per OBJ position and smoothing key (`keys[v]` is
/// vertex v's [position, uv, normal, smoothing]): corners of one group that share a
/// position are smooth even when their UVs split them into several vertices; group 0 is
/// keyed per face, so flat. Each polygon counts once with its whole area (Newell's normal,
/// whose length is twice the area), however it is split into triangles.
fn smooth_normals(
    positions: &[[f32; 3]],
    arities: &[usize],
    corner_vertex: &[u32],
    keys: &[[u32; 4]],
) -> Vec<[f32; 3]> {
    let mut sum: HashMap<(u32, u32), Vec3> = HashMap::new();
    let mut start = 0usize;
    for &arity in arities {
        let face = &corner_vertex[start..start + arity];
        start += arity;
        let mut n = Vec3::ZERO;
        for (i, &v) in face.iter().enumerate() {
            let a = Vec3::from(positions[v as usize]);
            let b = Vec3::from(positions[face[(i + 1) % arity] as usize]);
            n += a.cross(b);
        }
        for &v in face {
            let k = keys[v as usize];
            *sum.entry((k[0], k[3])).or_default() += n;
        }
    }
    keys.iter()
        .map(|k| {
            sum.get(&(k[0], k[3]))
                .and_then(|n| n.try_normalize())
                .unwrap_or(Vec3::Z)
                .to_array()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Vec<tobj::Model> {
        let options = tobj::LoadOptions {
            single_index: false,
            triangulate: false,
            ignore_points: true,
            ignore_lines: true,
        };
        tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| {
            Err(tobj::LoadError::OpenFileFailed)
        })
        .unwrap()
        .0
    }

    fn ctx(groups: &[u32], smooth: bool) -> ModelContext<'_> {
        ModelContext {
            path: "object \"x\"".into(),
            face_groups: groups,
            smooth_by_groups: smooth,
            material: None,
        }
    }

    /// Two unit squares folded at x = 1 by 90 degrees: one in z = 0, one in x = 1.
    const FOLD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 1 0 -1\nv 1 1 -1\n\
                        vt 0 0\nvt 1 1\nvt 0.5 0.5\nf 1/1 2/1 3/2 4/2\nf 2/3 5/1 6/2 3/3\n";

    #[test]
    fn quads_are_fans_and_v_is_flipped() {
        let models = load(FOLD);
        let p = primitive(
            &models[0].mesh,
            &ctx(&[0, 0], false),
            &ImportLimits::default(),
        )
        .unwrap();
        assert_eq!(p.triangle_count(), 4);
        // Fan from the first corner: (1 2 3) (1 3 4).
        let pos = |v: u32| p.positions[v as usize];
        assert_eq!(
            p.indices[..6].iter().map(|&v| pos(v)).collect::<Vec<_>>(),
            [
                [0., 0., 0.],
                [1., 0., 0.],
                [1., 1., 0.],
                [0., 0., 0.],
                [1., 1., 0.],
                [0., 1., 0.]
            ]
        );
        let uv = p.uv0.as_ref().unwrap();
        assert_eq!(
            uv[p.indices[0] as usize],
            [0.0, 1.0],
            "vt 0 0 is the bottom-left"
        );
        assert_eq!(uv[p.indices[2] as usize], [1.0, 0.0]);
        assert!(
            p.normals.is_none(),
            "left to the pipeline's smoothing angle"
        );
    }

    #[test]
    fn smoothing_groups_split_or_join_the_fold() {
        let models = load(FOLD);
        let limits = ImportLimits::default();
        // Same group: the shared edge x = 1 has one normal, halfway between +Z and +X.
        let joined = primitive(&models[0].mesh, &ctx(&[1, 1], true), &limits).unwrap();
        let n = joined.normals.as_ref().unwrap();
        let edge: Vec<_> = (0..joined.positions.len())
            .filter(|&v| joined.positions[v] == [1.0, 0.0, 0.0])
            .collect();
        // The two faces give (1,0,0) different UVs, so it is two vertices: both smooth.
        assert_eq!(edge.len(), 2);
        for &v in &edge {
            let h = std::f32::consts::FRAC_1_SQRT_2;
            assert!(
                (Vec3::from(n[v]) - Vec3::new(h, 0.0, h)).length() < 1e-5,
                "{:?}",
                n[v]
            );
        }
        // Different groups (or off): each face flat, +Z and +X.
        let split = primitive(&models[0].mesh, &ctx(&[1, 2], true), &limits).unwrap();
        let n = split.normals.as_ref().unwrap();
        for t in split.indices.chunks(3).take(2) {
            for &v in t {
                assert_eq!(n[v as usize], [0.0, 0.0, 1.0]);
            }
        }
        for t in split.indices.chunks(3).skip(2) {
            for &v in t {
                assert_eq!(n[v as usize], [1.0, 0.0, 0.0]);
            }
        }
    }

    #[test]
    fn limits_are_checked_before_building() {
        let models = load(FOLD);
        let limits = ImportLimits {
            max_indices_per_primitive: 9,
            ..Default::default()
        };
        let e = primitive(&models[0].mesh, &ctx(&[0, 0], false), &limits).unwrap_err();
        assert!(e.is_limit(), "{e:?}");
        assert!(e.to_string().contains("4 triangles (12 indices)"), "{e}");
    }
}
