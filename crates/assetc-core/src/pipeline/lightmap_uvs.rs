//! Generated lightmap UVs (`mesh.generate_lightmap_uvs`): every triangle gets a place of its
//! own in one square atlas of `lightmap_resolution` texels per side, charts never overlap
//! and are [`PADDING_TEXELS`] apart, and every chart has the same texels per world unit.
//!
//! The work comes in two steps because the atlas is shared by every primitive of an output
//! (an `.hmesh`, a Qt mesh) while seams must be cut before welding and optimisation fix the
//! vertices:
//!
//! 1. [`cut_charts`], a stage of [`super::prepare::prepare`] (after tangents, before weld):
//!    grows charts of neighbouring triangles whose normals stay within
//!    [`MAX_CHART_ANGLE_DEG`] of the chart's first triangle, splits the vertices on chart
//!    borders, and projects each chart onto the plane of that first normal. The
//!    [`Semantic::LightmapUv`] stream then holds chart-local coordinates in model units
//!    and the chart number (`[u, v, chart, 0]`), so welding never merges across a seam.
//! 2. [`pack_charts`], once the target has all its primitives: places every chart's box on
//!    shelves at the largest common scale that fits, and rewrites the stream to atlas UVs.
//!
//! Why not xatlas: the `xatlas-rs` 0.1.3 bindings (2019, unmaintained) hide the atlas
//! size that normalises its texel coordinates and the error of `AddMesh` (an index out of
//! range is silently ignored), start a 16-thread scheduler inside every atlas (each of our
//! asset threads would start its own), scale charts larger than `maxChartSize` down (texel
//! density is then no longer uniform), and a fault in its C++ would take the process down
//! instead of failing one asset. The projection used here cannot fold a triangle over
//! (every normal is within 90 degrees of its chart's axis), keeps each chart's density
//! within `1 / cos(MAX_CHART_ANGLE_DEG)` of every other's, and is checked for
//! self-overlap; charts are less round than xatlas' (more of them, more padding).
//!
//! Everything is sequential f64 arithmetic in triangle order: the result does not depend
//! on the thread count.

use super::geometry::{Geometry, Semantic};
use glam::{DVec2, DVec3};
use std::collections::HashMap;

/// Empty texels between two charts (and their conservative rasterisations): enough for a
/// bilinear lookup at either chart's border, and for a baker to dilate each chart by one.
pub const PADDING_TEXELS: u32 = 2;

/// Largest angle between a triangle's normal and its chart's axis. A triangle's projected
/// area is its area times the cosine of that angle, so every chart's texel density is
/// between cos(40 deg) = 0.77 and 1 times the atlas scale: within 1.31x of each other.
pub const MAX_CHART_ANGLE_DEG: f64 = 40.0;

/// The chart number of a vertex no triangle uses (its lightmap UV is 0, 0).
const NO_CHART: u32 = u32::MAX;

/// Pair tests one chart's self-overlap check may spend per triangle (plus a fixed
/// allowance) before the chart is treated as overlapping and halved: a fan of thousands of
/// slivers around one vertex costs the square of its size otherwise.
const OVERLAP_TESTS_PER_TRIANGLE: usize = 64;
const OVERLAP_TESTS_ALLOWANCE: usize = 1 << 16;

/// The atlas cannot hold the charts at any scale above 0: each needs at least
/// `2 + PADDING_TEXELS` texels per side once it has an extent.
#[derive(Debug, thiserror::Error)]
#[error(
    "{charts} lightmap charts do not fit a {resolution}x{resolution} lightmap with \
     {PADDING_TEXELS} texels of padding; raise mesh.lightmap_resolution"
)]
pub struct LightmapError {
    pub charts: usize,
    pub resolution: u32,
}

/// What [`pack_charts`] made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LightmapAtlas {
    pub charts: usize,
    /// Texels per model unit (the same for every chart).
    pub texels_per_unit: f64,
}

