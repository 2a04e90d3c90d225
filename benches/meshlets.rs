//! meshoptimizer's meshlet builders side by side, to choose the one the meshlet stage uses:
//! `cargo bench --bench meshlets` (set `ASSETC_CORPUS` for the corpus rows; default
//! `../shared/corpus`). For each input (the gentle and the curved 1M fields of
//! `scripts/bench.sh`, and every corpus primitive), welded and in vertex-cache order as the
//! pipeline gives them, each builder runs on the stage's runs (`RUN_TRIANGLES` of the
//! index buffer), on one thread, bounds included (best of 3, the thread's own CPU time, so
//! that other jobs on a shared machine do not count); then the stage's builder on runs of
//! other sizes. Printed per builder: CPU time, meshlet count, triangles and vertices per
//! meshlet, and cone culling: the share of triangles whose meshlet a
//! backface-cone test rejects, averaged over 26 view directions (the axes, edge and corner
//! diagonals of a cube), beside the share of triangles that face away (the ideal).

use assetc::import::gltf::{import_gltf, ImportOptions};
use assetc::pipeline::geometry::Geometry;
use assetc::pipeline::meshlets::RUN_TRIANGLES;
use assetc::pipeline::{optimize, weld};
use assetc::samples::{height_field, FieldSurface};
use meshopt::{Meshlets, VertexDataAdapter};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// CPU time of the calling thread (not wall time: the machine may be shared).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

const MAX_VERTICES: usize = 64;
const MAX_TRIANGLES: usize = 124;

/// One builder: indices of a run, its positions -> meshlets.
type Builder = fn(&[u32], &VertexDataAdapter) -> Meshlets;

fn builders() -> Vec<(&'static str, Builder)> {
    vec![
        ("scan", |i, a| {
            meshopt::build_meshlets_scan(i, a.vertex_count, MAX_VERTICES, MAX_TRIANGLES)
        }),
        ("regular, cone weight 0", |i, a| {
            meshopt::build_meshlets(i, a, MAX_VERTICES, MAX_TRIANGLES, 0.0)
        }),
        ("regular, cone weight 0.25", |i, a| {
            meshopt::build_meshlets(i, a, MAX_VERTICES, MAX_TRIANGLES, 0.25)
        }),
        ("regular, cone weight 0.5", |i, a| {
            meshopt::build_meshlets(i, a, MAX_VERTICES, MAX_TRIANGLES, 0.5)
        }),
        ("flex 64-124, cone weight 0.25, split 2", |i, a| {
            meshopt::build_meshlets_flex(i, a, MAX_VERTICES, 64, MAX_TRIANGLES, 0.25, 2.0)
        }),
        ("flex 64-124, cone weight 0, split 2", |i, a| {
            meshopt::build_meshlets_flex(i, a, MAX_VERTICES, 64, MAX_TRIANGLES, 0.0, 2.0)
        }),
        ("spatial 64-124, fill 0.5", |i, a| {
            meshopt::build_meshlets_spatial(i, a, MAX_VERTICES, 64, MAX_TRIANGLES, 0.5)
        }),
        ("spatial 124-124, fill 0.5", |i, a| {
            meshopt::build_meshlets_spatial(i, a, MAX_VERTICES, 124, MAX_TRIANGLES, 0.5)
        }),
    ]
}

/// A mesh as the meshlet stage sees it: welded, vertex-cache and fetch order.
fn prepared(name: &str, positions: &[[f32; 3]], indices: Vec<u32>) -> Geometry {
    let mut g = Geometry::new(name, positions, indices);
    weld::weld_vertices(&mut g, 0.0, false);
    optimize::optimize_vertex_order(&mut g);
    g
}

/// What one builder made of a set of meshes.
#[derive(Default)]
struct Tally {
    time: Duration,
    meshlets: usize,
    triangles: usize,
    /// Triangles in rejected meshlets, summed over the view directions.
    rejected: f64,
    /// Triangles facing away, summed over the view directions.
    back: f64,
    /// Vertex references of all meshlets (what a mesh shader transforms).
    vertices: usize,
}

