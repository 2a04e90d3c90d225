//! Writes the glTF files of `assets-sample/`, or one large height field for benchmarks.
//!
//! `cargo run --bin gen-samples -- assets-sample` (the bundled samples);
//! `cargo run --bin gen-samples -- --grid 1001 501 big.glb` (1,000,000 triangles).

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--grid") {
        let parse = |i: usize| {
            args.get(i)
                .and_then(|a| a.parse::<u32>().ok())
                .filter(|&v| v >= 2)
        };
        let (Some(w), Some(h), Some(path)) = (parse(1), parse(2), args.get(3)) else {
            eprintln!("usage: gen-samples --grid WIDTH HEIGHT OUT.glb");
            std::process::exit(2);
        };
        assetc::samples::height_field_glb(std::path::Path::new(path), w, h)?;
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
