//! interim stub
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Texture = 0,
    Mesh = 1,
    MaterialTable = 2,
    RawFile = 5,
    Animation = 6,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    pub hash: u64,
    pub kind: EntryKind,
    pub srgb: bool,
    pub path: String,
}
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    pub entries: Vec<ManifestEntry>,
}
#[derive(Debug, thiserror::Error)]
pub enum HManError {
    #[error("{0}")]
    Collision(String),
}
impl Manifest {
    pub fn from_entries(entries: Vec<ManifestEntry>) -> Result<Manifest, HManError> {
        Ok(Manifest { entries })
    }
}
pub fn write(_m: &Manifest) -> Vec<u8> {
    Vec::new()
}
pub fn validate(_bytes: &[u8]) -> Vec<super::Problem> {
    Vec::new()
}
pub fn id_for_path(path: &str) -> u64 {
    super::hash::fnv1a64(path)
}
