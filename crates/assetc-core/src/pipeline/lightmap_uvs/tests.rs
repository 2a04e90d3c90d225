use super::check::check_lightmap;
use super::*;

/// A grid of `n` x `m` quads over (s, t) in [0, 1]^2 mapped through `f`.
fn surface(n: usize, m: usize, f: impl Fn(f64, f64) -> [f64; 3]) -> Geometry {
    let mut positions = Vec::new();
    for j in 0..=m {
        for i in 0..=n {
            let p = f(i as f64 / n as f64, j as f64 / m as f64);
            positions.push(p.map(|c| c as f32));
        }
    }
    let mut indices = Vec::new();
    let at = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    for j in 0..m {
        for i in 0..n {
            indices.extend([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            indices.extend([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    Geometry::new("meshes[0].primitives[0]", &positions, indices)
}

/// A closed UV sphere of radius 2 (poles made of slivers that meet at one point).
fn sphere() -> Geometry {
    use std::f64::consts::PI;
    surface(32, 16, |s, t| {
        let (theta, phi) = (2.0 * PI * s, PI * t);
        [
            2.0 * phi.sin() * theta.cos(),
            2.0 * phi.cos(),
            2.0 * phi.sin() * theta.sin(),
        ]
    })
}

/// Three turns of a flat spiral ramp: every normal is within 15 degrees of +Y, so a
/// chart would take all of it, and its turns lie over each other in that projection.
fn ramp() -> Geometry {
    use std::f64::consts::PI;
    surface(96, 2, |s, t| {
        let angle = 6.0 * PI * s;
        let radius = 1.0 + t;
        [radius * angle.cos(), 3.0 * s, radius * angle.sin()]
    })
}

fn lightmap_of(g: &Geometry) -> (Vec<[f32; 3]>, Vec<[f32; 2]>) {
    let positions = g.positions().iter().map(|p| [p[0], p[1], p[2]]).collect();
    let uvs = g
        .stream(Semantic::LightmapUv, 0)
        .unwrap()
        .iter()
        .map(|v| [v[0], v[1]])
        .collect();
    (positions, uvs)
}

fn generate(geometries: &mut [&mut Geometry], resolution: u32) -> LightmapAtlas {
    for g in geometries.iter_mut() {
        cut_charts(g);
    }
    pack_charts(geometries, resolution).unwrap()
}

#[test]
fn a_sphere_gets_charts_apart_with_even_density() {
    let mut g = sphere();
    let triangles = g.indices.len();
    let atlas = generate(&mut [&mut g], 512);
    assert_eq!(g.indices.len(), triangles, "triangles are kept");
    let (positions, uvs) = lightmap_of(&g);
    let report = check_lightmap(&positions, &g.indices, &uvs, 512, PADDING_TEXELS).unwrap();
    // The 40-degree cone: a sphere needs several charts, each within 1.31x of the others.
    assert!(report.charts >= 6, "{report:?}");
    assert_eq!(report.charts, atlas.charts);
    assert!(
        report.density_ratio < 1.0 / MAX_CHART_ANGLE_DEG.to_radians().cos() + 1e-3,
        "{report:?}"
    );
    // The shelves fill a fair part of the atlas (texels touched over all texels).
    assert!(report.texels as f64 > 0.25 * 512.0 * 512.0, "{report:?}");
    // Only the slivers at the poles (corners 1e-16 apart) are too small to check.
    assert!(report.tiny_triangles <= 64, "{report:?}");
}

#[test]
fn a_spiral_ramp_is_cut_where_its_turns_would_overlap() {
    let mut g = ramp();
    generate(&mut [&mut g], 1024);
    let (positions, uvs) = lightmap_of(&g);
    let report = check_lightmap(&positions, &g.indices, &uvs, 1024, PADDING_TEXELS).unwrap();
    // One chart per turn at least: a single projected chart would cover itself.
    assert!(report.charts >= 3, "{report:?}");
    assert!(report.density_ratio < 1.0 / MAX_CHART_ANGLE_DEG.to_radians().cos() + 1e-3);
}

#[test]
fn primitives_share_one_atlas_and_degenerate_triangles_fit_in() {
    let mut a = sphere();
    let mut b = ramp();
    // A triangle without an area on a corner of the ramp, and one on its own.
    let corner = b.positions()[0];
    let base = b.vertex_count() as u32;
    b.streams[0]
        .data
        .extend([corner, corner, [9.0, 9.0, 9.0, 0.0]]);
    b.indices
        .extend([0, base, base + 1, base + 2, base + 2, base + 2]);
    let atlas = generate(&mut [&mut a, &mut b], 1024);
    // Both primitives' UVs in one check: the atlas is shared, so no chart of one may
    // touch a chart of the other.
    let (mut positions, mut uvs) = lightmap_of(&a);
    let (pb, ub) = lightmap_of(&b);
    let offset = positions.len() as u32;
    positions.extend(pb);
    uvs.extend(ub);
    let indices: Vec<u32> = a
        .indices
        .iter()
        .copied()
        .chain(b.indices.iter().map(|i| i + offset))
        .collect();
    let report = check_lightmap(&positions, &indices, &uvs, 1024, PADDING_TEXELS).unwrap();
    assert_eq!(report.charts, atlas.charts);
    assert!(atlas.texels_per_unit > 0.0);
}

#[test]
fn the_same_input_gives_the_same_bits() {
    let run = || {
        let mut g = sphere();
        generate(&mut [&mut g], 256);
        g.stream(Semantic::LightmapUv, 0).unwrap().to_vec()
    };
    assert_eq!(run(), run());
}

#[test]
fn too_many_charts_for_the_resolution_is_an_error_naming_the_setting() {
    // 3 x 3 texels per chart at the least (one texel and two of padding, which may end
    // at the border): a 4-texel atlas holds 4 of them, and a sphere needs more than 8
    // caps of 40 degrees (4 pi / (2 pi (1 - cos 40)) = 8.5).
    let mut g = sphere();
    cut_charts(&mut g);
    let err = pack_charts(&mut [&mut g], 4).unwrap_err();
    assert!(
        err.to_string().contains("mesh.lightmap_resolution"),
        "{err}"
    );
}

#[test]
fn the_checker_sees_overlap_padding_and_lost_area() {
    // Two unit triangles of two charts (no shared UV), at 16 texels.
    let positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].repeat(2);
    let indices = [0, 1, 2, 3, 4, 5];
    let at = |x: f32| {
        [
            [x / 16.0, 1.0 / 16.0],
            [(x + 4.0) / 16.0, 1.0 / 16.0],
            [x / 16.0, 5.0 / 16.0],
        ]
    };
    let apart: Vec<[f32; 2]> = [at(0.5), at(8.5)].concat();
    let report = check_lightmap(&positions, &indices, &apart, 16, 2).unwrap();
    assert_eq!(report.charts, 2);
    assert_eq!(report.density_ratio, 1.0);
    // Texels 0..=4 and 8..=12 are touched: 3 empty columns between them.
    assert!(check_lightmap(&positions, &indices, &apart, 16, 3).is_ok());
    let err = check_lightmap(&positions, &indices, &apart, 16, 4)
        .unwrap_err()
        .to_string();
    assert!(err.contains("padding"), "{err}");
    let close: Vec<[f32; 2]> = [at(0.5), at(4.25)].concat();
    let err = check_lightmap(&positions, &indices, &close, 16, 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("covered by two charts"), "{err}");
    let mut flat = apart.clone();
    flat[2] = flat[1];
    let err = check_lightmap(&positions, &indices, &flat, 16, 2)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no lightmap area"), "{err}");
}
