//! glTF-Validator's bad-input set through `assetc build`: no panic, no hang, no partial
//! output; every file either builds to valid output or fails with a message naming it.

use crate::common;

use common::*;

#[test]
fn validator_test_files_never_crash_the_build() {
    let Some(corpus) = corpus("validator_test_files_never_crash_the_build") else {
        return;
    };
    let input = corpus.join("invalid");
    let out = tempfile::tempdir().unwrap();
    let o = assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--verify",
        "--no-config",
        "--message-format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "exit {:?}: {stderr}",
        o.status.code()
    );

    let files = gltf_files(&input);
    let mut built = 0;
    let mut failed = 0;
    for line in stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["reason"] != "asset-finished" {
            continue;
        }
        let source = v["source"].as_str().unwrap();
        match v["status"].as_str().unwrap() {
            "built" => built += 1,
            "failed" => {
                failed += 1;
                let error = v["error"].as_str().unwrap();
                let name = std::path::Path::new(source)
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap();
                assert!(
                    error.contains(name),
                    "error for {source} does not name the file: {error}"
                );
                let stem = assetc::driver::discover::runtime_ref(source);
                assert!(
                    !out.path().join(format!("{stem}.hmesh")).exists(),
                    "{source} failed but left output"
                );
            }
            other => panic!("unexpected status {other}"),
        }
    }
    assert_eq!(built + failed, files.len(), "every file is reported once");
    // Output that was written passed --verify (the build exits 0 or 1 only for assets).
    assert!(!stderr.contains("verify:"), "{stderr}");
    println!(
        "invalid corpus: {built} built, {failed} failed cleanly, of {}",
        files.len()
    );
}
