//! Each geometry stage against the raw meshoptimizer call it wraps, on the same
//! 1,000,000-triangle grid: `cargo bench --bench stages`. The aim is that no stage takes
//! more than 1.2x its raw call (our extra work: attribute remapping, dense repacking).

use assetc::pipeline::geometry::{widen, Geometry, Semantic};
use assetc::pipeline::{lods, meshlets, optimize, weld};
use std::time::{Duration, Instant};

fn grid(w: u32, h: u32) -> Geometry {
    let positions: Vec<[f32; 3]> = (0..w * h)
        .map(|i| {
            let (x, z) = ((i % w) as f32 / 16.0, (i / w) as f32 / 16.0);
            [x, (x * 1.3).sin() * (z * 0.7).cos() * 0.5, z]
        })
        .collect();
    let uvs: Vec<[f32; 2]> = (0..w * h)
        .map(|i| [(i % w) as f32 / w as f32, (i / w) as f32 / h as f32])
        .collect();
    let mut indices = Vec::new();
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            let i = y * w + x;
            indices.extend_from_slice(&[i, i + w, i + 1, i + 1, i + w, i + w + 1]);
        }
    }
    let mut g = Geometry::new("grid", &positions, indices);
    g.set_stream(Semantic::TexCoord, 0, widen(&uvs));
    g
}

/// Best of `runs` timings (the least disturbed by the rest of the machine).
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn row(name: &str, ours: Duration, raw: Duration) {
    println!(
        "| {name} | {:.1} | {:.1} | {:.2} |",
        ours.as_secs_f64() * 1e3,
        raw.as_secs_f64() * 1e3,
        ours.as_secs_f64() / raw.as_secs_f64()
    );
}

fn main() {
    let g = grid(1001, 501);
    let n = g.vertex_count();
    let positions: Vec<[f32; 3]> = g.positions().iter().map(|p| [p[0], p[1], p[2]]).collect();
    let bytes = bytemuck::cast_slice::<[f32; 4], u8>(g.positions());
    let adapter = meshopt::VertexDataAdapter::new(bytes, 16, 0).expect("adapter");
    println!("{} triangles, {} vertices\n", g.indices.len() / 3, n);
    println!("| stage | ours ms | raw meshoptimizer ms | ratio |");
    println!("|---|---:|---:|---:|");

    let ours = best(3, || {
        let mut c = g.clone();
        optimize::optimize_vertex_order(&mut c);
        c
    });
    let raw = best(3, || {
        let mut c = g.clone();
        c.indices = meshopt::optimize_vertex_cache(&c.indices, n);
        let uvs: Vec<[f32; 2]> = c
            .stream(Semantic::TexCoord, 0)
            .unwrap_or_default()
            .iter()
            .map(|u| [u[0], u[1]])
            .collect();
        let p = meshopt::optimize_vertex_fetch(&mut c.indices, &positions);
        let mut i2 = c.indices.clone();
        let u = meshopt::optimize_vertex_fetch(&mut i2, &uvs);
        (p, u)
    });
    row("optimize (vertex cache + fetch)", ours, raw);

    let ours = best(3, || {
        meshlets::build_meshlets(g.positions(), &g.indices, 64, 124, 0.25)
    });
    let raw = best(3, || {
        let m = meshopt::build_meshlets(&g.indices, &adapter, 64, 124, 0.25);
        let b: Vec<_> = m
            .iter()
            .map(|ml| meshopt::compute_meshlet_bounds(ml, &adapter))
            .collect();
        (m, b)
    });
    row("meshlets (+ bounds)", ours, raw);

    let ours = best(3, || {
        lods::build_lods(g.positions(), &g.indices, &[0.5, 0.25], 0.05)
    });
    // The same cascade as the stage: 0.25 simplified from the 0.5 level.
    let raw = best(3, || {
        let simplify = |source: &[u32], ratio: f64| {
            let target = ((g.indices.len() as f64 * ratio) as usize / 3) * 3;
            meshopt::simplify(
                source,
                &adapter,
                target,
                0.05,
                meshopt::SimplifyOptions::empty(),
                None,
            )
        };
        let lod1 = simplify(&g.indices, 0.5);
        let lod2 = simplify(&lod1, 0.25);
        (lod1, lod2)
    });
    row("lods (0.5, then 0.25 from it)", ours, raw);

    let ours = best(3, || {
        let mut c = g.clone();
        weld::weld_vertices(&mut c, 0.0, false);
        c
    });
    let raw = best(3, || {
        meshopt::generate_vertex_remap(&positions, Some(&g.indices))
    });
    row("weld (exact) vs generate_vertex_remap", ours, raw);
}
