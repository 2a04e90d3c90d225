//! `assetc inspect FILE`: any of our formats in a readable form.

use super::args::{GlobalArgs, InspectArgs, MessageFormat};
use super::table::{size, Doc};
use anyhow::Context;
use assetc::formats::{
    bmd1, hanim, hfont, hman, hmat, hmesh, hpack, ktx2, qtmesh, spirv, spk, wav, FormatKind,
};
use assetc::read_error::FormatReadError;
use std::fmt::Write;
use std::process::ExitCode;

pub fn run(args: InspectArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    super::require_input(&args.file)?;
    let kind = FormatKind::from_path(&args.file).with_context(|| {
        format!(
            "{}: unknown extension (expected .hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk .hpack .spv .hfont .wav)",
            args.file.display()
        )
    })?;
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let json = args.json || global.message_format == MessageFormat::Json;
    let problems: Vec<String> = assetc::driver::verify::validate_bytes(kind, &bytes)
        .iter()
        .map(ToString::to_string)
        .collect();
    let doc = match document(kind, &bytes) {
        Some(doc) => doc.map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?,
        None => {
            let text = describe(kind, &bytes)
                .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
            let mut doc = Doc::new(format!("{}", args.file.display()));
            doc.facts = text
                .lines()
                .enumerate()
                .map(|(i, l)| (format!("{i}"), l.to_string()))
                .collect();
            if !json {
                print!("{text}");
                for p in &problems {
                    println!("PROBLEM: {p}");
                }
                return Ok(exit_code(&problems));
            }
            doc
        }
    };
    if json {
        println!(
            "{}",
            serde_json::json!({"file": args.file, "document": doc.to_json(), "problems": problems})
        );
    } else {
        print!("{}", doc.render());
        for p in &problems {
            println!("PROBLEM: {p}");
        }
    }
    Ok(exit_code(&problems))
}

fn exit_code(problems: &[String]) -> ExitCode {
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    }
}

