//! The `.hanim` descriptor: clips as `inspect` and `info` show them.

use super::MAGIC;
use crate::describe::{Description, Stats};
use crate::format::{Format, Magic, ReadError};
use crate::hman::EntryKind;
use crate::{FormatKind, Problem};
use std::fmt::Write;

const MAGIC_BYTES: [u8; 4] = MAGIC.to_le_bytes();

pub static FORMAT: Format = Format {
    kind: FormatKind::HAnim,
    name: ".hanim",
    extensions: &["hanim"],
    magic: &[&[Magic::start(&MAGIC_BYTES)]],
    entry_kinds: &[EntryKind::Animation],
    validate,
    describe,
    stats,
    tally: None,
};

/// On its own a file cannot say how many joints the skeleton beside it has.
fn validate(bytes: &[u8]) -> Vec<Problem> {
    super::validate(bytes, None)
}

fn describe(bytes: &[u8]) -> Result<Description, ReadError> {
    let a = super::read(bytes)?;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, ".hanim: {} clips", a.clips.len());
    for c in &a.clips {
        let keys: usize = c.channels.iter().map(|ch| ch.keys.len()).sum();
        let _ = writeln!(
            w,
            "clip {:?}: {:.3} s, {} channels, {keys} keys",
            c.name,
            c.duration,
            c.channels.len()
        );
        for ch in &c.channels {
            let _ = writeln!(
                w,
                "  joint {} {:?} {:?}: {} keys",
                ch.joint,
                ch.path,
                ch.interp,
                ch.keys.len()
            );
        }
    }
    Ok(Description::Text(out))
}

fn stats(bytes: &[u8]) -> Result<Stats, ReadError> {
    let anim = super::read(bytes)?;
    // The joints its clips animate (a clip names joints by index into the skeleton of the
    // `.hmesh` beside it).
    let animated: std::collections::BTreeSet<u32> = anim
        .clips
        .iter()
        .flat_map(|c| c.channels.iter().map(|ch| ch.joint))
        .collect();
    Ok(Stats {
        clips: Some(anim.clips.len() as u64),
        joints: Some(animated.len() as u64),
        ..Stats::default()
    })
}
