//! Morph targets before version 7 were extra vertex attributes; version 7 keeps them in a
//! separate target buffer. These convert between the two so callers see one form.
//!
//! Before version 7 the limit on targets is per attribute kind (8 positions, 4 normals,
//! 2 tangents, 2 binormals) and attributes go target by target, so Balsam 6.4 writes
//! `attr_tpos4, attr_unsupported, attr_tpos5, ...` once normals run out. Which kind an
//! `attr_unsupported` entry holds follows from its position in that sequence.

use super::{
    attr, component, target_block_size, QtMesh, QtMeshError, TargetBuffer, VertexBuffer,
    VertexEntry,
};

struct Kind {
    legacy_prefix: &'static str,
    name: &'static str,
    legacy_limit: u32,
}

const KINDS: [Kind; 4] = [
    Kind {
        legacy_prefix: "attr_tpos",
        name: attr::POSITION,
        legacy_limit: 8,
    },
    Kind {
        legacy_prefix: "attr_tnorm",
        name: attr::NORMAL,
        legacy_limit: 4,
    },
    Kind {
        legacy_prefix: "attr_ttan",
        name: attr::TANGENT,
        legacy_limit: 2,
    },
    Kind {
        legacy_prefix: "attr_tbinorm",
        name: attr::BINORMAL,
        legacy_limit: 2,
    },
];

const UNSUPPORTED: &str = "attr_unsupported";
/// Qt's shaders for the old layout address at most 8 targets.
pub(super) const MAX_LEGACY_TARGETS: u32 = 8;
const TEXEL_SIZE: usize = 16;

#[derive(Clone, Copy, PartialEq)]
enum Legacy {
    Named { kind: usize, target: u32 },
    Unsupported,
}

fn parse_legacy(name: &str) -> Option<Legacy> {
    if name == UNSUPPORTED {
        return Some(Legacy::Unsupported);
    }
    KINDS.iter().enumerate().find_map(|(kind, k)| {
        let digits = name.strip_prefix(k.legacy_prefix)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Legacy::Named {
            kind,
            target: digits.parse().ok()?,
        })
    })
}

pub(super) fn kind_of_v7_name(name: &str) -> Option<usize> {
    KINDS.iter().position(|k| k.name == name)
}

fn invalid(reason: String) -> QtMeshError {
    QtMeshError::Invalid {
        what: "morph target attributes",
        offset: 0,
        reason,
    }
}

