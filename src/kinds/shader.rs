//! Shaders: `.wgsl`, and GLSL as `.vert .frag .comp` or `.glsl` with a
//! `#pragma stage(...)` line, become one SPIR-V module per entry point,
//! `<ref>/<entryPoint>.spv` (manifest kind 4, hashed as `<ref>/<entryPoint>`), and with
//! `shader.outputs` naming `wgsl` one plain WGSL module per entry point,
//! `<ref>/<entryPoint>.wgsl` (manifest kind 9, hashed by that path). GLSL is
//! not translated to WGSL ([`GLSL_HAS_NO_WGSL`]).
//!
//! naga parses and validates; an invalid module is an error before anything is written.
//! `shader.defines` are GLSL preprocessor defines; plain WGSL has no preprocessor, so they
//! do not apply to a `.wgsl` source without `#` lines.
//!
//! `.wesl` sources are linked first by the `wesl` crate (`import`, `@if` features from
//! `shader.defines`), and `.wgsl` written for naga_oil (`#define_import_path`, `#import`,
//! `#ifdef`) is composed by `naga_oil`; their modules are found in the input tree and in
//! `shader.import_paths` ([`imports`]). A module others import is their input (the kind's
//! `referenced_files` lists a source's imports), not a source of its own.

mod compile;
mod compose;
mod const_overflow;
pub mod imports;
mod language;
mod limits;
mod module_index;
mod location;
mod names;
mod one_entry_point;
pub mod settings;
mod validator;
mod wesl_link;
mod wgsl_out;

pub use compile::SPIRV_VERSION;

use super::texture::read_limited;
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::code::{DiagnosticCode, Warning};
use crate::formats::hman::EntryKind;
use crate::formats::wgsl::limits::{MAX_EXPRESSION_DEPTH, MAX_NESTING, STACK_BYTES};
use crate::kinds::asset::{AssetError, CompiledAsset, OutputFile};
use crate::kinds::source::Source;
use compile::Wanted;
use language::Language;
use location::LineCol;
use settings::ShaderOutput;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Shader,
    name: "shader",
    recognise: Recognise::FileSuffixes(&[".wgsl", ".wesl", ".vert", ".frag", ".comp", ".glsl"]),
    sources: "<name>.wgsl, <name>.wesl, GLSL <name>.vert .frag .comp (or .glsl with #pragma stage(...))",
    outputs: "<name>/<entryPoint>.spv (SPIR-V 1.3, one per entry point); with shader.outputs = [\"wgsl\"], <name>/<entryPoint>.wgsl",
    // `<ref>/<entryPoint>.spv`: two shaders of one ref would share the folder.
    naming: OutputNaming {
        ref_keeps_extension: false,
        extension_room: 6,
        claims: Claim::RefWith("/"),
    },
    compile,
    settings_key: |settings, key| key.table("shader", &settings.shader),
    encoders: &["naga"],
    referenced_files: Some(imports::referenced_files),
    // A module other shaders import is built as a part of them, not on its own.
    names_own_kind: true,
    names_files_cheaply: |_| true,
    copies_as_is: false,
    may_encode_uastc: super::never_encodes_uastc,
};

/// Hand-written shaders are kilobytes; generated ones reach a few megabytes.
const MAX_SHADER_FILE_BYTES: u64 = 16 << 20;
/// Why a GLSL source gets no `.wgsl`.
pub const GLSL_HAS_NO_WGSL: &str = "GLSL is compiled to SPIR-V only: no .wgsl is written for \
     it (naga reads Vulkan GLSL, whose clip space is y-down and WebGPU's y-up, so a \
     translation would draw upside down; write the shader in WGSL or WESL for WebGPU)";

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
    if matches!(language, Language::Glsl(_)) {
        names::check_defines(defines).map_err(|e| invalid(None, e.to_string()))?;
    }
    let mut warnings = Vec::new();
    let shader = &context.settings.shader;
    let mut wanted = Wanted {
        spirv: shader.writes(ShaderOutput::Spirv),
        wgsl: shader.writes(ShaderOutput::Wgsl),
    };
    if matches!(language, Language::Glsl(_)) && wanted.wgsl {
        if !wanted.spirv {
            return Err(invalid(
                None,
                format!("{GLSL_HAS_NO_WGSL}, and shader.outputs names \"wgsl\" alone"),
            ));
        }
        warnings.push(Warning::new(DiagnosticCode::NoWgsl, GLSL_HAS_NO_WGSL));
        wanted.wgsl = false;
    }
    let defines = defines.clone();
    let job = Job {
        text,
        language,
        defines,
        file: source.abs_path.clone(),
        rel_path: source.rel_path.clone(),
        input_root: context.input_root.to_path_buf(),
        import_dirs: context.settings.shader.import_dirs(),
        import_paths: context.settings.shader.import_paths.clone(),
        wanted,
    };
    let (entries, inputs) = std::thread::Builder::new()
        .name("naga".into())
        .stack_size(STACK_BYTES)
        .spawn(move || job.run())
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
        .map_err(|f| match f.file {
            Some(file) => AssetError::Invalid {
                path: match f.at {
                    Some(at) => format!("{}:{at}", file.display()),
                    None => file.display().to_string(),
                },
                message: f.message,
            },
            None => invalid(f.at, f.message),
        })?;
    names::check_entry_points(entries.iter().map(|e| e.name.as_str()))
        .map_err(|e| invalid(None, e.to_string()))?;

    let reference = source.runtime_ref();
    let mut files = Vec::new();
    for e in entries {
        let id = format!("{reference}/{}", e.name);
        if let Some(spirv) = e.spirv {
            files.push(OutputFile {
                manifest_id: Some(crate::formats::hash::fnv1a64(&id)),
                ..OutputFile::new(format!("{id}.spv"), spirv, EntryKind::Shader)
            });
        }
        // Hashed by its path, extension and all (the manifest's default): a build writing
        // both has two entries for one entry point.
        if let Some(wgsl) = e.wgsl {
            files.push(OutputFile::new(
                format!("{id}.wgsl"),
                wgsl.into_bytes(),
                EntryKind::WgslShader,
            ));
        }
    }
    Ok(CompiledAsset {
        files,
        textures: Vec::new(),
        warnings,
        stats: Default::default(),
        times: Default::default(),
        inputs,
    })
}

