//! Mesh settings: SparkEngine's `MeshSettings` (seed 004) plus assetc's own knobs.

/// How `.hmesh` geometry is built. Every field is a `[mesh]` key of `build.toml`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MeshSettings {
    /// Generate normals where the source has none (else missing normals are written as +Z).
    pub generate_normals: bool,
    /// Generate MikkTSpace tangents where the source has none: `"auto"` for primitives whose
    /// material has a normal texture (from that texture's UV set), `true` for every primitive
    /// with UVs, `false` never.
    pub generate_tangents: TangentMode,
    /// Faces meeting at a vertex at a larger angle than this (degrees) get separate normals.
    pub normal_smoothing_angle: f32,
    /// Merge identical vertices of each submesh.
    pub weld_vertices: bool,
    /// Vertices whose positions fall in the same cell of this size (model units) and whose
    /// other attributes are equal are merged; 0 merges only exact duplicates.
    pub weld_threshold: f32,
    /// Vertex-cache and vertex-fetch optimisation.
    pub optimize: bool,
    /// Most vertices per meshlet, 3..=255.
    pub meshlet_max_vertices: u32,
    /// Most triangles per meshlet, a multiple of 4 in 4..=512.
    pub meshlet_max_triangles: u32,
    /// 0..=1: how much meshlet building favours tight normal cones (for cone culling)
    /// over fewer, fuller meshlets; 0 builds them with meshoptimizer's scan builder (no
    /// spatial search: a seventh of the CPU time, about 2% more meshlets).
    pub meshlet_cone_weight: f32,
    /// Target fractions of LOD0's triangles, one reduced level each; empty for no LODs.
    pub lod_ratios: Vec<f32>,
    /// Largest simplification error allowed, relative to the submesh's extent.
    pub lod_target_error: f32,
    /// Bake node transforms into static geometry (world space).
    pub bake_transforms: bool,
    /// Also build a cluster LOD hierarchy per submesh (clusters of every level, groups,
    /// errors, a culling hierarchy: assetc's optional `CL**` chunks of `.hmesh`).
    pub cluster_lod: bool,
    /// Store the hierarchy's topology with meshoptimizer's meshlet codec (CLCO + CLCD)
    /// instead of plain arrays (CLVR + CLTR); no effect without `cluster_lod`.
    pub cluster_compress: bool,
    /// Give every cluster level above 0 its own copy of the vertices it uses, appended to
    /// the vertex stream, so the codec's vertex references run +1 at every level (fewer
    /// topology bytes for more vertex bytes); classic draws still use the originals. No
    /// effect without `cluster_lod`.
    pub cluster_vertex_copies: bool,
    /// Generate lightmap UVs (`.hmesh` UV1S, Qt `attr_lightmapuv`) in place of the source's
    /// second UV set: charts without overlap in one square atlas per output mesh.
    pub generate_lightmap_uvs: bool,
    /// Texels per side of that atlas: charts are 2 texels apart at this resolution and
    /// as large as fits.
    pub lightmap_resolution: u32,
}

impl Default for MeshSettings {
    fn default() -> Self {
        Self {
            generate_normals: true,
            generate_tangents: TangentMode::Auto,
            normal_smoothing_angle: 60.0,
            weld_vertices: true,
            weld_threshold: 0.0001,
            optimize: true,
            meshlet_max_vertices: 64,
            meshlet_max_triangles: 124,
            meshlet_cone_weight: 0.25,
            lod_ratios: vec![0.5, 0.25],
            lod_target_error: 0.05,
            bake_transforms: true,
            cluster_lod: false,
            cluster_compress: false,
            cluster_vertex_copies: false,
            generate_lightmap_uvs: false,
            lightmap_resolution: 1024,
        }
    }
}

/// Which primitives get generated tangents (`generate_tangents` in build.toml: `true`,
/// `false` or `"auto"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TangentMode {
    /// Never.
    Off,
    /// Every primitive with UVs: from its normal texture's UV set, else TEXCOORD_0.
    On,
    /// Only primitives whose material has a normal texture, from that texture's UV set:
    /// tangents serve normal mapping and nothing else reads them.
    Auto,
}

impl serde::Serialize for TangentMode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TangentMode::Off => serializer.serialize_bool(false),
            TangentMode::On => serializer.serialize_bool(true),
            TangentMode::Auto => serializer.serialize_str("auto"),
        }
    }
}

