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

use crate::common;

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
    export_with(blender, source, embed, &[])
}

/// [`export`] with more arguments for tests/export_fbx.py.
fn export_with(blender: &Path, source: &Path, embed: bool, extra: &[&str]) -> Exported {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let referenced = assetc::kinds::model::referenced_files(source);
    let mut key = 0xcbf2_9ce4_8422_2325u64;
    fnv1a(&mut key, &std::fs::read(SCRIPT).unwrap());
    fnv1a(&mut key, &[u8::from(embed)]);
    for arg in extra {
        fnv1a(&mut key, arg.as_bytes());
        fnv1a(&mut key, &[0]);
    }
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
        args.extend(extra.iter().map(|a| a.to_string()));
        let out = Command::new(blender).args(&args).output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && fbx.is_file() && log.contains("EXPORTED"),
            "blender failed to export {}:\n{log}",
            source.display()
        );
        std::fs::create_dir_all(&cache_dir).unwrap();
        // Earlier exports of this source (another script or source version) are stale.
        for e in std::fs::read_dir(&cache_dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&format!("{stem}-")) && name.ends_with(".fbx") {
                let _ = std::fs::remove_file(e.path());
            }
        }
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
    world_triangles_weighted(scene, anim, time, None)
}

/// The morph weights of `node` at `time`: its weights channel in `anim` (linear, as both
/// importers give it), else its initial weights, else zeros.
fn node_weights(
    scene: &Scene,
    anim: Option<&Animation>,
    time: f32,
    node: usize,
    n: usize,
) -> Vec<f32> {
    let channel = anim.and_then(|a| {
        a.channels
            .iter()
            .find(|c| c.node == node && c.path == assetc::scene::ChannelPath::Weights)
    });
    if let Some(c) = channel {
        let k = c.times.partition_point(|&t| t <= time);
        let at = |i: usize| &c.values[i * c.components..(i + 1) * c.components];
        return match k {
            0 => at(0).to_vec(),
            k if k >= c.times.len() => at(c.times.len() - 1).to_vec(),
            k => {
                let (t0, t1) = (c.times[k - 1], c.times[k]);
                let f = (time - t0) / (t1 - t0);
                at(k - 1)
                    .iter()
                    .zip(at(k))
                    .map(|(a, b)| a + (b - a) * f)
                    .collect()
            }
        };
    }
    scene
        .morph_weights
        .iter()
        .find(|w| w.node == node)
        .map_or_else(|| vec![0.0; n], |w| w.weights.clone())
}

