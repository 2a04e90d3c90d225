//! Finding the sources of a build and naming their outputs.

use crate::config::meta::{is_meta_file, META_SUFFIX};
use crate::kinds::{self, KindId};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

pub use crate::kinds::source::{runtime_ref, Source};
pub use crate::targets::file_names::{fit_file_name, fit_ref, shorten_name, MAX_NAME_BYTES};

/// What a build is told about the tree besides the kinds' own names.
#[derive(Debug, Clone, Default)]
pub struct DiscoverRules {
    /// Top-level `embed` globs: matching files are copied as they are, unless another kind
    /// compiles them and no glob names them exactly ([`embed_wins`]).
    pub embed: globset::GlobSet,
    /// The `embed` patterns whose file-name part says more than a bare wildcard
    /// (`cube.gltf`, `raw/*.wav`; not `**`, `config/**` or `data/*`): they name which files
    /// they mean, so they win over the kind of those files ([`embed_wins`]).
    pub embed_named: globset::GlobSet,
    /// Rules with `ignore = true`: matching files are not compiled and not reported.
    pub ignore: globset::GlobSet,
    /// Folders never walked (the output folder when it lies inside the input).
    pub exclude: Vec<PathBuf>,
    /// build.toml's `keep_case`, given to every source found.
    pub keep_case: bool,
}

/// Every file below the root, sorted out.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// Sources of a kind, sorted by relative path.
    pub sources: Vec<Source>,
    /// Files no kind claims, not ignored by a rule (a model's buffers and images among
    /// them until [`Discovered::unclaimed`] takes those out).
    pub unclaimed: Vec<Source>,
    /// Files an `embed` wildcard matches that their own kind compiles instead
    /// ([`embed_wins`]), to warn about.
    pub embed_overruled: Vec<Source>,
    /// The relative paths of the files that have settings of their own beside them
    /// (`<file>.meta.toml`, itself neither a source nor unclaimed).
    pub with_meta: HashSet<String>,
}

impl Discovered {
    /// Takes out of the standalone sources and the unclaimed files every file a model
    /// uses (`used`, absolute and normalised): those are compiled with their model.
    pub fn without_model_inputs(&mut self, used: &HashSet<PathBuf>) {
        let working_dir = std::env::current_dir().ok();
        let keep = |s: &Source| {
            !used.contains(&normalized_absolute_from(
                working_dir.as_deref(),
                &s.abs_path,
            ))
        };
        self.sources
            .retain(|s| kinds::kind(s.kind).stands_alone() || keep(s));
        self.unclaimed.retain(keep);
        self.embed_overruled
            .retain(|s| kinds::kind(s.kind).stands_alone() || keep(s));
    }

    /// The unclaimed files counted by extension (lower-case, `(none)` without one), the
    /// most frequent first.
    pub fn unclaimed_by_extension(&self) -> Vec<(String, usize)> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for s in &self.unclaimed {
            let name = s.rel_path.rsplit('/').next().unwrap_or(&s.rel_path);
            let ext = match name.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() => format!(".{}", ext.to_ascii_lowercase()),
                _ => "(none)".to_string(),
            };
            *counts.entry(ext).or_default() += 1;
        }
        let mut list: Vec<(String, usize)> = counts.into_iter().collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        list
    }
}

/// Whether a file an `embed` glob matches is copied as it is rather than compiled by the
/// kind its name gives (`kind`). A file no kind compiles is embedded; one another kind
/// compiles is embedded only when a pattern names its files (`levels/cube.gltf`,
/// `raw/*.wav`). A bare wildcard (`**`, `data/*`) says "everything else as well", not
/// "this model, raw": copying `cube.gltf` raw because `**` also matched it silently drops
/// the compiled asset the engine loads.
pub fn embed_wins(rules: &DiscoverRules, rel_path: &str, kind: Option<KindId>) -> bool {
    rules.embed.is_match(rel_path) && (kind.is_none() || rules.embed_named.is_match(rel_path))
}

/// Whether an `embed` pattern names its files rather than only a folder: its last path
/// component is more than `*` and `**`.
pub fn names_its_files(pattern: &str) -> bool {
    let file_part = pattern.rsplit('/').next().unwrap_or(pattern);
    file_part.chars().any(|c| c != '*')
}

/// The warning for files an `embed` wildcard matches but their kind compiles, or None.
pub fn embed_overruled_summary(files: &[Source]) -> Option<String> {
    const NAMED: usize = 5;
    let first = files.first()?;
    let names: Vec<&str> = files
        .iter()
        .take(NAMED)
        .map(|s| s.rel_path.as_str())
        .collect();
    let more = files.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "an `embed` wildcard matches {} file{} another kind compiles; {} compiled, not \
         copied: {}{more} (name the files in `embed`, as \"{}\" or \"*.gltf\", to copy them as they are)",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if files.len() == 1 {
            "it is"
        } else {
            "they are"
        },
        names.join(", "),
        first.rel_path,
    ))
}

