//! Shaders: `.wgsl`, and GLSL as `.vert .frag .comp` or `.glsl` with a
//! `#pragma stage(...)` line, become one SPIR-V module per entry point,
//! `<ref>/<entryPoint>.spv` (manifest kind 4, hashed as `<ref>/<entryPoint>`).
//!
//! naga parses and validates; an invalid module is an error before anything is written.
//! `shader.defines` are GLSL preprocessor defines; WGSL has no preprocessor, so they do not
//! apply to `.wgsl` sources.

mod compile;
mod const_overflow;
mod language;
mod limits;
mod location;
mod names;
pub mod settings;

pub use compile::SPIRV_VERSION;

use super::texture::read_limited;
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::formats::hman::EntryKind;
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use crate::kinds::source::Source;
use location::LineCol;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Shader,
    name: "shader",
    recognise: Recognise::FileSuffixes(&[".wgsl", ".vert", ".frag", ".comp", ".glsl"]),
    sources: "<name>.wgsl, GLSL <name>.vert .frag .comp (or .glsl with #pragma stage(...))",
    outputs: "<name>/<entryPoint>.spv (SPIR-V 1.3, one per entry point)",
    // `<ref>/<entryPoint>.spv`: two shaders of one ref would share the folder.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 6,
        claims: Claim::RefWith("/"),
    },
    compile,
    settings_key: |settings, key| key.table("shader", &settings.shader),
    encoders: &["naga"],
    referenced_files: None,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: super::never_encodes_uastc,
};

/// Hand-written shaders are kilobytes; generated ones reach a few megabytes.
const MAX_SHADER_FILE_BYTES: u64 = 16 << 20;
/// Deepest bracket nesting, and longest operator chain (summed over the enclosing
/// brackets), accepted: naga recurses over nested expressions, and a stack overflow would
/// abort the whole build. Measured: a chain of 10,000 `+` compiles on the stack below, one
/// of 50,000 overflows it; real shaders stay far below both limits.
const MAX_NESTING: usize = 256;
const MAX_EXPRESSION_DEPTH: usize = 4096;
/// naga runs on a thread of its own with this stack, so the limit above holds in debug
/// builds too and on whatever stack the build's worker threads have.
const COMPILE_STACK_BYTES: usize = 64 << 20;

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let path = source.abs_path.display().to_string();
    let invalid = |at: Option<LineCol>, message: String| match at {
        Some(at) => AssetError::InvalidText {
            path: path.clone(),
            position: crate::code::TextPosition {
                line: at.line,
                column: Some(at.col),
            },
            message,
        },
        None => AssetError::Invalid {
            path: path.clone(),
            message,
        },
    };
    let bytes = read_limited(&source.abs_path, MAX_SHADER_FILE_BYTES)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        invalid(
            None,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    let file_name = source
        .abs_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let language =
        language::language_of(&file_name, &text).map_err(|e| invalid(e.at, e.message))?;
    if let Some((at, exceeded)) = limits::check(&text, MAX_NESTING, MAX_EXPRESSION_DEPTH) {
        return Err(invalid(Some(at), exceeded.to_string()));
    }
    let defines = &context.settings.shader.defines;
    if matches!(language, language::Language::Glsl(_)) {
        names::check_defines(defines).map_err(|e| invalid(None, e.to_string()))?;
    }
    let defines = defines.clone();
    let entries = std::thread::Builder::new()
        .name("naga".into())
        .stack_size(COMPILE_STACK_BYTES)
        .spawn(move || compile::compile(&text, language, &defines))
        .map_err(|e| invalid(None, format!("cannot start the shader compiler: {e}")))?
        .join()
        .map_err(|payload| {
            invalid(
                None,
                format!(
                    "internal error in naga, the shader compiler (please report it with this \
                     file): {}",
                    panic_text(payload.as_ref())
                ),
            )
        })?
        .map_err(|d| invalid(d.at, d.message))?;
    names::check_entry_points(entries.iter().map(|e| e.name.as_str()))
        .map_err(|e| invalid(None, e.to_string()))?;

    let reference = source.runtime_ref();
    let files = entries
        .into_iter()
        .map(|e| {
            let id = format!("{reference}/{}", e.name);
            OutputFile {
                manifest_id: Some(crate::formats::hash::fnv1a64(&id)),
                ..OutputFile::new(format!("{id}.spv"), e.spirv, EntryKind::Shader)
            }
        })
        .collect();
    Ok(CompiledAsset {
        files,
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: Default::default(),
        times: Default::default(),
        inputs: vec![source.abs_path.clone()],
    })
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}
