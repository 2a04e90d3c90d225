//! The `.hmesh` validator: every rule of the byte contract.

use super::read::{
    check_entry_bounds, for_each_not_below, read_entries, read_header, Entry, HMeshView, LodsView,
    SkinView,
};
use super::sink::Sink;
use super::{
    chunk, GpuJoint, HMeshError, MeshBounds, DESC_FLAG_TANGENTS, ENTRY_SIZE, HEADER_SIZE,
    NO_MATERIAL,
};
use crate::Problem;

/// Checks every rule of the `.hmesh` v2 contract. An empty list means the file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let mut sink = Sink::default();
    if validate_container(bytes, &mut sink) {
        match HMeshView::parse(bytes) {
            Ok(view) => validate_content(&view, &mut sink),
            Err(e) => sink.problems.push(e.into()),
        }
    }
    sink.finish()
}

/// Header and chunk table rules. Returns false when the layout is too broken to parse.
fn validate_container(bytes: &[u8], sink: &mut Sink) -> bool {
    let len = bytes.len() as u64;
    let header = match read_header(bytes) {
        Ok(h) => h,
        Err(e) => {
            sink.problems.push(e.into());
            return false;
        }
    };
    if header.flags != 0 {
        sink.at("reserved", 12, || {
            format!("header flags are {:#x}, must be 0", header.flags)
        });
    }
    for (i, r) in header.reserved.iter().enumerate() {
        if *r != 0 {
            sink.at("reserved", 16 + 8 * i as u64, || {
                format!("reserved header field is {r:#x}, must be 0")
            });
        }
    }
    let entries = read_entries(bytes, header.chunk_count);
    let table_end = HEADER_SIZE + ENTRY_SIZE * u64::from(header.chunk_count);
    let mut sound = true;
    let mut in_bounds = Vec::with_capacity(entries.len());
    for e in &entries {
        if e.flags != 0 {
            sink.at("chunk flags", e.at + 4, || {
                format!("chunk {} flags are {:#x}, must be 0", e.fourcc, e.flags)
            });
        }
        match check_entry_bounds(e, len) {
            Ok(()) => in_bounds.push(*e),
            Err(err) => {
                sound = false;
                sink.problems.push(err.into());
            }
        }
    }
    for (i, e) in entries.iter().enumerate() {
        if chunk::KNOWN.contains(&e.fourcc) || super::clod::tag::ALL.contains(&e.fourcc) {
            if let Some(first) = entries[..i].iter().find(|p| p.fourcc == e.fourcc) {
                sound = false;
                sink.problems.push(
                    HMeshError::DuplicateChunk {
                        fourcc: e.fourcc,
                        first: first.at,
                        second: e.at,
                    }
                    .into(),
                );
            }
        }
    }
    // Payloads may come in any order but must not overlap the table or each other, and
    // every byte between them is alignment padding, which is zero.
    in_bounds.sort_by_key(|e| (e.offset, e.size));
    let mut cursor = table_end;
    let mut previous: Option<Entry> = None;
    for e in in_bounds.iter().filter(|e| e.size > 0) {
        if e.offset < cursor {
            let with = previous.map_or("the header or chunk table".to_string(), |p| {
                format!("chunk {}", p.fourcc)
            });
            sink.at("overlap", e.at, || {
                format!("chunk {} payload at {} overlaps {with}", e.fourcc, e.offset)
            });
        } else if let Some(gap) = bytes.get(cursor as usize..e.offset as usize) {
            if let Some(p) = gap.iter().position(|&b| b != 0) {
                sink.at("padding", cursor + p as u64, || {
                    "padding between chunk payloads is not zero".into()
                });
            }
        }
        cursor = cursor.max(e.offset + e.size);
        previous = Some(*e);
    }
    if let Some(p) = bytes
        .get(cursor as usize..)
        .and_then(|tail| tail.iter().position(|&b| b != 0))
    {
        sink.at("padding", cursor + p as u64, || {
            "bytes after the last chunk payload are not zero".into()
        });
    }
    sound
}

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// Slack for sphere containment: positions and radii are f32, so allow a few ulps of the
/// magnitudes involved.
fn sphere_slack(b: &MeshBounds) -> f64 {
    let scale = b
        .aabb_min
        .iter()
        .chain(&b.aabb_max)
        .chain(&b.sphere_center)
        .map(|v| f64::from(v.abs()))
        .fold(f64::from(b.sphere_radius.abs()), f64::max);
    1e-5 * scale + 1e-6
}

