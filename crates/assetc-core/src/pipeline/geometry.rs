//! The working geometry of one primitive as it moves through the stages: a triangle list
//! over vertex attribute streams, in the spirit of gltfpack's `Mesh { streams }`.
//!
//! Every stage that reorders, splits, welds or drops vertices does it through
//! [`Geometry::keep_vertices`] / [`Geometry::duplicate_vertex`], which treat all streams
//! alike, so a new vertex attribute needs no stage changes: only a [`Semantic`], the
//! importer's conversion ([`crate::scene::Primitive::streams`]) and the packers of the
//! targets that store it.

use crate::scene::Primitive;

/// What a vertex stream holds. Values are stored as four floats per vertex whatever the
/// attribute's width (unused components 0); joint indices are stored as exact floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Semantic {
    Position,
    Normal,
    /// xyz direction, w handedness (+1 or -1).
    Tangent,
    TexCoord,
    /// Linear RGBA.
    Color,
    Joints,
    Weights,
    /// A morph target's displacements; the stream's set is the target index.
    MorphPosition,
    MorphNormal,
    MorphTangent,
    /// Generated lightmap UVs (set 0; `pipeline::lightmap_uvs`): chart-local coordinates
    /// and the chart number `[u, v, chart, 0]` between its two steps, then atlas UVs.
    LightmapUv,
}

impl Semantic {
    /// The glTF attribute name of set `set`, for messages: `TEXCOORD_1`, `targets[2].NORMAL`.
    pub fn gltf_name(self, set: u32) -> String {
        match self {
            Semantic::Position => "POSITION".into(),
            Semantic::Normal => "NORMAL".into(),
            Semantic::Tangent => "TANGENT".into(),
            Semantic::TexCoord => format!("TEXCOORD_{set}"),
            Semantic::Color => format!("COLOR_{set}"),
            Semantic::Joints => format!("JOINTS_{set}"),
            Semantic::Weights => format!("WEIGHTS_{set}"),
            Semantic::MorphPosition => format!("targets[{set}].POSITION"),
            Semantic::MorphNormal => format!("targets[{set}].NORMAL"),
            Semantic::MorphTangent => format!("targets[{set}].TANGENT"),
            Semantic::LightmapUv => "lightmap UV".into(),
        }
    }
}

/// One attribute of every vertex: `semantic` set `set` (`TEXCOORD_1` is `TexCoord`, 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub semantic: Semantic,
    pub set: u32,
    pub data: Vec<[f32; 4]>,
}

/// One primitive: its vertex streams and triangle list.
#[derive(Debug, Clone, Default)]
pub struct Geometry {
    /// `meshes[i].primitives[j]`, for messages.
    pub gltf_path: String,
    /// At most one stream per (semantic, set); `Position` set 0 always present (possibly
    /// empty) once the geometry is built with [`Geometry::new`].
    pub streams: Vec<Stream>,
    pub indices: Vec<u32>,
    /// False for sources without indices: generated normals are then flat.
    pub indexed: bool,
    /// Source material index.
    pub material: Option<usize>,
}

/// Widens an attribute to the four-float stream layout.
pub fn widen<const N: usize>(v: &[[f32; N]]) -> Vec<[f32; 4]> {
    v.iter()
        .map(|a| {
            let mut out = [0.0; 4];
            out[..N].copy_from_slice(a);
            out
        })
        .collect()
}

/// The first three components of a stream value.
pub fn xyz(v: [f32; 4]) -> [f32; 3] {
    [v[0], v[1], v[2]]
}

/// The first index not below `vertex_count`, if any. The largest index is found first, in
/// a fold the compiler vectorises (`find` exits early and so runs one index at a time, on
/// the million-index primitives checked before their stages start); the indices are
/// searched only when it is out of range.
pub fn first_index_out_of_range(indices: &[u32], vertex_count: usize) -> Option<u32> {
    let highest = indices.iter().fold(0u32, |m, &i| m.max(i));
    if (highest as usize) < vertex_count {
        return None;
    }
    indices
        .iter()
        .copied()
        .find(|&i| i as usize >= vertex_count)
}

