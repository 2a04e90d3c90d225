//! Reading, back to front: footer, entry list, then each mesh at its `meshOffset`.

use super::morph;
use super::{
    attr, IndexBuffer, Lod, QtMesh, QtMeshError, QtMeshFile, Subset, TargetBuffer, VertexBuffer,
    VertexEntry, CONTAINER_FILE_ID, CONTAINER_VERSION, MESH_FILE_ID, NEWEST_MESH_VERSION,
    OLDEST_MESH_VERSION,
};
use crate::bytes::Reader;

pub(super) const FOOTER_SIZE: usize = 16;
pub(super) const ENTRY_SIZE: usize = 16;
pub(super) const HEADER_SIZE: usize = 12;
pub(super) const VERTEX_ENTRY_SIZE: usize = 16;
pub(super) const LOD_SIZE: usize = 12;
pub(super) const JOINT_SIZE: usize = 136;

pub(super) fn subset_size(version: u16) -> usize {
    match version {
        ..=4 => 40,
        5 => 48,
        _ => 52,
    }
}

/// What the reader saw beyond the plain structs, for the validator.
#[derive(Debug, Clone, Default)]
pub(super) struct MeshLayout {
    pub offset: usize,
    pub size_in_bytes: u32,
    /// Bytes after the MeshDataHeader the reader consumed.
    pub consumed: usize,
    pub joint_count: u32,
    pub had_seed_colour_name: bool,
    /// Padding only lined up when counted from the file start, as the seed describes.
    pub padding_from_file_start: bool,
    pub unterminated_names: Vec<String>,
    /// A version 7 file without the trailing padding after empty target entries.
    pub missing_target_padding: bool,
}

pub(super) struct Detailed {
    pub file: QtMeshFile,
    pub layouts: Vec<MeshLayout>,
}

pub fn read(bytes: &[u8]) -> Result<QtMeshFile, QtMeshError> {
    read_detailed(bytes).map(|d| d.file)
}

pub(super) fn read_detailed(bytes: &[u8]) -> Result<Detailed, QtMeshError> {
    let len = bytes.len();
    let footer_at = len
        .checked_sub(FOOTER_SIZE)
        .ok_or(QtMeshError::TooShort { len })?;
    let mut r = Reader::at(bytes, footer_at);
    let file_id = r.u32("MultiMeshFooter.fileId")?;
    if file_id != CONTAINER_FILE_ID {
        return Err(QtMeshError::BadContainerId(file_id));
    }
    let version = r.u32("MultiMeshFooter.version")?;
    if version != CONTAINER_VERSION {
        return Err(QtMeshError::BadContainerVersion(version));
    }
    let _entries_offset_ignored = r.u32("MultiMeshFooter.entriesOffset")?;
    let count = r.u32("MultiMeshFooter.entriesSize")?;
    let entries_at = (count as usize)
        .checked_mul(ENTRY_SIZE)
        .and_then(|n| footer_at.checked_sub(n))
        .ok_or(QtMeshError::TooManyEntries { count, len })?;

    // Mesh data lives before the entry list; bounding reads there keeps a bad size
    // field from running into the entries.
    let mesh_area = bytes.get(..entries_at).unwrap_or_default();
    let mut r = Reader::at(bytes, entries_at);
    let mut file = QtMeshFile::default();
    let mut layouts = Vec::new();
    for _ in 0..count {
        let offset = r.u64("MultiMeshEntry.meshOffset")?;
        let id = r.u32("MultiMeshEntry.meshId")?;
        let _padding = r.u32("MultiMeshEntry.padding")?;
        let start = usize::try_from(offset)
            .ok()
            .filter(|&o| o < entries_at)
            .ok_or(QtMeshError::MeshOffset {
                id,
                offset,
                limit: entries_at,
            })?;
        let (mesh, layout) = read_mesh(mesh_area, start).map_err(|e| QtMeshError::InMesh {
            id,
            source: Box::new(e),
        })?;
        file.meshes.push((id, mesh));
        layouts.push(layout);
    }
    Ok(Detailed { file, layouts })
}

/// Qt counts padding from the end of the MeshDataHeader; the seed counts from the file
/// start. The two only differ for a mesh at an offset that is not a multiple of 4 (after
/// a version 7 mesh whose unpadded target data has an odd size), so the seed's reading
/// is tried only when Qt's fails there.
fn read_mesh(area: &[u8], offset: usize) -> Result<(QtMesh, MeshLayout), QtMeshError> {
    let qt_origin = offset + HEADER_SIZE;
    match read_mesh_from(area, offset, qt_origin) {
        Ok(found) => Ok(found),
        Err(first) if !offset.is_multiple_of(4) => match read_mesh_from(area, offset, 0) {
            Ok((mesh, mut layout)) => {
                layout.padding_from_file_start = true;
                Ok((mesh, layout))
            }
            Err(_) => Err(first),
        },
        Err(e) => Err(e),
    }
}