fn describe(kind: FormatKind, bytes: &[u8]) -> Result<String, FormatReadError> {
    let mut out = String::new();
    let w = &mut out;
    match kind {
        FormatKind::HMesh => {
            let v = hmesh::HMeshView::parse(bytes)?;
            let d = v.desc;
            let _ = writeln!(w, ".hmesh v{}: {} vertices (stride {}), {} indices (u{}), {} meshlets (<= {} vertices, {} triangles), {} submeshes, {} materials, tangents {}",
                hmesh::VERSION, d.vertex_count, d.vertex_stride, d.index_count, d.index_width as u32 * 8, d.meshlet_count, d.meshlet_max_verts, d.meshlet_max_tris,
                d.submesh_count, d.material_count, if d.flags & hmesh::DESC_FLAG_TANGENTS != 0 { "yes" } else { "fallback" });
            let b = v.bounds;
            let _ = writeln!(
                w,
                "bounds: min {:?} max {:?} sphere {:?} r {}",
                b.aabb_min, b.aabb_max, b.sphere_center, b.sphere_radius
            );
            for (i, m) in v.materials.iter().enumerate() {
                let _ = writeln!(w, "material slot {i}: {m:016x}");
            }
            for (i, s) in v.submeshes.iter().enumerate() {
                let _ = writeln!(
                    w,
                    "submesh {i}: indices {}..+{} meshlets {}..+{} slot {} aabb {:?}..{:?}",
                    s.first_index,
                    s.index_count,
                    s.first_meshlet,
                    s.meshlet_count,
                    if s.material_slot == hmesh::NO_MATERIAL {
                        "none".to_string()
                    } else {
                        s.material_slot.to_string()
                    },
                    s.bounds.aabb_min,
                    s.bounds.aabb_max
                );
            }
            if let Some(l) = &v.lods {
                let _ = writeln!(
                    w,
                    "LODs: {} per submesh, {} indices; index counts {:?}",
                    l.lod_count,
                    l.indices.len(),
                    l.ranges.iter().map(|r| r.index_count).collect::<Vec<_>>()
                );
            }
            if let Some(s) = &v.skin {
                let _ = writeln!(
                    w,
                    "skin: {} joints, parents {:?}",
                    s.joints.len(),
                    s.joints.iter().map(|j| j.parent).collect::<Vec<_>>()
                );
            }
            if let Some(uv1) = &v.uv1 {
                let _ = writeln!(w, "second UV set (UV1S): {} entries", uv1.len());
            }
        }
        FormatKind::HMat => {
            let t = hmat::read(bytes)?;
            let _ = writeln!(
                w,
                ".hmat v{}: {} materials",
                hmat::VERSION,
                t.materials.len()
            );
            for (i, m) in t.materials.iter().enumerate() {
                let _ = writeln!(w, "{i}: {m:?}");
            }
        }
        FormatKind::HAnim => {
            let a = hanim::read(bytes)?;
            let _ = writeln!(w, ".hanim: {} clips", a.clips.len());
            for c in &a.clips {
                let keys: usize = c.channels.iter().map(|ch| ch.keys.len()).sum();
                let _ = writeln!(
                    w,
                    "clip {:?}: {:.3} s, {} channels, {keys} keys",
                    c.name,
                    c.duration,
                    c.channels.len()
                );
                for ch in &c.channels {
                    let _ = writeln!(
                        w,
                        "  joint {} {:?} {:?}: {} keys",
                        ch.joint,
                        ch.path,
                        ch.interp,
                        ch.keys.len()
                    );
                }
            }
        }
        FormatKind::HMan => {
            let m = hman::read(bytes)?;
            let _ = writeln!(w, ".hman: {} entries", m.entries().len());
            for e in m.entries() {
                let _ = writeln!(
                    w,
                    "{:016x} {}{} {}",
                    e.hash,
                    e.kind.name(),
                    if e.srgb { " sRGB" } else { "" },
                    e.path
                );
            }
        }
        FormatKind::Ktx2 => {
            let k = ktx2::read_with(bytes, &ktx2::ReadOptions::layout_only())?;
            let format = k.pixel_format().map_or_else(
                || format!("vkFormat {}", k.vk_format),
                |(f, srgb)| format!("{}{}", f.name(), if srgb { " sRGB" } else { " linear" }),
            );
            let _ = writeln!(
                w,
                "KTX2 {}x{} {format}, {} faces, depth {}, {} levels, supercompression {}, colour model {}, transfer {}",
                k.width,
                k.height,
                k.face_count,
                k.depth,
                k.levels.len(),
                k.supercompression,
                k.dfd.color_model,
                k.dfd.transfer_function
            );
            for (key, _) in &k.key_values {
                let _ = writeln!(
                    w,
                    "  {key} = {:?}",
                    k.key_value_str(key).unwrap_or("<binary>")
                );
            }
            for (i, l) in k.levels.iter().enumerate() {
                let _ = writeln!(
                    w,
                    "  level {i}: {} bytes stored, {} uncompressed",
                    l.byte_length, l.uncompressed_byte_length
                );
            }
        }
        FormatKind::QtMesh => {
            let f = qtmesh::read(bytes)?;
            out.push_str(&qtmesh::describe(&f));
        }
        // Shown as documents (see `document`); the text is the same table.
        FormatKind::Bmd1 => out.push_str(&bmd_doc(bytes)?.render()),
        FormatKind::Spk => out.push_str(&spk_doc(bytes)?.render()),
        FormatKind::HFont => {
            let f = hfont::read(bytes)?;
            let h = &f.header;
            let _ = writeln!(
                w,
                ".hfont v{}: {} glyphs, {} kerning pairs, {} atlas {}x{} ({:016x}), ascent {} descent {} line gap {}, range {} edge {}",
                hfont::VERSION,
                f.glyphs.len(),
                f.kerning.len(),
                if f.is_msdf() { "MSDF" } else { "SDF" },
                h.atlas_width,
                h.atlas_height,
                h.atlas_tex,
                h.ascent,
                h.descent,
                h.line_gap,
                h.distance_range,
                h.edge_value
            );
        }
        FormatKind::Wav => {
            let info = wav::read(bytes)?;
            let _ = writeln!(w, "WAV {}", info.summary());
        }
        FormatKind::HPack => {
            let p = hpack::read(bytes)?;
            let _ = writeln!(w, ".hpack: {} entries", p.len());
            for e in p.entries() {
                let _ = writeln!(
                    w,
                    "{:>10} at {:>10}  {:<9} {}",
                    e.size,
                    e.offset,
                    hpack::kind_name(e.kind),
                    e.path
                );
            }
        }
        FormatKind::Spirv => {
            let m = spirv::read(bytes)?;
            let _ = writeln!(
                w,
                "SPIR-V {}.{}: {} words, id bound {}, {} entry points",
                m.version.0,
                m.version.1,
                m.words,
                m.bound,
                m.entry_points.len()
            );
            for e in &m.entry_points {
                let _ = writeln!(w, "  {} {}", e.model_name(), e.name);
            }
        }
    }
    Ok(out)
}

