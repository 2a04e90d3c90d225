//! What the report shows of one asset, gathered from its compiled files.

use super::THUMB_SIZE;
use crate::formats::registry::Format;
use crate::formats::{bmd1, hfont, hmesh, ktx2, qtmesh, spirv, wav};
use crate::kinds::asset::AssetStats;
use crate::outcome::AssetReport;
use crate::outcome::AssetStatus;
use crate::preview::{self, MeshView, PreviewOptions};
use crate::read_error::FormatReadError;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Bumped when the renderer changes, so cached thumbnails are redrawn.
const RENDERER_VERSION: u32 = 1;
/// Most model files shown per asset (a Qt scene can hold one `.mesh` per glTF mesh).
const MAX_MODELS: usize = 6;

#[derive(Debug, Clone)]
pub struct MeshThumb {
    /// Output file, relative to the output root.
    pub file: String,
    /// 0 = full detail.
    pub lod: usize,
    pub triangles: usize,
    /// Submeshes the simplifier could not reduce to this level (it reuses the previous
    /// one for them), out of `submeshes`.
    pub stalled: usize,
    pub submeshes: usize,
    /// Image file name under `report/img/`.
    pub image: String,
}

#[derive(Debug, Clone)]
pub struct TextureThumb {
    pub file: String,
    pub width: u32,
    pub height: u32,
    pub levels: usize,
    pub format: String,
    pub bytes: u64,
    pub image: String,
}

/// A font's thumbnail: a line of text drawn from its `.hfont` and atlas.
#[derive(Debug, Clone)]
pub struct FontThumb {
    pub file: String,
    pub glyphs: usize,
    pub kerning_pairs: usize,
    pub msdf: bool,
    /// Size of the text picture, in pixels.
    pub width: u32,
    pub height: u32,
    pub image: String,
}

/// What a font's thumbnail says, at what size.
pub const FONT_SAMPLE: &str = preview::font::DEFAULT_TEXT;
pub const FONT_SAMPLE_PX: u32 = 24;

/// One entry point of a shader asset: the `.spv` that holds it.
#[derive(Debug, Clone)]
pub struct ShaderEntry {
    pub file: String,
    pub name: String,
    /// The SPIR-V execution model (`vertex`, `fragment`, `glcompute`).
    pub model: String,
    pub words: usize,
}

/// A sound and its waveform.
#[derive(Debug, Clone)]
pub struct SoundThumb {
    pub file: String,
    /// `44100 Hz, 2 ch, 16-bit integer, 1.250 s`.
    pub summary: String,
    pub channels: u16,
    pub bytes: u64,
    pub image: String,
}

#[derive(Debug, Clone)]
pub struct AssetPage {
    pub source: String,
    pub status: AssetStatus,
    pub error: Option<String>,
    pub warnings: Vec<crate::code::Warning>,
    pub stats: AssetStats,
    /// Milliseconds of its last real build, when known.
    pub time_ms: Option<f64>,
    pub source_bytes: u64,
    /// (relative path, bytes) of every output.
    pub outputs: Vec<(String, u64)>,
    pub models: Vec<MeshThumb>,
    /// (relative path, summary) of every `.hmesh` with a cluster LOD hierarchy.
    pub cluster_lods: Vec<(String, hmesh::clod::ClodSummary)>,
    pub textures: Vec<TextureThumb>,
    pub fonts: Vec<FontThumb>,
    pub shaders: Vec<ShaderEntry>,
    pub sounds: Vec<SoundThumb>,
    /// Outputs that could not be read for the report.
    pub problems: Vec<String>,
    output_root: PathBuf,
}

impl AssetPage {
    pub fn output_bytes(&self) -> u64 {
        self.outputs.iter().map(|(_, b)| b).sum()
    }

