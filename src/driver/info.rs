//! `assetc info`: statistics of every file of a compiled tree, and totals.

use crate::formats::{hanim, hfont, hmat, hmesh, ktx2, spirv, wav, FormatKind};
use serde::Serialize;
use std::path::Path;

/// What one file holds; fields that do not apply to its format are absent.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FileInfo {
    pub path: String,
    pub bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertices: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triangles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meshlets: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submeshes: Option<u64>,
    /// Triangles of each reduced level, summed over submeshes (0 = stalled everywhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lod_triangles: Vec<u64>,
    /// LOD levels (per submesh) with no triangles: the simplifier could not reduce them.
    #[serde(skip_serializing_if = "is_zero")]
    pub empty_lod_levels: u64,
    /// The cluster LOD hierarchy, when the mesh has one (`mesh.cluster_lod`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_lod: Option<ClusterLodInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub materials: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joints: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clips: Option<u64>,
    /// Texture: width x height (x depth for a 3D texture, "cube" for a cubemap), format
    /// name, mip levels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture: Option<String>,
    /// Texture: faceCount (6 for a cubemap, else 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faces: Option<u32>,
    /// Texture: pixelDepth of a 3D texture (a colour LUT's size); absent for 2D and cubes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Font: glyphs, kerning pairs, SDF or MSDF and the atlas size
    /// (`191 glyphs, 1304 kerning pairs, SDF 512x512`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    /// Texture: estimated GPU memory, all mips.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_bytes: Option<u64>,
    /// SPIR-V: its entry points as `<execution model> <name>`, and its version and
    /// length in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entry_points: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spirv_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spirv_words: Option<u64>,
    /// Sound: rate, channels, sample format, duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A mesh's cluster LOD hierarchy in counts and bytes (`hmesh::clod::ClodSummary`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClusterLodInfo {
    pub levels: u32,
    pub clusters: u64,
    pub groups: u64,
    /// Summed over submeshes; the first is the source's triangles.
    pub triangles_per_level: Vec<u64>,
    /// CLSM, CLUS, CLBN, CLER, CLGR and CLND.
    pub table_bytes: u64,
    /// CLVR + CLTR, or CLCO + CLCD.
    pub topology_bytes: u64,
    /// `plain` or `meshlet codec`.
    pub topology: &'static str,
}

impl From<hmesh::clod::ClodSummary> for ClusterLodInfo {
    fn from(s: hmesh::clod::ClodSummary) -> Self {
        Self {
            levels: s.levels,
            clusters: s.clusters,
            groups: s.groups,
            triangles_per_level: s.triangles_per_level,
            table_bytes: s.table_bytes,
            topology_bytes: s.topology_bytes,
            topology: if s.encoded { "meshlet codec" } else { "plain" },
        }
    }
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Totals {
    pub files: u64,
    pub bytes: u64,
    pub meshes: u64,
    pub vertices: u64,
    pub triangles: u64,
    pub meshlets: u64,
    pub materials: u64,
    pub textures: u64,
    pub clips: u64,
    pub sounds: u64,
    /// Estimated GPU memory of every texture.
    pub texture_gpu_bytes: u64,
    /// LOD levels (per submesh) with no triangles.
    pub empty_lod_levels: u64,
}

pub fn tree_info(root: &Path) -> (Vec<FileInfo>, Totals) {
    let mut files = Vec::new();
    let mut totals = Totals::default();
    for entry in walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        // Every file counts (a Qt target's `.qml` and `maps/*.png` included); hidden ones
        // are the build's own bookkeeping (`.assetc-cache.bin`, temporary files).
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !entry.file_type().is_file() || hidden {
            continue;
        }
        let kind = FormatKind::from_path(entry.path());
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        let mut info = FileInfo {
            path: rel,
            bytes: bytes.len() as u64,
            ..Default::default()
        };
        if let Some(Err(e)) = kind.map(|kind| describe(kind, &bytes, &mut info)) {
            info.error = Some(e.to_string());
        }
        totals.files += 1;
        totals.bytes += info.bytes;
        totals.meshes += u64::from(kind == Some(FormatKind::HMesh) && info.error.is_none());
        totals.vertices += info.vertices.unwrap_or(0);
        totals.triangles += info.triangles.unwrap_or(0);
        totals.meshlets += info.meshlets.unwrap_or(0);
        totals.materials += if kind == Some(FormatKind::HMat) {
            info.materials.unwrap_or(0)
        } else {
            0
        };
        totals.textures += u64::from(kind == Some(FormatKind::Ktx2));
        totals.clips += info.clips.unwrap_or(0);
        totals.sounds += u64::from(info.audio.is_some());
        totals.texture_gpu_bytes += info.gpu_bytes.unwrap_or(0);
        totals.empty_lod_levels += info.empty_lod_levels;
        files.push(info);
    }
    (files, totals)
}

