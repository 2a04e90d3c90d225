//! The module paths a file names: every `crate::`, `super::` and `self::` path of its
//! code, `use` groups spread out (`crate::{a::X, b::{c, d}}` is three paths).

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    Crate,
    Super,
    SelfModule,
}

/// One path: its base and the names after it (`super::super::x` keeps its second `super`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModPath {
    pub base: Base,
    pub names: Vec<String>,
}

/// The code of a file that the graph reads: without its unit tests (tests may use
/// anything) and without comment lines (doc examples name paths too).
pub fn code_of(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path of `code` (already stripped by [`code_of`]), in the order they appear.
pub fn paths_in(code: &str) -> Vec<ModPath> {
    let mut starts: Vec<(usize, Base, &str)> = Vec::new();
    for (base, prefix) in [
        (Base::Crate, "crate::"),
        (Base::Super, "super::"),
        (Base::SelfModule, "self::"),
    ] {
        starts.extend(code.match_indices(prefix).map(|(at, _)| (at, base, prefix)));
    }
    starts.sort_by_key(|(at, _, _)| *at);
    let mut found = Vec::new();
    // A `super::` inside `super::{super::x}` is part of the path already read.
    let mut read_up_to = 0;
    for (at, base, prefix) in starts {
        // `assetc_core::`, `my_self::` and the like only end in the prefix: another
        // name's path.
        if at < read_up_to || code[..at].chars().next_back().is_some_and(is_ident_char) {
            continue;
        }
        let mut names = Vec::new();
        let tree_at = at + prefix.len();
        read_up_to = tree_at + use_tree(&code[tree_at..], &mut Vec::new(), &mut names);
        found.extend(names.into_iter().map(|names| ModPath { base, names }));
    }
    found
}

/// Reads one use tree (`a::b::C`, `a::{b, c::D}`, `a::*`) at the start of `rest`, adding
/// each path it spells to `out` after `prefix`. Returns the length read.
fn use_tree(rest: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let depth = prefix.len();
    let mut at = 0;
    loop {
        at += rest[at..].len() - rest[at..].trim_start().len();
        let tail = &rest[at..];
        if let Some(group) = tail.strip_prefix('{') {
            at += 1 + group_items(group, prefix, out);
            prefix.truncate(depth);
            return at;
        }
        let name: String = tail.chars().take_while(|&c| is_ident_char(c)).collect();
        if name.is_empty() {
            // `*`, a turbofish or the end of the path.
            break;
        }
        at += name.len();
        prefix.push(name);
        match rest[at..].strip_prefix("::") {
            Some(_) => at += 2,
            None => break,
        }
    }
    if prefix.len() > depth || depth > 0 {
        out.push(prefix.clone());
    }
    prefix.truncate(depth);
    at
}

/// The items of a `{...}` group whose `{` was just read; returns the length read, up to
/// and with its `}`.
fn group_items(group: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut at = 0;
    loop {
        at += group[at..].len() - group[at..].trim_start_matches([' ', '\n', '\t', ',']).len();
        match group[at..].chars().next() {
            None => return at,
            Some('}') => return at + 1,
            _ => {}
        }
        let read = use_tree(&group[at..], prefix, out);
        at += read;
        // Past a rename (`X as Y`) to the next item.
        let skip = group[at..].find([',', '}']).unwrap_or(group.len() - at);
        if read == 0 && skip == 0 {
            // Nothing this reader understands: leave the group rather than loop.
            return group.len();
        }
        at += skip;
    }
}
