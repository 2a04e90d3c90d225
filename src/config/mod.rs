//! `build.toml`: project settings, per-source rules and presets.
//!
//! Settings resolve in this order, later winning: built-in defaults, the top-level
//! `[mesh]`/`[texture]`/`[animation]` tables, the selected preset, every `[[rules]]` entry
//! whose `match` glob matches the source's path (in file order), then command-line flags.

mod suggest;

use crate::build::asset::{AssetSettings, Target};
use crate::build::{BuildOptions, SettingsRule};
use crate::pipeline::textures::TextureFormat;
use crate::targets::bmd1::Bmd1VertexEncoding;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use suggest::{edit_distance, nearest};

pub const CONFIG_NAME: &str = "build.toml";

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MeshSection {
    pub generate_normals: Option<bool>,
    pub generate_tangents: Option<bool>,
    pub normal_smoothing_angle: Option<f32>,
    pub weld_vertices: Option<bool>,
    pub weld_threshold: Option<f32>,
    pub optimize: Option<bool>,
    pub meshlet_max_vertices: Option<u32>,
    pub meshlet_max_triangles: Option<u32>,
    pub lod_ratios: Option<Vec<f32>>,
    pub lod_target_error: Option<f32>,
    pub bake_transforms: Option<bool>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TextureFormatName {
    Uastc,
    Bc7,
    Bc1,
    Bc3,
    Rgba8,
}

impl From<TextureFormatName> for TextureFormat {
    fn from(n: TextureFormatName) -> Self {
        match n {
            TextureFormatName::Uastc => TextureFormat::Uastc,
            TextureFormatName::Bc7 => TextureFormat::Bc7,
            TextureFormatName::Bc1 => TextureFormat::Bc1,
            TextureFormatName::Bc3 => TextureFormat::Bc3,
            TextureFormatName::Rgba8 => TextureFormat::Rgba8,
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TextureSection {
    pub format: Option<TextureFormatName>,
    pub max_size: Option<u32>,
    pub mipmaps: Option<bool>,
    pub quality: Option<f32>,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AnimationSection {
    pub import: Option<bool>,
    pub keyframe_reduction: Option<bool>,
    pub tolerance: Option<f32>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum Bmd1EncodingName {
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "64")]
    Bits64,
    #[serde(rename = "96")]
    Bits96,
    #[serde(rename = "128")]
    Bits128,
}

impl From<Bmd1EncodingName> for Bmd1VertexEncoding {
    fn from(n: Bmd1EncodingName) -> Self {
        match n {
            Bmd1EncodingName::Auto => Bmd1VertexEncoding::Auto,
            Bmd1EncodingName::Bits64 => Bmd1VertexEncoding::Bits64,
            Bmd1EncodingName::Bits96 => Bmd1VertexEncoding::Bits96,
            Bmd1EncodingName::Bits128 => Bmd1VertexEncoding::Bits128,
        }
    }
}

/// `[bmd1]`: the BGBTech3 target.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bmd1Section {
    pub vertex_encoding: Option<Bmd1EncodingName>,
    pub sample_rate_hz: Option<f32>,
    pub position_error: Option<f32>,
    pub uv_error: Option<f32>,
    pub compat: Option<crate::targets::bmd1::Bmd1Compat>,
}

/// `[qtmesh]`: the Qt Quick 3D target.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QtMeshSection {
    /// 7 (current Qt) or 5 (Qt 6.4 and older).
    pub mesh_version: Option<u16>,
    /// `qt612` (`<mesh>_mesh.mesh`) or `qt64` (`<mesh>.mesh`).
    pub naming: Option<QtNamingName>,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum QtNamingName {
    Qt612,
    Qt64,
}

/// Settings tables shared by the top level, presets and rules.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SettingsTables {
    #[serde(default)]
    pub mesh: MeshSection,
    #[serde(default)]
    pub texture: TextureSection,
    #[serde(default)]
    pub animation: AnimationSection,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Glob over the source path relative to the input folder (`characters/**/*.glb`).
    #[serde(rename = "match")]
    pub pattern: String,
    #[serde(default)]
    pub mesh: MeshSection,
    #[serde(default)]
    pub texture: TextureSection,
    #[serde(default)]
    pub animation: AnimationSection,
    #[serde(default)]
    pub bmd1: Bmd1Section,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub output: Option<PathBuf>,
    pub targets: Option<Vec<String>>,
    #[serde(default)]
    pub mesh: MeshSection,
    #[serde(default)]
    pub texture: TextureSection,
    #[serde(default)]
    pub animation: AnimationSection,
    #[serde(default)]
    pub bmd1: Bmd1Section,
}

/// The whole `build.toml`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub input: Option<PathBuf>,
    pub output: Option<PathBuf>,
    pub targets: Option<Vec<String>>,
    /// Bundle the output into an archive after the build (`"spk"`).
    pub pack: Option<String>,
    /// Write the HTML build report (`--report`).
    pub report: Option<bool>,
    #[serde(default)]
    pub mesh: MeshSection,
    #[serde(default)]
    pub texture: TextureSection,
    #[serde(default)]
    pub animation: AnimationSection,
    #[serde(default)]
    pub bmd1: Bmd1Section,
    #[serde(default)]
    pub qtmesh: QtMeshSection,
    #[serde(default)]
    pub rules: Vec<Rule>,
    #[serde(default)]
    pub presets: BTreeMap<String, Preset>,
    /// The folder the file was found in: relative paths in it are relative to this.
    #[serde(skip)]
    pub base_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Value { path: PathBuf, message: String },
}

/// Finds `build.toml` in `start` or its ancestors.
pub fn find_config(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    start
        .ancestors()
        .map(|d| d.join(CONFIG_NAME))
        .find(|p| p.is_file())
}

/// Reads and checks a config file.
pub fn load_config(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut config = parse_config(&text, path)?;
    config.base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Ok(config)
}

/// Parses config text; errors carry the line and column and, for misspelt names, the
/// nearest valid one.
pub fn parse_config(text: &str, path: &Path) -> Result<Config, ConfigError> {
    let config: Config = toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|s| line_column(text, s.start))
            .unwrap_or((1, 1));
        ConfigError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            message: with_suggestion(e.message()),
        }
    })?;
    let value_error = |message: String| ConfigError::Value {
        path: path.to_path_buf(),
        message,
    };
    for t in config.targets.iter().flatten().chain(
        config
            .presets
            .values()
            .flat_map(|p| p.targets.iter().flatten()),
    ) {
        parse_target(t).map_err(value_error)?;
    }
    if let Some(p) = &config.pack {
        if p != "spk" {
            return Err(value_error(format!(
                "unknown pack format `{p}`; the only one is `spk`"
            )));
        }
    }
    if let Some(v) = config.qtmesh.mesh_version.filter(|v| *v != 5 && *v != 7) {
        return Err(value_error(format!(
            "qtmesh.mesh_version must be 5 or 7, got {v}"
        )));
    }
    for (i, rule) in config.rules.iter().enumerate() {
        globset::Glob::new(&rule.pattern).map_err(|e| {
            value_error(format!(
                "rules[{i}].match `{}` is not a valid glob: {e}",
                rule.pattern
            ))
        })?;
    }
    // Check every settings table against the pipeline's own ranges.
    let tables = std::iter::once((
        "",
        &config.mesh,
        &config.texture,
        &config.animation,
        &config.bmd1,
    ))
    .chain(
        config
            .presets
            .iter()
            .map(|(n, p)| (n.as_str(), &p.mesh, &p.texture, &p.animation, &p.bmd1)),
    )
    .chain(config.rules.iter().map(|r| {
        (
            r.pattern.as_str(),
            &r.mesh,
            &r.texture,
            &r.animation,
            &r.bmd1,
        )
    }));
    for (name, mesh, texture, animation, bmd1) in tables {
        let mut probe = AssetSettings::default();
        apply_sections(&mut probe, mesh, texture, animation, bmd1);
        let named = |m: String| {
            value_error(if name.is_empty() {
                m
            } else {
                format!("{name}: {m}")
            })
        };
        probe.mesh.validate().map_err(named)?;
        probe.bmd1.validate().map_err(named)?;
    }
    Ok(config)
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// serde names the expected alternatives in its message: add the nearest one.
fn with_suggestion(message: &str) -> String {
    let message = message.trim().to_string();
    let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    let (Some(&wrong), Some(_)) = (quoted.first(), quoted.get(1)) else {
        return message;
    };
    if !(message.starts_with("unknown field") || message.starts_with("unknown variant")) {
        return message;
    }
    match nearest(wrong, quoted[1..].iter().copied()) {
        Some(best) => format!("{message}; did you mean `{best}`?"),
        None => message,
    }
}

