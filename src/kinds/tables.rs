//! The one list of settings tables. Each is a field of [`AssetSettings`] (the settings a
//! source is built with, hashed into cache keys in this order) and a `[name]` table of
//! build.toml at the top level, in presets and in rules (`config`). Adding a table is its
//! settings type in its own module and one line here.
//!
//! [`AssetSettings`]: super::asset::AssetSettings

/// Calls `$callback! { $args [name: Type, ...] }` with every settings table, in the order
/// they are hashed and applied.
macro_rules! with_settings_tables {
    ($callback:ident! { $($args:tt)* }) => {
        $callback! { $($args)* [
            mesh: $crate::pipeline::MeshSettings,
            texture: $crate::pipeline::textures::TextureSettings,
            animation: $crate::rig::hanim::AnimationSettings,
            bmd1: $crate::targets::bmd1::Bmd1Settings,
            qtmesh: $crate::targets::qtmesh::QtTargetSettings,
            font: $crate::kinds::settings::FontSettings,
            shader: $crate::kinds::settings::ShaderSettings,
            audio: $crate::kinds::settings::AudioSettings,
        ] }
    };
}

pub(crate) use with_settings_tables;