/// Tables for the formats people inspect most; `None` for the others (plain text).
fn document(kind: FormatKind, bytes: &[u8]) -> Option<Result<Doc, FormatReadError>> {
    Some(match kind {
        FormatKind::HMesh => hmesh_doc(bytes),
        FormatKind::HMat => hmat_doc(bytes),
        FormatKind::HMan => hman_doc(bytes),
        FormatKind::Ktx2 => ktx2_doc(bytes),
        FormatKind::HFont => hfont_doc(bytes),
        FormatKind::Spirv => spirv_doc(bytes),
        FormatKind::Wav => wav_doc(bytes),
        FormatKind::Bmd1 => bmd_doc(bytes),
        FormatKind::Spk => spk_doc(bytes),
        _ => return None,
    })
}

fn bmd_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let b = bmd1::read(bytes)?;
    let mut doc = Doc::new(format!("BMD1 model ({})", size(bytes.len() as u64)));
    doc.fact("meshes", b.meshes.len());
    doc.fact("LODs", b.lods.len());
    doc.fact("bones", b.bones.len());
    doc.fact("animations", b.animations.len());
    let t = doc.table(
        "meshes",
        &[
            "mesh",
            "material",
            "vertices",
            "vertex list",
            "primitives",
            "triangle list",
        ],
    );
    for (i, m) in b.meshes.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            // A mesh without a material is a bone's solid, not drawn.
            m.material.clone().unwrap_or_else(|| "(not drawn)".into()),
            m.vertices.len().to_string(),
            format!("{:?}", m.vertex_list),
            m.primitives.len().to_string(),
            format!("{:?}", m.triangle_list),
        ]);
    }
    let t = doc.table("LODs", &["LOD", "first mesh", "meshes", "scale"]);
    for (i, l) in b.lods.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            l.first_mesh.to_string(),
            l.mesh_count.to_string(),
            l.scale.to_string(),
        ]);
    }
    let t = doc.table("bones", &["bone", "name", "solid"]);
    for (i, bone) in b.bones.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            bone.name.clone().unwrap_or_else(|| "(base)".into()),
            bone.solid.to_string(),
        ]);
    }
    let t = doc.table(
        "animations",
        &["animation", "name", "frames", "rate (Hz)", "looping"],
    );
    for (i, a) in b.animations.iter().enumerate() {
        t.row(vec![
            i.to_string(),
            a.name.clone(),
            a.frame_count.to_string(),
            (a.rate_quarter_hz as f32 / 4.0).to_string(),
            a.looping.to_string(),
        ]);
    }
    Ok(doc)
}

fn spk_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let a = spk::open(bytes)?;
    let mut doc = Doc::new(format!("SparkPak archive ({})", size(bytes.len() as u64)));
    doc.fact("entries", a.len());
    let t = doc.table(
        "entries",
        &[
            "path",
            "path hash",
            "offset",
            "stored bytes",
            "bytes",
            "compression",
        ],
    );
    for e in a.entries() {
        t.row(vec![
            e.path.clone(),
            hex(e.path_hash),
            e.data_offset.to_string(),
            e.compressed_size.to_string(),
            e.original_size.to_string(),
            match e.compression {
                spk::Compression::Stored => "stored",
                spk::Compression::Deflate => "deflate",
            }
            .to_string(),
        ]);
    }
    Ok(doc)
}

fn wav_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let info = wav::read(bytes)?;
    let s = info.spec;
    let mut doc = Doc::new(format!("WAV ({})", size(bytes.len() as u64)));
    doc.fact("sample rate", format!("{} Hz", s.sample_rate));
    let layout = match (s.channels, info.extensible) {
        (1, _) => "mono".to_string(),
        (2, _) => "stereo".to_string(),
        (n, true) => format!("{n} (speaker mask {:#x})", s.channel_mask),
        (n, false) => n.to_string(),
    };
    doc.fact("channels", layout);
    doc.fact(
        "bit depth",
        format!("{} ({})", s.format.description(), s.format.codec_name()),
    );
    doc.fact("frames", info.frames);
    doc.fact("duration", format!("{:.3} s", info.duration_seconds()));
    doc.fact("data", size(info.data_len as u64));
    Ok(doc)
}

