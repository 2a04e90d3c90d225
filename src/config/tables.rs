//! Settings tables (`[mesh]`, `[texture]`, ...) as written in build.toml: partial, and
//! overlaid on the pipeline's own settings types.
//!
//! The settings types derive `Deserialize` with `#[serde(default, deny_unknown_fields)]`,
//! so their fields *are* the keys: adding a key is adding a field (with a doc comment) to
//! the settings struct. A table in the file sets only some keys; [`Partial`] keeps the keys
//! it sets, with their places in the file, and [`Partial::apply`] overlays exactly those on
//! settings resolved so far (defaults, then the top level, the preset, matching rules).

use super::error::{key_offset, plain_words, unknown_key, with_suggestion, ConfigError};
use crate::kinds::asset::AssetSettings;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::path::Path;
use toml::Spanned;

pub use crate::kinds::settings::Section;

/// The keys one table of the file sets, each with its place in the file.
pub struct Partial<T> {
    entries: BTreeMap<String, Spanned<toml::Value>>,
    section: PhantomData<fn() -> T>,
}

impl<T> Default for Partial<T> {
    fn default() -> Self {
        Self {
            entries: BTreeMap::new(),
            section: PhantomData,
        }
    }
}

impl<T> Clone for Partial<T> {
    fn clone(&self) -> Self {
        Self {
            entries: self.entries.clone(),
            section: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for Partial<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v.get_ref())))
            .finish()
    }
}

impl<'de, T> Deserialize<'de> for Partial<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self {
            entries: BTreeMap::deserialize(deserializer)?,
            section: PhantomData,
        })
    }
}

impl<T: Section> Partial<T> {
    /// The keys this table sets.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Where the first key of this table is written, when it sets any.
    pub fn first_offset(&self) -> Option<usize> {
        self.entries.values().map(|v| v.span().start).min()
    }

    pub fn get(&self, key: &str) -> Option<&toml::Value> {
        self.entries.get(key).map(Spanned::get_ref)
    }

    /// Checks every key alone (name, type, range), so an error points at its line.
    pub fn check(&self, table: &str, file: &Path, text: &str) -> Result<(), ConfigError> {
        for (key, value) in &self.entries {
            let here = |message: String| ConfigError::at(file, text, value.span().start, message);
            let alone: toml::Table = [(key.clone(), value.get_ref().clone())]
                .into_iter()
                .collect();
            let probe: T = toml::Value::Table(alone).try_into().map_err(|e| {
                let message = format!(
                    "[{table}] {key}: {}",
                    plain_words(&with_suggestion(e.message()))
                );
                // A misspelt key is pointed at where it is written, not at its value.
                let key_at = unknown_key(e.message())
                    .and_then(|_| key_offset(text, value.span().start, key));
                match key_at {
                    Some(at) => ConfigError::at(file, text, at, message),
                    None => here(message),
                }
            })?;
            probe
                .check_ranges()
                .map_err(|m| here(format!("[{table}] {m}")))?;
        }
        Ok(())
    }

    /// Overlays the keys this table sets on `base`.
    pub fn apply(&self, table: &str, base: &mut T) -> Result<(), ApplyError> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let mut table = match toml::Value::try_from(&*base)? {
            toml::Value::Table(t) => t,
            _ => return Err(ApplyError::NotATable(table.to_owned())),
        };
        for (key, value) in &self.entries {
            table.insert(key.clone(), value.get_ref().clone());
        }
        *base = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| {
                ApplyError::Value(plain_words(&with_suggestion(e.message())))
            })?;
        Ok(())
    }
}

/// Why a table's keys cannot be overlaid on the settings resolved so far.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Serialize(#[from] toml::ser::Error),
    #[error("[{0}] settings are not a table")]
    NotATable(String),
    /// TOML's message about the overlaid value, in plain words.
    #[error("{0}")]
    Value(String),
}

/// A layer of the file (the top level, a preset, a rule): the struct with its own fields
/// and one [`Partial`] per settings table of [`with_settings_tables`], and its
/// `check_tables` and `apply_tables`. Invoked through that list, so a table is named once.
///
/// [`with_settings_tables`]: crate::kinds::tables::with_settings_tables
macro_rules! settings_layer {
    (
        $(#[$meta:meta])*
        $layer:ident { $($fields:tt)* }
        [$($table:ident: $ty:ty,)*]
    ) => {
        $(#[$meta])*
        pub struct $layer {
            $($fields)*
            $(
                #[serde(default)]
                pub $table: $crate::config::tables::Partial<$ty>,
            )*
        }

        impl $layer {
            /// Checks every key of every table, each where it stands.
            pub fn check_tables(
                &self,
                file: &std::path::Path,
                text: &str,
            ) -> Result<(), $crate::config::ConfigError> {
                $(self.$table.check(stringify!($table), file, text)?;)*
                Ok(())
            }

            /// The tables that set a key, each with where its first key is written.
            pub fn tables_set(&self) -> Vec<(&'static str, usize)> {
                let mut set = Vec::new();
                $(if let Some(at) = self.$table.first_offset() {
                    set.push((stringify!($table), at));
                })*
                set
            }

            /// Overlays every key these tables set on `settings`.
            pub fn apply_tables(
                &self,
                settings: &mut $crate::kinds::asset::AssetSettings,
            ) -> Result<(), $crate::config::tables::ApplyError> {
                $(self.$table.apply(stringify!($table), &mut settings.$table)?;)*
                $crate::config::tables::qt_naming_follows_version(&self.qtmesh, settings);
                Ok(())
            }
        }
    };
}

pub(crate) use settings_layer;

/// As `--qt-mesh-version 5` does: Qt 6.4 and older also name meshes the old way, unless
/// the table names them itself.
pub(crate) fn qt_naming_follows_version(
    qtmesh: &Partial<crate::targets::qtmesh::QtTargetSettings>,
    settings: &mut AssetSettings,
) {
    let version = qtmesh.get("mesh_version").and_then(toml::Value::as_integer);
    if let Some(version) = version.and_then(|v| u16::try_from(v).ok()) {
        let naming_given = qtmesh.get("naming").is_some();
        settings.qtmesh.set_mesh_version(version, naming_given);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(text: &str) -> crate::config::Preset {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn only_the_keys_set_are_overlaid() {
        let mut s = AssetSettings::default();
        s.mesh.weld_threshold = 0.5;
        tables("[mesh]\noptimize = false\n")
            .apply_tables(&mut s)
            .unwrap();
        assert!(!s.mesh.optimize);
        assert_eq!(s.mesh.weld_threshold, 0.5, "a key not in the table is kept");
    }

    #[test]
    fn each_key_is_checked_where_it_stands() {
        let text = "[texture]\nmipmaps = true\nquality = 1.5\n";
        let err = tables(text)
            .check_tables(Path::new("build.toml"), text)
            .unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(11)), "{err}");
        assert!(err.message.contains("quality must be a number from 0 to 1"));
    }
}
