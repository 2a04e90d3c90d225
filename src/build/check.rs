//! `assetc check`: every file of a compiled tree validates, and the files agree with each
//! other: the manifest lists every runtime file and every entry exists, texture refs
//! resolve through the manifest to a texture of that id, each `.hmat` has one row per
//! material slot of its `.hmesh`, each `.hanim` animates joints its skeleton has, each
//! `.hfont`'s atlasTex resolves to a texture of the header's atlas size, and
//! (manifest v2) every listed file has the size and XXH3-64 digest the manifest records.
//!
//! Each damaged file is reported once, by the validator pass (`verify_tree`): the
//! cross-file checks skip a companion that does not parse instead of repeating its error.

use super::manifest::MANIFEST_NAME;
use super::verify::verify_tree;
use crate::formats::hman::{self, EntryKind, FileStamp};
use crate::formats::{hanim, hfont, hmat, hmesh, ktx2};
use std::collections::BTreeMap;
use std::path::Path;

/// One line per problem, each naming the file.
pub fn check_tree(root: &Path) -> Vec<String> {
    let mut problems = verify_tree(root);
    let manifest_path = root.join(MANIFEST_NAME);
    let manifest = match std::fs::read(&manifest_path) {
        // A manifest that does not read breaks a rule hman::validate reported above.
        Ok(b) => match hman::read(&b) {
            Ok(m) => m,
            Err(_) => return problems,
        },
        Err(e) => {
            problems.push(format!("{}: {e}", manifest_path.display()));
            return problems;
        }
    };
    let by_hash: BTreeMap<u64, &hman::ManifestEntry> =
        manifest.entries().iter().map(|e| (e.hash, e)).collect();
    let listed_paths: std::collections::BTreeSet<&str> =
        manifest.entries().iter().map(|e| e.path.as_str()).collect();
    for e in manifest.entries() {
        let file = root.join(&e.path);
        if !file.is_file() {
            problems.push(format!(
                "{}: entry {:016x} points at {}, which does not exist",
                manifest_path.display(),
                e.hash,
                e.path
            ));
        } else if let Some(recorded) = e.file {
            // A file the validator pass already reported (e.g. truncated) is reported once.
            let prefix = format!("{}:", file.display());
            if !problems.iter().any(|p| p.starts_with(&prefix)) {
                problems.extend(check_stamp(&file, recorded));
            }
        }
    }
    for entry in walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(ext, "hmesh" | "hmat" | "hanim" | "ktx2" | "hfont") {
            continue;
        }
        if !listed_paths.contains(rel.as_str()) {
            problems.push(format!("{}: not listed in {MANIFEST_NAME}", path.display()));
        }
        match ext {
            "hmat" => problems.extend(check_material_table(root, path, &rel, &by_hash)),
            "hanim" => problems.extend(check_clips(path)),
            "hfont" => problems.extend(check_font_atlas(root, path, &by_hash)),
            _ => {}
        }
    }
    problems
}

/// The version of the tree's `assets.hman`, when it reads.
pub fn manifest_version(root: &Path) -> Option<u32> {
    let bytes = std::fs::read(root.join(MANIFEST_NAME)).ok()?;
    Some(hman::read(&bytes).ok()?.version())
}

/// The file's size and digest against the manifest's record.
fn check_stamp(path: &Path, recorded: FileStamp) -> Option<String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Some(format!("{}: {e}", path.display())),
    };
    let found = FileStamp::of(&bytes);
    if found.size != recorded.size {
        Some(format!(
            "{}: is {} bytes but {MANIFEST_NAME} records {} (truncated or replaced)",
            path.display(),
            found.size,
            recorded.size
        ))
    } else if found.digest != recorded.digest {
        Some(format!(
            "{}: content differs from what {MANIFEST_NAME} records (XXH3-64 {:016x}, recorded {:016x})",
            path.display(),
            found.digest,
            recorded.digest
        ))
    } else {
        None
    }
}

/// The companion mesh's bytes; an unreadable one is reported here, one that does not
/// parse is left to the validator pass (`Ok(None)` from the callers' parse).
fn companion_mesh(path: &Path) -> Result<Vec<u8>, String> {
    let mesh_path = path.with_extension("hmesh");
    std::fs::read(&mesh_path).map_err(|e| {
        format!(
            "{}: its mesh {} cannot be read: {e}",
            path.display(),
            mesh_path.display()
        )
    })
}