fn inside_aabb(p: &[f32; 3], b: &MeshBounds) -> bool {
    (0..3).all(|k| p[k] >= b.aabb_min[k] && p[k] <= b.aabb_max[k])
}

/// A bounding sphere's containment test, with what does not depend on the point worked out
/// once: the check runs for every vertex and every index of a file.
struct SphereTest {
    center: [f64; 3],
    /// The radius plus [`sphere_slack`].
    limit: f64,
    /// Squared distances up to this are inside without a square root: it sits 2^-40
    /// (relative) below `limit`², further than the rounding of `limit * limit` and of the
    /// correctly rounded `sqrt` can reach, so the answer is the one `sqrt(d2) <= limit`
    /// gives.
    surely_inside: f64,
}

impl SphereTest {
    fn new(b: &MeshBounds) -> Self {
        let limit = f64::from(b.sphere_radius) + sphere_slack(b);
        Self {
            center: b.sphere_center.map(f64::from),
            limit,
            // A negative limit (a broken radius) holds nothing: no shortcut then.
            surely_inside: if limit >= 0.0 {
                limit * limit * (1.0 - 1.0 / (1u64 << 40) as f64)
            } else {
                f64::NEG_INFINITY
            },
        }
    }

    fn contains(&self, p: &[f32; 3]) -> bool {
        let d2: f64 = (0..3)
            .map(|k| (f64::from(p[k]) - self.center[k]).powi(2))
            .sum();
        d2 <= self.surely_inside || d2.sqrt() <= self.limit
    }
}

fn validate_bounds(b: &MeshBounds, at: u64, what: &str, sink: &mut Sink) -> bool {
    let floats: Vec<f32> =
        bytemuck::cast_slice::<MeshBounds, f32>(std::slice::from_ref(b)).to_vec();
    if !finite(&floats) {
        sink.at("finite", at, || {
            format!("{what} bounds hold a non-finite value")
        });
        return false;
    }
    if (0..3).any(|k| b.aabb_min[k] > b.aabb_max[k]) {
        sink.at("bounds", at, || format!("{what} AABB min exceeds max"));
    }
    if b.sphere_radius < 0.0 {
        sink.at("bounds", at + 36, || {
            format!("{what} sphere radius is negative")
        });
    }
    true
}

fn validate_content(v: &HMeshView<'_>, sink: &mut Sink) {
    let d = &v.desc;
    let o_desc = v.chunk_offset(chunk::DESC);
    let vertex_count = d.vertex_count;
    let wide = d.vertex_count > 65535;
    if (d.index_width == 4) != wide {
        sink.at("index width", o_desc + 22, || {
            format!(
                "indexWidth is {} but {} vertices call for {}",
                d.index_width,
                vertex_count,
                if wide { 4 } else { 2 }
            )
        });
    }
    if d.flags & !DESC_FLAG_TANGENTS != 0 {
        sink.at("reserved", o_desc + 23, || {
            format!("DESC flags {:#x} set reserved bits", d.flags)
        });
    }
    if d.submesh_count == 0 {
        sink.at("submeshes", o_desc + 12, || {
            "submeshCount is 0, at least one submesh is required".into()
        });
    }
    if !d.index_count.is_multiple_of(3) {
        sink.at("triangles", o_desc + 4, || {
            format!("indexCount {} is not a multiple of 3", d.index_count)
        });
    }

    // Mesh bounds and vertices.
    let o_bnds = v.chunk_offset(chunk::BNDS);
    let bounds_ok = validate_bounds(&v.bounds, o_bnds, "mesh", sink);
    let mesh_sphere = SphereTest::new(&v.bounds);
    let o_vtxs = v.chunk_offset(chunk::VTXS);
    for (i, vert) in v.vertices.iter().enumerate() {
        let at = o_vtxs + 28 * i as u64;
        if !finite(&vert.position) || !finite(&vert.uv) {
            sink.at("finite", at, || {
                format!("vertex {i} has a non-finite position or UV")
            });
            continue;
        }
        if vert.normal.contains(&i16::MIN) || vert.tangent[1] == i16::MIN {
            sink.at("octahedral", at + 12, || {
                format!("vertex {i} has an octahedral component of -32768, outside the SNORM range the encoding produces")
            });
        }
        if d.flags & DESC_FLAG_TANGENTS == 0 && vert.tangent[0] & 1 != 0 {
            sink.at("tangent", at + 16, || format!("vertex {i}: DESC says no tangents, but the placeholder tangent has negative handedness"));
        }
        if bounds_ok {
            if !inside_aabb(&vert.position, &v.bounds) {
                sink.at("vertex in AABB", at, || {
                    format!("vertex {i} lies outside the mesh AABB")
                });
            }
            if !mesh_sphere.contains(&vert.position) {
                sink.at("vertex in sphere", at, || {
                    format!("vertex {i} lies outside the mesh bounding sphere")
                });
            }
        }
    }

    // Indices.
    let o_idxs = v.chunk_offset(chunk::IDXS);
    let width = u64::from(d.index_width);
    v.indices.for_each_not_below(vertex_count, |i, index| {
        sink.at("index range", o_idxs + width * i as u64, || {
            format!("index {i} is {index}, not below vertexCount {vertex_count}")
        });
    });

    validate_submeshes(v, bounds_ok, sink);
    validate_meshlets(v, sink);
    if let Some(skin) = &v.skin {
        validate_skin(v, skin, sink);
    }
    if let Some(lods) = &v.lods {
        validate_lods(v, lods, sink);
    }
    if let Some(lod) = &v.cluster_lod {
        super::clod::validate(lod, &v.clod_offsets, v.desc.vertex_count, sink);
    }
    if let Some(uv1) = &v.uv1 {
        // Its size was checked against vertexCount when parsing; only the values remain.
        let o_uv1s = v.chunk_offset(chunk::UV1S);
        for (i, uv) in uv1.iter().enumerate() {
            if !finite(uv) {
                sink.at("finite", o_uv1s + 8 * i as u64, || {
                    format!("UV1S entry {i} (vertex {i}'s second UV) is not finite")
                });
            }
        }
    }
}

