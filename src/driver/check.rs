//! `assetc check`: every file of a compiled tree validates, and the files agree with each
//! other: the manifest lists every runtime file and every entry exists, texture refs
//! resolve through the manifest to a texture of that id, each `.hmat` has one row per
//! material slot of its `.hmesh`, each `.hanim` animates joints its skeleton has, each
//! `.hfont`'s atlasTex resolves to a texture of the header's atlas size, and
//! (manifest v2) every listed file has the size and XXH3-64 digest the manifest records.
//!
//! Each damaged file is reported once, by the validator pass (`verify_tree`): the
//! cross-file checks skip a companion that does not parse instead of repeating its error.
//!
//! The cross-file rules ([`cross_file_problems`]) see a tree through [`TreeView`]: the
//! files on disk here, one fetched asset's files in memory for the remote cache, so an
//! asset built elsewhere is held to exactly the rules `check` applies.

use super::manifest::MANIFEST_NAME;
use super::verify::{verify_tree, TreeProblem};
use crate::formats::hman::{self, EntryKind, FileStamp, ManifestEntry};
use crate::formats::{hanim, hfont, hmat, hmesh, ktx2};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The runtime files the manifest must list, by extension.
pub const RUNTIME_EXTENSIONS: [&str; 5] = ["hmesh", "hmat", "hanim", "ktx2", "hfont"];

/// A tree's files as the cross-file rules see them, by `/`-separated relative path.
pub trait TreeView {
    /// The file's bytes; the error says why it cannot be read.
    fn read(&self, rel: &str) -> Result<Cow<'_, [u8]>, TreeReadError>;
    fn is_file(&self, rel: &str) -> bool;
    /// How messages name the file.
    fn display(&self, rel: &str) -> String;
}

/// Why a file of a [`TreeView`] cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TreeReadError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("not among the asset's files")]
    NotInAsset,
}

/// An output folder on disk.
pub struct DiskTree<'a>(pub &'a Path);

impl TreeView for DiskTree<'_> {
    fn read(&self, rel: &str) -> Result<Cow<'_, [u8]>, TreeReadError> {
        Ok(Cow::Owned(std::fs::read(self.0.join(rel))?))
    }
    fn is_file(&self, rel: &str) -> bool {
        self.0.join(rel).is_file()
    }
    fn display(&self, rel: &str) -> String {
        self.0.join(rel).display().to_string()
    }
}

/// One asset's files in memory (a fetched asset before anything is written).
pub struct MemoryTree<'a> {
    pub files: &'a [(String, Vec<u8>)],
}

impl TreeView for MemoryTree<'_> {
    fn read(&self, rel: &str) -> Result<Cow<'_, [u8]>, TreeReadError> {
        self.files
            .iter()
            .find(|(r, _)| r == rel)
            .map(|(_, b)| Cow::Borrowed(b.as_slice()))
            .ok_or(TreeReadError::NotInAsset)
    }
    fn is_file(&self, rel: &str) -> bool {
        self.files.iter().any(|(r, _)| r == rel)
    }
    fn display(&self, rel: &str) -> String {
        rel.to_string()
    }
}

