//! Models: glTF 2.0 sources (`.gltf` with its buffers and images, `.glb`), Wavefront OBJ
//! (`.obj` with its `mtllib` files and their maps) and FBX (`.fbx`, binary or ASCII, with
//! its images), imported into one
//! [`crate::scene::Scene`] that every target writer serialises.

mod settings;

use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::code::DiagnosticCode;
use crate::code::Warning;
use crate::import::{import_model, ImportOptions};
use crate::kinds::asset::{
    add_target_output, AssetError, AssetSettings, AssetStats, CompiledAsset, Target,
};
use crate::kinds::key::KeyText;
use crate::kinds::source::Source;
use crate::pipeline::prepare::PrepareCache;
use crate::pipeline::textures::MissingImages;
use crate::pipeline::StageTimes;
use crate::targets::TargetInput;
use std::path::{Path, PathBuf};

mod missing_images;

pub static KIND: AssetKind = AssetKind {
    id: KindId::Model,
    name: "model",
    recognise: Recognise::FileSuffixes(&[".gltf", ".glb", ".obj", ".fbx"]),
    sources: ".gltf (with its .bin and images), .glb, .obj (with its .mtl files and their maps), .fbx (binary or ASCII, with its images)",
    outputs: "<ref>.hmesh, <ref>.hmat, <ref>.hanim, tex/<id>.ktx2 (and the bmd1/qtmesh targets)",
    // `<ref>.hmesh`, `.hmat`, `.hanim`: the ref itself is claimed, `.hmesh` the longest.
    naming: OutputNaming { ref_keeps_extension: false, extension_room: 6, claims: Claim::Ref },
    compile,
    settings_key,
    encoders: &[
        "gltf",
        "ufbx",
        "draco-core",
        "meshopt",
        "image",
        "basis-universal",
        "intel_tex_2",
        "zstd",
    ],
    referenced_files: Some(|source| referenced_files(&source.abs_path)),
    names_own_kind: false,
    names_files_cheaply,
    copies_as_is: false,
    may_encode_uastc,
};

/// A model reads the geometry and animation tables, its targets, and each target's own
/// table; `[texture]` only shapes the shared textures the `.hmesh` target encodes, so it
/// counts for a model only when its last build encoded some (see [`super::key`]).
fn settings_key(settings: &AssetSettings, key: &mut KeyText) {
    key.table("mesh", &settings.mesh);
    key.table("animation", &settings.animation);
    // Whether a missing image fails the model or leaves its slots empty: read by every
    // target, whether or not any texture is then encoded.
    key.table("missing_images", &settings.texture.missing_images);
    // In the order the targets run, whatever the order the settings name them in.
    let targets: Vec<Target> = Target::EVERY
        .iter()
        .copied()
        .filter(|t| settings.targets.contains(t))
        .collect();
    key.table("targets", &targets);
    for target in &targets {
        match target {
            Target::HMesh => key.texture_table("texture", &settings.texture),
            Target::Bmd1 => key.table("bmd1", &settings.bmd1),
            Target::QtMesh => key.table("qtmesh", &settings.qtmesh),
        }
    }
}

/// A `.gltf` or `.obj` names its files in a little text; a `.glb` or `.fbx` carries its
/// data inside, and listing what it names would read the whole file.
fn names_files_cheaply(source: &Path) -> bool {
    source
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("gltf") || e.eq_ignore_ascii_case("obj"))
}

/// The `.hmesh` target encodes its materials' images as `.ktx2`; the others copy or
/// reference images as they are.
fn may_encode_uastc(settings: &AssetSettings) -> bool {
    settings.targets.contains(&Target::HMesh) && super::texture::encodes_uastc(settings)
}

