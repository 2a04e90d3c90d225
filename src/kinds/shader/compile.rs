//! One shader source through naga: parse (WGSL or GLSL), validate, then one SPIR-V module
//! per entry point.

use super::language::Language;
use super::location::{span_location, LineCol};
use naga::back::pipeline_constants::PipelineConstantError;
use naga::back::spv;
use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};
use std::collections::BTreeMap;

/// SPIR-V 1.3: the version Vulkan 1.1 consumes natively (and spirv-val's
/// `--target-env vulkan1.1` accepts), and the first with the subgroup operations naga emits.
pub const SPIRV_VERSION: (u8, u8) = (1, 3);

/// One entry point compiled on its own.
#[derive(Debug, Clone)]
pub struct EntryOutput {
    pub name: String,
    /// A little-endian SPIR-V module holding this entry point only.
    pub spirv: Vec<u8>,
}

/// A compile error, with where in the source it is when naga says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Diagnostic {
    pub at: Option<LineCol>,
    pub message: String,
}

impl Diagnostic {
    fn new(at: Option<LineCol>, message: impl Into<String>) -> Self {
        Self {
            at,
            message: message.into(),
        }
    }
}

/// Compiles `text`; every entry point becomes one SPIR-V module, in source order.
pub fn compile(
    text: &str,
    language: Language,
    defines: &BTreeMap<String, String>,
) -> Result<Vec<EntryOutput>, Diagnostic> {
    let module = parse(text, language, defines)?;
    let info = validator().validate(&module).map_err(|e| {
        let at = e.spans().find_map(|(span, _)| span_location(text, *span));
        let labels: Vec<&str> = e
            .spans()
            .map(|(_, label)| label.as_str())
            .filter(|l| !l.is_empty())
            .collect();
        let mut message = format!("invalid shader: {}", error_chain(&e));
        if !labels.is_empty() {
            message.push_str(&format!(" ({})", labels.join("; ")));
        }
        Diagnostic::new(at, message)
    })?;
    if module.entry_points.is_empty() {
        return Err(Diagnostic::new(
            None,
            "no entry point: nothing to compile (WGSL needs a @vertex, @fragment or @compute function)",
        ));
    }
    let options = writer_options(language);
    module
        .entry_points
        .iter()
        .map(|ep| {
            let failed = |at: Option<LineCol>, e: &dyn std::error::Error| {
                Diagnostic::new(
                    at.or_else(|| span_of_function(text, &module, &ep.name)),
                    format!("entry point {}: {}", ep.name, error_chain(e)),
                )
            };
            // Resolves `override` constants to their defaults and keeps only what this
            // entry point reaches, so each module holds its own code alone.
            let (module, info) = naga::back::pipeline_constants::process_overrides(
                &module,
                &info,
                Some((ep.stage, ep.name.as_str())),
                &naga::back::PipelineConstants::default(),
            )
            .map_err(|e| match &e {
                PipelineConstantError::MissingValue(name) => {
                    let mut d = failed(override_location(text, &module, name), &e);
                    d.message.push_str(
                        " (an `override` needs a default here: the SPIR-V is written with \
                         every override resolved, as there is no pipeline to supply one)",
                    );
                    d
                }
                _ => failed(None, &e),
            })?;
            let pipeline = spv::PipelineOptions {
                shader_stage: ep.stage,
                entry_point: ep.name.clone(),
            };
            let words = spv::write_vec(&module, &info, &options, Some(&pipeline))
                .map_err(|e| failed(None, &e))?;
            Ok(EntryOutput {
                name: ep.name.clone(),
                spirv: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            })
        })
        .collect()
}

