//! Standalone images: every image below the input root that no model uses becomes
//! `<ref>.ktx2`, named in the manifest by fnv1a64 of its ref.

mod gpu_ready;
mod settings;

use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::code::{DiagnosticCode, Warning};
use crate::formats::hman::EntryKind;
use crate::formats::ktx2::IDENTIFIER as KTX2_IDENTIFIER;
use crate::kinds::asset::{AssetError, AssetSettings, CompiledAsset, OutputFile};
use crate::kinds::source::Source;
use crate::pipeline::textures::class::{self, Classified};
use crate::pipeline::textures::{
    declared_size, decode_image, encode_standalone, is_hdr_extension, mime_from_extension,
    CubeLayout, StandaloneTexture, TextureMode,
};

pub static KIND: AssetKind = AssetKind {
    id: KindId::Texture,
    name: "texture",
    recognise: Recognise::FileSuffixes(IMAGE_EXTENSIONS),
    sources: ".png .jpg .jpeg .webp .tga .bmp .ktx2 (LDR), .hdr .exr (HDR); a GPU-ready .ktx2 or .dds passes through",
    outputs:
        "<ref>.ktx2 (a cube under a `texture.cubemap` rule, an array under `texture.array_layers`)",
    // `<ref>.ktx2`.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 5,
        claims: Claim::RefWith(".ktx2"),
    },
    compile,
    settings_key: |settings, key| key.table("texture", &settings.texture),
    encoders: TEXTURE_ENCODERS,
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: encodes_uastc,
};

/// The crates that decode images and encode textures.
pub const TEXTURE_ENCODERS: &[&str] = &["image", "basis-universal", "intel_tex_2", "zstd"];

/// Whether a texture encoded with these settings is UASTC (the default format).
pub fn encodes_uastc(settings: &AssetSettings) -> bool {
    settings.texture.format == crate::pipeline::textures::TextureFormat::Uastc
}

/// Every image extension a standalone texture (or a cube face) may have.
pub const IMAGE_EXTENSIONS: &[&str] = &[
    ".png", ".jpg", ".jpeg", ".webp", ".tga", ".bmp", ".ktx2", ".hdr", ".exr", ".dds",
];

/// Largest image file read as a texture: far above any real texture (a 16384² RGBA32F
/// EXR is 4 GiB uncompressed but far smaller on disk), and it keeps a mistaken multi-GB
/// file from being read whole.
pub const MAX_IMAGE_FILE_BYTES: u64 = 1 << 30;

/// Peak memory per source pixel of an 8-bit image, measured (docs/performance.md "Memory
/// per source pixel": 33.4 bytes a pixel from 2048² to 4096²): the decoded RGBA8, its
/// mip chain, the encoders' working copies and the encoded levels, alive together.
pub const LDR_BYTES_PER_PIXEL: u64 = 34;
/// The same for HDR sources, decoded to RGBA f32 and encoded to BC6H (measured 36.0).
pub const HDR_BYTES_PER_PIXEL: u64 = 40;

/// The memory encoding an image needs at its peak, from its header alone, with the size
/// the header declares; `None` when the header cannot be read or is over the size cap
/// (the decoder then says why). `hdr`: decoded to float.
pub fn image_memory(bytes: &[u8], mime: Option<&str>, hdr: bool) -> Option<(u64, (u32, u32))> {
    let (w, h) = declared_size(bytes, mime).ok()?;
    let per_pixel = if hdr {
        HDR_BYTES_PER_PIXEL
    } else {
        LDR_BYTES_PER_PIXEL
    };
    Some((u64::from(w) * u64::from(h) * per_pixel, (w, h)))
}

