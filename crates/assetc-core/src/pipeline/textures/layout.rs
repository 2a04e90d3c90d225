//! How one standalone image holds several images (`texture.cubemap`, `texture.array_layers`),
//! and the check of its size against that layout. An image that does not fit is refused
//! with its size and the sizes that would: never resampled to fit.

use serde::{de, Deserializer, Serializer};

/// `texture.cubemap`: how a standalone image holds a cube's six faces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CubeLayout {
    /// Not a cubemap (`false`, the default).
    #[default]
    Off,
    /// An equirectangular panorama, 2:1 (`true` or `"panorama"`).
    Panorama,
    /// Six faces in a row (6:1) or a column (1:6), in the order +X -X +Y -Y +Z -Z.
    Strip,
    /// A cross: 4:3 (+Y above +Z, the row -X +Z +X -Z, -Y below +Z) or 3:4 (+Y, the row
    /// -X +Z +X, -Y, then -Z turned upside down).
    Cross,
}

impl CubeLayout {
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "false",
            Self::Panorama => "panorama",
            Self::Strip => "strip",
            Self::Cross => "cross",
        }
    }

    /// The width:height ratios an image of this layout may have.
    pub fn aspects(self) -> &'static [(u32, u32)] {
        match self {
            Self::Off => &[],
            Self::Panorama => &[(2, 1)],
            Self::Strip => &[(6, 1), (1, 6)],
            Self::Cross => &[(4, 3), (3, 4)],
        }
    }

    /// The aspect of `aspects` a `width` x `height` image has exactly, or an error naming
    /// its size and the sizes near it that would fit.
    pub fn aspect_of(self, width: u32, height: u32) -> Result<(u32, u32), LayoutError> {
        let aspects = self.aspects();
        if let Some(&a) = aspects.iter().find(|&&(aw, ah)| {
            u64::from(width) * u64::from(ah) == u64::from(height) * u64::from(aw)
                && width.is_multiple_of(aw)
        }) {
            return Ok(a);
        }
        let ratios: Vec<String> = aspects.iter().map(|(w, h)| format!("{w}:{h}")).collect();
        Err(LayoutError::CubeAspect {
            width,
            height,
            layout: self.name(),
            ratios: ratios.join(" or "),
            fitting: or_list(&fitting_sizes(width, height, aspects)),
        })
    }
}

/// Sizes of the ratios `aspects` that keep `width` or keep `height`, each rounded to the
/// nearest whole cells (a ratio w:h is cut in w x h cells): e.g. 128x128 for 2:1 gives
/// 256x128 and 128x64.
pub fn fitting_sizes(width: u32, height: u32, aspects: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut sizes = Vec::new();
    for &(aw, ah) in aspects {
        let cell_by_height = (height / ah).max(1);
        let cell_by_width = (width / aw).max(1);
        for cell in [cell_by_height, cell_by_width] {
            let size = (cell.saturating_mul(aw), cell.saturating_mul(ah));
            if !sizes.contains(&size) {
                sizes.push(size);
            }
        }
    }
    sizes
}

/// "a, b or c" of sizes written WxH.
pub fn or_list(sizes: &[(u32, u32)]) -> String {
    let names: Vec<String> = sizes.iter().map(|(w, h)| format!("{w}x{h}")).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// How `texture.array_layers` cuts an image: along its longer side (top to bottom when it
/// is square) into `layers` equal layers, layer 0 first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayStrip {
    pub layer_width: u32,
    pub layer_height: u32,
    /// Layers stacked top to bottom (else left to right).
    pub vertical: bool,
}

/// The strip a `width` x `height` image of `layers` layers is, or an error naming its size
/// and the nearest sizes that would be one.
pub fn array_strip(width: u32, height: u32, layers: u32) -> Result<ArrayStrip, LayoutError> {
    let layers = layers.max(1);
    let vertical = height >= width;
    let long = if vertical { height } else { width };
    if long.is_multiple_of(layers) && long >= layers {
        let cut = long / layers;
        return Ok(if vertical {
            ArrayStrip {
                layer_width: width,
                layer_height: cut,
                vertical,
            }
        } else {
            ArrayStrip {
                layer_width: cut,
                layer_height: height,
                vertical,
            }
        });
    }
    // Saturating: a side near u32::MAX (a hostile header) still gets a message.
    let below = (long / layers).max(1).saturating_mul(layers);
    let above = (long / layers).saturating_add(1).saturating_mul(layers);
    let sizes: Vec<(u32, u32)> = [below, above]
        .iter()
        .map(|&l| if vertical { (width, l) } else { (l, height) })
        .collect();
    Err(LayoutError::NotAStrip {
        width,
        height,
        layers,
        side: if vertical { "its height" } else { "its width" },
        long,
        fitting: or_list(&sizes),
    })
}

/// Why an image cannot be cut into a cube's faces or an array's layers: its size, and
/// the sizes near it that would be (`fitting`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error(
        "{width}x{height} does not fit `cubemap = \"{layout}\"`, which needs {ratios}: {fitting} would (the image is not resampled to fit)"
    )]
    CubeAspect {
        width: u32,
        height: u32,
        layout: &'static str,
        ratios: String,
        fitting: String,
    },
    #[error(
        "{width}x{height} is not a strip of {layers} equal layers ({side} {long} is not a multiple of {layers}; layers are cut along the longer side, top to bottom when square): {fitting} would be"
    )]
    NotAStrip {
        width: u32,
        height: u32,
        layers: u32,
        side: &'static str,
        long: u32,
        fitting: String,
    },
}

