//! naga's validator as the shader kind runs it, and its errors as one line.

use naga::valid::{Capabilities, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator};

/// Every capability naga knows: whether a device has one is the engine's question at
/// pipeline creation; what matters here is that the module is valid.
pub fn validator() -> Validator {
    let mut v = Validator::new(ValidationFlags::all(), Capabilities::all());
    v.subgroup_stages(ShaderStages::all())
        .subgroup_operations(SubgroupOperationSet::all());
    v
}

/// An error's message followed by its sources' (naga nests the useful detail).
pub fn error_chain(e: &dyn std::error::Error) -> String {
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
