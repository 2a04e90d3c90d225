//! `assetc clean`.

use super::args::{GlobalArgs, MessageFormat, TreeArgs};
use anyhow::Context;
use std::process::ExitCode;

pub fn run(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    // Nothing there is a mistyped path more often than a finished job: say so (exit 2).
    super::require_input(&args.output)?;
    let manifest = args.output.join(assetc::driver::manifest::MANIFEST_NAME);
    if !manifest.exists() {
        // Refuse to delete a folder assetc did not write: a typo must not cost a tree.
        anyhow::bail!(
            "{} has no {} and does not look like an assetc output folder; not deleting it",
            args.output.display(),
            assetc::driver::manifest::MANIFEST_NAME
        );
    }
    std::fs::remove_dir_all(&args.output)
        .with_context(|| format!("removing {}", args.output.display()))?;
    if args.json || global.message_format == MessageFormat::Json {
        println!(
            "{}",
            serde_json::json!({"reason": "clean-finished", "removed": args.output.display().to_string()})
        );
    } else if !global.quiet {
        println!("removed {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}
