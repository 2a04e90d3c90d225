//! Placing glyph tiles in the square atlas: a shelf packer, fed in codepoint order so the
//! same charset always lands in the same places. Simple rather than tight: an atlas of
//! one font has a few hundred tiles of similar height, where shelves waste little.

/// Empty texels between tiles, so that bilinear filtering at a quad's edge never reads a
/// neighbour's field.
pub const GUTTER: u32 = 1;

/// The top-left corner of every tile in `sizes` (width, height) in an `atlas` x `atlas`
/// square, in order; `Err(i)` when tile `i` is the first that does not fit.
pub fn shelf_pack(sizes: &[(u32, u32)], atlas: u32) -> Result<Vec<(u32, u32)>, usize> {
    let (mut x, mut y, mut shelf) = (0u64, 0u64, 0u64);
    let atlas = u64::from(atlas);
    let mut out = Vec::with_capacity(sizes.len());
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let (w, h) = (u64::from(w), u64::from(h));
        if x + w > atlas {
            y += shelf + u64::from(GUTTER);
            x = 0;
            shelf = 0;
        }
        if x + w > atlas || y + h > atlas {
            return Err(i);
        }
        out.push((x as u32, y as u32));
        x += w + u64::from(GUTTER);
        shelf = shelf.max(h);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shelves_fill_left_to_right_then_down() {
        let placed = shelf_pack(&[(4, 3), (4, 5), (3, 2), (9, 1)], 10).unwrap();
        assert_eq!(placed, [(0, 0), (5, 0), (0, 6), (0, 9)]);
        assert_eq!(
            shelf_pack(&[(4, 4), (4, 4), (4, 4), (4, 4), (4, 4)], 10),
            Err(4)
        );
        assert_eq!(shelf_pack(&[(11, 1)], 10), Err(0));
    }

    proptest! {
        #[test]
        fn tiles_stay_inside_and_never_touch(sizes in proptest::collection::vec((1u32..20, 1u32..20), 0..60)) {
            let atlas = 64;
            if let Ok(placed) = shelf_pack(&sizes, atlas) {
                for (i, (&(x, y), &(w, h))) in placed.iter().zip(&sizes).enumerate() {
                    prop_assert!(x + w <= atlas && y + h <= atlas);
                    for (&(x2, y2), &(w2, h2)) in placed.iter().zip(&sizes).skip(i + 1) {
                        let apart = x + w + GUTTER <= x2 || x2 + w2 + GUTTER <= x
                            || y + h + GUTTER <= y2 || y2 + h2 + GUTTER <= y;
                        prop_assert!(apart, "{:?} and {:?}", (x, y, w, h), (x2, y2, w2, h2));
                    }
                }
            }
        }
    }
}
