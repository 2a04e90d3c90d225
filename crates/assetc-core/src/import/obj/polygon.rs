//! Triangles of one OBJ polygon. A convex polygon is split as a fan from its first corner
//! (what exporters expect, and what assetc always wrote); a concave one (an L- or U-shaped
//! face) by ear clipping in the plane of its Newell normal, since a fan would cover
//! area outside the polygon. No crate is used: `earcutr` and `earcut` take flat 2D
//! coordinates and holes; the projection and the convexity test are the work here, and
//! ear clipping of a simple polygon is a few dozen lines.

use glam::{DVec2, DVec3};

/// Concave polygons with more corners than this are fanned: ear clipping here costs up to
/// the cube of the corner count (16M steps at 256), and exporters write no such polygons
/// (a hostile file might).
pub const MAX_EAR_CLIPPED_CORNERS: usize = 256;

/// Appends the triangles of polygon `face` (vertex numbers, counter-clockwise as OBJ
/// winds them) over `positions` to `out`: `face.len() - 2` triangles, each wound like the
/// polygon.
pub fn triangulate(positions: &[[f32; 3]], face: &[u32], out: &mut Vec<u32>) {
    let n = face.len();
    if n < 3 {
        return;
    }
    if n == 3 || n > MAX_EAR_CLIPPED_CORNERS {
        fan(face, out);
        return;
    }
    let points: Vec<DVec3> = face
        .iter()
        .map(|&v| {
            let p = positions.get(v as usize).copied().unwrap_or([0.0; 3]);
            DVec3::new(p[0].into(), p[1].into(), p[2].into())
        })
        .collect();
    let Some(flat) = project(&points) else {
        // No area (all corners on a line or a point): any split is as good.
        fan(face, out);
        return;
    };
    if is_convex(&flat) {
        fan(face, out);
        return;
    }
    ear_clip(&flat, face, out);
}

fn fan(face: &[u32], out: &mut Vec<u32>) {
    for i in 1..face.len().saturating_sub(1) {
        out.extend([face[0], face[i], face[i + 1]]);
    }
}

/// The corners in the polygon's plane (Newell's normal), oriented so that the polygon
/// runs counter-clockwise; `None` when it has no area.
fn project(points: &[DVec3]) -> Option<Vec<DVec2>> {
    let mut normal = DVec3::ZERO;
    for (i, a) in points.iter().enumerate() {
        normal += a.cross(points[(i + 1) % points.len()]);
    }
    let normal = normal.try_normalize()?;
    // u, v, normal right-handed: the counter-clockwise side of the normal stays so.
    let other = if normal.x.abs() < 0.9 {
        DVec3::X
    } else {
        DVec3::Y
    };
    let u = other.cross(normal).normalize();
    let v = normal.cross(u);
    let origin = points[0];
    Some(
        points
            .iter()
            .map(|&p| DVec2::new((p - origin).dot(u), (p - origin).dot(v)))
            .collect(),
    )
}

/// z of (b - a) x (c - b): positive where the boundary turns left at b.
fn turn(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    (b - a).perp_dot(c - b)
}

/// Whether no corner turns right (straight corners allowed) and the boundary goes round
/// once (a star polygon turns left everywhere but winds twice).
fn is_convex(p: &[DVec2]) -> bool {
    let n = p.len();
    let mut winding = 0.0;
    for i in 0..n {
        let (a, b, c) = (p[(i + n - 1) % n], p[i], p[(i + 1) % n]);
        if turn(a, b, c) < 0.0 {
            return false;
        }
        let (d0, d1) = (b - a, c - b);
        winding += d0.perp_dot(d1).atan2(d0.dot(d1));
    }
    winding < 1.5 * std::f64::consts::TAU
}

/// Whether `p` lies in the closed triangle a, b, c (counter-clockwise).
fn inside(p: DVec2, a: DVec2, b: DVec2, c: DVec2) -> bool {
    (b - a).perp_dot(p - a) >= 0.0
        && (c - b).perp_dot(p - b) >= 0.0
        && (a - c).perp_dot(p - c) >= 0.0
}

