//! Standalone KTX2 (and DDS) files that are already GPU-ready: cubemaps, arrays, 3D and
//! 1D textures, and formats assetc cannot decode, written as `<ref>.ktx2` without being
//! re-encoded (`pipeline::textures::gpu_ready`). A single 2D KTX2 image of a format assetc
//! decodes is left to the texture kind's usual encoding.

use super::texture_asset;
use crate::kinds::CompileContext;
use crate::code::{DiagnosticCode, Warning};
use crate::kinds::asset::{AssetError, CompiledAsset};
use crate::kinds::source::Source;
use crate::pipeline::textures::{
    GpuReadyError,
    standalone_dds, standalone_ktx2, GpuReady, TextureMode, DDS_MAGIC,
};

/// The asset of a GPU-ready source, or `None` when the source is to be encoded as usual.
/// Errors name the source's file.
pub(super) fn compile(
    source: &Source,
    bytes: &[u8],
    ext: &str,
    mode: TextureMode,
    context: &CompileContext,
) -> Result<Option<CompiledAsset>, AssetError> {
    let invalid = |e: GpuReadyError| AssetError::Invalid {
        path: source.abs_path.display().to_string(),
        message: e.to_string(),
    };
    let settings = &context.settings.texture;
    let ready = if bytes.starts_with(&crate::formats::ktx2::IDENTIFIER) {
        standalone_ktx2(bytes, mode, settings).map_err(invalid)?
    } else if ext == "dds" || bytes.starts_with(DDS_MAGIC) {
        Some(standalone_dds(bytes, mode, settings).map_err(invalid)?)
    } else {
        None
    };
    Ok(ready.map(|ready| asset(source, ready, mode)))
}

fn asset(source: &Source, ready: GpuReady, mode: TextureMode) -> CompiledAsset {
    let GpuReady {
        ktx2,
        srgb,
        warning,
    } = ready;
    let mut asset = texture_asset(source, ktx2, mode, vec![source.abs_path.clone()]);
    // The manifest's colour space is the file's own, whatever the mode says.
    for file in &mut asset.files {
        file.srgb = srgb;
    }
    asset.warnings.extend(warning.map(|w| Warning::new(DiagnosticCode::PassedThrough, w)));
    asset
}
