//! `assetc preview` and the rasteriser behind it: every corpus asset renders to a picture
//! that shows the model and is the same every time, and a textured quad lands on the
//! pixels worked out by hand.

use crate::common;

use assetc::driver::{BuildOptions, Builder, Target};
use assetc::preview::raster::{Camera, Framebuffer, RasterVertex, Shading, Texture};
use assetc::preview::{coverage, preview_file, MeshView, PreviewOptions, BACKGROUND};
use glam::Vec3;
use std::path::{Path, PathBuf};

fn files_with_ext(root: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == ext))
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

/// Smallest share of the frame a framed model must cover. The camera fits the model's
/// projection into 90% of the longer side, so even a long thin model covers a few
/// percent; an empty or mis-framed picture covers nothing.
const MIN_COVERAGE: f64 = 0.02;

#[test]
fn corpus_previews_show_the_model_and_are_deterministic() {
    let Some(gltf) = common::corpus_gltf("corpus_previews") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut options = BuildOptions::new(&gltf, out.path());
    options.settings.targets = vec![Target::HMesh, Target::QtMesh, Target::Bmd1];
    let report = Builder::from_options(options).run().unwrap();
    assert!(!report.assets.is_empty());

    let hmeshes = files_with_ext(out.path(), "hmesh");
    assert!(hmeshes.len() >= 10, "only {} .hmesh files", hmeshes.len());
    let mut others = Vec::new();
    others.extend(files_with_ext(out.path(), "mesh").into_iter().take(1));
    others.extend(files_with_ext(out.path(), "bmd").into_iter().take(1));
    assert_eq!(
        others.len(),
        2,
        "no .mesh or no .bmd in the build: {others:?}"
    );

    let options = PreviewOptions {
        size: 96,
        ..Default::default()
    };
    for path in hmeshes.iter().chain(&others) {
        let a = preview_file(path, &options).unwrap_or_else(|e| panic!("{e}"));
        let b = preview_file(path, &options).unwrap();
        assert_eq!(a.image.dimensions(), (96, 96));
        assert!(a.triangles > 0, "{}: no triangles", path.display());
        let c = coverage(&a.image);
        assert!(
            c >= MIN_COVERAGE,
            "{}: the model covers {:.1}% of the frame",
            path.display(),
            c * 100.0
        );
        assert!(
            c < 1.0,
            "{}: no background left: not framed",
            path.display()
        );
        assert!(a.image == b.image, "{}: two renders differ", path.display());
    }

    // Every LOD level and the meshlet view of a mesh that has them render too, and a
    // lower level has fewer triangles.
    let with_lods = hmeshes
        .iter()
        .find(|p| {
            let m = assetc::formats::hmesh::read(&std::fs::read(p).unwrap()).unwrap();
            assetc::preview::lod_levels(&m) > 1 && m.vertices.len() > 1000
        })
        .expect("a corpus mesh with LODs");
    let lod = |lod: usize, meshlets: bool| PreviewOptions {
        size: 96,
        view: MeshView {
            lod,
            meshlets,
            cluster_error: None,
        },
        mip: 0,
    };
    let full = preview_file(with_lods, &lod(0, false)).unwrap();
    let reduced = preview_file(with_lods, &lod(1, false)).unwrap();
    assert!(reduced.triangles < full.triangles);
    assert!(coverage(&reduced.image) >= MIN_COVERAGE);
    let meshlets = preview_file(with_lods, &lod(0, true)).unwrap();
    assert_eq!(meshlets.triangles, full.triangles);
    assert!(meshlets.image != full.image);
    assert!(preview_file(with_lods, &lod(99, false)).is_err());
}

/// Two colours of the checker, sRGB.
const A: [u8; 4] = [230, 60, 30, 255];
const B: [u8; 4] = [20, 90, 220, 255];

fn checker(n: u32) -> Texture {
    let mut rgba = Vec::new();
    for y in 0..n {
        for x in 0..n {
            rgba.extend_from_slice(if (x + y) % 2 == 0 { &A } else { &B });
        }
    }
    Texture {
        width: n,
        height: n,
        rgba,
    }
}

/// Looking down -Z from (0, 0, 4), 64x64 pixels, focal length 96 px: a point (x, y, z)
/// lands at (32 + 96 x / (4 - z), 32 - 96 y / (4 - z)).
fn head_on_camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 0.0, 4.0),
        right: Vec3::X,
        up: Vec3::Y,
        forward: Vec3::NEG_Z,
        focal: 96.0,
        cx: 32.0,
        cy: 32.0,
    }
}

