//! The compact per-bone animation stream [B20]-[B24]: tag bytes with presence bits and
//! skip counts, an encoder from dense per-frame poses, and a sampler.

use super::codec::{f8a_decode, f8a_encode, xyz_decode, xyz_encode};
use super::{Bone, BoneKind};
use thiserror::Error;

const ROTATION_BIT: u8 = 0x80;
const TRANSLATION_BIT: u8 = 0x40;
const SCALE_BIT: u8 = 0x20;
const SKIP_MASK: u8 = 0x1F;
/// Never a value [B22].
const RESERVED_WORD: u32 = 0xFFFF_FFFF;

/// One clip: `tracks[b]` animates normal bone `b` (pseudo-bones have no track).
#[derive(Debug, Clone, PartialEq)]
pub struct Animation {
    pub name: String,
    /// 1..=255.
    pub frame_count: u8,
    /// Playback rate in 0.25 Hz units, 1..=127.
    pub rate_quarter_hz: u8,
    pub looping: bool,
    pub tracks: Vec<Track>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    /// Strictly increasing frames, each key with at least one value.
    pub keys: Vec<Key>,
}

/// Values are stored as decoded: rotation I/J/K/R (x, y, z, w) as raw F8A values, not
/// normalised (the sampler normalises).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Key {
    pub frame: u8,
    pub rotation: Option<[f32; 4]>,
    pub translation: Option<[f32; 3]>,
    pub scale: Option<[f32; 3]>,
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnimError {
    #[error("key {key}: frame {frame} is not after the previous key's frame")]
    FrameOrder { key: usize, frame: u8 },
    #[error("key {key}: frame {frame} is not below the frame count {frame_count}")]
    FrameRange {
        key: usize,
        frame: usize,
        frame_count: u8,
    },
    #[error("key {key} has no value")]
    EmptyKey { key: usize },
    #[error("key {key}: the rotation is all zero")]
    ZeroRotation { key: usize },
    #[error("key {key}: {what} {value:?} cannot be encoded")]
    Unencodable {
        key: usize,
        what: &'static str,
        value: [f32; 4],
    },
    #[error("key {key}: {what} encodes to the reserved word 0xFFFFFFFF")]
    ReservedWord { key: usize, what: &'static str },
    #[error("byte {offset} of the stream: {what}")]
    Stream { offset: usize, what: String },
    #[error("{channel} has {len} frames, the clip has {frame_count}")]
    FrameCount {
        channel: &'static str,
        len: usize,
        frame_count: u8,
    },
}

fn rotation_word(q: [f32; 4]) -> u32 {
    q.iter()
        .enumerate()
        .fold(0, |w, (i, &c)| w | u32::from(f8a_encode(c)) << (8 * i))
}

fn rotation_decode(word: u32) -> [f32; 4] {
    [0, 1, 2, 3].map(|i| f8a_decode((word >> (8 * i)) as u8))
}

/// Appends the tag stream of one bone, ending with the 0x00 tag. Gaps over 31 frames are
/// bridged with pure-skip tags (31 advances the cursor by 32).
pub fn encode_track(track: &Track, frame_count: u8, out: &mut Vec<u8>) -> Result<(), AnimError> {
    let mut cursor = 0usize;
    for (key_index, key) in track.keys.iter().enumerate() {
        let frame = usize::from(key.frame);
        if frame < cursor {
            return Err(AnimError::FrameOrder {
                key: key_index,
                frame: key.frame,
            });
        }
        if frame >= usize::from(frame_count) {
            return Err(AnimError::FrameRange {
                key: key_index,
                frame,
                frame_count,
            });
        }
        let mut words = Vec::with_capacity(3);
        let mut presence = 0u8;
        if let Some(q) = key.rotation {
            let word = rotation_word(q);
            if rotation_decode(word).iter().all(|&c| c == 0.0) {
                return Err(AnimError::ZeroRotation { key: key_index });
            }
            words.push((word, "rotation"));
            presence |= ROTATION_BIT;
        }
        for (value, bit, what) in [
            (key.translation, TRANSLATION_BIT, "translation"),
            (key.scale, SCALE_BIT, "scale"),
        ] {
            if let Some(v) = value {
                let word = xyz_encode(v).ok_or(AnimError::Unencodable {
                    key: key_index,
                    what,
                    value: [v[0], v[1], v[2], 0.0],
                })?;
                words.push((word, what));
                presence |= bit;
            }
        }
        if presence == 0 {
            return Err(AnimError::EmptyKey { key: key_index });
        }
        if let Some((_, what)) = words.iter().find(|(w, _)| *w == RESERVED_WORD) {
            return Err(AnimError::ReservedWord {
                key: key_index,
                what,
            });
        }
        let mut gap = frame - cursor;
        while gap > usize::from(SKIP_MASK) {
            out.push(SKIP_MASK);
            gap -= usize::from(SKIP_MASK) + 1;
        }
        out.push(presence | gap as u8);
        for (word, _) in words {
            out.extend_from_slice(&word.to_le_bytes());
        }
        cursor = frame + 1;
    }
    out.push(0);
    Ok(())
}

/// Decodes one bone's tags from the start of `bytes`; returns the track and the bytes used
/// (including the end tag). Offsets in errors are relative to `bytes`.
pub fn decode_track(bytes: &[u8], frame_count: u8) -> Result<(Track, usize), AnimError> {
    let err = |offset: usize, what: String| AnimError::Stream { offset, what };
    let mut pos = 0usize;
    let mut cursor = 0usize;
    let mut keys = Vec::new();
    loop {
        let tag = *bytes
            .get(pos)
            .ok_or_else(|| err(pos, "stream ends before the bone's 0x00 end tag".into()))?;
        let tag_pos = pos;
        pos += 1;
        if tag == 0 {
            return Ok((Track { keys }, pos));
        }
        let frame = cursor + usize::from(tag & SKIP_MASK);
        if frame >= usize::from(frame_count) {
            return Err(err(
                tag_pos,
                format!("tag {tag:#04x} addresses frame {frame}, the clip has {frame_count}"),
            ));
        }
        cursor = frame + 1;
        if tag & !SKIP_MASK == 0 {
            continue;
        }
        let mut key = Key {
            frame: frame as u8,
            ..Key::default()
        };
        for bit in [ROTATION_BIT, TRANSLATION_BIT, SCALE_BIT] {
            if tag & bit == 0 {
                continue;
            }
            let word = bytes
                .get(pos..pos + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| err(pos, "value runs past the end of the frames list".into()))?;
            if word == RESERVED_WORD {
                return Err(err(pos, "value 0xFFFFFFFF is reserved".into()));
            }
            match bit {
                ROTATION_BIT => {
                    let q = rotation_decode(word);
                    if q.iter().all(|&c| c == 0.0) {
                        return Err(err(pos, "all-zero rotation".into()));
                    }
                    key.rotation = Some(q);
                }
                TRANSLATION_BIT => key.translation = Some(xyz_decode(word)),
                _ => key.scale = Some(xyz_decode(word)),
            }
            pos += 4;
        }
        keys.push(key);
    }
}

/// A bone's local transform in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Unit quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub translation: [f32; 3],
    pub scale: [f32; 3],
}