fn parse(
    text: &str,
    language: Language,
    defines: &BTreeMap<String, String>,
) -> Result<naga::Module, Diagnostic> {
    match language {
        Language::Wgsl => naga::front::wgsl::parse_str(text).map_err(|e| {
            let at = e.labels().find_map(|(span, _)| span_location(text, span));
            let mut message = e.message().to_string();
            let labels: Vec<&str> = e
                .labels()
                .map(|(_, l)| l)
                .filter(|l| !l.is_empty())
                .collect();
            if !labels.is_empty() {
                message.push_str(&format!(" ({})", labels.join("; ")));
            }
            for note in e.notes() {
                message.push_str(&format!("; note: {note}"));
            }
            Diagnostic::new(at, message)
        }),
        Language::Glsl(stage) => {
            let options = naga::front::glsl::Options {
                stage,
                defines: defines
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            };
            naga::front::glsl::Frontend::default()
                .parse(&options, text)
                .map_err(|e| glsl_diagnostic(text, &e.errors))
        }
    }
}

/// The first GLSL error where it is, naming the next few after it (naga goes on parsing
/// after an error, and later ones are often the same mistake's echoes).
fn glsl_diagnostic(text: &str, errors: &[naga::front::glsl::Error]) -> Diagnostic {
    const SHOWN: usize = 3;
    let Some(first) = errors.first() else {
        return Diagnostic::new(None, "the GLSL frontend failed without saying why");
    };
    let mut message = first.kind.to_string();
    let rest: Vec<String> = errors[1..]
        .iter()
        .take(SHOWN)
        .map(|e| match span_location(text, e.meta) {
            Some(at) => format!("{at}: {}", e.kind),
            None => e.kind.to_string(),
        })
        .collect();
    if !rest.is_empty() {
        let more = errors.len() - 1 - rest.len();
        message.push_str(&format!("; then {}", rest.join("; ")));
        if more > 0 {
            message.push_str(&format!("; and {more} more"));
        }
    }
    Diagnostic::new(span_location(text, first.meta), message)
}

/// Every capability naga knows: whether a device has one is the engine's question at
/// pipeline creation; what matters here is that the module is valid SPIR-V.
fn validator() -> Validator {
    let mut v = Validator::new(ValidationFlags::all(), Capabilities::all());
    v.subgroup_stages(ShaderStages::all())
        .subgroup_operations(SubgroupOperationSet::all());
    v
}

/// naga's defaults but for the version and the flags, which are set whatever the build
/// profile (naga's default adds debug names in debug builds only, so the bytes would
/// depend on how assetc was compiled). Names of variables and types are kept (`DEBUG`)
/// for reflection and GPU debuggers; no source text or path goes in. WGSL's clip space
/// (y up) is flipped to Vulkan's as wgpu does; GLSL is taken as Vulkan GLSL, unchanged.
fn writer_options(language: Language) -> spv::Options<'static> {
    let mut flags = spv::WriterFlags::DEBUG | spv::WriterFlags::LABEL_VARYINGS;
    if language == Language::Wgsl {
        flags |= spv::WriterFlags::ADJUST_COORDINATE_SPACE;
    }
    spv::Options {
        lang_version: SPIRV_VERSION,
        flags,
        ..spv::Options::default()
    }
}

/// Where an entry point's function is declared, for errors that have no span of their own.
fn span_of_function(text: &str, module: &naga::Module, name: &str) -> Option<LineCol> {
    let ep = module.entry_points.iter().find(|ep| ep.name == name)?;
    let span = ep
        .function
        .body
        .span_iter()
        .map(|(_, s)| *s)
        .find(|s| s.is_defined())?;
    span_location(text, span)
}

/// Where the override a pipeline constant error names is declared (by name, or by its
/// `@id` number).
fn override_location(text: &str, module: &naga::Module, name: &str) -> Option<LineCol> {
    let (handle, _) = module.overrides.iter().find(|(_, o)| {
        o.name.as_deref() == Some(name) || o.id.is_some_and(|id| id.to_string() == name)
    })?;
    span_location(text, module.overrides.get_span(handle))
}

/// An error's message followed by its sources' (naga nests the useful detail).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = s.source();
    }
    message
}
