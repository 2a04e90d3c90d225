//! What a format's descriptor tells about one file: the document `assetc inspect` shows
//! and the statistics `assetc info` adds up. Plain data; printing it (aligned text or
//! JSON) is the command line's.

/// What `inspect` shows of a file.
#[derive(Debug, Clone, PartialEq)]
pub enum Description {
    /// Facts and tables.
    Document(Document),
    /// Text shown as it is: formats whose dump follows another tool's layout (Qt's
    /// `meshdebug`) or that have no table yet.
    Text(String),
}

/// Key/value facts, tables and warnings, in the order they are shown.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub title: String,
    /// Label and value, in order.
    pub facts: Vec<(String, String)>,
    pub tables: Vec<Table>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Document {
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Default::default()
        }
    }
    pub fn fact(&mut self, label: &str, value: impl ToString) {
        self.facts.push((label.to_string(), value.to_string()));
    }
    pub fn table(&mut self, name: &str, columns: &[&str]) -> &mut Table {
        self.tables.push(Table {
            name: name.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        });
        self.tables.last_mut().expect("just pushed")
    }
    /// The value of the first fact labelled `label`.
    pub fn fact_value(&self, label: &str) -> Option<&str> {
        self.facts
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| v.as_str())
    }
}

impl Table {
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

/// The numbers `info` shows of one file and adds up over a tree; a field is `None` (or
/// empty) where it does not apply to the format.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub vertices: Option<u64>,
    pub triangles: Option<u64>,
    pub meshlets: Option<u64>,
    pub submeshes: Option<u64>,
    /// Triangles of each reduced level, summed over submeshes (0 = stalled everywhere).
    pub lod_triangles: Vec<u64>,
    /// LOD levels (per submesh) with no triangles.
    pub empty_lod_levels: u64,
    pub cluster_lod: Option<ClodSummary>,
    pub materials: Option<u64>,
    pub joints: Option<u64>,
    pub clips: Option<u64>,
    /// Texture: width x height (x depth, or "cube"), format name, mip levels.
    pub texture: Option<String>,
    pub faces: Option<u32>,
    /// pixelDepth of a 3D texture; `None` for 2D textures and cubes.
    pub depth: Option<u32>,
    /// Glyphs, kerning pairs, SDF or MSDF and the atlas size.
    pub font: Option<String>,
    /// Texture: estimated GPU memory, all mips.
    pub gpu_bytes: Option<u64>,
    /// SPIR-V entry points as `<execution model> <name>`.
    pub entry_points: Vec<String>,
    pub spirv_version: Option<String>,
    pub spirv_words: Option<u64>,
    /// Sound: rate, channels, sample format, duration.
    pub audio: Option<String>,
}

/// A byte count for people: `512 B`, `1.5 KiB`, `3.2 MiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// An id as inspect shows it: 16 hex digits.
pub(crate) fn hex(id: u64) -> String {
    format!("{id:016x}")
}

/// What a renderer gets from a mesh's cluster LOD chunks, in counts and bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClodSummary {
    /// Levels of the deepest submesh (level 0 is the source geometry).
    pub levels: u32,
    pub clusters: u64,
    pub groups: u64,
    pub nodes: u64,
    /// Triangles stored at each level, summed over submeshes; index 0 is the source's.
    pub triangles_per_level: Vec<u64>,
    /// Bytes of the tables (CLSM, CLUS, CLBN, CLER, CLGR, CLND).
    pub table_bytes: u64,
    /// Bytes of the topology as stored (CLVR + CLTR, or CLCO + CLCD).
    pub topology_bytes: u64,
    /// Whether the topology is stored with the meshlet codec.
    pub encoded: bool,
}