impl Transform {
    pub const IDENTITY: Self = Self {
        rotation: [0.0, 0.0, 0.0, 1.0],
        translation: [0.0; 3],
        scale: [1.0; 3],
    };
}

/// `q` scaled to unit length; identity for a zero quaternion.
pub fn normalize_quat(q: [f32; 4]) -> [f32; 4] {
    let len = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if len > 0.0 && len.is_finite() {
        q.map(|c| c / len)
    } else {
        Transform::IDENTITY.rotation
    }
}

fn lerp<const N: usize>(a: [f32; N], b: [f32; N], t: f32) -> [f32; N] {
    let mut out = a;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
        *o = x + (y - x) * t;
    }
    out
}

/// Linear interpolation of one channel's keys at `time` (frames), wrapping when looping.
fn sample_channel<const N: usize>(
    keys: &[(u8, [f32; N])],
    frame_count: u8,
    looping: bool,
    time: f32,
) -> Option<[f32; N]> {
    let (first, last) = (keys.first()?, keys.last()?);
    let n = f32::from(frame_count);
    let (f0, v0) = (f32::from(first.0), first.1);
    let (f1, v1) = (f32::from(last.0), last.1);
    if time < f0 || time >= f1 {
        if !looping {
            return Some(if time < f0 { v0 } else { v1 });
        }
        // The wrap segment runs from the last key to the first key of the next loop.
        let span = f0 + n - f1;
        let into = if time >= f1 { time - f1 } else { time + n - f1 };
        let t = if span > 0.0 { into / span } else { 0.0 };
        return Some(lerp(v1, v0, t));
    }
    let next = keys.iter().position(|k| f32::from(k.0) > time)?;
    let (a, b) = (keys.get(next.checked_sub(1)?)?, keys.get(next)?);
    let span = f32::from(b.0) - f32::from(a.0);
    let t = if span > 0.0 {
        (time - f32::from(a.0)) / span
    } else {
        0.0
    };
    Some(lerp(a.1, b.1, t))
}

