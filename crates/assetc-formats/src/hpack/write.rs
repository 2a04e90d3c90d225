//! The `.hpack` writer: header, sorted table, aligned payloads.

use std::collections::BTreeMap;

use super::{
    align_up, case_fold, check_path, HPackEntry, HPackError, PackKind, ALIGN, HEADER_SIZE, MAGIC,
    TOC_ENTRY_FIXED_SIZE, VERSION,
};
use crate::bytes::WriteLe;

/// Bundles `entries` into `.hpack` bytes. The table is sorted by path bytes whatever the
/// order given, so the same files give the same bytes. Refuses anything [`super::validate`]
/// would report: a bad path, a path given twice or twice up to case, a kind that is not
/// its extension's.
pub fn write(entries: &[HPackEntry]) -> Result<Vec<u8>, HPackError> {
    let count = u32::try_from(entries.len()).map_err(|_| HPackError::TooManyEntries {
        count: entries.len(),
    })?;
    let mut sorted: Vec<&HPackEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    check_entries(&sorted)?;

    let toc_bytes: u64 = sorted
        .iter()
        .map(|e| (TOC_ENTRY_FIXED_SIZE + e.path.len()) as u64)
        .sum();
    let mut offsets = Vec::with_capacity(sorted.len());
    let mut cursor = align_up(HEADER_SIZE as u64 + toc_bytes);
    for e in &sorted {
        offsets.push(cursor);
        cursor = align_up(cursor + e.data.len() as u64);
    }
    // No payload, no padding: the file is the header and its (empty) table.
    let total = if sorted.is_empty() {
        HEADER_SIZE as u64
    } else {
        cursor
    };

    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(count);
    out.put_u32(0);
    out.put_u64(toc_bytes);
    for (e, &offset) in sorted.iter().zip(&offsets) {
        out.put_u64(offset);
        out.put_u64(e.data.len() as u64);
        out.put_u8(e.kind);
        // check_entries refused longer paths.
        out.put_u16(e.path.len() as u16);
        out.extend_from_slice(e.path.as_bytes());
    }
    for e in &sorted {
        out.pad_to(ALIGN as usize);
        out.extend_from_slice(&e.data);
    }
    if !sorted.is_empty() {
        out.pad_to(ALIGN as usize);
    }
    debug_assert_eq!(out.len() as u64, total);
    Ok(out)
}

/// The writer's side of the validator's rules, on entries sorted by path.
fn check_entries(sorted: &[&HPackEntry]) -> Result<(), HPackError> {
    let mut folded: BTreeMap<String, &str> = BTreeMap::new();
    for (i, e) in sorted.iter().enumerate() {
        check_path(e.path.as_bytes()).map_err(|fault| HPackError::InvalidPath {
            path: e.path.clone(),
            fault,
        })?;
        let expected = PackKind::of_path(&e.path) as u8;
        if e.kind != expected {
            return Err(HPackError::KindMismatch {
                path: e.path.clone(),
                kind: e.kind,
                expected,
            });
        }
        if i > 0 && sorted[i - 1].path == e.path {
            return Err(HPackError::DuplicatePath {
                path: e.path.clone(),
            });
        }
        if let Some(first) = folded.insert(case_fold(&e.path), &e.path) {
            return Err(HPackError::CaseClash {
                first: first.to_owned(),
                second: e.path.clone(),
            });
        }
    }
    Ok(())
}
