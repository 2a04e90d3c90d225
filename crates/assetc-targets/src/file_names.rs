//! The length rule of every file and folder name a build writes, and the one way a name
//! too long for it is shortened: stated once here, used by the targets (Qt's mesh and map
//! names) and by the driver (runtime refs, output paths).

/// The longest file or folder name a build writes (bytes of UTF-8). File systems stop at
/// 255 (ext4, XFS, APFS; NTFS counts UTF-16 units, never more than the UTF-8 bytes), and
/// every output is first written to a temporary sibling `.<name>.<pid>.tmp`
/// (the driver's `write_atomic`), 16 bytes longer at most (a pid has at most 10 digits).
pub const MAX_NAME_BYTES: usize = 255 - 16;

/// Length of what [`shorten_name`] appends: `-` and 16 hex digits.
const HASH_TAIL: usize = 17;

/// `name` when it has at most `max` bytes; else its longest prefix (cut at a character
/// boundary) that leaves room for `-<16 hex digits>`, the FNV-1a 64 of the whole name, so
/// that two long names sharing a prefix stay apart and the same name always gives the
/// same result. `max` is above [`HASH_TAIL`] in every use.
pub fn shorten_name(name: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if name.len() <= max {
        return name.into();
    }
    let mut cut = max.saturating_sub(HASH_TAIL);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let hash = crate::formats::hash::fnv1a64_raw(name.as_bytes());
    format!("{}-{hash:016x}", &name[..cut]).into()
}

/// `stem + suffix` as one file name of at most [`MAX_NAME_BYTES`]: the stem is shortened
/// by [`shorten_name`] and the suffix (an extension, `_mesh.mesh`) kept, unless the
/// suffix alone leaves no room, when the whole name is shortened.
pub fn fit_file_name(stem: &str, suffix: &str) -> String {
    if stem.len() + suffix.len() <= MAX_NAME_BYTES {
        return format!("{stem}{suffix}");
    }
    match MAX_NAME_BYTES.checked_sub(suffix.len()) {
        Some(room) if room > HASH_TAIL => format!("{}{suffix}", shorten_name(stem, room)),
        _ => shorten_name(&format!("{stem}{suffix}"), MAX_NAME_BYTES).into_owned(),
    }
}

/// A runtime ref whose every component still fits a file name after lower-casing (which
/// can lengthen UTF-8) and, for the last, after an extension of `extension_bytes`: a
/// longer component is shortened by [`shorten_name`]. Refs of names that fit are
/// returned unchanged (docs/formats.md, "Long names").
pub fn fit_ref(reference: &str, extension_bytes: usize) -> String {
    let last_max = MAX_NAME_BYTES - extension_bytes;
    let count = reference.split('/').count();
    if reference.split('/').enumerate().all(|(i, c)| {
        c.len()
            <= if i + 1 == count {
                last_max
            } else {
                MAX_NAME_BYTES
            }
    }) {
        return reference.to_string();
    }
    reference
        .split('/')
        .enumerate()
        .map(|(i, c)| {
            shorten_name(
                c,
                if i + 1 == count {
                    last_max
                } else {
                    MAX_NAME_BYTES
                },
            )
        })
        .collect::<Vec<_>>()
        .join("/")
}
