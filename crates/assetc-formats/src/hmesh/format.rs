//! The `.hmesh` descriptor: what `inspect` and `info` show of a mesh.

use super::clod::{ClodSummary, ClodTopology, ClusterLod};
use super::{HMeshView, DESC_FLAG_TANGENTS, MAGIC, NO_MATERIAL, VERSION};
use crate::describe::{hex, size, Description, Document, Stats};
use crate::format::{Format, Magic, ReadError, Tally};
use crate::hman::EntryKind;
use crate::FormatKind;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HMesh,
    name: ".hmesh",
    extensions: &["hmesh"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    entry_kinds: &[EntryKind::Mesh],
    validate: super::validate,
    describe,
    stats,
    tally: Some(Tally::Mesh),
};

fn vec3(v: [f32; 3]) -> String {
    format!("({:.3}, {:.3}, {:.3})", v[0], v[1], v[2])
}

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let v = HMeshView::parse(bytes)?;
    let d = v.desc;
    let mut doc = Document::new(format!(".hmesh v{VERSION} ({})", size(bytes.len() as u64)));
    doc.fact(
        "vertices",
        format!("{} ({} bytes each)", d.vertex_count, d.vertex_stride),
    );
    doc.fact(
        "triangles",
        format!(
            "{} ({}-bit indices)",
            d.index_count / 3,
            d.index_width as u32 * 8
        ),
    );
    doc.fact(
        "meshlets",
        format!(
            "{} (up to {} vertices, {} triangles each)",
            d.meshlet_count, d.meshlet_max_verts, d.meshlet_max_tris
        ),
    );
    doc.fact(
        "tangents",
        if d.flags & DESC_FLAG_TANGENTS != 0 {
            "stored"
        } else {
            "none (shader derives them)"
        },
    );
    let b = v.bounds;
    doc.fact(
        "bounds",
        format!("{} .. {}", vec3(b.aabb_min), vec3(b.aabb_max)),
    );
    doc.fact(
        "bounding sphere",
        format!(
            "centre {} radius {:.3}",
            vec3(b.sphere_center),
            b.sphere_radius
        ),
    );
    if let Some(s) = &v.skin {
        doc.fact("skin", format!("{} joints", s.joints.len()));
    }
    if v.uv1.is_some() {
        doc.fact("second UV set", "UV1S");
    }
    if let Some(lod) = &v.cluster_lod {
        cluster_lod_doc(&mut doc, lod);
    }
    let t = doc.table("materials", &["slot", "material id"]);
    for (i, m) in v.materials.iter().enumerate() {
        t.row(vec![i.to_string(), hex(*m)]);
    }
    let lod_count = v.lods.as_ref().map_or(0, |l| l.lod_count as usize);
    let mut columns = vec!["submesh", "material slot", "triangles", "meshlets"];
    let lod_names: Vec<String> = (1..=lod_count).map(|i| format!("LOD{i} tris")).collect();
    columns.extend(lod_names.iter().map(String::as_str));
    let mut empty_lods = 0;
    let mut rows = Vec::new();
    for (i, s) in v.submeshes.iter().enumerate() {
        let mut row = vec![
            i.to_string(),
            if s.material_slot == NO_MATERIAL {
                "none".to_string()
            } else {
                s.material_slot.to_string()
            },
            (s.index_count / 3).to_string(),
            s.meshlet_count.to_string(),
        ];
        if let Some(l) = &v.lods {
            for lod in 0..lod_count {
                let tris = l
                    .ranges
                    .get(i * lod_count + lod)
                    .map_or(0, |r| r.index_count / 3);
                if tris == 0 {
                    empty_lods += 1;
                }
                row.push(tris.to_string());
            }
        }
        rows.push(row);
    }
    doc.table("submeshes", &columns).rows = rows;
    if empty_lods > 0 {
        let total = (lod_count * v.submeshes.len()) as u64;
        doc.fact(
            super::lod_fact::LABEL,
            super::lod_fact::value(empty_lods as u64, total),
        );
    }
    Ok(Description::Document(doc))
}

/// The cluster LOD chunks: totals, and per submesh and level what a renderer would find.
fn cluster_lod_doc(doc: &mut Document, lod: &ClusterLod) {
    let topology = match &lod.topology {
        ClodTopology::Plain { .. } => "plain",
        ClodTopology::Encoded { .. } => "meshlet codec",
    };
    let source_tris: u64 = lod
        .clusters
        .iter()
        .filter(|c| c.refined == -1)
        .map(|c| u64::from(c.triangle_count))
        .sum();
    doc.fact(
        "cluster LOD",
        format!(
            "{} clusters in {} groups, {} hierarchy nodes; topology {topology}, {} bytes ({:.1} bits per source triangle)",
            lod.clusters.len(),
            lod.groups.len(),
            lod.nodes.len(),
            lod.topology_bytes(),
            lod.topology_bytes() as f64 * 8.0 / source_tris.max(1) as f64
        ),
    );
    let mut rows = Vec::new();
    for (s, row) in lod.submeshes.iter().enumerate() {
        for level in 0..row.level_count {
            let first = row.first_cluster as usize;
            let clusters = lod
                .clusters
                .get(first..first + row.cluster_count as usize)
                .unwrap_or(&[])
                .iter()
                .filter(|c| c.level == level);
            let (count, tris) = clusters.fold((0u64, 0u64), |(n, t), c| {
                (n + 1, t + u64::from(c.triangle_count))
            });
            let first = row.first_group as usize;
            let groups: Vec<_> = lod
                .groups
                .get(first..first + row.group_count as usize)
                .unwrap_or(&[])
                .iter()
                .filter(|g| g.level == level)
                .collect();
            let terminal = groups.iter().filter(|g| g.error >= f32::MAX).count();
            let largest = groups
                .iter()
                .map(|g| g.error)
                .filter(|e| *e < f32::MAX)
                .fold(0.0f32, f32::max);
            rows.push(vec![
                s.to_string(),
                level.to_string(),
                count.to_string(),
                tris.to_string(),
                groups.len().to_string(),
                terminal.to_string(),
                format!("{largest:.6}"),
            ]);
        }
    }
    doc.table(
        "cluster LOD levels",
        &[
            "submesh",
            "level",
            "clusters",
            "triangles",
            "groups",
            "terminal groups",
            "largest group error",
        ],
    )
    .rows = rows;
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    let v = HMeshView::parse(bytes)?;
    let mut stats = Stats {
        vertices: Some(u64::from(v.desc.vertex_count)),
        triangles: Some(u64::from(v.desc.index_count / 3)),
        meshlets: Some(u64::from(v.desc.meshlet_count)),
        submeshes: Some(u64::from(v.desc.submesh_count)),
        materials: Some(u64::from(v.desc.material_count)),
        joints: v.skin.as_ref().map(|s| s.joints.len() as u64),
        cluster_lod: v.cluster_lod.as_ref().map(ClodSummary::of),
        ..Stats::default()
    };
    if let Some(l) = &v.lods {
        let n = l.lod_count.max(1) as usize;
        stats.lod_triangles = (0..l.lod_count as usize)
            .map(|lod| {
                l.ranges
                    .iter()
                    .skip(lod)
                    .step_by(n)
                    .map(|r| u64::from(r.index_count / 3))
                    .sum()
            })
            .collect();
        stats.empty_lod_levels = l.ranges.iter().filter(|r| r.index_count == 0).count() as u64;
    }
    Ok(stats)
}
