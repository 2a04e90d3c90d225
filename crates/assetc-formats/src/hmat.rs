//! `.hmat` v1: the PBR material table of one source, row i = material slot i of the
//! companion `.hmesh`.
//!
//! Hand-written: the format is our own. Rows are serialised field by field (not cast) so
//! the writer and reader are endian-independent.

mod format;
pub use format::FORMAT;

use bytemuck::{Pod, Zeroable};
use thiserror::Error;

use super::bytes::{Reader, WriteLe};
use super::Problem;

const HEADER_SIZE: usize = 16;
const ROW_SIZE: usize = 96;

pub const MAGIC: u32 = u32::from_le_bytes(*b"HMAT");
pub const VERSION: u32 = 1;
pub const FLAG_DOUBLE_SIDED: u32 = 1;
/// Bits 1-2 of `flags`: 0 OPAQUE, 1 MASK, 2 BLEND.
pub const ALPHA_MODE_SHIFT: u32 = 1;
pub const ALPHA_MODE_MASK: u32 = 0b11 << ALPHA_MODE_SHIFT;
pub const FLAG_UNLIT: u32 = 1 << 3;

/// Texture slots in row order; slot i's sampler is bits 5i..5i+4 of `samplers`.
pub const SLOT_BASE_COLOR: u32 = 0;
pub const SLOT_METALLIC_ROUGHNESS: u32 = 1;
pub const SLOT_NORMAL: u32 = 2;
pub const SLOT_OCCLUSION: u32 = 3;
pub const SLOT_EMISSIVE: u32 = 4;
/// Bits a slot's sampler takes in `samplers`.
pub const SAMPLER_BITS: u32 = 5;
/// Wrap modes (2 bits each for S and T); 3 is invalid.
pub const WRAP_REPEAT: u32 = 0;
pub const WRAP_CLAMP_TO_EDGE: u32 = 1;
pub const WRAP_MIRRORED_REPEAT: u32 = 2;
/// Bits 25-31 of `samplers` are reserved.
const SAMPLERS_USED: u32 = (1 << (5 * SAMPLER_BITS)) - 1;

/// One texture slot's sampler as `.hmat` stores it. The default (0) is repeat, linear:
/// what a reader that ignores the field assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlotSampler {
    /// [`WRAP_REPEAT`], [`WRAP_CLAMP_TO_EDGE`] or [`WRAP_MIRRORED_REPEAT`].
    pub wrap_s: u32,
    pub wrap_t: u32,
    /// Nearest magnification (else linear).
    pub mag_nearest: bool,
}

impl SlotSampler {
    /// The slot's 5 bits: wrapS in bits 0-1, wrapT in bits 2-3, nearest in bit 4.
    pub fn bits(self) -> u32 {
        (self.wrap_s & 3) | (self.wrap_t & 3) << 2 | u32::from(self.mag_nearest) << 4
    }

    pub fn from_bits(bits: u32) -> Self {
        Self {
            wrap_s: bits & 3,
            wrap_t: (bits >> 2) & 3,
            mag_nearest: (bits >> 4) & 1 == 1,
        }
    }
}

/// `samplers` with `slot`'s 5 bits replaced by `sampler`'s.
pub fn with_sampler(samplers: u32, slot: u32, sampler: SlotSampler) -> u32 {
    let shift = SAMPLER_BITS * slot;
    (samplers & !(0b11111 << shift)) | sampler.bits() << shift
}

/// The sampler of `slot` (0..5) in a row's `samplers`.
pub fn sampler_of(samplers: u32, slot: u32) -> SlotSampler {
    SlotSampler::from_bits(samplers >> (SAMPLER_BITS * slot))
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Linear RGBA.
    pub base_color_factor: [f32; 4],
    pub emissive_factor: [f32; 3],
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    pub normal_scale: f32,
    pub occlusion_strength: f32,
    pub alpha_cutoff: f32,
    pub flags: u32,
    /// Each texture slot's sampler ([`sampler_of`], [`with_sampler`]); 0 = repeat, linear.
    pub samplers: u32,
    pub base_color_tex: u64,
    pub metallic_roughness_tex: u64,
    pub normal_tex: u64,
    pub occlusion_tex: u64,
    pub emissive_tex: u64,
}

const _: () = assert!(std::mem::size_of::<GpuMaterial>() == 96);

