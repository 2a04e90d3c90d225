//! `assetc build --watch`: rebuild what changed as files are saved, like SparkEngine's hot
//! reloading. The incremental cache makes each rebuild touch only changed assets.
//!
//! The watcher rests until a source, one of its files or build.toml is written: reads
//! (the build itself opens every input), metadata-only changes and everything below the
//! output folder (our own writes) are ignored. Editors that save by writing a temporary
//! file and renaming it produce a burst of events; `notify-debouncer-full` folds each
//! burst into one set of changed paths. It hands each event over one timeout after it
//! happened, on ticks of a quarter of that, so the events of one save that take a few
//! ticks to write arrive as several batches: batches that follow one another within
//! [`SETTLE`] are one change, and a path whose content is what the last rebuild read is
//! no change at all (a late batch of a save that rebuild already saw).

use super::args::BuildArgs;
use super::progress::CliReporter;
use assetc::driver::BuildOptions;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

/// Quiet period after the last change before rebuilding: editors save in bursts.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// How long after a batch of changes the watcher waits for another before rebuilding:
/// the rest of the same save comes within a tick of the debouncer (a quarter of
/// [`DEBOUNCE`]) plus the time the save took to write.
const SETTLE: Duration = DEBOUNCE;

/// What to watch and what to leave alone.
#[derive(Debug, Clone)]
pub struct WatchSet {
    /// Source folder (or single source file).
    pub input: PathBuf,
    /// build.toml, when one is used: a save reloads the settings.
    pub config: Option<PathBuf>,
    /// Paths whose changes are our own writes: the output folder, the depfile.
    pub ignore: Vec<PathBuf>,
}

/// What one burst of saves changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    pub paths: BTreeSet<PathBuf>,
    pub config_changed: bool,
}

/// `build --watch`: the first build (`first`, whose exit code is returned when watching
/// ends), then a rebuild on every save, naming what changed; a build.toml save reloads
/// the settings (a bad one is reported and the old kept). The watcher is armed before
/// the first build, so that a file saved while it runs is rebuilt after it.
pub fn run_watch(
    mut options: BuildOptions,
    args: &BuildArgs,
    reporter: &CliReporter,
    first: impl FnOnce(&BuildOptions) -> anyhow::Result<ExitCode>,
    mut build: impl FnMut(&BuildOptions) -> anyhow::Result<()>,
) -> anyhow::Result<ExitCode> {
    let mut ignore = vec![options.output.clone()];
    ignore.extend(args.emit_deps.clone());
    let set = WatchSet {
        input: options.input.clone(),
        config: super::options::config_path(args),
        ignore,
    };
    let input_dir = absolute(&options.input);
    let mut code = ExitCode::SUCCESS;
    let first_options = options.clone();
    options.keep_failed_outputs = true;
    watch(
        &set,
        || {
            code = first(&first_options)?;
            Ok(())
        },
        |changes| {
            let names: Vec<String> = changes
                .paths
                .iter()
                .map(|p| {
                    p.strip_prefix(&input_dir)
                        .unwrap_or(p)
                        .display()
                        .to_string()
                })
                .collect();
            reporter.changed(&names);
            if changes.config_changed {
                match super::options::options_from(args) {
                    Ok(resolved) => {
                        options = resolved.options;
                        options.keep_failed_outputs = true;
                    }
                    Err(e) => {
                        let e = anyhow::Error::new(e);
                        reporter.build_error(&format!("{e:#}"));
                        report_error(reporter, &e);
                        return;
                    }
                }
            }
            // `build` has already sent JSON consumers its closing `build-finished`.
            if let Err(e) = build(&options) {
                if e.downcast_ref::<super::Reported>().is_none() {
                    report_error(reporter, &e);
                }
            }
        },
    )?;
    Ok(code)
}

fn report_error(reporter: &CliReporter, e: &anyhow::Error) {
    if !reporter.is_json() {
        eprintln!("error: {e:#}");
    }
}