/// Imports `source` and runs every target the settings ask for. Targets share one
/// [`PrepareCache`], so geometry work common to them is done once.
fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let (input_root, settings) = (context.input_root, context.settings);
    let display = source.abs_path.display().to_string();
    let source_ref = source.runtime_ref();
    let import_options = ImportOptions {
        input_root: input_root.to_path_buf(),
        ..Default::default()
    };
    let mut scene = import_model(&source.abs_path, &source_ref, &import_options)?;
    if settings.texture.missing_images == MissingImages::Warn {
        let left_out = missing_images::leave_out(&mut scene);
        scene.warnings.extend(left_out);
    }
    let mut warnings = scene.warnings.clone();
    let mut inputs = vec![source.abs_path.clone()];
    inputs.extend(scene.dependencies.iter().cloned());
    let mut compiled = CompiledAsset {
        files: Vec::new(),
        textures: Vec::new(),
        warnings: Vec::new(),
        stats: AssetStats::default(),
        times: StageTimes::default(),
        inputs,
    };
    if scene.primitive_instances().is_empty() {
        // Material libraries, animation-only files and empty scenes are valid glTF; the
        // runtime formats need at least one submesh, so such a source writes nothing.
        warnings.push(Warning::new(
            DiagnosticCode::NothingWritten,
            "the scene has no triangle geometry; nothing is written for it",
        ));
        compiled.warnings = warnings;
        return Ok(compiled);
    }
    compiled.warnings = warnings;
    let cache = PrepareCache::default();
    let input = TargetInput {
        scene: &scene,
        settings: settings.model(),
        // Balsam names the QML component after the source file's stem, case kept.
        source_stem: source
            .abs_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned()),
        cache: &cache,
    };
    // A fixed order, whatever the order the settings name targets in, so outputs and
    // warnings do not depend on it.
    let chosen = Target::EVERY
        .iter()
        .filter(|t| settings.targets.contains(t));
    for target in chosen {
        let out = target
            .writer()
            .build(&input)
            .map_err(|source| AssetError::Target {
                path: display.clone(),
                source,
            })?;
        add_target_output(&mut compiled, out);
    }
    compiled.inputs.sort();
    compiled.inputs.dedup();
    Ok(compiled)
}

/// The files a model source names (its buffers and images, resolved below its folder):
/// they are that model's inputs, not standalone assets. Read from the glTF JSON alone
/// (a `.glb`'s JSON chunk), or an OBJ's `mtllib` lines and their libraries' map lines,
/// without importing; an unreadable source names none (its build reports why).
///
/// An FBX is parsed by ufbx with geometry, animation and embedded content skipped, which
/// lists its external images cheaply (see [`crate::import::fbx::referenced_files`]).
pub fn referenced_files(source: &Path) -> Vec<PathBuf> {
    let is_fbx = source
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fbx"));
    if is_fbx {
        return crate::import::fbx::referenced_files(source);
    }
    let Some(bytes) = read_listing_part(source) else {
        return Vec::new();
    };
    if source
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"))
    {
        return obj_referenced_files(source, &bytes);
    }
    let json = if bytes.starts_with(b"glTF") {
        glb_json_chunk(&bytes)
    } else {
        Some(bytes.as_slice())
    };
    let Some(value) = json.and_then(|j| serde_json::from_slice::<serde_json::Value>(j).ok()) else {
        return Vec::new();
    };
    let folder = source.parent().unwrap_or(Path::new("."));
    ["buffers", "images"]
        .iter()
        .filter_map(|key| value.get(key)?.as_array())
        .flatten()
        .filter_map(|item| item.get("uri")?.as_str())
        .filter(|uri| !uri.starts_with("data:"))
        .map(|uri| {
            let decoded = percent_encoding::percent_decode_str(uri).decode_utf8_lossy();
            folder.join(decoded.as_ref())
        })
        .collect()
}

/// An OBJ's `mtllib` files (relative to the OBJ) and the maps they name (relative to
/// each library), as the importer resolves them; options before a map's file name skipped.
fn obj_referenced_files(source: &Path, bytes: &[u8]) -> Vec<PathBuf> {
    let folder = source.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for library in statements(bytes, &["mtllib"]) {
        let path = folder.join(library.replace('\\', "/"));
        let Ok(mtl) = std::fs::read(&path) else {
            out.push(path);
            continue;
        };
        let mtl_folder = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let maps = ["map_Kd", "map_Bump", "map_bump", "bump", "norm", "map_d"];
        for map in statements(&mtl, &maps) {
            if let Some(t) = crate::import::obj::texture_file(&map) {
                out.push(mtl_folder.join(t.replace('\\', "/")));
            }
        }
        out.push(path);
    }
    out.sort();
    out.dedup();
    out
}