fn check_material_table(
    root: &Path,
    path: &Path,
    _rel: &str,
    by_hash: &BTreeMap<u64, &hman::ManifestEntry>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(table) = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|b| hmat::read(&b).map_err(|e| e.to_string()))
    else {
        return problems; // verify_tree already reported it
    };
    // A mesh that does not parse was reported by verify_tree, with its name.
    match companion_mesh(path).map(|b| {
        hmesh::HMeshView::parse(&b)
            .map(|v| v.desc.material_count)
            .ok()
    }) {
        Ok(Some(count)) if count as usize != table.materials.len() => problems.push(format!(
            "{}: {} rows but its mesh has {count} material slots",
            path.display(),
            table.materials.len()
        )),
        Ok(_) => {}
        Err(e) => problems.push(e),
    }
    for (row, m) in table.materials.iter().enumerate() {
        let refs = [
            ("baseColorTex", m.base_color_tex),
            ("metallicRoughnessTex", m.metallic_roughness_tex),
            ("normalTex", m.normal_tex),
            ("occlusionTex", m.occlusion_tex),
            ("emissiveTex", m.emissive_tex),
        ];
        for (slot, id) in refs.into_iter().filter(|(_, id)| *id != 0) {
            match by_hash.get(&id) {
                Some(e) if e.kind == EntryKind::Texture && root.join(&e.path).is_file() => {}
                Some(e) => problems.push(format!("{}: row {row} {slot} {id:016x} resolves to {} which is not an existing texture", path.display(), e.path)),
                None => problems.push(format!("{}: row {row} {slot} {id:016x} is not in the manifest", path.display())),
            }
        }
    }
    problems
}

/// The `.hfont`'s atlasTex names, through the manifest, a texture of its atlas size.
fn check_font_atlas(
    root: &Path,
    path: &Path,
    by_hash: &BTreeMap<u64, &hman::ManifestEntry>,
) -> Option<String> {
    // A font that does not read was reported by verify_tree.
    let font = hfont::read(&std::fs::read(path).ok()?).ok()?;
    let (id, h) = (font.header.atlas_tex, &font.header);
    let shown = path.display();
    let entry = match by_hash.get(&id) {
        Some(e) if e.kind == EntryKind::Texture => e,
        Some(e) => {
            return Some(format!(
                "{shown}: atlasTex {id:016x} resolves to {}, which is not a texture",
                e.path
            ))
        }
        None => {
            return Some(format!(
                "{shown}: atlasTex {id:016x} is not in the manifest"
            ))
        }
    };
    // A missing or damaged atlas is reported by the manifest and validator passes.
    let atlas = ktx2::read_with(
        &std::fs::read(root.join(&entry.path)).ok()?,
        &ktx2::ReadOptions::layout_only(),
    )
    .ok()?;
    let size = (u32::from(h.atlas_width), u32::from(h.atlas_height));
    (size != (atlas.width, atlas.height)).then(|| {
        format!(
            "{shown}: its atlas {} is {}x{}, not the {}x{} the header says",
            entry.path, atlas.width, atlas.height, size.0, size.1
        )
    })
}

fn check_clips(path: &Path) -> Vec<String> {
    // A mesh that does not parse (Ok(None)) was reported by verify_tree, with its name.
    let joints = companion_mesh(path).map(|b| {
        hmesh::HMeshView::parse(&b)
            .ok()
            .map(|v| v.skin.as_ref().map(|s| s.joints.len() as u32))
    });
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new(); // verify_tree already reported it
    };
    // The validator pass checked the clips alone; only the joint range is new here, so
    // keep just the problems that the skeleton adds.
    let alone = hanim::validate(&bytes, None);
    match joints {
        Ok(Some(Some(count))) => hanim::validate(&bytes, Some(count))
            .into_iter()
            .filter(|p| !alone.contains(p))
            .map(|p| format!("{}: {p}", path.display()))
            .collect(),
        Ok(Some(None)) => vec![format!("{}: its mesh has no skeleton", path.display())],
        Ok(None) => Vec::new(),
        Err(e) => vec![e],
    }
}
