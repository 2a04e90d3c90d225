//! `assetc check` and `assetc info`.

use super::args::{GlobalArgs, MessageFormat, TreeArgs};
use std::process::ExitCode;

pub fn run_check(args: TreeArgs, global: GlobalArgs) -> anyhow::Result<ExitCode> {
    if !args.output.is_dir() {
        anyhow::bail!("{} is not a folder", args.output.display());
    }
    let problems = assetc::build::verify::verify_tree(&args.output);
    for p in &problems {
        if global.message_format == MessageFormat::Json {
            println!("{}", serde_json::json!({"reason": "problem", "message": p}));
        } else {
            println!("{p}");
        }
    }
    if !global.quiet && global.message_format == MessageFormat::Human {
        eprintln!("{} problem(s) in {}", problems.len(), args.output.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_FAILED)
    })
}

pub fn run_info(args: TreeArgs, _global: GlobalArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("info for {} is not available yet", args.output.display())
}
