//! The validator of a lightmap UV set, from the output alone (positions, triangles and
//! their lightmap UVs; charts are not stored, so they are found again): every UV in
//! [0, 1], every triangle with an area ([`TINY_ALTITUDE`]) has a lightmap area, no texel of the atlas is
//! touched by two charts, charts are at least `padding` empty texels apart, and how far
//! the charts' texel densities spread.

use std::collections::HashMap;

/// What [`check_lightmap`] measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LightmapReport {
    pub charts: usize,
    /// Texels touched by some chart (conservative rasterisation).
    pub texels: usize,
    /// Largest over smallest chart density (lightmap area per model area), over charts
    /// with a triangle that is not tiny; 1 with fewer than two such charts.
    pub density_ratio: f64,
    /// Triangles with an area too thin for the area check ([`TINY_ALTITUDE`]).
    pub tiny_triangles: usize,
}

/// A triangle whose narrowest altitude (twice its area over its longest side) is at
/// most this fraction of the model's bounding-box diagonal is not required to have a
/// lightmap area: it is a sliver thinner than a few f32 steps of its atlas UVs (the atlas
/// spans the model's surface, so a model diagonal maps to at most a few units of UV, and
/// f32 UVs near 1 step by 6e-8), so its lightmap corners may round onto a line. A UV
/// sphere's pole triangles (corners 1e-16 apart) and slivers of exported models are
/// such.
pub const TINY_ALTITUDE: f64 = 1e-5;

/// Whether a triangle of `area` with longest side `longest` is tiny ([`TINY_ALTITUDE`])
/// in a model of bounding-box diagonal `diagonal`.
pub fn is_tiny(area: f64, longest: f64, diagonal: f64) -> bool {
    !(area > 0.0 && 2.0 * area > TINY_ALTITUDE * diagonal * longest)
}

/// Checks `uvs` (one per vertex) of the triangles `indices` over `positions` in an atlas of
/// `resolution` texels per side. A chart is a set of triangles joined through corners of
/// bit-identical lightmap UV (a vertex copied for a normal or UV0 seam keeps its lightmap
/// UV; two charts never share one). Errors name the triangle or texel at fault.
pub fn check_lightmap(
    positions: &[[f32; 3]],
    indices: &[u32],
    uvs: &[[f32; 2]],
    resolution: u32,
    padding: u32,
) -> Result<LightmapReport, LightmapCheckError> {
    if uvs.len() != positions.len() {
        return Err(LightmapCheckError::UvCount {
            uvs: uvs.len(),
            vertices: positions.len(),
        });
    }
    if let Some(&bad) = indices.iter().find(|&&i| i as usize >= positions.len()) {
        return Err(LightmapCheckError::IndexPastVertices(bad));
    }
    for (v, uv) in uvs.iter().enumerate() {
        if !uv.iter().all(|c| (0.0..=1.0).contains(c)) {
            return Err(LightmapCheckError::OutsideUnitSquare { vertex: v, uv: *uv });
        }
    }
    let triangles: Vec<[usize; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
        .collect();
    let chart = charts(&triangles, uvs);
    let chart_count = chart.iter().copied().max().map_or(0, |c| c as usize + 1);

    // Areas: a triangle with a model-space area must have a lightmap area.
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in positions {
        for k in 0..3 {
            lo[k] = lo[k].min(f64::from(p[k]));
            hi[k] = hi[k].max(f64::from(p[k]));
        }
    }
    let diagonal = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    let mut tiny_triangles = 0;
    let mut area = vec![(0.0f64, 0.0f64); chart_count];
    for (t, tri) in triangles.iter().enumerate() {
        let p = tri.map(|v| positions[v].map(f64::from));
        let e1 = [p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]];
        let e2 = [p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]];
        let cross = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let world = 0.5 * (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
        let side = |a: usize, b: usize| {
            (0..3)
                .map(|k| (p[b][k] - p[a][k]).powi(2))
                .sum::<f64>()
                .sqrt()
        };
        let longest = side(0, 1).max(side(1, 2)).max(side(2, 0));
        let tiny = is_tiny(world, longest, diagonal);
        let uv = tri.map(|v| uvs[v].map(f64::from));
        let flat = 0.5
            * ((uv[1][0] - uv[0][0]) * (uv[2][1] - uv[0][1])
                - (uv[2][0] - uv[0][0]) * (uv[1][1] - uv[0][1]))
                .abs();
        if world > 0.0 && tiny {
            tiny_triangles += 1;
        } else if !tiny && flat == 0.0 {
            return Err(LightmapCheckError::NoArea { triangle: t, world });
        }
        // Tiny triangles' directions are rounding noise: they do not weigh in a density.
        if !tiny {
            let a = &mut area[chart[t] as usize];
            a.0 += world;
            a.1 += flat;
        }
    }
    let densities: Vec<f64> = area
        .iter()
        .filter(|(world, _)| *world > 0.0)
        .map(|(world, flat)| flat / world)
        .collect();
    let density_ratio = match (
        densities.iter().copied().reduce(f64::min),
        densities.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) if lo > 0.0 => hi / lo,
        (Some(_), Some(_)) => f64::INFINITY,
        _ => 1.0,
    };

    // Every texel a triangle touches (edges and corners included) belongs to one chart.
    let r = resolution as usize;
    let mut owner = vec![u32::MAX; r * r];
    for (t, tri) in triangles.iter().enumerate() {
        let uv = tri.map(|v| uvs[v].map(|c| f64::from(c) * resolution as f64));
        for (x, y) in touched_texels(&uv, resolution) {
            let cell = &mut owner[y * r + x];
            if *cell != u32::MAX && *cell != chart[t] {
                return Err(LightmapCheckError::Overlap { x, y, triangle: t });
            }
            *cell = chart[t];
        }
    }
    // Padding: no texel of another chart within `padding` texels (either axis).
    let p = padding as usize;
    let mut texels = 0;
    for y in 0..r {
        for x in 0..r {
            let c = owner[y * r + x];
            if c == u32::MAX {
                continue;
            }
            texels += 1;
            for ny in y.saturating_sub(p)..=(y + p).min(r - 1) {
                for nx in x.saturating_sub(p)..=(x + p).min(r - 1) {
                    let o = owner[ny * r + nx];
                    if o != u32::MAX && o != c {
                        return Err(LightmapCheckError::Padding {
                            at: (x, y),
                            near: (nx, ny),
                            padding,
                        });
                    }
                }
            }
        }
    }
    Ok(LightmapReport {
        charts: chart_count,
        texels,
        density_ratio,
        tiny_triangles,
    })
}