fn vertex(x: f32, y: f32, z: f32, u: f32, v: f32) -> RasterVertex {
    RasterVertex {
        position: Vec3::new(x, y, z),
        normal: Vec3::Z,
        uv: [u, v],
    }
}

fn draw_quad(fb: &mut Framebuffer, camera: &Camera, q: [RasterVertex; 4], texture: &Texture) {
    let shading = Shading {
        color: [1.0; 4],
        texture: Some(texture),
        alpha_cutoff: None,
        unlit: true,
    };
    fb.draw_triangle(camera, [&q[0], &q[1], &q[2]], &shading);
    fb.draw_triangle(camera, [&q[0], &q[2], &q[3]], &shading);
}

fn pixel(fb: &Framebuffer, x: u32, y: u32) -> [u8; 4] {
    let i = (y * fb.width + x) as usize * 4;
    fb.color[i..i + 4].try_into().unwrap()
}

fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(&b).all(|(p, q)| p.abs_diff(*q) <= 2)
}

#[test]
fn head_on_checker_quad_matches_the_expected_pixels() {
    // The quad spans x, y in [-1, 1] at z = 0, four units away: its corners land at pixels
    // 32 -+ 96/4 = 8 and 56. A 4x4 checker over it makes texels 48/4 = 12 pixels wide, so
    // the pixel whose centre is (x + 0.5, y + 0.5) shows texel ((x - 8) / 12, (y - 8) / 12)
    // inside [8, 56) and the background elsewhere. No pixel centre lies on a boundary, and
    // unlit sRGB texels go through linear and back unchanged (within rounding).
    let camera = head_on_camera();
    let mut fb = Framebuffer::new(64, 64, BACKGROUND, &camera);
    let quad = [
        vertex(-1.0, 1.0, 0.0, 0.0, 0.0),
        vertex(1.0, 1.0, 0.0, 1.0, 0.0),
        vertex(1.0, -1.0, 0.0, 1.0, 1.0),
        vertex(-1.0, -1.0, 0.0, 0.0, 1.0),
    ];
    draw_quad(&mut fb, &camera, quad, &checker(4));
    let mut wrong = Vec::new();
    for y in 0..64 {
        for x in 0..64 {
            let inside = (8..56).contains(&x) && (8..56).contains(&y);
            let expected = if !inside {
                BACKGROUND
            } else if ((x - 8) / 12 + (y - 8) / 12) % 2 == 0 {
                A
            } else {
                B
            };
            if !close(pixel(&fb, x, y), expected) {
                wrong.push((x, y, pixel(&fb, x, y), expected));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} pixels differ: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
}

#[test]
fn texture_coordinates_are_perspective_correct() {
    // A quad receding to the right: its left edge at z = 0 (x = -1, pixel 32 - 96/4 = 8),
    // its right edge at z = -4 (x = 1, pixel 32 + 96/8 = 44). Texture u = 0.5 is the 3D
    // midpoint x = 0, z = -2, six units away: pixel 32 + 0 = 32. Interpolating u along the
    // screen (affine) would put it halfway between 8 and 44, at 26 instead.
    let camera = head_on_camera();
    let mut fb = Framebuffer::new(64, 64, BACKGROUND, &camera);
    let quad = [
        vertex(-1.0, 1.0, 0.0, 0.0, 0.0),
        vertex(1.0, 1.0, -4.0, 1.0, 0.0),
        vertex(1.0, -1.0, -4.0, 1.0, 1.0),
        vertex(-1.0, -1.0, 0.0, 0.0, 1.0),
    ];
    // Two texels side by side: u < 0.5 is A, u >= 0.5 is B.
    let halves = Texture {
        width: 2,
        height: 1,
        rgba: [A, B].concat(),
    };
    draw_quad(&mut fb, &camera, quad, &halves);
    for x in 12..32 {
        assert!(
            close(pixel(&fb, x, 32), A),
            "pixel {x}: {:?}",
            pixel(&fb, x, 32)
        );
    }
    for x in 32..43 {
        assert!(
            close(pixel(&fb, x, 32), B),
            "pixel {x}: {:?}",
            pixel(&fb, x, 32)
        );
    }
    assert_eq!(pixel(&fb, 50, 32), BACKGROUND);
}

#[test]
fn nearer_surfaces_hide_farther_ones_whatever_the_order() {
    let camera = head_on_camera();
    let red = Texture {
        width: 1,
        height: 1,
        rgba: A.to_vec(),
    };
    let blue = Texture {
        width: 1,
        height: 1,
        rgba: B.to_vec(),
    };
    // The near quad (half-size 0.5 at z = 1, three units away) spans pixels 32 -+ 16;
    // the far one (half-size 1 at z = 0, four units away) 32 -+ 24.
    let quad = |z: f32, h: f32| {
        [
            vertex(-h, h, z, 0.0, 0.0),
            vertex(h, h, z, 1.0, 0.0),
            vertex(h, -h, z, 1.0, 1.0),
            vertex(-h, -h, z, 0.0, 1.0),
        ]
    };
    for near_first in [true, false] {
        let mut fb = Framebuffer::new(64, 64, BACKGROUND, &camera);
        if near_first {
            draw_quad(&mut fb, &camera, quad(1.0, 0.5), &red);
            draw_quad(&mut fb, &camera, quad(0.0, 1.0), &blue);
        } else {
            draw_quad(&mut fb, &camera, quad(0.0, 1.0), &blue);
            draw_quad(&mut fb, &camera, quad(1.0, 0.5), &red);
        }
        assert!(close(pixel(&fb, 32, 32), A), "near quad hidden");
        assert!(close(pixel(&fb, 17, 40), A));
        assert!(
            close(pixel(&fb, 12, 32), B),
            "far quad outside the near one"
        );
        assert_eq!(pixel(&fb, 4, 4), BACKGROUND);
    }
}

#[test]
fn preview_cli_writes_a_png_and_rejects_other_files() {
    let out = tempfile::tempdir().unwrap();
    let built = common::assetc(&[
        "build",
        common::samples().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let mesh = files_with_ext(out.path(), "hmesh").remove(0);
    let png = out.path().join("shot.png");
    let run = common::assetc(&[
        "preview",
        mesh.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
        "--size",
        "64",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (64, 64));
    assert!(coverage(&img) >= MIN_COVERAGE);

    let manifest = out.path().join("assets.hman");
    let bad = common::assetc(&["preview", manifest.to_str().unwrap()]);
    // A file of no kind it previews is a usage error, as `inspect` says of one.
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("assets.hman") && err.contains("cannot preview"),
        "{err}"
    );
    // A missing input is a usage error (exit 2), as for every command.
    let missing = common::assetc(&["preview", "no/such/file.hmesh"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/file.hmesh"));
}

#[test]
fn preview_refuses_options_that_do_not_apply_and_says_what_it_leaves_out() {
    // `--meshlets` on a Qt `.mesh` drew the plain mesh and said nothing; a mesh whose
    // texture was missing was drawn untextured without a word.
    let out = tempfile::tempdir().unwrap();
    let built = common::assetc(&[
        "build",
        common::samples().to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--no-config",
        "-q",
        "--target",
        "hmesh",
        "--target",
        "qtmesh",
    ]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let preview = |file: &Path, extra: &[&str]| {
        let png = file.with_extension("test.png");
        let mut args = vec![
            "preview",
            file.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
            "--size",
            "32",
        ];
        args.extend_from_slice(extra);
        let o = common::assetc(&args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let qt_mesh = files_with_ext(out.path(), "mesh").remove(0);
    let (code, err) = preview(&qt_mesh, &["--meshlets"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--meshlets does not apply"), "{err}");
    let (code, err) = preview(&qt_mesh, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("note: drawn untextured"), "{err}");

    // The box's base colour texture sits in tex/ under the output root.
    let boxed = out.path().join("box/box.hmesh");
    let (code, err) = preview(&boxed, &["--mip", "1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--mip does not apply"), "{err}");
    let (code, err) = preview(&boxed, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("note:"), "everything was found: {err}");
    let alone = tempfile::tempdir().unwrap();
    for ext in ["hmesh", "hmat"] {
        std::fs::copy(
            boxed.with_extension(ext),
            alone.path().join(format!("box.{ext}")),
        )
        .unwrap();
    }
    let (code, err) = preview(&alone.path().join("box.hmesh"), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("note: base colour texture tex/") && err.contains("not found"),
        "{err}"
    );
    std::fs::remove_file(alone.path().join("box.hmat")).unwrap();
    let (_, err) = preview(&alone.path().join("box.hmesh"), &[]);
    assert!(err.contains("box.hmat not found: drawn grey"), "{err}");
}