fn validate_submeshes(v: &HMeshView<'_>, mesh_bounds_ok: bool, sink: &mut Sink) {
    let d = &v.desc;
    let o_subm = v.chunk_offset(chunk::SUBM);
    let mut next_index = 0u64;
    let mut next_meshlet = 0u64;
    let mut next_new_slot = 0u32;
    // Per vertex, 1 + the last submesh whose bounds it was checked against.
    let mut looked_at = vec![0u32; v.vertices.len()];
    for (s, sub) in v.submeshes.iter().enumerate() {
        let at = o_subm + 64 * s as u64;
        if u64::from(sub.first_index) != next_index {
            sink.at("submesh tiling", at, || {
                format!("submesh {s} starts at index {}, expected {next_index} (submeshes tile IDXS in order)", sub.first_index)
            });
        }
        if sub.index_count % 3 != 0 {
            sink.at("triangles", at + 4, || {
                format!(
                    "submesh {s} indexCount {} is not a multiple of 3",
                    sub.index_count
                )
            });
        }
        if u64::from(sub.first_meshlet) != next_meshlet {
            sink.at("submesh tiling", at + 8, || {
                format!("submesh {s} starts at meshlet {}, expected {next_meshlet} (submeshes tile MLET in order)", sub.first_meshlet)
            });
        }
        next_index = u64::from(sub.first_index) + u64::from(sub.index_count);
        next_meshlet = u64::from(sub.first_meshlet) + u64::from(sub.meshlet_count);
        if sub.material_slot != NO_MATERIAL {
            if sub.material_slot >= d.material_count {
                sink.at("material slot", at + 16, || {
                    format!(
                        "submesh {s} materialSlot {} is not below materialCount {}",
                        sub.material_slot, d.material_count
                    )
                });
            } else if sub.material_slot == next_new_slot {
                next_new_slot += 1;
            } else if sub.material_slot > next_new_slot {
                sink.at("material order", at + 16, || {
                    format!("submesh {s} uses slot {} before slot {next_new_slot} is used (MTRL is in first-use order)", sub.material_slot)
                });
            }
        }
        if sub.base_vertex != 0 {
            sink.at("base vertex", at + 20, || {
                format!("submesh {s} baseVertex is {}, must be 0", sub.base_vertex)
            });
        }
        let what = format!("submesh {s}");
        if !validate_bounds(&sub.bounds, at + 24, &what, sink) || sub.index_count == 0 {
            continue;
        }
        if mesh_bounds_ok {
            let mb = &v.bounds;
            let inside = (0..3).all(|k| {
                sub.bounds.aabb_min[k] >= mb.aabb_min[k] && sub.bounds.aabb_max[k] <= mb.aabb_max[k]
            });
            if !inside {
                sink.at("submesh AABB", at + 24, || {
                    format!("submesh {s} AABB is not inside the mesh AABB")
                });
            }
        }
        let sub_sphere = SphereTest::new(&sub.bounds);
        let end = next_index.min(v.indices.len() as u64) as usize;
        let start = (sub.first_index as usize).min(end);
        let outside =
            |p: &[f32; 3]| finite(p) && (!inside_aabb(p, &sub.bounds) || !sub_sphere.contains(p));
        // Each vertex is looked at once per submesh (a vertex is named by about six
        // indices); only when one lies outside are the indices walked again, one by one,
        // to name them.
        let mut any_outside = false;
        v.indices.for_each_in(start..end, |_, ix| {
            let Some(vert) = v.vertices.get(ix as usize) else {
                return;
            };
            let stamp = &mut looked_at[ix as usize];
            if *stamp != s as u32 + 1 {
                *stamp = s as u32 + 1;
                any_outside |= outside(&vert.position);
            }
        });
        if !any_outside {
            continue;
        }
        v.indices.for_each_in(start..end, |i, ix| {
            let Some(p) = v.vertices.get(ix as usize).map(|vert| vert.position) else {
                return;
            };
            if !finite(&p) {
                return;
            }
            if !inside_aabb(&p, &sub.bounds) {
                sink.at("submesh vertex in AABB", at + 24, || {
                    format!("submesh {s}: vertex of index {i} lies outside the submesh AABB")
                });
            }
            if !sub_sphere.contains(&p) {
                sink.at("submesh vertex in sphere", at + 48, || {
                    format!("submesh {s}: vertex of index {i} lies outside the submesh sphere")
                });
            }
        });
    }
    if next_index != u64::from(d.index_count) {
        sink.at("submesh tiling", o_subm, || {
            format!(
                "submeshes cover {next_index} indices, IDXS holds {}",
                d.index_count
            )
        });
    }
    if next_meshlet != u64::from(d.meshlet_count) {
        sink.at("submesh tiling", o_subm, || {
            format!(
                "submeshes cover {next_meshlet} meshlets, MLET holds {}",
                d.meshlet_count
            )
        });
    }
    if next_new_slot < d.material_count {
        sink.at("material order", v.chunk_offset(chunk::MTRL) + 8 * u64::from(next_new_slot), || {
            format!("MTRL slot {next_new_slot} is never used by a submesh (MTRL lists only referenced materials)")
        });
    }
}

