//! What of the build's settings an asset's outputs depend on: its kind's part of its cache
//! and remote keys.
//!
//! Each kind names the tables it reads ([`super::AssetKind::settings_key`]); nothing else
//! enters its key, so an `[audio]` change rebuilds sounds and nothing else. A model's
//! `[texture]` table is a part of its own: it counts only for a build that encoded shared
//! textures (`tex/` outputs), which a model without images never does.

use serde::Serialize;

/// The key text of one asset's settings, as its kind names it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KeyText {
    /// Tables that always shape the outputs.
    pub always: String,
    /// Tables that shape only the shared textures an asset's build encodes.
    pub textures: String,
    /// The names of the tables added, in the order they were.
    pub names: Vec<String>,
}

impl KeyText {
    /// Adds a table the kind always reads.
    pub fn table<T: Serialize>(&mut self, name: &str, value: &T) {
        self.names.push(name.to_owned());
        push_table(&mut self.always, name, value);
    }

    /// Adds a table read only for the shared textures a build encodes.
    pub fn texture_table<T: Serialize>(&mut self, name: &str, value: &T) {
        self.names.push(name.to_owned());
        push_table(&mut self.textures, name, value);
    }

    /// The whole text, for a key taken before the outputs are known (the remote cache's).
    pub fn whole(&self) -> String {
        format!("{} {}", self.always, self.textures)
    }
}

/// `name=<json>;`: JSON, the same form build.toml's tables deserialise from, so that a
/// renamed Rust type never changes a key and every field of the table is in it.
fn push_table<T: Serialize>(text: &mut String, name: &str, value: &T) {
    text.push_str(name);
    text.push('=');
    // Serialising plain structs of numbers, strings and enums cannot fail; were it to, the
    // table's name alone still separates it from others.
    text.push_str(&serde_json::to_string(value).unwrap_or_default());
    text.push(';');
}

/// The two hashes an asset's local cache record is checked against: which one applies
/// depends on whether its last build encoded shared textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingsKey {
    pub without_textures: u64,
    pub with_textures: u64,
}

impl SettingsKey {
    /// The hash for a build that wrote `outputs` (relative to the output root).
    pub fn for_outputs(&self, outputs: &[String]) -> u64 {
        if outputs
            .iter()
            .any(|o| o.starts_with(crate::targets::TEXTURE_DIR))
        {
            self.with_textures
        } else {
            self.without_textures
        }
    }
}

/// `name version;` of each encoder crate in `names`, as this compiler was built with them.
pub fn encoder_versions(names: &[&str]) -> String {
    let all = env!("ASSETC_ENCODER_VERSIONS");
    let mut out = String::new();
    for entry in all.split(';') {
        let name = entry.split(' ').next().unwrap_or_default();
        if names.contains(&name) {
            out.push_str(entry);
            out.push(';');
        }
    }
    out
}

/// The key text of a source of kind `kind` built with `settings`: the kind's name, the
/// versions of its encoders and the tables it reads.
pub fn key_text(kind: &super::AssetKind, settings: &super::asset::AssetSettings) -> KeyText {
    let mut text = KeyText {
        always: format!("{} {}", kind.name, encoder_versions(kind.encoders)),
        ..KeyText::default()
    };
    // Every kind's output names follow it; said only when set, so that the keys of a
    // build without it are those they always were.
    if settings.keep_case {
        text.always.push_str(" keep_case;");
    }
    (kind.settings_key)(settings, &mut text);
    text
}

/// The names a kind's key gives the tables it may read (`texture`, `mesh`, ...), with
/// every target on so that each target's own table is among them: the tables a setting
/// beside one of its sources can change.
pub fn tables_read(kind: &super::AssetKind) -> Vec<String> {
    let settings = super::asset::AssetSettings {
        targets: crate::targets::Target::EVERY.to_vec(),
        ..Default::default()
    };
    let mut key = KeyText::default();
    (kind.settings_key)(&settings, &mut key);
    key.names
}
