//! The FBX importer against real FBX files: corpus glTF assets exported to FBX by Blender
//! (tests/export_fbx.py, headless), read back by assetc's FBX importer and compared with
//! what assetc's glTF importer reads from the glTF they came from.
//!
//! The comparison is in world space and ignores order: Blender renumbers vertices, may
//! rename or reorder nodes and materials, and FBX keeps its own hierarchy, so triangles are
//! matched as sets of three corners (position, normal, UV) in winding order, and each
//! matched triangle's material must have the same base colour factor. Tolerances are the
//! exporter's precision (Blender stores positions and UVs as float32 after converting
//! between its Z-up frame and glTF's or FBX's Y-up one, and normals as 16-bit custom
//! normals), reasoned in [`Tolerance`].
//!
//! Blender is slow to start (3-5 s per file), so each export is cached under
//! `CARGO_TARGET_TMPDIR`, keyed by the bytes of the source, its buffers and images, and the
//! export script.

mod common;

use assetc::import::{import_fbx, import_gltf, ImportOptions};
use assetc::rig::sample::node_worlds;
use assetc::scene::{Animation, Scene};
use glam::{Mat3, Mat4, Vec2, Vec3};
use std::path::{Path, PathBuf};
use std::process::Command;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/export_fbx.py");

fn blender(test: &str) -> Option<PathBuf> {
    let found = common::tool("ASSETC_BLENDER", "blender", &[]);
    if found.is_none() {
        common::missing(
            test,
            "blender (Debian package `blender`, with python3-numpy)",
        );
    }
    found
}

/// A corpus source exported to FBX, in a folder of its own holding the FBX and the
/// source's external images (the glTF and its buffers are not there: only the FBX is a
/// model source of that folder).
struct Exported {
    _dir: tempfile::TempDir,
    /// The input folder: the FBX and the images it names.
    input: PathBuf,
    fbx: PathBuf,
}

fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= u64::from(b);
        *hash = hash.wrapping_mul(0x100_0000_01b3);
    }
}

/// Exports `source` with Blender (cached). `embed` packs the images into the FBX; without
/// it the FBX names them by relative path and they are copied beside it.
fn export(blender: &Path, source: &Path, embed: bool) -> Exported {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let referenced = assetc::kinds::model::referenced_files(source);
    let mut key = 0xcbf2_9ce4_8422_2325u64;
    fnv1a(&mut key, &std::fs::read(SCRIPT).unwrap());
    fnv1a(&mut key, &[u8::from(embed)]);
    fnv1a(&mut key, &std::fs::read(source).unwrap());
    for file in &referenced {
        fnv1a(&mut key, file.file_name().unwrap().as_encoded_bytes());
        fnv1a(&mut key, &std::fs::read(file).unwrap());
    }
    // The source, its buffers and images in the input folder, as an artist's folder
    // holds them: Blender then writes image paths relative to where the FBX lies.
    let local = input.join(source.file_name().unwrap());
    std::fs::copy(source, &local).unwrap();
    for file in &referenced {
        std::fs::copy(file, input.join(file.file_name().unwrap())).unwrap();
    }
    let stem = source.file_stem().unwrap().to_string_lossy().into_owned();
    let fbx = input.join(format!("{stem}.fbx"));
    let cache_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fbx-export");
    let cached = cache_dir.join(format!("{stem}-{key:016x}.fbx"));
    if cached.is_file() {
        std::fs::copy(&cached, &fbx).unwrap();
    } else {
        let mut args = vec![
            "-b".to_string(),
            "--factory-startup".into(),
            "--python".into(),
            SCRIPT.into(),
            "--".into(),
            local.display().to_string(),
            fbx.display().to_string(),
        ];
        if embed {
            args.push("--embed".into());
        }
        let out = Command::new(blender).args(&args).output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && fbx.is_file() && log.contains("EXPORTED"),
            "blender failed to export {}:\n{log}",
            source.display()
        );
        std::fs::create_dir_all(&cache_dir).unwrap();
        let tmp = cache_dir.join(format!(".{stem}-{key:016x}.{}", std::process::id()));
        std::fs::copy(&fbx, &tmp).unwrap();
        std::fs::rename(&tmp, &cached).unwrap();
    }
    // Only the FBX is a model source of the folder (the glTF would claim the same outputs).
    std::fs::remove_file(&local).unwrap();
    for file in referenced
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "bin"))
    {
        std::fs::remove_file(input.join(file.file_name().unwrap())).unwrap();
    }
    Exported {
        _dir: dir,
        input,
        fbx,
    }
}