fn validate_meshlets(v: &HMeshView<'_>, sink: &mut Sink) {
    let d = &v.desc;
    let o_mlet = v.chunk_offset(chunk::MLET);
    let o_mltr = v.chunk_offset(chunk::MLTR);
    let o_mlbn = v.chunk_offset(chunk::MLBN);
    let mlvr_len = v.meshlet_vertices.len() as u64;
    let mltr_len = v.meshlet_triangles.len() as u64;
    let mut next_vertex = 0u64;
    let mut next_triangle = 0u64;
    for (m, ml) in v.meshlets.iter().enumerate() {
        let at = o_mlet + 16 * m as u64;
        if u64::from(ml.vertex_offset) != next_vertex
            || u64::from(ml.triangle_offset) != next_triangle
        {
            sink.at("meshlet packing", at, || {
                format!("meshlet {m} starts at vertex {} / triangle {}, expected {next_vertex} / {next_triangle} (MLVR and MLTR are dense, in meshlet order)", ml.vertex_offset, ml.triangle_offset)
            });
        }
        let v_end = u64::from(ml.vertex_offset) + u64::from(ml.vertex_count);
        let t_end = u64::from(ml.triangle_offset) + u64::from(ml.triangle_count);
        next_vertex = v_end;
        next_triangle = t_end;
        if ml.vertex_count > d.meshlet_max_verts || ml.triangle_count > d.meshlet_max_tris {
            sink.at("meshlet limits", at, || {
                format!(
                    "meshlet {m} has {} vertices / {} triangles, over the DESC limits {} / {}",
                    ml.vertex_count, ml.triangle_count, d.meshlet_max_verts, d.meshlet_max_tris
                )
            });
        }
        if v_end > mlvr_len {
            sink.at("meshlet range", at, || {
                format!("meshlet {m} vertex range ends at {v_end}, past MLVR's {mlvr_len} entries")
            });
        }
        if t_end > mltr_len {
            sink.at("meshlet range", at + 8, || {
                format!(
                    "meshlet {m} triangle range ends at {t_end}, past MLTR's {mltr_len} triangles"
                )
            });
            continue;
        }
        let tris = v
            .meshlet_triangles
            .get(ml.triangle_offset as usize..t_end as usize)
            .unwrap_or(&[]);
        for (t, tri) in tris.iter().enumerate() {
            if tri.0.iter().any(|&l| u32::from(l) >= ml.vertex_count) {
                let t_at = o_mltr + 3 * (u64::from(ml.triangle_offset) + t as u64);
                sink.at("meshlet local index", t_at, || {
                    format!("meshlet {m} triangle {t} {:?} uses a local index not below its {} vertices", tri.0, ml.vertex_count)
                });
            }
        }
    }
    if next_vertex != mlvr_len || next_triangle != mltr_len {
        sink.at("meshlet packing", v.chunk_offset(chunk::MLVR), || {
            format!("meshlets use {next_vertex} vertices / {next_triangle} triangles but MLVR / MLTR hold {mlvr_len} / {mltr_len}")
        });
    }
    let o_mlvr = v.chunk_offset(chunk::MLVR);
    for_each_not_below(&v.meshlet_vertices, d.vertex_count, |i, g| {
        sink.at("meshlet vertex", o_mlvr + 4 * i as u64, || {
            format!(
                "MLVR entry {i} is {g}, not below vertexCount {}",
                d.vertex_count
            )
        });
    });
    for (m, b) in v.meshlet_bounds.iter().enumerate() {
        let fl = [
            b.center[0],
            b.center[1],
            b.center[2],
            b.radius,
            b.cone_axis[0],
            b.cone_axis[1],
            b.cone_axis[2],
            b.cone_cutoff,
        ];
        if !finite(&fl) {
            sink.at("finite", o_mlbn + 32 * m as u64, || {
                format!("meshlet {m} bounds hold a non-finite value")
            });
        } else if b.radius < 0.0 {
            sink.at("bounds", o_mlbn + 32 * m as u64 + 12, || {
                format!("meshlet {m} radius is negative")
            });
        }
    }
}

