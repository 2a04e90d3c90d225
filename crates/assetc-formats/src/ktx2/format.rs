//! The KTX2 descriptor: a texture's shape, format and levels as `inspect` and `info` show
//! them.

use super::{read, validate, Ktx2, IDENTIFIER};
use crate::describe::{size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError, Tally};
use crate::hman::EntryKind;
use crate::FormatKind;

pub static FORMAT: Format = Format {
    kind: FormatKind::Ktx2,
    name: "KTX2",
    extensions: &["ktx2"],
    magic: &[&[Magic::start(&IDENTIFIER)]],
    entry_kinds: &[EntryKind::Texture, EntryKind::ColourLut],
    validate,
    describe,
    stats,
    tally: Some(Tally::Texture),
};

/// Bytes a texture takes in GPU memory once uploaded, all mips, every face, layer and
/// depth slice (UASTC transcodes to a 16-byte 4x4 block format, BC7 or ASTC, so it counts
/// as its stored block size).
pub fn gpu_bytes(k: &Ktx2) -> Option<u64> {
    let (f, _) = k.pixel_format()?;
    (0..k.levels.len())
        .map(|l| {
            f.block()
                .level_bytes(k.width, k.height.max(1), l as u32, k.level_images(l))
        })
        .sum()
}

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    Ok(Description::Document(document(bytes)?))
}

fn document(bytes: &[u8]) -> Result<Document, ReadError> {
    let k = read(bytes)?;
    let mut doc = Document::new(format!("KTX2 texture ({})", size(bytes.len() as u64)));
    let resolution = match k.depth {
        0 => format!("{} x {}", k.width, k.height),
        d => format!("{} x {} x {d}", k.width, k.height),
    };
    doc.fact("resolution", resolution);
    doc.fact(
        "faces",
        if k.is_cube() {
            format!("{} (cube)", k.face_count)
        } else {
            k.face_count.to_string()
        },
    );
    // pixelDepth: 0 for 2D images and cubes, a 3D texture's slice count (a LUT's size).
    doc.fact(
        "depth",
        match k.depth {
            0 => "0 (2D)".to_string(),
            d => format!("{d} (3D)"),
        },
    );
    doc.fact(
        "format",
        k.pixel_format().map_or_else(
            || format!("vkFormat {}", k.vk_format),
            |(f, srgb)| {
                format!("{}{}", f.name(), if srgb { " sRGB" } else { " linear" }).to_uppercase()
            },
        ),
    );
    doc.fact("mip levels", k.levels.len());
    doc.fact(
        "supercompression",
        match k.supercompression {
            0 => "none".to_string(),
            2 => "zstd".to_string(),
            other => format!("scheme {other}"),
        },
    );
    if let Some(gpu) = gpu_bytes(&k) {
        doc.fact("GPU memory (est.)", size(gpu));
    }
    for (key, _) in &k.key_values {
        doc.fact(key, k.key_value_str(key).unwrap_or("<binary>"));
    }
    let t = doc.table("levels", &["level", "size", "stored", "uncompressed"]);
    for (i, l) in k.levels.iter().enumerate() {
        let (w, h) = k.level_size(i);
        t.row(vec![
            i.to_string(),
            match k.depth {
                0 => format!("{w} x {h}"),
                _ => format!("{w} x {h} x {}", k.level_depth(i)),
            },
            l.byte_length.to_string(),
            l.uncompressed_byte_length.to_string(),
        ]);
    }
    Ok(doc)
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    let k = read(bytes)?;
    let format = k.pixel_format().map_or_else(
        || format!("vkFormat {}", k.vk_format),
        |(f, srgb)| format!("{}{}", f.name(), if srgb { " sRGB" } else { "" }).to_uppercase(),
    );
    let shape = match (k.is_cube(), k.depth) {
        (true, _) => " cube".to_string(),
        (false, 0) => String::new(),
        (false, d) => format!("x{d}"),
    };
    Ok(Stats {
        texture: Some(format!(
            "{}x{}{shape} {format}, {} mips",
            k.width,
            k.height,
            k.levels.len()
        )),
        faces: Some(k.face_count),
        depth: (k.depth > 0).then_some(k.depth),
        gpu_bytes: gpu_bytes(&k),
        ..Stats::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktx2::{write, Ktx2Image, PixelFormat};

    fn file(format: PixelFormat, srgb: bool, side: u32, depth: u32, faces: u32) -> Vec<u8> {
        let mut img = Ktx2Image {
            format,
            srgb,
            has_alpha: true,
            width: side,
            height: side,
            depth,
            faces,
            levels: vec![],
            zstd_level: None,
        };
        img.levels = (0..img.full_mip_count())
            .map(|l| vec![0; img.level_bytes(l).unwrap() as usize])
            .collect();
        write(&img).unwrap()
    }

    #[test]
    fn names_faces_depth_and_rgba16f() {
        let cube = document(&file(PixelFormat::Rgba16f, false, 4, 0, 6)).unwrap();
        assert_eq!(cube.fact_value("resolution"), Some("4 x 4"));
        assert_eq!(cube.fact_value("faces"), Some("6 (cube)"));
        assert_eq!(cube.fact_value("depth"), Some("0 (2D)"));
        assert_eq!(cube.fact_value("format"), Some("RGBA16F LINEAR"));
        // Six 4x4, 2x2 and 1x1 faces of 8-byte texels.
        assert_eq!(
            cube.fact_value("GPU memory (est.)"),
            Some(size(6 * 21 * 8).as_str())
        );

        let lut = document(&file(PixelFormat::Rgba8, false, 4, 4, 1)).unwrap();
        assert_eq!(lut.fact_value("resolution"), Some("4 x 4 x 4"));
        assert_eq!(lut.fact_value("faces"), Some("1"));
        assert_eq!(lut.fact_value("depth"), Some("4 (3D)"));
        assert_eq!(lut.fact_value("format"), Some("RGBA8 LINEAR"));
        let sizes: Vec<&str> = lut.tables[0].rows.iter().map(|r| r[1].as_str()).collect();
        assert_eq!(sizes, ["4 x 4 x 4", "2 x 2 x 2", "1 x 1 x 1"]);

        let plain = document(&file(PixelFormat::Bc7, true, 8, 0, 1)).unwrap();
        assert_eq!(plain.fact_value("format"), Some("BC7 SRGB"));
        let cube = stats(&file(PixelFormat::Rgba8, true, 2, 0, 6)).unwrap();
        assert_eq!(cube.texture.as_deref(), Some("2x2 cube RGBA8 SRGB, 2 mips"));
        assert_eq!((cube.faces, cube.depth), (Some(6), None));
    }
}
