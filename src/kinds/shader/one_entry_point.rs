//! One entry point of a module on its own, cut down to what it reaches: the module each
//! output (SPIR-V or WGSL) is written from.
//!
//! Built without copying the other entry points (a struct literal, not `module.clone()`
//! followed by removing them), so the work per entry point is the shared part of the
//! module (types, constants, globals, helper functions) plus its own function, not the
//! whole source: a file of 10,000 small entry points costs 10,000 small copies instead of
//! 10,000 copies of everything (which ran past 120 s).

use naga::compact::{compact, KeepUnused};

/// Entry point `index` of `module` alone, with everything it does not reach removed.
pub fn one_entry_point(module: &naga::Module, index: usize) -> naga::Module {
    let doc_comments = module.doc_comments.as_ref().map(|docs| {
        let mut docs = docs.clone();
        // Entry points' comments are keyed by position: this one is now the first.
        docs.entry_points = docs
            .entry_points
            .get(&index)
            .map(|comment| (0, comment.clone()))
            .into_iter()
            .collect();
        docs
    });
    // A struct literal: a field naga adds later is a compile error here, not a silent loss.
    let mut one = naga::Module {
        types: module.types.clone(),
        special_types: module.special_types.clone(),
        constants: module.constants.clone(),
        overrides: module.overrides.clone(),
        global_variables: module.global_variables.clone(),
        global_expressions: module.global_expressions.clone(),
        functions: module.functions.clone(),
        entry_points: module.entry_points.get(index).cloned().into_iter().collect(),
        diagnostic_filters: module.diagnostic_filters.clone(),
        diagnostic_filter_leaf: module.diagnostic_filter_leaf,
        doc_comments,
    };
    compact(&mut one, KeepUnused::No);
    one
}

/// What building one entry point's module copies and compacts besides its own function:
/// types, constants, overrides, globals, global expressions and the helper functions.
pub fn shared_items(module: &naga::Module) -> u64 {
    let functions: usize = module
        .functions
        .iter()
        .map(|(_, f)| f.expressions.len() + f.body.len() + f.arguments.len() + 1)
        .sum();
    (module.types.len()
        + module.constants.len()
        + module.overrides.len()
        + module.global_variables.len()
        + module.global_expressions.len()
        + functions) as u64
}