    /// The thumbnails this asset needs.
    pub(super) fn jobs(&self) -> Vec<RenderJob> {
        let models = self.models.iter().map(|m| RenderJob {
            file_name: m.image.clone(),
            path: self.output_root.join(&m.file),
            options: PreviewOptions {
                size: THUMB_SIZE,
                view: MeshView {
                    lod: m.lod,
                    meshlets: false,
                    cluster_error: None,
                },
                mip: 0,
            },
            what: Thumb::Mesh,
        });
        let textures = self.textures.iter().map(|t| RenderJob {
            file_name: t.image.clone(),
            path: self.output_root.join(&t.file),
            options: PreviewOptions::default(),
            what: Thumb::Texture,
        });
        let fonts = self.fonts.iter().map(|f| RenderJob {
            file_name: f.image.clone(),
            path: self.output_root.join(&f.file),
            options: PreviewOptions::default(),
            what: Thumb::Text,
        });
        let sounds = self.sounds.iter().map(|s| RenderJob {
            file_name: s.image.clone(),
            path: self.output_root.join(&s.file),
            options: PreviewOptions::default(),
            what: Thumb::Waveform,
        });
        models.chain(textures).chain(fonts).chain(sounds).collect()
    }
}

/// One thumbnail to draw.
#[derive(Debug, Clone)]
pub(super) struct RenderJob {
    pub file_name: String,
    path: PathBuf,
    options: PreviewOptions,
    what: Thumb,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Thumb {
    Mesh,
    Texture,
    /// A line of text from an `.hfont`.
    Text,
    /// A sound's waveform.
    Waveform,
}

impl RenderJob {
    /// PNG bytes of the thumbnail.
    pub fn render(&self) -> Result<Vec<u8>, ThumbError> {
        if self.what == Thumb::Text {
            return Ok(
                preview::font::preview_font(&self.path, FONT_SAMPLE, FONT_SAMPLE_PX)
                    .map(|p| preview::png_bytes(&p.image))?,
            );
        }
        if self.what == Thumb::Waveform {
            let bytes = std::fs::read(&self.path)?;
            let img = super::waveform::draw(&bytes).map_err(FormatReadError::from)?;
            return Ok(preview::png_bytes(&img));
        }
        if self.what == Thumb::Texture {
            let bytes = std::fs::read(&self.path)?;
            let ktx = ktx2::read(&bytes).map_err(FormatReadError::from)?;
            let level = preview::texture::level_for_size(&ktx, THUMB_SIZE / 2);
            let t = preview::texture::decode_ktx2(&ktx, level)?;
            let img = image::RgbaImage::from_raw(t.width, t.height, t.rgba)
                .ok_or(ThumbError::WrongSize)?;
            return Ok(preview::png_bytes(&img));
        }
        Ok(preview::preview_file(&self.path, &self.options)
            .map(|p| preview::png_bytes(&p.image))?)
    }
}

/// Why a thumbnail or an output's figures cannot be made: the reader's, decoder's or
/// previewer's error as it is.
#[derive(Debug, thiserror::Error)]
pub enum ThumbError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Read(#[from] FormatReadError),
    #[error(transparent)]
    Preview(#[from] preview::PreviewError),
    #[error(transparent)]
    Decode(#[from] preview::texture::LevelDecodeError),
    #[error(transparent)]
    Text(#[from] preview::font::TextError),
    #[error("decoded level has the wrong size")]
    WrongSize,
}

/// Gathers one asset's page; problems reading its outputs are listed, not fatal.
pub fn asset_page(output: &Path, a: &AssetReport, time_ms: Option<f64>) -> AssetPage {
    let mut page = AssetPage {
        source: a.source.clone(),
        status: a.status,
        error: a.error.clone(),
        warnings: a.warnings.clone(),
        stats: a.stats.clone(),
        time_ms,
        source_bytes: a
            .inputs
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
        outputs: Vec::new(),
        models: Vec::new(),
        cluster_lods: Vec::new(),
        textures: Vec::new(),
        fonts: Vec::new(),
        shaders: Vec::new(),
        sounds: Vec::new(),
        problems: Vec::new(),
        output_root: output.to_owned(),
    };
    for rel in &a.outputs {
        let path = output.join(rel);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                page.problems.push(format!("{rel}: {e}"));
                continue;
            }
        };
        page.outputs.push((rel.clone(), bytes.len() as u64));
        let shown = Path::new(rel)
            .extension()
            .and_then(|e| e.to_str())
            .and_then(|e| SHOWN.iter().find(|(format, _)| format.has_extension(e)));
        let result = match shown {
            Some((_, show)) => show(&mut page, output, rel, &bytes),
            None => Ok(()),
        };
        if let Err(e) = result {
            page.problems.push(format!("{rel}: {e}"));
        }
    }
    // Triangle counts of Qt and BMD models come from their readers.
    for m in page.models.iter_mut().filter(|m| m.triangles == 0) {
        if let Ok(p) = triangles_of(&output.join(&m.file)) {
            m.triangles = p;
        }
    }
    page
}

/// Adds what the page shows of one output file (`output/rel`, read into `bytes`).
type Show = fn(&mut AssetPage, &Path, &str, &[u8]) -> Result<(), ThumbError>;

/// The formats the page shows more of than a name and a size, and how.
const SHOWN: [(&Format, Show); 7] = [
    (&hmesh::FORMAT, show_hmesh),
    (&qtmesh::FORMAT, show_model),
    (&bmd1::FORMAT, show_model),
    (&ktx2::FORMAT, |page, _, rel, bytes| {
        texture_thumb(rel, bytes).map(|t| page.textures.push(t))
    }),
    (&hfont::FORMAT, |page, output, rel, bytes| {
        font_thumb(output, rel, bytes).map(|t| page.fonts.push(t))
    }),
    (&spirv::FORMAT, |page, _, rel, bytes| {
        shader_entries(rel, bytes).map(|e| page.shaders.extend(e))
    }),
    (&wav::FORMAT, |page, _, rel, bytes| {
        sound_thumb(rel, bytes).map(|s| page.sounds.push(s))
    }),
];

fn show_hmesh(
    page: &mut AssetPage,
    output: &Path,
    rel: &str,
    bytes: &[u8],
) -> Result<(), ThumbError> {
    let (thumbs, clod) = hmesh_thumbs(output, rel, bytes)?;
    page.models.extend(thumbs);
    page.cluster_lods.extend(clod.map(|c| (rel.to_owned(), c)));
    Ok(())
}

/// A Qt or BMD1 model: one picture, its triangles counted later by its reader.
fn show_model(page: &mut AssetPage, _: &Path, rel: &str, bytes: &[u8]) -> Result<(), ThumbError> {
    if page.models.len() < MAX_MODELS {
        let key = content_key(&[bytes], 0);
        page.models.push(MeshThumb {
            file: rel.to_owned(),
            lod: 0,
            triangles: 0,
            stalled: 0,
            submeshes: 0,
            image: format!("{key:016x}.png"),
        });
    }
    Ok(())
}

fn triangles_of(path: &Path) -> Result<usize, ThumbError> {
    let bytes = std::fs::read(path)?;
    let scene = match path.extension().and_then(|e| e.to_str()) {
        Some("mesh") => preview::load::load_qtmesh(path, &bytes, 0),
        _ => preview::load::load_bmd(path, &bytes),
    };
    Ok(scene.map(|s| s.triangle_count())?)
}

/// One thumbnail per LOD level, and the summary of its cluster LOD hierarchy if it has
/// one. The key covers the mesh and its `.hmat` (which names the textures by content id),
/// so a change to either draws new images.
fn hmesh_thumbs(
    output: &Path,
    rel: &str,
    bytes: &[u8],
) -> Result<(Vec<MeshThumb>, Option<hmesh::clod::ClodSummary>), ThumbError> {
    let mesh = hmesh::read(bytes).map_err(FormatReadError::from)?;
    let hmat = std::fs::read(output.join(rel).with_extension("hmat")).unwrap_or_default();
    let clod = mesh.cluster_lod.as_ref().map(hmesh::clod::ClodSummary::of);
    let thumbs = (0..preview::lod_levels(&mesh))
        .map(|lod| {
            let triangles = (0..mesh.submeshes.len())
                .map(|s| preview::lod_indices(&mesh, s, lod).len() / 3)
                .sum();
            let stalled = match (&mesh.lods, lod) {
                (Some(l), 1..) => (0..mesh.submeshes.len())
                    .filter(|s| {
                        let at = s * l.lod_count as usize + lod - 1;
                        l.ranges.get(at).is_some_and(|r| r.index_count == 0)
                    })
                    .count(),
                _ => 0,
            };
            let key = content_key(&[bytes, &hmat], lod);
            MeshThumb {
                file: rel.to_owned(),
                lod,
                triangles,
                stalled,
                submeshes: mesh.submeshes.len(),
                image: format!("{key:016x}.png"),
            }
        })
        .collect();
    Ok((thumbs, clod))
}

fn texture_thumb(rel: &str, bytes: &[u8]) -> Result<TextureThumb, ThumbError> {
    let ktx = ktx2::read(bytes).map_err(FormatReadError::from)?;
    let key = content_key(&[bytes], usize::MAX);
    Ok(TextureThumb {
        file: rel.to_owned(),
        width: ktx.width,
        height: ktx.height,
        levels: ktx.levels.len(),
        format: preview::texture::format_name(&ktx),
        bytes: bytes.len() as u64,
        image: format!("{key:016x}.png"),
    })
}

/// The text sample of a font. The key covers the `.hfont` and its atlas beside it.
fn font_thumb(output: &Path, rel: &str, bytes: &[u8]) -> Result<FontThumb, ThumbError> {
    let font = hfont::read(bytes).map_err(FormatReadError::from)?;
    let layout = preview::font::layout(&font, FONT_SAMPLE, FONT_SAMPLE_PX)?;
    let atlas = std::fs::read(output.join(rel).with_extension("ktx2")).unwrap_or_default();
    let key = content_key(&[bytes, &atlas], FONT_SAMPLE_PX as usize);
    Ok(FontThumb {
        file: rel.to_owned(),
        glyphs: font.glyphs.len(),
        kerning_pairs: font.kerning.len(),
        msdf: font.is_msdf(),
        width: layout.width,
        height: layout.height,
        image: format!("{key:016x}.png"),
    })
}

fn shader_entries(rel: &str, bytes: &[u8]) -> Result<Vec<ShaderEntry>, ThumbError> {
    let m = spirv::read(bytes).map_err(FormatReadError::from)?;
    Ok(m.entry_points
        .iter()
        .map(|e| ShaderEntry {
            file: rel.to_owned(),
            name: e.name.clone(),
            model: e.model_name(),
            words: m.words,
        })
        .collect())
}

fn sound_thumb(rel: &str, bytes: &[u8]) -> Result<SoundThumb, ThumbError> {
    let info = wav::read(bytes).map_err(FormatReadError::from)?;
    let key = content_key(&[bytes], usize::MAX - 1);
    Ok(SoundThumb {
        file: rel.to_owned(),
        summary: info.summary(),
        channels: info.spec.channels,
        bytes: bytes.len() as u64,
        image: format!("{key:016x}.png"),
    })
}

/// A name for a thumbnail of these file contents. SipHash (`DefaultHasher::new()` has
/// fixed keys) because it runs at full speed even in unoptimised builds, unlike our FNV; a
/// change of algorithm between Rust releases only means the thumbnails are drawn again.
fn content_key(parts: &[&[u8]], variant: usize) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    RENDERER_VERSION.hash(&mut h);
    THUMB_SIZE.hash(&mut h);
    variant.hash(&mut h);
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}
