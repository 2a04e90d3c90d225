//! Command-line interface: argument parsing and the subcommands.

mod args;
mod build_cmd;
mod check_cmd;
mod clean_cmd;
mod diagnostics;
mod init_cmd;
mod inspect_cmd;
mod options;
mod pack_cmd;
mod preview_cmd;
mod progress;
mod table;
mod watch;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// Exit code when one or more assets (or checked files) failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code for usage and configuration errors (as clap's own).
pub const EXIT_USAGE: u8 = 2;

/// An error in how assetc was asked to run (a bad build.toml, an unknown preset, a
/// missing input folder): exit code [`EXIT_USAGE`].
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct UsageError(pub anyhow::Error);

/// An error its command has already printed (a build prints its own before its closing
/// `build-finished`); only its exit code is left to give.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct Reported(pub anyhow::Error);

/// A command's input that does not exist is a usage error (exit [`EXIT_USAGE`], as the
/// README promises), said once, without the operating system's text repeated after it.
pub fn require_input(path: &std::path::Path) -> anyhow::Result<()> {
    if path.exists() {
        return Ok(());
    }
    Err(UsageError(anyhow::anyhow!("{} does not exist", path.display())).into())
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let format = cli.global.message_format;
    let result = match cli.command {
        Command::Build(args) => build_cmd::run(args, cli.global),
        Command::Check(args) => check_cmd::run_check(args, cli.global),
        Command::Info(args) => check_cmd::run_info(args, cli.global),
        Command::Clean(args) => clean_cmd::run(args, cli.global),
        Command::Init(args) => init_cmd::run(args, cli.global),
        Command::Pack(args) => pack_cmd::run(args, cli.global),
        Command::Inspect(args) => inspect_cmd::run(args, cli.global),
        Command::Preview(args) => preview_cmd::run(args, cli.global),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let e = match e.downcast::<Reported>() {
                Ok(Reported(printed)) => printed,
                Err(e) => {
                    diagnostics::command_error(format, &e);
                    e
                }
            };
            ExitCode::from(if e.downcast_ref::<UsageError>().is_some() {
                EXIT_USAGE
            } else {
                EXIT_FAILED
            })
        }
    }
}