fn validate_skin(v: &HMeshView<'_>, skin: &SkinView<'_>, sink: &mut Sink) {
    let o_skin = v.chunk_offset(chunk::SKIN);
    let o_skel = v.chunk_offset(chunk::SKEL);
    let joint_count = skin.joints.len();
    for (i, sv) in skin.vertices.iter().enumerate() {
        let at = o_skin + 24 * i as u64;
        if let Some(j) = sv.joints.iter().find(|&&j| usize::from(j) >= joint_count) {
            sink.at("joint index", at, || {
                format!("skin vertex {i} uses joint {j}, not below jointCount {joint_count}")
            });
        }
        if !finite(&sv.weights) || sv.weights.iter().any(|&w| w < 0.0) {
            sink.at("weights", at + 8, || {
                format!("skin vertex {i} has a negative or non-finite weight")
            });
            continue;
        }
        let sum: f64 = sv.weights.iter().map(|&w| f64::from(w)).sum();
        if (sum - 1.0).abs() > 1e-3 {
            sink.at("weights", at + 8, || {
                format!("skin vertex {i} weights sum to {sum}, not 1")
            });
        }
    }
    for (j, joint) in skin.joints.iter().enumerate() {
        let at = o_skel + 112 * j as u64;
        let floats: Vec<f32> = joint
            .inverse_bind
            .iter()
            .chain(&joint.bind_t)
            .chain(&joint.bind_r)
            .chain(&joint.bind_s)
            .copied()
            .collect();
        if !finite(&floats) {
            sink.at("finite", at, || {
                format!("joint {j} holds a non-finite value")
            });
        } else {
            let len: f64 = joint
                .bind_r
                .iter()
                .map(|&c| f64::from(c).powi(2))
                .sum::<f64>()
                .sqrt();
            if (len - 1.0).abs() > 1e-3 {
                sink.at("bind rotation", at + 76, || {
                    format!("joint {j} bindR has length {len}, not 1")
                });
            }
        }
        let parent = joint.parent;
        if parent != -1 && (parent < 0 || parent as usize >= joint_count || parent as usize == j) {
            sink.at("joint parent", at + 104, || format!("joint {j} parent is {parent}; must be -1 or another joint's index below {joint_count}"));
        }
        if joint.pad != 0 {
            sink.at("reserved", at + 108, || {
                format!("joint {j} pad is {:#x}, must be 0", joint.pad)
            });
        }
    }
    if let Some(j) = first_joint_in_cycle(&skin.joints) {
        sink.at("joint cycle", o_skel + 112 * j as u64 + 104, || {
            format!("joint {j} is its own ancestor (parent cycle)")
        });
    }
}