fn hex(id: u64) -> String {
    format!("{id:016x}")
}

fn vec3(v: [f32; 3]) -> String {
    format!("({:.3}, {:.3}, {:.3})", v[0], v[1], v[2])
}

fn hmesh_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let v = hmesh::HMeshView::parse(bytes)?;
    let d = v.desc;
    let mut doc = Doc::new(format!(
        ".hmesh v{} ({})",
        hmesh::VERSION,
        size(bytes.len() as u64)
    ));
    doc.fact(
        "vertices",
        format!("{} ({} bytes each)", d.vertex_count, d.vertex_stride),
    );
    doc.fact(
        "triangles",
        format!(
            "{} ({}-bit indices)",
            d.index_count / 3,
            d.index_width as u32 * 8
        ),
    );
    doc.fact(
        "meshlets",
        format!(
            "{} (up to {} vertices, {} triangles each)",
            d.meshlet_count, d.meshlet_max_verts, d.meshlet_max_tris
        ),
    );
    doc.fact(
        "tangents",
        if d.flags & hmesh::DESC_FLAG_TANGENTS != 0 {
            "stored"
        } else {
            "none (shader derives them)"
        },
    );
    let b = v.bounds;
    doc.fact(
        "bounds",
        format!("{} .. {}", vec3(b.aabb_min), vec3(b.aabb_max)),
    );
    doc.fact(
        "bounding sphere",
        format!(
            "centre {} radius {:.3}",
            vec3(b.sphere_center),
            b.sphere_radius
        ),
    );
    if let Some(s) = &v.skin {
        doc.fact("skin", format!("{} joints", s.joints.len()));
    }
    if v.uv1.is_some() {
        doc.fact("second UV set", "UV1S");
    }
    if let Some(lod) = &v.cluster_lod {
        cluster_lod_doc(&mut doc, lod);
    }
    let t = doc.table("materials", &["slot", "material id"]);
    for (i, m) in v.materials.iter().enumerate() {
        t.row(vec![i.to_string(), hex(*m)]);
    }
    let lod_count = v.lods.as_ref().map_or(0, |l| l.lod_count as usize);
    let mut columns = vec!["submesh", "material slot", "triangles", "meshlets"];
    let lod_names: Vec<String> = (1..=lod_count).map(|i| format!("LOD{i} tris")).collect();
    columns.extend(lod_names.iter().map(String::as_str));
    let mut empty_lods = 0;
    let mut rows = Vec::new();
    for (i, s) in v.submeshes.iter().enumerate() {
        let mut row = vec![
            i.to_string(),
            if s.material_slot == hmesh::NO_MATERIAL {
                "none".to_string()
            } else {
                s.material_slot.to_string()
            },
            (s.index_count / 3).to_string(),
            s.meshlet_count.to_string(),
        ];
        if let Some(l) = &v.lods {
            for lod in 0..lod_count {
                let tris = l
                    .ranges
                    .get(i * lod_count + lod)
                    .map_or(0, |r| r.index_count / 3);
                if tris == 0 {
                    empty_lods += 1;
                }
                row.push(tris.to_string());
            }
        }
        rows.push(row);
    }
    doc.table("submeshes", &columns).rows = rows;
    if empty_lods > 0 {
        doc.warnings.push(format!(
            "{empty_lods} of {} LOD levels are empty (the simplifier could not reduce those \
             submeshes); an engine must fall back to a coarser or finer level",
            lod_count * v.submeshes.len()
        ));
    }
    Ok(doc)
}

