//! The `assetc` command.

mod cli;

fn main() -> std::process::ExitCode {
    restore_default_sigpipe();
    keep_large_buffers_out_of_arenas();
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

/// glibc's malloc raises its mmap threshold each time a large block is freed (up to
/// 32 MiB); from then on the stages' big temporary buffers (simplifier, meshlet builder)
/// come from per-thread arenas and stay resident after they are freed. A 1M-triangle
/// build peaked at 264 MiB RSS with 181 MiB live (heaptrack). A fixed 8 MiB threshold
/// gives such buffers back when freed: 185 MiB, for about 2% more CPU (measured with
/// GLIBC_TUNABLES=glibc.malloc.mmap_threshold; docs/performance.md). Smaller thresholds
/// cost more (2 MiB: +10% CPU, page faults on every fresh buffer).
fn keep_large_buffers_out_of_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called first thing in main, before any thread exists or allocates much;
    // M_MMAP_THRESHOLD takes any size up to HEAP_MAX/2 (32 MiB on 64-bit).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 8 << 20);
    }
}