/// How close the FBX's values must be to the glTF's.
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    /// Positions: float32 rounding through two axis conversions and Blender's own storage
    /// is ~1e-7 of the coordinates' size; 1e-5 of the scene's extent leaves margin for
    /// skinning's matrix products without hiding a misplaced vertex.
    position: f32,
    /// Normals: Blender keeps glTF normals as custom split normals, encoded as two angles
    /// in a per-corner-fan space, and re-derives them on export; most come back within
    /// 1e-4, but around a few sharp fans they move by up to 0.005 (23 of FlightHelmet's
    /// 94,722 triangles), so 0.01 (0.6 degrees).
    normal: f32,
    /// UVs: float32 in Blender, `1 - v` on both sides of the trip.
    uv: f32,
    /// Base colour factors: Blender stores colours as float32.
    color: f32,
}

/// A triangle in world space.
#[derive(Debug, Clone)]
struct Tri {
    p: [Vec3; 3],
    n: Option<[Vec3; 3]>,
    uv: Option<[Vec2; 3]>,
    base_color: [f32; 4],
}

impl Tri {
    fn centroid(&self) -> Vec3 {
        (self.p[0] + self.p[1] + self.p[2]) / 3.0
    }
    /// Zero area, or so thin (height under 1e-4 of its longest edge) that its normal and
    /// even its presence depend on rounding: Blender drops or keeps such slivers
    /// depending on float noise, and exports zero normals for them.
    fn is_degenerate(&self) -> bool {
        let twice_area = (self.p[1] - self.p[0])
            .cross(self.p[2] - self.p[0])
            .length();
        let longest = (0..3)
            .map(|i| self.p[i].distance(self.p[(i + 1) % 3]))
            .fold(0.0, f32::max);
        twice_area <= 1e-4 * longest * longest
    }
}

/// Every triangle of every drawn primitive in world space, at `time` of `anim` (rest pose
/// without): skinned primitives by `sum w * world(joint) * inverseBind`, as glTF defines
/// it, others by their node's world matrix.
fn world_triangles(scene: &Scene, anim: Option<&Animation>, time: f32) -> Vec<Tri> {
    let worlds = node_worlds(scene, anim, time);
    let mut out = Vec::new();
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        let node = &scene.nodes[inst.node];
        let skin = node.skin.map(|s| &scene.skins[s]);
        let vertex_matrix = |v: usize| -> Mat4 {
            match (skin, prim.joints.first(), prim.weights.first()) {
                (Some(skin), Some(_), Some(_)) => {
                    let mut m = Mat4::ZERO;
                    for (j, w) in prim.joints.iter().zip(&prim.weights) {
                        for k in 0..4 {
                            let joint = j[v][k] as usize;
                            m += (worlds[skin.joints[joint]] * skin.inverse_bind_matrices[joint])
                                * w[v][k];
                        }
                    }
                    m
                }
                _ => worlds[inst.node],
            }
        };
        let base_color = prim
            .material
            .map_or([1.0; 4], |m| scene.materials[m].base_color_factor);
        for t in prim.indices.chunks_exact(3) {
            let corner = |k: usize| {
                let v = t[k] as usize;
                let m = vertex_matrix(v);
                let p = m.transform_point3(Vec3::from(prim.positions[v]));
                let n = prim.normals.as_ref().map(|n| {
                    (Mat3::from_mat4(m).inverse().transpose() * Vec3::from(n[v])).normalize()
                });
                let uv = prim.uv0.as_ref().map(|uv| Vec2::from(uv[v]));
                (p, n, uv)
            };
            let c = [corner(0), corner(1), corner(2)];
            out.push(Tri {
                p: c.map(|c| c.0),
                n: c.iter()
                    .map(|c| c.1)
                    .collect::<Option<Vec<_>>>()
                    .map(|v| [v[0], v[1], v[2]]),
                uv: c
                    .iter()
                    .map(|c| c.2)
                    .collect::<Option<Vec<_>>>()
                    .map(|v| [v[0], v[1], v[2]]),
                base_color,
            });
        }
    }
    out
}