/// The cluster LOD chunks: totals, and per submesh and level what a renderer would find.
fn cluster_lod_doc(doc: &mut Doc, lod: &hmesh::clod::ClusterLod) {
    let topology = match &lod.topology {
        hmesh::clod::ClodTopology::Plain { .. } => "plain",
        hmesh::clod::ClodTopology::Encoded { .. } => "meshlet codec",
    };
    let source_tris: u64 = lod
        .clusters
        .iter()
        .filter(|c| c.refined == -1)
        .map(|c| u64::from(c.triangle_count))
        .sum();
    doc.fact(
        "cluster LOD",
        format!(
            "{} clusters in {} groups, {} hierarchy nodes; topology {topology}, {} bytes ({:.1} bits per source triangle)",
            lod.clusters.len(),
            lod.groups.len(),
            lod.nodes.len(),
            lod.topology_bytes(),
            lod.topology_bytes() as f64 * 8.0 / source_tris.max(1) as f64
        ),
    );
    let mut rows = Vec::new();
    for (s, row) in lod.submeshes.iter().enumerate() {
        for level in 0..row.level_count {
            let first = row.first_cluster as usize;
            let clusters = lod
                .clusters
                .get(first..first + row.cluster_count as usize)
                .unwrap_or(&[])
                .iter()
                .filter(|c| c.level == level);
            let (count, tris) = clusters.fold((0u64, 0u64), |(n, t), c| {
                (n + 1, t + u64::from(c.triangle_count))
            });
            let first = row.first_group as usize;
            let groups: Vec<_> = lod
                .groups
                .get(first..first + row.group_count as usize)
                .unwrap_or(&[])
                .iter()
                .filter(|g| g.level == level)
                .collect();
            let terminal = groups.iter().filter(|g| g.error >= f32::MAX).count();
            let largest = groups
                .iter()
                .map(|g| g.error)
                .filter(|e| *e < f32::MAX)
                .fold(0.0f32, f32::max);
            rows.push(vec![
                s.to_string(),
                level.to_string(),
                count.to_string(),
                tris.to_string(),
                groups.len().to_string(),
                terminal.to_string(),
                format!("{largest:.6}"),
            ]);
        }
    }
    doc.table(
        "cluster LOD levels",
        &[
            "submesh",
            "level",
            "clusters",
            "triangles",
            "groups",
            "terminal groups",
            "largest group error",
        ],
    )
    .rows = rows;
}

fn alpha_mode(flags: u32) -> &'static str {
    match (flags & hmat::ALPHA_MODE_MASK) >> hmat::ALPHA_MODE_SHIFT {
        0 => "opaque",
        1 => "mask",
        2 => "blend",
        _ => "invalid",
    }
}

fn hmat_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let t = hmat::read(bytes)?;
    let mut doc = Doc::new(format!(
        ".hmat v{}: {} materials",
        hmat::VERSION,
        t.materials.len()
    ));
    let tex = |id: u64| if id == 0 { "-".to_string() } else { hex(id) };
    let table = doc.table(
        "materials",
        &[
            "slot",
            "base colour",
            "metal",
            "rough",
            "alpha",
            "flags",
            "base colour tex",
            "metal-rough tex",
            "normal tex",
            "occlusion tex",
            "emissive tex",
            "samplers",
        ],
    );
    for (i, m) in t.materials.iter().enumerate() {
        let c = m.base_color_factor;
        let mut flags = Vec::new();
        if m.flags & hmat::FLAG_DOUBLE_SIDED != 0 {
            flags.push("double-sided");
        }
        if m.flags & hmat::FLAG_UNLIT != 0 {
            flags.push("unlit");
        }
        table.row(vec![
            i.to_string(),
            format!("{:.2} {:.2} {:.2} {:.2}", c[0], c[1], c[2], c[3]),
            format!("{:.2}", m.metallic_factor),
            format!("{:.2}", m.roughness_factor),
            match alpha_mode(m.flags) {
                "mask" => format!("mask < {:.2}", m.alpha_cutoff),
                other => other.to_string(),
            },
            if flags.is_empty() {
                "-".to_string()
            } else {
                flags.join(",")
            },
            tex(m.base_color_tex),
            tex(m.metallic_roughness_tex),
            tex(m.normal_tex),
            tex(m.occlusion_tex),
            tex(m.emissive_tex),
            samplers(m.samplers),
        ]);
    }
    Ok(doc)
}

