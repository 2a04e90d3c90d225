//! `assetc check` and `assetc info`.

use super::args::{GlobalArgs, MessageFormat, TreeArgs};
use super::table::{size, Doc, DocText};
use assetc::driver::info::{FileInfo, SourceSizes, Totals};
use assetc::formats::registry::Format;
use assetc::formats::{hanim, hfont, hmat, hmesh, ktx2, spirv, vorbis, wav, wgsl};
use std::process::ExitCode;

pub fn run_check(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    super::require_input(&args.output)?;
    if !args.output.is_dir() {
        anyhow::bail!("{} is not a folder", args.output.display());
    }
    let problems = assetc::driver::check::check_tree(&args.output);
    let json = args.json || global.message_format == MessageFormat::Json;
    for p in &problems {
        if json {
            println!(
                "{}",
                serde_json::json!({"reason": "problem", "file": p.file, "message": p.message})
            );
        } else {
            println!("{p}");
        }
    }
    if json {
        println!(
            "{}",
            serde_json::json!({
                "reason": "check-finished",
                "root": args.output.display().to_string(),
                "success": problems.is_empty(),
                "problems": problems.len(),
                "manifest_version": assetc::driver::check::manifest_version(&args.output),
            })
        );
    }
    if !global.quiet && !json {
        if assetc::driver::check::manifest_version(&args.output) == Some(1) {
            eprintln!(
                "note: assets.hman is version 1 (manifest_version = 1): it holds no sizes or \
                 digests, so files were validated but not compared with it"
            );
        }
        eprintln!("{} problem(s) in {}", problems.len(), args.output.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

pub fn run_info(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    super::require_input(&args.output)?;
    if !args.output.is_dir() {
        anyhow::bail!("{} is not a folder", args.output.display());
    }
    let (files, totals) = assetc::driver::info::tree_info(&args.output);
    let sources = assetc::driver::info::source_sizes(&args.output);
    if args.json || global.message_format == MessageFormat::Json {
        for f in &files {
            println!("{}", serde_json::json!({"reason": "file", "info": f}));
        }
        for s in &sources {
            println!("{}", serde_json::json!({"reason": "source", "sizes": s}));
        }
        println!(
            "{}",
            serde_json::json!({"reason": "totals", "totals": totals})
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!(
        "{}",
        info_doc(&args.output, &files, &totals, &sources).render()
    );
    Ok(ExitCode::SUCCESS)
}

/// The formats `info` shows a table of; other files are listed by size only.
const WITH_A_TABLE: [&Format; 9] = [
    &hmesh::FORMAT,
    &hmat::FORMAT,
    &ktx2::FORMAT,
    &hanim::FORMAT,
    &hfont::FORMAT,
    &spirv::FORMAT,
    &wgsl::FORMAT,
    &wav::FORMAT,
    &vorbis::FORMAT,
];

/// `info` for people: totals, then one table per kind of file, then the sources.
fn info_doc(
    root: &std::path::Path,
    files: &[FileInfo],
    totals: &Totals,
    sources: &[SourceSizes],
) -> Doc {
    let opt = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
    let of = |format: &'static Format| {
        move |f: &&FileInfo| {
            std::path::Path::new(&f.path)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| format.has_extension(e))
        }
    };
    let mut doc = Doc::new(format!(
        "{}: {} files, {}",
        root.display(),
        totals.files,
        size(totals.bytes)
    ));
    doc.fact("meshes", totals.meshes);
    doc.fact("vertices", totals.vertices);
    doc.fact("triangles", totals.triangles);
    doc.fact("meshlets", totals.meshlets);
    doc.fact("materials", totals.materials);
    doc.fact(
        "textures",
        format!(
            "{} ({} in GPU memory)",
            totals.textures,
            size(totals.texture_gpu_bytes)
        ),
    );
    if totals.empty_lod_levels > 0 {
        let lod_levels: u64 = files
            .iter()
            .map(|f| f.submeshes.unwrap_or(0) * f.lod_triangles.len() as u64)
            .sum();
        let value = assetc::formats::hmesh::lod_fact::value(totals.empty_lod_levels, lod_levels);
        doc.fact(assetc::formats::hmesh::lod_fact::LABEL, value);
    }
    doc.fact("clips", totals.clips);
    doc.fact("sounds", totals.sounds);

    let meshes = doc.table(
        "meshes",
        &[
            "file",
            "size",
            "vertices",
            "triangles",
            "meshlets",
            "submeshes",
            "LOD triangles",
        ],
    );
    for f in files.iter().filter(of(&hmesh::FORMAT)) {
        let lods: Vec<String> = f.lod_triangles.iter().map(u64::to_string).collect();
        meshes.row(vec![
            f.path.clone(),
            size(f.bytes),
            opt(f.vertices),
            opt(f.triangles),
            opt(f.meshlets),
            opt(f.submeshes),
            lods.join(" / "),
        ]);
    }
    // Only when some mesh has one, so trees built without `mesh.cluster_lod` print as before.
    let hierarchies: Vec<_> = files
        .iter()
        .filter_map(|f| f.cluster_lod.as_ref().map(|c| (f, c)))
        .collect();
    if !hierarchies.is_empty() {
        let clod = doc.table(
            "cluster LOD hierarchies",
            &[
                "file",
                "levels",
                "clusters",
                "groups",
                "triangles per level",
                "tables",
                "topology",
            ],
        );
        for (f, c) in hierarchies {
            let per_level: Vec<String> = c.triangles_per_level.iter().map(u64::to_string).collect();
            clod.row(vec![
                f.path.clone(),
                c.levels.to_string(),
                c.clusters.to_string(),
                c.groups.to_string(),
                per_level.join(" / "),
                size(c.table_bytes),
                format!("{} ({})", size(c.topology_bytes), c.topology),
            ]);
        }
    }
    let materials = doc.table("material tables", &["file", "size", "materials"]);
    for f in files.iter().filter(of(&hmat::FORMAT)) {
        materials.row(vec![f.path.clone(), size(f.bytes), opt(f.materials)]);
    }
    let textures = doc.table("textures", &["file", "size", "image", "GPU memory"]);
    for f in files.iter().filter(of(&ktx2::FORMAT)) {
        textures.row(vec![
            f.path.clone(),
            size(f.bytes),
            f.texture.clone().unwrap_or_default(),
            f.gpu_bytes.map_or_else(String::new, size),
        ]);
    }
    let clips = doc.table("animations", &["file", "size", "joints animated", "clips"]);
    for f in files.iter().filter(of(&hanim::FORMAT)) {
        clips.row(vec![
            f.path.clone(),
            size(f.bytes),
            opt(f.joints),
            opt(f.clips),
        ]);
    }
    let fonts = doc.table("fonts", &["file", "size", "font"]);
    for f in files.iter().filter(of(&hfont::FORMAT)) {
        fonts.row(vec![
            f.path.clone(),
            size(f.bytes),
            f.font.clone().unwrap_or_default(),
        ]);
    }
    let shaders = doc.table(
        "shaders",
        &["file", "size", "SPIR-V", "words", "entry points"],
    );
    for f in files.iter().filter(of(&spirv::FORMAT)) {
        shaders.row(vec![
            f.path.clone(),
            size(f.bytes),
            f.spirv_version.clone().unwrap_or_default(),
            opt(f.spirv_words),
            f.entry_points.join(", "),
        ]);
    }
    let wgsl_shaders = doc.table("WGSL shaders", &["file", "size", "entry points"]);
    for f in files.iter().filter(of(&wgsl::FORMAT)) {
        wgsl_shaders.row(vec![
            f.path.clone(),
            size(f.bytes),
            f.entry_points.join(", "),
        ]);
    }
    let sounds = doc.table("sounds", &["file", "size", "audio"]);
    for f in files
        .iter()
        .filter(|f| of(&wav::FORMAT)(f) || of(&vorbis::FORMAT)(f))
    {
        sounds.row(vec![
            f.path.clone(),
            size(f.bytes),
            f.audio.clone().unwrap_or_default(),
        ]);
    }
    let other = doc.table("other files", &["file", "size"]);
    for f in files
        .iter()
        .filter(|f| !WITH_A_TABLE.iter().any(|&format| of(format)(f)))
    {
        other.row(vec![f.path.clone(), size(f.bytes)]);
    }
    let by_source = doc.table("sources", &["source", "source size", "output size"]);
    for s in sources {
        by_source.row(vec![
            s.source.clone(),
            size(s.source_bytes),
            size(s.output_bytes),
        ]);
    }
    for f in files {
        if let Some(e) = &f.error {
            doc.warnings.push(format!("{}: {e}", f.path));
        }
    }
    doc
}
