//! SPIR-V modules (`.spv`), as the shader kind writes them: a reader of the header and the
//! entry points, and a structural validator for `assetc check` and `--verify`.
//!
//! Hand-written rather than a crate: this module is part of the formats-only build, and
//! what it checks is the container (header, instruction tiling, entry points), not the
//! semantics, which are naga's validator's job before writing and spirv-val's in the tests.
//! Both byte orders are read, as the SPIR-V specification allows either (assetc writes
//! little-endian).

mod format;
pub use format::FORMAT;

use super::Problem;
use thiserror::Error;

/// The first word of every module, in the module's own byte order.
pub const MAGIC: u32 = 0x0723_0203;
/// Magic, version, generator, bound, schema.
pub const HEADER_WORDS: usize = 5;
/// `OpEntryPoint`.
pub const OP_ENTRY_POINT: u16 = 15;
/// Newest version this reader knows (SPIR-V 1.6).
pub const MAX_MINOR_VERSION: u8 = 6;

/// A module's header and entry points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpirvInfo {
    /// (major, minor): 1.0 to 1.6.
    pub version: (u8, u8),
    /// The generator's magic number (tool id in the high 16 bits).
    pub generator: u32,
    /// Every result id is below this.
    pub bound: u32,
    /// Length of the module in 32-bit words, header included.
    pub words: usize,
    pub big_endian: bool,
    pub entry_points: Vec<EntryPoint>,
}

/// One `OpEntryPoint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    pub execution_model: u32,
    pub name: String,
    /// The id of its `OpFunction`.
    pub function: u32,
}

impl EntryPoint {
    /// The execution model's name in the SPIR-V specification, lower-cased.
    pub fn model_name(&self) -> String {
        execution_model_name(self.execution_model)
    }
}

/// The name of a SPIR-V execution model (`vertex`, `fragment`, `glcompute`), or its number.
pub fn execution_model_name(model: u32) -> String {
    let name = match model {
        0 => "vertex",
        1 => "tessellation_control",
        2 => "tessellation_evaluation",
        3 => "geometry",
        4 => "fragment",
        5 => "glcompute",
        6 => "kernel",
        5267 => "task_nv",
        5268 => "mesh_nv",
        5313 => "ray_generation",
        5314 => "intersection",
        5315 => "any_hit",
        5316 => "closest_hit",
        5317 => "miss",
        5318 => "callable",
        5364 => "task",
        5365 => "mesh",
        other => return format!("execution model {other}"),
    };
    name.to_string()
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SpirvError {
    #[error("{0} bytes is not a whole number of 32-bit words")]
    NotWords(usize),
    #[error("{0} words is shorter than the 5-word header")]
    Short(usize),
    #[error("magic {0:#010x} is not SPIR-V's 0x07230203 (in either byte order)")]
    Magic(u32),
    #[error("at byte {offset}: {message}")]
    Malformed { offset: u64, message: String },
}

impl SpirvError {
    fn offset(&self) -> Option<u64> {
        match self {
            Self::Malformed { offset, .. } => Some(*offset),
            Self::Magic(_) => Some(0),
            _ => None,
        }
    }
}

fn malformed(word: usize, message: impl Into<String>) -> SpirvError {
    SpirvError::Malformed {
        offset: word as u64 * 4,
        message: message.into(),
    }
}

/// The module's words in host order, whatever byte order it was stored in.
fn words(bytes: &[u8]) -> Result<(Vec<u32>, bool), SpirvError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(SpirvError::NotWords(bytes.len()));
    }
    let le: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if le.len() < HEADER_WORDS {
        return Err(SpirvError::Short(le.len()));
    }
    match le[0] {
        MAGIC => Ok((le, false)),
        m if m.swap_bytes() == MAGIC => Ok((le.into_iter().map(u32::swap_bytes).collect(), true)),
        m => Err(SpirvError::Magic(m)),
    }
}

/// Reads the header and walks every instruction; refuses a module whose instructions do
/// not tile it exactly or whose header is not one a consumer accepts.
pub fn read(bytes: &[u8]) -> Result<SpirvInfo, SpirvError> {
    let (w, big_endian) = words(bytes)?;
    let version = w[1];
    let (major, minor) = ((version >> 16) as u8, (version >> 8) as u8);
    if version & 0xFF00_00FF != 0 || major != 1 || minor > MAX_MINOR_VERSION {
        return Err(malformed(
            1,
            format!("version word {version:#010x} is not SPIR-V 1.0 to 1.{MAX_MINOR_VERSION}"),
        ));
    }
    let bound = w[3];
    if bound == 0 {
        return Err(malformed(
            3,
            "id bound is 0 (a module with any id needs more)",
        ));
    }
    if w[4] != 0 {
        return Err(malformed(
            4,
            format!("schema word is {} (reserved: 0)", w[4]),
        ));
    }
    let mut entry_points = Vec::new();
    let mut at = HEADER_WORDS;
    while at < w.len() {
        let count = (w[at] >> 16) as usize;
        let opcode = (w[at] & 0xFFFF) as u16;
        if count == 0 {
            return Err(malformed(
                at,
                format!("opcode {opcode} has a word count of 0"),
            ));
        }
        let Some(operands) = w.get(at + 1..at + count) else {
            return Err(malformed(
                at,
                format!(
                    "opcode {opcode} is {count} words but only {} remain",
                    w.len() - at
                ),
            ));
        };
        if opcode == OP_ENTRY_POINT {
            entry_points.push(entry_point(at, operands, bound)?);
        }
        at += count;
    }
    Ok(SpirvInfo {
        version: (major, minor),
        generator: w[2],
        bound,
        words: w.len(),
        big_endian,
        entry_points,
    })
}

