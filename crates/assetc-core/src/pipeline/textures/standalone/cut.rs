//! One image cut into several of one size: a cube's faces from a strip or a cross, an
//! array's layers from a strip. Cells are copied texel for texel (the vertical cross's -Z
//! turned 180 degrees); nothing is resampled, so an image whose size does not divide into
//! the layout is refused ([`super::super::layout`]).

use super::super::float_image::FloatImage;
use super::super::layout::{array_strip, CubeLayout};
use super::super::load::DecodedImage;
use super::super::TextureError;
use super::{image_error, Source};

/// A cell of a layout: its column and row (in cells), and whether it is stored turned
/// 180 degrees.
type Cell = (u32, u32, bool);

/// Cells of the faces +X -X +Y -Y +Z -Z in a horizontal cross (4:3): the row -X +Z +X -Z,
/// +Y above +Z and -Y below it (what `assetc preview` draws for a cube).
const CROSS_4X3: [Cell; 6] = [
    (2, 1, false),
    (0, 1, false),
    (1, 0, false),
    (1, 2, false),
    (1, 1, false),
    (3, 1, false),
];
/// Cells in a vertical cross (3:4): the row -X +Z +X, +Y above +Z, -Y below it and -Z
/// below -Y, turned 180 degrees so that its edges meet -Y's and the row's.
const CROSS_3X4: [Cell; 6] = [
    (2, 1, false),
    (0, 1, false),
    (1, 0, false),
    (1, 2, false),
    (1, 1, false),
    (1, 3, true),
];

/// The six faces (in file order) of an image laid out as `layout` (strip or cross).
pub(super) fn cube_faces(src: Source, layout: CubeLayout) -> Result<Vec<Source>, TextureError> {
    let (w, h) = src.size();
    let aspect = layout.aspect_of(w, h).map_err(image_error)?;
    let cells: Vec<Cell> = match aspect {
        (6, 1) => (0..6).map(|i| (i, 0, false)).collect(),
        (1, 6) => (0..6).map(|i| (0, i, false)).collect(),
        (4, 3) => CROSS_4X3.to_vec(),
        (3, 4) => CROSS_3X4.to_vec(),
        other => {
            return Err(image_error(format!(
                "no cells for the aspect {}:{} of `cubemap = \"{}\"`",
                other.0,
                other.1,
                layout.name()
            )))
        }
    };
    let size = w / aspect.0;
    Ok(cut(&src, size, size, &cells))
}

/// The `layers` layers of an image that is a strip of them (layer 0 first).
pub(super) fn array_layers(src: Source, layers: u32) -> Result<Vec<Source>, TextureError> {
    let (w, h) = src.size();
    let strip = array_strip(w, h, layers).map_err(|e| image_error(format!("array_layers: {e}")))?;
    let cells: Vec<Cell> = (0..layers)
        .map(|i| {
            if strip.vertical {
                (0, i, false)
            } else {
                (i, 0, false)
            }
        })
        .collect();
    Ok(cut(&src, strip.layer_width, strip.layer_height, &cells))
}

/// Copies each cell of `cw` x `ch` texels out of `src`.
fn cut(src: &Source, cw: u32, ch: u32, cells: &[Cell]) -> Vec<Source> {
    cells
        .iter()
        .map(|&(cx, cy, turned)| match src {
            Source::Ldr(img) => Source::Ldr(cut_ldr(img, cx * cw, cy * ch, cw, ch, turned)),
            Source::Hdr(img) => Source::Hdr(cut_hdr(img, cx * cw, cy * ch, cw, ch, turned)),
        })
        .collect()
}

