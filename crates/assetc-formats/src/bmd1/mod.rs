//! BGBTech3 BMD1 meshes (seed 001, conventions [B1]-[B24] in seed-conventions.md): plain
//! structs, a writer, a reader and a validator.
//!
//! Hand-written because no crate knows this niche format. The writer only emits canonical
//! images (smallest exponents, smallest triangle entries, fixed layout), so reading a file
//! it wrote and writing it again gives the same bytes. The reader is lenient where the seed
//! allows: packed XYZ values with any exponent [B2] read (the author's own samples use
//! larger ones); writing them again gives the smallest exponent.

mod anim;
mod codec;
mod format;
mod prim;
mod read;
mod vertex;
mod write;

#[cfg(test)]
mod tests;

pub use anim::{
    decode_track, encode_track, normalize_quat, sample_pose, sample_track, track_from_frames,
    AnimError, AnimTolerance, Animation, BoneFrames, Key, Track, Transform,
};
pub use codec::{
    f8a_decode, f8a_encode, half_decode, half_encode, st11_decode, st11_encode, st12_decode,
    st12_encode, st14_decode, st14_encode, xyz_decode, xyz_encode, xyz_is_canonical, xyz_step,
    F8A_MAX,
};
pub use format::FORMAT;
pub use prim::{
    decode_primitive, encode_primitive, split_mesh, MeshPiece, Primitive, PrimitiveError,
    SourcePrimitive, SplitError, TriangleListKind, VertexListKind, MAX_MESH_VERTICES,
};
pub use read::{read, validate};
pub use vertex::{
    decode_vertex, encode_vertex, encoding_error, pick_encoding, EncodedVertex, EncodingError,
    ErrorBound, Vertex, VertexEncoding, VertexError, VertexIn,
};
pub use write::write;

use crate::Problem;
use std::collections::{HashMap, HashSet};
use thiserror::Error;

