//! `--shard I/N`: split one build over N machines by a stable hash of each source's path.
//!
//! The path hashed is the source's path relative to the input root with `/` separators,
//! case kept (`props/Crate.glb`), as the cache and the rules see it: every machine assigns
//! every source to the same shard whatever its checkout folder or operating system, and a
//! source keeps its shard when others are added or removed.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based, as CI matrices count.
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the source at `rel_path` (relative to the input root, `/`-separated) is
    /// built by this shard.
    pub fn contains(&self, rel_path: &str) -> bool {
        shard_of(rel_path, self.count) == self.index
    }
}

/// The shard (1..=count) a source path falls in: xxh3-64 of the path, modulo `count`.
pub fn shard_of(rel_path: &str, count: u32) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(rel_path.as_bytes()) % u64::from(count.max(1))) as u32 + 1
}

/// A `--shard` that is not `I/N` with 1 <= I <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected I/N with 1 <= I <= N (like 2/4), got `{0}`")]
pub struct BadShard(pub String);

impl FromStr for Shard {
    type Err = BadShard;
    fn from_str(s: &str) -> Result<Self, BadShard> {
        let bad = || BadShard(s.to_owned());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_based_shards_and_refuses_the_rest() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/4", "5/4", "1/0", "1", "a/b", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_source_is_in_exactly_one_shard_and_the_split_is_stable() {
        let paths: Vec<String> = (0..200)
            .map(|i| format!("dir{}/asset{i}.glb", i % 7))
            .collect();
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        let mut sizes = [0usize; 3];
        for p in &paths {
            let owners: Vec<_> = shards.iter().filter(|s| s.contains(p)).collect();
            assert_eq!(owners.len(), 1, "{p}");
            sizes[owners[0].index as usize - 1] += 1;
        }
        // A fair hash: no shard gets less than a fifth of the work here.
        assert!(sizes.iter().all(|&n| n > 40), "{sizes:?}");
        // A fixed assignment (documented in docs/scale.md): it must not drift between
        // versions, or a farm mixing versions would build some sources twice.
        assert_eq!(
            shard_of("props/Crate.glb", 4),
            shard_of("props/Crate.glb", 4)
        );
        assert_eq!(
            shard_of("a.glb", 2),
            (xxhash_rust::xxh3::xxh3_64(b"a.glb") % 2) as u32 + 1
        );
    }
}