/// A reader that knows where the padding counter starts.
struct MeshCursor<'a> {
    r: Reader<'a>,
    origin: usize,
}

impl<'a> MeshCursor<'a> {
    /// The format's padding: `4 - counter % 4` bytes, so a full 4 when already aligned.
    fn pad(&mut self, what: &'static str) -> Result<(), QtMeshError> {
        let at = self.r.pos();
        let bytes = self.r.bytes(pad_len(at - self.origin), what)?;
        if bytes.iter().any(|&b| b != 0) {
            return Err(QtMeshError::BadPadding { what, offset: at });
        }
        Ok(())
    }

    /// Checks `count` items of `item_size` bytes fit before allocating for them.
    fn expect_items(
        &self,
        count: u64,
        item_size: usize,
        what: &'static str,
    ) -> Result<usize, QtMeshError> {
        let needed = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(item_size));
        match needed {
            Some(n) if n <= self.r.remaining() => Ok(count as usize),
            _ => Err(QtMeshError::Invalid {
                what,
                offset: self.r.pos(),
                reason: format!(
                    "{count} items of {item_size} bytes do not fit in the {} bytes left",
                    self.r.remaining()
                ),
            }),
        }
    }
}

pub(super) fn pad_len(counter: usize) -> usize {
    4 - counter % 4
}

fn read_mesh_from(
    area: &[u8],
    offset: usize,
    origin: usize,
) -> Result<(QtMesh, MeshLayout), QtMeshError> {
    let mut r = Reader::at(area, offset);
    let file_id = r.u32("MeshDataHeader.fileId")?;
    if file_id != MESH_FILE_ID {
        return Err(QtMeshError::BadMeshId {
            offset,
            found: file_id,
        });
    }
    let version = r.u16("MeshDataHeader.fileVersion")?;
    if !(OLDEST_MESH_VERSION..=NEWEST_MESH_VERSION).contains(&version) {
        return Err(QtMeshError::BadMeshVersion { offset, version });
    }
    let header_flags = r.u16("MeshDataHeader.headerFlags")?;
    let size_in_bytes = r.u32("MeshDataHeader.sizeInBytes")?;
    let body_start = r.pos();
    let mut fields = [0u32; 14];
    for f in fields.iter_mut() {
        *f = r.u32("Mesh struct")?;
    }
    let [target_entry_count, entry_count, stride, target_data_size, vertex_data_size, index_type, _index_offset, index_data_size, target_count, subset_count, _joints_offset, joint_count, draw_mode, winding] =
        fields;
    let separate_targets = version >= 7;

    let mut layout = MeshLayout {
        offset,
        size_in_bytes,
        joint_count,
        ..MeshLayout::default()
    };
    let mut c = MeshCursor { r, origin };

    let mut entries = read_entries(&mut c, entry_count, "vertex buffer entries", &mut layout)?;
    for e in entries.iter_mut() {
        if e.name == attr::COLOR_SEED_SPELLING {
            e.name = attr::COLOR.to_string();
            layout.had_seed_colour_name = true;
        }
    }
    let vertex_data =
        c.r.bytes(vertex_data_size as usize, "vertex data")?
            .to_vec();
    c.pad("vertex data")?;
    let index_data = c.r.bytes(index_data_size as usize, "index data")?.to_vec();
    c.pad("index data")?;

    let subset_bytes = subset_size(version);
    let n = c.expect_items(subset_count.into(), subset_bytes, "subsets")?;
    let mut raw_subsets = Vec::with_capacity(n);
    for _ in 0..n {
        raw_subsets.push(read_subset(&mut c.r, version)?);
    }
    c.pad("subsets")?;
    let mut subsets = Vec::with_capacity(n);
    for (mut subset, name_length, lod_count) in raw_subsets {
        let at = c.r.pos();
        let name_bytes = (name_length as usize)
            .checked_mul(2)
            .ok_or(QtMeshError::Invalid {
                what: "subset name",
                offset: at,
                reason: format!("length {name_length} is too large"),
            })?;
        let raw = c.r.bytes(name_bytes, "subset name")?;
        subset.name = decode_utf16_name(raw, at, &mut layout)?;
        c.pad("subset name")?;
        subsets.push((subset, lod_count));
    }

    if version >= 6 {
        let total: u64 = subsets.iter().map(|(_, n)| u64::from(*n)).sum();
        c.expect_items(total, LOD_SIZE, "level of detail entries")?;
        for (subset, lod_count) in subsets.iter_mut() {
            subset.lods.reserve(*lod_count as usize);
            for _ in 0..*lod_count {
                subset.lods.push(Lod {
                    count: c.r.u32("LOD count")?,
                    offset: c.r.u32("LOD offset")?,
                    distance: c.r.f32("LOD distance")?,
                });
            }
        }
        c.pad("level of detail entries")?;
    }
    let subsets: Vec<Subset> = subsets.into_iter().map(|(s, _)| s).collect();

    let joint_bytes = (joint_count as usize).saturating_mul(JOINT_SIZE);
    c.r.skip(joint_bytes, "joints")?;

    let mut vertex_buffer = VertexBuffer {
        entries,
        stride,
        data: vertex_data,
    };
    let target_buffer = if separate_targets {
        let target_entries = if target_entry_count == 0 && target_data_size == 0 {
            // Qt writes this padding even with no targets; older writers of our own
            // may not have, and Qt's reader never looks at it.
            let pad = pad_len(c.r.pos() - c.origin);
            let present =
                c.r.clone()
                    .bytes(pad, "target entries")
                    .is_ok_and(|b| b.iter().all(|&x| x == 0));
            if present {
                c.pad("target buffer entries")?;
            } else {
                layout.missing_target_padding = true;
            }
            Vec::new()
        } else {
            read_entries(
                &mut c,
                target_entry_count,
                "target buffer entries",
                &mut layout,
            )?
        };
        let data =
            c.r.bytes(target_data_size as usize, "target data")?
                .to_vec();
        (target_count != 0 || !target_entries.is_empty() || !data.is_empty()).then_some(
            TargetBuffer {
                target_count,
                entries: target_entries,
                data,
            },
        )
    } else {
        morph::from_legacy_attributes(&mut vertex_buffer)?
    };

    layout.consumed = c.r.pos() - body_start;
    let mesh = QtMesh {
        version,
        header_flags,
        draw_mode,
        winding,
        vertex_buffer,
        index_buffer: IndexBuffer {
            component_type: index_type,
            data: index_data,
        },
        subsets,
        target_buffer,
    };
    Ok((mesh, layout))
}

