//! `assetc inspect FILE`: any of our formats in a readable form.

use super::args::{GlobalArgs, InspectArgs};
use anyhow::Context;
use assetc::formats::{bmd1, hanim, hman, hmat, hmesh, ktx2, qtmesh, spk, FormatKind};
use std::fmt::Write;
use std::process::ExitCode;

pub fn run(args: InspectArgs, _global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let kind = FormatKind::from_path(&args.file).with_context(|| {
        format!(
            "{}: unknown extension (expected .hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk)",
            args.file.display()
        )
    })?;
    let bytes =
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    let text =
        describe(kind, &bytes).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    print!("{text}");
    let problems = assetc::build::verify::validate_bytes(kind, &bytes);
    for p in &problems {
        println!("PROBLEM: {p}");
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

fn describe(kind: FormatKind, bytes: &[u8]) -> Result<String, String> {
    let mut out = String::new();
    let w = &mut out;
    match kind {
        FormatKind::HMesh => {
            let v = hmesh::HMeshView::parse(bytes).map_err(|e| e.to_string())?;
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
        }
        FormatKind::HMat => {
            let t = hmat::read(bytes).map_err(|e| e.to_string())?;
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
            let a = hanim::read(bytes).map_err(|e| e.to_string())?;
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
            let m = hman::read(bytes).map_err(|e| e.to_string())?;
            let _ = writeln!(w, ".hman: {} entries", m.entries().len());
            for e in m.entries() {
                let _ = writeln!(
                    w,
                    "{:016x} {:?}{} {}",
                    e.hash,
                    e.kind,
                    if e.srgb { " sRGB" } else { "" },
                    e.path
                );
            }
        }
        FormatKind::Ktx2 => {
            let k = ktx2::read_with(bytes, &ktx2::ReadOptions::layout_only())
                .map_err(|e| e.to_string())?;
            let format = k.pixel_format().map_or_else(
                || format!("vkFormat {}", k.vk_format),
                |(f, srgb)| format!("{f:?}{}", if srgb { " sRGB" } else { " linear" }),
            );
            let _ = writeln!(
                w,
                "KTX2 {}x{} {format}, {} levels, supercompression {}, colour model {}, transfer {}",
                k.width,
                k.height,
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
            let f = qtmesh::read(bytes).map_err(|e| e.to_string())?;
            out.push_str(&qtmesh::describe(&f));
        }
        FormatKind::Bmd1 => {
            let b = bmd1::read(bytes).map_err(|e| e.to_string())?;
            let _ = writeln!(
                w,
                "BMD1: {} meshes, {} LODs, {} bones, {} animations",
                b.meshes.len(),
                b.lods.len(),
                b.bones.len(),
                b.animations.len()
            );
            for (i, m) in b.meshes.iter().enumerate() {
                let _ = writeln!(
                    w,
                    "mesh {i}: {:?}, {} vertices ({:?}), {} primitives ({:?})",
                    m.material,
                    m.vertices.len(),
                    m.vertex_list,
                    m.primitives.len(),
                    m.triangle_list
                );
            }
            for (i, l) in b.lods.iter().enumerate() {
                let _ = writeln!(w, "lod {i}: {l:?}");
            }
            for (i, a) in b.animations.iter().enumerate() {
                let _ = writeln!(
                    w,
                    "animation {i}: {:?}, {} frames at {} Hz, looping {}",
                    a.name,
                    a.frame_count,
                    a.rate_quarter_hz as f32 / 4.0,
                    a.looping
                );
            }
        }
        FormatKind::Spk => {
            let a = spk::open(bytes).map_err(|e| e.to_string())?;
            let _ = writeln!(w, "SparkPak: {} entries", a.len());
            for e in a.entries() {
                let _ = writeln!(w, "{e:?}");
            }
        }
    }
    Ok(out)
}
