//! Locations of FBX elements in messages and `gltf_path` fields.

/// `meshes["Body"]` for a named element, `meshes[3]` (its index among the elements of its
/// type) for an unnamed one. The name is quoted with Rust's escapes, so a name holding
/// quotes or control characters cannot make the message ambiguous.
pub fn element_path(kind: &str, element: &ufbx::Element) -> String {
    let name: &str = &element.name;
    if name.is_empty() {
        format!("{kind}[{}]", element.typed_id)
    } else {
        format!("{kind}[{name:?}]")
    }
}

/// The element's name, `None` when empty.
pub fn name(element: &ufbx::Element) -> Option<String> {
    let name: &str = &element.name;
    (!name.is_empty()).then(|| name.to_string())
}
