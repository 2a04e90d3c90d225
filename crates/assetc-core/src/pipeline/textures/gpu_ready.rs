//! KTX2 inputs that are already GPU-ready: cubemaps, arrays, 3D and 1D textures, and
//! formats assetc cannot decode (HDR packed floats, ETC2/EAC, ASTC HDR, PVRTC, ...). An
//! engine's cooker made them for the GPU, so they pass through: validated, then written
//! again with their format, layout, levels, DFD, orientation, key/values and
//! supercompression as they are. Missing mips are not generated, and HDR data is never
//! brought to 8 bits. A single 2D image of a format assetc decodes is not one of these: it
//! is decoded and encoded as the settings ask, as before.

use super::{load, TextureMode, TextureSettings};
use crate::formats::ktx2::{self, describe_vk_format, PixelFormat, StoredKtx2};

/// A texture passed through: the `.ktx2` to write, its colour space (the manifest's flag)
/// and, when the settings asked for something else than the input holds, the one warning
/// that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuReady {
    pub ktx2: Vec<u8>,
    pub srgb: bool,
    pub warning: Option<String>,
}

/// Why a GPU-ready input cannot pass through.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GpuReadyError {
    #[error("invalid KTX2 source: {0}")]
    InvalidKtx2(ktx2::Ktx2Error),
    #[error("invalid DFD: {0}")]
    Dfd(ktx2::Ktx2Error),
    #[error(transparent)]
    Dds(#[from] super::dds::DdsError),
    /// `why`: the writer's error, as it words it.
    #[error("{format}, {layout}: {why}")]
    Unwritable {
        format: String,
        layout: String,
        why: String,
    },
    /// `problems`: what the validator found, as it words each.
    #[error("{format}, {layout}: cannot be passed through: {}", problems.join("; "))]
    Invalid {
        format: String,
        layout: String,
        problems: Vec<String>,
    },
}

/// What the KTX2 writer says it is when the input names no writer.
const WRITER: &str = concat!("assetc ", env!("CARGO_PKG_VERSION"), " (passed through)");

/// The shape of a KTX2 file as a message says it: `2D 512x512`, `cubemap 256x256`,
/// `array of 4 2D 64x64 layers`, `3D 32x32x9`, `1D 256`.
pub fn describe_layout(stored: &StoredKtx2) -> String {
    let (w, h, d) = (stored.width, stored.height, stored.depth);
    let single = if stored.face_count == ktx2::CUBE_FACES {
        format!("cubemap {w}x{h}")
    } else if d > 0 {
        format!("3D {w}x{h}x{d}")
    } else if h == 0 {
        format!("1D {w}")
    } else {
        format!("2D {w}x{h}")
    };
    match stored.layer_count {
        0 => single,
        layers => format!("array of {layers} {single} layers"),
    }
}

/// Whether a KTX2 input is one image assetc can decode and encode again: one 2D image (no
/// faces, layers or depth) of a format `load` decodes.
pub fn is_reencodable(stored: &StoredKtx2) -> bool {
    let plain_2d =
        stored.face_count == 1 && stored.layer_count <= 1 && stored.depth <= 1 && stored.height > 0;
    plain_2d && format_decodes(stored)
}

fn format_decodes(stored: &StoredKtx2) -> bool {
    let model = ktx2::Dfd::parse(&stored.dfd, 0).map_or(0, |d| d.color_model);
    load::decodes(stored.vk_format, model, stored.supercompression)
}

/// Whether a vkFormat holds HDR values (a float format, packed or block-compressed).
fn is_hdr(vk_format: u32) -> bool {
    ktx2::vk_format_name(vk_format).is_some_and(|n| n.contains("FLOAT"))
}

/// The format these settings would write for a texture of `mode`, HDR or not.
fn settings_format(settings: &TextureSettings, mode: TextureMode, hdr: bool) -> PixelFormat {
    match (hdr, settings.hdr_as_bc6h()) {
        (true, true) => PixelFormat::Bc6h,
        (true, false) => PixelFormat::Rgba16f,
        (false, _) => settings.for_class(mode).pixel_format(),
    }
}