/// Moves `attr_tpos0`-style attributes out of `vb` into a version 7 target buffer.
/// When the target attributes occupy the end of each vertex, as every writer puts them,
/// their bytes are cut from the vertex data too.
pub(super) fn from_legacy_attributes(
    vb: &mut VertexBuffer,
) -> Result<Option<TargetBuffer>, QtMeshError> {
    let Some(first) = vb
        .entries
        .iter()
        .position(|e| matches!(parse_legacy(&e.name), Some(Legacy::Named { .. })))
    else {
        return Ok(None);
    };
    let tail = vb.entries.get(first..).unwrap_or_default();
    let mut parsed = Vec::with_capacity(tail.len());
    for e in tail {
        parsed.push(parse_legacy(&e.name).ok_or_else(|| {
            invalid(format!(
                "attribute {:?} comes after the first morph target attribute {:?}; \
                 they must be last",
                e.name,
                vb.entries.get(first).map(|f| f.name.as_str()).unwrap_or("")
            ))
        })?);
    }
    let kinds: Vec<usize> = parsed
        .iter()
        .map_while(|p| match p {
            Legacy::Named { kind, target: 0 } => Some(*kind),
            _ => None,
        })
        .collect();
    let per_target = kinds.len();
    if kinds
        .iter()
        .enumerate()
        .any(|(i, k)| kinds.iter().take(i).any(|o| o == k))
    {
        return Err(invalid(
            "target 0 names the same attribute kind twice".into(),
        ));
    }
    // Real target attributes each take their own bytes of the vertex; holding a file to
    // that also keeps the converted buffer within a small multiple of the vertex data.
    let tail_bytes: u64 = tail.iter().map(|e| u64::from(e.component_count) * 4).sum();
    if tail_bytes > u64::from(vb.stride) {
        return Err(invalid(format!(
            "{tail_bytes} bytes of morph attributes do not fit in the {}-byte stride",
            vb.stride
        )));
    }
    if per_target == 0 {
        return Err(invalid(format!(
            "the first morph target attribute is {:?}, not one of target 0",
            tail.first().map(|e| e.name.as_str()).unwrap_or("")
        )));
    }
    if tail.len() % per_target != 0 {
        return Err(invalid(format!(
            "{} morph attributes are not a whole number of targets of {per_target}",
            tail.len()
        )));
    }
    let target_count = (tail.len() / per_target) as u32;
    if target_count > MAX_LEGACY_TARGETS {
        return Err(invalid(format!(
            "{target_count} targets, more than the {MAX_LEGACY_TARGETS} this version allows"
        )));
    }
    if vb.stride == 0 {
        return Err(invalid("vertex stride is 0".into()));
    }
    let stride = vb.stride as usize;
    for (i, (e, p)) in tail.iter().zip(&parsed).enumerate() {
        let kind = kinds.get(i % per_target).copied().unwrap_or(0);
        let target = (i / per_target) as u32;
        if let Legacy::Named { kind: k, target: t } = *p {
            if k != kind || t != target {
                return Err(invalid(format!(
                    "attribute {i} after the first target is {:?}, expected {}{target}",
                    e.name,
                    KINDS.get(kind).map(|k| k.legacy_prefix).unwrap_or("")
                )));
            }
        }
        let bytes = e.component_count as usize * 4;
        if e.component_type != component::F32
            || !(1..=4).contains(&e.component_count)
            || e.offset as usize + bytes > stride
        {
            return Err(invalid(format!(
                "{:?} must be 1 to 4 float32 components inside the {stride}-byte stride",
                e.name
            )));
        }
    }

    let vertex_count = vb.data.len() / stride;
    let block =
        target_block_size(vertex_count).ok_or_else(|| invalid("too many vertices".into()))?;
    let total = block
        .checked_mul(tail.len())
        .ok_or_else(|| invalid("target data too large".into()))?;
    let mut data = vec![0u8; total];
    let targets = target_count as usize;
    for (i, e) in tail.iter().enumerate() {
        let (kind_slot, target) = (i % per_target, i / per_target);
        let bytes = e.component_count as usize * 4;
        let dst_base = (kind_slot * targets + target) * block;
        for v in 0..vertex_count {
            let src = v * stride + e.offset as usize;
            let dst = dst_base + v * TEXEL_SIZE;
            if let (Some(s), Some(d)) = (
                vb.data.get(src..src + bytes),
                data.get_mut(dst..dst + bytes),
            ) {
                d.copy_from_slice(s);
            }
        }
    }
    let entries = tail
        .iter()
        .take(per_target)
        .zip(&kinds)
        .enumerate()
        .map(|(slot, (e, &kind))| VertexEntry {
            name: KINDS.get(kind).map(|k| k.name).unwrap_or("").to_string(),
            component_type: e.component_type,
            component_count: e.component_count,
            offset: (slot * targets * block) as u32,
        })
        .collect();

    let kept_end = vb
        .entries
        .iter()
        .take(first)
        .map(|e| e.offset as usize + entry_bytes(e))
        .max()
        .unwrap_or(0);
    let tail_start = tail
        .iter()
        .map(|e| e.offset as usize)
        .min()
        .unwrap_or(stride);
    vb.entries.truncate(first);
    if kept_end <= tail_start && tail_start < stride && vb.data.len().is_multiple_of(stride) {
        let mut packed = Vec::with_capacity(vertex_count * tail_start);
        for vertex in vb.data.chunks_exact(stride) {
            packed.extend_from_slice(vertex.get(..tail_start).unwrap_or_default());
        }
        vb.data = packed;
        vb.stride = tail_start as u32;
    }
    Ok(Some(TargetBuffer {
        target_count,
        entries,
        data,
    }))
}

fn entry_bytes(e: &VertexEntry) -> usize {
    component::size(e.component_type).unwrap_or(0) as usize * e.component_count as usize
}