/// Runs `first` once the watcher is armed, then calls `rebuild` after every burst of
/// relevant changes, until the watcher fails. Changes made while `first` runs are queued,
/// not lost.
pub fn watch(
    set: &WatchSet,
    first: impl FnOnce() -> anyhow::Result<()>,
    mut rebuild: impl FnMut(&Changes),
) -> anyhow::Result<()> {
    let set = set.canonical();
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(DEBOUNCE, None, tx)?;
    let input_dir = if set.input.is_file() {
        set.input.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        set.input.clone()
    };
    debouncer.watch(&input_dir, RecursiveMode::Recursive)?;
    if let Some(dir) = set.config.as_ref().and_then(|c| c.parent()) {
        if !dir.starts_with(&input_dir) {
            debouncer.watch(dir, RecursiveMode::NonRecursive)?;
        }
    }
    first()?;
    eprintln!("watching {} (Ctrl-C to stop)", set.input.display());
    let mut last_read = Contents::default();
    while let Ok(result) = rx.recv() {
        let mut changes = Changes::default();
        set.absorb(result, &mut changes);
        while let Ok(result) = rx.recv_timeout(SETTLE) {
            set.absorb(result, &mut changes);
        }
        last_read.drop_unchanged(&mut changes, set.config.as_deref());
        if !changes.paths.is_empty() {
            last_read.remember(&changes);
            rebuild(&changes);
        }
    }
    Ok(())
}

/// What each changed path held when the rebuild it caused started: a digest of its bytes,
/// `None` when it could not be read (removed).
#[derive(Debug, Default)]
pub struct Contents {
    digests: std::collections::HashMap<PathBuf, Option<u64>>,
}

impl Contents {
    /// Leaves out of `changes` every path that still holds what the last rebuild read.
    pub fn drop_unchanged(&self, changes: &mut Changes, config: Option<&Path>) {
        changes
            .paths
            .retain(|p| self.digests.get(p) != Some(&digest(p)));
        changes.config_changed &= config.is_some_and(|c| changes.paths.contains(c));
    }

    /// Records what the paths of `changes` hold now, as the rebuild about to run reads them.
    pub fn remember(&mut self, changes: &Changes) {
        for p in &changes.paths {
            self.digests.insert(p.clone(), digest(p));
        }
    }
}

fn digest(path: &Path) -> Option<u64> {
    std::fs::read(path)
        .ok()
        .map(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes))
}

impl WatchSet {
    /// Adds what one batch from the debouncer changed to `changes` (its errors are
    /// reported and otherwise ignored).
    fn absorb(&self, batch: DebounceEventResult, changes: &mut Changes) {
        match batch {
            Ok(events) => {
                let more = self.relevant(events.iter().map(|e| (&e.event.kind, &e.event.paths)));
                changes.paths.extend(more.paths);
                changes.config_changed |= more.config_changed;
            }
            Err(errors) => {
                for e in errors {
                    eprintln!("warning: watcher: {e}");
                }
            }
        }
    }

    fn canonical(&self) -> WatchSet {
        let canon = |p: &Path| absolute(p);
        WatchSet {
            input: canon(&self.input),
            config: self.config.as_deref().map(canon),
            ignore: self.ignore.iter().map(|p| canon(p)).collect(),
        }
    }

    /// The changed paths of a burst that call for a rebuild (paths must be absolute, as
    /// the watcher reports them for absolute watch roots).
    pub fn relevant<'a>(
        &self,
        events: impl IntoIterator<Item = (&'a EventKind, &'a Vec<PathBuf>)>,
    ) -> Changes {
        let mut changes = Changes::default();
        for (kind, paths) in events {
            if !is_write(kind) {
                continue;
            }
            for p in paths {
                if self.config.as_deref() == Some(p.as_path()) {
                    changes.config_changed = true;
                    changes.paths.insert(p.clone());
                } else if self.is_source_side(p) {
                    changes.paths.insert(p.clone());
                }
            }
        }
        changes
    }

    fn is_source_side(&self, p: &Path) -> bool {
        let below_input = if self.input.is_file() {
            self.input.parent().is_some_and(|d| p.starts_with(d))
        } else {
            p.starts_with(&self.input)
        };
        below_input && !self.ignore.iter().any(|i| p.starts_with(i)) && !is_scratch_file(p)
    }
}

