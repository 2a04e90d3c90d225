//! A glyph's outline from ttf-parser, as the segments fdsm computes distances to.
//!
//! Written here rather than taken from `fdsm-ttf-parser`: that adapter unwraps on an
//! outline that draws before it moves, and a damaged font must fail alone, never panic.
//! This one also drops zero-length segments (a distance to them is undefined) and
//! measures the outline's bounds on the way.

use fdsm::bezier::{Point, Segment};
use fdsm::shape::{Contour, Shape};
use ttf_parser::{Face, GlyphId, OutlineBuilder};

/// Segments one glyph may have: far above any real glyph (a few hundred), it bounds the
/// distance-field work of a hostile font.
pub const MAX_SEGMENTS: usize = 1 << 16;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Seg {
    Line([f32; 2], [f32; 2]),
    Quad([f32; 2], [f32; 2], [f32; 2]),
    Cubic([f32; 2], [f32; 2], [f32; 2], [f32; 2]),
}

/// A glyph's closed contours in font units, y up, with the bounds of every point
/// (control points included, so the curves lie inside).
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    contours: Vec<Vec<Seg>>,
    pub min: [f32; 2],
    pub max: [f32; 2],
}

/// What went wrong outlining a glyph that has an outline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutlineError {
    #[error("its outline has more than {MAX_SEGMENTS} segments")]
    TooComplex,
    #[error("its outline has a coordinate that is not finite")]
    NotFinite,
}

/// The outline of a glyph; `Ok(None)` when it draws nothing (space, or an empty
/// `.notdef`).
pub fn outline(face: &Face, glyph: GlyphId) -> Result<Option<Outline>, OutlineError> {
    let mut c = Collector::default();
    // ttf-parser gives None both for a glyph without outline and for one it cannot
    // parse; either way there is nothing to draw.
    if face.outline_glyph(glyph, &mut c).is_none() {
        return Ok(None);
    }
    c.close();
    if c.too_many {
        return Err(OutlineError::TooComplex);
    }
    let contours: Vec<Vec<Seg>> = c.contours.into_iter().filter(|s| !s.is_empty()).collect();
    let mut min = [f32::INFINITY; 2];
    let mut max = [f32::NEG_INFINITY; 2];
    for p in contours.iter().flatten().flat_map(points) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(OutlineError::NotFinite);
        }
        for i in 0..2 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
    }
    if contours.is_empty() {
        return Ok(None);
    }
    Ok(Some(Outline { contours, min, max }))
}

/// A closed polygon as an outline, for tests of what is computed from outlines.
#[cfg(test)]
pub fn polygon(points: &[[f32; 2]]) -> Outline {
    let mut c = Collector::default();
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            c.move_to(p[0], p[1]);
        } else {
            c.line_to(p[0], p[1]);
        }
    }
    c.close();
    let mut min = [f32::INFINITY; 2];
    let mut max = [f32::NEG_INFINITY; 2];
    for p in points {
        for i in 0..2 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
    }
    Outline {
        contours: c.contours,
        min,
        max,
    }
}

fn points(s: &Seg) -> Vec<[f32; 2]> {
    match *s {
        Seg::Line(a, b) => vec![a, b],
        Seg::Quad(a, b, c) => vec![a, b, c],
        Seg::Cubic(a, b, c, d) => vec![a, b, c, d],
    }
}

impl Outline {
    pub fn segment_count(&self) -> usize {
        self.contours.iter().map(Vec::len).sum()
    }

    /// The outline as an fdsm shape in texel space: `p * scale - origin`, still y up.
    pub fn to_shape(&self, scale: f64, origin: [f64; 2]) -> Shape<Contour> {
        let t = |p: [f32; 2]| {
            Point::new(
                f64::from(p[0]) * scale - origin[0],
                f64::from(p[1]) * scale - origin[1],
            )
        };
        Shape {
            contours: self
                .contours
                .iter()
                .map(|segs| Contour {
                    segments: segs
                        .iter()
                        .map(|s| match *s {
                            Seg::Line(a, b) => Segment::line(t(a), t(b)),
                            Seg::Quad(a, b, c) => Segment::quad(t(a), t(b), t(c)),
                            Seg::Cubic(a, b, c, d) => Segment::cubic(t(a), t(b), t(c), t(d)),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

#[derive(Default)]
struct Collector {
    contours: Vec<Vec<Seg>>,
    start: Option<[f32; 2]>,
    last: Option<[f32; 2]>,
    count: usize,
    too_many: bool,
}

impl Collector {
    fn push(&mut self, seg: Seg) {
        self.count += 1;
        if self.count > MAX_SEGMENTS {
            self.too_many = true;
            return;
        }
        if let Some(c) = self.contours.last_mut() {
            c.push(seg);
        }
    }

    /// The current point; a segment drawn before any move starts a contour where it is.
    fn from(&mut self, to: [f32; 2]) -> [f32; 2] {
        match self.last {
            Some(p) => p,
            None => {
                self.move_to(to[0], to[1]);
                to
            }
        }
    }

    fn close(&mut self) {
        if let (Some(last), Some(start)) = (self.last, self.start) {
            if last != start {
                self.push(Seg::Line(last, start));
            }
        }
        self.last = None;
        self.start = None;
    }
}

impl OutlineBuilder for Collector {
    fn move_to(&mut self, x: f32, y: f32) {
        self.close();
        self.start = Some([x, y]);
        self.last = self.start;
        self.contours.push(Vec::new());
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let p = [x, y];
        let from = self.from(p);
        if from != p {
            self.push(Seg::Line(from, p));
        }
        self.last = Some(p);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (c, p) = ([x1, y1], [x, y]);
        let from = self.from(p);
        if from == c && c == p {
            return;
        }
        self.push(Seg::Quad(from, c, p));
        self.last = Some(p);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let (c1, c2, p) = ([x1, y1], [x2, y2], [x, y]);
        let from = self.from(p);
        if from == c1 && c1 == c2 && c2 == p {
            return;
        }
        self.push(Seg::Cubic(from, c1, c2, p));
        self.last = Some(p);
    }

    fn close(&mut self) {
        Collector::close(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contours_close_and_degenerate_segments_are_dropped() {
        let mut c = Collector::default();
        // Drawing before moving starts a contour at the first point.
        c.line_to(0.0, 0.0);
        c.line_to(10.0, 0.0);
        c.line_to(10.0, 0.0);
        c.quad_to(10.0, 10.0, 0.0, 10.0);
        c.curve_to(0.0, 10.0, 0.0, 10.0, 0.0, 10.0);
        OutlineBuilder::close(&mut c);
        c.move_to(2.0, 2.0);
        c.line_to(3.0, 2.0);
        c.close();
        assert_eq!(c.contours.len(), 2);
        assert_eq!(
            c.contours[0],
            vec![
                Seg::Line([0.0, 0.0], [10.0, 0.0]),
                Seg::Quad([10.0, 0.0], [10.0, 10.0], [0.0, 10.0]),
                Seg::Line([0.0, 10.0], [0.0, 0.0]),
            ]
        );
        assert_eq!(c.contours[1].len(), 2, "closed by a line back to the start");
    }

    #[test]
    fn hostile_outlines_are_bounded() {
        let mut c = Collector::default();
        c.move_to(0.0, 0.0);
        for i in 0..=MAX_SEGMENTS {
            c.line_to(i as f32 + 1.0, (i % 2) as f32);
        }
        assert!(c.too_many);
        assert_eq!(c.contours[0].len(), MAX_SEGMENTS);
    }
}