/// Step 1: cuts `g` into charts and gives every vertex its chart-local lightmap
/// coordinates (see the module comment). Vertices on a chart border are duplicated.
pub fn cut_charts(g: &mut Geometry) {
    let positions: Vec<DVec3> = g
        .positions()
        .iter()
        .map(|p| DVec3::new(p[0].into(), p[1].into(), p[2].into()))
        .collect();
    let triangles: Vec<[usize; 3]> = g
        .indices
        .chunks_exact(3)
        .map(|t| [t[0] as usize, t[1] as usize, t[2] as usize])
        .collect();
    // Triangles too small for their direction to be more than rounding (the checker's
    // rule) seed no chart and join a neighbour's.
    let (lo, hi) = positions.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let diagonal = (hi - lo).length();
    let normals: Vec<Option<DVec3>> = triangles
        .iter()
        .map(|&[a, b, c]| face_normal(positions[a], positions[b], positions[c], diagonal))
        .collect();
    let neighbours = edge_neighbours(g.positions(), &triangles);
    let charts = grow_charts(&positions, &triangles, &normals, &neighbours);

    let corner_charts: Vec<u32> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, _)| [charts.of[t]; 3])
        .collect();
    let vertex_chart = g.split_by_corner_values(&corner_charts, NO_CHART);
    let positions: Vec<DVec3> = g
        .positions()
        .iter()
        .map(|p| DVec3::new(p[0].into(), p[1].into(), p[2].into()))
        .collect();
    let frames: Vec<Frame> = charts
        .axes
        .iter()
        .map(|&(axis, origin)| Frame::new(axis, origin))
        .collect();
    let frames = orient_frames(frames, &positions, &vertex_chart);
    let stream = positions
        .iter()
        .zip(&vertex_chart)
        .map(|(&p, &chart)| match frames.get(chart as usize) {
            Some(frame) => {
                let uv = frame.project(p);
                [uv.x as f32, uv.y as f32, chart as f32, 0.0]
            }
            None => [0.0, 0.0, -1.0, 0.0],
        })
        .collect();
    g.set_stream(Semantic::LightmapUv, 0, stream);
}

/// Step 2: places the charts of every geometry (each cut by [`cut_charts`]) in one atlas
/// of `resolution` texels per side and rewrites their lightmap streams to atlas UVs in
/// [0, 1]. Geometries without the stream are left alone.
pub fn pack_charts(
    geometries: &mut [&mut Geometry],
    resolution: u32,
) -> Result<LightmapAtlas, LightmapError> {
    let boxes = chart_boxes(geometries);
    let placement = fit(&boxes, resolution).ok_or(LightmapError {
        charts: boxes.len(),
        resolution,
    })?;
    // Chart number -> index into `boxes`, per geometry (boxes are in geometry order).
    let mut first_box = 0;
    let r = f64::from(resolution);
    let s = placement.scale;
    for (gi, g) in geometries.iter_mut().enumerate() {
        let count = boxes[first_box..]
            .iter()
            .take_while(|b| b.geometry == gi)
            .count();
        if let Some(stream) = g.stream_mut(Semantic::LightmapUv, 0) {
            for value in stream.iter_mut() {
                let chart = value[2] as usize;
                if value[2] < 0.0 {
                    *value = [0.0; 4];
                    continue;
                }
                *value = match boxes[first_box..first_box + count]
                    .binary_search_by_key(&chart, |b| b.chart)
                {
                    Ok(i) => {
                        let b = &boxes[first_box + i];
                        let (x, y) = placement.corners[first_box + i];
                        // Half a texel in from the box's corner: see `cells`.
                        let u = (f64::from(x) + 0.5 + (f64::from(value[0]) - b.min.x) * s) / r;
                        let v = (f64::from(y) + 0.5 + (f64::from(value[1]) - b.min.y) * s) / r;
                        [u as f32, v as f32, 0.0, 0.0]
                    }
                    Err(_) => [0.0; 4],
                };
            }
        }
        first_box += count;
    }
    Ok(LightmapAtlas {
        charts: boxes.len(),
        texels_per_unit: s * r,
    })
}

