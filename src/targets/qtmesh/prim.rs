//! A primitive with every attribute a Qt mesh can carry, checked, completed (normals,
//! tangents) and welded.

use crate::pipeline::geometry::Geometry;
use crate::pipeline::normals::generate_normals;
use crate::pipeline::MeshSettings;
use crate::scene::Primitive;
use std::collections::HashMap;

#[derive(Debug, Clone, Default)]
pub struct TargetDeltas {
    pub positions: Option<Vec<[f32; 3]>>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub tangents: Option<Vec<[f32; 3]>>,
}

#[derive(Debug, Clone, Default)]
pub struct Prim {
    pub positions: Vec<[f32; 3]>,
    pub normals: Option<Vec<[f32; 3]>>,
    pub tangents: Option<Vec<[f32; 4]>>,
    pub uv0: Option<Vec<[f32; 2]>>,
    pub uv1: Option<Vec<[f32; 2]>>,
    pub colors: Option<Vec<[f32; 4]>>,
    pub joints: Option<Vec<[u16; 4]>>,
    pub weights: Option<Vec<[f32; 4]>>,
    pub targets: Vec<TargetDeltas>,
    pub indices: Vec<u32>,
    indexed: bool,
}

fn check_len<T>(what: &str, path: &str, a: &Option<Vec<T>>, n: usize) -> Result<(), String> {
    match a {
        Some(a) if a.len() != n => Err(format!(
            "{path}: {what} has {} entries for {n} vertices",
            a.len()
        )),
        _ => Ok(()),
    }
}

impl Prim {
    /// Copies the attributes Qt can hold, refusing inconsistent lengths or indices.
    pub fn from_scene(p: &Primitive) -> Result<Self, String> {
        let n = p.positions.len();
        let path = p.gltf_path.as_str();
        let prim = Prim {
            positions: p.positions.clone(),
            normals: p.normals.clone(),
            tangents: p.tangents.clone(),
            uv0: p.uv0.clone(),
            uv1: p.uv1.clone(),
            colors: p.colors.clone(),
            joints: p.joints.first().cloned(),
            weights: p.weights.first().cloned(),
            targets: p
                .targets
                .iter()
                .map(|t| TargetDeltas {
                    positions: t.positions.clone(),
                    normals: t.normals.clone(),
                    tangents: t.tangents.clone(),
                })
                .collect(),
            indices: p.indices.clone(),
            indexed: p.indexed,
        };
        check_len("NORMAL", path, &prim.normals, n)?;
        check_len("TANGENT", path, &prim.tangents, n)?;
        check_len("TEXCOORD_0", path, &prim.uv0, n)?;
        check_len("TEXCOORD_1", path, &prim.uv1, n)?;
        check_len("COLOR_0", path, &prim.colors, n)?;
        check_len("JOINTS_0", path, &prim.joints, n)?;
        check_len("WEIGHTS_0", path, &prim.weights, n)?;
        if prim.joints.is_some() != prim.weights.is_some() {
            return Err(format!("{path}: JOINTS_0 and WEIGHTS_0 must come together"));
        }
        for (t, d) in prim.targets.iter().enumerate() {
            let what = format!("targets[{t}]");
            check_len(&format!("{what}.POSITION"), path, &d.positions, n)?;
            check_len(&format!("{what}.NORMAL"), path, &d.normals, n)?;
            check_len(&format!("{what}.TANGENT"), path, &d.tangents, n)?;
        }
        if prim.indices.len() % 3 != 0 {
            return Err(format!(
                "{path}: {} indices are not whole triangles",
                prim.indices.len()
            ));
        }
        if let Some(bad) = prim.indices.iter().find(|&&i| i as usize >= n) {
            return Err(format!("{path}: index {bad} is past the {n} vertices"));
        }
        Ok(prim)
    }

