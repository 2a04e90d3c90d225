//! WGSL `.wgsl` as the shader kind writes it (`[shader] outputs = ["wgsl"]`): one plain
//! WGSL module per entry point, the text WebGPU's `createShaderModule` takes; a reader and
//! validator for `check`, `--verify`, `inspect` and `info`.
//!
//! Always checked, by hand: UTF-8, not empty, no NUL, no preprocessor line (`#import`,
//! `#ifdef`: WGSL has none) and no WESL `import`, and the bracket and expression limits
//! ([`limits`]) that keep a parser's recursion bounded. With the crate's `wgsl-naga`
//! feature (assetc's pipeline turns it on), naga's WGSL front end parses the module and
//! its validator validates it, and the file must hold exactly one entry point. naga is
//! the weight of a shader compiler, which an engine that loads meshes and textures does
//! not want to link; an engine that loads WGSL runs it through wgpu, which links naga
//! already, so the feature costs it nothing.

mod format;
pub mod limits;
#[cfg(feature = "wgsl-naga")]
mod naga_check;
pub use format::FORMAT;

use super::Problem;
use limits::Exceeded;
use thiserror::Error;

/// What a `.wgsl` file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WgslInfo {
    pub lines: usize,
    /// What naga read; `None` without the `wgsl-naga` feature.
    pub module: Option<ModuleSummary>,
}

/// A module as naga reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleSummary {
    pub entry_points: Vec<EntryPoint>,
    pub functions: usize,
    pub global_variables: usize,
    pub overrides: usize,
    pub types: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    pub name: String,
    /// `vertex`, `fragment`, `compute`, ...
    pub stage: String,
    /// A compute entry point's `@workgroup_size` (zeros for the other stages).
    pub workgroup_size: [u32; 3],
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WgslError {
    #[error("an empty file: no WGSL module")]
    Empty,
    #[error("at byte {offset}: not UTF-8 text")]
    NotUtf8 { offset: u64 },
    #[error("at byte {offset}: a NUL character, which WGSL text cannot hold")]
    Nul { offset: u64 },
    #[error(
        "line {line}: a preprocessor line (`{text}`): plain WGSL has none; a module written \
         for naga_oil must be composed first"
    )]
    Directive { line: usize, text: String },
    #[error(
        "line {line}: a WESL `import`: plain WGSL has none; a WESL module must be linked first"
    )]
    Import { line: usize },
    #[error("at byte {offset}: {exceeded}")]
    Limit { offset: u64, exceeded: Exceeded },
    /// naga's WGSL front end refused the text.
    #[error("{line}:{column}: WGSL does not parse: {message}")]
    Parse {
        line: u32,
        column: u32,
        message: String,
    },
    /// naga's validator refused the module.
    #[error("invalid WGSL module: {message}")]
    Invalid { message: String },
    #[error(
        "{count} entry points ({names}): a .wgsl output holds exactly one (one file per entry \
         point)"
    )]
    EntryPoints { count: usize, names: String },
    #[error("the WGSL checker failed: {0}")]
    Checker(String),
}

impl WgslError {
    fn offset(&self) -> Option<u64> {
        match self {
            Self::NotUtf8 { offset } | Self::Nul { offset } | Self::Limit { offset, .. } => {
                Some(*offset)
            }
            _ => None,
        }
    }
}

/// Reads a `.wgsl` file (with the `wgsl-naga` feature: parses and validates it).
pub fn read(bytes: &[u8]) -> Result<WgslInfo, WgslError> {
    let text = check_text(bytes)?;
    Ok(WgslInfo {
        lines: text.lines().count(),
        module: summarise(text)?,
    })
}

/// Every rule the file breaks (the first found: a later rule presumes the earlier ones).
pub fn validate(bytes: &[u8]) -> Vec<Problem> {
    match read(bytes) {
        Ok(_) => Vec::new(),
        Err(e) => vec![Problem::from_error(e.offset(), &e)],
    }
}

/// The rules that need no parser.
fn check_text(bytes: &[u8]) -> Result<&str, WgslError> {
    let text = std::str::from_utf8(bytes).map_err(|e| WgslError::NotUtf8 {
        offset: e.valid_up_to() as u64,
    })?;
    if text.trim().is_empty() {
        return Err(WgslError::Empty);
    }
    if let Some(offset) = text.find('\0') {
        return Err(WgslError::Nul {
            offset: offset as u64,
        });
    }
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.starts_with('#') {
            return Err(WgslError::Directive {
                line: i + 1,
                text: line.chars().take(60).collect(),
            });
        }
        if line.starts_with("import ") || line.starts_with("import\t") {
            return Err(WgslError::Import { line: i + 1 });
        }
    }
    if let Some((offset, exceeded)) =
        limits::check(text, limits::MAX_NESTING, limits::MAX_EXPRESSION_DEPTH)
    {
        return Err(WgslError::Limit {
            offset: offset as u64,
            exceeded,
        });
    }
    Ok(text)
}

#[cfg(feature = "wgsl-naga")]
fn summarise(text: &str) -> Result<Option<ModuleSummary>, WgslError> {
    let summary = naga_check::check(text)?;
    if summary.entry_points.len() != 1 {
        return Err(WgslError::EntryPoints {
            count: summary.entry_points.len(),
            names: summary
                .entry_points
                .iter()
                .map(|e| format!("{} {}", e.stage, e.name))
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    Ok(Some(summary))
}

#[cfg(not(feature = "wgsl-naga"))]
fn summarise(_text: &str) -> Result<Option<ModuleSummary>, WgslError> {
    Ok(None)
}

#[cfg(test)]
mod tests;