/// The chart of each triangle: union-find over corners that share a lightmap UV exactly.
fn charts(triangles: &[[usize; 3]], uvs: &[[f32; 2]]) -> Vec<u32> {
    let mut parent: Vec<usize> = (0..triangles.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_at: HashMap<[u32; 2], usize> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for &v in tri {
            let key = uvs[v].map(f32::to_bits);
            let other = *first_at.entry(key).or_insert(t);
            let (a, b) = (root(&mut parent, t), root(&mut parent, other));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut number: HashMap<usize, u32> = HashMap::new();
    (0..triangles.len())
        .map(|t| {
            let r = root(&mut parent, t);
            let next = number.len() as u32;
            *number.entry(r).or_insert(next)
        })
        .collect()
}

/// Texels (x, y) whose closed square [x, x+1] x [y, y+1] meets the closed triangle `uv`
/// (in texel units): the texels of its bounding box that no edge of the triangle
/// separates from it.
fn touched_texels(uv: &[[f64; 2]; 3], resolution: u32) -> Vec<(usize, usize)> {
    let max_cell = resolution as usize - 1;
    let cell = |c: f64| (c.floor().max(0.0) as usize).min(max_cell);
    let lo = [0, 1].map(|a| uv.iter().map(|p| p[a]).fold(f64::INFINITY, f64::min));
    let hi = [0, 1].map(|a| uv.iter().map(|p| p[a]).fold(f64::NEG_INFINITY, f64::max));
    // A coordinate exactly on a texel border touches the texel below it too.
    let first = |c: f64| {
        let f = cell(c);
        if c == c.floor() && f > 0 {
            f - 1
        } else {
            f
        }
    };
    let mut out = Vec::new();
    for y in first(lo[1])..=cell(hi[1]) {
        for x in first(lo[0])..=cell(hi[0]) {
            let corners = [
                [x as f64, y as f64],
                [x as f64 + 1.0, y as f64],
                [x as f64, y as f64 + 1.0],
                [x as f64 + 1.0, y as f64 + 1.0],
            ];
            let separated = (0..3).any(|k| {
                let a = uv[k];
                let b = uv[(k + 1) % 3];
                let c = uv[(k + 2) % 3];
                let n = [a[1] - b[1], b[0] - a[0]];
                let side = |p: [f64; 2]| n[0] * (p[0] - a[0]) + n[1] * (p[1] - a[1]);
                let inner = side(c);
                if inner == 0.0 {
                    return false;
                }
                // The box is separated when all its corners lie strictly outside the edge.
                corners.iter().all(|&q| side(q) * inner < 0.0)
            });
            if !separated {
                out.push((x, y));
            }
        }
    }
    out
}

/// What is wrong with a lightmap UV set, naming the vertex, triangle or texel at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LightmapCheckError {
    #[error("{uvs} lightmap UVs for {vertices} vertices")]
    UvCount { uvs: usize, vertices: usize },
    #[error("index {0} is past the vertices")]
    IndexPastVertices(u32),
    #[error("vertex {vertex}: lightmap UV {uv:?} is outside [0, 1]")]
    OutsideUnitSquare { vertex: usize, uv: [f32; 2] },
    #[error("triangle {triangle}: model area {world:e} but no lightmap area")]
    NoArea { triangle: usize, world: f64 },
    #[error("texel ({x}, {y}) is covered by two charts (triangle {triangle} and another)")]
    Overlap { x: usize, y: usize, triangle: usize },
    #[error(
        "texels ({}, {}) and ({}, {}) of two charts are closer than {padding} texels of padding",
        at.0, at.1, near.0, near.1
    )]
    Padding {
        at: (usize, usize),
        near: (usize, usize),
        padding: u32,
    },
}