/// The rest of every line of `bytes` whose first word is one of `keywords`, trimmed.
fn statements(bytes: &[u8], keywords: &[&str]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let keyword = line.split_whitespace().next()?;
            keywords
                .contains(&keyword)
                .then(|| line[keyword.len()..].trim().to_string())
        })
        .filter(|rest| !rest.is_empty())
        .collect()
}

/// The JSON chunk of a GLB (header 12 B, then chunk length and type "JSON").
/// The part of a model file that names its files: a `.glb`'s header and JSON chunk only
/// (its binary chunk, megabytes of geometry, is not read: this runs on the build's
/// critical path before the model is imported, which reads the file anyway), any other
/// file whole.
fn read_listing_part(source: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut file = std::fs::File::open(source).ok()?;
    let mut head = Vec::with_capacity(20);
    (&mut file).take(20).read_to_end(&mut head).ok()?;
    let json_length = (head.len() == 20 && head.starts_with(b"glTF") && &head[16..20] == b"JSON")
        .then(|| u32::from_le_bytes([head[12], head[13], head[14], head[15]]));
    let mut bytes = head;
    match json_length {
        Some(length) => file.take(u64::from(length)).read_to_end(&mut bytes).ok()?,
        None => file.read_to_end(&mut bytes).ok()?,
    };
    Some(bytes)
}

fn glb_json_chunk(bytes: &[u8]) -> Option<&[u8]> {
    let length = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
    if bytes.get(16..20)? != b"JSON" {
        return None;
    }
    bytes.get(20..20usize.checked_add(length)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gltf_names_its_external_buffers_and_images_only() {
        let dir = tempfile::tempdir().unwrap();
        let gltf = dir.path().join("m.gltf");
        std::fs::write(
            &gltf,
            r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"m.bin","byteLength":4},{"uri":"data:application/octet-stream;base64,AAAA","byteLength":3}],
               "images":[{"uri":"tex/wood%20grain.png"},{"bufferView":0,"mimeType":"image/png"}]}"#,
        )
        .unwrap();
        assert_eq!(
            referenced_files(&gltf),
            vec![
                dir.path().join("m.bin"),
                dir.path().join("tex/wood grain.png")
            ]
        );
        std::fs::write(&gltf, b"not json").unwrap();
        assert!(referenced_files(&gltf).is_empty());
    }

    #[test]
    fn an_obj_names_its_material_libraries_and_their_maps() {
        let dir = tempfile::tempdir().unwrap();
        let obj = dir.path().join("m.obj");
        std::fs::create_dir(dir.path().join("mat")).unwrap();
        std::fs::write(&obj, "mtllib mat/a b.mtl\nmtllib gone.mtl\nv 0 0 0\n").unwrap();
        std::fs::write(
            dir.path().join("mat/a b.mtl"),
            "newmtl x\nmap_Kd -s 2 2 1 wood.png\nnorm ..\\n.png\nKd 1 1 1\n",
        )
        .unwrap();
        assert_eq!(
            referenced_files(&obj),
            vec![
                dir.path().join("gone.mtl"),
                dir.path().join("mat/../n.png"),
                dir.path().join("mat/a b.mtl"),
                dir.path().join("mat/wood.png"),
            ]
        );
    }

    #[test]
    fn a_glb_names_the_images_its_json_chunk_names() {
        let json = br#"{"images":[{"uri":"a.png"}]}  "#;
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(((20 + json.len()) as u32).to_le_bytes());
        glb.extend((json.len() as u32).to_le_bytes());
        glb.extend(b"JSON");
        glb.extend(json);
        // A binary chunk after it, which the listing does not read.
        glb.extend(8u32.to_le_bytes());
        glb.extend(b"BIN\0");
        glb.extend([0u8; 8]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.glb");
        std::fs::write(&path, &glb).unwrap();
        assert_eq!(referenced_files(&path), vec![dir.path().join("a.png")]);
        // A chunk length past the end names nothing instead of panicking.
        glb[12] = 0xff;
        glb[13] = 0xff;
        std::fs::write(&path, &glb).unwrap();
        assert!(referenced_files(&path).is_empty());
    }
}