fn cut_ldr(img: &DecodedImage, x0: u32, y0: u32, w: u32, h: u32, turned: bool) -> DecodedImage {
    let (pitch, row) = (img.width as usize * 4, w as usize * 4);
    let mut pixels = Vec::with_capacity(row * h as usize);
    for y in 0..h as usize {
        let at = (y0 as usize + y) * pitch + x0 as usize * 4;
        pixels.extend_from_slice(&img.pixels[at..at + row]);
    }
    if turned {
        // 180 degrees is the texel order reversed.
        let mut texels: Vec<[u8; 4]> = pixels
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect();
        texels.reverse();
        pixels = texels.into_iter().flatten().collect();
    }
    DecodedImage {
        width: w,
        height: h,
        pixels,
    }
}

fn cut_hdr(img: &FloatImage, x0: u32, y0: u32, w: u32, h: u32, turned: bool) -> FloatImage {
    FloatImage::from_fn(w, h, |x, y| {
        let (x, y) = if turned {
            (w - 1 - x, h - 1 - y)
        } else {
            (x, y)
        };
        *img.get_pixel(x0 + x, y0 + y)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A w x h LDR image whose texel (x, y) is (x, y, 0, 255).
    fn coordinates(w: u32, h: u32) -> Source {
        let pixels = (0..h)
            .flat_map(|y| (0..w).flat_map(move |x| [x as u8, y as u8, 0, 255]))
            .collect();
        Source::Ldr(DecodedImage {
            width: w,
            height: h,
            pixels,
        })
    }

    fn texel(s: &Source, x: u32, y: u32) -> [u8; 2] {
        let Source::Ldr(img) = s else {
            panic!("not LDR")
        };
        let at = ((y * img.width + x) * 4) as usize;
        [img.pixels[at], img.pixels[at + 1]]
    }

    #[test]
    fn crosses_and_strips_give_each_face_its_cell() {
        // 4:3, faces of 4: +X is the cell (2, 1), so its first texel is (8, 4).
        let faces = cube_faces(coordinates(16, 12), CubeLayout::Cross).unwrap();
        let origins: Vec<[u8; 2]> = faces.iter().map(|f| texel(f, 0, 0)).collect();
        assert_eq!(origins, [[8, 4], [0, 4], [4, 0], [4, 8], [4, 4], [12, 4]]);
        // 3:4: -Z sits in (1, 3) turned, so its first texel is that cell's last.
        let faces = cube_faces(coordinates(12, 16), CubeLayout::Cross).unwrap();
        assert_eq!(texel(&faces[5], 0, 0), [7, 15]);
        assert_eq!(texel(&faces[5], 3, 3), [4, 12]);
        assert_eq!(texel(&faces[4], 0, 0), [4, 4]);
        let faces = cube_faces(coordinates(24, 4), CubeLayout::Strip).unwrap();
        let origins: Vec<[u8; 2]> = faces.iter().map(|f| texel(f, 0, 0)).collect();
        assert_eq!(origins, [[0, 0], [4, 0], [8, 0], [12, 0], [16, 0], [20, 0]]);
        let faces = cube_faces(coordinates(4, 24), CubeLayout::Strip).unwrap();
        assert_eq!(texel(&faces[3], 1, 2), [1, 14]);
        assert!(faces.iter().all(|f| f.size() == (4, 4)));
    }

    #[test]
    fn misfits_are_refused_with_their_size() {
        let e = cube_faces(coordinates(16, 16), CubeLayout::Strip)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("16x16") && e.contains("6:1 or 1:6"), "{e}");
        let e = array_layers(coordinates(10, 30), 4)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("10x30") && e.contains("10x28 or 10x32"), "{e}");
    }

    #[test]
    fn array_layers_follow_the_strip() {
        let layers = array_layers(coordinates(8, 32), 4).unwrap();
        assert_eq!(layers.len(), 4);
        assert_eq!(texel(&layers[2], 3, 1), [3, 17]);
        let layers = array_layers(coordinates(30, 10), 3).unwrap();
        assert_eq!(texel(&layers[1], 0, 0), [10, 0]);
        assert!(layers.iter().all(|l| l.size() == (10, 10)));
    }
}