/// The transform of one track at `time` in frames: wrapped into [0, frame_count) when
/// looping, clamped to [0, frame_count - 1] otherwise; channels without keys are identity.
pub fn sample_track(track: &Track, frame_count: u8, looping: bool, time: f32) -> Transform {
    let n = f32::from(frame_count.max(1));
    let time = if !time.is_finite() {
        0.0
    } else if looping {
        time.rem_euclid(n)
    } else {
        time.clamp(0.0, n - 1.0)
    };
    let channel = |pick: &dyn Fn(&Key) -> Option<[f32; 4]>| {
        let keys: Vec<(u8, [f32; 4])> = track
            .keys
            .iter()
            .filter_map(|k| Some((k.frame, pick(k)?)))
            .collect();
        sample_channel(&keys, frame_count, looping, time)
    };
    let to4 = |v: [f32; 3]| [v[0], v[1], v[2], 0.0];
    let to3 = |v: [f32; 4]| [v[0], v[1], v[2]];
    let identity = Transform::IDENTITY;
    Transform {
        rotation: channel(&|k| k.rotation)
            .map(normalize_quat)
            .unwrap_or(identity.rotation),
        translation: channel(&|k| k.translation.map(to4))
            .map(to3)
            .unwrap_or(identity.translation),
        scale: channel(&|k| k.scale.map(to4))
            .map(to3)
            .unwrap_or(identity.scale),
    }
}

/// Every bone's local transform at `time`: normal bones from their tracks, pseudo-bones as
/// the weight-normalised blend of the bones they name (rotation renormalised).
pub fn sample_pose(bones: &[Bone], anim: &Animation, time: f32) -> Vec<Transform> {
    let mut pose: Vec<Transform> = Vec::with_capacity(bones.len());
    for (i, bone) in bones.iter().enumerate() {
        let t = match &bone.kind {
            BoneKind::Normal { .. } => anim.tracks.get(i).map_or(Transform::IDENTITY, |tr| {
                sample_track(tr, anim.frame_count, anim.looping, time)
            }),
            BoneKind::Pseudo {
                bones: ids,
                weights,
            } => {
                let mut acc = [0f32; 10];
                let mut total = 0.0;
                for (&id, &w) in ids.iter().zip(weights) {
                    let Some(src) = pose.get(usize::from(id)) else {
                        continue;
                    };
                    let parts = src
                        .rotation
                        .iter()
                        .chain(&src.translation)
                        .chain(&src.scale);
                    for (a, v) in acc.iter_mut().zip(parts) {
                        *a += w * v;
                    }
                    total += w;
                }
                if total > 0.0 {
                    let a = acc.map(|v| v / total);
                    Transform {
                        rotation: normalize_quat([a[0], a[1], a[2], a[3]]),
                        translation: [a[4], a[5], a[6]],
                        scale: [a[7], a[8], a[9]],
                    }
                } else {
                    Transform::IDENTITY
                }
            }
        };
        pose.push(t);
    }
    pose
}

/// Dense input of one bone: each channel is empty (identity throughout) or has one value
/// per frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoneFrames {
    pub rotation: Vec<[f32; 4]>,
    pub translation: Vec<[f32; 3]>,
    pub scale: Vec<[f32; 3]>,
}