impl<'de> serde::Deserialize<'de> for TangentMode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Mode;
        impl serde::de::Visitor<'_> for Mode {
            type Value = TangentMode;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or \"auto\"")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<TangentMode, E> {
                Ok(if on {
                    TangentMode::On
                } else {
                    TangentMode::Off
                })
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<TangentMode, E> {
                match name {
                    "auto" => Ok(TangentMode::Auto),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(name), &self)),
                }
            }
        }
        deserializer.deserialize_any(Mode)
    }
}

/// Bounds of `lightmap_resolution`: below 16 texels a chart and its padding fill most of
/// the atlas; above 16,384 a lightmap outgrows what GPUs sample (and the checker's grid).
pub const MIN_LIGHTMAP_RESOLUTION: u32 = 16;
pub const MAX_LIGHTMAP_RESOLUTION: u32 = 16_384;

/// A setting outside the values it may take: its name (the site), what it must be, and
/// the value given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting} must {requirement}, got {value}")]
pub struct SettingRangeError {
    pub setting: String,
    /// What the value must do, worded to follow "must" (`be in 0..=1`).
    pub requirement: String,
    pub value: String,
}

impl SettingRangeError {
    pub fn new(
        setting: impl Into<String>,
        requirement: impl Into<String>,
        value: impl std::fmt::Display,
    ) -> Self {
        Self {
            setting: setting.into(),
            requirement: requirement.into(),
            value: value.to_string(),
        }
    }
}

impl MeshSettings {
    /// Checks the ranges meshoptimizer and the format can hold.
    pub fn validate(&self) -> Result<(), SettingRangeError> {
        if !(3..=255).contains(&self.meshlet_max_vertices) {
            return Err(SettingRangeError::new(
                "meshlet_max_vertices",
                "be 3..=255 (MLTR stores u8 local indices)",
                self.meshlet_max_vertices,
            ));
        }
        if !(1..=512).contains(&self.meshlet_max_triangles)
            || !self.meshlet_max_triangles.is_multiple_of(4)
        {
            return Err(SettingRangeError::new(
                "meshlet_max_triangles",
                "be a multiple of 4 in 4..=512",
                self.meshlet_max_triangles,
            ));
        }
        if let Some(r) = self.lod_ratios.iter().find(|r| !(**r > 0.0 && **r < 1.0)) {
            return Err(SettingRangeError::new("lod_ratios", "each be in (0, 1)", r));
        }
        if !(self.normal_smoothing_angle >= 0.0 && self.normal_smoothing_angle <= 180.0) {
            return Err(SettingRangeError::new(
                "normal_smoothing_angle",
                "be in 0..=180 degrees",
                self.normal_smoothing_angle,
            ));
        }
        if !(self.weld_threshold >= 0.0 && self.weld_threshold.is_finite()) {
            return Err(SettingRangeError::new(
                "weld_threshold",
                "be >= 0",
                self.weld_threshold,
            ));
        }
        if !(self.lod_target_error >= 0.0 && self.lod_target_error <= 1.0) {
            return Err(SettingRangeError::new(
                "lod_target_error",
                "be in 0..=1",
                self.lod_target_error,
            ));
        }
        if !(MIN_LIGHTMAP_RESOLUTION..=MAX_LIGHTMAP_RESOLUTION).contains(&self.lightmap_resolution)
        {
            return Err(SettingRangeError::new(
                "lightmap_resolution",
                format!("be in {MIN_LIGHTMAP_RESOLUTION}..={MAX_LIGHTMAP_RESOLUTION} texels"),
                self.lightmap_resolution,
            ));
        }
        if !(0.0..=1.0).contains(&self.meshlet_cone_weight) {
            return Err(SettingRangeError::new(
                "meshlet_cone_weight",
                "be in 0..=1",
                self.meshlet_cone_weight,
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_tangents_reads_true_false_and_auto_and_names_them_when_wrong() {
        let read = |v: &str| toml::from_str::<MeshSettings>(&format!("generate_tangents = {v}"));
        assert_eq!(read("true").unwrap().generate_tangents, TangentMode::On);
        assert_eq!(read("false").unwrap().generate_tangents, TangentMode::Off);
        assert_eq!(
            read("\"auto\"").unwrap().generate_tangents,
            TangentMode::Auto
        );
        for bad in ["1", "\"yes\""] {
            let err = read(bad).unwrap_err().to_string();
            assert!(
                err.contains("expected true, false or \"auto\""),
                "{bad}: {err}"
            );
        }
        for mode in [TangentMode::On, TangentMode::Off, TangentMode::Auto] {
            let settings = MeshSettings {
                generate_tangents: mode,
                ..Default::default()
            };
            let text = toml::to_string(&settings).unwrap();
            assert_eq!(toml::from_str::<MeshSettings>(&text).unwrap(), settings);
        }
    }
}
