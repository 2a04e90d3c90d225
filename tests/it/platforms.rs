//! `[platforms.NAME]` (docs/textures.md, "One build for several platforms"): one complete
//! runtime tree and manifest per platform, each texture encoded in the platform's format,
//! an asset whose key the platforms share (a model without images) compiled once and
//! copied, `--platform` building one tree, and a second build rebuilding nothing.

use crate::common;

use assetc::formats::{hman, ktx2};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

const BC7_SRGB: u32 = 146;
/// The DFD colour model of UASTC (KHR_DF_MODEL_UASTC); its vkFormat is UNDEFINED.
const MODEL_UASTC: u8 = 166;

const CONFIG: &str = r#"
[texture]
format = "rgba8"

[platforms.desktop.texture]
format = "bc7"

[platforms.web.texture]
format = "uastc"
"#;

struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    /// A model without images, a model with one, and a standalone picture.
    fn new(config: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        common::copy_dir(&common::samples().join("box"), &input.join("box"));
        std::fs::copy(
            common::samples().join("strip.gltf"),
            input.join("strip.gltf"),
        )
        .unwrap();
        image::RgbaImage::from_fn(32, 32, |x, y| {
            image::Rgba([(x * 8) as u8, (y * 8) as u8, ((x * y) % 256) as u8, 255])
        })
        .save(input.join("picture.png"))
        .unwrap();
        std::fs::write(dir.path().join("build.toml"), config).unwrap();
        Self { dir }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// Builds; the exit status's success, the JSON messages, and stderr.
    fn build(&self, extra: &[&str]) -> (bool, Vec<Value>, String) {
        let (config, input, out) = (
            self.dir.path().join("build.toml"),
            self.dir.path().join("in"),
            self.out(),
        );
        let mut args = vec![
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--verify",
            "--message-format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = common::assetc(&args);
        let messages = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        (
            o.status.success(),
            messages,
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    /// Builds as people read it: the exit status's success and everything printed.
    fn human(&self, extra: &[&str]) -> (bool, String) {
        let (config, input, out) = (
            self.dir.path().join("build.toml"),
            self.dir.path().join("in"),
            self.out(),
        );
        let mut args = vec![
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = common::assetc(&args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    }

    fn ktx2(&self, rel: &str) -> ktx2::Ktx2 {
        let bytes = std::fs::read(self.out().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        ktx2::read(&bytes).unwrap()
    }

    fn manifest(&self, platform: &str) -> Vec<hman::ManifestEntry> {
        let path = self.out().join(platform).join("assets.hman");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        hman::read(&bytes).unwrap().entries().to_vec()
    }
}

/// Each asset's status, in the order the messages came.
fn statuses(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter(|m| m["reason"] == "asset-finished")
        .map(|m| {
            (
                m["source"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn two_platforms_make_two_trees_sharing_what_their_settings_share() {
    let tree = Tree::new(CONFIG);
    let (ok, messages, stderr) = tree.build(&[]);
    assert!(ok, "{stderr}\n{messages:?}");
    let out = tree.out();
    assert!(
        !out.join("assets.hman").exists(),
        "no tree of its own at the top"
    );

    // Each texture in its platform's format.
    let desktop = tree.ktx2("desktop/picture.ktx2");
    assert_eq!(desktop.vk_format, BC7_SRGB);
    let web = tree.ktx2("web/picture.ktx2");
    assert_eq!((web.vk_format, web.dfd.color_model), (0, MODEL_UASTC));

    // The same assets in both manifests; a model's shared textures are named by their
    // content and format, so those differ as the formats do.
    let ids = |platform: &str, textures: bool| -> BTreeSet<(u64, String)> {
        tree.manifest(platform)
            .into_iter()
            .filter(|e| e.path.starts_with("tex/") == textures)
            .map(|e| (e.hash, e.path))
            .collect()
    };
    assert_eq!(ids("desktop", false), ids("web", false));
    assert!(ids("desktop", false)
        .iter()
        .any(|(_, p)| p == "strip.hmesh"));
    let (desktop_tex, web_tex) = (ids("desktop", true), ids("web", true));
    assert_eq!((desktop_tex.len(), web_tex.len()), (1, 1));
    assert_ne!(desktop_tex, web_tex);

    // The model without images is compiled once and copied: byte for byte the same.
    let read = |rel: &str| std::fs::read(out.join(rel)).unwrap();
    assert_eq!(read("desktop/strip.hmesh"), read("web/strip.hmesh"));
    let runs = statuses(&messages);
    let strip: Vec<&str> = runs
        .iter()
        .filter(|(s, _)| s == "strip.gltf")
        .map(|(_, st)| st.as_str())
        .collect();
    assert_eq!(strip, ["built", "fetched"], "{runs:?}");
    let picture: Vec<&str> = runs
        .iter()
        .filter(|(s, _)| s == "picture.png")
        .map(|(_, st)| st.as_str())
        .collect();
    assert_eq!(picture, ["built", "built"], "encoded once per platform");

    // Nothing changed: nothing rebuilt, in either tree.
    let (ok, messages, stderr) = tree.build(&[]);
    assert!(ok, "{stderr}");
    let runs = statuses(&messages);
    assert_eq!(runs.len(), 6, "{runs:?}");
    assert!(runs.iter().all(|(_, st)| st == "fresh"), "{runs:?}");
}

#[test]
fn one_platform_is_built_alone_and_an_unknown_name_is_refused() {
    let tree = Tree::new(CONFIG);
    let (ok, messages, stderr) = tree.build(&["--platform", "web"]);
    assert!(ok, "{stderr}\n{messages:?}");
    assert!(tree.out().join("web/assets.hman").is_file());
    assert!(!tree.out().join("desktop").exists());
    assert_eq!(statuses(&messages).len(), 3);
    assert_eq!(tree.ktx2("web/picture.ktx2").dfd.color_model, MODEL_UASTC);

    // The other platform later shares the model built for the first.
    let (ok, messages, stderr) = tree.build(&["--platform", "desktop"]);
    assert!(ok, "{stderr}");
    let runs = statuses(&messages);
    assert!(
        runs.contains(&("strip.gltf".to_string(), "fetched".to_string())),
        "{runs:?}"
    );
    assert_eq!(tree.ktx2("desktop/picture.ktx2").vk_format, BC7_SRGB);

    let (ok, stderr) = tree.human(&["--platform", "mobil"]);
    assert!(!ok);
    assert!(
        stderr.contains("unknown platform `mobil`") && stderr.contains("desktop, web"),
        "{stderr}"
    );
}

#[test]
fn a_platform_key_is_checked_where_it_stands() {
    let tree = Tree::new("[platforms.mobile.texture]\nformat = \"astc\"\nastc_blok = \"6x6\"\n");
    let (ok, stderr) = tree.human(&[]);
    assert!(!ok);
    assert!(
        stderr.contains("build.toml:3:1:") && stderr.contains("did you mean `astc_block`?"),
        "{stderr}"
    );
    let bad_name = Tree::new("[platforms.\"a b\".texture]\nformat = \"bc7\"\n");
    let (ok, stderr) = bad_name.human(&[]);
    assert!(!ok);
    assert!(stderr.contains("`a b`"), "{stderr}");
}

/// Without `[platforms]` the tree is where it always was.
#[test]
fn without_platforms_one_tree_at_the_output() {
    let tree = Tree::new("[texture]\nformat = \"bc7\"\n");
    let (ok, _, stderr) = tree.build(&[]);
    assert!(ok, "{stderr}");
    assert!(tree.out().join("assets.hman").is_file());
    assert_eq!(tree.ktx2("picture.ktx2").vk_format, BC7_SRGB);
    let (ok, stderr) = tree.human(&["--platform", "web"]);
    assert!(!ok);
    assert!(stderr.contains("no [platforms"), "{stderr}");
}

/// A depfile has one target: with platforms it is the manifest of the tree `--platform`
/// names, and without the flag it is refused before anything is built.
#[test]
fn a_depfile_is_written_for_one_platform() {
    let tree = Tree::new(CONFIG);
    let deps = tree.dir.path().join("assets.d");
    let (ok, text) = tree.human(&["--emit-deps", deps.to_str().unwrap()]);
    assert!(!ok);
    assert!(text.contains("--platform NAME"), "{text}");
    assert!(!tree.out().exists() && !deps.exists());
    let (ok, text) = tree.human(&["--emit-deps", deps.to_str().unwrap(), "--platform", "web"]);
    assert!(ok, "{text}");
    let depfile = std::fs::read_to_string(&deps).unwrap();
    let target = depfile.lines().next().unwrap();
    assert!(target.contains("web/assets.hman:"), "{depfile}");
}