/// `OpEntryPoint ExecutionModel <id> Name Interface...`.
fn entry_point(at: usize, operands: &[u32], bound: u32) -> Result<EntryPoint, SpirvError> {
    let [model, function, name_words @ ..] = operands else {
        return Err(malformed(at, "OpEntryPoint is missing its operands"));
    };
    if *function == 0 || *function >= bound {
        return Err(malformed(
            at,
            format!("OpEntryPoint names function id {function}, outside 1..{bound}"),
        ));
    }
    let mut name = Vec::new();
    let terminated = name_words.iter().flat_map(|w| w.to_le_bytes()).any(|b| {
        if b == 0 {
            return true;
        }
        name.push(b);
        false
    });
    if !terminated {
        return Err(malformed(at, "OpEntryPoint's name has no terminating NUL"));
    }
    let name =
        String::from_utf8(name).map_err(|_| malformed(at, "OpEntryPoint's name is not UTF-8"))?;
    Ok(EntryPoint {
        execution_model: *model,
        name,
        function: *function,
    })
}

/// Every rule the module breaks; empty when it is a well-formed module with an entry
/// point (a module without one cannot be used as a shader).
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    match read(bytes) {
        Err(e) => vec![Problem::from_error(e.offset(), &e)],
        Ok(info) if info.entry_points.is_empty() => {
            vec![Problem::new("the module has no OpEntryPoint")]
        }
        Ok(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instruction(opcode: u16, operands: &[u32]) -> Vec<u32> {
        let mut w = vec![((operands.len() as u32 + 1) << 16) | u32::from(opcode)];
        w.extend_from_slice(operands);
        w
    }

    /// A literal string as SPIR-V stores it: UTF-8, NUL-terminated, padded to a word.
    fn string(s: &str) -> Vec<u32> {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        while !b.len().is_multiple_of(4) {
            b.push(0);
        }
        b.chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// OpCapability Shader, OpMemoryModel Logical GLSL450, OpEntryPoint Fragment %1 "main".
    fn module() -> Vec<u32> {
        let mut w = vec![MAGIC, 0x0001_0300, 0, 2, 0];
        w.extend(instruction(17, &[1]));
        w.extend(instruction(14, &[0, 1]));
        let mut ep = vec![4, 1];
        ep.extend(string("main"));
        w.extend(instruction(OP_ENTRY_POINT, &ep));
        w
    }

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn a_minimal_module_reads_in_both_byte_orders() {
        let le = bytes(&module());
        let info = read(&le).unwrap();
        assert_eq!(info.version, (1, 3));
        assert_eq!(info.words, module().len());
        assert!(!info.big_endian);
        assert_eq!(info.entry_points.len(), 1);
        assert_eq!(info.entry_points[0].name, "main");
        assert_eq!(info.entry_points[0].model_name(), "fragment");
        assert!(validate(&le).is_empty());

        let be: Vec<u8> = module().iter().flat_map(|w| w.to_be_bytes()).collect();
        let info_be = read(&be).unwrap();
        assert!(info_be.big_endian);
        assert_eq!(info_be.entry_points, info.entry_points);
    }

    #[test]
    fn each_header_rule_is_named() {
        let problem = |w: &[u32]| validate(&bytes(w))[0].to_string();
        let mut m = module();
        m[0] = 0x1234_5678;
        assert!(problem(&m).contains("magic"), "{}", problem(&m));
        let mut m = module();
        m[1] = 0x0001_0700;
        assert!(problem(&m).contains("version word"));
        let mut m = module();
        m[1] = 0x0002_0000;
        assert!(problem(&m).contains("version word"));
        let mut m = module();
        m[3] = 0;
        assert!(problem(&m).contains("bound is 0"));
        let mut m = module();
        m[4] = 7;
        assert!(problem(&m).contains("schema"));
        assert!(validate(&bytes(&module())[..21])
            .iter()
            .any(|p| p.message.contains("32-bit words")));
        assert!(validate(&bytes(&module()[..4]))
            .iter()
            .any(|p| p.message.contains("header")));
    }

    #[test]
    fn instructions_must_tile_the_module() {
        // The last instruction claims one word more than the module has.
        let mut m = module();
        let last = m.len() - 5;
        m[last] += 1 << 16;
        let p = &validate(&bytes(&m))[0];
        assert_eq!(p.offset, Some(last as u64 * 4));
        assert!(p.message.contains("only 5 remain"), "{p}");
        // A zero word count would never advance.
        let mut m = module();
        m.push(17);
        assert!(validate(&bytes(&m))[0].message.contains("word count of 0"));
    }

    #[test]
    fn entry_points_are_required_and_checked() {
        let m = module();
        let without = &m[..m.len() - 5];
        assert_eq!(
            validate(&bytes(without))[0].message,
            "the module has no OpEntryPoint"
        );
        // The function id must be below the bound (2 here).
        let mut m = module();
        let at = m.len() - 5;
        m[at + 2] = 2;
        assert!(validate(&bytes(&m))[0].message.contains("function id 2"));
        // A name without its NUL runs off the instruction.
        let mut m = module();
        let len = m.len();
        m[len - 1] = u32::from_le_bytes(*b"abcd");
        m[len - 2] = u32::from_le_bytes(*b"main");
        assert!(validate(&bytes(&m))[0].message.contains("NUL"));
    }

    #[test]
    fn model_names_cover_the_graphics_stages() {
        assert_eq!(execution_model_name(0), "vertex");
        assert_eq!(execution_model_name(5), "glcompute");
        assert_eq!(execution_model_name(99), "execution model 99");
    }
}
