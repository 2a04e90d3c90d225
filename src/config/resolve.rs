//! From a parsed `build.toml` to [`BuildOptions`]: the top level, the preset, the rules.

use super::error::{with_suggestion, ConfigError};
use super::file::{Config, PackFormat, Preset};
use crate::kinds::asset::Target;
use crate::options::{BuildOptions, PlatformSettings, SettingsRule};
use serde::de::IntoDeserializer;
use serde::Deserialize;
use std::sync::Arc;

/// A target name from the command line, parsed as build.toml's `targets` are.
pub fn parse_target(name: &str) -> Result<Target, UnknownTarget> {
    let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        name.into_deserializer();
    Target::deserialize(de).map_err(|e| UnknownTarget {
        name: name.to_owned(),
        message: with_suggestion(&e.to_string()).replace("variant", "target"),
    })
}

/// A target name that is none of the targets: serde's message about it, with the nearest
/// name suggested.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UnknownTarget {
    pub name: String,
    pub message: String,
}

impl Config {
    pub fn preset_names(&self) -> impl Iterator<Item = &str> {
        self.presets.keys().map(String::as_str)
    }

    /// Looks up a preset, suggesting the nearest name when it does not exist.
    pub fn preset(&self, name: &str) -> Result<&Preset, ConfigError> {
        self.presets.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.preset_names().collect();
            let hint = super::nearest(name, known.iter().copied())
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            ConfigError::new(
                &self.path,
                if known.is_empty() {
                    format!("unknown preset `{name}`: the file defines no presets")
                } else {
                    format!(
                        "unknown preset `{name}` (defined: {}){hint}",
                        known.join(", ")
                    )
                },
            )
        })
    }

    /// Fills `options` from this config and the selected preset. Input and output given
    /// in the file are relative to the file's folder.
    pub fn apply_to(
        &self,
        options: &mut BuildOptions,
        preset: Option<&str>,
    ) -> Result<(), ConfigError> {
        let preset = preset.map(|p| self.preset(p)).transpose()?;
        let invalid = |m: String| ConfigError::new(&self.path, m);
        if let Some(i) = &self.input {
            options.input = lexically_normal(&self.base_dir.join(i));
        }
        if let Some(o) = preset
            .and_then(|p| p.output.as_ref())
            .or(self.output.as_ref())
        {
            options.output = lexically_normal(&self.base_dir.join(o));
        }
        if let Some(targets) = preset
            .and_then(|p| p.targets.as_ref())
            .or(self.targets.as_ref())
        {
            options.settings.targets = targets.clone();
        }
        match self.pack {
            Some(PackFormat::Spk) => options.pack_spk = true,
            Some(PackFormat::Hpack) => options.pack_hpack = true,
            None => {}
        }
        for pattern in &self.embed {
            globset::Glob::new(pattern.get_ref()).map_err(|e| {
                ConfigError::at(
                    &self.path,
                    &self.text,
                    pattern.span().start,
                    format!("embed: `{}`: {e}", pattern.get_ref()),
                )
            })?;
            options.embed.push(pattern.get_ref().clone());
        }
        if let Some(version) = &self.manifest_version {
            if !matches!(version.get_ref(), 1 | 2) {
                return Err(ConfigError::at(
                    &self.path,
                    &self.text,
                    version.span().start,
                    format!(
                        "manifest_version must be 1 (the original assetc's) or 2, got {}",
                        version.get_ref()
                    ),
                ));
            }
            options.manifest_version = *version.get_ref();
        }
        if let Some(report) = self.report {
            options.report = report;
        }
        if let Some(keep_case) = self.keep_case {
            options.settings.keep_case = keep_case;
        }
        if let Some(url) = &self.cache.remote {
            options.remote_cache = Some(url.get_ref().clone());
        }
        if let Some(mode) = self.cache.mode {
            options.remote_mode = mode;
        }
        if let Some(max) = self.cache.max_blob_bytes {
            options.remote_max_blob_bytes = max;
        }
        options.limits = self
            .limits
            .limits()
            .map_err(|(span, m)| ConfigError::at(&self.path, &self.text, span.start, m))?;
        self.apply_tables(&mut options.settings)
            .map_err(|e| invalid(e.to_string()))?;
        if let Some(p) = preset {
            p.apply_tables(&mut options.settings)
                .map_err(|e| invalid(e.to_string()))?;
        }
        for (name, platform) in &self.platforms {
            let texture = platform.texture.clone();
            options.platforms.push(PlatformSettings {
                name: name.clone(),
                // Checked when the file was parsed, as a rule's keys are.
                apply: Arc::new(move |s| {
                    let _ = texture.apply("texture", &mut s.texture);
                }),
            });
        }
        // `[shader] import_paths` are relative to this file's folder.
        let base_dir = self.base_dir.clone();
        options.settings.shader.base_dir = Some(base_dir.clone());
        for rule in &self.rules {
            let glob =
                globset::Glob::new(rule.pattern.get_ref()).map_err(|e| invalid(e.to_string()))?;
            let rule = rule.clone();
            let base_dir = base_dir.clone();
            options.rules.push(SettingsRule {
                matcher: glob.compile_matcher(),
                ignore: rule.ignore,
                // Every key was checked alone when the file was parsed, so overlaying
                // cannot fail here; were it to, the settings stay as they were.
                apply: Arc::new(move |s| {
                    let _ = rule.apply_tables(s);
                    s.shader.base_dir = Some(base_dir.clone());
                }),
            });
        }
        Ok(())
    }

    /// Warnings for `[[rules]]` whose glob matches none of `sources` (paths relative to
    /// the input folder): most likely a typo or a moved folder.
    pub fn unmatched_rules<'a>(
        &self,
        sources: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Vec<ConfigError> {
        self.rules
            .iter()
            .filter_map(|rule| {
                let matcher = globset::Glob::new(rule.pattern.get_ref())
                    .ok()?
                    .compile_matcher();
                if sources.clone().into_iter().any(|s| matcher.is_match(s)) {
                    return None;
                }
                Some(ConfigError::at(
                    &self.path,
                    &self.text,
                    rule.pattern.span().start,
                    format!(
                        "rules: `{}` matches no source; its settings are not used",
                        rule.pattern.get_ref()
                    ),
                ))
            })
            .collect()
    }
}

/// `cfg/../assets` as `assets`: `.` dropped and `..` taken against the component before it
/// (as Cargo reads its manifest's paths), so that messages and the report name sources by
/// the paths people see, not the way there. A `..` with nothing before it stays.
fn lexically_normal(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            // Above the root is the root.
            Component::ParentDir if matches!(out.last(), Some(Component::RootDir)) => {}
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return std::path::PathBuf::from(".");
    }
    out.iter().collect()
}

#[cfg(test)]
mod lexical_tests {
    use super::lexically_normal;
    use std::path::{Path, PathBuf};

    #[test]
    fn parent_steps_are_taken_against_the_folder_before_them() {
        let n = |p: &str| lexically_normal(Path::new(p));
        assert_eq!(n("/tmp/x/cfg/../assets"), PathBuf::from("/tmp/x/assets"));
        assert_eq!(n("cfg/./../assets"), PathBuf::from("assets"));
        assert_eq!(n("../assets"), PathBuf::from("../assets"));
        assert_eq!(n("cfg/.."), PathBuf::from("."));
        assert_eq!(n("/.."), PathBuf::from("/"));
    }
}