/// A row's `samplers` field: the slots that do not repeat with linear magnification, as
/// `normal clamp/mirror nearest`; "-" when every slot has the default.
fn samplers(bits: u32) -> String {
    let wrap = |w: u32| match w {
        hmat::WRAP_REPEAT => "repeat",
        hmat::WRAP_CLAMP_TO_EDGE => "clamp",
        hmat::WRAP_MIRRORED_REPEAT => "mirror",
        _ => "invalid",
    };
    let slots = ["base", "metal-rough", "normal", "occlusion", "emissive"];
    let parts: Vec<String> = (0u32..)
        .zip(slots)
        .map(|(i, name)| (name, hmat::sampler_of(bits, i)))
        .filter(|(_, s)| *s != hmat::SlotSampler::default())
        .map(|(name, s)| {
            let nearest = if s.mag_nearest { " nearest" } else { "" };
            format!("{name} {}/{}{nearest}", wrap(s.wrap_s), wrap(s.wrap_t))
        })
        .collect();
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join("; ")
    }
}

fn hman_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let m = hman::read(bytes)?;
    let mut doc = Doc::new(format!(".hman: {} entries", m.entries().len()));
    let t = doc.table("entries", &["id", "kind", "colour space", "path"]);
    for e in m.entries() {
        t.row(vec![
            hex(e.hash),
            e.kind.name().to_string(),
            if e.srgb { "sRGB" } else { "-" }.to_string(),
            e.path.clone(),
        ]);
    }
    Ok(doc)
}

fn spirv_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let m = spirv::read(bytes)?;
    let mut doc = Doc::new(format!("SPIR-V module ({})", size(bytes.len() as u64)));
    doc.fact("version", format!("{}.{}", m.version.0, m.version.1));
    doc.fact("words", m.words);
    doc.fact("id bound", m.bound);
    // The generator's tool id is in the high half (28 is naga, 8 glslang).
    doc.fact(
        "generator",
        format!(
            "tool {}, version {}",
            m.generator >> 16,
            m.generator & 0xFFFF
        ),
    );
    if m.big_endian {
        doc.fact("byte order", "big-endian");
    }
    let t = doc.table("entry points", &["name", "execution model"]);
    for e in &m.entry_points {
        t.row(vec![e.name.clone(), e.model_name()]);
    }
    Ok(doc)
}

fn ktx2_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let k = ktx2::read(bytes)?;
    let mut doc = Doc::new(format!("KTX2 texture ({})", size(bytes.len() as u64)));
    let resolution = match k.depth {
        0 => format!("{} x {}", k.width, k.height),
        d => format!("{} x {} x {d}", k.width, k.height),
    };
    doc.fact("resolution", resolution);
    doc.fact(
        "faces",
        if k.is_cube() {
            format!("{} (cube)", k.face_count)
        } else {
            k.face_count.to_string()
        },
    );
    // pixelDepth: 0 for 2D images and cubes, a 3D texture's slice count (a LUT's size).
    doc.fact(
        "depth",
        match k.depth {
            0 => "0 (2D)".to_string(),
            d => format!("{d} (3D)"),
        },
    );
    doc.fact(
        "format",
        k.pixel_format().map_or_else(
            || format!("vkFormat {}", k.vk_format),
            |(f, srgb)| {
                format!("{}{}", f.name(), if srgb { " sRGB" } else { " linear" }).to_uppercase()
            },
        ),
    );
    doc.fact("mip levels", k.levels.len());
    doc.fact(
        "supercompression",
        match k.supercompression {
            0 => "none".to_string(),
            2 => "zstd".to_string(),
            other => format!("scheme {other}"),
        },
    );
    if let Some(gpu) = assetc::driver::info::gpu_bytes(&k) {
        doc.fact("GPU memory (est.)", size(gpu));
    }
    for (key, _) in &k.key_values {
        doc.fact(key, k.key_value_str(key).unwrap_or("<binary>"));
    }
    let t = doc.table("levels", &["level", "size", "stored", "uncompressed"]);
    for (i, l) in k.levels.iter().enumerate() {
        let (w, h) = k.level_size(i);
        t.row(vec![
            i.to_string(),
            match k.depth {
                0 => format!("{w} x {h}"),
                _ => format!("{w} x {h} x {}", k.level_depth(i)),
            },
            l.byte_length.to_string(),
            l.uncompressed_byte_length.to_string(),
        ]);
    }
    Ok(doc)
}

/// Glyphs listed by `inspect`: the first few are enough to see the layout; `--json` has
/// the counts and header.
const HFONT_GLYPH_ROWS: usize = 8;