pub fn parse_target(name: &str) -> Result<Target, String> {
    Target::parse(name).ok_or_else(|| {
        let hint = nearest(name, Target::ALL.iter().copied())
            .map(|n| format!("; did you mean `{n}`?"))
            .unwrap_or_default();
        format!(
            "unknown target `{name}` (known: {}){hint}",
            Target::ALL.join(", ")
        )
    })
}

fn apply_sections(
    s: &mut AssetSettings,
    mesh: &MeshSection,
    texture: &TextureSection,
    animation: &AnimationSection,
    bmd1: &Bmd1Section,
) {
    let m = &mut s.mesh;
    macro_rules! set {
        ($dst:expr, $src:expr) => {
            if let Some(v) = $src.clone() {
                $dst = v.into();
            }
        };
    }
    set!(m.generate_normals, mesh.generate_normals);
    set!(m.generate_tangents, mesh.generate_tangents);
    set!(m.normal_smoothing_angle, mesh.normal_smoothing_angle);
    set!(m.weld_vertices, mesh.weld_vertices);
    set!(m.weld_threshold, mesh.weld_threshold);
    set!(m.optimize, mesh.optimize);
    set!(m.meshlet_max_vertices, mesh.meshlet_max_vertices);
    set!(m.meshlet_max_triangles, mesh.meshlet_max_triangles);
    set!(m.lod_ratios, mesh.lod_ratios);
    set!(m.lod_target_error, mesh.lod_target_error);
    set!(m.bake_transforms, mesh.bake_transforms);
    let t = &mut s.texture;
    set!(t.format, texture.format);
    set!(t.max_size, texture.max_size);
    set!(t.mipmaps, texture.mipmaps);
    set!(t.quality, texture.quality);
    let a = &mut s.animation;
    set!(a.import, animation.import);
    set!(a.keyframe_reduction, animation.keyframe_reduction);
    set!(a.tolerance, animation.tolerance);
    let b = &mut s.bmd1;
    set!(b.vertex_encoding, bmd1.vertex_encoding);
    set!(b.sample_rate_hz, bmd1.sample_rate_hz);
    set!(b.position_error, bmd1.position_error);
    set!(b.uv_error, bmd1.uv_error);
    set!(b.compat, bmd1.compat);
}