impl Default for GpuMaterial {
    /// glTF defaults: white, metallic 1, roughness 1, opaque, single-sided, no textures.
    fn default() -> Self {
        Self {
            base_color_factor: [1.0; 4],
            emissive_factor: [0.0; 3],
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            normal_scale: 1.0,
            occlusion_strength: 1.0,
            alpha_cutoff: 0.5,
            flags: 0,
            samplers: 0,
            base_color_tex: 0,
            metallic_roughness_tex: 0,
            normal_tex: 0,
            occlusion_tex: 0,
            emissive_tex: 0,
        }
    }
}

/// A whole `.hmat` in memory.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HMat {
    pub materials: Vec<GpuMaterial>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum HMatError {
    #[error("file is {len} bytes, shorter than the 16-byte header")]
    TooShort { len: usize },
    #[error("at byte 0: magic is {found:#010x}, expected \"HMAT\" ({MAGIC:#010x})")]
    BadMagic { found: u32 },
    #[error("at byte 4: version is {found}, expected {VERSION}")]
    BadVersion { found: u32 },
    #[error("at byte 8: count {count} needs a file of {expected} bytes, found {len}")]
    SizeMismatch {
        count: u32,
        expected: u64,
        len: usize,
    },
}

impl HMatError {
    pub fn offset(&self) -> u64 {
        match self {
            Self::TooShort { len } => *len as u64,
            Self::BadMagic { .. } => 0,
            Self::BadVersion { .. } => 4,
            Self::SizeMismatch { .. } => 8,
        }
    }
}

/// Serialises the table; `flags` of the header is 0.
pub fn write(mat: &HMat) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_SIZE + ROW_SIZE * mat.materials.len());
    out.put_u32(MAGIC);
    out.put_u32(VERSION);
    // A material table longer than u32::MAX rows cannot come from one glTF source.
    out.put_u32(u32::try_from(mat.materials.len()).unwrap_or(u32::MAX));
    out.put_u32(0);
    for m in &mat.materials {
        for v in m.base_color_factor.iter().chain(&m.emissive_factor) {
            out.put_f32(*v);
        }
        for v in [
            m.metallic_factor,
            m.roughness_factor,
            m.normal_scale,
            m.occlusion_strength,
            m.alpha_cutoff,
        ] {
            out.put_f32(v);
        }
        out.put_u32(m.flags);
        out.put_u32(m.samplers);
        for t in [
            m.base_color_tex,
            m.metallic_roughness_tex,
            m.normal_tex,
            m.occlusion_tex,
            m.emissive_tex,
        ] {
            out.put_u64(t);
        }
    }
    out
}

struct Header {
    count: u32,
    flags: u32,
}

fn read_header(bytes: &[u8]) -> Result<Header, HMatError> {
    let mut r = Reader::new(bytes);
    let too_short = |_| HMatError::TooShort { len: bytes.len() };
    let magic = r.u32("magic").map_err(too_short)?;
    if magic != MAGIC {
        return Err(HMatError::BadMagic { found: magic });
    }
    let version = r.u32("version").map_err(too_short)?;
    if version != VERSION {
        return Err(HMatError::BadVersion { found: version });
    }
    let count = r.u32("count").map_err(too_short)?;
    let flags = r.u32("flags").map_err(too_short)?;
    let expected = HEADER_SIZE as u64 + ROW_SIZE as u64 * u64::from(count);
    if expected != bytes.len() as u64 {
        return Err(HMatError::SizeMismatch {
            count,
            expected,
            len: bytes.len(),
        });
    }
    Ok(Header { count, flags })
}

fn read_row(bytes: &[u8]) -> Option<GpuMaterial> {
    let mut r = Reader::new(bytes);
    let mut f = || r.f32("material").ok();
    let base_color_factor = [f()?, f()?, f()?, f()?];
    let emissive_factor = [f()?, f()?, f()?];
    let (metallic_factor, roughness_factor, normal_scale, occlusion_strength, alpha_cutoff) =
        (f()?, f()?, f()?, f()?, f()?);
    let mut r = Reader::at(bytes, 48);
    let flags = r.u32("flags").ok()?;
    let samplers = r.u32("samplers").ok()?;
    let mut t = || r.u64("texture").ok();
    Some(GpuMaterial {
        base_color_factor,
        emissive_factor,
        metallic_factor,
        roughness_factor,
        normal_scale,
        occlusion_strength,
        alpha_cutoff,
        flags,
        samplers,
        base_color_tex: t()?,
        metallic_roughness_tex: t()?,
        normal_tex: t()?,
        occlusion_tex: t()?,
        emissive_tex: t()?,
    })
}