pub const MAGIC: [u8; 4] = *b"BMD1";
pub const HEADER_SIZE: usize = 0x30;
pub const MESH_DEF_SIZE: usize = 32;
pub const LOD_DEF_SIZE: usize = 4;
pub const BONE_DEF_SIZE: usize = 16;
pub const ANIM_DEF_SIZE: usize = 16;
/// Bone ids share the vertex tag byte with the F0-FF record tags [B4].
pub const MAX_BONES: usize = 0xF0;
/// `id_parent` of a pseudo-bone.
pub const PSEUDO_PARENT: u8 = 0xFF;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bmd1 {
    pub meshes: Vec<MeshDef>,
    pub lods: Vec<Lod>,
    /// Empty for a static model; otherwise bone 0 is the base.
    pub bones: Vec<Bone>,
    pub animations: Vec<Animation>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MeshDef {
    /// `None`: not drawn (e.g. only a bone solid).
    pub material: Option<String>,
    pub vertex_list: VertexListKind,
    pub triangle_list: TriangleListKind,
    pub vertices: Vec<Vertex>,
    pub primitives: Vec<Primitive>,
}

impl MeshDef {
    /// A mesh with the smallest list kinds its vertices and primitives allow.
    pub fn new(
        material: Option<String>,
        vertices: Vec<Vertex>,
        primitives: Vec<Primitive>,
    ) -> Self {
        Self {
            material,
            vertex_list: VertexListKind::smallest_for(&vertices),
            triangle_list: TriangleListKind::smallest_for(&primitives),
            vertices,
            primitives,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lod {
    pub first_mesh: u8,
    pub mesh_count: u8,
    /// Nominal scale 1/(dist+1), in [0, 1], stored as F8A.
    pub scale: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Required and unique for bones 1+.
    pub name: Option<String>,
    /// Mesh index of the bone's solid; 0 = none.
    pub solid: u8,
    pub kind: BoneKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BoneKind {
    /// `rotation` is I/J/K/R (x, y, z, w) as raw F8A values; all zero means identity.
    Normal {
        parent: u8,
        rotation: [f32; 4],
        origin: [f32; 3],
    },
    /// Placed by blending normal bones; weights are F8A values.
    Pseudo { bones: [u8; 4], weights: [f32; 4] },
}

/// What a model-level problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Model,
    Mesh(usize),
    Lod(usize),
    Bone(usize),
    Animation(usize),
}

impl std::fmt::Display for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Model => f.write_str("model"),
            Self::Mesh(i) => write!(f, "mesh {i}"),
            Self::Lod(i) => write!(f, "LOD {i}"),
            Self::Bone(i) => write!(f, "bone {i}"),
            Self::Animation(i) => write!(f, "animation {i}"),
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Bmd1Error {
    #[error("invalid BMD1 image, {0}")]
    Invalid(Problem),
    #[error("{item}: {message}")]
    Model { item: Item, message: String },
    #[error("mesh {mesh} vertex {vertex}: {source}")]
    Vertex {
        mesh: usize,
        vertex: usize,
        source: VertexError,
    },
    #[error("mesh {mesh} primitive {primitive}: {source}")]
    Primitive {
        mesh: usize,
        primitive: usize,
        source: PrimitiveError,
    },
    #[error("animation {animation} bone {bone}: {source}")]
    Animation {
        animation: usize,
        bone: usize,
        source: AnimError,
    },
    #[error("the image would be {0} bytes, beyond the 32-bit offset range")]
    TooLarge(usize),
}

fn check_string(s: &str) -> Option<&'static str> {
    if s.is_empty() {
        Some("is empty")
    } else if s.contains('\0') {
        Some("contains NUL")
    } else {
        None
    }
}

/// Number of normal bones: pseudo-bones follow them [B18].
pub fn normal_bone_count(bones: &[Bone]) -> usize {
    bones
        .iter()
        .position(|b| matches!(b.kind, BoneKind::Pseudo { .. }))
        .unwrap_or(bones.len())
}

/// The model-level rules shared by the writer and the reader ([B12], [B16], [B18], [B19],
/// [B23], the solid and LOD rules of the seed); `report` gets each broken rule.
pub(crate) fn check_model(m: &Bmd1, report: &mut dyn FnMut(Item, String)) {
    let n_bones = m.bones.len();
    for (i, mesh) in m.meshes.iter().enumerate() {
        let mut r = |msg: String| report(Item::Mesh(i), msg);
        if let Some(why) = mesh.material.as_deref().and_then(check_string) {
            r(format!("material name {why}"));
        }
        if mesh.vertices.len() > MAX_MESH_VERTICES {
            r(format!(
                "{} vertices, more than {MAX_MESH_VERTICES} (split the mesh)",
                mesh.vertices.len()
            ));
        }
        for (vi, v) in mesh.vertices.iter().enumerate() {
            if !mesh.vertex_list.allows(v.encoding.size()) {
                r(format!(
                    "vertex {vi}: {:?} is not allowed in a {:?} list",
                    v.encoding, mesh.vertex_list
                ));
            }
            let bone = usize::from(v.attrs.bone);
            if bone >= n_bones.max(1) {
                r(format!(
                    "vertex {vi}: bone {bone} does not exist ({n_bones} bones)"
                ));
            }
        }
        let count = mesh.triangle_list.count(&mesh.primitives);
        if count > usize::from(u16::MAX) {
            r(format!("{count} triangles, more than n_tris can count"));
        }
        for (pi, p) in mesh.primitives.iter().enumerate() {
            if matches!(p, Primitive::Quad(_)) && !mesh.triangle_list.allows_quads() {
                r(format!(
                    "primitive {pi}: quad in a triangles-only {:?} list",
                    mesh.triangle_list
                ));
            }
            if let Some(&bad) = p
                .indices()
                .iter()
                .find(|&&x| usize::from(x) >= mesh.vertices.len())
            {
                r(format!(
                    "primitive {pi}: index {bad} is not below the vertex count {}",
                    mesh.vertices.len()
                ));
            }
        }
    }

    if !m.meshes.is_empty() && m.lods.is_empty() {
        report(Item::Model, "meshes without any LOD".into());
    }
    for (i, lod) in m.lods.iter().enumerate() {
        let mut r = |msg: String| report(Item::Lod(i), msg);
        let first = usize::from(lod.first_mesh);
        let end = first + usize::from(lod.mesh_count);
        if lod.mesh_count == 0 {
            r("names no mesh".into());
        }
        if end > m.meshes.len() {
            r(format!(
                "meshes {first}..{end} run past the {} meshes",
                m.meshes.len()
            ));
        }
        for mi in first..end.min(m.meshes.len()) {
            if m.meshes.get(mi).is_some_and(|mesh| mesh.material.is_none()) {
                r(format!("mesh {mi} is not drawable (no material)"));
            }
        }
        if !(0.0..=1.0).contains(&lod.scale) {
            r(format!("scale {} is outside [0, 1]", lod.scale));
        }
    }

    if n_bones > MAX_BONES {
        report(
            Item::Model,
            format!("{n_bones} bones, more than {MAX_BONES}"),
        );
    }
    let normal_count = normal_bone_count(&m.bones);
    let mut names = HashSet::new();
    for (i, bone) in m.bones.iter().enumerate() {
        let mut r = |msg: String| report(Item::Bone(i), msg);
        match bone.name.as_deref() {
            None if i > 0 => r("has no name".into()),
            None => {}
            Some(name) => {
                if let Some(why) = check_string(name) {
                    r(format!("name {why}"));
                } else if !names.insert(name) {
                    r(format!("name {name:?} is used by an earlier bone"));
                }
            }
        }
        match &bone.kind {
            BoneKind::Normal {
                parent,
                rotation,
                origin,
            } => {
                if i > normal_count {
                    r("normal bone after a pseudo-bone".into());
                }
                if i == 0 {
                    if *parent != 0 || rotation.iter().chain(origin).any(|&c| c != 0.0) {
                        r("bone 0 must have parent 0 and a zero transform".into());
                    }
                } else if usize::from(*parent) >= i {
                    r(format!("parent {parent} is not an earlier bone"));
                }
                if rotation.iter().any(|c| !c.is_finite()) {
                    r(format!("rotation {rotation:?} is not finite"));
                }
                if xyz_encode(*origin).is_none() {
                    r(format!("origin {origin:?} does not fit packed XYZ"));
                }
            }
            BoneKind::Pseudo { bones, weights } => {
                if i == 0 {
                    r("bone 0 cannot be a pseudo-bone".into());
                }
                if let Some(b) = bones.iter().find(|&&b| usize::from(b) >= normal_count) {
                    r(format!(
                        "pseudo-bone names bone {b}, which is not a normal bone"
                    ));
                }
                if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
                    r(format!("weights {weights:?} must be non-negative"));
                } else if weights.iter().all(|&w| f8a_decode(f8a_encode(w)) == 0.0) {
                    r("weights are all zero".into());
                }
            }
        }
        if bone.solid != 0 {
            check_solid(m, i, usize::from(bone.solid), &mut r);
        }
    }

    if !m.animations.is_empty() && m.bones.is_empty() {
        report(Item::Model, "animations without bones".into());
    }
    let mut anim_names = HashSet::new();
    for (i, a) in m.animations.iter().enumerate() {
        let mut r = |msg: String| report(Item::Animation(i), msg);
        if let Some(why) = check_string(&a.name) {
            r(format!("name {why}"));
        } else if !anim_names.insert(a.name.as_str()) {
            r(format!("name {:?} is used by an earlier animation", a.name));
        }
        if a.frame_count == 0 {
            r("has no frames".into());
        }
        if !(1..=0x7F).contains(&a.rate_quarter_hz) {
            r(format!(
                "rate {} is outside 1..=127 (0.25 Hz units)",
                a.rate_quarter_hz
            ));
        }
        if a.tracks.len() != normal_count {
            r(format!(
                "{} tracks for {normal_count} normal bones",
                a.tracks.len()
            ));
        }
        for (b, track) in a.tracks.iter().enumerate() {
            if let Err(e) = encode_track(track, a.frame_count, &mut Vec::new()) {
                r(format!("bone {b}: {e}"));
            }
        }
    }
}

/// A bone solid: one bone (this one or 0) for the whole mesh, and a closed surface: every
/// directed edge used once and its reverse once. Self-intersection is not checked.
fn check_solid(m: &Bmd1, bone: usize, solid: usize, r: &mut dyn FnMut(String)) {
    let Some(mesh) = m.meshes.get(solid) else {
        r(format!("solid mesh {solid} does not exist"));
        return;
    };
    let bones: HashSet<u8> = mesh.vertices.iter().map(|v| v.attrs.bone).collect();
    if bones.len() > 1 || bones.iter().any(|&b| b != 0 && usize::from(b) != bone) {
        r(format!(
            "solid mesh {solid} must map to one bone, {bone} or 0 (uses {bones:?})"
        ));
    }
    let mut edges: HashMap<(u16, u16), u32> = HashMap::new();
    for p in &mesh.primitives {
        let idx = p.indices();
        for (k, &a) in idx.iter().enumerate() {
            let b = idx.get((k + 1) % idx.len()).copied().unwrap_or(a);
            *edges.entry((a, b)).or_insert(0) += 1;
        }
    }
    let closed = !edges.is_empty()
        && edges
            .iter()
            .all(|(&(a, b), &n)| a != b && n == 1 && edges.get(&(b, a)) == Some(&1));
    if !closed {
        r(format!("solid mesh {solid} is not a closed surface (BREP)"));
    }
}