/// The settings files (`<file>.meta.toml`, relative paths) whose file is not one of
/// `sources`: an image a model uses (compiled with its model's settings), or a file that
/// is not there. Sorted, so the warning is the same on every run.
pub fn unused_settings_files(with_meta: &HashSet<String>, sources: &[Source]) -> Vec<String> {
    let compiled: HashSet<&str> = sources.iter().map(|s| s.rel_path.as_str()).collect();
    let mut unused: Vec<String> = with_meta
        .iter()
        .filter(|of| !compiled.contains(of.as_str()))
        .map(|of| format!("{of}{META_SUFFIX}"))
        .collect();
    unused.sort();
    unused
}

/// The one-line warning about settings files nothing reads, or None when there are none;
/// `is_file` tells a model's input (there, but not a source) from a missing file.
pub fn unused_settings_summary(files: &[String], is_file: impl Fn(&str) -> bool) -> Option<String> {
    if files.is_empty() {
        return None;
    }
    const SHOWN: usize = 5;
    let named: Vec<String> = files
        .iter()
        .take(SHOWN)
        .map(|meta| {
            let of = &meta[..meta.len() - META_SUFFIX.len()];
            if is_file(of) {
                format!(
                    "{meta} (an image or file a model uses: the model's settings apply; set \
                     them with a rule matching the model)"
                )
            } else {
                format!("{meta} ({of} is not there)")
            }
        })
        .collect();
    let more = match files.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{} settings file{} (.meta.toml) belong{} to no source of the build, so nothing reads {}: {}{more}",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if files.len() == 1 { "s" } else { "" },
        if files.len() == 1 { "it" } else { "them" },
        named.join(", "),
    ))
}

/// The one-line summary of unclaimed files, or None when there are none.
pub fn unclaimed_summary(by_extension: &[(String, usize)]) -> Option<String> {
    let total: usize = by_extension.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    let parts: Vec<String> = by_extension
        .iter()
        .map(|(ext, n)| format!("{n} {ext}"))
        .collect();
    Some(format!(
        "ignored {total} file{} that no kind compiles: {} (add an `embed` glob, or a rule with `ignore = true` to silence this)",
        if total == 1 { "" } else { "s" },
        parts.join(", ")
    ))
}

/// `path` made absolute and with `.`/`..` resolved lexically, as the importer names the
/// files a model reads.
pub fn normalized_absolute(path: &Path) -> PathBuf {
    normalized_absolute_from(std::env::current_dir().ok().as_deref(), path)
}

