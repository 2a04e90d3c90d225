//! Accessor decoding with a bounds check on every read: component types (normalized or
//! not, as KHR_mesh_quantization allows), byte strides, matrix column padding and sparse
//! substitution, into plain `f32` or `u32` arrays.

use super::buffers::BufferData;
use super::{bad, dangling, over_limit, Ctx, Res};
use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::validation::Checked;
use std::collections::HashMap;

pub struct Reader<'a> {
    ctx: &'a Ctx<'a>,
    data: &'a BufferData<'a>,
    charged: u64,
    /// Accessors whose data a compressed primitive carries (KHR_draco_mesh_compression):
    /// read from here rather than from their (absent) bufferView while that primitive is
    /// imported.
    decoded: HashMap<usize, Decoded>,
}

/// One accessor's elements decoded by an extension: `count` elements of the accessor's
/// type, each component as the stored value (an integer component as its integer value,
/// not yet normalized).
#[derive(Debug, Clone)]
pub struct Decoded {
    pub count: usize,
    pub values: Vec<f32>,
}

/// What a decoded accessor looks like, for attribute checks.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub component: ComponentType,
    pub ty: Type,
    pub normalized: bool,
    pub count: usize,
}

impl Layout {
    pub fn components(&self) -> usize {
        match self.ty {
            Type::Scalar => 1,
            Type::Vec2 => 2,
            Type::Vec3 => 3,
            Type::Vec4 | Type::Mat2 => 4,
            Type::Mat3 => 9,
            Type::Mat4 => 16,
        }
    }
    pub fn is_float(&self) -> bool {
        self.component == ComponentType::F32
    }
}

fn component_size(c: ComponentType) -> usize {
    match c {
        ComponentType::I8 | ComponentType::U8 => 1,
        ComponentType::I16 | ComponentType::U16 => 2,
        ComponentType::U32 | ComponentType::F32 => 4,
    }
}

/// Where each component of one element sits, in bytes from the element start. Matrix columns
/// of 1- and 2-byte components are padded to 4 bytes, as the glTF data alignment rules say.
fn component_offsets(layout: &Layout) -> (Vec<usize>, usize) {
    let size = component_size(layout.component);
    let (cols, rows) = match layout.ty {
        Type::Mat2 => (2, 2),
        Type::Mat3 => (3, 3),
        Type::Mat4 => (4, 4),
        _ => (1, layout.components()),
    };
    let column_bytes = if cols > 1 {
        (rows * size).div_ceil(4) * 4
    } else {
        rows * size
    };
    let offsets = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| c * column_bytes + r * size))
        .collect();
    (offsets, cols * column_bytes)
}

fn read_f32(b: &[u8], c: ComponentType, normalized: bool) -> f32 {
    let v = match c {
        ComponentType::I8 => {
            let v = b[0] as i8 as f32;
            return if normalized { (v / 127.0).max(-1.0) } else { v };
        }
        ComponentType::U8 => (b[0] as f32, 255.0),
        ComponentType::I16 => {
            let v = i16::from_le_bytes([b[0], b[1]]) as f32;
            return if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            };
        }
        ComponentType::U16 => (u16::from_le_bytes([b[0], b[1]]) as f32, 65535.0),
        ComponentType::U32 => (
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32,
            4_294_967_295.0,
        ),
        ComponentType::F32 => return f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    };
    if normalized {
        v.0 / v.1
    } else {
        v.0
    }
}

/// A stored component value as [`read_f32`] gives it: a normalized integer mapped to
/// [0, 1] or [-1, 1], anything else as it is.
fn normalize(v: f32, c: ComponentType, normalized: bool) -> f32 {
    if !normalized {
        return v;
    }
    match c {
        ComponentType::I8 => (v / 127.0).max(-1.0),
        ComponentType::U8 => v / 255.0,
        ComponentType::I16 => (v / 32767.0).max(-1.0),
        ComponentType::U16 => v / 65535.0,
        ComponentType::U32 => v / 4_294_967_295.0,
        ComponentType::F32 => v,
    }
}