    /// Generates normals where missing (Balsam always writes `attr_norm`).
    /// The pipeline stages work on [`Geometry`], which holds only some attributes; each
    /// vertex's origin rides along in its skin slot (unused by these stages) so the other
    /// attributes can follow the vertices the stages split.
    pub fn complete(&mut self, settings: &MeshSettings) {
        let want_normals = settings.generate_normals && self.normals.is_none();
        // Balsam writes a tangent frame only when the source has one (terrain.glb, normal
        // mapped without tangents, gets none; Qt then derives tangents in the shader).
        if !want_normals {
            return;
        }
        let origin_slot = (0..self.positions.len() as u32)
            .map(|v| crate::formats::hmesh::GpuSkinVertex {
                joints: [v as u16, (v >> 16) as u16, 0, 0],
                weights: [0.0; 4],
            })
            .collect();
        let mut g = Geometry {
            gltf_path: String::new(),
            positions: std::mem::take(&mut self.positions),
            normals: self.normals.take(),
            tangents: self.tangents.take(),
            uvs: self.uv0.take(),
            skin: Some(origin_slot),
            indices: std::mem::take(&mut self.indices),
            indexed: self.indexed,
            material: None,
        };
        generate_normals(&mut g, settings.normal_smoothing_angle);
        let origin: Vec<u32> = g
            .skin
            .take()
            .unwrap_or_default()
            .iter()
            .map(|s| u32::from(s.joints[0]) | (u32::from(s.joints[1]) << 16))
            .collect();
        self.positions = g.positions;
        self.normals = g.normals;
        self.tangents = g.tangents;
        self.uv0 = g.uvs;
        self.indices = g.indices;
        self.gather_rest(&origin);
    }

    /// Re-indexes the attributes the pipeline stages do not carry.
    fn gather_rest(&mut self, origin: &[u32]) {
        fn gather<T: Copy>(a: &mut Option<Vec<T>>, origin: &[u32]) {
            if let Some(v) = a {
                *v = origin.iter().map(|&o| v[o as usize]).collect();
            }
        }
        gather(&mut self.uv1, origin);
        gather(&mut self.colors, origin);
        gather(&mut self.joints, origin);
        gather(&mut self.weights, origin);
        for t in &mut self.targets {
            gather(&mut t.positions, origin);
            gather(&mut t.normals, origin);
            gather(&mut t.tangents, origin);
        }
    }