impl Config {
    pub fn preset_names(&self) -> impl Iterator<Item = &str> {
        self.presets.keys().map(String::as_str)
    }

    /// Looks up a preset, suggesting the nearest name when it does not exist.
    pub fn preset(&self, name: &str) -> Result<&Preset, String> {
        self.presets.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.preset_names().collect();
            let hint = nearest(name, known.iter().copied())
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            if known.is_empty() {
                format!("unknown preset `{name}`: build.toml defines no presets")
            } else {
                format!(
                    "unknown preset `{name}` (defined: {}){hint}",
                    known.join(", ")
                )
            }
        })
    }

    /// Fills `options` from this config and the selected preset. Input and output given
    /// in the file are relative to the file's folder.
    pub fn apply_to(&self, options: &mut BuildOptions, preset: Option<&str>) -> Result<(), String> {
        let preset = preset.map(|p| self.preset(p)).transpose()?;
        if let Some(i) = &self.input {
            options.input = self.base_dir.join(i);
        }
        if let Some(r) = self.report {
            options.report = r;
        }
        if let Some(o) = preset
            .and_then(|p| p.output.as_ref())
            .or(self.output.as_ref())
        {
            options.output = self.base_dir.join(o);
        }
        if let Some(targets) = preset
            .and_then(|p| p.targets.as_ref())
            .or(self.targets.as_ref())
        {
            options.settings.targets = targets
                .iter()
                .map(|t| parse_target(t))
                .collect::<Result<_, _>>()?;
        }
        apply_sections(
            &mut options.settings,
            &self.mesh,
            &self.texture,
            &self.animation,
            &self.bmd1,
        );
        if let Some(p) = preset {
            apply_sections(
                &mut options.settings,
                &p.mesh,
                &p.texture,
                &p.animation,
                &p.bmd1,
            );
        }
        for rule in &self.rules {
            let glob = globset::Glob::new(&rule.pattern).map_err(|e| e.to_string())?;
            let (mesh, texture, animation, bmd1) = (
                rule.mesh.clone(),
                rule.texture.clone(),
                rule.animation.clone(),
                rule.bmd1.clone(),
            );
            options.rules.push(SettingsRule {
                matcher: glob.compile_matcher(),
                apply: Arc::new(move |s| apply_sections(s, &mesh, &texture, &animation, &bmd1)),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        parse_config(text, Path::new("build.toml"))
    }

    #[test]
    fn unknown_key_points_at_its_line_and_suggests() {
        let err = parse("[texture]\nformat = \"bc7\"\nmax_sise = 512\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("build.toml:3:"), "{err}");
        assert!(err.contains("did you mean `max_size`?"), "{err}");
    }

    #[test]
    fn wrong_type_and_unknown_variant_are_errors() {
        let err = parse("[mesh]\nweld_vertices = \"yes\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("build.toml:2:"), "{err}");
        let err = parse("[texture]\nformat = \"bc8\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("did you mean `bc7`?") || err.contains("did you mean `bc1`?"),
            "{err}"
        );
    }

    #[test]
    fn out_of_range_values_are_rejected() {
        let err = parse("[mesh]\nmeshlet_max_triangles = 130\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("meshlet_max_triangles"), "{err}");
    }

    #[test]
    fn rules_later_win_and_presets_redirect_output() {
        let config = parse(
            "output = \"out\"\n[mesh]\nlod_ratios = [0.5]\n\
             [[rules]]\nmatch = \"chars/**\"\nmesh.lod_ratios = [0.3]\n\
             [[rules]]\nmatch = \"chars/hero.glb\"\nmesh.lod_ratios = [0.7]\n\
             [presets.mobile]\noutput = \"out-mobile\"\ntexture.max_size = 512\n",
        )
        .unwrap();
        let mut options = BuildOptions::new("assets", "runtime");
        config.apply_to(&mut options, Some("mobile")).unwrap();
        assert_eq!(options.output, PathBuf::from("out-mobile"));
        assert_eq!(options.settings.texture.max_size, 512);
        assert_eq!(
            options.settings_for("props/box.glb").mesh.lod_ratios,
            vec![0.5]
        );
        assert_eq!(
            options.settings_for("chars/orc.glb").mesh.lod_ratios,
            vec![0.3]
        );
        assert_eq!(
            options.settings_for("chars/hero.glb").mesh.lod_ratios,
            vec![0.7]
        );
        let err = config.apply_to(&mut options, Some("mobil")).unwrap_err();
        assert!(err.contains("did you mean `mobile`?"), "{err}");
    }

    #[test]
    fn shipped_example_parses() {
        let text = include_str!("../../build.toml.example");
        parse(text).unwrap();
    }
}
