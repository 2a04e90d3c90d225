//! naga's WGSL front end and validator over a `.wgsl` file (the `wgsl-naga` feature), on a
//! thread with the stack [`super::limits`] is measured against.

use super::limits::STACK_BYTES;
use super::{EntryPoint, ModuleSummary, WgslError};
use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

/// Parses and validates `text`, which [`super::check_text`] has bounded.
pub fn check(text: &str) -> Result<ModuleSummary, WgslError> {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("naga".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || parse_and_validate(text))
        {
            Ok(handle) => handle.join().unwrap_or_else(|payload| {
                Err(WgslError::Checker(format!(
                    "naga panicked: {}",
                    payload
                        .downcast_ref::<&str>()
                        .copied()
                        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                        .unwrap_or("no message")
                )))
            }),
            // Where threads cannot be made (a browser's main thread), on the caller's
            // stack: the limits keep the recursion bounded either way.
            Err(_) => parse_and_validate(text),
        }
    })
}

fn parse_and_validate(text: &str) -> Result<ModuleSummary, WgslError> {
    let module = naga::front::wgsl::parse_str(text).map_err(|e| {
        let at = e.location(text);
        let mut message = e.message().to_string();
        let labels: Vec<&str> = e
            .labels()
            .map(|(_, l)| l)
            .filter(|l| !l.is_empty() && !message.contains(l))
            .collect();
        if !labels.is_empty() {
            message.push_str(&format!(" ({})", labels.join("; ")));
        }
        WgslError::Parse {
            line: at.map_or(0, |a| a.line_number),
            column: at.map_or(0, |a| a.line_position),
            message,
        }
    })?;
    validator()
        .validate(&module)
        .map_err(|e| WgslError::Invalid {
            message: error_chain(&e),
        })?;
    Ok(ModuleSummary {
        entry_points: module
            .entry_points
            .iter()
            .map(|ep| EntryPoint {
                name: ep.name.clone(),
                stage: format!("{:?}", ep.stage).to_ascii_lowercase(),
                workgroup_size: ep.workgroup_size,
            })
            .collect(),
        functions: module.functions.len(),
        global_variables: module.global_variables.len(),
        overrides: module.overrides.len(),
        types: module.types.len(),
    })
}

/// Every capability naga knows, as the shader kind validates: whether a device has one is
/// the engine's question at pipeline creation.
fn validator() -> Validator {
    let mut v = Validator::new(ValidationFlags::all(), Capabilities::all());
    v.subgroup_stages(ShaderStages::all())
        .subgroup_operations(SubgroupOperationSet::all());
    v
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