/// A standalone KTX2 input, read and checked by the reader (every level within the file,
/// of the size the header implies): passed through when it is GPU-ready and not one image
/// assetc re-encodes, else `None` (encode it as any other image).
pub fn standalone_ktx2(
    bytes: &[u8],
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<Option<GpuReady>, GpuReadyError> {
    let stored = StoredKtx2::from_file(bytes).map_err(GpuReadyError::InvalidKtx2)?;
    if is_reencodable(&stored) {
        return Ok(None);
    }
    pass_through(stored, mode, settings, None).map(Some)
}

/// A standalone DDS input: its surfaces moved into a KTX2 container of the same layout and
/// the matching vkFormat (`dds`), never decoded.
pub fn standalone_dds(
    bytes: &[u8],
    mode: TextureMode,
    settings: &TextureSettings,
) -> Result<GpuReady, GpuReadyError> {
    let stored = super::dds::dds_to_ktx2(bytes, mode)?;
    pass_through(
        stored,
        mode,
        settings,
        Some("a DDS file's surfaces are moved into KTX2, not decoded"),
    )
}

/// Writes a container's parts again with `KTXwriter` added when the input names none,
/// checked by our validator. The warning, when there is one, says the settings' format was
/// not applied and why (`why_kept`, else the reason a KTX2 input is not re-encoded).
fn pass_through(
    mut stored: StoredKtx2,
    mode: TextureMode,
    settings: &TextureSettings,
    why_kept: Option<&str>,
) -> Result<GpuReady, GpuReadyError> {
    let dfd = ktx2::Dfd::parse(&stored.dfd, 0).map_err(GpuReadyError::Dfd)?;
    stored.name_writer_if_missing(WRITER);
    let name = describe_vk_format(stored.vk_format);
    let layout = describe_layout(&stored);
    let out = ktx2::write_stored(&stored).map_err(|e| GpuReadyError::Unwritable {
        format: name.clone(),
        layout: layout.clone(),
        why: e.to_string(),
    })?;
    let problems = ktx2::validate(&out);
    if !problems.is_empty() {
        return Err(GpuReadyError::Invalid {
            format: name,
            layout,
            problems: problems.iter().map(ToString::to_string).collect(),
        });
    }
    let held = PixelFormat::from_vk_format(stored.vk_format, dfd.color_model).map(|(f, _)| f);
    let wanted = settings_format(settings, mode, is_hdr(stored.vk_format));
    let warning = (held != Some(wanted)).then(|| {
        let why = if let Some(why) = why_kept {
            why.to_owned()
        } else if format_decodes(&stored) {
            format!("assetc re-encodes only single 2D images, not a {layout}")
        } else {
            format!("assetc cannot decode {name}")
        };
        format!(
            "passed through as it is ({name}, {layout}, {} level(s)): {why}, so it was not encoded as {}",
            stored.levels.len(),
            wanted.name()
        )
    });
    Ok(GpuReady {
        ktx2: out,
        srgb: dfd.transfer_function == ktx2::TRANSFER_SRGB,
        warning,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::ktx2::{Ktx2Image, StoredLevel, CUBE_FACES};
    use crate::pipeline::textures::TextureFormat;

    fn rgba8(faces: u32) -> Vec<u8> {
        ktx2::write(&Ktx2Image {
            format: PixelFormat::Rgba8,
            srgb: true,
            has_alpha: false,
            width: 4,
            height: 4,
            depth: 0,
            faces,
            levels: vec![(0..64 * faces).map(|i| i as u8).collect()],
            zstd_level: None,
        })
        .unwrap()
    }

    /// A 2D E5B9G9R9 file (an HDR format assetc cannot decode), 2x2, one level.
    fn e5b9g9r9() -> Vec<u8> {
        let mut dfd = ktx2::Dfd::for_format(PixelFormat::Rgba8, false, false);
        dfd.samples.truncate(3);
        let stored = StoredKtx2 {
            vk_format: 123,
            type_size: 4,
            width: 2,
            height: 2,
            depth: 0,
            layer_count: 0,
            face_count: 1,
            supercompression: ktx2::SUPERCOMPRESSION_NONE,
            dfd: dfd.to_bytes(),
            key_values: vec![("KTXwriter".into(), b"test\0".to_vec())],
            supercompression_global_data: Vec::new(),
            levels: vec![StoredLevel {
                bytes: vec![7; 16],
                uncompressed_byte_length: 16,
            }],
        };
        ktx2::write_stored(&stored).unwrap()
    }

    #[test]
    fn decodes_says_exactly_which_formats_decode_level_takes() {
        let zeros = vec![0u8; 4096];
        let mut cases: Vec<(u32, u8)> = (0..=184).map(|vk| (vk, 0)).collect();
        cases.push((0, ktx2::MODEL_UASTC));
        for (vk, model) in cases {
            let decoded = load::decode_level(vk, u32::from(model), &zeros, 4, 4).is_ok();
            let claimed = load::decodes(vk, model, ktx2::SUPERCOMPRESSION_NONE);
            assert_eq!(claimed, decoded, "vkFormat {vk}, model {model}");
        }
    }

    #[test]
    fn a_cubemap_passes_through_unchanged_with_one_warning_when_another_format_is_asked() {
        let cube = rgba8(CUBE_FACES);
        let settings = TextureSettings::default();
        let ready = standalone_ktx2(&cube, TextureMode::Color, &settings)
            .unwrap()
            .expect("a cubemap passes through");
        // Our own file has every part the validator asks for: nothing to change.
        assert_eq!(ready.ktx2, cube);
        assert!(ready.srgb);
        let warning = ready.warning.expect("uastc was asked for");
        assert!(warning.contains("VK_FORMAT_R8G8B8A8_SRGB"), "{warning}");
        assert!(warning.contains("cubemap 4x4"), "{warning}");
        assert!(warning.contains("uastc"), "{warning}");
        // Asked for what it holds: no warning.
        let rgba = TextureSettings {
            format: TextureFormat::Rgba8,
            ..settings
        };
        let ready = standalone_ktx2(&cube, TextureMode::Color, &rgba).unwrap();
        assert_eq!(ready.and_then(|r| r.warning), None);
    }

    #[test]
    fn a_single_2d_image_of_a_decoded_format_is_left_to_the_encoder() {
        let settings = TextureSettings::default();
        assert_eq!(
            standalone_ktx2(&rgba8(1), TextureMode::Color, &settings),
            Ok(None)
        );
    }

    #[test]
    fn hdr_that_cannot_be_decoded_is_kept_and_named() {
        let file = e5b9g9r9();
        let ready = standalone_ktx2(&file, TextureMode::Linear, &TextureSettings::default())
            .unwrap()
            .expect("passes through");
        assert_eq!(ready.ktx2, file);
        assert!(!ready.srgb);
        let warning = ready.warning.unwrap();
        assert!(
            warning.contains("cannot decode VK_FORMAT_E5B9G9R9_UFLOAT_PACK32"),
            "{warning}"
        );
        // HDR is compared with the HDR format the settings write, not the LDR one.
        assert!(warning.ends_with("rgba16f"), "{warning}");
    }

    #[test]
    fn a_truncated_file_is_an_error_not_a_pass_through() {
        let cube = rgba8(CUBE_FACES);
        let e = standalone_ktx2(
            &cube[..cube.len() - 10],
            TextureMode::Color,
            &Default::default(),
        )
        .unwrap_err();
        assert!(matches!(e, GpuReadyError::InvalidKtx2(_)), "{e}");
    }

    /// xorshift64*: seeded, the same mutations everywhere.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A mutation of `seed`: bytes overwritten (often in the header, where the sizes and
    /// counts are), a cut, or a run duplicated.
    fn mutate(seed: &[u8], state: &mut u64) -> Vec<u8> {
        let mut b = seed.to_vec();
        let pick = |state: &mut u64, n: usize| (next(state) % n.max(1) as u64) as usize;
        match next(state) % 4 {
            0 | 1 => {
                // The first 96 bytes hold every count, size and offset of both formats.
                let span = if next(state).is_multiple_of(2) {
                    96.min(b.len())
                } else {
                    b.len()
                };
                for _ in 0..1 + pick(state, 4) {
                    let at = pick(state, span);
                    b[at] = next(state) as u8;
                }
            }
            2 => b.truncate(pick(state, b.len())),
            _ => {
                let from = pick(state, b.len());
                let run: Vec<u8> = b[from..].iter().take(64).copied().collect();
                let at = pick(state, b.len());
                b.splice(at..at, run);
            }
        }
        b
    }

    #[test]
    fn mutated_gpu_ready_inputs_fail_or_pass_through_valid_never_panic() {
        // Every layout the pass-through handles: a cube, a 3D texture, a 2D image, and
        // DDS files of each kind the DDS reader knows (cube array, BC1, a plain image).
        let mut seeds = vec![rgba8(CUBE_FACES), e5b9g9r9(), rgba8(1)];
        seeds.extend(super::super::dds::test_seed_files());
        let settings = TextureSettings::default();
        let mut state = 0x5eed_0dd5_u64;
        let mut passed = 0;
        for (i, seed) in seeds.iter().enumerate() {
            for _ in 0..300 {
                let bytes = mutate(seed, &mut state);
                let is_dds = bytes.starts_with(b"DDS ");
                let outcome =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        match is_dds || i >= 3 {
                            true => standalone_dds(&bytes, TextureMode::Color, &settings).map(Some),
                            false => standalone_ktx2(&bytes, TextureMode::Color, &settings),
                        }
                    }));
                let Ok(result) = outcome else {
                    panic!(
                        "seed {i}: a mutation panicked: {:02x?}",
                        &bytes[..bytes.len().min(96)]
                    );
                };
                // What passes through is a file our validator accepts, no larger than
                // the input's texels allow.
                if let Ok(Some(ready)) = result {
                    assert_eq!(ktx2::validate(&ready.ktx2), vec![], "seed {i}");
                    assert!(ready.ktx2.len() <= bytes.len() + 4096, "seed {i}");
                    passed += 1;
                }
            }
        }
        // Mutations of the data alone still pass through: the loop saw both outcomes.
        assert!(passed > 0);
    }
}