/// One line per problem, each naming the file.
pub fn check_tree(root: &Path) -> Vec<TreeProblem> {
    let mut problems = verify_tree(root);
    let manifest_path = root.join(MANIFEST_NAME);
    let manifest = match std::fs::read(&manifest_path) {
        // A manifest that does not read breaks a rule hman::validate reported above.
        Ok(b) => match hman::read(&b) {
            Ok(m) => m,
            Err(_) => return problems,
        },
        Err(e) => {
            problems.push(TreeProblem::new(manifest_path.display().to_string(), e));
            return problems;
        }
    };
    let mut runtime = Vec::new();
    for entry in walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if RUNTIME_EXTENSIONS.contains(&ext) {
            runtime.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    let reported: BTreeSet<String> = problems.iter().map(|p| p.file.clone()).collect();
    let found = cross_file_problems(
        &DiskTree(root),
        manifest.entries(),
        &runtime,
        &mut |e: &ManifestEntry| {
            let recorded = e.file?;
            let file = root.join(&e.path);
            // A file the validator pass already reported (e.g. truncated) is reported once.
            if reported.contains(&file.display().to_string()) {
                return None;
            }
            check_stamp(&file, recorded)
        },
    );
    problems.extend(found);
    problems
}

/// The rules between the files of a tree (or of one asset): every manifest entry names a
/// file of the tree, every runtime file (`runtime`, in the order given) is listed, each
/// `.hmat` agrees with its `.hmesh` and resolves its texture refs through `entries`, each
/// `.hanim` fits its skeleton. `on_listed` adds problems of each entry whose file exists
/// (`check` compares sizes and digests there).
pub fn cross_file_problems(
    tree: &dyn TreeView,
    entries: &[ManifestEntry],
    runtime: &[String],
    on_listed: &mut dyn FnMut(&ManifestEntry) -> Option<TreeProblem>,
) -> Vec<TreeProblem> {
    let mut problems = Vec::new();
    let by_hash: BTreeMap<u64, &ManifestEntry> = entries.iter().map(|e| (e.hash, e)).collect();
    let listed_paths: BTreeSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    for e in entries {
        if !tree.is_file(&e.path) {
            problems.push(TreeProblem::new(
                tree.display(MANIFEST_NAME),
                format!(
                    "entry {:016x} points at {}, which does not exist",
                    e.hash, e.path
                ),
            ));
        } else {
            problems.extend(on_listed(e));
        }
    }
    for rel in runtime {
        let ext = rel.rsplit_once('.').map_or("", |(_, e)| e);
        if !listed_paths.contains(rel.as_str()) {
            problems.push(TreeProblem::new(
                tree.display(rel),
                format!("not listed in {MANIFEST_NAME}"),
            ));
        }
        match ext {
            "hmat" => problems.extend(check_material_table(tree, rel, &by_hash)),
            "hanim" => problems.extend(check_clips(tree, rel)),
            "hfont" => problems.extend(check_font_atlas(tree, rel, &by_hash)),
            _ => {}
        }
    }
    problems
}

/// The rules one asset fetched from a remote cache must pass before any of its files is
/// written: its manifest entries obey the `.hman` contract on their own (known kind, a
/// plain path, the id that path or content gives, no two entries on one id or path), and
/// its files pass [`cross_file_problems`] among themselves. One line per problem.
pub fn asset_problems(files: &[(String, Vec<u8>)], entries: &[ManifestEntry]) -> Vec<TreeProblem> {
    let mut problems = Vec::new();
    // Version 1 needs no file stamps (a record carries none) and has the same rules.
    match hman::Manifest::from_entries(entries.to_vec()).and_then(|m| hman::write_version(&m, 1)) {
        Ok(bytes) => problems.extend(
            hman::validate(&bytes)
                .into_iter()
                .map(|p| TreeProblem::new(MANIFEST_NAME, p)),
        ),
        Err(e) => problems.push(TreeProblem::new(MANIFEST_NAME, e)),
    }
    let runtime: Vec<String> = files
        .iter()
        .map(|(rel, _)| rel)
        .filter(|rel| {
            rel.rsplit_once('.')
                .is_some_and(|(_, e)| RUNTIME_EXTENSIONS.contains(&e))
        })
        .cloned()
        .collect();
    problems.extend(cross_file_problems(
        &MemoryTree { files },
        entries,
        &runtime,
        &mut |_| None,
    ));
    problems
}

/// The version of the tree's `assets.hman`, when it reads.
pub fn manifest_version(root: &Path) -> Option<u32> {
    let bytes = std::fs::read(root.join(MANIFEST_NAME)).ok()?;
    Some(hman::read(&bytes).ok()?.version())
}

/// The file's size and digest against the manifest's record.
fn check_stamp(path: &Path, recorded: FileStamp) -> Option<TreeProblem> {
    let shown = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Some(TreeProblem::new(shown, e)),
    };
    let found = FileStamp::of(&bytes);
    if found.size != recorded.size {
        Some(TreeProblem::new(
            shown,
            format!(
                "is {} bytes but {MANIFEST_NAME} records {} (truncated or replaced)",
                found.size, recorded.size
            ),
        ))
    } else if found.digest != recorded.digest {
        Some(TreeProblem::new(
            shown,
            format!(
                "content differs from what {MANIFEST_NAME} records (XXH3-64 {:016x}, recorded {:016x})",
                found.digest, recorded.digest
            ),
        ))
    } else {
        None
    }
}

/// The companion mesh's bytes; an unreadable one is reported here, one that does not
/// parse is left to the validator pass (`Ok(None)` from the callers' parse).
fn companion_mesh<'t>(
    tree: &'t dyn TreeView,
    rel: &str,
) -> Result<Cow<'t, [u8]>, CompanionUnreadable> {
    let stem = rel.rsplit_once('.').map_or(rel, |(s, _)| s);
    let mesh_rel = format!("{stem}.hmesh");
    tree.read(&mesh_rel).map_err(|source| CompanionUnreadable {
        file: tree.display(rel),
        mesh: tree.display(&mesh_rel),
        source,
    })
}

