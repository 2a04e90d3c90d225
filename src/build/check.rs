//! `assetc check`: every file of a compiled tree validates, and the files agree with each
//! other: the manifest lists every runtime file and every entry exists, texture refs
//! resolve through the manifest to a texture of that id, each `.hmat` has one row per
//! material slot of its `.hmesh`, and each `.hanim` animates joints its skeleton has.

use super::manifest::MANIFEST_NAME;
use super::verify::verify_tree;
use crate::formats::hman::{self, EntryKind};
use crate::formats::{hanim, hmat, hmesh};
use std::collections::BTreeMap;
use std::path::Path;

/// One line per problem, each naming the file.
pub fn check_tree(root: &Path) -> Vec<String> {
    let mut problems = verify_tree(root);
    let manifest_path = root.join(MANIFEST_NAME);
    let manifest = match std::fs::read(&manifest_path)
        .map_err(|e| e.to_string())
        .and_then(|b| hman::read(&b).map_err(|e| e.to_string()))
    {
        Ok(m) => m,
        Err(e) => {
            problems.push(format!("{}: {e}", manifest_path.display()));
            return problems;
        }
    };
    let by_hash: BTreeMap<u64, &hman::ManifestEntry> =
        manifest.entries().iter().map(|e| (e.hash, e)).collect();
    for e in manifest.entries() {
        if !root.join(&e.path).is_file() {
            problems.push(format!(
                "{}: entry {:016x} points at {}, which does not exist",
                manifest_path.display(),
                e.hash,
                e.path
            ));
        }
        if e.kind == EntryKind::Texture && e.path != super::asset::texture_rel_path(e.hash) {
            problems.push(format!(
                "{}: texture {:016x} is listed as {}, not tex/<id>.ktx2",
                manifest_path.display(),
                e.hash,
                e.path
            ));
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
        if !matches!(ext, "hmesh" | "hmat" | "hanim" | "ktx2") {
            continue;
        }
        let listed = match ext {
            "ktx2" => rel
                .strip_prefix("tex/")
                .and_then(|n| n.strip_suffix(".ktx2"))
                .and_then(|h| u64::from_str_radix(h, 16).ok()),
            _ => Some(hman::id_for_path(&rel)),
        };
        if listed
            .and_then(|h| by_hash.get(&h))
            .is_none_or(|e| e.path != rel)
        {
            problems.push(format!("{}: not listed in {MANIFEST_NAME}", path.display()));
        }
        match ext {
            "hmat" => problems.extend(check_material_table(root, path, &rel, &by_hash)),
            "hanim" => problems.extend(check_clips(path)),
            _ => {}
        }
    }
    problems
}

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
    match companion_mesh(path).and_then(|b| {
        hmesh::HMeshView::parse(&b)
            .map(|v| v.desc.material_count)
            .map_err(|e| e.to_string())
    }) {
        Ok(count) if count as usize != table.materials.len() => problems.push(format!(
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

fn check_clips(path: &Path) -> Vec<String> {
    let joints = companion_mesh(path).and_then(|b| {
        hmesh::HMeshView::parse(&b)
            .map_err(|e| e.to_string())
            .map(|v| v.skin.as_ref().map(|s| s.joints.len() as u32))
    });
    match (std::fs::read(path), joints) {
        (Ok(bytes), Ok(Some(count))) => hanim::validate(&bytes, Some(count))
            .into_iter()
            .map(|p| format!("{}: {p}", path.display()))
            .collect(),
        (Ok(_), Ok(None)) => vec![format!("{}: its mesh has no skeleton", path.display())],
        (Err(e), _) => vec![format!("{}: {e}", path.display())],
        (_, Err(e)) => vec![e],
    }
}