/// A chart's projection plane: `u`, `v` span it, `origin` is a point of the chart (so
/// stored coordinates are small and keep f32's precision far from the model's origin).
#[derive(Debug, Clone, Copy)]
struct Frame {
    u: DVec3,
    v: DVec3,
    origin: DVec3,
}

impl Frame {
    /// A right-handed frame (u x v = axis), so a triangle whose normal is within 90
    /// degrees of the axis keeps its counter-clockwise winding in (u, v).
    fn new(axis: DVec3, origin: DVec3) -> Self {
        let other = if axis.x.abs() <= axis.y.abs() && axis.x.abs() <= axis.z.abs() {
            DVec3::X
        } else if axis.y.abs() <= axis.z.abs() {
            DVec3::Y
        } else {
            DVec3::Z
        };
        let u = other.cross(axis).normalize_or_zero();
        let v = axis.cross(u);
        Self { u, v, origin }
    }

    fn project(&self, p: DVec3) -> DVec2 {
        let d = p - self.origin;
        DVec2::new(d.dot(self.u), d.dot(self.v))
    }
}

/// Turns each chart within its plane so that its main axis (of the spread of its
/// vertices) runs along u: long thin charts then lie flat on the packer's shelves.
fn orient_frames(mut frames: Vec<Frame>, positions: &[DVec3], vertex_chart: &[u32]) -> Vec<Frame> {
    // Sums of x, y, xx, xy, yy and the count, per chart.
    let mut sums = vec![[0.0f64; 6]; frames.len()];
    for (&p, &chart) in positions.iter().zip(vertex_chart) {
        if let (Some(f), Some(s)) = (frames.get(chart as usize), sums.get_mut(chart as usize)) {
            let q = f.project(p);
            let add = [q.x, q.y, q.x * q.x, q.x * q.y, q.y * q.y, 1.0];
            for (s, a) in s.iter_mut().zip(add) {
                *s += a;
            }
        }
    }
    for (f, s) in frames.iter_mut().zip(&sums) {
        let n = s[5].max(1.0);
        let (mx, my) = (s[0] / n, s[1] / n);
        let cxx = s[2] / n - mx * mx;
        let cxy = s[3] / n - mx * my;
        let cyy = s[4] / n - my * my;
        let angle = 0.5 * (2.0 * cxy).atan2(cxx - cyy);
        if angle.is_finite() {
            let (sin, cos) = angle.sin_cos();
            let (u, v) = (f.u * cos + f.v * sin, f.v * cos - f.u * sin);
            f.u = u;
            f.v = v;
        }
    }
    frames
}

/// Unit normal of a triangle, or `None` when it is a sliver or a point
/// ([`check::is_tiny`] in a model of bounding-box `diagonal`) or a corner is not finite.
fn face_normal(a: DVec3, b: DVec3, c: DVec3, diagonal: f64) -> Option<DVec3> {
    let n = (b - a).cross(c - a);
    let len = n.length();
    let longest = (b - a).length().max((c - b).length()).max((a - c).length());
    (len.is_finite() && !check::is_tiny(0.5 * len, longest, diagonal)).then(|| n / len)
}

/// For each triangle edge (corner k to corner k+1, slot `3t + k`), the other triangle
/// across it when exactly two triangles share the edge (by position, so vertices already
/// split for normals or UV0 seams do not cut charts); non-manifold edges cut.
fn edge_neighbours(positions: &[[f32; 4]], triangles: &[[usize; 3]]) -> Vec<Option<u32>> {
    let mut class_of: HashMap<[u32; 3], u32> = HashMap::new();
    let class: Vec<u32> = positions
        .iter()
        .map(|p| {
            let key = [p[0], p[1], p[2]].map(super::weld::float_key);
            let next = class_of.len() as u32;
            *class_of.entry(key).or_insert(next)
        })
        .collect();
    // (edge key, slot), sorted so that the slots of one edge are together.
    let mut edges: Vec<(u64, u32)> = Vec::with_capacity(triangles.len() * 3);
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (class[tri[k]], class[tri[(k + 1) % 3]]);
            if a != b {
                let key = (u64::from(a.min(b)) << 32) | u64::from(a.max(b));
                edges.push((key, (3 * t + k) as u32));
            }
        }
    }
    edges.sort_unstable();
    let mut neighbours = vec![None; triangles.len() * 3];
    for group in edges.chunk_by(|a, b| a.0 == b.0) {
        if let [(_, s0), (_, s1)] = group {
            neighbours[*s0 as usize] = Some(s1 / 3);
            neighbours[*s1 as usize] = Some(s0 / 3);
        }
    }
    neighbours
}

