//! One shader source through naga: parse (WGSL or GLSL), validate, then one SPIR-V module
//! (and, when asked, one WGSL module) per entry point.

use super::language::Language;
use super::location::{span_location, LineCol};
use super::one_entry_point::{one_entry_point, shared_items};
use naga::back::pipeline_constants::PipelineConstantError;
use naga::back::spv;
use super::validator::{error_chain, validator};
use std::collections::BTreeMap;

/// SPIR-V 1.3: the version Vulkan 1.1 consumes natively (and spirv-val's
/// `--target-env vulkan1.1` accepts), and the first with the subgroup operations naga emits.
pub const SPIRV_VERSION: (u8, u8) = (1, 3);

/// One entry point compiled on its own.
#[derive(Debug, Clone)]
pub struct EntryOutput {
    pub name: String,
    /// A little-endian SPIR-V module holding this entry point only, when asked for.
    pub spirv: Option<Vec<u8>>,
    /// A plain WGSL module holding this entry point only, when asked for.
    pub wgsl: Option<String>,
}

/// What each entry point is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wanted {
    pub spirv: bool,
    pub wgsl: bool,
}

#[cfg(test)]
impl Wanted {
    pub const SPIRV: Self = Self {
        spirv: true,
        wgsl: false,
    };
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
    wanted: Wanted,
) -> Result<Vec<EntryOutput>, Diagnostic> {
    let module = parse(text, language, defines)?;
    compile_module(module, Some(text), language, wanted)
}

/// Compiles a module already parsed (or linked from several files): every entry point
/// becomes one SPIR-V module, in source order. `text` is the source the module's spans
/// point into, when there is one (a linked module's spans point into no file).
pub fn compile_module(
    module: naga::Module,
    text: Option<&str>,
    language: Language,
    wanted: Wanted,
) -> Result<Vec<EntryOutput>, Diagnostic> {
    match text {
        Some(text) => compile_located(module, text, language, wanted),
        None => compile_located(module, "", language, wanted).map_err(|mut d| {
            d.at = None;
            d
        }),
    }
}

