//! Array textures: [`write_layers`] writes layerCount and sizes each level for every layer.

use super::*;

fn layered_levels(format: PixelFormat, w: u32, h: u32, layers: u32) -> Vec<Vec<u8>> {
    let block = format.block();
    (0..full_mip_count(w, h))
        .map(|l| {
            let n = block.level_bytes(w, h, l, u64::from(layers)).unwrap() as usize;
            (0..n)
                .map(|i| (i as u8).wrapping_mul(3) ^ l as u8)
                .collect()
        })
        .collect()
}

fn array(format: PixelFormat, layers: u32, zstd: bool) -> Ktx2Image {
    Ktx2Image {
        format,
        srgb: false,
        has_alpha: false,
        width: 12,
        height: 8,
        depth: 0,
        faces: 1,
        levels: layered_levels(format, 12, 8, layers),
        zstd_level: zstd.then_some(3),
    }
}

#[test]
fn arrays_round_trip_with_their_layer_count() {
    for format in [PixelFormat::Rgba8, PixelFormat::Bc7, PixelFormat::Uastc] {
        for zstd in [false, true] {
            let img = array(format, 5, zstd);
            let bytes = write_layers(&img, 5).unwrap();
            assert_eq!(validate(&bytes), vec![], "{format:?} zstd {zstd}");
            let k = read(&bytes).unwrap();
            assert_eq!((k.layer_count, k.face_count, k.depth), (5, 1, 0));
            // layerCount is the header's sixth word, after the 12-byte identifier.
            assert_eq!(bytes[12 + 4 * 5..12 + 4 * 6], 5u32.to_le_bytes());
            for (i, level) in k.levels.iter().enumerate() {
                assert_eq!(level.data, img.levels[i], "{format:?} level {i}");
            }
        }
    }
}

#[test]
fn plain_write_is_layer_count_zero_and_sizes_must_match_the_layers() {
    let one = array(PixelFormat::Rgba8, 1, false);
    let plain = write(&one).unwrap();
    assert_eq!(read(&plain).unwrap().layer_count, 0);
    // A one-layer array differs from a plain image only in its layerCount word.
    let layered = write_layers(&one, 1).unwrap();
    assert_eq!(read(&layered).unwrap().layer_count, 1);
    let differing: Vec<usize> = (0..plain.len())
        .filter(|&i| plain[i] != layered[i])
        .collect();
    assert_eq!(differing, [32]);
    // Levels sized for 3 layers are refused as 2 or 4.
    let three = array(PixelFormat::Rgba8, 3, false);
    assert!(write_layers(&three, 3).is_ok());
    for wrong in [2, 4] {
        let e = write_layers(&three, wrong).unwrap_err().to_string();
        assert!(e.contains("level 0 holds"), "{e}");
    }
    // Arrays of 3D textures are not written.
    let volume = Ktx2Image {
        depth: 2,
        ..array(PixelFormat::Rgba8, 2, false)
    };
    assert!(write_layers(&volume, 2).is_err());
}