/// Largest coordinate magnitude of the triangles: the scale positions are compared at.
fn extent(tris: &[Tri]) -> f32 {
    tris.iter()
        .flat_map(|t| t.p)
        .map(|p| p.abs().max_element())
        .fold(0.0, f32::max)
}

/// Whether `b`, rotated by `r` corners, is `a` within the tolerance (winding kept).
fn same_triangle(a: &Tri, b: &Tri, r: usize, tol: &Tolerance, pos_tol: f32) -> bool {
    (0..3).all(|i| {
        let j = (i + r) % 3;
        a.p[i].distance(b.p[j]) <= pos_tol
            && match (a.n, b.n) {
                (Some(na), Some(nb)) => na[i].distance(nb[j]) <= tol.normal,
                _ => true,
            }
            && match (a.uv, b.uv) {
                (Some(ua), Some(ub)) => ua[i].distance(ub[j]) <= tol.uv,
                _ => true,
            }
    })
}

/// Matches every triangle of `fbx` with one of `gltf` (as multisets; degenerate triangles,
/// which Blender's importer drops, are left out on both sides). Returns a description of
/// every difference, empty when the sets agree.
fn compare_triangles(gltf: &[Tri], fbx: &[Tri], tol: &Tolerance) -> Vec<String> {
    let scale = extent(gltf).max(1e-3);
    let pos_tol = tol.position * scale;
    let keep = |t: &&Tri| !t.is_degenerate();
    let gltf: Vec<&Tri> = gltf.iter().filter(keep).collect();
    let fbx: Vec<&Tri> = fbx.iter().filter(keep).collect();
    let mut problems = Vec::new();
    if gltf.len() != fbx.len() {
        problems.push(format!(
            "{} non-degenerate triangles from glTF, {} from FBX",
            gltf.len(),
            fbx.len()
        ));
    }
    // Centroids on a grid of cells 4x the tolerance: a match lies in the same or a
    // neighbouring cell.
    let cell = pos_tol * 4.0;
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    let mut grid: std::collections::HashMap<glam::IVec3, Vec<usize>> = Default::default();
    for (i, t) in gltf.iter().enumerate() {
        grid.entry(key(t.centroid())).or_default().push(i);
    }
    let mut used = vec![false; gltf.len()];
    let mut unmatched = 0;
    let mut color_mismatch = 0;
    for t in &fbx {
        let k = key(t.centroid());
        let mut found = None;
        'search: for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(cands) = grid.get(&(k + glam::IVec3::new(dx, dy, dz))) else {
                        continue;
                    };
                    for &c in cands {
                        if !used[c] && (0..3).any(|r| same_triangle(gltf[c], t, r, tol, pos_tol)) {
                            found = Some(c);
                            break 'search;
                        }
                    }
                }
            }
        }
        match found {
            Some(c) => {
                used[c] = true;
                let (a, b) = (gltf[c].base_color, t.base_color);
                if a.iter().zip(&b).any(|(x, y)| (x - y).abs() > tol.color) {
                    if color_mismatch < 3 {
                        problems.push(format!(
                            "triangle at {:?}: base colour {a:?} in glTF, {b:?} in FBX",
                            t.centroid()
                        ));
                    }
                    color_mismatch += 1;
                }
            }
            None => {
                if unmatched < 3 {
                    let nearest = gltf
                        .iter()
                        .min_by(|a, b| {
                            let d = |x: &Tri| x.centroid().distance(t.centroid());
                            d(a).total_cmp(&d(b))
                        })
                        .map(|n| format!("{n:?}"))
                        .unwrap_or_default();
                    problems.push(format!(
                        "FBX triangle matches no glTF triangle: {t:?}\n    nearest glTF: {nearest}"
                    ));
                }
                unmatched += 1;
            }
        }
    }
    if unmatched > 0 || color_mismatch > 0 {
        problems.push(format!(
            "{unmatched} of {} FBX triangles unmatched, {color_mismatch} with another base colour",
            fbx.len()
        ));
    }
    problems
}

const TOL: Tolerance = Tolerance {
    position: 1e-5,
    normal: 0.01,
    uv: 1e-5,
    color: 1e-5,
};