/// Creations, content writes, renames and removals; not reads (`Access`: the build opens
/// every input) nor attribute changes.
fn is_write(kind: &EventKind) -> bool {
    use notify_debouncer_full::notify::event::ModifyKind;
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// Editor swap and backup files, and hidden files (our own `.assetc-*` temporaries).
fn is_scratch_file(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".tmp")
}

/// An absolute, symlink-resolved path where possible (the output may not exist yet).
fn absolute(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or(abs.clone()),
        _ => abs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify_debouncer_full::notify::event::{AccessKind, CreateKind, DataChange, ModifyKind};

    fn set() -> WatchSet {
        WatchSet {
            input: PathBuf::from("/p/assets"),
            config: Some(PathBuf::from("/p/build.toml")),
            ignore: vec![PathBuf::from("/p/assets/runtime")],
        }
    }

    #[test]
    fn reads_and_own_outputs_do_not_trigger() {
        let read = EventKind::Access(AccessKind::Any);
        let write = EventKind::Modify(ModifyKind::Data(DataChange::Content));
        let src = vec![PathBuf::from("/p/assets/a.gltf")];
        let out = vec![PathBuf::from("/p/assets/runtime/a.hmesh")];
        let swap = vec![PathBuf::from("/p/assets/.a.gltf.swp")];
        let s = set();
        assert!(s.relevant([(&read, &src)]).paths.is_empty());
        assert!(s.relevant([(&write, &out)]).paths.is_empty());
        assert!(s.relevant([(&write, &swap)]).paths.is_empty());
        let c = s.relevant([(&write, &src), (&read, &out)]);
        assert_eq!(c.paths.into_iter().collect::<Vec<_>>(), src);
        assert!(!c.config_changed);
    }

    #[test]
    fn a_path_holding_what_the_last_rebuild_read_is_no_change() {
        let dir = tempfile::tempdir().unwrap();
        let (flag, toml) = (dir.path().join("flag.png"), dir.path().join("build.toml"));
        std::fs::write(&flag, b"first").unwrap();
        std::fs::write(&toml, b"").unwrap();
        let saved = |paths: &[&PathBuf]| Changes {
            paths: paths.iter().map(|p| p.to_path_buf()).collect(),
            config_changed: paths.contains(&&toml),
        };
        let mut read = Contents::default();
        let mut first = saved(&[&flag]);
        read.drop_unchanged(&mut first, Some(&toml));
        assert_eq!(first, saved(&[&flag]), "never seen: a change");
        read.remember(&first);
        // The late batch of the same save, and build.toml saved unchanged.
        let mut late = saved(&[&flag, &toml]);
        read.drop_unchanged(&mut late, Some(&toml));
        assert_eq!(late, saved(&[&toml]));
        read.remember(&late);
        let mut again = saved(&[&toml]);
        read.drop_unchanged(&mut again, Some(&toml));
        assert!(again.paths.is_empty() && !again.config_changed, "{again:?}");
        // New bytes, or the file gone, are changes again.
        std::fs::write(&flag, b"second").unwrap();
        let mut edited = saved(&[&flag]);
        read.drop_unchanged(&mut edited, Some(&toml));
        assert_eq!(edited, saved(&[&flag]));
        read.remember(&edited);
        std::fs::remove_file(&flag).unwrap();
        let mut removed = saved(&[&flag]);
        read.drop_unchanged(&mut removed, Some(&toml));
        assert_eq!(removed, saved(&[&flag]));
    }

    #[test]
    fn build_toml_and_new_files_trigger() {
        let create = EventKind::Create(CreateKind::File);
        let s = set();
        let c = s.relevant([(&create, &vec![PathBuf::from("/p/build.toml")])]);
        assert!(c.config_changed);
        let c = s.relevant([(&create, &vec![PathBuf::from("/p/assets/new/b.glb")])]);
        assert_eq!(c.paths.len(), 1);
        // A sibling of build.toml that is not below the input is not ours to watch.
        let c = s.relevant([(&create, &vec![PathBuf::from("/p/notes.txt")])]);
        assert!(c.paths.is_empty());
    }
}