/// Ear clipping: repeatedly cuts off a corner that turns left and whose triangle holds no
/// other remaining corner. A polygon that crosses itself can run out of such ears; the
/// rest is then fanned.
fn ear_clip(p: &[DVec2], face: &[u32], out: &mut Vec<u32>) {
    let mut ring: Vec<usize> = (0..p.len()).collect();
    while ring.len() > 3 {
        let m = ring.len();
        let ear = (0..m).find(|&i| {
            let (a, b, c) = (ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]);
            turn(p[a], p[b], p[c]) > 0.0
                && ring.iter().all(|&k| {
                    k == a
                        || k == b
                        || k == c
                        || p[k] == p[a]
                        || p[k] == p[b]
                        || p[k] == p[c]
                        || !inside(p[k], p[a], p[b], p[c])
                })
        });
        let Some(i) = ear else {
            let rest: Vec<u32> = ring.iter().map(|&k| face[k]).collect();
            fan(&rest, out);
            return;
        };
        let (a, b, c) = (ring[(i + m - 1) % m], ring[i], ring[(i + 1) % m]);
        out.extend([face[a], face[b], face[c]]);
        ring.remove(i);
    }
    out.extend(ring.iter().map(|&k| face[k]));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Area of the triangles and whether each keeps the polygon's winding and lies in it
    /// (its centroid and edge midpoints, nudged towards the centroid, inside by the
    /// even-odd rule).
    fn area_and_inside(polygon: &[[f32; 3]], triangles: &[u32]) -> (f64, bool) {
        let p: Vec<DVec2> = polygon
            .iter()
            .map(|q| DVec2::new(q[0].into(), q[1].into()))
            .collect();
        let contains = |q: DVec2| {
            let mut odd = false;
            for i in 0..p.len() {
                let (a, b) = (p[i], p[(i + 1) % p.len()]);
                if (a.y > q.y) != (b.y > q.y) && q.x < a.x + (q.y - a.y) * (b.x - a.x) / (b.y - a.y)
                {
                    odd = !odd;
                }
            }
            odd
        };
        let mut area = 0.0;
        let mut all_inside = true;
        for t in triangles.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| p[t[k] as usize]);
            let signed = 0.5 * (b - a).perp_dot(c - a);
            all_inside &= signed > 0.0;
            area += signed;
            let centroid = (a + b + c) / 3.0;
            for q in [centroid, (a + b) / 2.0, (b + c) / 2.0, (c + a) / 2.0] {
                all_inside &= contains(q + (centroid - q) * 1e-6);
            }
        }
        (area, all_inside)
    }

    fn polygon_area(polygon: &[[f32; 3]]) -> f64 {
        let n = polygon.len();
        (0..n)
            .map(|i| {
                let (a, b) = (polygon[i], polygon[(i + 1) % n]);
                0.5 * (f64::from(a[0]) * f64::from(b[1]) - f64::from(b[0]) * f64::from(a[1]))
            })
            .sum()
    }

    fn split(polygon: &[[f32; 3]]) -> Vec<u32> {
        let face: Vec<u32> = (0..polygon.len() as u32).collect();
        let mut out = Vec::new();
        triangulate(polygon, &face, &mut out);
        assert_eq!(out.len(), 3 * (polygon.len() - 2));
        out
    }

    #[test]
    fn l_and_u_shaped_faces_are_covered_exactly() {
        // L: 3 x 3 less the 2 x 2 top-right square = area 5, starting at the end of its
        // foot: the fan from there would cut across the missing square.
        let l = [
            [3.0, 0.0, 0.0],
            [3.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [1.0, 3.0, 0.0],
            [0.0, 3.0, 0.0],
            [0.0, 0.0, 0.0],
        ];
        // U: 3 x 3 less the 1 x 2 slot in the middle of the top = area 7, starting at a
        // corner whose fan would cross the slot.
        let u = [
            [2.0, 3.0, 0.0],
            [2.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [1.0, 3.0, 0.0],
            [0.0, 3.0, 0.0],
            [0.0, 0.0, 0.0],
            [3.0, 0.0, 0.0],
            [3.0, 3.0, 0.0],
        ];
        for (polygon, expected) in [(&l[..], 5.0), (&u[..], 7.0)] {
            assert_eq!(polygon_area(polygon), expected);
            let mut fanned = Vec::new();
            fan(&(0..polygon.len() as u32).collect::<Vec<_>>(), &mut fanned);
            assert!(
                !area_and_inside(polygon, &fanned).1,
                "the fan must be wrong here, or the case tests nothing"
            );
            let (area, inside) = area_and_inside(polygon, &split(polygon));
            assert!((area - expected).abs() < 1e-9, "{area} vs {expected}");
            assert!(inside);
        }
    }

    #[test]
    fn convex_polygons_keep_the_fan_and_tilted_ones_are_projected() {
        let hexagon: Vec<[f32; 3]> = (0..6)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 6.0;
                [a.cos(), a.sin(), 0.0]
            })
            .collect();
        assert_eq!(split(&hexagon), vec![0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5]);
        // The L in the plane x = 1, seen along -x (counter-clockwise there): still 4 ears.
        let l: Vec<[f32; 3]> = [
            [0.0, 0.0],
            [3.0, 0.0],
            [3.0, 1.0],
            [1.0, 1.0],
            [1.0, 3.0],
            [0.0, 3.0],
        ]
        .iter()
        .map(|q| [1.0, q[0], q[1]])
        .collect();
        let out = split(&l);
        let flat: Vec<[f32; 3]> = l.iter().map(|q| [q[1], q[2], 0.0]).collect();
        let (area, inside) = area_and_inside(&flat, &out);
        assert!((area - 5.0).abs() < 1e-9 && inside, "{area}");
    }
}
