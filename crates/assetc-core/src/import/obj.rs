//! Wavefront OBJ + MTL importer, through `tobj`, into the same [`Scene`] the glTF importer
//! makes. OBJ is Y-up, counter-clockwise and (by convention) in metres, as glTF is, so
//! positions and normals are taken as they are; only V is flipped (OBJ's origin is the
//! bottom-left of the image, glTF's the top-left).
//!
//! Stages: [`scan`] checks every line (errors name it) and records smoothing groups;
//! the `mtllib` files are resolved below the input root, checked and parsed ([`mtl`]);
//! `tobj` reads the cleaned text; [`mesh`] turns each of its models (one per object or
//! group and `usemtl` run) into a primitive; the scene gets one node per object or group,
//! without transforms.

use crate::code::Warning;
mod mesh;
mod mtl;
mod polygon;
mod scan;

use super::input_root::{resolve_below, InputPathError};
use super::{ImportError, ImportOptions};
use crate::code::DiagnosticCode;
use crate::scene::{Image, ImageSource, Material, Mesh, Node, Scene};
use glam::{Mat4, Quat, Vec3};
use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Imports one `.obj` file and the `mtllib` files it names. `source_ref` becomes
/// [`Scene::source_ref`].
pub fn import_obj(
    path: &Path,
    source_ref: &str,
    opts: &ImportOptions,
) -> Result<Scene, ImportError> {
    let file = path.display().to_string();
    let at_line =
        |file: &str, line: usize, code: DiagnosticCode, reason: String| ImportError::Obj {
            file: file.to_string(),
            at: format!("line {line}"),
            reason,
            code,
        };
    let text = read_text(path, opts)?;
    let scanned = scan::scan(&text).map_err(|e| at_line(&file, e.line, e.code, e.reason))?;
    let (base_dir, input_root) = opts.folders(path);

    // The material libraries, parsed here (not by tobj's loader) so that each error names
    // its file and line, and each material knows the folder its maps are relative to.
    let mut libraries: Vec<Library> = Vec::new();
    for (line, name) in &scanned.mtllibs {
        let relative = name.replace('\\', "/");
        let mtl_path =
            resolve_below(&base_dir, &input_root, Path::new(&relative)).map_err(|reason| {
                at_line(
                    &file,
                    *line,
                    DiagnosticCode::InvalidSource,
                    format!("mtllib {name}: {reason}"),
                )
            })?;
        let mtl_file = mtl_path.display().to_string();
        let mtl_text = read_text(&mtl_path, opts)
            .map_err(|e| at_line(&file, *line, e.code(), format!("mtllib {name}: {e}")))?;
        mtl::check(&mtl_text).map_err(|e| at_line(&mtl_file, e.line, e.code, e.reason))?;
        let mut reader = LineCounter::new(mtl_text.as_bytes());
        let parsed = tobj::load_mtl_buf(&mut reader).map_err(|e| {
            at_line(
                &mtl_file,
                reader.line(),
                DiagnosticCode::InvalidSource,
                format!("{e}"),
            )
        })?;
        libraries.push(Library {
            name: name.clone(),
            path: mtl_path,
            parsed,
        });
    }

    let options = tobj::LoadOptions {
        single_index: false,
        triangulate: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let by_name: HashMap<&str, &Library> = libraries.iter().map(|l| (l.name.as_str(), l)).collect();
    let mut reader = LineCounter::new(scanned.text.as_bytes());
    let (models, tobj_materials) = tobj::load_obj_buf(&mut reader, &options, |p| {
        // Every library was loaded above under the name scan() wrote into the text.
        by_name
            .get(p.to_string_lossy().as_ref())
            .map(|l| l.parsed.clone())
            .ok_or(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| {
        at_line(
            &file,
            reader.line(),
            DiagnosticCode::InvalidSource,
            format!("{e}"),
        )
    })?;
    // Only an error when there were libraries and none gave a material: already reported.
    let tobj_materials = tobj_materials.unwrap_or_default();

    let mut warnings: Vec<Warning> = Vec::new();
    if scanned.dropped_lines > 0 {
        warnings.push(Warning::new(
            DiagnosticCode::NotExported,
            format!(
                "{} point, line or fewer-than-3-corner face statements skipped (only triangles \
             are exported)",
                scanned.dropped_lines
            ),
        ));
    }
    let known: std::collections::HashSet<&str> =
        tobj_materials.iter().map(|m| m.name.as_str()).collect();
    for (line, name) in &scanned.usemtls {
        if !known.contains(name.as_str()) {
            warnings.push(Warning::at(
                DiagnosticCode::DanglingReference,
                format!("line {line}"),
                format!(
                    "usemtl {name} names no material of the mtllib files; the default \
                     material is used"
                ),
            ));
        }
    }

    let (materials, images) =
        import_materials(&tobj_materials, &libraries, &input_root, &mut warnings)?;
    let (meshes, nodes) = import_meshes(&file, &models, &scanned, opts)?;
    let mut dependencies: Vec<PathBuf> = libraries.iter().map(|l| l.path.clone()).collect();
    dependencies.extend(images.iter().filter_map(|i| match &i.source {
        ImageSource::File(p) => Some(p.clone()),
        ImageSource::Embedded => None,
    }));
    dependencies.sort();
    dependencies.dedup();
    let scene = Scene {
        source_ref: source_ref.to_string(),
        meshes,
        roots: (0..nodes.len()).collect(),
        nodes,
        materials,
        images,
        warnings,
        dependencies,
        ..Default::default()
    };
    super::scene_check::check_scene(&scene).map_err(|p| ImportError::Obj {
        file,
        at: p.gltf_path,
        reason: p.reason,
        code: p.code,
    })?;
    Ok(scene)
}

/// One `mtllib` file: the name as the OBJ writes it, where it resolved, what it holds.
struct Library {
    name: String,
    path: PathBuf,
    parsed: (Vec<tobj::Material>, HashMap<String, usize>),
}

/// Reads a text file within the size limit and notes it for the build cache.
fn read_text(path: &Path, opts: &ImportOptions) -> Result<String, ImportError> {
    let file = path.display().to_string();
    let bytes = super::read_source(path, &opts.limits)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        ImportError::Obj {
            file: file.clone(),
            at: format!("line {line}"),
            reason: format!("not UTF-8 text (byte {} is not valid UTF-8)", valid.len()),
            code: DiagnosticCode::InvalidSource,
        }
    })
}

/// The MTL materials in `tobj`'s order (libraries in `mtllib` order) and the images their
/// maps name, each file once, resolved against its library's folder.
fn import_materials(
    tobj_materials: &[tobj::Material],
    libraries: &[Library],
    input_root: &Path,
    warnings: &mut Vec<Warning>,
) -> Result<(Vec<Material>, Vec<Image>), ImportError> {
    let mut images: Vec<Image> = Vec::new();
    let mut image_of: HashMap<PathBuf, usize> = HashMap::new();
    let mut materials = Vec::with_capacity(tobj_materials.len());
    // tobj appends each library's materials in turn.
    let owners = libraries
        .iter()
        .flat_map(|l| std::iter::repeat_n(l, l.parsed.0.len()));
    for (m, library) in tobj_materials.iter().zip(owners) {
        let folder = library.path.parent().unwrap_or(Path::new(""));
        let resolve = |name: &str| -> Result<usize, InputPathError> {
            let relative = name.replace('\\', "/");
            let path = resolve_below(folder, input_root, Path::new(&relative))?;
            if let Some(&i) = image_of.get(&path) {
                return Ok(i);
            }
            images.push(Image {
                gltf_path: format!("{} ({name})", library.name),
                name: None,
                uri: Some(name.to_string()),
                mime_type: None,
                source: ImageSource::File(path.clone()),
                bytes: Arc::new(Vec::new()),
            });
            image_of.insert(path, images.len() - 1);
            Ok(images.len() - 1)
        };
        let material = mtl::material(m, resolve, warnings).map_err(|e| ImportError::Obj {
            file: library.path.display().to_string(),
            at: format!("material {:?}", m.name),
            reason: e.to_string(),
            code: DiagnosticCode::InvalidSource,
        })?;
        materials.push(material);
    }
    Ok((materials, images))
}

/// One mesh and node per object or group (consecutive models of the same name), one
/// primitive per `usemtl` run within it.
fn import_meshes(
    file: &str,
    models: &[tobj::Model],
    scanned: &scan::Scanned,
    opts: &ImportOptions,
) -> Result<(Vec<Mesh>, Vec<Node>), ImportError> {
    let mut meshes: Vec<Mesh> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut face = 0usize;
    let mut total_bytes = 0u64;
    for model in models {
        let faces = if model.mesh.face_arities.is_empty() {
            model.mesh.indices.len() / 3
        } else {
            model.mesh.face_arities.len()
        };
        let groups = scanned.face_groups.get(face..face + faces).unwrap_or(&[]);
        face += faces;
        if faces == 0 {
            continue;
        }
        let first_line = scanned
            .groups
            .iter()
            .find(|(_, n)| *n == model.name)
            .map(|(line, _)| format!(" (line {line})"))
            .unwrap_or_default();
        let path = format!("object {:?}{first_line}", model.name);
        let ctx = mesh::ModelContext {
            path: path.clone(),
            face_groups: groups,
            smooth_by_groups: scanned.has_smoothing_groups,
            material: model.mesh.material_id,
        };
        let primitive = mesh::primitive(&model.mesh, &ctx, &opts.limits).map_err(|e| {
            if e.is_limit() {
                ImportError::Limit {
                    file: file.to_string(),
                    gltf_path: path.clone(),
                    reason: e.to_string(),
                }
            } else {
                ImportError::Obj {
                    file: file.to_string(),
                    at: path.clone(),
                    reason: e.to_string(),
                    code: DiagnosticCode::InvalidSource,
                }
            }
        })?;
        // What the decoded arrays hold, against the same total as a glTF's accessors.
        total_bytes += primitive.positions.len() as u64 * 32 + primitive.indices.len() as u64 * 4;
        if total_bytes > opts.limits.max_total_accessor_bytes {
            return Err(ImportError::Limit {
                file: file.to_string(),
                gltf_path: path,
                reason: format!(
                    "the decoded vertex and index data pass the limit of {} bytes",
                    opts.limits.max_total_accessor_bytes
                ),
            });
        }
        let same_object = nodes
            .last()
            .is_some_and(|n| n.name.as_deref() == Some(&model.name));
        if same_object {
            if let Some(mesh) = meshes.last_mut() {
                mesh.primitives.push(primitive);
                continue;
            }
        }
        meshes.push(Mesh {
            name: Some(model.name.clone()),
            primitives: vec![primitive],
        });
        nodes.push(Node {
            name: Some(model.name.clone()),
            parent: None,
            children: Vec::new(),
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            local_matrix: Mat4::IDENTITY,
            world_matrix: Mat4::IDENTITY,
            mesh: Some(meshes.len() - 1),
            skin: None,
            in_scene: true,
        });
    }
    Ok((meshes, nodes))
}

/// A reader over text that knows which line `tobj` was reading when it stopped: the lines
/// it consumed (each read through `BufRead::lines`).
struct LineCounter<'a> {
    rest: &'a [u8],
    newlines: usize,
    at_end_without_newline: bool,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            rest: bytes,
            newlines: 0,
            at_end_without_newline: false,
        }
    }

    /// The 1-based number of the last line consumed.
    fn line(&self) -> usize {
        self.newlines + usize::from(self.at_end_without_newline)
    }
}

impl Read for LineCounter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for LineCounter<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        Ok(self.rest)
    }
    fn consume(&mut self, amt: usize) {
        let amt = amt.min(self.rest.len());
        let (taken, rest) = self.rest.split_at(amt);
        self.newlines += taken.iter().filter(|&&b| b == b'\n').count();
        if rest.is_empty() && taken.last().is_some_and(|&b| b != b'\n') {
            self.at_end_without_newline = true;
        }
        self.rest = rest;
    }
}

/// The file an MTL map statement names (`-bm 0.5 normal.png` -> `normal.png`): what the
/// build's discovery needs to know a map belongs to a model (`kinds::model`).
pub fn texture_file(value: &str) -> Option<String> {
    mtl::texture_statement(value).map(|t| t.file)
}

#[cfg(test)]
mod tests;