fn hfont_doc(bytes: &[u8]) -> Result<Doc, FormatReadError> {
    let f = hfont::read(bytes)?;
    let h = &f.header;
    let mut doc = Doc::new(format!(
        ".hfont v{} ({})",
        hfont::VERSION,
        size(bytes.len() as u64)
    ));
    doc.fact("glyphs", f.glyphs.len());
    doc.fact("kerning pairs", f.kerning.len());
    doc.fact(
        "atlas",
        format!(
            "{} x {} {}, id {}",
            h.atlas_width,
            h.atlas_height,
            if f.is_msdf() {
                "MSDF (RGB, median)"
            } else {
                "SDF (one channel)"
            },
            hex(h.atlas_tex)
        ),
    );
    doc.fact(
        "distance",
        format!(
            "range {} texels, edge value {:.3}",
            h.distance_range, h.edge_value
        ),
    );
    doc.fact(
        "line (em)",
        format!(
            "ascent {:.4}, descent {:.4}, line gap {:.4}",
            h.ascent, h.descent, h.line_gap
        ),
    );
    let t = doc.table(
        "glyphs",
        &[
            "codepoint",
            "char",
            "advance",
            "plane (l b r t)",
            "uv (l t r b)",
        ],
    );
    for g in f.glyphs.iter().take(HFONT_GLYPH_ROWS) {
        let ch = char::from_u32(g.codepoint)
            .filter(|c| !c.is_control())
            .map_or_else(|| ".notdef".to_string(), |c| format!("{c:?}"));
        t.row(vec![
            format!("U+{:04X}", g.codepoint),
            ch,
            format!("{:.4}", g.advance),
            format!(
                "{:.3} {:.3} {:.3} {:.3}",
                g.plane_left, g.plane_bottom, g.plane_right, g.plane_top
            ),
            format!(
                "{:.4} {:.4} {:.4} {:.4}",
                g.uv_left, g.uv_top, g.uv_right, g.uv_bottom
            ),
        ]);
    }
    if f.glyphs.len() > HFONT_GLYPH_ROWS {
        t.row(vec![
            format!("... {} more", f.glyphs.len() - HFONT_GLYPH_ROWS),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact<'a>(doc: &'a Doc, label: &str) -> &'a str {
        doc.facts
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {label} in {:?}", doc.facts))
    }

    fn file(format: ktx2::PixelFormat, srgb: bool, side: u32, depth: u32, faces: u32) -> Vec<u8> {
        let mut img = ktx2::Ktx2Image {
            format,
            srgb,
            has_alpha: true,
            width: side,
            height: side,
            depth,
            faces,
            levels: vec![],
            zstd_level: None,
        };
        img.levels = (0..img.full_mip_count())
            .map(|l| vec![0; img.level_bytes(l).unwrap() as usize])
            .collect();
        ktx2::write(&img).unwrap()
    }

    #[test]
    fn hmat_doc_names_non_default_samplers() {
        // Slot 0 clamp S (1), mirror T (2 << 2); slot 2 nearest only (1 << 4 << 10).
        let row = hmat::GpuMaterial {
            samplers: 0b01001 | 0b10000 << 10,
            ..hmat::GpuMaterial::default()
        };
        let bytes = hmat::write(&hmat::HMat {
            materials: vec![row, hmat::GpuMaterial::default()],
        });
        let doc = hmat_doc(&bytes).unwrap();
        let rows = &doc.tables[0].rows;
        assert_eq!(
            rows[0].last().map(String::as_str),
            Some("base clamp/mirror; normal repeat/repeat nearest")
        );
        assert_eq!(rows[1].last().map(String::as_str), Some("-"));
    }

    #[test]
    fn ktx2_doc_names_faces_depth_and_rgba16f() {
        let cube = ktx2_doc(&file(ktx2::PixelFormat::Rgba16f, false, 4, 0, 6)).unwrap();
        assert_eq!(fact(&cube, "resolution"), "4 x 4");
        assert_eq!(fact(&cube, "faces"), "6 (cube)");
        assert_eq!(fact(&cube, "depth"), "0 (2D)");
        assert_eq!(fact(&cube, "format"), "RGBA16F LINEAR");
        // Six 4x4, 2x2 and 1x1 faces of 8-byte texels.
        assert_eq!(fact(&cube, "GPU memory (est.)"), size(6 * 21 * 8));

        let lut = ktx2_doc(&file(ktx2::PixelFormat::Rgba8, false, 4, 4, 1)).unwrap();
        assert_eq!(fact(&lut, "resolution"), "4 x 4 x 4");
        assert_eq!(fact(&lut, "faces"), "1");
        assert_eq!(fact(&lut, "depth"), "4 (3D)");
        assert_eq!(fact(&lut, "format"), "RGBA8 LINEAR");
        let sizes: Vec<&str> = lut.tables[0].rows.iter().map(|r| r[1].as_str()).collect();
        assert_eq!(sizes, ["4 x 4 x 4", "2 x 2 x 2", "1 x 1 x 1"]);

        let plain = ktx2_doc(&file(ktx2::PixelFormat::Bc7, true, 8, 0, 1)).unwrap();
        assert_eq!(fact(&plain, "format"), "BC7 SRGB");
        let text = describe(
            FormatKind::Ktx2,
            &file(ktx2::PixelFormat::Rgba8, true, 2, 0, 6),
        )
        .unwrap();
        assert!(text.contains("rgba8 sRGB, 6 faces, depth 0"), "{text}");
    }

    #[test]
    fn hfont_doc_shows_the_header_and_the_first_glyphs() {
        let mut font = hfont::HFont {
            header: hfont::HFontHeader {
                atlas_tex: 0xabc,
                ascent: 0.9,
                descent: -0.25,
                line_gap: 0.1,
                distance_range: 4.0,
                edge_value: 0.5,
                atlas_width: 512,
                atlas_height: 512,
                flags: hfont::FLAG_MSDF,
            },
            glyphs: vec![hfont::Glyph::default()],
            kerning: vec![],
        };
        for cp in 0x41..0x4B {
            font.glyphs.push(hfont::Glyph {
                codepoint: cp,
                advance: 0.6,
                ..Default::default()
            });
        }
        let bytes = hfont::write(&font).unwrap();
        let doc = hfont_doc(&bytes).unwrap();
        assert_eq!(fact(&doc, "glyphs"), "11");
        assert_eq!(fact(&doc, "kerning pairs"), "0");
        assert_eq!(
            fact(&doc, "atlas"),
            "512 x 512 MSDF (RGB, median), id 0000000000000abc"
        );
        assert_eq!(fact(&doc, "distance"), "range 4 texels, edge value 0.500");
        let rows = &doc.tables[0].rows;
        assert_eq!(rows.len(), HFONT_GLYPH_ROWS + 1);
        assert_eq!(
            (rows[0][0].as_str(), rows[0][1].as_str()),
            ("U+0000", ".notdef")
        );
        assert_eq!(
            (rows[1][0].as_str(), rows[1][1].as_str()),
            ("U+0041", "'A'")
        );
        assert_eq!(rows[HFONT_GLYPH_ROWS][0], "... 3 more");
        let text = describe(FormatKind::HFont, &bytes).unwrap();
        assert!(
            text.starts_with(".hfont v1: 11 glyphs, 0 kerning pairs, MSDF atlas 512x512"),
            "{text}"
        );
    }

    #[test]
    fn wav_doc_shows_rate_channels_depth_and_duration() {
        let spec = wav::WavSpec {
            format: wav::SampleFormat::Float32,
            channels: 6,
            sample_rate: 48_000,
            channel_mask: 0x3F,
        };
        let bytes = wav::write(&spec, wav::Samples::Float32(&[0.0; 6 * 24_000])).unwrap();
        let doc = wav_doc(&bytes).unwrap();
        assert_eq!(fact(&doc, "sample rate"), "48000 Hz");
        assert_eq!(fact(&doc, "channels"), "6 (speaker mask 0x3f)");
        assert_eq!(fact(&doc, "bit depth"), "32-bit float (pcm_f32le)");
        assert_eq!(fact(&doc, "frames"), "24000");
        assert_eq!(fact(&doc, "duration"), "0.500 s");
        let text = describe(FormatKind::Wav, &bytes).unwrap();
        assert!(
            text.contains("48000 Hz, 6 ch, 32-bit float, 0.500 s"),
            "{text}"
        );
    }
}