/// The vertex buffer a version 3 to 6 file stores: `mesh`'s attributes followed, in
/// every vertex, by one attribute per target and kind, named as Balsam 6.4 names them.
pub(super) fn to_legacy_attributes(mesh: &QtMesh) -> Result<VertexBuffer, LegacyMorphError> {
    let vb = &mesh.vertex_buffer;
    let Some(tb) = mesh
        .target_buffer
        .as_ref()
        .filter(|t| !t.entries.is_empty())
    else {
        return Ok(vb.clone());
    };
    if tb.target_count == 0 || tb.target_count > MAX_LEGACY_TARGETS {
        return Err(LegacyMorphError::TargetCount(tb.target_count));
    }
    if vb.stride == 0 || !vb.data.len().is_multiple_of(vb.stride as usize) {
        return Err(LegacyMorphError::PartialVertex);
    }
    let stride = vb.stride as usize;
    let vertex_count = vb.data.len() / stride;
    let block = target_block_size(vertex_count).ok_or(LegacyMorphError::TooManyVertices)?;
    let mut kinds = Vec::with_capacity(tb.entries.len());
    for e in &tb.entries {
        let kind = kind_of_v7_name(&e.name)
            .ok_or_else(|| LegacyMorphError::NoLegacyName(e.name.clone()))?;
        if e.component_type != component::F32 || !(1..=4).contains(&e.component_count) {
            return Err(LegacyMorphError::NotFloat(e.name.clone()));
        }
        let last_block_end = (e.offset as usize)
            .checked_add((tb.target_count as usize - 1) * block + vertex_count * TEXEL_SIZE);
        if last_block_end.is_none_or(|end| end > tb.data.len()) {
            return Err(LegacyMorphError::PastTargetData(e.name.clone()));
        }
        kinds.push(kind);
    }

    let mut entries = vb.entries.clone();
    let mut offset = stride;
    let mut legacy_counts = [0u32; KINDS.len()];
    for _target in 0..tb.target_count {
        for (e, &kind) in tb.entries.iter().zip(&kinds) {
            let k = KINDS.get(kind).ok_or(LegacyMorphError::UnknownKind)?;
            let index = legacy_counts
                .get_mut(kind)
                .ok_or(LegacyMorphError::UnknownKind)?;
            let name = if *index < k.legacy_limit {
                format!("{}{}", k.legacy_prefix, index)
            } else {
                UNSUPPORTED.to_string()
            };
            *index += 1;
            entries.push(VertexEntry {
                name,
                component_type: e.component_type,
                component_count: e.component_count,
                offset: u32::try_from(offset).map_err(|_| LegacyMorphError::StrideOver4GiB)?,
            });
            offset += e.component_count as usize * 4;
        }
    }
    let new_stride = offset;
    let mut data = Vec::with_capacity(vertex_count.saturating_mul(new_stride));
    for (v, vertex) in vb.data.chunks_exact(stride).enumerate() {
        data.extend_from_slice(vertex);
        for t in 0..tb.target_count as usize {
            for e in &tb.entries {
                let start = e.offset as usize + t * block + v * TEXEL_SIZE;
                let bytes = e.component_count as usize * 4;
                data.extend_from_slice(
                    tb.data
                        .get(start..start + bytes)
                        .ok_or(LegacyMorphError::TargetDataOutOfRange)?,
                );
            }
        }
    }
    Ok(VertexBuffer {
        entries,
        stride: u32::try_from(new_stride).map_err(|_| LegacyMorphError::StrideOver4GiB)?,
        data,
    })
}

/// Why morph targets cannot be stored as the per-vertex attributes of versions 3 to 6.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum LegacyMorphError {
    #[error("{0} morph targets: versions before 7 hold 1 to {MAX_LEGACY_TARGETS}")]
    TargetCount(u32),
    #[error("vertex data is not a whole number of strides")]
    PartialVertex,
    #[error("too many vertices")]
    TooManyVertices,
    #[error("target attribute {0:?} has no pre-7 equivalent")]
    NoLegacyName(String),
    #[error("target attribute {0:?} is not 1 to 4 float32")]
    NotFloat(String),
    #[error("target attribute {0:?} runs past the target data")]
    PastTargetData(String),
    #[error("unknown kind")]
    UnknownKind,
    #[error("vertex stride over 4 GiB")]
    StrideOver4GiB,
    #[error("target data out of range")]
    TargetDataOutOfRange,
}
