//! Pictures of compiled files (`assetc preview`, `build --report`): an `.hmesh` with its
//! `.hmat` and textures, a Qt `.mesh` or a `.bmd` rendered on the CPU from a 3/4 view, or
//! one level of a `.ktx2` (cubemaps unfolded, 3D textures as slices, HDR tone mapped), or
//! a line of text from an `.hfont` and its atlas.
//! Everything is read from the compiled files themselves, so the picture shows what the
//! engine gets, not what the source said.

pub mod camera;
pub mod font;
pub mod load;
pub mod raster;
pub mod scene;
// Decoding `.ktx2` levels is the core's (foreign `.ktx2` sources need it too).
pub use crate::pipeline::textures::decode::{self as texture, tonemap, unfold};

pub use load::{lod_indices, lod_levels, MeshView};
pub use scene::{Scene, BACKGROUND};

use std::path::{Path, PathBuf};

/// Default edge of a preview, in pixels.
pub const DEFAULT_SIZE: u32 = 512;
/// Largest edge `--size` accepts (a 64 MiB framebuffer).
pub const MAX_SIZE: u32 = 4096;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreviewOptions {
    /// Edge of the square image (meshes); textures keep their own size.
    pub size: u32,
    pub view: MeshView,
    /// Mip level of a `.ktx2`.
    pub mip: usize,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        Self {
            size: DEFAULT_SIZE,
            view: MeshView::default(),
            mip: 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{}: cannot preview this kind of file (expected .hmesh, .mesh, .bmd, .ktx2 or .hfont)", .0.display())]
    Unsupported(PathBuf),
    #[error("{0}")]
    Option(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl PreviewError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_owned(),
            source,
        }
    }
    pub(crate) fn read(path: &Path, e: impl std::fmt::Display) -> Self {
        Self::Read {
            path: path.to_owned(),
            message: e.to_string(),
        }
    }
}

/// What a preview shows, besides the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    pub image: image::RgbaImage,
    /// Triangles drawn (0 for a texture).
    pub triangles: usize,
    /// What the picture leaves out and why (see [`scene::Scene::notes`]).
    pub notes: Vec<String>,
}

/// Refuses options that do not apply to `path`'s format, rather than ignoring them:
/// `--meshlets` on a Qt `.mesh` once drew the plain mesh and said nothing.
pub fn check_options(path: &Path, options: &PreviewOptions) -> Result<(), PreviewError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let refuse = |option: &str, why: &str| {
        Err(PreviewError::Option(format!(
            "{option} does not apply to {}: {why}",
            path.display()
        )))
    };
    if options.view.meshlets && ext != "hmesh" {
        return refuse("--meshlets", "only a .hmesh holds meshlets");
    }
    if options.view.cluster_error.is_some() && ext != "hmesh" {
        return refuse(
            "--cluster-error",
            "only a .hmesh holds a cluster LOD hierarchy",
        );
    }
    if options
        .view
        .cluster_error
        .is_some_and(|px| !(px >= 0.0 && px.is_finite()))
    {
        return Err(PreviewError::Option(
            "--cluster-error must be a finite number of pixels >= 0".into(),
        ));
    }
    if options.view.lod > 0 && !matches!(ext.as_str(), "hmesh" | "mesh") {
        return refuse("--lod", "only a .hmesh or a Qt .mesh holds LOD levels");
    }
    if options.mip > 0 && ext != "ktx2" {
        return refuse("--mip", "only a .ktx2 has mip levels");
    }
    Ok(())
}

/// Renders any previewable file, chosen by its extension.
pub fn preview_file(path: &Path, options: &PreviewOptions) -> Result<Preview, PreviewError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !matches!(ext.as_str(), "hmesh" | "mesh" | "bmd" | "ktx2" | "hfont") {
        return Err(PreviewError::Unsupported(path.to_owned()));
    }
    check_options(path, options)?;
    if ext == "hfont" {
        return font::preview_font(path, font::DEFAULT_TEXT, font::DEFAULT_PX);
    }
    if options.size == 0 || options.size > MAX_SIZE {
        return Err(PreviewError::Option(format!(
            "--size must be 1..={MAX_SIZE}, got {}",
            options.size
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| PreviewError::io(path, e))?;
    let scene = match ext.as_str() {
        "hmesh" => load::load_hmesh(path, &bytes, options.view, options.size)?,
        "mesh" => load::load_qtmesh(path, &bytes, options.view.lod)?,
        "bmd" => load::load_bmd(path, &bytes)?,
        _ => return preview_ktx2(path, &bytes, options.mip),
    };
    Ok(Preview {
        image: scene.render(options.size),
        triangles: scene.triangle_count(),
        notes: scene.notes,
    })
}

/// One level of a `.ktx2`, at its own size (a cubemap as a 4x3 cross of its faces, a 3D
/// texture as a strip of its slices, RGBA16F tone mapped: see [`texture::decode_ktx2`]).
fn preview_ktx2(path: &Path, bytes: &[u8], mip: usize) -> Result<Preview, PreviewError> {
    let ktx = crate::formats::ktx2::read(bytes).map_err(|e| PreviewError::read(path, e))?;
    let t = texture::decode_ktx2(&ktx, mip).map_err(|e| PreviewError::read(path, e))?;
    let image = image::RgbaImage::from_raw(t.width, t.height, t.rgba)
        .ok_or_else(|| PreviewError::read(path, "decoded level has the wrong size"))?;
    Ok(Preview {
        image,
        triangles: 0,
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod texture_tests;

/// PNG bytes of an image (deterministic: same pixels, same bytes).
pub fn png_bytes(image: &image::RgbaImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    // Encoding an in-memory RGBA8 buffer to memory has no failure mode but a bug.
    if image.write_to(&mut out, image::ImageFormat::Png).is_err() {
        return Vec::new();
    }
    out.into_inner()
}

/// Share of pixels that differ from [`BACKGROUND`] (how much of the frame the model
/// covers).
pub fn coverage(image: &image::RgbaImage) -> f64 {
    let total = image.pixels().len().max(1);
    let covered = image.pixels().filter(|p| p.0 != BACKGROUND).count();
    covered as f64 / total as f64
}
