//! The one wording of "some LOD levels hold nothing simpler", shared by `inspect` and
//! `info` so that both state the same fact in the same words. A mesh too small (or too
//! constrained) to simplify is normal, so this is a fact of the file, never a warning.

/// The label of the fact.
pub const LABEL: &str = "LOD levels not reduced";

/// `empty` of the `total` LOD levels (submeshes x levels) are stored empty.
pub fn value(empty: u64, total: u64) -> String {
    format!(
        "{empty} of {total} (submeshes x levels): too few triangles to simplify, or borders \
         the simplifier keeps; each is stored empty, which means \"reuse the previous level\""
    )
}
