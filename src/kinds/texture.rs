//! Standalone images: every image below the input root that no model uses becomes
//! `<ref>.ktx2`, named in the manifest by fnv1a64 of its ref.

use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hman::EntryKind;
use crate::kinds::asset::{AssetError, AssetSettings, CompiledAsset, OutputFile};
use crate::kinds::source::Source;
use crate::pipeline::textures::{
    encode_standalone, is_hdr_extension, StandaloneTexture, TextureMode,
};

pub static KIND: AssetKind = AssetKind {
    id: KindId::Texture,
    name: "texture",
    recognise: Recognise::FileSuffixes(IMAGE_EXTENSIONS),
    sources: ".png .jpg .jpeg .webp .tga .bmp .ktx2 (LDR), .hdr .exr (HDR); a GPU-ready .ktx2 or .dds passes through",
    outputs: "<ref>.ktx2 (a cube under a `texture.cubemap = true` rule)",
    // `<ref>.ktx2`.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 5,
        claims: Claim::RefWith(".ktx2"),
    },
    compile,
};

/// Every image extension a standalone texture (or a cube face) may have.
pub const IMAGE_EXTENSIONS: &[&str] = &[
    ".png", ".jpg", ".jpeg", ".webp", ".tga", ".bmp", ".ktx2", ".hdr", ".exr", ".dds",
];

/// Largest image file read as a texture: far above any real texture (a 16384² RGBA32F
/// EXR is 4 GiB uncompressed but far smaller on disk), and it keeps a mistaken multi-GB
/// file from being read whole.
pub const MAX_IMAGE_FILE_BYTES: u64 = 1 << 30;

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let bytes = read_limited(&source.abs_path, MAX_IMAGE_FILE_BYTES)?;
    let ext = extension(&source.rel_path);
    let mode = mode_for(&source.rel_path, context.settings);
    if let Some(asset) = super::gpu_ready::compile(source, &bytes, &ext, mode, context)? {
        return Ok(asset);
    }
    let texture = if context.settings.texture.cubemap {
        StandaloneTexture::Panorama {
            bytes: &bytes,
            ext: &ext,
        }
    } else {
        StandaloneTexture::Image {
            bytes: &bytes,
            ext: &ext,
        }
    };
    let encoded = encode_standalone(&texture, mode, &context.settings.texture).map_err(|e| {
        AssetError::Invalid {
            path: source.abs_path.display().to_string(),
            message: e.to_string(),
        }
    })?;
    Ok(texture_asset(
        source,
        encoded,
        mode,
        vec![source.abs_path.clone()],
    ))
}

/// The compiled asset of one `.ktx2` named by the source's ref: `<ref>.ktx2`, manifest
/// hash fnv1a64(ref), sRGB flag from the mode.
pub(super) fn texture_asset(
    source: &Source,
    ktx2: Vec<u8>,
    mode: TextureMode,
    inputs: Vec<std::path::PathBuf>,
) -> CompiledAsset {
    let reference = source.runtime_ref();
    let file = OutputFile {
        manifest_id: Some(crate::formats::hash::fnv1a64(&reference)),
        srgb: mode.is_srgb(),
        ..OutputFile::new(format!("{reference}.ktx2"), ktx2, EntryKind::Texture)
    };
    CompiledAsset {
        files: vec![file],
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: Default::default(),
        times: Default::default(),
        inputs,
    }
}

/// The lower-case extension of a path's file name, without the dot.
pub(super) fn extension(rel_path: &str) -> String {
    rel_path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .filter(|e| !e.contains('/'))
        .unwrap_or_default()
}

/// The mode of a standalone image: the rule's `texture.mode`, else linear for HDR, else
/// the original assetc's name convention (`*.n.png` normal map, `*.ao/.h/.r.png` single
/// channel, anything else sRGB colour).
pub fn mode_for(rel_path: &str, settings: &AssetSettings) -> TextureMode {
    if let Some(mode) = settings.texture.mode {
        return mode;
    }
    let name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    if is_hdr_extension(&extension(name)) {
        return TextureMode::Linear;
    }
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    match stem
        .rsplit_once('.')
        .map(|(_, tag)| tag.to_ascii_lowercase())
    {
        Some(tag) if tag == "n" => TextureMode::Normal,
        Some(tag) if matches!(tag.as_str(), "ao" | "h" | "r") => TextureMode::Single,
        _ => TextureMode::Color,
    }
}

/// Reads a file, refusing one larger than `limit` before reading it.
pub(super) fn read_limited(path: &std::path::Path, limit: u64) -> Result<Vec<u8>, AssetError> {
    let read_error = |source| AssetError::Read {
        path: path.display().to_string(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read_error)?;
    let size = meta.len();
    if size > limit {
        return Err(AssetError::Invalid {
            path: path.display().to_string(),
            message: format!("{size} bytes exceeds the file size limit of {limit} bytes"),
        });
    }
    let bytes = std::fs::read(path).map_err(read_error)?;
    // The inputs' stamps are the bytes read here (the driver's cache, `read_log`).
    crate::read_log::note_read(path, &meta, &bytes);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_the_original_file_name_convention() {
        let s = AssetSettings::default();
        assert_eq!(mode_for("ui/button.png", &s), TextureMode::Color);
        assert_eq!(mode_for("rock.n.png", &s), TextureMode::Normal);
        assert_eq!(mode_for("rock.N.PNG", &s), TextureMode::Normal);
        assert_eq!(mode_for("rock.ao.png", &s), TextureMode::Single);
        assert_eq!(mode_for("cliff.h.tga", &s), TextureMode::Single);
        assert_eq!(mode_for("metal.r.jpg", &s), TextureMode::Single);
        assert_eq!(mode_for("sky.hdr", &s), TextureMode::Linear);
        assert_eq!(mode_for("sky.n.exr", &s), TextureMode::Linear);
        // Only the part right before the extension counts, and only as a whole word.
        assert_eq!(mode_for("n.png", &s), TextureMode::Color);
        assert_eq!(mode_for("a.normal.png", &s), TextureMode::Color);
        assert_eq!(mode_for("dir.n/a.png", &s), TextureMode::Color);
        let mut rule = AssetSettings::default();
        rule.texture.mode = Some(TextureMode::Linear);
        assert_eq!(mode_for("ui/button.png", &rule), TextureMode::Linear);
    }
}