/// Walks parent links once per joint (linear time); invalid parents end a chain.
fn first_joint_in_cycle(joints: &[GpuJoint]) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let parent_of = |j: usize| {
        let p = joints.get(j)?.parent;
        usize::try_from(p).ok().filter(|&p| p < joints.len())
    };
    let mut marks = vec![Mark::New; joints.len()];
    let mut path = Vec::new();
    for start in 0..joints.len() {
        let mut j = Some(start);
        while let Some(cur) = j {
            match marks[cur] {
                Mark::Done => break,
                Mark::OnPath => return Some(cur),
                Mark::New => {
                    marks[cur] = Mark::OnPath;
                    path.push(cur);
                    j = parent_of(cur);
                }
            }
        }
        for p in path.drain(..) {
            marks[p] = Mark::Done;
        }
    }
    None
}

fn validate_lods(v: &HMeshView<'_>, lods: &LodsView<'_>, sink: &mut Sink) {
    let o_lodt = v.chunk_offset(chunk::LODT);
    let o_lodi = v.chunk_offset(chunk::LODI);
    if lods.lod_count == 0 {
        sink.at("lod table", o_lodt, || {
            "LODT lists 0 levels; omit LODI/LODT when there are no LODs".into()
        });
    }
    let lodi_len = lods.indices.len() as u64;
    let per = lods.lod_count.max(1) as usize;
    for (r, range) in lods.ranges.iter().enumerate() {
        let at = o_lodt + 8 + 8 * r as u64;
        let (s, l) = (r / per, r % per);
        if range.index_count % 3 != 0 {
            sink.at("lod range", at + 4, || {
                format!(
                    "submesh {s} LOD{} indexCount {} is not a multiple of 3",
                    l + 1,
                    range.index_count
                )
            });
        }
        let end = u64::from(range.first_index) + u64::from(range.index_count);
        if end > lodi_len {
            sink.at("lod range", at, || {
                format!(
                    "submesh {s} LOD{} range ends at {end}, past LODI's {lodi_len} indices",
                    l + 1
                )
            });
        }
    }
    for_each_not_below(&lods.indices, v.desc.vertex_count, |i, index| {
        sink.at("index range", o_lodi + 4 * i as u64, || {
            format!(
                "LODI index {i} is {index}, not below vertexCount {}",
                v.desc.vertex_count
            )
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The containment rule as the contract states it, a square root for every point.
    fn contains_by_definition(b: &MeshBounds, p: &[f32; 3]) -> bool {
        let d2: f64 = (0..3)
            .map(|k| (f64::from(p[k]) - f64::from(b.sphere_center[k])).powi(2))
            .sum();
        d2.sqrt() <= f64::from(b.sphere_radius) + sphere_slack(b)
    }

    fn bounds(center: [f32; 3], radius: f32) -> MeshBounds {
        MeshBounds {
            sphere_center: center,
            sphere_radius: radius,
            ..Default::default()
        }
    }

    proptest! {
        /// Points on rays from the center at distances around the limit (where the
        /// shortcut and the square root could disagree) get the contract's answer.
        #[test]
        fn sphere_test_agrees_with_the_square_root_at_the_boundary(
            center in prop::array::uniform3(-1.0e4f32..1.0e4),
            radius in 0.0f32..1.0e4,
            direction in prop::array::uniform3(-1.0f32..1.0),
            scale in 0.999_999f64..1.000_001,
        ) {
            let b = bounds(center, radius);
            let test = SphereTest::new(&b);
            let len = direction.iter().map(|d| f64::from(*d).powi(2)).sum::<f64>().sqrt();
            prop_assume!(len > 1e-3);
            let distance = test.limit * scale;
            let p = [0, 1, 2].map(|k| {
                (f64::from(center[k]) + f64::from(direction[k]) / len * distance) as f32
            });
            prop_assert_eq!(test.contains(&p), contains_by_definition(&b, &p));
        }
    }

    #[test]
    fn a_negative_radius_holds_no_point() {
        let b = bounds([0.0; 3], -5.0);
        let test = SphereTest::new(&b);
        assert!(!test.contains(&[0.0; 3]));
        assert_eq!(
            test.contains(&[0.0; 3]),
            contains_by_definition(&b, &[0.0; 3])
        );
    }
}
