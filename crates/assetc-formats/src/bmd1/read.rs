//! The BMD1 reader and validator: one parser that either stops at the first broken rule
//! (`read`) or collects them all (`validate`).

use super::*;

/// Stops a parse: the problem is already recorded.
struct Stop;

/// Where problems go; in `read` mode the first one ends the parse.
struct Sink {
    problems: Vec<Problem>,
    fail_fast: bool,
}

/// Enough for any real file; more only repeats itself on hostile input.
const MAX_PROBLEMS: usize = 200;

impl Sink {
    fn report(&mut self, offset: usize, message: impl Into<String>) -> Result<(), Stop> {
        self.problems.push(Problem::at(offset as u64, message));
        if self.fail_fast || self.problems.len() >= MAX_PROBLEMS {
            Err(Stop)
        } else {
            Ok(())
        }
    }
    fn fatal(&mut self, offset: usize, message: impl Into<String>) -> Stop {
        self.problems.push(Problem::at(offset as u64, message));
        Stop
    }
}

pub fn read(bytes: &[u8]) -> Result<Bmd1, Bmd1Error> {
    let mut sink = Sink {
        problems: Vec::new(),
        fail_fast: true,
    };
    let parsed = parse(bytes, &mut sink);
    match (parsed, sink.problems.into_iter().next()) {
        (Ok(model), None) => Ok(model),
        (_, Some(problem)) => Err(Bmd1Error::Invalid(problem)),
        (Err(Stop), None) => Err(Bmd1Error::Invalid(Problem::new("unreadable image"))),
    }
}

pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let mut sink = Sink {
        problems: Vec::new(),
        fail_fast: false,
    };
    let _ = parse(bytes, &mut sink);
    sink.problems
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    bytes
        .get(at..at + 2)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u16::from_le_bytes)
}

fn byte_at(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

/// A byte range the image uses; everything outside every region must be zero [B10].
struct Region {
    start: usize,
    len: usize,
    what: String,
    is_string: bool,
}

struct Parser<'a> {
    bytes: &'a [u8],
    sink: &'a mut Sink,
    regions: Vec<Region>,
}

impl Parser<'_> {
    fn report(&mut self, offset: usize, message: impl Into<String>) -> Result<(), Stop> {
        self.sink.report(offset, message)
    }

    /// Checks an array's offset and size [B9]; `Ok(None)` when it is empty or unusable
    /// (already reported).
    fn array(
        &mut self,
        field_at: usize,
        ofs: u32,
        size: u32,
        record: usize,
        what: &str,
    ) -> Result<Option<(usize, usize)>, Stop> {
        let (ofs, size) = (ofs as usize, size as usize);
        if size == 0 {
            if ofs != 0 {
                self.report(field_at, format!("{what}: empty but offset {ofs} is not 0"))?;
            }
            return Ok(None);
        }
        let mut ok = true;
        if size % record != 0 {
            self.report(
                field_at,
                format!("{what}: size {size} is not a multiple of {record}"),
            )?;
            ok = false;
        }
        if ofs % 8 != 0 {
            self.report(field_at, format!("{what}: offset {ofs} is not 8-aligned"))?;
            ok = false;
        }
        if ofs
            .checked_add(size)
            .is_none_or(|end| end > self.bytes.len())
        {
            self.report(
                field_at,
                format!(
                    "{what}: {size} bytes at offset {ofs} run past the end ({} bytes)",
                    self.bytes.len()
                ),
            )?;
            ok = false;
        }
        if !ok {
            return Ok(None);
        }
        self.regions.push(Region {
            start: ofs,
            len: size,
            what: what.to_string(),
            is_string: false,
        });
        Ok(Some((ofs, size)))
    }

    /// A NUL-terminated non-empty UTF-8 string; `None` for offset 0 or a broken string.
    fn string(&mut self, field_at: usize, ofs: u32, what: &str) -> Result<Option<String>, Stop> {
        if ofs == 0 {
            return Ok(None);
        }
        let start = ofs as usize;
        let Some(tail) = self.bytes.get(start..) else {
            self.report(
                field_at,
                format!("{what}: string offset {start} is past the end"),
            )?;
            return Ok(None);
        };
        let Some(len) = tail.iter().position(|&b| b == 0) else {
            self.report(
                field_at,
                format!("{what}: string at {start} has no NUL terminator"),
            )?;
            return Ok(None);
        };
        self.regions.push(Region {
            start,
            len: len + 1,
            what: format!("{what} string"),
            is_string: true,
        });
        if len == 0 {
            self.report(field_at, format!("{what}: string at {start} is empty"))?;
            return Ok(None);
        }
        match std::str::from_utf8(tail.get(..len).unwrap_or(&[])) {
            Ok(s) => Ok(Some(s.to_string())),
            Err(_) => {
                self.report(start, format!("{what}: string is not UTF-8"))?;
                Ok(None)
            }
        }
    }
}

