//! Which language a shader source is and, for GLSL, which stage: from the extension, or
//! for `.glsl` from a `#pragma stage(vertex|fragment|compute)` line.

use super::location::LineCol;
use naga::ShaderStage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Wgsl,
    /// WGSL written for naga_oil: `#define_import_path`, `#import`, `#ifdef` lines (as
    /// Bevy's shaders are), composed with the modules it imports before naga parses it.
    WgslComposed,
    /// WESL: WGSL with `import` statements and `@if` conditions, linked by the `wesl`
    /// crate into one WGSL module.
    Wesl,
    /// GLSL holds one entry point, `main`, of this stage.
    Glsl(ShaderStage),
}

/// Why a source's language or stage cannot be told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StageError {
    /// Where the offending pragma is; `None` when it is missing altogether.
    pub at: Option<LineCol>,
    pub message: String,
}

const STAGES: [(&str, ShaderStage); 3] = [
    ("vertex", ShaderStage::Vertex),
    ("fragment", ShaderStage::Fragment),
    ("compute", ShaderStage::Compute),
];

/// The language of a source named `file_name` (any case) holding `text`.
pub fn language_of(file_name: &str, text: &str) -> Result<Language, StageError> {
    let lower = file_name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    let by_extension = match ext {
        "wgsl" if has_directives(text) => return Ok(Language::WgslComposed),
        "wgsl" => return Ok(Language::Wgsl),
        "wesl" => return Ok(Language::Wesl),
        "vert" => Some(ShaderStage::Vertex),
        "frag" => Some(ShaderStage::Fragment),
        "comp" => Some(ShaderStage::Compute),
        "glsl" => None,
        other => {
            return Err(StageError {
                at: None,
                message: format!("`.{other}` is not a shader extension"),
            })
        }
    };
    let pragma = stage_pragma(text)?;
    match (by_extension, pragma) {
        (Some(stage), None) => Ok(Language::Glsl(stage)),
        (None, Some((stage, _))) => Ok(Language::Glsl(stage)),
        (Some(stage), Some((said, _))) if said == stage => Ok(Language::Glsl(stage)),
        (Some(stage), Some((said, at))) => Err(StageError {
            at: Some(at),
            message: format!(
                "#pragma stage({}) contradicts the .{ext} extension ({})",
                stage_name(said),
                stage_name(stage)
            ),
        }),
        (None, None) => Err(StageError {
            at: None,
            message: "a .glsl source needs a `#pragma stage(vertex|fragment|compute)` line \
                      (or name it .vert, .frag or .comp)"
                .to_string(),
        }),
    }
}

/// Whether a WGSL text has a preprocessor line (`#import`, `#define_import_path`,
/// `#ifdef`): WGSL has no `#` of its own, so such a text is written for naga_oil.
pub fn has_directives(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with('#'))
}

/// The stage's name as the pragma spells it.
pub fn stage_name(stage: ShaderStage) -> &'static str {
    STAGES
        .iter()
        .find(|(_, s)| *s == stage)
        .map_or("other", |(n, _)| n)
}

/// The stage a `#pragma stage(...)` line names, with where it is. A second pragma, one
/// naming no known stage, or one that is malformed is an error at its own line.
fn stage_pragma(text: &str) -> Result<Option<(ShaderStage, LineCol)>, StageError> {
    let mut found: Option<(ShaderStage, LineCol)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let Some(args) = pragma_stage_args(line.trim_start()) else {
            continue;
        };
        let at = LineCol {
            line: i + 1,
            col: line[..indent].chars().count() + 1,
        };
        let error = |message: String| StageError {
            at: Some(at),
            message,
        };
        let name = args
            .trim_start()
            .strip_prefix('(')
            .and_then(|rest| rest.split_once(')'))
            .filter(|(_, after)| {
                let after = after.trim();
                after.is_empty() || after.starts_with("//")
            })
            .map(|(name, _)| name.trim())
            .ok_or_else(|| {
                error(
                    "malformed #pragma stage: expected `#pragma stage(vertex|fragment|compute)`"
                        .to_string(),
                )
            })?;
        let stage = STAGES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                error(format!(
                    "#pragma stage({name}): the stage is vertex, fragment or compute"
                ))
            })?;
        if let Some((first, first_at)) = found {
            return Err(error(format!(
                "a second #pragma stage (the first, at line {}, says {})",
                first_at.line,
                stage_name(first)
            )));
        }
        found = Some((stage, at));
    }
    Ok(found)
}

/// What follows `#pragma stage` on a line that is such a pragma (the directive may have
/// spaces after `#`, as in the C preprocessor).
fn pragma_stage_args(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("pragma")?;
    let rest = rest.strip_prefix(|c: char| c.is_whitespace())?.trim_start();
    let rest = rest.strip_prefix("stage")?;
    // `#pragma stagefoo` is some other pragma.
    (rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '(')).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_the_language_and_stage() {
        assert_eq!(language_of("a.WGSL", ""), Ok(Language::Wgsl));
        assert_eq!(language_of("a.wesl", ""), Ok(Language::Wesl));
        assert_eq!(
            language_of("a.wgsl", "  #import bevy_pbr::forward_io::VertexOutput\n"),
            Ok(Language::WgslComposed)
        );
        assert_eq!(
            language_of("a.vert", ""),
            Ok(Language::Glsl(ShaderStage::Vertex))
        );
        assert_eq!(
            language_of("a.Frag", ""),
            Ok(Language::Glsl(ShaderStage::Fragment))
        );
        assert_eq!(
            language_of("a.comp", ""),
            Ok(Language::Glsl(ShaderStage::Compute))
        );
    }

    #[test]
    fn glsl_takes_its_stage_from_the_pragma() {
        let text = "#version 450\n  #  pragma   stage ( compute )  // ours\nvoid main() {}\n";
        assert_eq!(
            language_of("x.glsl", text),
            Ok(Language::Glsl(ShaderStage::Compute))
        );
        // The pragma may repeat what the extension says, never contradict it.
        assert_eq!(
            language_of("x.comp", text),
            Ok(Language::Glsl(ShaderStage::Compute))
        );
        let e = language_of("x.vert", text).unwrap_err();
        assert_eq!(e.at, Some(LineCol { line: 2, col: 3 }));
        assert!(e.message.contains("contradicts the .vert extension"), "{e}");
        // Other pragmas are not ours.
        let other = "#pragma stages(vertex)\n#pragma optimize(on)\n";
        assert!(language_of("x.glsl", other)
            .unwrap_err()
            .message
            .contains("needs a `#pragma stage"));
    }

    #[test]
    fn a_bad_pragma_is_named_where_it_is() {
        let e = language_of("x.glsl", "\n#pragma stage(geometry)\n").unwrap_err();
        assert_eq!(e.at, Some(LineCol { line: 2, col: 1 }));
        assert!(e.message.contains("vertex, fragment or compute"), "{e}");
        let e = language_of("x.glsl", "#pragma stage vertex\n").unwrap_err();
        assert!(e.message.contains("malformed"), "{e}");
        let e =
            language_of("x.glsl", "#pragma stage(vertex)\n#pragma stage(fragment)\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.line), Some(2));
        assert!(e.message.contains("first, at line 1, says vertex"), "{e}");
        let e = language_of("x.glsl", "void main() {}\n").unwrap_err();
        assert_eq!(e.at, None);
    }
}