impl Geometry {
    /// The primitive as attribute streams for the geometry stages: every attribute the
    /// importer decoded, the ones `keep` accepts (positions always). The one place that
    /// maps the importer's fields to stream semantics (the scene knows nothing of streams).
    pub fn from_primitive(prim: &Primitive, keep: impl Fn(Semantic, u32) -> bool) -> Geometry {
        use Semantic as S;
        let mut g = Geometry::new(
            prim.gltf_path.clone(),
            &prim.positions,
            prim.indices.clone(),
        );
        g.indexed = prim.indexed;
        g.material = prim.material;
        // Each attribute is converted only when `keep` wants it.
        let mut add = |s: S, set: u32, data: &dyn Fn() -> Option<Vec<[f32; 4]>>| {
            if keep(s, set) {
                if let Some(data) = data() {
                    g.set_stream(s, set, data);
                }
            }
        };
        add(S::Normal, 0, &|| prim.normals.as_deref().map(widen));
        add(S::Tangent, 0, &|| prim.tangents.clone());
        add(S::TexCoord, 0, &|| prim.uv0.as_deref().map(widen));
        add(S::TexCoord, 1, &|| prim.uv1.as_deref().map(widen));
        add(S::Color, 0, &|| prim.colors.clone());
        for (set, (j, w)) in prim.joints.iter().zip(&prim.weights).enumerate() {
            add(S::Joints, set as u32, &|| {
                Some(j.iter().map(|j| j.map(f32::from)).collect())
            });
            add(S::Weights, set as u32, &|| Some(w.clone()));
        }
        for (t, target) in prim.targets.iter().enumerate() {
            let t = t as u32;
            add(S::MorphPosition, t, &|| {
                target.positions.as_deref().map(widen)
            });
            add(S::MorphNormal, t, &|| target.normals.as_deref().map(widen));
            add(S::MorphTangent, t, &|| {
                target.tangents.as_deref().map(widen)
            });
        }
        g
    }

