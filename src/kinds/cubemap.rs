//! Cubemaps from a folder `<name>.env/` holding six faces `px nx py ny pz nz` (any image
//! extension): one cube `.ktx2`, faces in the order +X -X +Y -Y +Z -Z.

use super::texture::{
    admit_images, extension, mode_for, read_limited, texture_asset, IMAGE_EXTENSIONS,
};
use super::{AssetKind, Claim, CompileContext, KindId, OutputNaming, Recognise};
use crate::import::input_root::resolve_below;
use crate::kinds::asset::{AssetError, CompiledAsset};
use crate::kinds::source::Source;
use crate::pipeline::textures::{encode_standalone, StandaloneTexture};
use std::path::{Path, PathBuf};

pub static KIND: AssetKind = AssetKind {
    id: KindId::Cubemap,
    name: "cubemap",
    recognise: Recognise::FolderSuffix(".env"),
    sources: "folder <name>.env/ with faces px nx py ny pz nz (any image extension)",
    outputs: "<name>.env.ktx2 (faceCount 6)",
    // `sky.env` keeps its `.env`: `sky.env.ktx2`.
    naming: OutputNaming {
        ref_keeps_extension: true,
        extension_room: 5,
        claims: Claim::RefWith(".ktx2"),
    },
    compile,
    settings_key: |settings, key| key.table("texture", &settings.texture),
    encoders: super::texture::TEXTURE_ENCODERS,
    referenced_files: None,
    names_own_kind: false,
    names_files_cheaply: super::names_no_files,
    copies_as_is: false,
    may_encode_uastc: super::texture::encodes_uastc,
};

/// Face names in the order KTX2 stores the faces.
pub const FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

fn compile(source: &Source, context: &CompileContext) -> Result<CompiledAsset, AssetError> {
    let folder = source.abs_path.display().to_string();
    let invalid = |message: String| AssetError::Invalid {
        path: folder.clone(),
        message,
    };
    let faces = face_files(source).map_err(|e| invalid(e.to_string()))?;
    let mut bytes = Vec::with_capacity(6);
    for path in &faces {
        // A face may be a link; what it leads to must be inside the input folder.
        let name = path.file_name().map(Path::new).unwrap_or(path.as_path());
        resolve_below(&source.abs_path, context.input_root, name).map_err(|why| {
            AssetError::Invalid {
                path: path.display().to_string(),
                message: why.to_string(),
            }
        })?;
        bytes.push(read_limited(path, super::texture::MAX_IMAGE_FILE_BYTES)?);
    }
    let extensions: Vec<String> = faces
        .iter()
        .map(|p| extension(&p.to_string_lossy()))
        .collect();
    let face = |i: usize| (bytes[i].as_slice(), extensions[i].as_str());
    let all: Vec<(&[u8], &str)> = (0..6).map(face).collect();
    admit_images(&source.abs_path, &all, false, context)?;
    let texture = StandaloneTexture::CubeFaces {
        faces: [face(0), face(1), face(2), face(3), face(4), face(5)],
    };
    // The mode follows the first face's name (`px.n.png` would make a normal cube).
    let face_rel = format!(
        "{}/{}",
        source.rel_path,
        faces[0].file_name().unwrap_or_default().to_string_lossy()
    );
    let mode = mode_for(&face_rel, context.settings);
    let encoded = encode_standalone(&texture, mode, &context.settings.texture)
        .map_err(|e| invalid(e.to_string()))?;
    let mut inputs = vec![source.abs_path.clone()];
    inputs.extend(faces);
    Ok(texture_asset(source, encoded, mode, inputs))
}

/// Why a cubemap folder does not give six faces.
#[derive(Debug, thiserror::Error)]
enum FaceError {
    #[error(transparent)]
    Unlistable(#[from] std::io::Error),
    #[error("face {0} is missing (a cubemap folder holds px nx py ny pz nz)")]
    Missing(&'static str),
    #[error("face {face} is given {} times ({})", files.len(), files.join(", "))]
    Repeated {
        face: &'static str,
        files: Vec<String>,
    },
}

/// The six face files of a cubemap folder in KTX2 order. A face is a file whose name
/// without its extension is the face's name (`px.png`, `NX.jpg`).
fn face_files(source: &Source) -> Result<Vec<PathBuf>, FaceError> {
    let entries = std::fs::read_dir(&source.abs_path)?;
    let mut found: [Vec<PathBuf>; 6] = Default::default();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().to_ascii_lowercase();
        let Some((stem, _)) = name.split_once('.') else {
            continue;
        };
        let is_image = IMAGE_EXTENSIONS.iter().any(|e| name.ends_with(e));
        if let Some(i) = FACES.iter().position(|f| *f == stem).filter(|_| is_image) {
            found[i].push(path);
        }
    }
    let mut faces = Vec::with_capacity(6);
    for (i, candidates) in found.iter_mut().enumerate() {
        candidates.sort();
        match candidates.as_slice() {
            [one] => faces.push(one.clone()),
            [] => return Err(FaceError::Missing(FACES[i])),
            several => {
                let names: Vec<String> = several
                    .iter()
                    .map(|p| {
                        p.file_name()
                            .unwrap_or_default()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .collect();
                return Err(FaceError::Repeated {
                    face: FACES[i],
                    files: names,
                });
            }
        }
    }
    Ok(faces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(files: &[&str]) -> (tempfile::TempDir, Source) {
        let dir = tempfile::tempdir().unwrap();
        let env = dir.path().join("Sky.env");
        std::fs::create_dir(&env).unwrap();
        for f in files {
            std::fs::write(env.join(f), b"x").unwrap();
        }
        let source = Source {
            rel_path: "Sky.env".into(),
            abs_path: env,
            kind: KindId::Cubemap,
            keep_case: false,
        };
        (dir, source)
    }

    #[test]
    fn faces_are_found_in_ktx2_order_whatever_their_extension() {
        let (_d, s) = folder(&[
            "nz.png",
            "PX.jpg",
            "py.exr",
            "nx.png",
            "pz.tga",
            "ny.bmp",
            "notes.txt",
        ]);
        let names: Vec<String> = face_files(&s)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["PX.jpg", "nx.png", "py.exr", "ny.bmp", "pz.tga", "nz.png"]
        );
    }

    #[test]
    fn a_missing_or_doubled_face_is_named() {
        let (_d, s) = folder(&["px.png", "nx.png", "py.png", "ny.png", "pz.png"]);
        let e = face_files(&s).unwrap_err().to_string();
        assert!(e.contains("face nz is missing"), "{e}");
        let (_d, s) = folder(&[
            "px.png", "px.jpg", "nx.png", "py.png", "ny.png", "pz.png", "nz.png",
        ]);
        let e = face_files(&s).unwrap_err().to_string();
        assert!(e.contains("face px is given 2 times"), "{e}");
    }
}
