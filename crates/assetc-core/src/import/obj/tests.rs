//! The importer on small files written here: what a scene gets, and what bad input is
//! told.

use super::*;

/// Writes `files` into a fresh input root and imports `main.obj` from it.
fn import(files: &[(&str, &str)]) -> (tempfile::TempDir, Result<Scene, ImportError>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let result = import_obj(
        &dir.path().join("main.obj"),
        "main",
        &ImportOptions::new(dir.path()),
    );
    (dir, result)
}

const TWO_MATERIALS: &str = "mtllib lib/mats.mtl\n\
    v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n\
    o Panel\nusemtl Red\nf 1/1/1 2/2/1 3/3/1\nusemtl Wood\nf -4/1/1 -2/3/1 -1/4/1\n\
    o Other\nf 1 2 3 4\n";

const MATS: &str = "newmtl Red\nKd 1 0 0\nnewmtl Wood\nKd 0.5 0.5 0.5\nmap_Kd ../tex/wood.png\n";

#[test]
fn objects_and_usemtl_runs_become_meshes_and_primitives() {
    let (dir, scene) = import(&[
        ("main.obj", TWO_MATERIALS),
        ("lib/mats.mtl", MATS),
        ("tex/wood.png", "not read by the importer"),
    ]);
    let scene = scene.unwrap();
    let names: Vec<_> = scene
        .nodes
        .iter()
        .map(|n| n.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["Panel", "Other"]);
    let prims = |m: usize| &scene.meshes[m].primitives;
    assert_eq!(prims(0).len(), 2, "one primitive per usemtl run");
    assert_eq!(prims(0)[0].material, Some(0));
    assert_eq!(prims(0)[1].material, Some(1));
    // The quad of "Other" is two triangles; its material carries on from the last usemtl
    // (OBJ's rule: a material stays until the next usemtl).
    assert_eq!(prims(1)[0].triangle_count(), 2);
    assert_eq!(prims(1)[0].material, Some(1));
    // Negative indices: -4 -2 -1 are positions 1 3 4.
    let p = &prims(0)[1];
    let corners: Vec<[f32; 3]> = p.indices.iter().map(|&i| p.positions[i as usize]).collect();
    assert_eq!(corners, [[0., 0., 0.], [1., 1., 0.], [0., 1., 0.]]);
    assert_eq!(scene.materials[0].base_color_factor, [1.0, 0.0, 0.0, 1.0]);
    let wood = scene.materials[1].base_color_texture.as_ref().unwrap();
    // Map paths are relative to the MTL's folder.
    let wood_path = dir.path().join("tex/wood.png");
    assert_eq!(
        scene.images[wood.image].source,
        ImageSource::File(wood_path.clone())
    );
    assert_eq!(
        scene.dependencies,
        vec![dir.path().join("lib/mats.mtl"), wood_path]
    );
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

fn error(files: &[(&str, &str)]) -> String {
    let (_dir, result) = import(files);
    match result {
        Ok(_) => panic!("{files:?} imported"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_input_names_the_file_and_the_line_or_element() {
    let e = error(&[("main.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\n")]);
    assert!(
        e.contains("main.obj: line 3: f: corner \"3\": position index 3 is out of range"),
        "{e}"
    );
    let e = error(&[("main.obj", TWO_MATERIALS)]);
    assert!(e.contains("main.obj: line 1: mtllib lib/mats.mtl:"), "{e}");
    assert!(e.contains("mats.mtl: cannot read"), "{e}");
    let e = error(&[
        ("main.obj", TWO_MATERIALS),
        ("lib/mats.mtl", "newmtl Red\nKd 1\n"),
    ]);
    assert!(
        e.contains("mats.mtl: line 2: Kd: expected three numbers"),
        "{e}"
    );
    let e = error(&[
        ("main.obj", TWO_MATERIALS),
        ("lib/mats.mtl", "newmtl Red\nNs\n"),
    ]);
    assert!(e.contains("mats.mtl: line 2: material parse error"), "{e}");
    // A map or library outside the input root.
    let e = error(&[
        ("main.obj", TWO_MATERIALS),
        ("lib/mats.mtl", "newmtl Wood\nmap_Kd ../../secret.png\n"),
    ]);
    assert!(
        e.contains("material \"Wood\": map_Kd ../../secret.png: resolves to"),
        "{e}"
    );
    assert!(e.contains("outside the input root"), "{e}");
    let e = error(&[("main.obj", "mtllib /etc/passwd\n")]);
    assert!(
        e.contains("line 1: mtllib /etc/passwd: absolute paths are not allowed"),
        "{e}"
    );
    let e = error(&[("main.obj", "v 0 0 0\nv 1 0 0\nv 0 1e30 0\nf 1 2 3\n")]);
    assert!(e.contains("object \"unnamed_object\""), "{e}");
    let (_dir, bytes) = import(&[("main.obj", "v 0 0 0\n")]);
    assert!(
        bytes.unwrap().meshes.is_empty(),
        "vertices alone: an empty scene"
    );
}

#[test]
fn not_utf8_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.obj");
    std::fs::write(&path, b"v 0 0 0\nv 1 \xff 0\n").unwrap();
    let e = import_obj(&path, "main", &ImportOptions::new(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2: not UTF-8"), "{e}");
}

#[test]
fn limits_are_the_gltf_importer_limits() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.obj");
    std::fs::write(&path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 3\n").unwrap();
    let mut opts = ImportOptions::new(dir.path());
    opts.limits.max_indices_per_primitive = 3;
    let e = import_obj(&path, "main", &opts).unwrap_err();
    assert!(matches!(e, ImportError::Limit { .. }), "{e}");
    opts.limits = Default::default();
    opts.limits.max_file_bytes = 10;
    let e = import_obj(&path, "main", &opts).unwrap_err();
    assert!(
        e.to_string().contains("exceeds the limit of 10 bytes"),
        "{e}"
    );
}

#[test]
fn smoothing_groups_make_normals_when_the_file_has_none() {
    // A cube corner: three faces meeting at the origin, all in group 1.
    let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\ns 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n";
    let (_dir, scene) = import(&[("main.obj", text)]);
    let scene = scene.unwrap();
    let p = &scene.meshes[0].primitives[0];
    let n = p.normals.as_ref().expect("made from the groups");
    let origin = p.positions.iter().position(|q| *q == [0.0; 3]).unwrap();
    // The three faces are -Z, -Y, -X, equal areas: the mean is -(1,1,1)/sqrt(3).
    let k = -1.0 / 3f32.sqrt();
    for (a, b) in n[origin].iter().zip([k, k, k]) {
        assert!((a - b).abs() < 1e-6, "{:?}", n[origin]);
    }
    // Without groups the normals are left to the pipeline (normal_smoothing_angle).
    let (_dir, scene) = import(&[("main.obj", &text.replace("s 1\n", ""))]);
    assert!(scene.unwrap().meshes[0].primitives[0].normals.is_none());
}

#[test]
fn line_counter_names_the_line_being_read() {
    let mut r = LineCounter::new(b"a\nb\nc");
    let lines: Vec<String> = (&mut r).lines().take(2).map(Result::unwrap).collect();
    assert_eq!(lines, ["a", "b"]);
    assert_eq!(r.line(), 2);
    let mut rest = String::new();
    r.read_line(&mut rest).unwrap();
    assert_eq!((rest.as_str(), r.line()), ("c", 3));
}
