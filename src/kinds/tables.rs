//! The one list of settings tables, made from the kinds' registry ([`super::with_kinds`]):
//! each table a kind owns is a field of [`AssetSettings`] (the settings a source is built
//! with) and a `[name]` table of build.toml at the top level, in presets and in rules
//! (`config`). A kind's table is its settings type in its own folder and its name in the
//! kind's registry line.
//!
//! [`AssetSettings`]: super::asset::AssetSettings

/// Calls `$callback! { $args [name: Type, ...] }` with every settings table, in the order
/// of the kinds' registry.
macro_rules! with_settings_tables {
    ($callback:ident! { $($args:tt)* }) => {
        $crate::kinds::with_kinds! { tables_of_kinds! { $callback { $($args)* } } }
    };
}

/// Flattens the registry's per-kind table lists into one list for `$callback`.
macro_rules! tables_of_kinds {
    ($callback:ident { $($args:tt)* }
     [$($id:ident $module:ident [$($table:ident: $ty:ty,)*],)*]) => {
        $callback! { $($args)* [$($($table: $ty,)*)*] }
    };
}

pub(crate) use tables_of_kinds;
pub(crate) use with_settings_tables;
