//! The order assets are compiled in: largest first. A build's wall time is bounded below by
//! its longest asset; started last, that asset runs alone on one core while the others
//! idle (the corpus's FlightHelmet, 15 textures, started wherever rayon's splitting put
//! it). Started first, the small ones fill the other cores around it. The order changes
//! only when each asset starts, never what it writes: results come back by source index.

use super::discover::Source;
use crate::kinds::KindId;
use rayon::prelude::*;
use std::path::Path;

/// Runs `compile(i)` for every source not `done`, largest first, on the current rayon
/// pool; `None` for the sources left out. Each thread takes the next source when it is
/// free (a queue, not rayon's halving split, which would start the second thread in the
/// middle of the order).
pub fn largest_first<T: Send>(
    sources: &[Source],
    done: &[bool],
    compile: impl Fn(usize) -> T + Sync,
) -> Vec<Option<T>> {
    let order = by_size(sources, done);
    let mut results: Vec<(usize, T)> = order
        .into_iter()
        .par_bridge()
        .map(|i| (i, compile(i)))
        .collect();
    let mut out: Vec<Option<T>> = (0..sources.len()).map(|_| None).collect();
    for (i, result) in results.drain(..) {
        out[i] = Some(result);
    }
    out
}

/// The indices of the sources not `done`, largest estimated work first, ties in source
/// order (so the order is the same on every run).
fn by_size(sources: &[Source], done: &[bool]) -> Vec<usize> {
    let mut sized: Vec<(u64, usize)> = sources
        .par_iter()
        .enumerate()
        .filter(|(i, _)| !done[*i])
        .map(|(i, s)| (work_estimate(s), i))
        .collect();
    sized.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    sized.into_iter().map(|(_, i)| i).collect()
}

/// Bytes a source's compile reads: the file, plus for a glTF or OBJ model the buffers,
/// images and material libraries it names (a `.gltf` is a few KB of JSON beside megabytes
/// of images). A `.glb` or `.fbx` carries its data inside: its size alone (reading a GLB's
/// JSON would read the whole file). Unreadable files count 0: their compile fails fast.
fn work_estimate(source: &Source) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let own = size(&source.abs_path);
    let names_its_files = source.kind == KindId::Model
        && source
            .abs_path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("obj"));
    if !names_its_files {
        return own;
    }
    let referenced: u64 = crate::kinds::model::referenced_files(&source.abs_path)
        .iter()
        .map(|p| size(p))
        .sum();
    own + referenced
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(dir: &Path, name: &str, bytes: usize) -> Source {
        let abs_path = dir.join(name);
        std::fs::write(&abs_path, vec![b' '; bytes]).unwrap();
        Source {
            rel_path: name.into(),
            abs_path,
            kind: KindId::Model,
        }
    }

    #[test]
    fn largest_sources_come_first_and_results_keep_source_order() {
        let dir = tempfile::tempdir().unwrap();
        // A .gltf of 10 bytes naming a 5,000-byte image outweighs a 1,000-byte .glb.
        std::fs::write(dir.path().join("big.png"), vec![0u8; 5_000]).unwrap();
        let gltf = dir.path().join("a.gltf");
        std::fs::write(&gltf, br#"{"images":[{"uri":"big.png"}]}"#).unwrap();
        let sources = vec![
            Source {
                rel_path: "a.gltf".into(),
                abs_path: gltf,
                kind: KindId::Model,
            },
            source(dir.path(), "b.glb", 1_000),
            source(dir.path(), "c.glb", 20),
            source(dir.path(), "d.glb", 3_000),
            source(dir.path(), "e.glb", 1_000),
        ];
        let done = [false, false, false, false, false];
        // Equal sizes (b, e) keep source order.
        assert_eq!(by_size(&sources, &done), vec![0, 3, 1, 4, 2]);
        let skip_d = [false, false, false, true, false];
        assert_eq!(by_size(&sources, &skip_d), vec![0, 1, 4, 2]);

        // On one thread the queue is the order itself; results come back by index.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let started = std::sync::Mutex::new(Vec::new());
        let results = pool.install(|| {
            largest_first(&sources, &skip_d, |i| {
                started.lock().unwrap().push(i);
                i * 10
            })
        });
        assert_eq!(started.into_inner().unwrap(), vec![0, 1, 4, 2]);
        assert_eq!(results, vec![Some(0), Some(10), Some(20), None, Some(40)]);
    }
}