fn parse(bytes: &[u8], sink: &mut Sink) -> Result<Bmd1, Stop> {
    if bytes.len() < HEADER_SIZE {
        return Err(sink.fatal(
            0,
            format!("{} bytes, shorter than the 48-byte header", bytes.len()),
        ));
    }
    if bytes.get(..4) != Some(&MAGIC[..]) {
        return Err(sink.fatal(0, "magic is not \"BMD1\""));
    }
    let mut p = Parser {
        bytes,
        sink,
        regions: vec![Region {
            start: 0,
            len: HEADER_SIZE,
            what: "header".into(),
            is_string: false,
        }],
    };
    for at in [4, 8, 12] {
        if u32_at(bytes, at) != 0 {
            p.report(at, "reserved header field is not 0")?;
        }
    }
    let list = |k: usize| {
        (
            0x10 + 8 * k,
            u32_at(bytes, 0x10 + 8 * k),
            u32_at(bytes, 0x14 + 8 * k),
        )
    };
    let (at, o, s) = list(0);
    let meshes_at = p.array(at, o, s, MESH_DEF_SIZE, "mesh list")?;
    let (at, o, s) = list(1);
    let lods_at = p.array(at, o, s, LOD_DEF_SIZE, "LOD list")?;
    let (at, o, s) = list(2);
    let bones_at = p.array(at, o, s, BONE_DEF_SIZE, "bone list")?;
    let (at, o, s) = list(3);
    let anims_at = p.array(at, o, s, ANIM_DEF_SIZE, "animation list")?;
    let records = |list: Option<(usize, usize)>, size: usize| {
        list.map_or(0..0, |(_, len)| 0..len / size)
            .map(move |i| (i, list.map_or(0, |l| l.0) + i * size))
    };

    let mut model = Bmd1::default();
    for (i, at) in records(meshes_at, MESH_DEF_SIZE) {
        model.meshes.push(parse_mesh(&mut p, i, at)?);
    }
    for (i, at) in records(lods_at, LOD_DEF_SIZE) {
        if byte_at(bytes, at + 3) != 0 {
            p.report(at + 3, format!("LOD {i}: reserved byte is not 0"))?;
        }
        model.lods.push(Lod {
            first_mesh: byte_at(bytes, at),
            mesh_count: byte_at(bytes, at + 1),
            scale: f8a_decode(byte_at(bytes, at + 2)),
        });
    }
    for (i, at) in records(bones_at, BONE_DEF_SIZE) {
        model.bones.push(parse_bone(&mut p, i, at)?);
    }
    let normal_count = normal_bone_count(&model.bones);
    for (i, at) in records(anims_at, ANIM_DEF_SIZE) {
        model
            .animations
            .push(parse_animation(&mut p, i, at, normal_count)?);
    }

    check_regions(&mut p)?;

    let item_offset = |item: Item| -> usize {
        let rec = |list: Option<(usize, usize)>, i: usize, size: usize| {
            list.map_or(0, |l| l.0 + i * size)
        };
        match item {
            Item::Model => 0,
            Item::Mesh(i) => rec(meshes_at, i, MESH_DEF_SIZE),
            Item::Lod(i) => rec(lods_at, i, LOD_DEF_SIZE),
            Item::Bone(i) => rec(bones_at, i, BONE_DEF_SIZE),
            Item::Animation(i) => rec(anims_at, i, ANIM_DEF_SIZE),
        }
    };
    let mut issues = Vec::new();
    check_model(&model, &mut |item, message| issues.push((item, message)));
    for (item, message) in issues {
        p.report(item_offset(item), format!("{item}: {message}"))?;
    }
    Ok(model)
}

