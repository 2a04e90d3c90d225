//! `<file>.meta.toml`: the settings of one source, written beside it (`hero_normal.png` ->
//! `hero_normal.png.meta.toml`, as Bevy keeps `<file>.meta` beside an asset).
//!
//! Its tables are build.toml's (`[texture] mode = "normal"`), limited to those the
//! source's kind reads, and they are overlaid last: after the top-level tables, the preset
//! and the rules. The settings it makes are a part of the asset's key, so editing it
//! rebuilds that asset alone and deleting it restores what build.toml says. It is read
//! under the input-root rule, and a mistake in it fails its asset alone, at its line and
//! column, like one in build.toml.

use super::error::ConfigError;
use super::tables::settings_layer;
use crate::import::input_root::resolve_below;
use crate::kinds::asset::AssetSettings;
use crate::kinds::tables::{tables_of_kinds, with_settings_tables};
use crate::kinds::AssetKind;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// What a settings file's name ends with.
pub const META_SUFFIX: &str = ".meta.toml";

/// A `.meta.toml` holds a few keys; one past this is not a settings file.
const MAX_META_BYTES: u64 = 1 << 20;

with_settings_tables!(settings_layer! {
    /// The tables of a `<file>.meta.toml`.
    #[derive(Debug, Clone, Default, Deserialize)]
    #[serde(deny_unknown_fields)]
    MetaFile {}
});

/// Whether a file is the settings of another (`<file>.meta.toml`): never a source of its
/// own, never reported as ignored.
pub fn is_meta_file(file_name: &str) -> bool {
    file_name.len() > META_SUFFIX.len()
        && file_name
            .get(file_name.len() - META_SUFFIX.len()..)
            .is_some_and(|end| end.eq_ignore_ascii_case(META_SUFFIX))
}

/// The settings file of the source at `rel_path` (relative to the input root).
pub fn meta_rel_path(rel_path: &str) -> String {
    format!("{rel_path}{META_SUFFIX}")
}

/// Overlays the `.meta.toml` of the source `rel_path` of kind `kind` (below
/// `input_root`) on `settings`. The caller knows the file is there (the build's walk saw
/// it); one removed since is no settings.
pub fn apply_meta(
    input_root: &Path,
    rel_path: &str,
    kind: &AssetKind,
    settings: &mut AssetSettings,
) -> Result<(), ConfigError> {
    let rel = meta_rel_path(rel_path);
    let shown = input_root.join(&rel);
    let path = resolve_below(input_root, input_root, Path::new(&rel))
        .map_err(|e| ConfigError::new(&shown, format!("refused: {e}")))?;
    let Some(text) = read_meta(&path, &shown)? else {
        return Ok(());
    };
    let meta = parse_meta(&text, &shown, kind)?;
    meta.apply_tables(settings)
        .map_err(|e| ConfigError::new(&shown, e.to_string()))
}

/// The file's text, `None` when it is gone.
fn read_meta(path: &Path, shown: &Path) -> Result<Option<String>, ConfigError> {
    let cannot_read = |e: std::io::Error| ConfigError::new(shown, format!("cannot read: {e}"));
    let size = match std::fs::metadata(path) {
        Ok(m) => m.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot_read(e)),
    };
    if size > MAX_META_BYTES {
        return Err(ConfigError::new(
            shown,
            format!("{size} bytes is too large for a settings file (at most {MAX_META_BYTES})"),
        ));
    }
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(cannot_read(e)),
    }
}