/// The largest `texture.array_layers` accepted: Vulkan's guaranteed minimum of
/// `maxImageArrayLayers` is 256, desktop GPUs give 2048.
pub const MAX_ARRAY_LAYERS: u32 = 2048;

/// build.toml spells `texture.cubemap` as `true`/`false` (as before layouts existed) or a
/// layout's name; `true` stays `true` when written back, so settings that predate the
/// layouts keep their text.
pub(super) mod cube_layout_serde {
    use super::*;

    pub fn serialize<S: Serializer>(layout: &CubeLayout, s: S) -> Result<S::Ok, S::Error> {
        match layout {
            CubeLayout::Off => s.serialize_bool(false),
            CubeLayout::Panorama => s.serialize_bool(true),
            other => s.serialize_str(other.name()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CubeLayout, D::Error> {
        d.deserialize_any(LayoutVisitor)
    }

    struct LayoutVisitor;

    impl de::Visitor<'_> for LayoutVisitor {
        type Value = CubeLayout;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("true, false, \"panorama\", \"strip\" or \"cross\"")
        }

        fn visit_bool<E: de::Error>(self, on: bool) -> Result<CubeLayout, E> {
            Ok(if on {
                CubeLayout::Panorama
            } else {
                CubeLayout::Off
            })
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<CubeLayout, E> {
            match name.to_ascii_lowercase().as_str() {
                "panorama" => Ok(CubeLayout::Panorama),
                "strip" => Ok(CubeLayout::Strip),
                "cross" => Ok(CubeLayout::Cross),
                _ => Err(E::custom(format!(
                    "unknown cubemap layout {name:?} (true, false, \"panorama\", \"strip\" or \"cross\")"
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aspects_are_exact_and_misfits_name_sizes_that_fit() {
        assert_eq!(CubeLayout::Panorama.aspect_of(256, 128), Ok((2, 1)));
        assert_eq!(CubeLayout::Strip.aspect_of(768, 128), Ok((6, 1)));
        assert_eq!(CubeLayout::Strip.aspect_of(64, 384), Ok((1, 6)));
        assert_eq!(CubeLayout::Cross.aspect_of(512, 384), Ok((4, 3)));
        assert_eq!(CubeLayout::Cross.aspect_of(384, 512), Ok((3, 4)));
        // The square lightmap that once became a 32x32 cube without a word.
        let e = CubeLayout::Panorama
            .aspect_of(128, 128)
            .unwrap_err()
            .to_string();
        assert!(e.contains("128x128") && e.contains("2:1"), "{e}");
        assert!(e.contains("256x128 or 128x64"), "{e}");
        let e = CubeLayout::Cross
            .aspect_of(500, 400)
            .unwrap_err()
            .to_string();
        // 4:3 keeping the height: cells of 133 -> 532x399; keeping the width: 125 -> 500x375.
        assert!(e.contains("532x399") && e.contains("500x375"), "{e}");
        for (w, h) in fitting_sizes(500, 400, CubeLayout::Cross.aspects()) {
            assert!(CubeLayout::Cross.aspect_of(w, h).is_ok(), "{w}x{h}");
        }
    }

    #[test]
    fn arrays_are_cut_along_the_longer_side() {
        let s = array_strip(64, 256, 4).unwrap();
        assert_eq!((s.layer_width, s.layer_height, s.vertical), (64, 64, true));
        let s = array_strip(300, 100, 3).unwrap();
        assert_eq!(
            (s.layer_width, s.layer_height, s.vertical),
            (100, 100, false)
        );
        let s = array_strip(128, 128, 2).unwrap();
        assert_eq!((s.layer_width, s.layer_height, s.vertical), (128, 64, true));
        let e = array_strip(128, 200, 3).unwrap_err().to_string();
        assert!(
            e.contains("128x200") && e.contains("128x198 or 128x201"),
            "{e}"
        );
        for (w, h) in [(128, 198), (128, 201)] {
            assert!(array_strip(w, h, 3).is_ok());
        }
        assert!(array_strip(2, 2, 3).is_err(), "fewer texels than layers");
    }

    #[test]
    fn cutting_any_size_never_panics_and_what_fits_tiles_the_image() {
        // Sizes around the limits and the small ones where rounding bites.
        let sides = [
            1u32,
            2,
            3,
            5,
            6,
            7,
            64,
            96,
            127,
            128,
            384,
            512,
            768,
            16_383,
            16_384,
            u32::MAX,
        ];
        for &w in &sides {
            for &h in &sides {
                for layout in [CubeLayout::Panorama, CubeLayout::Strip, CubeLayout::Cross] {
                    if let Ok((aw, ah)) = layout.aspect_of(w, h) {
                        assert_eq!(u64::from(w) * u64::from(ah), u64::from(h) * u64::from(aw));
                        assert_eq!(w % aw, 0, "{w}x{h} {aw}:{ah}");
                    }
                }
                for layers in [0u32, 1, 2, 3, 6, 7, 2048] {
                    if let Ok(strip) = array_strip(w, h, layers) {
                        let n = u64::from(layers.max(1));
                        let (lw, lh) =
                            (u64::from(strip.layer_width), u64::from(strip.layer_height));
                        let covered = match strip.vertical {
                            true => (lw, lh * n),
                            false => (lw * n, lh),
                        };
                        assert_eq!(covered, (u64::from(w), u64::from(h)), "{w}x{h} / {layers}");
                        assert!(lw > 0 && lh > 0);
                    }
                }
            }
        }
    }
}
