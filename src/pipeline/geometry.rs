//! The working geometry of one submesh as it moves through the stages.

use crate::formats::hmesh::GpuSkinVertex;

/// One submesh: a primitive instance's vertices and triangle list.
#[derive(Debug, Clone, Default)]
pub struct Geometry {
    /// `meshes[i].primitives[j]`, for messages.
    pub gltf_path: String,
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub tangents: Option<Vec<[f32; 4]>>,
    pub uvs: Option<Vec<[f32; 2]>>,
    pub skin: Option<Vec<GpuSkinVertex>>,
    pub indices: Vec<u32>,
    /// False for sources without indices: generated normals are then flat.
    pub indexed: bool,
    /// Source material index.
    pub material: Option<usize>,
}

impl Geometry {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Appends a copy of vertex `v` (every attribute) and returns its index.
    pub fn duplicate_vertex(&mut self, v: usize) -> u32 {
        fn dup<T: Copy>(attr: &mut Option<Vec<T>>, v: usize) {
            if let Some(a) = attr {
                a.push(a[v]);
            }
        }
        self.positions.push(self.positions[v]);
        dup(&mut self.normals, v);
        dup(&mut self.tangents, v);
        dup(&mut self.uvs, v);
        dup(&mut self.skin, v);
        (self.positions.len() - 1) as u32
    }

    /// Rebuilds every attribute so that new vertex `i` is old vertex `kept[i]`; the caller
    /// renumbers the indices.
    pub fn keep_vertices(&mut self, kept: &[u32]) {
        fn gather<T: Copy>(attr: &mut Vec<T>, kept: &[u32]) {
            *attr = kept.iter().map(|&v| attr[v as usize]).collect();
        }
        gather(&mut self.positions, kept);
        if let Some(a) = &mut self.normals {
            gather(a, kept);
        }
        if let Some(a) = &mut self.tangents {
            gather(a, kept);
        }
        if let Some(a) = &mut self.uvs {
            gather(a, kept);
        }
        if let Some(a) = &mut self.skin {
            gather(a, kept);
        }
    }

    /// Gives every corner (index slot) the value in `corner_values`, storing it per vertex and
    /// splitting a vertex whose corners disagree. Returns the per-vertex values.
    pub fn split_by_corner_values<T: Copy + PartialEq>(
        &mut self,
        corner_values: &[T],
        unused: T,
    ) -> Vec<T> {
        debug_assert_eq!(corner_values.len(), self.indices.len());
        let mut per_vertex: Vec<Option<T>> = vec![None; self.positions.len()];
        // Duplicates made for a vertex, so corners with an already-seen value share one copy.
        let mut copies: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
        for (corner, &value) in corner_values.iter().enumerate() {
            let v = self.indices[corner];
            match per_vertex[v as usize] {
                None => per_vertex[v as usize] = Some(value),
                Some(existing) if existing == value => {}
                Some(_) => {
                    let found = copies.get(&v).and_then(|list| {
                        list.iter()
                            .copied()
                            .find(|&c| per_vertex[c as usize] == Some(value))
                    });
                    let target = match found {
                        Some(c) => c,
                        None => {
                            let c = self.duplicate_vertex(v as usize);
                            per_vertex.push(Some(value));
                            copies.entry(v).or_default().push(c);
                            c
                        }
                    };
                    self.indices[corner] = target;
                }
            }
        }
        // Vertices no triangle uses get `unused`; the optimiser drops them anyway.
        per_vertex
            .into_iter()
            .map(|v| v.unwrap_or(unused))
            .collect()
    }
}
