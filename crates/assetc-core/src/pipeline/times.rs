//! Time spent in each geometry stage, for reports and `assetc info`.

use std::time::Duration;

/// Time spent in each stage, summed over submeshes (CPU time when submeshes run in parallel).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StageTimes {
    pub bake: Duration,
    pub normals: Duration,
    pub tangents: Duration,
    /// Lightmap charts cut and packed (`mesh.generate_lightmap_uvs`).
    pub lightmap: Duration,
    pub weld: Duration,
    pub optimize: Duration,
    pub pack: Duration,
    pub meshlets: Duration,
    pub lods: Duration,
}

impl StageTimes {
    pub fn add(&mut self, o: &StageTimes) {
        self.bake += o.bake;
        self.normals += o.normals;
        self.tangents += o.tangents;
        self.lightmap += o.lightmap;
        self.weld += o.weld;
        self.optimize += o.optimize;
        self.pack += o.pack;
        self.meshlets += o.meshlets;
        self.lods += o.lods;
    }

    /// (stage name, time) pairs in pipeline order.
    pub fn entries(&self) -> [(&'static str, Duration); 9] {
        [
            ("bake", self.bake),
            ("normals", self.normals),
            ("tangents", self.tangents),
            ("lightmap", self.lightmap),
            ("weld", self.weld),
            ("optimize", self.optimize),
            ("pack", self.pack),
            ("meshlets", self.meshlets),
            ("lods", self.lods),
        ]
    }
}