/// A material table's or clip file's mesh that cannot be read (a problem of the tree).
#[derive(Debug, thiserror::Error)]
#[error("its mesh {mesh} cannot be read: {source}")]
struct CompanionUnreadable {
    file: String,
    mesh: String,
    source: TreeReadError,
}

fn check_material_table(
    tree: &dyn TreeView,
    rel: &str,
    by_hash: &BTreeMap<u64, &ManifestEntry>,
) -> Vec<TreeProblem> {
    let mut problems = Vec::new();
    let shown = tree.display(rel);
    let Ok(Ok(table)) = tree.read(rel).map(|b| hmat::read(&b)) else {
        return problems; // verify_tree already reported it
    };
    // A mesh that does not parse was reported by verify_tree, with its name.
    match companion_mesh(tree, rel).map(|b| {
        hmesh::HMeshView::parse(&b)
            .map(|v| v.desc.material_count)
            .ok()
    }) {
        Ok(Some(count)) if count as usize != table.materials.len() => {
            problems.push(TreeProblem::new(
                &shown,
                format!(
                    "{} rows but its mesh has {count} material slots",
                    table.materials.len()
                ),
            ))
        }
        Ok(_) => {}
        Err(e) => problems.push(TreeProblem::new(e.file.clone(), e)),
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
                Some(e) if e.kind == EntryKind::Texture && tree.is_file(&e.path) => {}
                Some(e) => problems.push(TreeProblem::new(
                    &shown,
                    format!(
                        "row {row} {slot} {id:016x} resolves to {} which is not an existing texture",
                        e.path
                    ),
                )),
                None => problems.push(TreeProblem::new(
                    &shown,
                    format!("row {row} {slot} {id:016x} is not in the manifest"),
                )),
            }
        }
    }
    problems
}

/// The `.hfont`'s atlasTex names, through the manifest, a texture of its atlas size.
fn check_font_atlas(
    tree: &dyn TreeView,
    rel: &str,
    by_hash: &BTreeMap<u64, &ManifestEntry>,
) -> Option<TreeProblem> {
    // A font that does not read was reported by the validator pass.
    let font = hfont::read(&tree.read(rel).ok()?).ok()?;
    let (id, h) = (font.header.atlas_tex, &font.header);
    let shown = tree.display(rel);
    let entry = match by_hash.get(&id) {
        Some(e) if e.kind == EntryKind::Texture => e,
        Some(e) => {
            return Some(TreeProblem::new(
                shown,
                format!(
                    "atlasTex {id:016x} resolves to {}, which is not a texture",
                    e.path
                ),
            ))
        }
        None => {
            return Some(TreeProblem::new(
                shown,
                format!("atlasTex {id:016x} is not in the manifest"),
            ))
        }
    };
    // A missing or damaged atlas is reported by the manifest and validator passes.
    let atlas = ktx2::read_with(
        &tree.read(&entry.path).ok()?,
        &ktx2::ReadOptions::layout_only(),
    )
    .ok()?;
    let size = (u32::from(h.atlas_width), u32::from(h.atlas_height));
    (size != (atlas.width, atlas.height)).then(|| {
        TreeProblem::new(
            shown,
            format!(
                "its atlas {} is {}x{}, not the {}x{} the header says",
                entry.path, atlas.width, atlas.height, size.0, size.1
            ),
        )
    })
}

fn check_clips(tree: &dyn TreeView, rel: &str) -> Vec<TreeProblem> {
    // A mesh that does not parse (Ok(None)) was reported by verify_tree, with its name.
    let joints = companion_mesh(tree, rel).map(|b| {
        hmesh::HMeshView::parse(&b)
            .ok()
            .map(|v| v.skin.as_ref().map(|s| s.joints.len() as u32))
    });
    let Ok(bytes) = tree.read(rel) else {
        return Vec::new(); // verify_tree already reported it
    };
    // The validator pass checked the clips alone; only the joint range is new here, so
    // keep just the problems that the skeleton adds.
    let alone = hanim::validate(&bytes, None);
    match joints {
        Ok(Some(Some(count))) => hanim::validate(&bytes, Some(count))
            .into_iter()
            .filter(|p| !alone.contains(p))
            .map(|p| TreeProblem::new(tree.display(rel), p))
            .collect(),
        Ok(Some(None)) => vec![TreeProblem::new(
            tree.display(rel),
            "its mesh has no skeleton",
        )],
        Ok(None) => Vec::new(),
        Err(e) => vec![TreeProblem::new(e.file.clone(), e)],
    }
}
