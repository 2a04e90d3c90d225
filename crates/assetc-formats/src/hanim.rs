//! `.hanim` v1: animation clips for the skeleton (SKEL) of the companion `.hmesh`.
//!
//! Hand-written because the container is our own (layout in `shared/spec/formats.md`).
//! [`read`] checks the structure (magic, version, field codes, sizes exact to the end of
//! the file); [`validate`] checks the structure and every semantic rule (key times,
//! durations, joint indices). [`write`] refuses data that [`validate`] would reject, so a
//! written file is always valid apart from joint indices, which only the caller's
//! skeleton can judge.

mod format;
pub use format::FORMAT;

use super::bytes::{OutOfBounds, Reader, WriteLe};
use super::Problem;
use thiserror::Error;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HANM");
pub const VERSION: u32 = 1;
/// nameLen u16 + duration f32 + channelCount u32, without the name bytes.
const CLIP_FIXED_SIZE: usize = 10;
/// joint u32 + path/interp/components/pad u8s + keyCount u32.
const CHANNEL_FIXED_SIZE: usize = 12;

/// Which joint property a channel drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnimPath {
    Translation,
    Rotation,
    Scale,
}

impl AnimPath {
    pub fn code(self) -> u8 {
        match self {
            Self::Translation => 0,
            Self::Rotation => 1,
            Self::Scale => 2,
        }
    }
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::Translation),
            1 => Some(Self::Rotation),
            2 => Some(Self::Scale),
            _ => None,
        }
    }
    /// Values per key: 3, or 4 for a rotation quaternion (xyzw).
    pub fn components(self) -> usize {
        match self {
            Self::Rotation => 4,
            Self::Translation | Self::Scale => 3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnimInterp {
    Step,
    Linear,
}

impl AnimInterp {
    pub fn code(self) -> u8 {
        match self {
            Self::Step => 0,
            Self::Linear => 1,
        }
    }
    pub fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::Step),
            1 => Some(Self::Linear),
            _ => None,
        }
    }
}

/// One key. For 3-component paths only `value[..3]` is stored; `value[3]` is written
/// nowhere and read back as 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    pub time: f32,
    pub value: [f32; 4],
}

/// One channel. The stored `components` field follows from `path`, so a struct cannot
/// disagree with itself.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimChannel {
    /// Index into the companion SKEL.
    pub joint: u32,
    pub path: AnimPath,
    pub interp: AnimInterp,
    pub keys: Vec<Key>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    /// Seconds: the largest key time of the clip (0 for a clip without keys).
    pub duration: f32,
    pub channels: Vec<AnimChannel>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct HAnim {
    pub clips: Vec<Clip>,
}