/// Parses a `.meta.toml` beside a source of kind `kind`: every key checked where it
/// stands, and every table one the kind reads.
pub fn parse_meta(text: &str, file: &Path, kind: &AssetKind) -> Result<MetaFile, ConfigError> {
    let meta: MetaFile =
        toml::from_str(text).map_err(|e| ConfigError::from_toml(file, text, &e))?;
    meta.check_tables(file, text)?;
    let read = crate::kinds::key::tables_read(kind);
    for (table, first_key) in meta.tables_set() {
        if read.iter().any(|r| r == table) {
            continue;
        }
        let at = super::error::key_offset(text, first_key, table).unwrap_or(first_key);
        let message = match read.as_slice() {
            [] => format!(
                "[{table}]: a {} source reads no settings table; this file sets nothing it uses",
                kind.name
            ),
            _ => format!(
                "[{table}] is not read by a {} source (it reads {})",
                kind.name,
                read.iter()
                    .map(|r| format!("[{r}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        return Err(ConfigError::at(file, text, at, message));
    }
    Ok(meta)
}

/// The settings files below an input root that a build's walk found, by the relative
/// path of the source they belong to.
#[derive(Debug, Clone, Default)]
pub struct MetaFiles {
    pub root: PathBuf,
    pub sources: std::collections::HashSet<String>,
}

impl MetaFiles {
    /// Overlays the settings file of `rel_path`, when it has one, on `settings`.
    pub fn apply(
        &self,
        rel_path: &str,
        kind: &AssetKind,
        settings: &mut AssetSettings,
    ) -> Result<(), ConfigError> {
        if !self.sources.contains(rel_path) {
            return Ok(());
        }
        apply_meta(&self.root, rel_path, kind, settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::{kind, KindId};

    fn parse(text: &str, id: KindId) -> Result<MetaFile, ConfigError> {
        parse_meta(text, Path::new("a.png.meta.toml"), kind(id))
    }

    #[test]
    fn settings_files_are_named_after_their_source() {
        assert!(is_meta_file("hero_normal.png.meta.toml"));
        assert!(is_meta_file("Hero.PNG.META.TOML"));
        assert!(!is_meta_file(".meta.toml"));
        assert!(!is_meta_file("build.toml"));
        assert!(!is_meta_file("hero.meta"));
        assert_eq!(meta_rel_path("ui/a.png"), "ui/a.png.meta.toml");
    }

    #[test]
    fn a_texture_table_overlays_the_settings_built_so_far() {
        let meta = parse("[texture]\nmode = \"normal\"\n", KindId::Texture).unwrap();
        let mut s = AssetSettings::default();
        s.texture.mipmaps = false;
        meta.apply_tables(&mut s).unwrap();
        let normal: crate::pipeline::textures::TextureMode =
            toml::Value::String("normal".into()).try_into().unwrap();
        assert_eq!(s.texture.mode, Some(normal));
        assert!(!s.texture.mipmaps, "a key the file does not set is kept");
    }

    #[test]
    fn a_misspelt_key_is_placed_and_the_nearest_one_suggested() {
        let err = parse("# hero\n[texture]\n  moed = \"normal\"\n", KindId::Texture).unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(3)), "{err}");
        assert!(err.message.contains("did you mean `mode`?"), "{err}");
        let err = parse("[texture]\nmipmaps = 3\n", KindId::Texture).unwrap_err();
        assert_eq!((err.line, err.column), (Some(2), Some(11)), "{err}");
        assert!(err.message.contains("expected true or false"), "{err}");
        let err = parse("[textur]\nmipmaps = true\n", KindId::Texture).unwrap_err();
        assert!(err.message.contains("did you mean `texture`?"), "{err}");
    }

    /// Seeded mutations of a settings file through the parser, for every kind: each case
    /// is read or refused with a place inside the text, and one that is read applies to
    /// the settings without an error the parser should have given.
    #[test]
    fn mutated_settings_files_are_read_or_placed_never_panic() {
        let seed = "# hero's own settings\n[texture]\nmode = \"normal\"\nmipmaps = false\n\
                    max_size = 1024\nformat = \"bc7\"\n[mesh]\noptimize = false\n";
        let pieces = [
            "[",
            "]",
            "=",
            "\"",
            "'''",
            "\n",
            "[[texture]]",
            "[texture.x]",
            "mode",
            "1e999",
            "-1",
            "inf",
            "nan",
            "{a = 1}",
            "[1, \"a\"]",
            "é",
            "\\u{0}",
            "#",
            "max_size = 4294967296\n",
            "format = \"bc8\"\n",
            "2026-12-07",
        ];
        let mut state = 0x0dd5_eed5_u64;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let (mut read, mut refused) = (0, 0);
        for case in 0..2_000 {
            let mut text = seed.to_string();
            for _ in 0..1 + next() % 4 {
                let mut at = (next() % (text.len() as u64 + 1)) as usize;
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                if next() % 3 == 0 {
                    let mut end = (at + (next() % 12) as usize).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(at..end, "");
                } else {
                    text.insert_str(at, pieces[(next() % pieces.len() as u64) as usize]);
                }
            }
            for id in [KindId::Texture, KindId::Model, KindId::Audio] {
                match parse(&text, id) {
                    Ok(meta) => {
                        read += 1;
                        let mut settings = AssetSettings::default();
                        // Values are checked when applied (a format name, a size): an
                        // error there is a refusal too, never a panic.
                        let _ = meta.apply_tables(&mut settings);
                    }
                    Err(e) => {
                        refused += 1;
                        let lines = text.lines().count().max(1) + 1;
                        if let Some(line) = e.line {
                            assert!((1..=lines).contains(&line), "case {case}: {e}\n{text}");
                        }
                        assert!(!e.message.is_empty(), "case {case}");
                    }
                }
            }
        }
        assert!(
            read > 100 && refused > 1_000,
            "{read} read, {refused} refused"
        );
    }

    #[test]
    fn a_table_the_kind_does_not_read_is_refused_where_it_is_written() {
        let err = parse("\n[mesh]\noptimize = false\n", KindId::Texture).unwrap_err();
        assert_eq!((err.line, err.column), (Some(2), Some(2)), "{err}");
        assert!(err.message.contains("reads [texture]"), "{err}");
        // A model reads its images' table and each target's.
        parse(
            "[texture]\nmipmaps = false\n[mesh]\noptimize = false\n[qtmesh]\n",
            KindId::Model,
        )
        .unwrap();
        let err = parse("[texture]\nmipmaps = false\n", KindId::Lut).unwrap_err();
        assert!(err.message.contains("reads no settings table"), "{err}");
    }
}