fn directions() -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for x in -1i32..=1 {
        for y in -1i32..=1 {
            for z in -1i32..=1 {
                if (x, y, z) != (0, 0, 0) {
                    let v = [x as f32, y as f32, z as f32];
                    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                    out.push([v[0] / len, v[1] / len, v[2] / len]);
                }
            }
        }
    }
    out
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Runs `build` on `g` in runs of `run_triangles` (the stage's split, one thread), best
/// time of 3, and adds its meshlets' culling figures to `tally`.
fn measure(g: &Geometry, build: Builder, run_triangles: usize, tally: &mut Tally) {
    let positions = g.positions();
    // As the stage does: each run gets only its range of vertices (the builders allocate
    // per vertex they are given).
    let run_all = || {
        let mut out = Vec::new();
        for run in g.indices.chunks(run_triangles * 3) {
            let first = run.iter().copied().min().unwrap_or(0);
            let last = run.iter().copied().max().unwrap_or(0);
            let local: Vec<u32> = run.iter().map(|&i| i - first).collect();
            let bytes =
                bytemuck::cast_slice::<[f32; 4], u8>(&positions[first as usize..=last as usize]);
            let adapter = VertexDataAdapter::new(bytes, 16, 0).expect("positions");
            let m = build(&local, &adapter);
            let bounds: Vec<meshopt::Bounds> = m
                .iter()
                .map(|ml| meshopt::compute_meshlet_bounds(ml, &adapter))
                .collect();
            out.push((m, bounds));
        }
        out
    };
    let mut best = Duration::MAX;
    let mut built = Vec::new();
    for _ in 0..3 {
        let t = thread_cpu();
        built = std::hint::black_box(run_all());
        best = best.min(thread_cpu() - t);
    }
    tally.time += best;
    let views = directions();
    for (meshlets, bounds) in &built {
        for (m, b) in meshlets.iter().zip(bounds) {
            let tris = m.triangles.len() / 3;
            tally.meshlets += 1;
            tally.triangles += tris;
            tally.vertices += m.vertices.len();
            // meshoptimizer's test: reject when dot(view, axis) >= cutoff, `view` the
            // direction from the eye to the cluster (an eye at infinity here).
            let rejected = views
                .iter()
                .filter(|&&v| dot(v, b.cone_axis) >= b.cone_cutoff)
                .count();
            tally.rejected += (rejected * tris) as f64;
        }
    }
    // Facing away: the view direction along the face normal.
    for t in g.indices.chunks_exact(3) {
        let p = |k: usize| {
            let q = positions[t[k] as usize];
            [q[0], q[1], q[2]]
        };
        let (a, b, c) = (p(0), p(1), p(2));
        let (u, v) = (
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        tally.back += views.iter().filter(|&&d| dot(d, n) > 0.0).count() as f64;
    }
}

fn corpus_meshes() -> Vec<Geometry> {
    let root = std::env::var_os("ASSETC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"))
        .join("gltf");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let Ok(scene) = import_gltf(&file, "bench", &ImportOptions::new(&root)) else {
            continue;
        };
        for mesh in &scene.meshes {
            for p in &mesh.primitives {
                if p.indices.len() >= 3 {
                    out.push(prepared(&p.gltf_path, &p.positions, p.indices.clone()));
                }
            }
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("gltf") || x.eq_ignore_ascii_case("glb"))
        {
            out.push(path);
        }
    }
}

fn field(w: u32, h: u32, surface: FieldSurface) -> Vec<Geometry> {
    let f = height_field(w, h, surface);
    vec![prepared("field", &f.positions, f.indices)]
}

/// One table row: what `build` made of `meshes` in runs of `run_triangles`.
fn print_row(label: &str, meshes: &[Geometry], build: Builder, run_triangles: usize) {
    let mut tally = Tally::default();
    for g in meshes {
        measure(g, build, run_triangles, &mut tally);
    }
    let views = directions().len() as f64;
    let meshlets = tally.meshlets.max(1) as f64;
    println!(
        "| {label} | {:.1} | {} | {:.1} | {:.1} | {:.1}% | {:.1}% |",
        tally.time.as_secs_f64() * 1e3,
        tally.meshlets,
        tally.triangles as f64 / meshlets,
        tally.vertices as f64 / meshlets,
        100.0 * tally.rejected / (views * tally.triangles.max(1) as f64),
        100.0 * tally.back / (views * tally.triangles.max(1) as f64),
    );
}

fn main() {
    let inputs: Vec<(&str, Vec<Geometry>)> = vec![
        ("1M flat field", field(1001, 501, FieldSurface::Gentle)),
        ("1M curved field", field(709, 709, FieldSurface::Curved)),
        ("corpus (every primitive)", corpus_meshes()),
    ];
    let header = "| ms (1 thread) | meshlets | triangles/meshlet | vertices/meshlet | cone-culled | facing away |\n|---|---:|---:|---:|---:|---:|---:|";
    for (name, meshes) in &inputs {
        let triangles: usize = meshes.iter().map(|g| g.indices.len() / 3).sum();
        println!("\n{name}: {} meshes, {triangles} triangles\n", meshes.len());
        println!("| builder, runs of {RUN_TRIANGLES} triangles {header}");
        for (label, build) in builders() {
            print_row(label, meshes, build, RUN_TRIANGLES);
        }
        // The stage's builder by the length of its runs: shorter runs build faster and
        // cut more meshlets short at their ends.
        println!("\n| regular builder, cone weight 0.25, runs of {header}");
        let regular: Builder =
            |i, a| meshopt::build_meshlets(i, a, MAX_VERTICES, MAX_TRIANGLES, 0.25);
        for run in [1 << 17, 1 << 16, 1 << 15, 1 << 14, 1 << 13] {
            print_row(&format!("{run} triangles"), meshes, regular, run);
        }
    }
}