/// Reads the table. Only the layout is checked; `validate` checks the values.
pub fn read(bytes: &[u8]) -> Result<HMat, HMatError> {
    let header = read_header(bytes)?;
    // The exact-size check above bounds `count` by the data length.
    let materials = bytes
        .get(HEADER_SIZE..)
        .unwrap_or(&[])
        .chunks_exact(ROW_SIZE)
        .filter_map(read_row)
        .collect::<Vec<_>>();
    debug_assert_eq!(materials.len(), header.count as usize);
    Ok(HMat { materials })
}

/// Texture slot names in slot order, for messages.
const SLOT_NAMES: [&str; 5] = [
    "baseColor",
    "metallicRoughness",
    "normal",
    "occlusion",
    "emissive",
];

/// Checks every rule of the `.hmat` v1 contract. An empty list means the file is valid.
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    let header = match read_header(bytes) {
        Ok(h) => h,
        Err(e) => return vec![Problem::from_error(Some(e.offset()), &e)],
    };
    let mut problems = Vec::new();
    if header.flags != 0 {
        problems.push(Problem::at(
            12,
            format!("header flags are {:#x}, must be 0", header.flags),
        ));
    }
    let rows = bytes
        .get(HEADER_SIZE..)
        .unwrap_or(&[])
        .chunks_exact(ROW_SIZE);
    for (i, m) in rows.filter_map(read_row).enumerate() {
        let at = (HEADER_SIZE + ROW_SIZE * i) as u64;
        let mut bad = |field: u64, msg: String| {
            problems.push(Problem::at(at + field, format!("material {i}: {msg}")))
        };
        let scalars = [
            m.metallic_factor,
            m.roughness_factor,
            m.normal_scale,
            m.occlusion_strength,
            m.alpha_cutoff,
        ];
        let mut factors = m
            .base_color_factor
            .iter()
            .chain(&m.emissive_factor)
            .chain(&scalars);
        if factors.any(|v| !v.is_finite()) {
            bad(0, "a factor is not finite".into());
        }
        if m.base_color_factor.iter().any(|c| !(0.0..=1.0).contains(c)) {
            bad(
                0,
                format!(
                    "baseColorFactor {:?} is outside [0, 1]",
                    m.base_color_factor
                ),
            );
        }
        if m.alpha_cutoff < 0.0 {
            bad(44, format!("alphaCutoff {} is negative", m.alpha_cutoff));
        }
        if m.flags & ALPHA_MODE_MASK == ALPHA_MODE_MASK {
            bad(
                48,
                "alpha mode 3 is undefined (0 OPAQUE, 1 MASK, 2 BLEND)".into(),
            );
        }
        if m.flags >> 4 != 0 {
            bad(
                48,
                format!("flags {:#x} set reserved bits 4 and up", m.flags),
            );
        }
        if m.samplers & !SAMPLERS_USED != 0 {
            bad(
                52,
                format!("samplers {:#x} set reserved bits 25 and up", m.samplers),
            );
        }
        for (slot, name) in SLOT_NAMES.iter().enumerate() {
            let s = sampler_of(m.samplers, slot as u32);
            for (axis, wrap) in [("S", s.wrap_s), ("T", s.wrap_t)] {
                if wrap > WRAP_MIRRORED_REPEAT {
                    bad(
                        52,
                        format!(
                            "{name} sampler wrap{axis} is {wrap} \
                             (0 repeat, 1 clamp to edge, 2 mirrored repeat)"
                        ),
                    );
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> HMat {
        let textured = GpuMaterial {
            base_color_factor: [0.5, 0.25, 1.0, 0.75],
            emissive_factor: [2.0, 0.0, 0.5],
            metallic_factor: 0.0,
            roughness_factor: 0.3,
            alpha_cutoff: 0.25,
            flags: FLAG_DOUBLE_SIDED | (1 << ALPHA_MODE_SHIFT) | FLAG_UNLIT,
            base_color_tex: 0x1111,
            normal_tex: 0x2222,
            // baseColor clamp S / mirrored T, normal mirrored S / repeat T with nearest.
            samplers: 0b01001 | 0b10010 << 10,
            ..GpuMaterial::default()
        };
        HMat {
            materials: vec![GpuMaterial::default(), textured],
        }
    }

    #[test]
    fn round_trips() {
        let bytes = write(&sample());
        // 16-byte header and two 96-byte rows.
        assert_eq!(bytes.len(), 16 + 2 * 96);
        assert_eq!(validate(&bytes), vec![]);
        assert_eq!(read(&bytes).unwrap(), sample());
        let empty = write(&HMat::default());
        assert_eq!(read(&empty).unwrap(), HMat::default());
    }

    #[test]
    fn samplers_pack_five_bits_per_slot() {
        let clamp_mirror = SlotSampler {
            wrap_s: WRAP_CLAMP_TO_EDGE,
            wrap_t: WRAP_MIRRORED_REPEAT,
            mag_nearest: true,
        };
        // 1 | 2 << 2 | 1 << 4 = 0b11001, shifted to slot 2's bits 10-14.
        let s = with_sampler(0, SLOT_NORMAL, clamp_mirror);
        assert_eq!(s, 0b11001 << 10);
        assert_eq!(sampler_of(s, SLOT_NORMAL), clamp_mirror);
        for slot in [
            SLOT_BASE_COLOR,
            SLOT_METALLIC_ROUGHNESS,
            SLOT_OCCLUSION,
            SLOT_EMISSIVE,
        ] {
            assert_eq!(sampler_of(s, slot), SlotSampler::default(), "slot {slot}");
        }
        // Replacing a slot clears its old bits and leaves the others alone.
        let all = (0..5).fold(0, |acc, slot| with_sampler(acc, slot, clamp_mirror));
        // 0x10_8421 has a 1 at bits 0, 5, 10, 15 and 20: the same 5 bits in every slot.
        assert_eq!(all, 0b11001 * 0x10_8421);
        let back = with_sampler(all, SLOT_OCCLUSION, SlotSampler::default());
        assert_eq!(sampler_of(back, SLOT_OCCLUSION), SlotSampler::default());
        assert_eq!(sampler_of(back, SLOT_EMISSIVE), clamp_mirror);
        let bytes = write(&HMat {
            materials: vec![GpuMaterial {
                samplers: all,
                ..GpuMaterial::default()
            }],
        });
        assert_eq!(&bytes[16 + 52..16 + 56], &all.to_le_bytes());
        assert_eq!(validate(&bytes), vec![]);
        assert_eq!(read(&bytes).unwrap().materials[0].samplers, all);
    }

    #[test]
    fn every_prefix_is_refused_once() {
        let bytes = write(&sample());
        for n in 0..bytes.len() {
            assert!(read(&bytes[..n]).is_err(), "prefix {n}");
            let problems = validate(&bytes[..n]);
            assert_eq!(problems.len(), 1, "prefix {n}: {problems:?}");
            assert!(!problems[0].to_string().contains("at byte 8: at byte 8"));
        }
    }

    /// The sample with row 1's field at `field` replaced.
    fn row1(field: usize, with: &[u8]) -> Vec<u8> {
        let mut b = write(&sample());
        let at = 16 + 96 + field;
        b[at..at + with.len()].copy_from_slice(with);
        b
    }

    #[test]
    fn one_file_per_rule() {
        let mut bad_magic = write(&sample());
        bad_magic[0] = b'X';
        let mut bad_version = write(&sample());
        bad_version[4] = 2;
        let mut flags = write(&sample());
        flags[12] = 1;
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (bad_magic, "magic"),
            (bad_version, "version is 2"),
            (
                [write(&sample()), vec![0]].concat(),
                "count 2 needs a file of 208 bytes",
            ),
            (flags, "header flags"),
            (row1(0, &f32::NAN.to_le_bytes()), "not finite"),
            (row1(4, &1.5f32.to_le_bytes()), "outside [0, 1]"),
            (
                row1(44, &(-0.5f32).to_le_bytes()),
                "alphaCutoff -0.5 is negative",
            ),
            (
                row1(48, &(3u32 << ALPHA_MODE_SHIFT).to_le_bytes()),
                "alpha mode 3",
            ),
            (row1(48, &16u32.to_le_bytes()), "reserved bits"),
            (
                row1(52, &(1u32 << 25).to_le_bytes()),
                "samplers 0x2000000 set reserved bits",
            ),
            (
                row1(52, &(3u32 << 12).to_le_bytes()),
                "normal sampler wrapT is 3",
            ),
            (
                row1(52, &(3u32 << 20).to_le_bytes()),
                "emissive sampler wrapS is 3",
            ),
        ];
        for (file, expect) in cases {
            let problems = validate(&file);
            assert!(
                problems.iter().any(|p| p.message.contains(expect)),
                "{expect}: {problems:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn bit_flips_never_panic_and_are_seen(bit in 0usize..(8 * 208)) {
            let mut b = write(&sample());
            b[bit / 8] ^= 1 << (bit % 8);
            let problems = validate(&b);
            // A flip the reader carries through faithfully is a different valid file
            // (texture ids and factors are free values); one it loses or refuses must be
            // named by the validator.
            // Compared as bytes: -0.0 equals 0.0 as a float.
            if read(&b).map(|m| write(&m)).ok() != Some(b.clone()) {
                prop_assert!(!problems.is_empty());
            }
        }
    }
}
