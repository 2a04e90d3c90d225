//! `assetc clean`.

use super::args::{GlobalArgs, TreeArgs};
use anyhow::Context;
use std::process::ExitCode;

pub fn run(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let manifest = args.output.join(assetc::build::manifest::MANIFEST_NAME);
    if args.output.exists() && !manifest.exists() {
        // Refuse to delete a folder assetc did not write: a typo must not cost a tree.
        anyhow::bail!(
            "{} has no {} and does not look like an assetc output folder; not deleting it",
            args.output.display(),
            assetc::build::manifest::MANIFEST_NAME
        );
    }
    if args.output.exists() {
        std::fs::remove_dir_all(&args.output)
            .with_context(|| format!("removing {}", args.output.display()))?;
    }
    if !global.quiet {
        println!("removed {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}