    /// A geometry with positions only.
    pub fn new(gltf_path: impl Into<String>, positions: &[[f32; 3]], indices: Vec<u32>) -> Self {
        Self {
            gltf_path: gltf_path.into(),
            streams: vec![Stream {
                semantic: Semantic::Position,
                set: 0,
                data: widen(positions),
            }],
            indices,
            indexed: true,
            material: None,
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.stream(Semantic::Position, 0).map_or(0, <[_]>::len)
    }

    pub fn stream(&self, semantic: Semantic, set: u32) -> Option<&[[f32; 4]]> {
        self.streams
            .iter()
            .find(|s| s.semantic == semantic && s.set == set)
            .map(|s| s.data.as_slice())
    }

    pub fn stream_mut(&mut self, semantic: Semantic, set: u32) -> Option<&mut Vec<[f32; 4]>> {
        self.streams
            .iter_mut()
            .find(|s| s.semantic == semantic && s.set == set)
            .map(|s| &mut s.data)
    }

    pub fn has(&self, semantic: Semantic, set: u32) -> bool {
        self.stream(semantic, set).is_some()
    }

    /// Positions (set 0); empty when there are none.
    pub fn positions(&self) -> &[[f32; 4]] {
        self.stream(Semantic::Position, 0).unwrap_or(&[])
    }

    /// Adds or replaces a stream.
    pub fn set_stream(&mut self, semantic: Semantic, set: u32, data: Vec<[f32; 4]>) {
        match self.stream_mut(semantic, set) {
            Some(s) => *s = data,
            None => self.streams.push(Stream {
                semantic,
                set,
                data,
            }),
        }
    }

    /// Appends a copy of vertex `v` (every stream) and returns its index.
    pub fn duplicate_vertex(&mut self, v: usize) -> u32 {
        for s in &mut self.streams {
            s.data.push(s.data[v]);
        }
        (self.vertex_count() - 1) as u32
    }

    /// Rebuilds every stream so that new vertex `i` is old vertex `kept[i]`; the caller
    /// renumbers the indices.
    pub fn keep_vertices(&mut self, kept: &[u32]) {
        self.keep_vertices_with(kept, None);
    }

    /// [`Self::keep_vertices`], with the positions already gathered when given.
    pub fn keep_vertices_with(&mut self, kept: &[u32], positions: Option<Vec<[f32; 4]>>) {
        use rayon::prelude::*;
        let mut positions = positions;
        for s in &mut self.streams {
            let is_position = s.semantic == Semantic::Position && s.set == 0;
            s.data = match positions.take_if(|_| is_position) {
                Some(gathered) => gathered,
                None => kept.par_iter().map(|&v| s.data[v as usize]).collect(),
            };
        }
    }

    /// Index of an out-of-range vertex reference or a stream of the wrong length, if any:
    /// the stages index streams directly and rely on this having been checked.
    pub fn check(&self) -> Result<(), GeometryError> {
        let n = self.vertex_count();
        for s in &self.streams {
            if s.data.len() != n {
                return Err(GeometryError::StreamLength {
                    stream: s.semantic.gltf_name(s.set),
                    entries: s.data.len(),
                    vertices: n,
                });
            }
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(GeometryError::PartialTriangle(self.indices.len()));
        }
        if let Some(bad) = first_index_out_of_range(&self.indices, n) {
            return Err(GeometryError::IndexOutOfRange {
                index: bad,
                vertices: n,
            });
        }
        Ok(())
    }

    /// Gives every corner (index slot) the value in `corner_values`, storing it per vertex and
    /// splitting a vertex whose corners disagree. Returns the per-vertex values.
    pub fn split_by_corner_values<T: Copy + PartialEq>(
        &mut self,
        corner_values: &[T],
        unused: T,
    ) -> Vec<T> {
        let (indices, origin, per_vertex) =
            split_by_corner_values(&self.indices, self.vertex_count(), corner_values, unused);
        self.indices = indices;
        self.append_copies(&origin);
        per_vertex
    }

    /// [`Self::split_by_corner_values`] from values already gathered per vertex: each
    /// vertex's first corner's value and the corners that differ from it
    /// ([`split_differing`]).
    pub fn split_by_vertex_values<T: Copy + PartialEq>(
        &mut self,
        first: Vec<Option<T>>,
        differing: &[(u32, T)],
        unused: T,
    ) -> Vec<T> {
        let (origin, per_vertex) = split_differing(&mut self.indices, first, differing, unused);
        self.append_copies(&origin);
        per_vertex
    }

    /// Appends a copy of `origin[v]` for every `v` past the current vertices.
    fn append_copies(&mut self, origin: &[u32]) {
        if origin.len() > self.vertex_count() {
            let added: Vec<u32> = origin[self.vertex_count()..].to_vec();
            for v in added {
                self.duplicate_vertex(v as usize);
            }
        }
    }
}

/// What [`Geometry::check`] finds wrong: the stages index streams directly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    #[error("{stream} has {entries} entries for {vertices} vertices")]
    StreamLength {
        stream: String,
        entries: usize,
        vertices: usize,
    },
    #[error("{0} indices are not whole triangles")]
    PartialTriangle(usize),
    #[error("index {index} is not below the vertex count {vertices}")]
    IndexOutOfRange { index: u32, vertices: usize },
}

/// The split of [`Geometry::split_by_corner_values`] without the geometry: new indices,
/// the origin of each vertex (old vertices keep their index, copies are appended) and the
/// per-vertex values.
pub fn split_by_corner_values<T: Copy + PartialEq>(
    indices: &[u32],
    vertex_count: usize,
    corner_values: &[T],
    unused: T,
) -> (Vec<u32>, Vec<u32>, Vec<T>) {
    debug_assert_eq!(corner_values.len(), indices.len());
    let mut first: Vec<Option<T>> = vec![None; vertex_count];
    let mut differing = Vec::new();
    for (corner, &value) in corner_values.iter().enumerate() {
        let v = indices[corner] as usize;
        match first[v] {
            None => first[v] = Some(value),
            Some(existing) if existing == value => {}
            Some(_) => differing.push((corner as u32, value)),
        }
    }
    let mut indices = indices.to_vec();
    let (origin, per_vertex) = split_differing(&mut indices, first, &differing, unused);
    (indices, origin, per_vertex)
}

/// Most copies of one vertex [`split_differing`] compares a corner's value with. Ordinary
/// vertices have a few (the corpus: at most 32 corners at a vertex).
pub const MAX_COPIES_SEARCHED: usize = 256;