fn read_entries(
    c: &mut MeshCursor,
    count: u32,
    what: &'static str,
    layout: &mut MeshLayout,
) -> Result<Vec<VertexEntry>, QtMeshError> {
    let n = c.expect_items(count.into(), super::read::VERTEX_ENTRY_SIZE, what)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let _name_offset_ignored = c.r.u32(what)?;
        entries.push(VertexEntry {
            name: String::new(),
            component_type: c.r.u32(what)?,
            component_count: c.r.u32(what)?,
            offset: c.r.u32(what)?,
        });
    }
    c.pad(what)?;
    for e in entries.iter_mut() {
        let length = c.r.u32("attribute name length")?;
        let at = c.r.pos();
        let raw = c.r.bytes(length as usize, "attribute name")?;
        let raw = match raw.split_last() {
            Some((0, rest)) => rest,
            _ => {
                layout
                    .unterminated_names
                    .push(String::from_utf8_lossy(raw).into_owned());
                raw
            }
        };
        e.name = String::from_utf8(raw.to_vec()).map_err(|_| QtMeshError::Invalid {
            what: "attribute name",
            offset: at,
            reason: "not UTF-8".into(),
        })?;
        c.pad("attribute name")?;
    }
    Ok(entries)
}

fn read_subset(r: &mut Reader, version: u16) -> Result<(Subset, u32, u32), QtMeshError> {
    let count = r.u32("subset count")?;
    let offset = r.u32("subset offset")?;
    let mut bounds = [0f32; 6];
    for b in bounds.iter_mut() {
        *b = r.f32("subset bounds")?;
    }
    let _name_offset_ignored = r.u32("subset nameOffset")?;
    let name_length = r.u32("subset nameLength")?;
    let mut lightmap_size_hint = [0u32; 2];
    if version >= 5 {
        lightmap_size_hint = [r.u32("lightmap width")?, r.u32("lightmap height")?];
    }
    let lod_count = if version >= 6 { r.u32("lodCount")? } else { 0 };
    let subset = Subset {
        name: String::new(),
        count,
        offset,
        bounds_min: [bounds[0], bounds[1], bounds[2]],
        bounds_max: [bounds[3], bounds[4], bounds[5]],
        lightmap_size_hint,
        lods: Vec::new(),
    };
    Ok((subset, name_length, lod_count))
}

fn decode_utf16_name(
    raw: &[u8],
    at: usize,
    layout: &mut MeshLayout,
) -> Result<String, QtMeshError> {
    let mut units: Vec<u16> = raw
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    if units.last() == Some(&0) {
        units.pop();
    } else {
        layout
            .unterminated_names
            .push(String::from_utf16_lossy(&units));
    }
    String::from_utf16(&units).map_err(|_| QtMeshError::Invalid {
        what: "subset name",
        offset: at,
        reason: "not valid UTF-16".into(),
    })
}
