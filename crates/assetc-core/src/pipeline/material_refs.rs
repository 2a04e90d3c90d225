//! FNV-1a material refs: `<sourceRef>/<leaf>` in first-use order.

use crate::formats::hash::fnv1a64;
use crate::scene::Material;

/// The leaf name of material `index`: its lower-cased name when non-empty and unique
/// (case-insensitively) within the source, else `material_<index>`.
pub fn material_leaf(materials: &[Material], index: usize) -> String {
    let name = materials
        .get(index)
        .and_then(|m| m.name.as_deref())
        .unwrap_or("")
        .to_lowercase();
    let unique = !name.is_empty()
        && materials
            .iter()
            .filter(|m| m.name.as_deref().map(str::to_lowercase).as_deref() == Some(name.as_str()))
            .count()
            == 1;
    if unique {
        name
    } else {
        format!("material_{index}")
    }
}

/// The runtime ref string `<sourceRef>/<leaf>` of material `index`.
pub fn material_ref(source_ref: &str, materials: &[Material], index: usize) -> String {
    format!("{source_ref}/{}", material_leaf(materials, index))
}

/// Dense material slots in first-use order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MaterialSlots {
    /// Source material index of each slot.
    pub source_materials: Vec<usize>,
    /// MTRL: the hash of each slot's ref.
    pub hashes: Vec<u64>,
    /// Slot of each submesh (`hmesh::NO_MATERIAL` for none).
    pub submesh_slots: Vec<u32>,
}

/// Assigns slots to the submeshes' source materials in order of first use.
pub fn assign_material_slots(
    source_ref: &str,
    materials: &[Material],
    submesh_materials: &[Option<usize>],
) -> MaterialSlots {
    let mut slots = MaterialSlots::default();
    for m in submesh_materials {
        let slot = match m {
            None => crate::formats::hmesh::NO_MATERIAL,
            Some(index) => match slots.source_materials.iter().position(|s| s == index) {
                Some(p) => p as u32,
                None => {
                    slots.source_materials.push(*index);
                    slots
                        .hashes
                        .push(fnv1a64(&material_ref(source_ref, materials, *index)));
                    (slots.source_materials.len() - 1) as u32
                }
            },
        };
        slots.submesh_slots.push(slot);
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Material> {
        names
            .iter()
            .map(|n| Material {
                name: (!n.is_empty()).then(|| n.to_string()),
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn seed_example_chair() {
        // formats.md: materials ["Wood", "", "Leather", "Wood"], submeshes using 2 then 0.
        let materials = named(&["Wood", "", "Leather", "Wood"]);
        let slots = assign_material_slots("models/chair", &materials, &[Some(2), Some(0)]);
        assert_eq!(
            slots.hashes,
            vec![
                fnv1a64("models/chair/leather"),
                fnv1a64("models/chair/material_0")
            ]
        );
        assert_eq!(slots.submesh_slots, vec![0, 1]);
        assert_eq!(slots.source_materials, vec![2, 0]);
    }

    #[test]
    fn duplicates_differing_in_case_are_not_unique() {
        let materials = named(&["Metal", "METAL", "Glass"]);
        assert_eq!(material_leaf(&materials, 0), "material_0");
        assert_eq!(material_leaf(&materials, 1), "material_1");
        assert_eq!(material_leaf(&materials, 2), "glass");
    }

    #[test]
    fn reused_material_keeps_its_slot_and_none_is_no_material() {
        let materials = named(&["a", "b"]);
        let slots = assign_material_slots("x", &materials, &[Some(1), None, Some(0), Some(1)]);
        assert_eq!(
            slots.submesh_slots,
            vec![0, crate::formats::hmesh::NO_MATERIAL, 1, 0]
        );
        assert_eq!(slots.hashes.len(), 2);
    }
}
