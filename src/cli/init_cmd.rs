//! `assetc init`: a starter `build.toml` and `assets/` folder.

use super::args::{GlobalArgs, InitArgs};
use anyhow::Context;
use std::process::ExitCode;

pub fn run(args: InitArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let config = args.dir.join(assetc::config::CONFIG_NAME);
    if config.exists() {
        anyhow::bail!("{} already exists; not overwriting it", config.display());
    }
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    std::fs::write(&config, include_str!("../../build.toml.example"))
        .with_context(|| format!("writing {}", config.display()))?;
    let assets = args.dir.join("assets");
    if !assets.exists() {
        assetc::samples::multi_material_box(&assets)
            .with_context(|| format!("writing {}", assets.display()))?;
    }
    if !global.quiet {
        println!(
            "wrote {} and {}; run `assetc build` there",
            config.display(),
            assets.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
