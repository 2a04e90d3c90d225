//! The order assets are compiled in: largest first. A build's wall time is bounded below by
//! its longest asset; started last, that asset runs alone on one core while the others
//! idle (the corpus's FlightHelmet, 15 textures, started wherever rayon's splitting put
//! it). Started first, the small ones fill the other cores around it. The order changes
//! only when each asset starts, never what it writes: results come back by source index.

use super::discover::Source;
use super::job::AssetJob;
use rayon::prelude::*;

/// Runs `compile` on every job still to compile, largest first, on the current rayon pool.
pub(super) fn largest_first(jobs: &mut [AssetJob], compile: impl Fn(&mut AssetJob) + Sync) {
    let sized: Vec<(u64, &mut AssetJob)> = jobs
        .par_iter_mut()
        .filter(|job| job.is_discovered())
        .map(|job| (work_estimate(&job.source), job))
        .collect();
    in_size_order(sized, compile);
}

/// Runs `run` on every item, largest size first, ties in the given order (so the order is
/// the same on every run). Each thread takes the next item when it is free (a queue, not
/// rayon's halving split, which would start the second thread in the middle of the order).
fn in_size_order<T: Send>(mut sized: Vec<(u64, T)>, run: impl Fn(T) + Sync) {
    // A stable sort: equal sizes keep their order.
    sized.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    sized
        .into_iter()
        .map(|(_, item)| item)
        .par_bridge()
        .for_each(&run);
}

/// Bytes a source's compile reads, as its kind estimates them. Unreadable files count 0:
/// their compile fails fast.
fn work_estimate(source: &Source) -> u64 {
    crate::kinds::kind(source.kind).work_estimate(source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::KindId;
    use std::path::Path;

    fn source(dir: &Path, name: &str, bytes: usize) -> Source {
        let abs_path = dir.join(name);
        std::fs::write(&abs_path, vec![b' '; bytes]).unwrap();
        Source {
            rel_path: name.into(),
            abs_path,
            kind: KindId::Model,
            keep_case: false,
        }
    }

    #[test]
    fn a_gltf_weighs_what_it_names_and_the_largest_starts_first() {
        let dir = tempfile::tempdir().unwrap();
        // A .gltf of 30 bytes naming a 5,000-byte image outweighs a 3,000-byte .glb.
        std::fs::write(dir.path().join("big.png"), vec![0u8; 5_000]).unwrap();
        let gltf = dir.path().join("a.gltf");
        std::fs::write(&gltf, br#"{"images":[{"uri":"big.png"}]}"#).unwrap();
        let a = Source {
            rel_path: "a.gltf".into(),
            abs_path: gltf,
            kind: KindId::Model,
            keep_case: false,
        };
        let sizes: Vec<u64> = [
            &a,
            &source(dir.path(), "b.glb", 1_000),
            &source(dir.path(), "c.glb", 20),
            &source(dir.path(), "d.glb", 3_000),
            &source(dir.path(), "e.glb", 1_000),
        ]
        .iter()
        .map(|s| work_estimate(s))
        .collect();
        assert!(sizes[0] > 5_000, "{sizes:?}");
        assert_eq!(&sizes[1..], &[1_000, 20, 3_000, 1_000]);

        // On one thread the queue is the order itself; equal sizes (b, e) keep theirs.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let started = std::sync::Mutex::new(Vec::new());
        let items: Vec<(u64, usize)> = sizes.iter().copied().zip(0..).collect();
        pool.install(|| in_size_order(items, |i| started.lock().unwrap().push(i)));
        assert_eq!(started.into_inner().unwrap(), vec![0, 3, 1, 4, 2]);
    }
}