impl Clip {
    /// The duration the format requires for these channels.
    pub fn largest_key_time(&self) -> f32 {
        self.channels
            .iter()
            .flat_map(|c| c.keys.last())
            .map(|k| k.time)
            .fold(0.0, f32::max)
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum HAnimError {
    #[error("truncated .hanim: {0}")]
    Truncated(#[from] OutOfBounds),
    #[error("not a .hanim file (magic {0:#010x})")]
    BadMagic(u32),
    #[error("unsupported .hanim version {0} (expected 1)")]
    BadVersion(u32),
    #[error("at byte {offset}: {message}")]
    Malformed { offset: u64, message: String },
    #[error("clip {clip} ({name:?}): {message}")]
    InvalidClip {
        clip: usize,
        name: String,
        message: String,
    },
}

fn malformed(offset: usize, message: impl Into<String>) -> HAnimError {
    HAnimError::Malformed {
        offset: offset as u64,
        message: message.into(),
    }
}

/// Serialises `anim`. Fails on data the format cannot hold or that breaks its rules:
/// a name longer than 65535 bytes, counts beyond u32, a channel without keys, key times
/// that are not finite and strictly increasing, non-finite values, or a duration other
/// than the largest key time.
pub fn write(anim: &HAnim) -> Result<Vec<u8>, HAnimError> {
    let clip_count = u32::try_from(anim.clips.len()).map_err(|_| invalid_count("clips"))?;
    let mut out = Vec::new();
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    out.put_u32(clip_count);
    out.put_u32(0);
    for (ci, clip) in anim.clips.iter().enumerate() {
        let bad = |message: String| HAnimError::InvalidClip {
            clip: ci,
            name: clip.name.clone(),
            message,
        };
        let name_len = u16::try_from(clip.name.len())
            .map_err(|_| bad(format!("name is {} bytes, at most 65535", clip.name.len())))?;
        let channel_count =
            u32::try_from(clip.channels.len()).map_err(|_| bad("too many channels".into()))?;
        if let Some(message) = clip_rule_violation(clip) {
            return Err(bad(message));
        }
        out.put_u16(name_len);
        out.extend_from_slice(clip.name.as_bytes());
        out.put_f32(clip.duration);
        out.put_u32(channel_count);
        for ch in &clip.channels {
            let key_count =
                u32::try_from(ch.keys.len()).map_err(|_| bad("too many keys".into()))?;
            out.put_u32(ch.joint);
            out.put_u8(ch.path.code());
            out.put_u8(ch.interp.code());
            out.put_u8(ch.path.components() as u8);
            out.put_u8(0);
            out.put_u32(key_count);
            for key in &ch.keys {
                out.put_f32(key.time);
                for &v in &key.value[..ch.path.components()] {
                    out.put_f32(v);
                }
            }
        }
    }
    Ok(out)
}

fn invalid_count(what: &str) -> HAnimError {
    HAnimError::Malformed {
        offset: 0,
        message: format!("too many {what} for a u32 count"),
    }
}

/// The first rule of the format a clip breaks (joint indices aside), if any.
fn clip_rule_violation(clip: &Clip) -> Option<String> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, ch) in clip.channels.iter().enumerate() {
        if let Some(m) = channel_rule_violation(ch) {
            return Some(format!("channel {i}: {m}"));
        }
        if !seen.insert((ch.joint, ch.path)) {
            return Some(format!(
                "channel {i}: a second {:?} channel for joint {}",
                ch.path, ch.joint
            ));
        }
    }
    let expected = clip.largest_key_time();
    if clip.duration.to_bits() != expected.to_bits() {
        return Some(format!(
            "duration {} is not the largest key time {expected}",
            clip.duration
        ));
    }
    None
}

fn channel_rule_violation(ch: &AnimChannel) -> Option<String> {
    if ch.keys.is_empty() {
        return Some("no keys".into());
    }
    let mut prev: Option<f32> = None;
    for (k, key) in ch.keys.iter().enumerate() {
        if !key.time.is_finite() {
            return Some(format!("key {k}: time {} is not finite", key.time));
        }
        if let Some(p) = prev {
            if key.time <= p {
                return Some(format!(
                    "key {k}: time {} does not increase (previous {p})",
                    key.time
                ));
            }
        }
        prev = Some(key.time);
        if let Some(v) = key.value[..ch.path.components()]
            .iter()
            .find(|v| !v.is_finite())
        {
            return Some(format!("key {k}: value {v} is not finite"));
        }
    }
    None
}

/// Parsed file plus where each clip and channel starts, for the validator's messages.
struct Parsed {
    anim: HAnim,
    clip_offsets: Vec<usize>,
    channel_offsets: Vec<Vec<usize>>,
}

fn parse(bytes: &[u8]) -> Result<Parsed, HAnimError> {
    let mut r = Reader::new(bytes);
    let magic = r.u32("magic")?;
    if magic != MAGIC {
        return Err(HAnimError::BadMagic(magic));
    }
    let version = r.u32("version")?;
    if version != VERSION {
        return Err(HAnimError::BadVersion(version));
    }
    let clip_count = r.u32("clipCount")? as usize;
    let reserved = r.u32("reserved")?;
    if reserved != 0 {
        return Err(malformed(
            12,
            format!("reserved field is {reserved}, not 0"),
        ));
    }
    // Every clip takes at least its fixed fields, so the count is bounded by the data
    // left; checking first keeps a forged count from reserving gigabytes.
    if clip_count > r.remaining() / CLIP_FIXED_SIZE {
        return Err(malformed(
            8,
            format!(
                "clipCount {clip_count} cannot fit in the {} bytes left",
                r.remaining()
            ),
        ));
    }
    let mut parsed = Parsed {
        anim: HAnim {
            clips: Vec::with_capacity(clip_count),
        },
        clip_offsets: Vec::with_capacity(clip_count),
        channel_offsets: Vec::with_capacity(clip_count),
    };
    for _ in 0..clip_count {
        let clip_offset = r.pos();
        let name_len = r.u16("clip nameLen")? as usize;
        let name_bytes = r.bytes(name_len, "clip name")?;
        let name = std::str::from_utf8(name_bytes)
            .map_err(|e| malformed(clip_offset + 2, format!("clip name is not UTF-8: {e}")))?
            .to_owned();
        let duration = r.f32("clip duration")?;
        let channel_count_offset = r.pos();
        let channel_count = r.u32("clip channelCount")? as usize;
        if channel_count > r.remaining() / CHANNEL_FIXED_SIZE {
            return Err(malformed(
                channel_count_offset,
                format!(
                    "channelCount {channel_count} cannot fit in the {} bytes left",
                    r.remaining()
                ),
            ));
        }
        let mut channels = Vec::with_capacity(channel_count);
        let mut offsets = Vec::with_capacity(channel_count);
        for _ in 0..channel_count {
            let at = r.pos();
            offsets.push(at);
            channels.push(parse_channel(&mut r, at)?);
        }
        parsed.anim.clips.push(Clip {
            name,
            duration,
            channels,
        });
        parsed.clip_offsets.push(clip_offset);
        parsed.channel_offsets.push(offsets);
    }
    if r.remaining() != 0 {
        return Err(malformed(
            r.pos(),
            format!("{} bytes after the last clip", r.remaining()),
        ));
    }
    Ok(parsed)
}

fn parse_channel(r: &mut Reader<'_>, at: usize) -> Result<AnimChannel, HAnimError> {
    let joint = r.u32("channel joint")?;
    let path_code = r.u8("channel path")?;
    let path = AnimPath::from_code(path_code)
        .ok_or_else(|| malformed(at + 4, format!("unknown path code {path_code}")))?;
    let interp_code = r.u8("channel interp")?;
    let interp = AnimInterp::from_code(interp_code)
        .ok_or_else(|| malformed(at + 5, format!("unknown interpolation code {interp_code}")))?;
    let components = r.u8("channel components")? as usize;
    if components != path.components() {
        return Err(malformed(
            at + 6,
            format!(
                "{components} components for a {path:?} channel (expected {})",
                path.components()
            ),
        ));
    }
    let pad = r.u8("channel pad")?;
    if pad != 0 {
        return Err(malformed(at + 7, format!("pad byte is {pad}, not 0")));
    }
    let key_count = r.u32("channel keyCount")? as usize;
    let key_size = 4 * (1 + components);
    if key_count > r.remaining() / key_size {
        return Err(malformed(
            at + 8,
            format!(
                "keyCount {key_count} needs {} bytes but {} remain",
                key_count as u128 * key_size as u128,
                r.remaining()
            ),
        ));
    }
    let mut keys = Vec::with_capacity(key_count);
    for _ in 0..key_count {
        let time = r.f32("key time")?;
        let mut value = [0.0f32; 4];
        for v in value.iter_mut().take(components) {
            *v = r.f32("key value")?;
        }
        keys.push(Key { time, value });
    }
    Ok(AnimChannel {
        joint,
        path,
        interp,
        keys,
    })
}

/// Reads a `.hanim`, checking its structure. Key times, durations and joint indices are
/// the validator's business.
pub fn read(bytes: &[u8]) -> Result<HAnim, HAnimError> {
    parse(bytes).map(|p| p.anim)
}

/// Every rule `bytes` breaks; empty when the file is valid. `joint_count` is the SKEL
/// length of the companion `.hmesh`, when known.
pub fn validate(bytes: &[u8], joint_count: Option<u32>) -> Vec<Problem> {
    let parsed = match parse(bytes) {
        Ok(p) => p,
        Err(HAnimError::Malformed { offset, message }) => {
            return vec![Problem::at(offset, message)]
        }
        Err(HAnimError::Truncated(e)) => {
            return vec![Problem::at(e.offset as u64, format!("truncated: {e}"))]
        }
        Err(e) => return vec![Problem::at(0, e.to_string())],
    };
    let mut problems = Vec::new();
    for (ci, clip) in parsed.anim.clips.iter().enumerate() {
        let clip_at = parsed.clip_offsets[ci] as u64;
        let mut seen = std::collections::BTreeSet::new();
        for (hi, ch) in clip.channels.iter().enumerate() {
            let at = parsed.channel_offsets[ci][hi] as u64;
            let prefix = format!("clip {ci} ({:?}) channel {hi}", clip.name);
            if let Some(n) = joint_count {
                if ch.joint >= n {
                    problems.push(Problem::at(
                        at,
                        format!("{prefix}: joint {} but the skeleton has {n}", ch.joint),
                    ));
                }
            }
            if !seen.insert((ch.joint, ch.path)) {
                problems.push(Problem::at(
                    at,
                    format!(
                        "{prefix}: a second {:?} channel for joint {}",
                        ch.path, ch.joint
                    ),
                ));
            }
            if let Some(m) = channel_rule_violation(ch) {
                problems.push(Problem::at(at, format!("{prefix}: {m}")));
            }
        }
        let expected = clip.largest_key_time();
        if clip.duration.to_bits() != expected.to_bits() {
            problems.push(Problem::at(
                clip_at,
                format!(
                    "clip {ci} ({:?}): duration {} is not the largest key time {expected}",
                    clip.name, clip.duration
                ),
            ));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key(time: f32, v: [f32; 4]) -> Key {
        Key { time, value: v }
    }

    fn sample() -> HAnim {
        HAnim {
            clips: vec![
                Clip {
                    name: "Walk".into(),
                    duration: 2.0,
                    channels: vec![
                        AnimChannel {
                            joint: 1,
                            path: AnimPath::Rotation,
                            interp: AnimInterp::Linear,
                            keys: vec![
                                key(0.0, [0.0, 0.0, 0.0, 1.0]),
                                key(2.0, [0.0, 1.0, 0.0, 0.0]),
                            ],
                        },
                        AnimChannel {
                            joint: 0,
                            path: AnimPath::Translation,
                            interp: AnimInterp::Step,
                            keys: vec![key(0.5, [1.0, 2.0, 3.0, 0.0])],
                        },
                    ],
                },
                Clip {
                    name: String::new(),
                    duration: 0.0,
                    channels: vec![],
                },
            ],
        }
    }

    #[test]
    fn layout_matches_the_contract() {
        let bytes = write(&sample()).unwrap();
        assert_eq!(&bytes[0..4], b"HANM");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
        // Clip 0 header: nameLen 4, "Walk", duration 2.0, 2 channels.
        assert_eq!(&bytes[16..18], &4u16.to_le_bytes());
        assert_eq!(&bytes[18..22], b"Walk");
        assert_eq!(&bytes[22..26], &2.0f32.to_le_bytes());
        assert_eq!(&bytes[26..30], &2u32.to_le_bytes());
        // Channel 0: joint 1, path 1, interp 1, components 4, pad 0, 2 keys of 20 bytes.
        assert_eq!(&bytes[30..38], &[1, 0, 0, 0, 1, 1, 4, 0]);
        assert_eq!(&bytes[38..42], &2u32.to_le_bytes());
        let ch1 = 42 + 2 * 20;
        assert_eq!(&bytes[ch1..ch1 + 8], &[0, 0, 0, 0, 0, 0, 3, 0]);
        let clip1 = ch1 + 12 + 16;
        // Empty clip: nameLen 0, duration 0, 0 channels, and nothing after it.
        assert_eq!(bytes.len(), clip1 + 10);
        assert_eq!(read(&bytes).unwrap(), sample());
        assert_eq!(validate(&bytes, Some(2)), vec![]);
        assert_eq!(validate(&bytes, Some(1)).len(), 1, "joint 1 of 1");
    }

    #[test]
    fn writer_refuses_rule_breaking_clips() {
        let mut a = sample();
        a.clips[0].duration = 1.0;
        assert!(matches!(
            write(&a),
            Err(HAnimError::InvalidClip { clip: 0, .. })
        ));
        let mut a = sample();
        a.clips[0].channels[0].keys[1].time = 0.0;
        assert!(write(&a).is_err());
        let mut a = sample();
        a.clips[0].channels[1].keys[0].value[2] = f32::NAN;
        assert!(write(&a).is_err());
        let mut a = sample();
        a.clips[0].channels[1].keys.clear();
        a.clips[0].channels[1]
            .keys
            .push(key(f32::INFINITY, [0.0; 4]));
        assert!(write(&a).is_err());
        let mut a = sample();
        a.clips[0].channels[1].joint = 1;
        a.clips[0].channels[1].path = AnimPath::Rotation;
        assert!(write(&a).is_err(), "duplicate target");
        let mut a = sample();
        a.clips[0].channels[1].keys.clear();
        assert!(write(&a).is_err());
    }

    /// Writes raw bytes the writer would refuse, to check that the validator sees them.
    fn patch_f32(bytes: &mut [u8], at: usize, v: f32) {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn validator_reports_semantic_problems() {
        let good = write(&sample()).unwrap();
        // Second key time of channel 0 set equal to the first.
        let mut b = good.clone();
        patch_f32(&mut b, 42 + 20, 0.0);
        let p = validate(&b, None);
        assert!(
            p.iter().any(|p| p.message.contains("does not increase")),
            "{p:?}"
        );
        // Duration no longer the largest key time.
        let mut b = good.clone();
        patch_f32(&mut b, 22, 3.0);
        let p = validate(&b, None);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].offset, Some(16));
        // NaN value.
        let mut b = good.clone();
        patch_f32(&mut b, 42 + 4, f32::NAN);
        assert_eq!(validate(&b, None).len(), 1);
        // Trailing byte.
        let mut b = good.clone();
        b.push(0);
        assert!(read(&b).is_err());
        assert_eq!(validate(&b, None).len(), 1);
        // Wrong components for the path.
        let mut b = good;
        b[36] = 3;
        assert!(matches!(
            read(&b),
            Err(HAnimError::Malformed { offset: 36, .. })
        ));
    }

    #[test]
    fn forged_counts_fail_before_allocating() {
        let mut b = write(&sample()).unwrap();
        b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read(&b),
            Err(HAnimError::Malformed { offset: 8, .. })
        ));
        let mut b = write(&sample()).unwrap();
        b[38..42].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read(&b),
            Err(HAnimError::Malformed { offset: 38, .. })
        ));
        let mut b = write(&sample()).unwrap();
        b[26..30].copy_from_slice(&0x4000_0000u32.to_le_bytes());
        assert!(read(&b).is_err());
    }

    #[test]
    fn every_truncation_is_an_error() {
        let b = write(&sample()).unwrap();
        for len in 0..b.len() {
            assert!(read(&b[..len]).is_err(), "length {len}");
            assert!(!validate(&b[..len], None).is_empty(), "length {len}");
        }
    }

    fn arb_channel() -> impl Strategy<Value = AnimChannel> {
        (
            0u32..64,
            0u8..3,
            0u8..2,
            proptest::collection::vec(
                (0.001f32..1.0, proptest::array::uniform4(-1e3f32..1e3)),
                1..8,
            ),
        )
            .prop_map(|(joint, path, interp, steps)| {
                let path = AnimPath::from_code(path).unwrap();
                let mut t = 0.0f32;
                let keys = steps
                    .into_iter()
                    .map(|(dt, mut value)| {
                        t += dt;
                        if path.components() == 3 {
                            value[3] = 0.0;
                        }
                        Key { time: t, value }
                    })
                    .collect();
                AnimChannel {
                    joint,
                    path,
                    interp: AnimInterp::from_code(interp).unwrap(),
                    keys,
                }
            })
    }

    fn arb_anim() -> impl Strategy<Value = HAnim> {
        proptest::collection::vec(
            (
                "[a-zA-Z0-9_é ]{0,12}",
                proptest::collection::vec(arb_channel(), 0..5),
            ),
            0..4,
        )
        .prop_map(|clips| HAnim {
            clips: clips
                .into_iter()
                .map(|(name, mut channels)| {
                    let mut seen = std::collections::BTreeSet::new();
                    channels.retain(|c| seen.insert((c.joint, c.path)));
                    let mut clip = Clip {
                        name,
                        duration: 0.0,
                        channels,
                    };
                    clip.duration = clip.largest_key_time();
                    clip
                })
                .collect(),
        })
    }

    proptest! {
        #[test]
        fn round_trips(anim in arb_anim()) {
            let bytes = write(&anim).unwrap();
            prop_assert_eq!(read(&bytes).unwrap(), anim.clone());
            prop_assert_eq!(validate(&bytes, Some(64)), vec![]);
            prop_assert_eq!(write(&read(&bytes).unwrap()).unwrap(), bytes);
        }

        #[test]
        fn corruption_never_panics(anim in arb_anim(), at in any::<usize>(), byte in any::<u8>(), cut in any::<usize>()) {
            let mut bytes = write(&anim).unwrap();
            let i = at % bytes.len();
            bytes[i] = byte;
            // Whatever the reader refuses, the validator must name: `check` relies on it.
            let _ = validate(&bytes, Some(3));
            if read(&bytes).is_err() {
                prop_assert!(!validate(&bytes, None).is_empty(), "byte {i} = {byte:#x}");
            }
            let cut = cut % (bytes.len() + 1);
            if read(&bytes[..cut]).is_err() {
                prop_assert!(!validate(&bytes[..cut], None).is_empty(), "cut at {cut}");
            }
        }
    }
}
