//! Writes the glTF files of `assets-sample/`, or one large height field for benchmarks.
//!
//! `cargo run --bin gen-samples -- assets-sample` (the bundled samples);
//! `cargo run --bin gen-samples -- --grid 1001 501 big.glb` (1,000,000 triangles; add
//! `--normals` for a NORMAL attribute, `--material none|plain|normal-map` for its material,
//! `--surface curved` for y = 0.05 sin(40x) cos(37z) over the unit square instead of the
//! gentle hills: `--grid 709 709 curved.glb --surface curved` is 1,002,528 triangles).

use assetc::samples::{FieldMaterial, FieldSurface};

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--grid") {
        let parse = |i: usize| {
            args.get(i)
                .and_then(|a| a.parse::<u32>().ok())
                .filter(|&v| v >= 2)
        };
        let usage = || {
            eprintln!(
                "usage: gen-samples --grid WIDTH HEIGHT OUT.glb [--normals] [--material none|plain|normal-map] [--surface gentle|curved]"
            );
            std::process::exit(2);
        };
        let (Some(w), Some(h), Some(path)) = (parse(1), parse(2), args.get(3)) else {
            usage()
        };
        let mut normals = false;
        let mut material = FieldMaterial::Plain;
        let mut surface = FieldSurface::Gentle;
        let mut rest = args[4..].iter();
        while let Some(arg) = rest.next() {
            match (arg.as_str(), rest.as_slice().first().map(String::as_str)) {
                ("--normals", _) => normals = true,
                ("--material", Some(name)) => {
                    material = match name {
                        "none" => FieldMaterial::None,
                        "plain" => FieldMaterial::Plain,
                        "normal-map" => FieldMaterial::NormalMapped,
                        _ => usage(),
                    };
                    rest.next();
                }
                ("--surface", Some(name)) => {
                    surface = match name {
                        "gentle" => FieldSurface::Gentle,
                        "curved" => FieldSurface::Curved,
                        _ => usage(),
                    };
                    rest.next();
                }
                _ => usage(),
            }
        }
        assetc::samples::height_field_glb_of(
            std::path::Path::new(path),
            w,
            h,
            surface,
            normals,
            material,
        )?;
        println!(
            "wrote {path}: {} triangles",
            2 * (w as u64 - 1) * (h as u64 - 1)
        );
        return Ok(());
    }
    let dir = args
        .first()
        .cloned()
        .unwrap_or_else(|| "assets-sample".into());
    assetc::samples::write_all(std::path::Path::new(&dir))?;
    println!("wrote samples to {dir}");
    Ok(())
}