fn parse_mesh(p: &mut Parser, i: usize, at: usize) -> Result<MeshDef, Stop> {
    let bytes = p.bytes;
    let flags = u32_at(bytes, at + 0x18);
    if flags >> 4 != 0 {
        p.report(
            at + 0x18,
            format!("mesh {i}: flag bits 31:4 are not 0 ({flags:#x})"),
        )?;
    }
    if u32_at(bytes, at + 0x1C) != 0 {
        p.report(at + 0x1C, format!("mesh {i}: reserved field is not 0"))?;
    }
    let material = p.string(at + 8, u32_at(bytes, at + 8), &format!("mesh {i} material"))?;
    let n_vtx = usize::from(u16_at(bytes, at + 0x0C));
    let n_tris = usize::from(u16_at(bytes, at + 0x0E));
    let vertex_list = VertexListKind::from_bits(flags);
    let triangle_list = TriangleListKind::from_bits(flags >> 2);
    if n_vtx > MAX_MESH_VERTICES {
        p.report(
            at + 0x0C,
            format!("mesh {i}: {n_vtx} vertices, more than 1024"),
        )?;
    }

    let mut vertices = Vec::new();
    let vtx = p.array(
        at + 0x10,
        u32_at(bytes, at),
        u32_at(bytes, at + 0x10),
        4,
        &format!("mesh {i} vertex list"),
    )?;
    if let Some((ofs, size)) = vtx {
        let mut pos = ofs;
        while pos < ofs + size {
            let record = bytes.get(pos..ofs + size).unwrap_or(&[]);
            match decode_vertex(record) {
                Ok(v) => {
                    // Any exponent reads [B2]: the smallest one is a rule for writers only
                    // (the format author's own samples use larger ones).
                    pos += v.encoding.size();
                    vertices.push(v);
                }
                Err(e) => {
                    p.report(pos, format!("mesh {i} vertex {}: {e}", vertices.len()))?;
                    break;
                }
            }
            if vertices.len() > MAX_MESH_VERTICES {
                p.report(
                    pos,
                    format!("mesh {i}: vertex list holds more than 1024 vertices"),
                )?;
                break;
            }
        }
    }
    if vertices.len() != n_vtx {
        p.report(
            at + 0x0C,
            format!(
                "mesh {i}: n_vtx is {n_vtx} but the vertex list holds {}",
                vertices.len()
            ),
        )?;
    }

    let mut primitives = Vec::new();
    let tris = p.array(
        at + 0x14,
        u32_at(bytes, at + 4),
        u32_at(bytes, at + 0x14),
        4,
        &format!("mesh {i} triangle list"),
    )?;
    if let Some((ofs, size)) = tris {
        let mut pos = ofs;
        while pos < ofs + size {
            let entry = bytes.get(pos..ofs + size).unwrap_or(&[]);
            match decode_primitive(entry, triangle_list) {
                Ok((prim, len)) => {
                    pos += len;
                    primitives.push(prim);
                }
                Err(e) => {
                    p.report(pos, format!("mesh {i} primitive {}: {e}", primitives.len()))?;
                    break;
                }
            }
        }
    }
    let counted = triangle_list.count(&primitives);
    if counted != n_tris {
        p.report(
            at + 0x0E,
            format!("mesh {i}: n_tris is {n_tris} but the triangle list counts {counted}"),
        )?;
    }
    Ok(MeshDef {
        material,
        vertex_list,
        triangle_list,
        vertices,
        primitives,
    })
}