fn import_both(source: &Path, exported: &Exported) -> (Scene, Scene) {
    let gltf =
        import_gltf(source, "src", &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let fbx = import_fbx(&exported.fbx, "src", &ImportOptions::new(&exported.input))
        .unwrap_or_else(|e| panic!("{e}"));
    (gltf, fbx)
}

fn triangle_count(scene: &Scene) -> usize {
    scene
        .primitive_instances()
        .iter()
        .map(|&i| scene.primitive(i).triangle_count())
        .sum()
}

/// For each material the two files share by name: a glTF base colour image comes back as
/// the FBX's, naming the same file (external images) or holding the same bytes (embedded).
/// Blender's FBX exporter writes only images linked straight to a Principled BSDF input,
/// so occlusion-roughness-metal maps (split by a Separate RGB node) are not compared.
fn compare_base_color_images(gltf: &Scene, fbx: &Scene) -> Vec<String> {
    let mut problems = Vec::new();
    let mut compared = 0;
    for g in &gltf.materials {
        let Some(f) = fbx
            .materials
            .iter()
            .find(|f| f.name.is_some() && f.name == g.name)
        else {
            continue;
        };
        let image = |s: &Scene, t: &Option<assetc::scene::TextureRef>| {
            t.as_ref().map(|t| s.images[t.image].clone())
        };
        match (
            image(gltf, &g.base_color_texture),
            image(fbx, &f.base_color_texture),
        ) {
            (None, None) => {}
            (Some(gi), Some(fi)) => {
                compared += 1;
                use assetc::scene::ImageSource::{Embedded, File};
                let same = match (&gi.source, &fi.source) {
                    (File(a), File(b)) => a.file_name() == b.file_name() && b.is_file(),
                    (Embedded, Embedded) => gi.bytes == fi.bytes,
                    _ => false,
                };
                if !same {
                    problems.push(format!(
                        "material {:?}: base colour image {} in glTF, {} in FBX",
                        g.name, gi.gltf_path, fi.gltf_path
                    ));
                }
            }
            (g_img, f_img) => problems.push(format!(
                "material {:?}: base colour texture {} in glTF, {} in FBX",
                g.name,
                g_img.is_some(),
                f_img.is_some()
            )),
        }
    }
    eprintln!("  {compared} base colour images compared");
    problems
}

/// Builds the exported folder with the assetc binary and checks every output.
fn build_and_check(exported: &Exported) {
    let out = exported.input.parent().unwrap().join("out");
    let built = common::assetc(&[
        "build",
        exported.input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--verify",
    ]);
    assert!(
        built.status.success(),
        "assetc build of {} failed:\n{}{}",
        exported.fbx.display(),
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let stem = exported
        .fbx
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_lowercase();
    for ext in ["hmesh", "hmat"] {
        let file = out.join(format!("{stem}.{ext}"));
        assert!(file.is_file(), "{} was not written", file.display());
    }
    let checked = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        checked.status.success(),
        "assetc check failed:\n{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

/// Static assets: one with several materials and external textures (FlightHelmet), GLBs
/// with embedded images (AlienCake's alien), plain colour materials (ship) and the cube.
#[test]
fn static_models_from_blender_fbx_match_their_gltf() {
    let test = "static_models_from_blender_fbx_match_their_gltf";
    let (Some(corpus), Some(blender)) = (common::corpus(test), blender(test)) else {
        return;
    };
    let cases = [
        ("FlightHelmet/FlightHelmet.gltf", false),
        ("ship/craft_speederD.gltf", false),
        ("AlienCake/alien.glb", true),
        ("cube/cube.gltf", false),
    ];
    let mut failures = Vec::new();
    for (rel, embed) in cases {
        let source = corpus.join("gltf").join(rel);
        let exported = export(&blender, &source, embed);
        let (gltf, fbx) = import_both(&source, &exported);
        let problems = compare_triangles(
            &world_triangles(&gltf, None, 0.0),
            &world_triangles(&fbx, None, 0.0),
            &TOL,
        );
        eprintln!(
            "{rel}: {} glTF triangles, {} FBX triangles, {} FBX materials, {} FBX images",
            triangle_count(&gltf),
            triangle_count(&fbx),
            fbx.materials.len(),
            fbx.images.len()
        );
        let mut problems = problems;
        problems.extend(compare_base_color_images(&gltf, &fbx));
        if !problems.is_empty() {
            failures.push(format!("{rel}:\n  {}", problems.join("\n  ")));
        }
        build_and_check(&exported);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