/// Gives each vertex the value of its first corner (`first`, `None` for a vertex no corner
/// uses, which gets `unused`) and moves each corner of `differing` (ascending, each with a
/// value unlike its vertex's first) to a copy of its vertex: one copy per distinct value,
/// appended in order of first use. Returns the origin of each vertex and the values.
pub fn split_differing<T: Copy + PartialEq>(
    indices: &mut [u32],
    first: Vec<Option<T>>,
    differing: &[(u32, T)],
    unused: T,
) -> (Vec<u32>, Vec<T>) {
    let mut origin: Vec<u32> = (0..first.len() as u32).collect();
    let mut per_vertex = first;
    // Copies made for a vertex, so corners with an already-seen value share one copy.
    let mut copies: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for &(corner, value) in differing {
        let v = indices[corner as usize];
        let list = copies.entry(v).or_default();
        // A vertex's copies hold distinct values, so which one is searched first does not
        // matter; only the latest [`MAX_COPIES_SEARCHED`] are, which keeps a vertex with
        // thousands of distinct corner values (a fan's hub) from costing the square of
        // that. Past it an equal value may get a copy of its own: more vertices, the same
        // mesh (welding merges them again).
        let target = match list
            .iter()
            .rev()
            .take(MAX_COPIES_SEARCHED)
            .copied()
            .find(|&c| per_vertex[c as usize] == Some(value))
        {
            Some(c) => c,
            None => {
                let c = origin.len() as u32;
                origin.push(v);
                per_vertex.push(Some(value));
                list.push(c);
                c
            }
        };
        indices[corner as usize] = target;
    }
    // Vertices no triangle uses get `unused`; the optimiser drops them anyway.
    let per_vertex = per_vertex
        .into_iter()
        .map(|v| v.unwrap_or(unused))
        .collect();
    (origin, per_vertex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stream_follows_a_split_and_a_gather() {
        let mut g = Geometry::new("p", &[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], vec![]);
        g.indices = vec![0, 1, 2, 0, 2, 1];
        g.set_stream(
            Semantic::TexCoord,
            1,
            widen(&[[0.5f32, 0.5], [1.0, 0.0], [0.0, 1.0]]),
        );
        // Vertex 0's two corners disagree: it is split, its copy keeps its UV1.
        let values = g.split_by_corner_values(&[1, 1, 1, 2, 1, 1], 0);
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.indices, vec![0, 1, 2, 3, 2, 1]);
        assert_eq!(values, vec![1, 1, 1, 2]);
        assert_eq!(
            g.stream(Semantic::TexCoord, 1).unwrap()[3],
            [0.5, 0.5, 0.0, 0.0]
        );
        g.keep_vertices(&[3, 0]);
        assert_eq!(g.positions(), &[[0.0; 4], [0.0; 4]]);
        assert_eq!(g.stream(Semantic::TexCoord, 1).unwrap().len(), 2);
    }

    #[test]
    fn a_vertex_with_thousands_of_corner_values_splits_in_bounded_work() {
        // 3,000 corners of vertex 0 (degenerate triangles), values cycling through `period`.
        // The 4 corners of value 0 stay on vertex 0 itself.
        for (period, copies) in [(100, 99), (3 * MAX_COPIES_SEARCHED, 3000 - 4)] {
            let values: Vec<u32> = (0..3000u32).map(|c| c % period as u32).collect();
            let (indices, origin, per_vertex) =
                split_by_corner_values(&vec![0; 3000], 1, &values, u32::MAX);
            for (corner, &v) in indices.iter().enumerate() {
                assert_eq!(per_vertex[v as usize], values[corner]);
                assert_eq!(origin[v as usize], 0);
            }
            // Values repeating within the searched copies share them, as they always did;
            // past it a value may get a further copy.
            assert_eq!(origin.len() - 1, copies, "period {period}");
        }
    }

    #[test]
    fn check_finds_bad_lengths_and_indices() {
        let mut g = Geometry::new("p", &[[0.0; 3]; 3], vec![0, 1, 2]);
        assert!(g.check().is_ok());
        g.indices[2] = 3;
        assert!(g.check().unwrap_err().to_string().contains("index 3"));
        g.indices[2] = 2;
        g.set_stream(Semantic::Normal, 0, vec![[0.0; 4]; 2]);
        let err = g.check().unwrap_err().to_string();
        assert!(err.contains("NORMAL has 2 entries"), "{err}");
    }
}
