//! Each geometry stage against the raw meshoptimizer call it wraps, on the 1M-triangle
//! fields of `scripts/bench.sh`, gentle and curved: `cargo bench --bench stages`. The aim
//! is that no stage takes more than 1.2x its raw call (our extra work: attribute
//! remapping, dense repacking).

use assetc::pipeline::geometry::{widen, Geometry, Semantic};
use assetc::pipeline::{lods, meshlets, optimize, weld};
use assetc::samples::{height_field, FieldSurface};
use std::time::{Duration, Instant};

fn grid(w: u32, h: u32, surface: FieldSurface) -> Geometry {
    let field = height_field(w, h, surface);
    let mut g = Geometry::new("grid", &field.positions, field.indices);
    g.set_stream(Semantic::TexCoord, 0, widen(&field.uvs));
    g
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
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
    for (name, w, h, surface) in [
        ("gentle (flat) field", 1001, 501, FieldSurface::Gentle),
        ("curved field", 709, 709, FieldSurface::Curved),
    ] {
        println!("\n{name}:");
        stages(&grid(w, h, surface), w);
    }
}

/// How far a level of a `w`-wide grid is from the full grid in height: the level's
/// surface interpolated at every grid vertex it covers (barycentric weights in grid steps,
/// which map to x and z linearly), against that vertex's height. Max and RMS.
fn vertical_deviation(positions: &[[f32; 4]], indices: &[u32], w: u32) -> (f64, f64) {
    let at = |v: u32| {
        (
            (v % w) as f64,
            (v / w) as f64,
            f64::from(positions[v as usize][1]),
        )
    };
    let mut seen = vec![false; positions.len()];
    let (mut max, mut sum, mut count) = (0.0f64, 0.0f64, 0usize);
    for t in indices.chunks_exact(3) {
        let (a, b, c) = (at(t[0]), at(t[1]), at(t[2]));
        let det = (b.1 - c.1) * (a.0 - c.0) + (c.0 - b.0) * (a.1 - c.1);
        if det == 0.0 {
            continue;
        }
        let (x0, x1) = (a.0.min(b.0).min(c.0), a.0.max(b.0).max(c.0));
        let (z0, z1) = (a.1.min(b.1).min(c.1), a.1.max(b.1).max(c.1));
        for z in z0 as u32..=z1 as u32 {
            for x in x0 as u32..=x1 as u32 {
                let (px, pz) = (f64::from(x), f64::from(z));
                let l0 = ((b.1 - c.1) * (px - c.0) + (c.0 - b.0) * (pz - c.1)) / det;
                let l1 = ((c.1 - a.1) * (px - c.0) + (a.0 - c.0) * (pz - c.1)) / det;
                let l2 = 1.0 - l0 - l1;
                let v = (z * w + x) as usize;
                if l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9 || seen[v] {
                    continue;
                }
                seen[v] = true;
                let y = l0 * a.2 + l1 * b.2 + l2 * c.2;
                let d = (y - f64::from(positions[v][1])).abs();
                max = max.max(d);
                sum += d * d;
                count += 1;
            }
        }
    }
    (max, (sum / count.max(1) as f64).sqrt())
}

fn stages(g: &Geometry, w: u32) {
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
    // The simplifier's own cost, apart from how the regions share the cores: on one
    // thread, that thread's CPU time (other jobs on a shared machine do not count).
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let cpu = (0..3)
        .map(|_| {
            one.install(|| {
                let t = thread_cpu();
                std::hint::black_box(lods::build_lods(
                    g.positions(),
                    &g.indices,
                    &[0.5, 0.25],
                    0.05,
                ));
                thread_cpu() - t
            })
        })
        .min()
        .unwrap_or_default();
    println!(
        "lods on one thread: {:.1} ms of CPU",
        cpu.as_secs_f64() * 1e3
    );
    let levels = lods::build_lods(g.positions(), &g.indices, &[0.5, 0.25], 0.05);
    for (k, level) in levels.iter().enumerate() {
        let (max, rms) = vertical_deviation(g.positions(), &level.indices, w);
        println!(
            "LOD{}: {} triangles, simplifier error {:.5}, height off the full mesh at its \
             vertices: max {max:.5}, RMS {rms:.5} (model units)",
            k + 1,
            level.indices.len() / 3,
            level.error
        );
    }

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