/// The chart of every triangle and, per chart, its projection axis and a point of it.
struct Charts {
    of: Vec<u32>,
    axes: Vec<(DVec3, DVec3)>,
}

/// Grows charts breadth-first from seeds taken in triangle order. A chart that overlaps
/// itself in its plane (a spiral ramp can) is grown again with at most half as many
/// triangles, down to one triangle, which never does. Triangles without an area (or a
/// tiny one) join a chart of a triangle sharing one of their vertices (their lightmap UVs span no area
/// either way), or get one of their own.
fn grow_charts(
    positions: &[DVec3],
    triangles: &[[usize; 3]],
    normals: &[Option<DVec3>],
    neighbours: &[Option<u32>],
) -> Charts {
    let cos_limit = MAX_CHART_ANGLE_DEG.to_radians().cos();
    let mut of = vec![NO_CHART; triangles.len()];
    let mut axes = Vec::new();
    let mut members: Vec<usize> = Vec::new();
    for seed in 0..triangles.len() {
        let Some(axis) = normals[seed] else { continue };
        if of[seed] != NO_CHART {
            continue;
        }
        let id = axes.len() as u32;
        let origin = positions[triangles[seed][0]];
        let mut limit = usize::MAX;
        loop {
            members.clear();
            members.push(seed);
            of[seed] = id;
            let mut next = 0;
            while next < members.len() && members.len() < limit {
                let t = members[next];
                next += 1;
                for &across in &neighbours[3 * t..3 * t + 3] {
                    let Some(n) = across else { continue };
                    let n = n as usize;
                    if of[n] == NO_CHART
                        && members.len() < limit
                        && normals[n].is_some_and(|m| m.dot(axis) >= cos_limit)
                    {
                        of[n] = id;
                        members.push(n);
                    }
                }
            }
            let frame = Frame::new(axis, origin);
            if members.len() == 1 || !overlaps_itself(&members, triangles, positions, frame) {
                break;
            }
            for &t in &members {
                of[t] = NO_CHART;
            }
            limit = members.len() / 2;
        }
        axes.push((axis, origin));
    }
    // Triangles without an area: the chart of the first triangle met at one of their
    // vertices, else a chart of their own.
    let mut chart_at_vertex: HashMap<usize, u32> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        if of[t] != NO_CHART {
            for &v in tri {
                chart_at_vertex.entry(v).or_insert(of[t]);
            }
        }
    }
    for (t, tri) in triangles.iter().enumerate() {
        if of[t] == NO_CHART {
            of[t] = match tri.iter().find_map(|v| chart_at_vertex.get(v)) {
                Some(&chart) => chart,
                None => {
                    axes.push((DVec3::Z, positions[tri[0]]));
                    (axes.len() - 1) as u32
                }
            };
        }
    }
    Charts { of, axes }
}