/// Refuses images whose headers declare more pixels than `[limits] asset_memory` can
/// build, before any is decoded. `images` are each image's bytes and lower-case
/// extension; an image whose header cannot be read is left to the decoder, which says why.
/// A panorama is also converted to float and cut into six faces, about as much again.
pub(super) fn admit_images(
    path: &std::path::Path,
    images: &[(&[u8], &str)],
    panorama: bool,
    context: &CompileContext,
) -> Result<(), AssetError> {
    let mut needed = 0u64;
    let mut sizes = Vec::with_capacity(images.len());
    for (bytes, ext) in images {
        let hdr = is_hdr_extension(ext) || panorama;
        let Some((bytes, (w, h))) = image_memory(bytes, mime_from_extension(ext), hdr) else {
            continue;
        };
        let copies = if panorama { 2 } else { 1 };
        needed += bytes * copies;
        sizes.push(format!("{w}x{h}"));
    }
    context
        .limits
        .admit(needed, || {
            let pixels = if sizes.len() == 1 {
                "pixels"
            } else {
                "pixel faces"
            };
            format!("{} {pixels}", sizes.join(" + "))
        })
        .map_err(|e| AssetError::OverLimit {
            path: path.display().to_string(),
            message: e.to_string(),
        })
}

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let bytes = read_limited(&source.abs_path, MAX_IMAGE_FILE_BYTES)?;
    let ext = extension(&source.rel_path);
    let Classified { mode, warning } = classify(&source.rel_path, Some(&bytes), context.settings);
    if let Some(asset) = gpu_ready::compile(source, &bytes, &ext, mode, context)? {
        return Ok(asset);
    }
    admit_images(
        &source.abs_path,
        &[(bytes.as_slice(), ext.as_str())],
        context.settings.texture.cubemap != CubeLayout::Off,
        context,
    )?;
    let invalid = |message: String| AssetError::Invalid {
        path: source.abs_path.display().to_string(),
        message,
    };
    let (bytes, ext) = (bytes.as_slice(), ext.as_str());
    let texture = match (
        context.settings.texture.cubemap,
        context.settings.texture.array_layers,
    ) {
        (CubeLayout::Off, 0) => StandaloneTexture::Image { bytes, ext },
        (CubeLayout::Off, layers) => StandaloneTexture::Layers { bytes, ext, layers },
        (layout, 0) => StandaloneTexture::UnfoldedCube { bytes, ext, layout },
        (layout, layers) => {
            return Err(invalid(format!(
                "texture.cubemap = \"{}\" and texture.array_layers = {layers} are both set: \
                 cube arrays are not written; set one of them",
                layout.name()
            )))
        }
    };
    let encoded = encode_standalone(&texture, mode, &context.settings.texture)
        .map_err(|e| invalid(e.to_string()))?;
    let mut asset = texture_asset(source, encoded, mode, vec![source.abs_path.clone()]);
    asset.warnings.extend(warning.map(|w| Warning::new(DiagnosticCode::TextureClass, w)));
    Ok(asset)
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

/// The mode of a standalone image by its name alone (a cubemap folder's faces, whose
/// names are fixed): see [`classify`].
pub fn mode_for(rel_path: &str, settings: &AssetSettings) -> TextureMode {
    classify(rel_path, None, settings).mode
}

/// The mode of a standalone image, with a warning when its texels contradict it: the
/// rule's `texture.mode`, else linear for HDR, else its name and texels
/// ([`class::classify`]; `bytes` None leaves the texels unseen). The texels of an
/// image are decoded here once more than the encoder does: a PNG decodes in a small
/// fraction of the time its block encoding takes.
pub fn classify(rel_path: &str, bytes: Option<&[u8]>, settings: &AssetSettings) -> Classified {
    if let Some(mode) = settings.texture.mode {
        return Classified {
            mode,
            warning: None,
        };
    }
    let name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    let ext = extension(name);
    if is_hdr_extension(&ext) {
        return Classified {
            mode: TextureMode::Linear,
            warning: None,
        };
    }
    // KTX2 sources are left to their name: decoding one may mean transcoding it.
    let content = bytes
        .filter(|b| ext != "ktx2" && !b.starts_with(&KTX2_IDENTIFIER))
        .and_then(|b| decode_image(b, mime_from_extension(&ext)).ok())
        .map(|image| class::content_of(&image.pixels));
    class::classify(name, content)
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
        // A tag counts only right before the extension, and only as a whole word.
        assert_eq!(mode_for("n.png", &s), TextureMode::Color);
        assert_eq!(mode_for("dir.n/a.png", &s), TextureMode::Color);
        // Names artists use (pipeline::textures::class has the word splitter's tests).
        assert_eq!(mode_for("a.normal.png", &s), TextureMode::Normal);
        assert_eq!(
            mode_for("ScratchedGold-Normal.png", &s),
            TextureMode::Normal
        );
        // Unseen texels: a data word keeps every channel.
        assert_eq!(mode_for("cube_depth.png", &s), TextureMode::Linear);
        assert_eq!(
            mode_for("normal_maps/cube_depth.png", &s),
            TextureMode::Linear
        );
        let mut rule = AssetSettings::default();
        rule.texture.mode = Some(TextureMode::Linear);
        assert_eq!(mode_for("ui/button.png", &rule), TextureMode::Linear);
    }
}
