//! `assetc build --watch`: rebuild what changed as files are saved, like SparkEngine's hot
//! reloading. The incremental cache makes each rebuild touch only changed assets.

use notify::{RecursiveMode, Watcher};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// Quiet period after the last change before rebuilding: editors save in bursts.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// Calls `rebuild` after every burst of changes below `input`, until the watcher fails.
pub fn watch(input: &Path, output: &Path, mut rebuild: impl FnMut()) -> anyhow::Result<()> {
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let _ = tx.send(event);
    })?;
    watcher.watch(input, RecursiveMode::Recursive)?;
    let output = output
        .canonicalize()
        .unwrap_or_else(|_| output.to_path_buf());
    eprintln!("watching {} (Ctrl-C to stop)", input.display());
    loop {
        let first = rx.recv()?;
        let mut relevant = is_relevant(&first, &output);
        // Drain the burst.
        while let Ok(event) = rx.recv_timeout(DEBOUNCE) {
            relevant |= is_relevant(&event, &output);
        }
        if relevant {
            rebuild();
        }
    }
}

/// Changes inside the output folder (when it lies below the input) are our own writes.
fn is_relevant(event: &notify::Result<notify::Event>, output: &Path) -> bool {
    match event {
        Ok(e) => e.paths.iter().any(|p| !p.starts_with(output)),
        Err(_) => true,
    }
}