/// Whether two triangles of the chart overlap in its plane by more than rounding (touching
/// along a shared edge or at a vertex is not overlapping). Triangles are binned on a grid
/// about one triangle wide; only triangles sharing a cell are compared.
fn overlaps_itself(
    members: &[usize],
    triangles: &[[usize; 3]],
    positions: &[DVec3],
    frame: Frame,
) -> bool {
    let flat: Vec<[DVec2; 3]> = members
        .iter()
        .map(|&t| triangles[t].map(|v| frame.project(positions[v])))
        .collect();
    let (mut lo, mut hi) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
    for p in flat.iter().flatten() {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let extent = hi - lo;
    let scale = extent.max_element();
    if !(scale > 0.0 && scale.is_finite()) {
        return false;
    }
    // Rounding of the projection, relative to the chart's size.
    let eps = scale * 1e-9;
    let cells_per_side = ((flat.len() as f64).sqrt().ceil() as usize).clamp(1, 1024);
    let cell = DVec2::new(extent.x.max(eps), extent.y.max(eps)) / cells_per_side as f64;
    let index = |p: DVec2, axis: usize| -> usize {
        let c = ((p[axis] - lo[axis]) / cell[axis]).floor();
        (c.max(0.0) as usize).min(cells_per_side - 1)
    };
    let mut bins: Vec<Vec<u32>> = vec![Vec::new(); cells_per_side * cells_per_side];
    for (i, tri) in flat.iter().enumerate() {
        let tlo = tri[0].min(tri[1]).min(tri[2]);
        let thi = tri[0].max(tri[1]).max(tri[2]);
        for y in index(tlo, 1)..=index(thi, 1) {
            for x in index(tlo, 0)..=index(thi, 0) {
                bins[y * cells_per_side + x].push(i as u32);
            }
        }
    }
    let mut budget = OVERLAP_TESTS_PER_TRIANGLE * flat.len() + OVERLAP_TESTS_ALLOWANCE;
    for bin in &bins {
        for (k, &i) in bin.iter().enumerate() {
            for &j in &bin[k + 1..] {
                if budget == 0 {
                    return true;
                }
                budget -= 1;
                if triangles_overlap(&flat[i as usize], &flat[j as usize], eps) {
                    return true;
                }
            }
        }
    }
    false
}

/// Separating-axis test of two triangles' interiors: they overlap unless an edge normal of
/// either separates them, touching (within `eps`) counting as separated.
fn triangles_overlap(a: &[DVec2; 3], b: &[DVec2; 3], eps: f64) -> bool {
    for tri in [a, b] {
        for k in 0..3 {
            let e = tri[(k + 1) % 3] - tri[k];
            let axis = DVec2::new(-e.y, e.x);
            let len = axis.length();
            if len == 0.0 {
                continue;
            }
            let axis = axis / len;
            let range = |t: &[DVec2; 3]| {
                let d = t.map(|p| p.dot(axis));
                (d[0].min(d[1]).min(d[2]), d[0].max(d[1]).max(d[2]))
            };
            let (a0, a1) = range(a);
            let (b0, b1) = range(b);
            if a1 <= b0 + eps || b1 <= a0 + eps {
                return false;
            }
        }
    }
    true
}

/// One chart's box in its chart-local coordinates (model units).
#[derive(Debug, Clone, Copy)]
struct ChartBox {
    geometry: usize,
    chart: usize,
    min: DVec2,
    size: DVec2,
}

/// The boxes of every chart that a triangle uses, by geometry then chart number.
fn chart_boxes(geometries: &[&mut Geometry]) -> Vec<ChartBox> {
    let mut boxes = Vec::new();
    for (gi, g) in geometries.iter().enumerate() {
        let Some(stream) = g.stream(Semantic::LightmapUv, 0) else {
            continue;
        };
        let mut per_chart: Vec<Option<(DVec2, DVec2)>> = Vec::new();
        for &i in &g.indices {
            let Some(value) = stream.get(i as usize) else {
                continue;
            };
            // Chart numbers count triangles at most (unused vertices carry -1).
            let chart = value[2] as usize;
            if value[2] < 0.0 || chart >= g.indices.len() {
                continue;
            }
            if per_chart.len() <= chart {
                per_chart.resize(chart + 1, None);
            }
            let p = DVec2::new(value[0].into(), value[1].into());
            let entry = per_chart[chart].get_or_insert((p, p));
            entry.0 = entry.0.min(p);
            entry.1 = entry.1.max(p);
        }
        for (chart, bounds) in per_chart.into_iter().enumerate() {
            if let Some((min, max)) = bounds {
                boxes.push(ChartBox {
                    geometry: gi,
                    chart,
                    min,
                    size: max - min,
                });
            }
        }
    }
    boxes
}

/// Where the boxes went: the scale from model units to texels and each box's lower-left
/// texel, in box order.
struct Placement {
    scale: f64,
    corners: Vec<(u32, u32)>,
}

/// Texels a box takes along one side at `scale`, padding included. Its chart is drawn
/// from half a texel in, so it spans [0.5, 0.5 + size * scale], and a triangle touching
/// that span (even along a texel border) touches only texels 0..=ceil(size * scale): one
/// more than the ceiling, then the padding.
fn cells(size: f64, scale: f64) -> u64 {
    (size * scale).ceil() as u64 + 1 + u64::from(PADDING_TEXELS)
}

/// The largest scale at which the boxes fit the atlas (within 1/1000 of it, found by
/// bisection), and where each goes.
fn fit(boxes: &[ChartBox], resolution: u32) -> Option<Placement> {
    // Tallest first, then by number: the order does not depend on the scale.
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| {
        boxes[b]
            .size
            .y
            .total_cmp(&boxes[a].size.y)
            .then(boxes[b].size.x.total_cmp(&boxes[a].size.x))
            .then(a.cmp(&b))
    });
    let mut best = Placement {
        scale: 0.0,
        corners: shelves(boxes, &order, 0.0, resolution)?,
    };
    let r = f64::from(resolution);
    let area: f64 = boxes.iter().map(|b| b.size.x * b.size.y).sum();
    let widest = boxes
        .iter()
        .map(|b| b.size.x.max(b.size.y))
        .fold(0.0, f64::max);
    // No box can be wider than the atlas, nor can the boxes cover more than all of it.
    let mut hi = f64::INFINITY;
    if widest > 0.0 {
        hi = hi.min(r / widest);
    }
    if area > 0.0 {
        hi = hi.min(r / area.sqrt());
    }
    if !hi.is_finite() {
        // Every chart is a point: scale does not matter.
        return Some(best);
    }
    let mut lo = 0.0;
    // At most 64 halvings (when nothing but scale 0 fits, `hi` would otherwise shrink
    // towards the smallest float, where `mid` rounds to `lo` and never moves).
    for _ in 0..64 {
        if hi - lo <= hi * 1e-3 {
            break;
        }
        let mid = 0.5 * (lo + hi);
        match shelves(boxes, &order, mid, resolution) {
            Some(corners) => {
                lo = mid;
                best = Placement {
                    scale: mid,
                    corners,
                };
            }
            None => hi = mid,
        }
    }
    // Only points fit: every chart would lose its area.
    (best.scale > 0.0).then_some(best)
}

/// Shelf packing in `order`: boxes left to right on a shelf as tall as its first (the
/// tallest) box, a new shelf above when the row is full. `None` when they do not fit.
fn shelves(
    boxes: &[ChartBox],
    order: &[usize],
    scale: f64,
    resolution: u32,
) -> Option<Vec<(u32, u32)>> {
    let r = u64::from(resolution);
    let mut corners = vec![(0u32, 0u32); boxes.len()];
    let (mut x, mut y, mut shelf) = (0u64, 0u64, 0u64);
    for &i in order {
        let (w, h) = (cells(boxes[i].size.x, scale), cells(boxes[i].size.y, scale));
        if x + w > r + u64::from(PADDING_TEXELS) {
            // The last box of a row may end in its padding at the atlas border.
            y += shelf;
            x = 0;
            shelf = 0;
        }
        if shelf == 0 {
            shelf = h;
        }
        if x + w > r + u64::from(PADDING_TEXELS) || y + h > r + u64::from(PADDING_TEXELS) {
            return None;
        }
        corners[i] = (x as u32, y as u32);
        x += w;
    }
    Some(corners)
}

pub mod check;
#[cfg(test)]
mod tests;