fn read_u32(b: &[u8], c: ComponentType) -> u32 {
    match c {
        ComponentType::I8 | ComponentType::U8 => b[0] as u32,
        ComponentType::I16 | ComponentType::U16 => u16::from_le_bytes([b[0], b[1]]) as u32,
        ComponentType::U32 | ComponentType::F32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

impl<'a> Reader<'a> {
    pub fn new(ctx: &'a Ctx<'a>, data: &'a BufferData<'a>) -> Self {
        Self {
            ctx,
            data,
            charged: data.charged,
            decoded: HashMap::new(),
        }
    }

    /// Reads these accessors from `decoded` until [`Self::forget_decoded`]; their bytes
    /// count against the import's accessor budget.
    pub fn use_decoded(&mut self, path: &str, decoded: HashMap<usize, Decoded>) -> Res<()> {
        let bytes: u64 = decoded.values().map(|d| d.values.len() as u64 * 4).sum();
        self.charge(path, bytes)?;
        self.decoded = decoded;
        Ok(())
    }

    pub fn forget_decoded(&mut self) {
        self.decoded.clear();
    }

    /// What is left of the budget of [`super::ImportLimits::max_total_accessor_bytes`].
    pub fn remaining_budget(&self) -> u64 {
        self.ctx
            .limits
            .max_total_accessor_bytes
            .saturating_sub(self.charged)
    }

    /// The import's resource limits.
    pub fn limits(&self) -> super::ImportLimits {
        self.ctx.limits
    }

    pub fn layout(&self, index: usize) -> Res<Layout> {
        let path = format!("accessors[{index}]");
        let Some(acc) = self.ctx.root.accessors.get(index) else {
            return dangling(path, "accessor does not exist");
        };
        let Checked::Valid(GenericComponentType(component)) = acc.component_type else {
            return bad(path, "invalid componentType");
        };
        let Checked::Valid(ty) = acc.type_ else {
            return bad(path, "invalid type");
        };
        let count = match self.decoded.get(&index) {
            Some(d) => d.count,
            None => usize::try_from(acc.count.0).unwrap_or(usize::MAX),
        };
        Ok(Layout {
            component,
            ty,
            normalized: acc.normalized,
            count,
        })
    }

    /// Decodes every component as `f32` (normalized integers mapped to [0,1] / [-1,1]).
    pub fn floats(&mut self, index: usize) -> Res<(Layout, Vec<f32>)> {
        if let Some(d) = self.decoded.get(&index) {
            let layout = self.layout(index)?;
            let values = d
                .values
                .iter()
                .map(|&v| normalize(v, layout.component, layout.normalized))
                .collect();
            return Ok((layout, values));
        }
        self.decode(index, read_f32)
    }

    /// Decodes every component as an integer; float accessors are refused.
    pub fn integers(&mut self, index: usize) -> Res<(Layout, Vec<u32>)> {
        let layout = self.layout(index)?;
        if layout.is_float() {
            return bad(
                format!("accessors[{index}]"),
                "integer data expected but componentType is FLOAT",
            );
        }
        if let Some(d) = self.decoded.get(&index) {
            // An encoder may quantize integer attributes like any other (Draco's generic
            // attributes: BrainStem's JOINTS_0 decode to 8.0007): the nearest integer is
            // the value, as long as it is one an integer accessor can hold.
            if let Some(v) = d
                .values
                .iter()
                .find(|v| !(v.is_finite() && v.round() >= 0.0 && v.round() <= u32::MAX as f32))
            {
                return bad(
                    format!("accessors[{index}]"),
                    format!("decoded value {v} is not an unsigned integer"),
                );
            }
            return Ok((layout, d.values.iter().map(|&v| v.round() as u32).collect()));
        }
        self.decode(index, |b, c, _| read_u32(b, c))
    }

    fn charge(&mut self, path: &str, bytes: u64) -> Res<()> {
        self.charged = self.charged.saturating_add(bytes);
        let limit = self.ctx.limits.max_total_accessor_bytes;
        if self.charged > limit {
            return over_limit(
                path,
                format!("decoded accessors exceed {limit} bytes in total"),
            );
        }
        Ok(())
    }

    fn decode<T: Copy + Default + Send>(
        &mut self,
        index: usize,
        read: impl Fn(&[u8], ComponentType, bool) -> T + Sync,
    ) -> Res<(Layout, Vec<T>)> {
        let path = format!("accessors[{index}]");
        let layout = self.layout(index)?;
        let Some(acc) = self.ctx.root.accessors.get(index) else {
            return dangling(path, "accessor does not exist");
        };
        let comps = layout.components();
        let total = layout.count.saturating_mul(comps);
        self.charge(&path, (total as u64).saturating_mul(4))?;
        let (offsets, element_size) = component_offsets(&layout);
        // Bounds are checked before allocating so that a small file cannot claim a huge count.
        let mut source = None;
        if let Some(view_index) = acc.buffer_view {
            let (bytes, stride) = self.data.view(self.ctx, view_index.value())?;
            let stride = stride.unwrap_or(element_size);
            if stride < element_size {
                return bad(
                    path,
                    format!("byteStride {stride} is smaller than the element size {element_size}"),
                );
            }
            let offset = acc.byte_offset.map_or(0, |o| o.0);
            let needed = if layout.count == 0 {
                Some(offset)
            } else {
                (layout.count as u64 - 1)
                    .checked_mul(stride as u64)
                    .and_then(|v| v.checked_add(element_size as u64))
                    .and_then(|v| v.checked_add(offset))
            };
            match needed {
                Some(n) if n <= bytes.len() as u64 => {}
                _ => {
                    return bad(
                        path,
                        format!(
                            "{} elements at offset {offset} with stride {stride} exceed \
                             bufferViews[{}] of {} bytes",
                            layout.count,
                            view_index.value(),
                            bytes.len()
                        ),
                    )
                }
            }
            source = Some((&bytes[offset as usize..], stride));
        }
        let mut out = vec![T::default(); total];
        if let Some((bytes, stride)) = source {
            // Large accessors (a million-vertex mesh) decode on every core, in blocks of
            // elements; each element lands in its own slot, so the result is the same.
            use rayon::prelude::*;
            const BLOCK: usize = 16_384;
            let comps = comps.max(1);
            out.par_chunks_mut(BLOCK * comps)
                .enumerate()
                .for_each(|(block, elements)| {
                    for (i, element) in elements.chunks_exact_mut(comps).enumerate() {
                        let start = (block * BLOCK + i) * stride;
                        for (slot, off) in element.iter_mut().zip(&offsets) {
                            *slot =
                                read(&bytes[start + off..], layout.component, layout.normalized);
                        }
                    }
                });
        }
        if let Some(sparse) = &acc.sparse {
            self.apply_sparse(
                &path,
                &layout,
                sparse,
                &offsets,
                element_size,
                &mut out,
                &read,
            )?;
        }
        Ok((layout, out))
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_sparse<T: Copy>(
        &mut self,
        path: &str,
        layout: &Layout,
        sparse: &gltf::json::accessor::sparse::Sparse,
        offsets: &[usize],
        element_size: usize,
        out: &mut [T],
        read: &impl Fn(&[u8], ComponentType, bool) -> T,
    ) -> Res<()> {
        let spath = format!("{path}.sparse");
        let count = sparse.count.0;
        if count > layout.count as u64 {
            return bad(
                spath,
                format!("count {count} exceeds the accessor count {}", layout.count),
            );
        }
        let count = count as usize;
        let Checked::Valid(index_type) = sparse.indices.component_type else {
            return bad(spath, "invalid indices componentType");
        };
        let index_component = index_type.0;
        let index_size = component_size(index_component);
        let (index_bytes, _) = self
            .data
            .view(self.ctx, sparse.indices.buffer_view.value())?;
        let index_bytes = sub_range(
            index_bytes,
            sparse.indices.byte_offset.0,
            count as u64 * index_size as u64,
        )
        .ok_or_else(|| super::Bad {
            path: format!("{spath}.indices"),
            reason: "indices exceed their bufferView".into(),
            code: crate::code::DiagnosticCode::InvalidSource,
        })?;
        let (value_bytes, _) = self
            .data
            .view(self.ctx, sparse.values.buffer_view.value())?;
        let value_bytes = sub_range(
            value_bytes,
            sparse.values.byte_offset.0,
            count as u64 * element_size as u64,
        )
        .ok_or_else(|| super::Bad {
            path: format!("{spath}.values"),
            reason: "values exceed their bufferView".into(),
            code: crate::code::DiagnosticCode::InvalidSource,
        })?;
        let comps = layout.components();
        for i in 0..count {
            let target = read_u32(&index_bytes[i * index_size..], index_component) as usize;
            if target >= layout.count {
                return bad(
                    format!("{spath}.indices"),
                    format!(
                        "index {target} is not below the accessor count {}",
                        layout.count
                    ),
                );
            }
            for (c, off) in offsets.iter().enumerate() {
                out[target * comps + c] = read(
                    &value_bytes[i * element_size + off..],
                    layout.component,
                    layout.normalized,
                );
            }
        }
        Ok(())
    }
}

fn sub_range(bytes: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let end = offset.checked_add(len)?;
    if end > bytes.len() as u64 {
        return None;
    }
    bytes.get(offset as usize..end as usize)
}

/// Groups flat components into fixed arrays; `components` must match `N`.
pub fn group<const N: usize>(flat: &[f32]) -> Vec<[f32; N]> {
    flat.chunks_exact(N)
        .map(|c| {
            let mut a = [0.0; N];
            a.copy_from_slice(c);
            a
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_integers_map_to_unit_range() {
        assert_eq!(read_f32(&[255], ComponentType::U8, true), 1.0);
        assert_eq!(read_f32(&[0x80], ComponentType::I8, true), -1.0);
        assert_eq!(read_f32(&[0x81], ComponentType::I8, true), -1.0);
        assert_eq!(read_f32(&[0xff, 0x7f], ComponentType::I16, true), 1.0);
        assert_eq!(read_f32(&[0xff, 0xff], ComponentType::U16, false), 65535.0);
        assert_eq!(read_f32(&[0xfe], ComponentType::I8, false), -2.0);
    }

    #[test]
    fn mat3_of_bytes_pads_columns() {
        let layout = Layout {
            component: ComponentType::I8,
            ty: Type::Mat3,
            normalized: false,
            count: 1,
        };
        let (offsets, size) = component_offsets(&layout);
        assert_eq!(size, 12);
        assert_eq!(offsets, vec![0, 1, 2, 4, 5, 6, 8, 9, 10]);
    }
}