fn describe(
    kind: FormatKind,
    bytes: &[u8],
    info: &mut FileInfo,
) -> Result<(), crate::read_error::FormatReadError> {
    match kind {
        FormatKind::HMesh => {
            let v = hmesh::HMeshView::parse(bytes)?;
            info.vertices = Some(u64::from(v.desc.vertex_count));
            info.triangles = Some(u64::from(v.desc.index_count / 3));
            info.meshlets = Some(u64::from(v.desc.meshlet_count));
            info.submeshes = Some(u64::from(v.desc.submesh_count));
            info.materials = Some(u64::from(v.desc.material_count));
            info.joints = v.skin.as_ref().map(|s| s.joints.len() as u64);
            info.cluster_lod = v
                .cluster_lod
                .as_ref()
                .map(|l| hmesh::clod::ClodSummary::of(l).into());
            if let Some(l) = &v.lods {
                let n = l.lod_count.max(1) as usize;
                info.lod_triangles = (0..l.lod_count as usize)
                    .map(|lod| {
                        l.ranges
                            .iter()
                            .skip(lod)
                            .step_by(n)
                            .map(|r| u64::from(r.index_count / 3))
                            .sum()
                    })
                    .collect();
                info.empty_lod_levels =
                    l.ranges.iter().filter(|r| r.index_count == 0).count() as u64;
            }
        }
        FormatKind::HMat => {
            info.materials = Some(hmat::read(bytes)?.materials.len() as u64);
        }
        FormatKind::HAnim => {
            let anim = hanim::read(bytes)?;
            info.clips = Some(anim.clips.len() as u64);
            // The joints its clips animate (a clip names joints by index into the
            // skeleton of the `.hmesh` beside it).
            let animated: std::collections::BTreeSet<u32> = anim
                .clips
                .iter()
                .flat_map(|c| c.channels.iter().map(|ch| ch.joint))
                .collect();
            info.joints = Some(animated.len() as u64);
        }
        FormatKind::Ktx2 => {
            let k = ktx2::read(bytes)?;
            let format = k.pixel_format().map_or_else(
                || format!("vkFormat {}", k.vk_format),
                |(f, srgb)| {
                    format!("{}{}", f.name(), if srgb { " sRGB" } else { "" }).to_uppercase()
                },
            );
            let shape = match (k.is_cube(), k.depth) {
                (true, _) => " cube".to_string(),
                (false, 0) => String::new(),
                (false, d) => format!("x{d}"),
            };
            info.texture = Some(format!(
                "{}x{}{shape} {format}, {} mips",
                k.width,
                k.height,
                k.levels.len()
            ));
            info.faces = Some(k.face_count);
            info.depth = (k.depth > 0).then_some(k.depth);
            info.gpu_bytes = gpu_bytes(&k);
        }
        FormatKind::HFont => {
            let f = hfont::read(bytes)?;
            info.font = Some(format!(
                "{} glyphs, {} kerning pairs, {} {}x{}",
                f.glyphs.len(),
                f.kerning.len(),
                if f.is_msdf() { "MSDF" } else { "SDF" },
                f.header.atlas_width,
                f.header.atlas_height
            ));
        }
        FormatKind::Spirv => {
            let m = spirv::read(bytes)?;
            info.entry_points = m
                .entry_points
                .iter()
                .map(|e| format!("{} {}", e.model_name(), e.name))
                .collect();
            info.spirv_version = Some(format!("{}.{}", m.version.0, m.version.1));
            info.spirv_words = Some(m.words as u64);
        }
        FormatKind::Wav => {
            info.audio = Some(wav::read(bytes)?.summary());
        }
        _ => {}
    }
    Ok(())
}

