//! The `assetc` command.

mod cli;

fn main() -> std::process::ExitCode {
    restore_default_sigpipe();
    cli::run()
}

/// Rust starts programs with SIGPIPE ignored, so writing to a closed pipe
/// (`assetc pack list x.spk | head`) returns EPIPE and `println!` panics. Every command
/// writes its results to stdout, so the fix is made once here: the default disposition
/// ends the process quietly, as for any Unix filter. Sockets are unaffected (std sends
/// with MSG_NOSIGNAL).
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