/// How far a dropped frame's interpolated value may be from its quantised value, per
/// component (rotation compared after normalising).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimTolerance {
    pub rotation: f32,
    pub translation: f32,
    pub scale: f32,
}

fn max_diff<const N: usize>(a: [f32; N], b: [f32; N]) -> f32 {
    a.iter().zip(b).fold(0.0, |m, (x, y)| m.max((x - y).abs()))
}

/// Frames to key for one quantised channel: none when every frame is within tolerance of
/// `identity`, one when the channel is constant, else a greedy linear fit that keeps a
/// frame only when interpolating past it would miss a frame by more than `tol`.
fn reduce<const N: usize>(
    q: &[[f32; N]],
    identity: [f32; N],
    tol: f32,
    norm: fn([f32; N]) -> [f32; N],
) -> Vec<usize> {
    let close = |a: [f32; N], b: [f32; N]| max_diff(norm(a), norm(b)) <= tol;
    let Some(&first) = q.first() else {
        return Vec::new();
    };
    if q.iter().all(|&v| close(v, identity)) {
        return Vec::new();
    }
    if q.iter().all(|&v| close(v, first)) {
        return vec![0];
    }
    let mut keys = vec![0usize];
    let mut anchor = 0usize;
    for end in 2..q.len() {
        let fits = (anchor + 1..end).all(|i| {
            let (Some(&a), Some(&b), Some(&v)) = (q.get(anchor), q.get(end), q.get(i)) else {
                return false;
            };
            let t = (i - anchor) as f32 / (end - anchor) as f32;
            close(lerp(a, b, t), v)
        });
        if !fits {
            anchor = end - 1;
            keys.push(anchor);
        }
    }
    if anchor != q.len() - 1 {
        keys.push(q.len() - 1);
    }
    keys
}

/// Quantises dense per-frame values and keeps only the keys `tol` requires; the result
/// feeds [`encode_track`].
pub fn track_from_frames(
    frames: &BoneFrames,
    frame_count: u8,
    tol: AnimTolerance,
) -> Result<Track, AnimError> {
    let n = usize::from(frame_count);
    for (channel, len) in [
        ("rotation", frames.rotation.len()),
        ("translation", frames.translation.len()),
        ("scale", frames.scale.len()),
    ] {
        if len != 0 && len != n {
            return Err(AnimError::FrameCount {
                channel,
                len,
                frame_count,
            });
        }
    }
    let unencodable = |key: usize, what, v: [f32; 3]| AnimError::Unencodable {
        key,
        what,
        value: [v[0], v[1], v[2], 0.0],
    };
    let rot: Vec<[f32; 4]> = frames
        .rotation
        .iter()
        .map(|&q| rotation_decode(rotation_word(q)))
        .collect();
    let quantise = |vals: &[[f32; 3]], what| -> Result<Vec<[f32; 3]>, AnimError> {
        vals.iter()
            .enumerate()
            .map(|(i, &v)| {
                xyz_encode(v)
                    .map(xyz_decode)
                    .ok_or_else(|| unencodable(i, what, v))
            })
            .collect()
    };
    let trans = quantise(&frames.translation, "translation")?;
    let scale = quantise(&frames.scale, "scale")?;
    let rot_keys = reduce(
        &rot,
        Transform::IDENTITY.rotation,
        tol.rotation,
        normalize_quat,
    );
    let trans_keys = reduce(&trans, [0.0; 3], tol.translation, |v| v);
    let scale_keys = reduce(&scale, [1.0; 3], tol.scale, |v| v);
    let mut keys: Vec<Key> = Vec::new();
    for frame in 0..n {
        let key = Key {
            frame: frame as u8,
            rotation: rot_keys
                .contains(&frame)
                .then(|| rot.get(frame).copied())
                .flatten(),
            translation: trans_keys
                .contains(&frame)
                .then(|| trans.get(frame).copied())
                .flatten(),
            scale: scale_keys
                .contains(&frame)
                .then(|| scale.get(frame).copied())
                .flatten(),
        };
        if key.rotation.is_some() || key.translation.is_some() || key.scale.is_some() {
            keys.push(key);
        }
    }
    Ok(Track { keys })
}
