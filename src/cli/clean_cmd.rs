//! `assetc clean`.

use super::args::{GlobalArgs, MessageFormat, TreeArgs};
use anyhow::Context;
use std::process::ExitCode;

pub fn run(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    let json = args.json || global.message_format == MessageFormat::Json;
    // Like `rm -rf`: the tree being gone is what was asked for, so a second clean (or a
    // clean before any build) succeeds, and says that it found nothing.
    if std::fs::symlink_metadata(&args.output).is_err() {
        if json {
            println!(
                "{}",
                serde_json::json!({"reason": "clean-finished", "removed": null})
            );
        } else if !global.quiet {
            println!("nothing to clean: {} does not exist", args.output.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
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
    if json {
        println!(
            "{}",
            serde_json::json!({"reason": "clean-finished", "removed": args.output.display().to_string()})
        );
    } else if !global.quiet {
        println!("removed {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}
