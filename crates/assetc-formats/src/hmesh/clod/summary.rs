//! A hierarchy in figures, for `info`, `inspect` and the build report.

use super::{ClodTopology, ClusterLod};

pub use crate::describe::ClodSummary;

impl ClodSummary {
    pub fn of(lod: &ClusterLod) -> Self {
        let levels = lod
            .submeshes
            .iter()
            .map(|s| s.level_count)
            .max()
            .unwrap_or(0);
        let mut triangles_per_level = vec![0u64; levels as usize];
        for c in &lod.clusters {
            if let Some(t) = triangles_per_level.get_mut(c.level as usize) {
                *t += u64::from(c.triangle_count);
            }
        }
        let rows = |n: usize, size: usize| (n * size) as u64;
        Self {
            levels,
            clusters: lod.clusters.len() as u64,
            groups: lod.groups.len() as u64,
            nodes: lod.nodes.len() as u64,
            triangles_per_level,
            table_bytes: rows(lod.submeshes.len(), 32)
                + rows(lod.clusters.len(), 32 + 32 + 48)
                + rows(lod.groups.len(), 32)
                + rows(lod.nodes.len(), 32),
            topology_bytes: lod.topology_bytes() as u64,
            encoded: matches!(lod.topology, ClodTopology::Encoded { .. }),
        }
    }

    /// Triangles over all levels.
    pub fn stored_triangles(&self) -> u64 {
        self.triangles_per_level.iter().sum()
    }

    /// Bits of topology per triangle stored over all levels.
    pub fn topology_bits_per_triangle(&self) -> f64 {
        self.topology_bytes as f64 * 8.0 / self.stored_triangles().max(1) as f64
    }

    /// One line: `14 levels, 16395 clusters in 1012 groups; triangles per level 1002528 /
    /// 501156 / ...; tables 1905936 B, topology 3404411 B (meshlet codec, 13.59 bits per
    /// stored triangle)`.
    pub fn describe(&self) -> String {
        let per_level: Vec<String> = self
            .triangles_per_level
            .iter()
            .map(u64::to_string)
            .collect();
        format!(
            "{} levels, {} clusters in {} groups; triangles per level {}; tables {} B, topology {} B ({}, {:.2} bits per stored triangle)",
            self.levels,
            self.clusters,
            self.groups,
            per_level.join(" / "),
            self.table_bytes,
            self.topology_bytes,
            if self.encoded { "meshlet codec" } else { "plain" },
            self.topology_bits_per_triangle()
        )
    }
}
