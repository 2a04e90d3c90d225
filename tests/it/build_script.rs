//! `Builder` as a cargo build script uses it, in its crate's folder: the test's body runs
//! in a child process started there (the working directory is process-wide, and every
//! integration test shares this one).

use crate::common;

use assetc::driver::events::AssetStatus;
use assetc::Builder;
use common::*;

/// vkFormat of a KTX2 file: the u32 after the 12-byte identifier.
fn vk_format(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[12..16].try_into().unwrap())
}

fn run(builder: &Builder) -> (Result<assetc::driver::BuildReport, String>, Vec<String>) {
    let mut out = Vec::new();
    let result = builder
        .run_build_script_to(&mut out)
        .map_err(|e| e.to_string());
    let lines = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    (result, lines)
}

#[test]
fn build_script_reads_build_toml_reports_and_shares_the_cli_output() {
    // It works in its current directory, as a build script does: alone, in a fresh folder.
    if ran_alone_in_a_child(
        "build_script::build_script_reads_build_toml_reports_and_shares_the_cli_output",
        true,
    ) {
        return;
    }
    let dir = std::env::current_dir().unwrap();
    copy_dir(&samples().join("box"), &dir.join("assets"));
    std::fs::write(
        dir.join("build.toml"),
        "output = \"out\"\n[texture]\nformat = \"rgba8\"\n",
    )
    .unwrap();

    let builder = Builder::new("assets", "out");
    assert_eq!(
        builder.config_file(),
        Some(dir.join("build.toml").as_path())
    );
    let (report, lines) = run(&builder);
    let report = report.unwrap();
    assert_eq!(report.failed(), 0);
    // build.toml's texture.format: RGBA8 (vkFormat 37 unorm / 43 sRGB), not UASTC (0).
    let textures: Vec<_> = std::fs::read_dir(dir.join("out/tex"))
        .unwrap()
        .flatten()
        .collect();
    assert!(!textures.is_empty());
    for t in &textures {
        let f = vk_format(&std::fs::read(t.path()).unwrap());
        assert!(f == 37 || f == 43, "{}: vkFormat {f}", t.path().display());
    }
    // Reruns for: the input folder (new sources), build.toml, the output's cache file.
    for wanted in [
        "cargo:rerun-if-changed=assets".to_string(),
        format!(
            "cargo:rerun-if-changed={}",
            dir.join("build.toml").display()
        ),
        format!("cargo:rerun-if-changed=out/{}", assetc::output::CACHE_NAME),
    ] {
        assert!(lines.contains(&wanted), "{wanted} missing: {lines:#?}");
    }
    // The cache file is dated in the past, so the script's own write does not rerun it.
    let cache_time = std::fs::metadata(dir.join("out").join(assetc::output::CACHE_NAME))
        .unwrap()
        .modified()
        .unwrap();
    assert!(cache_time < std::time::SystemTime::now() - std::time::Duration::from_secs(3600));

    // The CLI with the same build.toml finds everything fresh in the shared folder.
    let o = assetc_in(&dir, &["build", "--message-format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        stdout.matches("\"status\":\"built\"").count(),
        0,
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("\"status\":\"fresh\"").count(),
        1,
        "{stdout}"
    );

    // A broken source: the error names the file and the reason; the good one still builds;
    // warnings reach cargo.
    std::fs::write(dir.join("assets/broken.gltf"), "{ not json").unwrap();
    let (result, lines) = run(&Builder::new("assets", "out"));
    let message = result.unwrap_err();
    assert!(
        message.contains("could not compile 1 asset(s)"),
        "{message}"
    );
    assert!(
        message.contains("broken.gltf") && message.contains("JSON"),
        "{message}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("cargo:warning=error: broken.gltf")),
        "{lines:#?}"
    );

    // Without OUT_DIR (outside cargo) the output defaults to runtime/.
    let b = Builder::for_build_script("assets");
    if std::env::var_os("OUT_DIR").is_none() {
        assert_eq!(b.options.output, std::path::PathBuf::from("runtime"));
    }
    let fresh = Builder::new("assets", "out").run().unwrap_or_default();
    assert!(fresh
        .assets
        .iter()
        .any(|a| a.source == "box.gltf" && a.status == AssetStatus::Fresh));
}