/// Bytes a texture takes in GPU memory once uploaded, all mips, every face, layer and
/// depth slice (UASTC transcodes to a 16-byte 4x4 block format, BC7 or ASTC, so it counts
/// as its stored block size).
pub fn gpu_bytes(k: &ktx2::Ktx2) -> Option<u64> {
    let (f, _) = k.pixel_format()?;
    (0..k.levels.len())
        .map(|l| {
            f.block()
                .level_bytes(k.width, k.height.max(1), l as u32, k.level_images(l))
        })
        .sum()
}

/// Per source (from the build's cache): the bytes of its inputs and of its outputs.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct SourceSizes {
    pub source: String,
    pub source_bytes: u64,
    pub output_bytes: u64,
}

pub fn source_sizes(root: &Path) -> Vec<SourceSizes> {
    let cache = super::cache::Cache::load(root);
    cache
        .assets
        .iter()
        .map(|(source, r)| SourceSizes {
            source: source.clone(),
            source_bytes: r.inputs.iter().map(|i| i.size).sum(),
            output_bytes: r
                .outputs
                .iter()
                .filter_map(|o| std::fs::metadata(root.join(o)).ok())
                .map(|m| m.len())
                .sum(),
        })
        .collect()
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ktx2::{Ktx2Image, PixelFormat};

    fn rgba(format: PixelFormat, side: u32, depth: u32, faces: u32) -> Ktx2Image {
        let mut img = Ktx2Image {
            format,
            srgb: false,
            has_alpha: true,
            width: side,
            height: side,
            depth,
            faces,
            levels: vec![],
            zstd_level: Some(1),
        };
        img.levels = (0..img.full_mip_count())
            .map(|l| vec![0; img.level_bytes(l).unwrap() as usize])
            .collect();
        img
    }

    #[test]
    fn textures_show_cube_depth_and_rgba16f() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("a_cube.ktx2", rgba(PixelFormat::Rgba16f, 8, 0, 6)),
            ("b_lut.ktx2", rgba(PixelFormat::Rgba8, 4, 4, 1)),
        ];
        for (name, img) in &files {
            std::fs::write(dir.path().join(name), ktx2::write(img).unwrap()).unwrap();
        }
        let (infos, totals) = tree_info(dir.path());
        assert_eq!(infos.len(), 2);
        let (cube, lut) = (&infos[0], &infos[1]);
        assert_eq!(cube.texture.as_deref(), Some("8x8 cube RGBA16F, 4 mips"));
        assert_eq!((cube.faces, cube.depth), (Some(6), None));
        // Six faces of 8x8, 4x4, 2x2 and 1x1 texels, 8 bytes each.
        assert_eq!(cube.gpu_bytes, Some(6 * (64 + 16 + 4 + 1) * 8));
        assert_eq!(lut.texture.as_deref(), Some("4x4x4 RGBA8, 3 mips"));
        assert_eq!((lut.faces, lut.depth), (Some(1), Some(4)));
        // 4x4x4, 2x2x2 and 1x1x1 texels, 4 bytes each: depth halves with each level.
        assert_eq!(lut.gpu_bytes, Some((64 + 8 + 1) * 4));
        assert_eq!(totals.textures, 2);
        let json = serde_json::to_value(lut).unwrap();
        assert_eq!(
            (json["faces"].as_u64(), json["depth"].as_u64()),
            (Some(1), Some(4))
        );
        assert!(serde_json::to_value(cube).unwrap().get("depth").is_none());
    }
}
