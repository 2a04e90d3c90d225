//! Laying the images of one KTX2 level out as a single picture: a cubemap's six faces as
//! a horizontal cross, a 3D texture's depth slices as a strip.

use super::{LevelDecodeError, Texture};

/// Cells (column, row) of the faces, in storage order +X -X +Y -Y +Z -Z, in a cross 4
/// faces wide and 3 tall: row 1 is -X +Z +X -Z, +Y sits above +Z and -Y below it. Faces
/// are drawn as stored (no flips), as the usual unfolded-cube pictures show them.
pub const CROSS_CELLS: [(u32, u32); 6] = [(2, 1), (0, 1), (1, 0), (1, 2), (1, 1), (3, 1)];

/// The six faces (all of one size) as a 4x3 cross; cells without a face are transparent
/// black.
pub fn cube_cross(faces: &[Texture]) -> Result<Texture, LevelDecodeError> {
    if faces.len() != CROSS_CELLS.len() {
        return Err(LevelDecodeError::FaceCount(faces.len()));
    }
    place(faces, 4, 3, &CROSS_CELLS)
}

/// Depth slices side by side, z = 0 on the left.
pub fn slice_strip(slices: &[Texture]) -> Result<Texture, LevelDecodeError> {
    let cells: Vec<(u32, u32)> = (0..slices.len() as u32).map(|z| (z, 0)).collect();
    place(slices, slices.len() as u32, 1, &cells)
}

/// Copies each image into its cell of a `columns` x `rows` grid of cells the size of the
/// first image.
fn place(
    images: &[Texture],
    columns: u32,
    rows: u32,
    cells: &[(u32, u32)],
) -> Result<Texture, LevelDecodeError> {
    let first = images.first().ok_or(LevelDecodeError::NothingToLayOut)?;
    let (w, h) = (first.width, first.height);
    let width = w.checked_mul(columns).ok_or(LevelDecodeError::TooWide {
        count: columns,
        width: w,
    })?;
    let height = h.checked_mul(rows).ok_or(LevelDecodeError::TooTall {
        count: rows,
        height: h,
    })?;
    let row_bytes = w as usize * 4;
    let pitch = width as usize * 4;
    let mut rgba = vec![0u8; pitch * height as usize];
    for (image, &(cx, cy)) in images.iter().zip(cells) {
        if (image.width, image.height) != (w, h) || image.rgba.len() != row_bytes * h as usize {
            return Err(LevelDecodeError::SizesDiffer);
        }
        for y in 0..h as usize {
            let at = (cy as usize * h as usize + y) * pitch + cx as usize * row_bytes;
            rgba[at..at + row_bytes].copy_from_slice(&image.rgba[y * row_bytes..][..row_bytes]);
        }
    }
    Ok(Texture {
        width,
        height,
        rgba,
    })
}
