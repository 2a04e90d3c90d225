//! Writes the glTF files of `assets-sample/`. Run: `cargo run --bin gen-samples -- assets-sample`.

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "assets-sample".into());
    assetc::samples::write_all(std::path::Path::new(&dir))?;
    println!("wrote samples to {dir}");
    Ok(())
}