fn parse_bone(p: &mut Parser, i: usize, at: usize) -> Result<Bone, Stop> {
    let bytes = p.bytes;
    let low = u32_at(bytes, at);
    let high = u32_at(bytes, at + 4);
    let name = p.string(at + 8, u32_at(bytes, at + 8), &format!("bone {i} name"))?;
    let parent = byte_at(bytes, at + 12);
    let solid = byte_at(bytes, at + 13);
    if u16_at(bytes, at + 14) != 0 {
        p.report(at + 14, format!("bone {i}: reserved bytes are not 0"))?;
    }
    let kind = if parent == PSEUDO_PARENT {
        let ids = [
            low as u8,
            (low >> 8) as u8,
            (low >> 16) as u8,
            (low >> 24) as u8,
        ];
        let weights = [0, 8, 16, 24].map(|s| f8a_decode((high >> s) as u8));
        BoneKind::Pseudo {
            bones: ids,
            weights,
        }
    } else {
        let rotation = [0, 8, 16, 24].map(|s| f8a_decode((high >> s) as u8));
        if high != 0 && rotation.iter().all(|&c| c == 0.0) {
            p.report(
                at + 4,
                format!("bone {i}: all-zero rotation with a non-zero word"),
            )?;
        }
        // Any exponent reads [B2], as for vertex positions.
        BoneKind::Normal {
            parent,
            rotation,
            origin: xyz_decode(low),
        }
    };
    Ok(Bone { name, solid, kind })
}

fn parse_animation(
    p: &mut Parser,
    i: usize,
    at: usize,
    normal_count: usize,
) -> Result<Animation, Stop> {
    let bytes = p.bytes;
    let name = p.string(at, u32_at(bytes, at), &format!("animation {i} name"))?;
    if name.is_none() {
        p.report(at, format!("animation {i}: has no name"))?;
    }
    let frame_count = byte_at(bytes, at + 4);
    let fl_hz = byte_at(bytes, at + 5);
    if u16_at(bytes, at + 6) != 0 {
        p.report(at + 6, format!("animation {i}: reserved bytes are not 0"))?;
    }
    let mut tracks = Vec::new();
    let frames = p.array(
        at + 12,
        u32_at(bytes, at + 8),
        u32_at(bytes, at + 12),
        1,
        &format!("animation {i} frames"),
    )?;
    if let Some((ofs, size)) = frames {
        let stream = bytes.get(ofs..ofs + size).unwrap_or(&[]);
        let mut pos = 0usize;
        for bone in 0..normal_count {
            match decode_track(stream.get(pos..).unwrap_or(&[]), frame_count) {
                Ok((track, used)) => {
                    tracks.push(track);
                    pos += used;
                }
                Err(e) => {
                    let off = match &e {
                        AnimError::Stream { offset, .. } => ofs + pos + offset,
                        _ => ofs + pos,
                    };
                    p.report(off, format!("animation {i} bone {bone}: {e}"))?;
                    break;
                }
            }
        }
        if tracks.len() == normal_count && pos != size {
            p.report(
                ofs + pos,
                format!(
                    "animation {i}: {} bytes after the last bone's stream",
                    size - pos
                ),
            )?;
        }
    } else if normal_count > 0 {
        p.report(
            at + 12,
            format!("animation {i}: no frames list for {normal_count} bones"),
        )?;
    }
    Ok(Animation {
        name: name.unwrap_or_default(),
        frame_count,
        rate_quarter_hz: fl_hz & 0x7F,
        looping: fl_hz & 0x80 == 0,
        tracks,
    })
}

/// Regions may not overlap (a string shared by several fields is one region), and bytes
/// outside every region must be 0 [B10].
fn check_regions(p: &mut Parser) -> Result<(), Stop> {
    let mut regions = std::mem::take(&mut p.regions);
    regions.sort_by_key(|r| (r.start, r.len));
    regions.dedup_by(|b, a| a.is_string && b.is_string && a.start == b.start && a.len == b.len);
    let mut covered_to = 0usize;
    let mut last_what = String::new();
    for r in &regions {
        if r.start < covered_to {
            p.report(r.start, format!("{} overlaps {}", r.what, last_what))?;
        } else if let Some(gap) = p.bytes.get(covered_to..r.start) {
            if let Some(k) = gap.iter().position(|&b| b != 0) {
                p.report(covered_to + k, "non-zero byte outside every region")?;
            }
        }
        if r.start + r.len > covered_to {
            covered_to = r.start + r.len;
            last_what.clone_from(&r.what);
        }
    }
    if let Some(k) = p
        .bytes
        .get(covered_to..)
        .and_then(|t| t.iter().position(|&b| b != 0))
    {
        p.report(covered_to + k, "non-zero byte after the last region")?;
    }
    Ok(())
}