/// [`normalized_absolute`] against a working directory the caller looked up once (`None`:
/// unknown, relative paths stay relative): a build names every file its models read, and
/// a `getcwd` call for each was a measurable part of a no-op rebuild.
pub fn normalized_absolute_from(working_dir: Option<&Path>, path: &Path) -> PathBuf {
    let absolute = match working_dir {
        Some(dir) if path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    };
    // Its final length at most: pushing component by component would regrow it.
    let mut out = PathBuf::with_capacity(absolute.as_os_str().len());
    for c in absolute.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn relative_name(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    // A walked path is its folders' names and its own joined by the separator, which on
    // Unix is already `/`: its text is the name.
    if std::path::MAIN_SEPARATOR == '/' {
        return Some(rel.to_string_lossy().into_owned());
    }
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Sorts every file below `root` (or `root` itself when it is a file) into sources of a
/// kind and unclaimed files. Hidden files and folders (`.git`, `.DS_Store`) and the
/// excluded folders are not walked; a folder a kind owns (`sky.env/`) is one source and
/// is not walked further. Sorted by relative path so the build order never depends on
/// the file system.
pub fn discover(root: &Path, rules: &DiscoverRules) -> std::io::Result<Discovered> {
    let mut found = Discovered::default();
    if root.is_file() {
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let own_kind = kinds::kind_of_file(&name);
        let kind = if embed_wins(rules, &name, own_kind) {
            Some(kinds::embedded_kind())
        } else {
            own_kind
        };
        let mut meta = root.as_os_str().to_owned();
        meta.push(META_SUFFIX);
        if std::fs::symlink_metadata(&meta).is_ok() {
            found.with_meta.insert(name.clone());
        }
        let source = Source {
            rel_path: name,
            abs_path: root.to_path_buf(),
            kind: kind.unwrap_or_else(kinds::embedded_kind),
            keep_case: rules.keep_case,
        };
        if own_kind.is_some() && kind == own_kind && rules.embed.is_match(&source.rel_path) {
            found.embed_overruled.push(source.clone());
        }
        match kind {
            Some(_) => found.sources.push(source),
            None => found.unclaimed.push(source),
        }
        return Ok(found);
    }
    let excluded: Vec<PathBuf> = rules
        .exclude
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    // Not sorted while walked: the sources are sorted once at the end (walkdir's sort
    // parses each entry's path for its name on every comparison, 5% of a no-op
    // rebuild's instructions).
    let mut walk = walkdir::WalkDir::new(root).follow_links(false).into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.depth() == 0 {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        let Some(rel_path) = relative_name(root, entry.path()) else {
            continue;
        };
        let is_dir = entry.file_type().is_dir();
        if name.starts_with('.') || rules.ignore.is_match(&rel_path) {
            if is_dir {
                walk.skip_current_dir();
            }
            continue;
        }
        let source = |kind| Source {
            rel_path: rel_path.clone(),
            abs_path: entry.path().to_path_buf(),
            kind,
            keep_case: rules.keep_case,
        };
        if is_dir {
            if !excluded.is_empty()
                && std::fs::canonicalize(entry.path()).is_ok_and(|real| excluded.contains(&real))
            {
                walk.skip_current_dir();
            } else if let Some(kind) = kinds::kind_of_folder(&name) {
                found.sources.push(source(kind));
                walk.skip_current_dir();
            }
            continue;
        }
        // A link too: it is refused when read if it leads out of the input root, rather
        // than its source silently built without it.
        if is_meta_file(&name) {
            if let Some(of) = rel_path.get(..rel_path.len() - META_SUFFIX.len()) {
                found.with_meta.insert(of.to_string());
            }
            continue;
        }
        if !entry.file_type().is_file() {
            continue;
        }
        let own_kind = kinds::kind_of_file(&name);
        if embed_wins(rules, &rel_path, own_kind) {
            found.sources.push(source(kinds::embedded_kind()));
        } else if let Some(kind) = own_kind {
            if rules.embed.is_match(&rel_path) {
                found.embed_overruled.push(source(kind));
            }
            found.sources.push(source(kind));
        } else {
            found.unclaimed.push(source(kinds::embedded_kind()));
        }
    }
    found.sources.sort();
    found.unclaimed.sort();
    found.embed_overruled.sort();
    Ok(found)
}

/// Every model source below `root`: what `--help` used to call the sources. Kept for
/// callers that only care about models.
pub fn discover_sources(root: &Path) -> std::io::Result<Vec<Source>> {
    Ok(discover(root, &DiscoverRules::default())?.sources)
}

/// The root that source paths are relative to: the input folder, or a single file's folder.
pub fn input_root(input: &Path) -> PathBuf {
    if input.is_file() {
        input
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        input.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel_paths(list: &[Source]) -> Vec<(&str, KindId)> {
        list.iter().map(|s| (s.rel_path.as_str(), s.kind)).collect()
    }

    #[test]
    fn every_file_is_a_source_of_a_kind_or_unclaimed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("in");
        for f in [
            "m.env/px.png",
            "oned.lut.cube",
            "ui/Button.PNG",
            "levels/a.json",
            "notes.txt",
            ".git/config",
            "art/.hidden.png",
            "out/old.ktx2",
            "scene.gltf",
        ] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }
        let mut embed = globset::GlobSetBuilder::new();
        embed.add(globset::Glob::new("levels/*.json").unwrap());
        let rules = DiscoverRules {
            embed: embed.build().unwrap(),
            embed_named: globset::GlobSet::empty(),
            ignore: globset::GlobSet::empty(),
            exclude: vec![root.join("out")],
            keep_case: false,
        };
        let found = discover(&root, &rules).unwrap();
        assert_eq!(
            rel_paths(&found.sources),
            [
                ("levels/a.json", KindId::Embed),
                ("m.env", KindId::Cubemap),
                ("oned.lut.cube", KindId::Lut),
                ("scene.gltf", KindId::Model),
                ("ui/Button.PNG", KindId::Texture),
            ]
        );
        assert_eq!(rel_paths(&found.unclaimed), [("notes.txt", KindId::Embed)]);
        assert_eq!(found.unclaimed_by_extension(), [(".txt".to_string(), 1)]);
    }

    #[test]
    fn a_kind_wins_over_an_embed_wildcard_and_an_exact_name_wins_over_a_kind() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["cube.gltf", "raw/cube.gltf", "notes.txt", "ui/a.png"] {
            let path = dir.path().join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }
        let (mut embed, mut named) = (
            globset::GlobSetBuilder::new(),
            globset::GlobSetBuilder::new(),
        );
        for pattern in ["**", "raw/cube.gltf"] {
            embed.add(globset::Glob::new(pattern).unwrap());
            if names_its_files(pattern) {
                named.add(globset::Glob::new(pattern).unwrap());
            }
        }
        assert!(!names_its_files("**") && !names_its_files("config/**"));
        assert!(names_its_files("raw/*.wav") && names_its_files("cube.gltf"));
        let rules = DiscoverRules {
            embed: embed.build().unwrap(),
            embed_named: named.build().unwrap(),
            ..Default::default()
        };
        let found = discover(dir.path(), &rules).unwrap();
        assert_eq!(
            rel_paths(&found.sources),
            [
                ("cube.gltf", KindId::Model),
                ("notes.txt", KindId::Embed),
                ("raw/cube.gltf", KindId::Embed),
                ("ui/a.png", KindId::Texture),
            ]
        );
        assert_eq!(
            rel_paths(&found.embed_overruled),
            [("cube.gltf", KindId::Model), ("ui/a.png", KindId::Texture)]
        );
        let warning = embed_overruled_summary(&found.embed_overruled).unwrap();
        assert!(
            warning.contains("matches 2 files another kind compiles")
                && warning.contains("cube.gltf, ui/a.png")
                && warning.contains("as \"cube.gltf\""),
            "{warning}"
        );
        assert_eq!(embed_overruled_summary(&[]), None);
    }

    #[test]
    fn long_names_are_shortened_to_fit_with_their_extension() {
        let source = |rel: &str, kind| Source {
            rel_path: rel.into(),
            abs_path: PathBuf::from(rel),
            kind,
            keep_case: false,
        };
        // A legal 255-byte model name: `<ref>.hmesh` would have 256 bytes, and its
        // temporary sibling more.
        let name = format!("{}.gltf", "A".repeat(250));
        let model = source(&format!("dir/{name}"), KindId::Model);
        let reference = model.runtime_ref();
        let (dir, leaf) = reference.split_once('/').unwrap();
        assert_eq!(dir, "dir");
        assert_eq!(leaf.len() + ".hmesh".len(), MAX_NAME_BYTES);
        assert!(
            leaf.starts_with(&"a".repeat(MAX_NAME_BYTES - 6 - 17)),
            "{leaf}"
        );
        let hash = crate::formats::hash::fnv1a64_raw("a".repeat(250).as_bytes());
        assert!(leaf.ends_with(&format!("-{hash:016x}")), "{leaf}");
        assert_eq!(model.runtime_ref(), reference, "deterministic");
        // A texture of the same name needs one byte less room (`.ktx2`).
        let texture = source(&format!("{}.png", "b".repeat(251)), KindId::Texture);
        assert_eq!(texture.runtime_ref().len() + ".ktx2".len(), MAX_NAME_BYTES);
        // Names that fit are untouched, however long.
        let fits = format!("{}.gltf", "c".repeat(MAX_NAME_BYTES - 6));
        let reference = source(&fits, KindId::Model).runtime_ref();
        assert_eq!(reference, "c".repeat(MAX_NAME_BYTES - 6));
        // Lower-casing can lengthen a folder name past the limit (Ⱥ: 2 bytes, ⱥ: 3).
        let folder = "\u{23a}".repeat(120);
        let r = source(&format!("{folder}/x.gltf"), KindId::Model).runtime_ref();
        let first = r.split('/').next().unwrap();
        assert!(
            first.len() <= MAX_NAME_BYTES && first.starts_with('\u{2c65}'),
            "{r}"
        );
        assert!(r.ends_with("/x"));
    }

    #[test]
    fn file_names_keep_their_suffix_when_shortened() {
        assert_eq!(fit_file_name("a", ".png"), "a.png");
        let long = fit_file_name(&"m".repeat(300), "_mesh.mesh");
        assert_eq!(long.len(), MAX_NAME_BYTES);
        assert_eq!(long, fit_file_name(&"m".repeat(300), "_mesh.mesh"));
        assert!(long.ends_with("_mesh.mesh"));
        assert_ne!(
            long,
            fit_file_name(&format!("{}n", "m".repeat(299)), "_mesh.mesh")
        );
        let odd = fit_file_name("x", &".e".repeat(200));
        assert_eq!(odd.len(), MAX_NAME_BYTES);
    }

    #[test]
    fn runtime_ref_examples() {
        assert_eq!(runtime_ref("models/Chair.glb"), "models/chair");
        assert_eq!(runtime_ref("a.b/C"), "a.b/c");
        assert_eq!(runtime_ref("x\\Y.gltf"), "x/y");
    }
}
