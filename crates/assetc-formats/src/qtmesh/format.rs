//! The Qt `.mesh` descriptor: `inspect` shows the `meshdebug`-style dump.

use super::read::FOOTER_SIZE;
use super::{describe as dump, read, validate, CONTAINER_FILE_ID};
use crate::describe::{Description, Stats};
use crate::format::{Format, Magic, MagicAt, ReadError};
use crate::FormatKind;

const FILE_ID_BYTES: [u8; 4] = CONTAINER_FILE_ID.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::QtMesh,
    name: "Qt .mesh",
    extensions: &["mesh"],
    // The container's id is in its footer; the file starts with the first mesh.
    magic: &[&[Magic {
        at: MagicAt::End(FOOTER_SIZE),
        bytes: &FILE_ID_BYTES,
    }]],
    // A target's own model format; the manifest lists `.hmesh` files only.
    entry_kinds: &[],
    validate,
    describe,
    stats: |_| Ok(Stats::default()),
    tally: None,
};

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    Ok(Description::Text(dump(&read(bytes)?)))
}