/// [`world_triangles`] with morph targets applied: `weights` for every mesh when given,
/// else each node's weights at `time`. Normals are left out where a target moves the
/// triangle (the two files need not carry normal displacements alike).
fn world_triangles_weighted(
    scene: &Scene,
    anim: Option<&Animation>,
    time: f32,
    weights: Option<&[f32]>,
) -> Vec<Tri> {
    let worlds = node_worlds(scene, anim, time);
    let mut out = Vec::new();
    for inst in scene.primitive_instances() {
        let prim = scene.primitive(inst);
        let node = &scene.nodes[inst.node];
        let w = match weights {
            Some(w) => w.to_vec(),
            None => node_weights(scene, anim, time, inst.node, prim.targets.len()),
        };
        let morphed = w.iter().any(|&w| w != 0.0);
        let position = |v: usize| -> Vec3 {
            let mut p = Vec3::from(prim.positions[v]);
            for (target, &w) in prim.targets.iter().zip(&w) {
                if let Some(d) = &target.positions {
                    p += Vec3::from(d[v]) * w;
                }
            }
            p
        };
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
                let p = m.transform_point3(position(v));
                let n = prim.normals.as_ref().filter(|_| !morphed).map(|n| {
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
    // The images the FBX names are its inputs (kinds::model::referenced_files parses the
    // FBX for them), not standalone textures.
    let scene = import_fbx(&exported.fbx, "x", &ImportOptions::new(&exported.input))
        .unwrap_or_else(|e| panic!("{e}"));
    for image in &scene.images {
        if let assetc::scene::ImageSource::File(p) = &image.source {
            let stem = p.file_stem().unwrap().to_string_lossy().to_lowercase();
            assert!(
                !out.join(format!("{stem}.ktx2")).exists(),
                "{} was compiled as a standalone texture",
                p.display()
            );
        }
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

/// Key times of every channel of a clip, sorted and deduplicated.
fn key_times(anim: &Animation) -> Vec<f32> {
    let mut times: Vec<f32> = anim
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

/// Blender's glTF importer names each action `<clip>_<object>`, and its FBX exporter
/// names each take `<object>|<action>`: `root|Survey_root` is the glTF clip `Survey`.
fn clip_name(anim: &Animation) -> String {
    let name = anim.name.clone().unwrap_or_default();
    match name.split_once('|') {
        Some((object, action)) => action
            .strip_suffix(&format!("_{object}"))
            .unwrap_or(action)
            .to_string(),
        None => name,
    }
}

/// Skinned and animated: Fox (one skin of 24 joints, three clips). The skin is compared
/// through what it does, not its joint order: the skinned world-space triangles at every
/// key time of every clip.
#[test]
fn skinned_animated_fox_from_blender_fbx_matches_its_gltf() {
    let test = "skinned_animated_fox_from_blender_fbx_matches_its_gltf";
    let (Some(corpus), Some(blender)) = (common::corpus(test), blender(test)) else {
        return;
    };
    let source = corpus.join("gltf/animated/Fox.glb");
    if !source.is_file() {
        common::missing(test, &source.display().to_string());
        return;
    }
    let exported = export(&blender, &source, true);
    let (gltf, fbx) = import_both(&source, &exported);
    eprintln!(
        "Fox: {} skins, joints {:?}; FBX clips {:?}",
        fbx.skins.len(),
        fbx.skins.iter().map(|s| s.joints.len()).collect::<Vec<_>>(),
        fbx.animations
            .iter()
            .map(|a| (a.name.clone(), a.channels.len(), key_times(a).len()))
            .collect::<Vec<_>>()
    );
    assert_eq!(fbx.skins.len(), 1, "Fox has one skin");
    assert_eq!(fbx.skins[0].joints.len(), gltf.skins[0].joints.len());
    // No rest-pose comparison: Blender writes each bone's default transform as posed at
    // the scene's current frame of whichever action it exported last, not glTF's node
    // TRS; every clip's poses are compared instead.
    let mut problems = compare_base_color_images(&gltf, &fbx);
    assert_eq!(
        fbx.animations.len(),
        gltf.animations.len(),
        "one FBX take per glTF clip"
    );
    for g in &gltf.animations {
        let name = g.name.clone().unwrap_or_default();
        let Some(f) = fbx.animations.iter().find(|f| clip_name(f) == name) else {
            problems.push(format!("clip {name:?} is missing from the FBX"));
            continue;
        };
        // Blender's bake with a fractional step (tests/export_fbx.py) stops one step
        // (0.2 frame at 24 per second) short of the action's end: the clip's last key time
        // is not in the FBX; every earlier one must be.
        let fbx_end = key_times(f).last().copied().unwrap_or(0.0);
        let gltf_end = key_times(g).last().copied().unwrap_or(0.0);
        let step = 0.2 / 24.0;
        if fbx_end < gltf_end - step - 1e-4 {
            problems.push(format!(
                "clip {name:?} ends at {fbx_end} s in the FBX, {gltf_end} s in the glTF"
            ));
        }
        let times: Vec<f32> = key_times(g)
            .into_iter()
            .filter(|&t| t <= fbx_end + 1e-4)
            .collect();
        for &t in &times {
            let p = compare_triangles(
                &world_triangles(&gltf, Some(g), t),
                &world_triangles(&fbx, Some(f), t),
                &TOL,
            );
            if !p.is_empty() {
                problems.push(format!("clip {name:?} at {t} s:\n    {}", p.join("\n    ")));
                break;
            }
        }
        eprintln!("  clip {name:?}: {} key times compared", times.len());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    build_and_check(&exported);
}

/// Blend shapes: MorphStressTest (one mesh of two primitives, eight targets, three clips
/// animating the weights). Each target alone at full weight, then every clip at each of
/// its key times, as world-space triangles.
#[test]
fn blend_shapes_from_blender_fbx_match_the_gltf_morph_targets() {
    let test = "blend_shapes_from_blender_fbx_match_the_gltf_morph_targets";
    let (Some(corpus), Some(blender)) = (common::corpus(test), blender(test)) else {
        return;
    };
    let source = corpus.join("gltf/animated/MorphStressTest.gltf");
    if !source.is_file() {
        common::missing(test, &source.display().to_string());
        return;
    }
    // Its image is a data: URI: packed in Blender, so embedded in the FBX too. Blender
    // exports morph weight clips only as the scene's one take, so the FBX plays TheWave
    // (all eight weights moving).
    let clip = "TheWave";
    let exported = export_with(&blender, &source, true, &["--key-action", clip]);
    let (gltf, fbx) = import_both(&source, &exported);
    let targets = |s: &Scene| -> Vec<usize> {
        s.meshes
            .iter()
            .flat_map(|m| m.primitives.iter().map(|p| p.targets.len()))
            .collect()
    };
    eprintln!(
        "MorphStressTest: targets per primitive glTF {:?}, FBX {:?}; FBX clips {:?}",
        targets(&gltf),
        targets(&fbx),
        fbx.animations
            .iter()
            .map(|a| (a.name.clone(), a.channels.len(), key_times(a).len()))
            .collect::<Vec<_>>()
    );
    let count = targets(&gltf)[0];
    assert!(
        targets(&fbx).iter().all(|&t| t == count),
        "{count} targets on every FBX primitive"
    );
    let mut problems = Vec::new();
    for t in 0..=count {
        // t == count: no target (the base mesh).
        let mut w = vec![0.0; count];
        if let Some(slot) = w.get_mut(t) {
            *slot = 1.0;
        }
        let p = compare_triangles(
            &world_triangles_weighted(&gltf, None, 0.0, Some(&w)),
            &world_triangles_weighted(&fbx, None, 0.0, Some(&w)),
            &TOL,
        );
        if !p.is_empty() {
            problems.push(format!("target {t} alone:\n    {}", p.join("\n    ")));
        }
    }
    assert_eq!(fbx.animations.len(), 1, "one take: the scene timeline");
    for g in gltf
        .animations
        .iter()
        .filter(|g| g.name.as_deref() == Some(clip))
    {
        let name = clip;
        let f = &fbx.animations[0];
        let fbx_end = key_times(f).last().copied().unwrap_or(0.0);
        let times: Vec<f32> = key_times(g)
            .into_iter()
            .filter(|&t| t <= fbx_end + 1e-4)
            .collect();
        for &t in &times {
            let p = compare_triangles(
                &world_triangles(&gltf, Some(g), t),
                &world_triangles(&fbx, Some(f), t),
                &TOL,
            );
            if !p.is_empty() {
                problems.push(format!("clip {name:?} at {t} s:\n    {}", p.join("\n    ")));
                break;
            }
        }
        eprintln!("  clip {name:?}: {} key times compared", times.len());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    build_and_check(&exported);
}

fn assimp(test: &str) -> Option<PathBuf> {
    let found = common::tool("ASSETC_ASSIMP", "assimp", &[]);
    if found.is_none() {
        common::missing(test, "assimp (Debian package `assimp-utils`)");
    }
    found
}

/// The byte offset just past the first FBX binary node record named `name` (its name
/// field), where its first property begins.
fn binary_property_after(bytes: &[u8], name: &[u8]) -> usize {
    let mut at = 0;
    loop {
        let i = at
            + bytes[at..]
                .windows(name.len())
                .position(|w| w == name)
                .unwrap_or_else(|| panic!("no {:?} node", String::from_utf8_lossy(name)));
        // A node record's name is preceded by its one-byte length.
        if i > 0 && bytes[i - 1] as usize == name.len() {
            return i + name.len();
        }
        at = i + 1;
    }
}

fn build_output(input: &Path, out: &Path) -> (i32, String) {
    let o = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code().unwrap_or(-1), text)
}

/// Broken FBX files beside a good one: each fails alone, named with its reason, writes
/// nothing, and the good one builds. Truncated binary files, array counts larger than
/// the file (binary and ASCII); an image the FBX names that is not there is a warning and
/// the model builds without it.
#[test]
fn bad_fbx_files_fail_alone_naming_the_file_and_what_is_wrong() {
    let test = "bad_fbx_files_fail_alone_naming_the_file_and_what_is_wrong";
    let (Some(corpus), Some(blender), Some(assimp)) =
        (common::corpus(test), blender(test), assimp(test))
    else {
        return;
    };
    let cube = export(&blender, &corpus.join("gltf/cube/cube.gltf"), false);
    let binary = std::fs::read(&cube.fbx).unwrap();
    let input = cube.input.clone();

    // Truncated: inside the header, halfway, at 90% (ufbx accepts a file cut inside its
    // footer, after the last node: nothing of the scene is lost there).
    for (name, len) in [
        ("cut_header.fbx", 20),
        ("cut_half.fbx", binary.len() / 2),
        ("cut_end.fbx", binary.len() * 9 / 10),
    ] {
        std::fs::write(input.join(name), &binary[..len]).unwrap();
    }
    // The vertex array declares 2^31-1 doubles (16 GiB) in a 15 KB file: binary arrays
    // are `type, count (u32), encoding (u32), byte length (u32), data`.
    let at = binary_property_after(&binary, b"Vertices");
    assert_eq!(binary[at], b'd', "Vertices is an array of doubles");
    let mut huge = binary.clone();
    huge[at + 1..at + 5].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    std::fs::write(input.join("huge_count.fbx"), &huge).unwrap();
    // An ASCII FBX (assimp's) whose `Vertices: *72 {` says `*4294967295`: ufbx reads the
    // values that are there (the count is only a hint in ASCII), so it imports whole; and
    // one whose first polygon corner names control point 999999 of 24.
    let ascii = input.join("ascii.fbx");
    let o = Command::new(&assimp)
        .arg("export")
        .arg(corpus.join("gltf/cube/cube.gltf"))
        .arg(&ascii)
        .arg("-ffbxa")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&ascii).unwrap();
    let count_at = text.find("Vertices: *").unwrap() + "Vertices: *".len();
    let digits = text[count_at..].find(' ').unwrap();
    let mut lying = text.clone();
    lying.replace_range(count_at..count_at + digits, "4294967295");
    std::fs::write(input.join("ascii_huge_count.fbx"), lying).unwrap();
    let corners = text.find("PolygonVertexIndex: *").unwrap();
    let first = corners + text[corners..].find("a: ").unwrap() + "a: ".len();
    let mut bad_index = text.clone();
    bad_index.replace_range(first..first + 1, "999999");
    std::fs::write(input.join("ascii_bad_index.fbx"), bad_index).unwrap();
    // An FBX whose image is missing: TonemappingTest names TestPattern.png.
    let pattern = export(
        &blender,
        &corpus.join("gltf/TonemappingTest/TonemappingTest.gltf"),
        false,
    );
    std::fs::copy(&pattern.fbx, input.join("no_image.fbx")).unwrap();
    assert!(!input.join("TestPattern.png").exists());

    // The importer alone: an error (no panic) naming the file.
    for name in [
        "cut_header.fbx",
        "cut_half.fbx",
        "cut_end.fbx",
        "huge_count.fbx",
        "ascii_bad_index.fbx",
    ] {
        let path = input.join(name);
        let err = import_fbx(&path, "x", &ImportOptions::new(&input))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.contains(name), "{name}: {err}");
        eprintln!("{err}");
    }
    for name in ["ascii.fbx", "ascii_huge_count.fbx"] {
        let good = import_fbx(&input.join(name), "x", &ImportOptions::new(&input))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(triangle_count(&good), 12, "{name}: the cube's 12 triangles");
    }

    // Resource limits: the cube's 12 triangles against a limit of 30 indices per primitive.
    let mut small = ImportOptions::new(&input);
    small.limits.max_indices_per_primitive = 30;
    let err = import_fbx(&input.join("cube.fbx"), "x", &small)
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(&err, assetc::import::ImportError::Limit { gltf_path, .. }
            if gltf_path.starts_with("meshes[") && gltf_path.contains(".materials[")),
        "{err}"
    );
    assert!(err.to_string().contains("36 indices"), "{err}");

    // The build: exit 1, each broken file named, the good ones built.
    let out = input.parent().unwrap().join("out");
    let (code, log) = build_output(&input, &out);
    assert_eq!(code, 1, "{log}");
    for name in [
        "cut_header.fbx",
        "cut_half.fbx",
        "cut_end.fbx",
        "huge_count.fbx",
        "ascii_bad_index.fbx",
    ] {
        assert!(
            log.contains(&format!("error: {name}:")),
            "{name} not named:\n{log}"
        );
        let stem = name.trim_end_matches(".fbx");
        assert!(
            !out.join(format!("{stem}.hmesh")).exists(),
            "{stem}.hmesh written"
        );
    }
    // A missing image leaves its slots empty with one warning naming it
    // (`texture.missing_images = "warn"`, the default; `--strict` fails the model).
    assert!(
        log.lines().any(|l| l.contains("warning")
            && l.contains("no_image.fbx")
            && l.contains("TestPattern.png")),
        "the missing image is not named:\n{log}"
    );
    assert!(
        out.join("no_image.hmesh").exists(),
        "built without its image"
    );
    for good in ["cube", "ascii", "ascii_huge_count"] {
        assert!(
            out.join(format!("{good}.hmesh")).is_file(),
            "{good} not built:\n{log}"
        );
    }
}