    /// Merges vertices equal in every attribute (bit for bit, with -0 equal to 0),
    /// morph target deltas included. Vertices keep first-use order and no triangle is
    /// removed. Exact equality only: `weld_threshold` would move positions, and the
    /// Qt output keeps the source's positions.
    pub fn weld(&mut self) {
        let n = self.positions.len();
        let mut keys: Vec<u32> = Vec::new();
        let bits = |f: f32| if f == 0.0 { 0 } else { f.to_bits() };
        for v in 0..n {
            keys.extend(self.positions[v].map(bits));
            if let Some(a) = &self.normals {
                keys.extend(a[v].map(bits));
            }
            if let Some(a) = &self.tangents {
                keys.extend(a[v].map(bits));
            }
            if let Some(a) = &self.uv0 {
                keys.extend(a[v].map(bits));
            }
            if let Some(a) = &self.uv1 {
                keys.extend(a[v].map(bits));
            }
            if let Some(a) = &self.colors {
                keys.extend(a[v].map(bits));
            }
            if let Some(a) = &self.joints {
                keys.extend(a[v].map(u32::from));
            }
            if let Some(a) = &self.weights {
                keys.extend(a[v].map(bits));
            }
            for t in &self.targets {
                for a in [&t.positions, &t.normals, &t.tangents]
                    .into_iter()
                    .flatten()
                {
                    keys.extend(a[v].map(bits));
                }
            }
        }
        let width = keys.len().checked_div(n).unwrap_or(0);
        if width == 0 {
            return;
        }
        let mut remap = vec![u32::MAX; n];
        let mut kept: Vec<u32> = Vec::with_capacity(n);
        let mut first: HashMap<&[u32], u32> = HashMap::with_capacity(n);
        for v in self.indices.iter().copied().chain(0..n as u32) {
            let vi = v as usize;
            if remap[vi] != u32::MAX {
                continue;
            }
            let key = &keys[vi * width..(vi + 1) * width];
            let next = kept.len() as u32;
            let target = *first.entry(key).or_insert(next);
            if target == next {
                kept.push(v);
            }
            remap[vi] = target;
        }
        drop(first);
        for i in &mut self.indices {
            *i = remap[*i as usize];
        }
        fn gather<T: Copy>(a: &mut Vec<T>, kept: &[u32]) {
            *a = kept.iter().map(|&o| a[o as usize]).collect();
        }
        gather(&mut self.positions, &kept);
        for a in [&mut self.normals].into_iter().flatten() {
            gather(a, &kept);
        }
        if let Some(a) = &mut self.tangents {
            gather(a, &kept);
        }
        if let Some(a) = &mut self.uv0 {
            gather(a, &kept);
        }
        self.gather_rest(&kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(duplicated: bool) -> Primitive {
        let mut p = Primitive {
            gltf_path: "meshes[0].primitives[0]".into(),
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
            uv1: Some(vec![[0.0; 2], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
            indices: vec![0, 1, 2, 0, 2, 3],
            indexed: true,
            ..Default::default()
        };
        if duplicated {
            // Non-indexed form: six vertices, two of them repeated.
            let idx = p.indices.clone();
            p.positions = idx.iter().map(|&i| p.positions[i as usize]).collect();
            p.uv1 = Some(
                idx.iter()
                    .map(|&i| p.uv1.as_ref().unwrap()[i as usize])
                    .collect(),
            );
            p.indices = (0..6).collect();
        }
        p
    }

    #[test]
    fn weld_merges_exact_duplicates_and_keeps_other_attributes_in_step() {
        let mut prim = Prim::from_scene(&quad(true)).unwrap();
        prim.weld();
        assert_eq!(prim.positions.len(), 4);
        assert_eq!(prim.indices, vec![0, 1, 2, 0, 2, 3]);
        let uv1 = prim.uv1.unwrap();
        for (p, uv) in prim.positions.iter().zip(&uv1) {
            assert_eq!([p[0], p[1]], *uv, "uv1 must follow its vertex");
        }
    }

    #[test]
    fn generated_normals_keep_extra_attributes_attached() {
        // A fold: two triangles at 90 degrees share an edge, so the shared vertices are
        // split by the 60-degree smoothing angle.
        let mut p = quad(false);
        p.positions[3] = [0.0, 0.0, 1.0];
        p.positions[2] = [1.0, 0.0, 1.0];
        p.indices = vec![0, 1, 2, 0, 2, 3, 0, 1, 3];
        p.positions.push([0.0, 1.0, 0.0]);
        p.uv1.as_mut().unwrap().push([9.0, 9.0]);
        p.indices = vec![0, 1, 4, 0, 3, 1];
        let mut prim = Prim::from_scene(&p).unwrap();
        prim.complete(&MeshSettings::default());
        let normals = prim.normals.as_ref().unwrap();
        assert!(prim.positions.len() > 5, "hard edge should split vertices");
        let uv1 = prim.uv1.as_ref().unwrap();
        assert_eq!(uv1.len(), prim.positions.len());
        for (v, pos) in prim.positions.iter().enumerate() {
            let original = p.positions.iter().position(|q| q == pos).unwrap();
            assert_eq!(uv1[v], p.uv1.as_ref().unwrap()[original]);
            assert!((glam::Vec3::from(normals[v]).length() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn bad_lengths_and_indices_are_errors() {
        let mut p = quad(false);
        p.uv0 = Some(vec![[0.0; 2]; 3]);
        assert!(Prim::from_scene(&p).unwrap_err().contains("TEXCOORD_0"));
        let mut p = quad(false);
        p.indices[4] = 99;
        assert!(Prim::from_scene(&p).unwrap_err().contains("index 99"));
        let mut p = quad(false);
        p.indices.pop();
        assert!(Prim::from_scene(&p).is_err());
    }
}
