//! Parsing with ufbx, and the conversion to glTF's frame: right-handed, +Y up, +Z front,
//! one unit a metre. ufbx does the conversion itself from the file's `GlobalSettings`
//! (axes and `UnitScaleFactor`), so a Z-up centimetre file from 3ds Max and a Y-up metre
//! file from Blender come out alike.

use super::super::gltf::ImportLimits;
use std::path::{Path, PathBuf};

/// The options every FBX is read with.
fn options(path: &Path, limits: &ImportLimits) -> ufbx::LoadOpts<'static> {
    // ufbx's allocations are capped like the glTF importer's decoded bytes: a file whose
    // counts promise more than that fails with ufbx's memory-limit error, not an abort.
    let memory_limit = usize::try_from(limits.max_total_accessor_bytes).unwrap_or(usize::MAX);
    let allocator = || ufbx::AllocatorOpts {
        memory_limit,
        ..Default::default()
    };
    ufbx::LoadOpts {
        temp_allocator: allocator(),
        result_allocator: allocator(),
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        // Unit scale goes into the geometry (and skin matrices, blend shapes, animated
        // translations) rather than a 0.01 scale on the top nodes: runtime formats that bake
        // transforms and those that keep the hierarchy then both see metres.
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        // FBX geometric transforms (an offset of the geometry that children do not inherit)
        // have no glTF equivalent: baked into the mesh, or a helper node when the mesh is
        // instanced under different geometric transforms.
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        // Maya's "segment scale compensate" and the other non-standard inherit modes are
        // compensated in the children's transforms (helper nodes where that is not exact).
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        // An index past its array fails the file (a clear error) rather than being
        // clamped into geometry nobody modelled.
        index_error_handling: ufbx::IndexErrorHandling::AbortLoading,
        // Negative, zero and NaN skin weights removed, the rest sorted largest first.
        clean_skin_weights: true,
        normalize_normals: true,
        // The content decides (ASCII or binary FBX); a file named .fbx that ufbx would read
        // as OBJ is refused instead.
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_content: true,
        filename: path.to_string_lossy().into_owned().into(),
        ..Default::default()
    }
}

/// Why ufbx refused a file.
#[derive(Debug)]
pub struct LoadError {
    pub reason: String,
    /// The memory limit (ImportLimits::max_total_accessor_bytes) was reached.
    pub limit: bool,
}

/// Parses `data` (the bytes of `path`) into a ufbx scene.
pub fn load(data: &[u8], path: &Path, limits: &ImportLimits) -> Result<ufbx::SceneRoot, LoadError> {
    ufbx::load_memory(data, options(path, limits)).map_err(|e| LoadError {
        reason: describe(&e),
        limit: matches!(
            e.type_,
            ufbx::ErrorType::MemoryLimit | ufbx::ErrorType::AllocationLimit
        ),
    })
}

/// ufbx's error in words, then ufbx's own text. The crate builds ufbx without its error
/// stack, so a structural problem reads only "Failed to load"; the error type says more
/// for the common cases.
fn describe(e: &ufbx::Error) -> String {
    use ufbx::ErrorType as T;
    let plain = match e.type_ {
        T::TruncatedFile => "the file ends early (truncated)",
        T::EmptyFile => "the file is empty",
        T::BadIndex => "an index is out of range of its array",
        T::MemoryLimit | T::AllocationLimit | T::OutOfMemory => {
            "reading it needs more memory than the import limit allows"
        }
        T::UnrecognizedFileFormat => "the content is not FBX",
        T::UnsupportedVersion => "the FBX version is not supported",
        T::InvalidUtf8 => "a string is not valid UTF-8",
        T::NodeDepthLimit => "the node hierarchy is nested too deeply",
        _ => "its structure is broken (a size, count or offset disagrees with the data)",
    };
    // `format_error`'s text: one line here, but a stack (one line per step) when ufbx is
    // built with one; one line reads better in a build log.
    let full = format!("{e:?}");
    let detail: Vec<&str> = full
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    format!("{plain} (ufbx: {})", detail.join("; "))
}

/// The image files an FBX names, resolved beside it, without reading geometry, animation
/// or embedded content (ufbx's `ignore_*` options), so that the build can tell a model's
/// textures from standalone ones before importing. Embedded images name no file. An
/// unreadable file names none (its build reports why).
pub fn referenced_files(source: &Path) -> Vec<PathBuf> {
    let Ok(data) = std::fs::read(source) else {
        return Vec::new();
    };
    let opts = ufbx::LoadOpts {
        ignore_geometry: true,
        ignore_animation: true,
        ignore_embedded: true,
        ..options(source, &ImportLimits::default())
    };
    let Ok(fbx) = ufbx::load_memory(&data, opts) else {
        return Vec::new();
    };
    let folder = source.parent().unwrap_or(Path::new("."));
    let mut files: Vec<PathBuf> = fbx
        .texture_files
        .iter()
        .filter_map(|f| file_name_in_folder(&f.relative_filename, &f.absolute_filename))
        .map(|rel| folder.join(rel))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The path an FBX texture names, relative to the FBX's folder, `/`-separated: its
/// relative file name when it has one (exporters write `textures\wood.png` on Windows),
/// else the file name of its absolute path (the exporter's machine's path, meaningless
/// here: Blender, Maya and assimp all fall back on looking beside the FBX). `None` when it
/// names no file.
pub fn file_name_in_folder(relative: &str, absolute: &str) -> Option<String> {
    let relative = relative.replace('\\', "/");
    if !relative.is_empty() {
        return Some(relative);
    }
    let absolute = absolute.replace('\\', "/");
    let name = absolute.rsplit('/').next().unwrap_or("");
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_paths_use_the_relative_name_else_the_absolute_one_s_file_name() {
        let f = |r, a| file_name_in_folder(r, a);
        assert_eq!(
            f("tex\\wood.png", "C:\\art\\tex\\wood.png").as_deref(),
            Some("tex/wood.png")
        );
        assert_eq!(f("", "C:\\art\\tex\\wood.png").as_deref(), Some("wood.png"));
        assert_eq!(f("", "/home/me/wood.png").as_deref(), Some("wood.png"));
        assert_eq!(f("", ""), None);
        assert_eq!(f("", "C:\\art\\"), None);
    }

    #[test]
    fn bytes_that_are_not_fbx_fail_with_ufbx_s_reason_on_one_line() {
        let err = load(
            b"; not an fbx\n",
            Path::new("x.fbx"),
            &ImportLimits::default(),
        )
        .map(|_| ())
        .unwrap_err();
        assert!(!err.reason.contains('\n'), "{}", err.reason);
        assert!(err.reason.contains("(ufbx: "), "{}", err.reason);
        assert!(!err.limit);
    }
}
