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
    std::fs::write(&config, starter_config())
        .with_context(|| format!("writing {}", config.display()))?;
    let assets = args.dir.join("assets");
    let kept = assets.exists();
    if !kept {
        assetc::samples::multi_material_box(&assets)
            .with_context(|| format!("writing {}", assets.display()))?;
    }
    if !global.quiet {
        // Say what happened to assets/: an existing folder is never written into.
        let what = if kept {
            format!("kept the existing {}", assets.display())
        } else {
            format!("wrote a sample model to {}", assets.display())
        };
        println!(
            "wrote {}; {what}; run `assetc build` there",
            config.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// build.toml.example with its own header (which tells the reader to copy the file)
/// replaced by one for a project's build.toml.
fn starter_config() -> String {
    let example = include_str!("../../build.toml.example");
    let mut lines = example.lines().peekable();
    while lines.next_if(|l| l.starts_with('#')).is_some() {}
    let rest: Vec<&str> = lines.collect();
    format!(
        "# assetc build configuration, found by `assetc build` in this folder or any folder\n\
         # below it. Every key is optional; the values shown are the defaults.\n\
         # Command-line flags beat this file. Paths are relative to this file's folder.\n{}\n",
        rest.join("\n")
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn starter_config_keeps_the_keys_and_drops_the_copy_advice() {
        let text = super::starter_config();
        assert!(!text.to_lowercase().contains("copy to"), "{text}");
        assert!(text.contains("input = "), "{text}");
        assert!(text.contains("[mesh]"), "{text}");
    }
}
