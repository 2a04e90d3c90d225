//! Every rule of the `.hpack` v2 contract that the file shows, as a list of problems.

use std::collections::BTreeMap;

use super::{align_up, case_fold, check_path, kind_name, parse, PackKind, Parsed, RawEntry, ALIGN};
use crate::Problem;

/// Checks `bytes` against the `.hpack` v2 contract. An empty list means the file is valid
/// (and [`super::read`] opens it). A file that ends right after its last payload, without
/// the padding after it, is valid: the original assetc writes it so, and a reader loses
/// nothing.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let parsed = match parse(bytes) {
        Ok(p) => p,
        Err(e) => return vec![Problem::from_error(e.offset(), &e)],
    };
    let mut problems = Vec::new();
    if parsed.flags != 0 {
        problems.push(Problem::at(
            12,
            format!("flags are {:#x}, must be 0", parsed.flags),
        ));
    }
    entry_rules(&parsed, bytes.len() as u64, &mut problems);
    case_clashes(&parsed, &mut problems);
    payload_layout(&parsed, bytes, &mut problems);
    problems
}

/// `entry 3 "a/b.hmesh"`, for messages.
fn describe(index: usize, e: &RawEntry) -> String {
    format!("entry {index} \"{}\"", String::from_utf8_lossy(e.path))
}

/// The rules each entry keeps on its own or with its predecessor.
fn entry_rules(parsed: &Parsed, len: u64, problems: &mut Vec<Problem>) {
    let mut previous: Option<&[u8]> = None;
    for (i, e) in parsed.entries.iter().enumerate() {
        let name = describe(i, e);
        if let Err(fault) = check_path(e.path) {
            problems.push(Problem::at(e.path_at(), format!("{name}: {fault}")));
        }
        match previous {
            Some(p) if p == e.path => problems.push(Problem::at(
                e.path_at(),
                format!("{name}: path is listed twice"),
            )),
            Some(p) if p > e.path => problems.push(Problem::at(
                e.path_at(),
                format!(
                    "{name}: path sorts before the previous \"{}\" (the table is sorted by path bytes)",
                    String::from_utf8_lossy(p)
                ),
            )),
            _ => {}
        }
        previous = Some(e.path);
        let expected = PackKind::of_path(&String::from_utf8_lossy(e.path));
        if e.kind != expected as u8 {
            problems.push(Problem::at(
                e.at + 16,
                format!(
                    "{name}: kind {} ({}) disagrees with the extension, which gives {} ({})",
                    e.kind,
                    kind_name(e.kind),
                    expected as u8,
                    expected.name()
                ),
            ));
        }
        if e.offset % ALIGN != 0 {
            problems.push(Problem::at(
                e.at,
                format!(
                    "{name}: payload offset {} is not a multiple of {ALIGN}",
                    e.offset
                ),
            ));
        }
        if e.end().is_none_or(|end| end > len) {
            problems.push(Problem::at(
                e.at,
                format!(
                    "{name}: payload of {} bytes at {} runs past the end of the file ({len} bytes)",
                    e.size, e.offset
                ),
            ));
        }
    }
}

/// Paths equal up to case: extracted on a case-insensitive file system, the later one
/// overwrites the earlier.
fn case_clashes(parsed: &Parsed, problems: &mut Vec<Problem>) {
    let mut seen: BTreeMap<String, (usize, &[u8])> = BTreeMap::new();
    for (i, e) in parsed.entries.iter().enumerate() {
        let Ok(path) = std::str::from_utf8(e.path) else {
            continue;
        };
        match seen.get(&case_fold(path)) {
            // Exact repeats are reported as duplicates.
            Some(&(_, first)) if first == e.path => {}
            Some(&(j, first)) => problems.push(Problem::at(
                e.path_at(),
                format!(
                    "{}: differs only in case from entry {j} \"{}\"; they would overwrite each other on a case-insensitive file system",
                    describe(i, e),
                    String::from_utf8_lossy(first)
                ),
            )),
            None => {
                seen.insert(case_fold(path), (i, e.path));
            }
        }
    }
}

/// Payloads in file order: none inside the header or table, none overlapping another,
/// the bytes between them zero and no more than the alignment needs.
fn payload_layout(parsed: &Parsed, bytes: &[u8], problems: &mut Vec<Problem>) {
    let len = bytes.len() as u64;
    // Entries past the end are reported already; empty ones occupy no bytes.
    let mut placed: Vec<(u64, u64, usize)> = parsed
        .entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((e.offset, e.end().filter(|&end| end <= len)?, i)))
        .filter(|&(start, end, _)| end > start)
        .collect();
    placed.sort_unstable();
    let mut cursor = parsed.toc_end;
    // The entry whose payload ends at `cursor`, if any.
    let mut owner: Option<usize> = None;
    for (start, end, i) in placed {
        let e = &parsed.entries[i];
        if start < cursor {
            let with = match owner {
                None => format!("the header and table, which end at byte {cursor}"),
                Some(j) => format!("the payload of {}", describe(j, &parsed.entries[j])),
            };
            problems.push(Problem::at(
                start,
                format!(
                    "{}: payload [{start}, {end}) overlaps {with}",
                    describe(i, e)
                ),
            ));
        } else {
            gap(bytes, cursor, start, problems);
        }
        if end > cursor {
            cursor = end;
            owner = Some(i);
        }
    }
    gap(bytes, cursor, len, problems);
}

/// The bytes `[from, to)` between two payloads (or after the last): zero, and fewer than
/// the step to the next aligned offset.
fn gap(bytes: &[u8], from: u64, to: u64, problems: &mut Vec<Problem>) {
    let region = usize::try_from(from)
        .ok()
        .zip(usize::try_from(to).ok())
        .and_then(|(f, t)| bytes.get(f..t))
        .unwrap_or(&[]);
    if let Some(k) = region.iter().position(|&b| b != 0) {
        problems.push(Problem::at(
            from + k as u64,
            format!("padding byte is {:#04x}, must be 0", region[k]),
        ));
    }
    let padded = align_up(from);
    if to > padded {
        problems.push(Problem::at(
            padded,
            format!(
                "{} bytes at {padded}..{to} belong to no entry (payloads follow each other, padded only to {ALIGN} bytes)",
                to - padded
            ),
        ));
    }
}