fn compile_located(
    module: naga::Module,
    text: &str,
    language: Language,
    wanted: Wanted,
) -> Result<Vec<EntryOutput>, Diagnostic> {
    // The whole module first, so that an error names its place in the source; each entry
    // point's cut is validated again on its own below.
    validator().validate(&module).map_err(|e| {
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
    if language == Language::Wgsl && !text.is_empty() {
        if let Some((at, message)) = super::const_overflow::check(text) {
            return Err(Diagnostic::new(Some(at), message));
        }
    }
    if module.entry_points.is_empty() {
        return Err(Diagnostic::new(
            None,
            "no entry point: nothing to compile (WGSL needs a @vertex, @fragment or @compute function)",
        ));
    }
    check_entry_point_work(&module)?;
    let options = writer_options(language);
    module
        .entry_points
        .iter()
        .enumerate()
        .map(|(index, ep)| {
            let failed = |at: Option<LineCol>, e: &dyn std::error::Error| {
                Diagnostic::new(
                    at.or_else(|| span_of_function(text, &module, &ep.name)),
                    format!("entry point {}: {}", ep.name, error_chain(e)),
                )
            };
            let one = one_entry_point(&module, index);
            let one_info = super::validator::validator().validate(&one).map_err(|e| {
                let e = super::wgsl_out::WgslOutError::Invalid(error_chain(&e));
                failed(None, &e)
            })?;
            let spirv = match wanted.spirv {
                true => Some(spirv_of(&one, &one_info, ep, text, &options, &failed)?),
                false => None,
            };
            let wgsl = match wanted.wgsl {
                true => Some(
                    super::wgsl_out::write(&one, &one_info).map_err(|e| failed(None, &e))?,
                ),
                false => None,
            };
            Ok(EntryOutput {
                name: ep.name.clone(),
                spirv,
                wgsl,
            })
        })
        .collect()
}

/// One entry point's SPIR-V: `override` constants resolved to their defaults and only
/// what the entry point reaches kept, so each module holds its own code alone.
fn spirv_of(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    ep: &naga::EntryPoint,
    text: &str,
    options: &spv::Options,
    failed: &dyn Fn(Option<LineCol>, &dyn std::error::Error) -> Diagnostic,
) -> Result<Vec<u8>, Diagnostic> {
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        module,
        info,
        Some((ep.stage, ep.name.as_str())),
        &naga::back::PipelineConstants::default(),
    )
    .map_err(|e| match &e {
        PipelineConstantError::MissingValue(name) => {
            let mut d = failed(override_location(text, module, name), &e);
            d.message.push_str(
                " (an `override` needs a default here: the SPIR-V is written with every \
                 override resolved, as there is no pipeline to supply one)",
            );
            d
        }
        _ => failed(None, &e),
    })?;
    let pipeline = spv::PipelineOptions {
        shader_stage: ep.stage,
        entry_point: ep.name.clone(),
    };
    let words =
        spv::write_vec(&module, &info, options, Some(&pipeline)).map_err(|e| failed(None, &e))?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// Most entry points times shared module items a source may ask for. Each entry point's
/// output is written from its own copy of the module's shared part (types, constants,
/// globals, helper functions; see `one_entry_point.rs`), cut down to what it reaches, so
/// the work is that product plus the entry points' own code. Many small entry points over
/// a small shared part are linear (10,000 compute entry points: a copy of a few items
/// each); at this bound a source takes a few seconds.
pub const MAX_ENTRY_POINT_WORK: u64 = 4_000_000;

/// Refuses a module whose entry points would each copy too large a shared part (see
/// [`MAX_ENTRY_POINT_WORK`]), before any is written.
fn check_entry_point_work(module: &naga::Module) -> Result<(), Diagnostic> {
    let entry_points = module.entry_points.len() as u64;
    if entry_points <= 1 {
        return Ok(());
    }
    let items = shared_items(module);
    if entry_points.saturating_mul(items) <= MAX_ENTRY_POINT_WORK {
        return Ok(());
    }
    Err(Diagnostic::new(
        None,
        format!(
            "{entry_points} entry points over {items} shared items (types, constants, globals \
             and helper functions): each entry point is written from its own copy of them, \
             and {entry_points} x {items} is more than the {MAX_ENTRY_POINT_WORK} a shader \
             source may ask for (split it into several files)"
        ),
    ))
}

fn parse(
    text: &str,
    language: Language,
    defines: &BTreeMap<String, String>,
) -> Result<naga::Module, Diagnostic> {
    match language {
        Language::Wgsl | Language::Wesl | Language::WgslComposed => {
            naga::front::wgsl::parse_str(text).map_err(|e| wgsl_diagnostic(text, &e))
        }
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

/// A WGSL parse error where it is. A label that only repeats the message (naga often
/// labels the span with the same words) is not said twice; a WESL or naga_oil import in a
/// plain `.wgsl` gets a hint at the form it is written in.
pub fn wgsl_diagnostic(text: &str, e: &naga::front::wgsl::ParseError) -> Diagnostic {
    let at = e.labels().find_map(|(span, _)| span_location(text, span));
    let mut message = e.message().to_string();
    let labels: Vec<&str> = e
        .labels()
        .map(|(_, l)| l)
        .filter(|l| !l.is_empty() && !message.contains(l))
        .collect();
    if !labels.is_empty() {
        message.push_str(&format!(" ({})", labels.join("; ")));
    }
    for note in e.notes() {
        message.push_str(&format!("; note: {note}"));
    }
    let line = at
        .and_then(|at| text.lines().nth(at.line - 1))
        .map(str::trim_start)
        .unwrap_or("");
    if line.starts_with("import ") || line.starts_with("import\t") {
        message.push_str(
            "; `import` is WESL: name the file `.wesl` to link its imports (or write it for \
             naga_oil, `#import a::b`)",
        );
    }
    Diagnostic::new(at, message)
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


/// naga's defaults but for the version and the flags, which are set whatever the build
/// profile (naga's default adds debug names in debug builds only, so the bytes would
/// depend on how assetc was compiled). Names of variables and types are kept (`DEBUG`)
/// for reflection and GPU debuggers; no source text or path goes in. WGSL's clip space
/// (y up) is flipped to Vulkan's as wgpu does; GLSL is taken as Vulkan GLSL, unchanged.
fn writer_options(language: Language) -> spv::Options<'static> {
    let mut flags = spv::WriterFlags::DEBUG | spv::WriterFlags::LABEL_VARYINGS;
    if !matches!(language, Language::Glsl(_)) {
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


#[cfg(test)]
mod tests {
    use super::*;

    fn compute_entry_points(count: usize) -> String {
        (0..count)
            .map(|i| format!("@compute @workgroup_size(1) fn e{i}() {{}}\n"))
            .collect()
    }

    #[test]
    fn many_small_entry_points_compile_each_alone() {
        // 3,000 entry points, each reaching only its own function: the shared part is a
        // handful of items, so every one is written from a small copy.
        let text = compute_entry_points(3_000);
        let module = naga::front::wgsl::parse_str(&text).unwrap();
        assert!(3_000 * shared_items(&module) <= MAX_ENTRY_POINT_WORK);
        let all = compile(&text, Language::Wgsl, &BTreeMap::new(), Wanted::SPIRV).unwrap();
        assert_eq!(all.len(), 3_000);
        // Each module holds its own entry point alone: the same size for every one but
        // the name's length, and far under the whole source's.
        let first = all[0].spirv.as_ref().unwrap();
        let last = all[2_999].spirv.as_ref().unwrap();
        assert!(first.len().abs_diff(last.len()) <= 16, "{} {}", first.len(), last.len());
        assert!(first.len() * 100 < text.len(), "{} of {}", first.len(), text.len());
    }

    #[test]
    fn entry_points_times_shared_items_is_bounded_before_any_is_written() {
        // 500 entry points each calling the one helper that calls 2,000 others: every
        // entry point's copy holds the 2,000 helpers, 500 x 2,000+ is past the bound.
        let mut text = String::new();
        for i in 0..2_000 {
            text += &format!("fn h{i}(x: u32) -> u32 {{ return x + {i}u; }}\n");
        }
        text += "fn all(x: u32) -> u32 { var s = x;\n";
        for i in 0..2_000 {
            text += &format!("s = h{i}(s);\n");
        }
        text += "return s; }\n";
        text += &compute_entry_points(500).replace("{}", "{ _ = all(1u); }");
        let module = naga::front::wgsl::parse_str(&text).unwrap();
        let items = shared_items(&module);
        assert!(500 * items > MAX_ENTRY_POINT_WORK, "{items} items");
        let e = compile(&text, Language::Wgsl, &BTreeMap::new(), Wanted::SPIRV).unwrap_err();
        assert!(
            e.message
                .contains(&format!("500 entry points over {items} shared items")),
            "{e}"
        );
    }
}
