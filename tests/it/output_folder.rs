//! The output folder a build sweeps: a file-system root, the input folder or a folder
//! that contains it is a usage error, and nothing is written or removed.

use crate::common;

use common::*;

#[test]
fn roots_and_the_input_folder_are_refused_as_output_folders() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("game/assets");
    copy_dir(&samples(), &input);
    std::fs::write(input.join(".keep.tmp"), b"not ours").unwrap();
    let before = tree(dir.path());
    // The input first: run without the check, it fails there, before `/` is tried.
    for out in [
        input.clone(),
        dir.path().join("game"),
        std::path::PathBuf::from("/"),
    ] {
        let o = assetc(&[
            "build",
            "--no-config",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {stderr}", out.display());
        assert!(
            stderr.contains(&format!("output folder {}", out.display())),
            "{}: {stderr}",
            out.display()
        );
        assert_eq!(
            tree(dir.path()),
            before,
            "{}: nothing touched",
            out.display()
        );
    }
}