/// A compile failure, in another file than the source when it is in a module it imports.
struct Failed {
    file: Option<PathBuf>,
    at: Option<LineCol>,
    message: String,
}

impl From<compile::Diagnostic> for Failed {
    fn from(d: compile::Diagnostic) -> Self {
        Self {
            file: None,
            at: d.at,
            message: d.message,
        }
    }
}

/// One source's compile, run on the thread with the large stack.
struct Job {
    text: String,
    language: Language,
    defines: BTreeMap<String, String>,
    file: PathBuf,
    rel_path: String,
    input_root: PathBuf,
    import_dirs: Vec<PathBuf>,
    import_paths: Vec<String>,
    wanted: Wanted,
}

impl Job {
    /// The entry points' outputs and every file read (the source first).
    fn run(self) -> Result<(Vec<compile::EntryOutput>, Vec<PathBuf>), Failed> {
        match self.language {
            Language::Wgsl | Language::Glsl(_) => {
                let entries =
                    compile::compile(&self.text, self.language, &self.defines, self.wanted)?;
                Ok((entries, vec![self.file]))
            }
            Language::Wesl => {
                let linked = wesl_link::link(
                    &self.text,
                    &self.file,
                    &self.rel_path,
                    &self.input_root,
                    &self.import_dirs,
                    &self.import_paths,
                    &self.defines,
                )
                .map_err(|e| Failed {
                    file: Some(e.file),
                    at: e.at,
                    message: e.message,
                })?;
                let entries = compile_linked(&linked.wgsl, self.language, self.wanted)?;
                Ok((entries, linked.files))
            }
            Language::WgslComposed => {
                let composed = compose::compose(
                    &self.text,
                    &self.file,
                    &self.input_root,
                    &self.import_dirs,
                    &self.import_paths,
                    &self.defines,
                )
                .map_err(|e| Failed {
                    file: Some(e.file),
                    at: e.at,
                    message: e.message,
                })?;
                let entries =
                    compile::compile_module(composed.module, None, self.language, self.wanted)
                    .map_err(|d| in_linked(d, "composed"))?;
                Ok((entries, composed.files))
            }
        }
    }
}

/// Compiles WGSL linked from several files: its errors have no place in any one file.
fn compile_linked(
    wgsl: &str,
    language: Language,
    wanted: Wanted,
) -> Result<Vec<compile::EntryOutput>, Failed> {
    if let Some((_, exceeded)) = limits::check(wgsl, MAX_NESTING, MAX_EXPRESSION_DEPTH) {
        return Err(in_linked(
            compile::Diagnostic {
                at: None,
                message: exceeded.to_string(),
            },
            "linked",
        ));
    }
    let module = naga::front::wgsl::parse_str(wgsl)
        .map_err(|e| in_linked(compile::wgsl_diagnostic(wgsl, &e), "linked"))?;
    compile::compile_module(module, None, language, wanted).map_err(|d| in_linked(d, "linked"))
}

fn in_linked(d: compile::Diagnostic, how: &str) -> Failed {
    if d.message.starts_with("no entry point") {
        return Failed {
            file: None,
            at: None,
            message: format!(
                "{}; a module that other shaders import is built as a part of them, and no \
                 shader imports this one",
                d.message
            ),
        };
    }
    Failed {
        file: None,
        at: None,
        message: format!("{} (in the WGSL {how} from its imports)", d.message),
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}
