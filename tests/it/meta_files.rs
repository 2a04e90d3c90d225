//! `<file>.meta.toml` beside a source sets its kind's table for that file alone
//! (README.md, "Configuration"; docs/textures.md): overlaid after build.toml's tables and
//! rules, a part of the asset's key (editing or deleting it rebuilds that asset alone),
//! never a source itself, read under the input-root rule, and a mistake in it fails its
//! asset alone at its line and column.

use crate::common;

use assetc::formats::ktx2;
use serde_json::Value;
use std::path::{Path, PathBuf};

const BC7_UNORM: u32 = 145;
const BC7_SRGB: u32 = 146;
/// KHR_DF_TRANSFER_LINEAR and KHR_DF_TRANSFER_SRGB of the DFD.
const TRANSFER_LINEAR: u8 = 1;
const TRANSFER_SRGB: u8 = 2;

/// A tangent-space normal field stored as n * 0.5 + 0.5, under a name no rule classes as
/// a normal map: without settings of its own it is sRGB colour.
fn normal_texels(path: &Path) {
    let img = image::RgbaImage::from_fn(32, 32, |x, y| {
        let (a, b) = (x as f32 * 0.4, y as f32 * 0.3);
        let (nx, ny) = (0.4 * a.sin(), 0.4 * b.cos());
        let nz = (1.0 - nx * nx - ny * ny).sqrt();
        let q = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
        image::Rgba([q(nx), q(ny), q(nz), 255])
    });
    img.save(path).unwrap();
}

fn picture(path: &Path) {
    let img = image::RgbaImage::from_fn(32, 32, |x, y| {
        image::Rgba([(x * 8) as u8, (y * 8) as u8, ((x * y) % 256) as u8, 255])
    });
    img.save(path).unwrap();
}

struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    /// Two textures, BC7 by build.toml, and a rule that would make `hero_detail.png`
    /// colour were the file beside it not more specific.
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir_all(&input).unwrap();
        normal_texels(&input.join("hero_detail.png"));
        picture(&input.join("ui.png"));
        std::fs::write(
            dir.path().join("build.toml"),
            "[texture]\nformat = \"bc7\"\n\n[[rules]]\nmatch = \"hero_*\"\ntexture.mode = \"color\"\n",
        )
        .unwrap();
        Self { dir }
    }

    fn input(&self) -> PathBuf {
        self.dir.path().join("in")
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn meta(&self) -> PathBuf {
        self.input().join("hero_detail.png.meta.toml")
    }

    fn run(&self, extra: &[&str]) -> std::process::Output {
        let (config, input, out) = (self.dir.path().join("build.toml"), self.input(), self.out());
        let mut args = vec![
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--verify",
        ];
        args.extend_from_slice(extra);
        common::assetc(&args)
    }

    /// Builds as people read it: the exit status's success and everything printed.
    fn build_human(&self) -> (bool, String) {
        let o = self.run(&[]);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.success(), text)
    }

    /// Builds; returns the exit status's success, the JSON messages and stderr.
    fn build(&self) -> (bool, Vec<Value>, String) {
        let o = self.run(&["--message-format", "json"]);
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

    fn vk_format(&self, rel: &str) -> ktx2::Ktx2 {
        let bytes = std::fs::read(self.out().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        ktx2::read(&bytes).unwrap()
    }
}

/// The status each source finished with.
fn statuses(messages: &[Value]) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = messages
        .iter()
        .filter(|m| m["reason"] == "asset-finished")
        .map(|m| {
            (
                m["source"].as_str().unwrap().to_string(),
                m["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    list.sort();
    list
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_settings_file_makes_one_texture_linear_and_is_a_part_of_its_key() {
    let tree = Tree::new();
    std::fs::write(
        tree.meta(),
        "# this file only\n[texture]\nmode = \"normal\"\n",
    )
    .unwrap();
    let (ok, messages, stderr) = tree.build();
    assert!(ok, "{stderr}\n{messages:?}");
    let hero = tree.vk_format("hero_detail.ktx2");
    assert_eq!(
        hero.vk_format, BC7_UNORM,
        "the file beside it wins over the rule"
    );
    assert_eq!(
        hero.dfd.transfer_function, TRANSFER_LINEAR,
        "linear in the DFD too"
    );
    assert_eq!(tree.vk_format("ui.ktx2").vk_format, BC7_SRGB);
    // Never a source: not compiled, not ignored, not in the output.
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "built"), ("ui.png", "built")])
    );
    assert!(
        !messages.iter().any(|m| m["reason"] == "ignored"),
        "{messages:?}"
    );
    assert!(!common::tree(&tree.out())
        .iter()
        .any(|(n, _)| n.contains("meta")));

    // Nothing changed: nothing rebuilt.
    let (ok, messages, _) = tree.build();
    assert!(ok);
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "fresh"), ("ui.png", "fresh")])
    );

    // An edit rebuilds that asset alone.
    std::fs::write(
        tree.meta(),
        "[texture]\nmode = \"linear\"\nmipmaps = false\n",
    )
    .unwrap();
    let (ok, messages, stderr) = tree.build();
    assert!(ok, "{stderr}");
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "built"), ("ui.png", "fresh")])
    );
    let hero = tree.vk_format("hero_detail.ktx2");
    assert_eq!((hero.vk_format, hero.level_count), (BC7_UNORM, 1));

    // Deleting it gives back what build.toml says, for that asset alone.
    std::fs::remove_file(tree.meta()).unwrap();
    let (ok, messages, stderr) = tree.build();
    assert!(ok, "{stderr}");
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "built"), ("ui.png", "fresh")])
    );
    let hero = tree.vk_format("hero_detail.ktx2");
    assert_eq!(hero.vk_format, BC7_SRGB, "the rule's colour mode again");
    assert_eq!(hero.dfd.transfer_function, TRANSFER_SRGB);
    assert!(hero.level_count > 1);
}

#[test]
fn a_mistake_in_a_settings_file_fails_its_asset_alone_at_its_line_and_column() {
    let tree = Tree::new();
    std::fs::write(
        tree.meta(),
        "[texture]\nmipmaps = false\n  moed = \"normal\"\n",
    )
    .unwrap();
    let (ok, messages, _) = tree.build();
    assert!(!ok, "a config error fails the build: {messages:?}");
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "failed"), ("ui.png", "built")])
    );
    assert_eq!(tree.vk_format("ui.ktx2").vk_format, BC7_SRGB);
    assert!(!tree.out().join("hero_detail.ktx2").exists());
    let failed = messages
        .iter()
        .find(|m| m["source"] == "hero_detail.png")
        .unwrap();
    let diagnostic = &failed["diagnostics"][0];
    assert_eq!(diagnostic["code"], "config", "{failed}");
    let message = diagnostic["message"].as_str().unwrap();
    assert!(
        message.contains("hero_detail.png.meta.toml:3:3:")
            && message.contains("moed")
            && message.contains("did you mean `mode`?"),
        "{message}"
    );
    let (ok, text) = tree.build_human();
    assert!(!ok);
    assert!(
        text.lines().any(|l| l.contains("error")
            && l.contains("hero_detail.png.meta.toml:3:3:")
            && l.contains("did you mean `mode`?")),
        "the human line names the place too: {text}"
    );

    // A wrong type is placed at its value; a table the kind does not read at its name.
    std::fs::write(tree.meta(), "[texture]\nmipmaps = \"yes\"\n").unwrap();
    let (ok, stderr) = tree.build_human();
    assert!(!ok);
    assert!(
        stderr.contains("hero_detail.png.meta.toml:2:11:")
            && stderr.contains("expected true or false"),
        "{stderr}"
    );
    std::fs::write(tree.meta(), "[mesh]\noptimize = false\n").unwrap();
    let (ok, stderr) = tree.build_human();
    assert!(!ok);
    assert!(
        stderr.contains("hero_detail.png.meta.toml:1:2:") && stderr.contains("reads [texture]"),
        "{stderr}"
    );

    // Mended, it builds with what it says.
    std::fs::write(tree.meta(), "[texture]\nmode = \"normal\"\n").unwrap();
    let (ok, messages, stderr) = tree.build();
    assert!(ok, "{stderr}");
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "built"), ("ui.png", "fresh")])
    );
    assert_eq!(tree.vk_format("hero_detail.ktx2").vk_format, BC7_UNORM);
}

#[cfg(unix)]
#[test]
fn a_settings_file_linked_from_outside_the_input_is_refused() {
    let tree = Tree::new();
    let outside = tree.dir.path().join("elsewhere.meta.toml");
    std::fs::write(&outside, "[texture]\nmode = \"normal\"\n").unwrap();
    std::os::unix::fs::symlink(&outside, tree.meta()).unwrap();
    let (ok, messages, _) = tree.build();
    assert!(!ok);
    assert_eq!(
        statuses(&messages),
        pairs(&[("hero_detail.png", "failed"), ("ui.png", "built")])
    );
    let (ok, stderr) = tree.build_human();
    assert!(!ok);
    assert!(
        stderr.contains("hero_detail.png.meta.toml") && stderr.contains("outside the input root"),
        "{stderr}"
    );
    assert!(!tree.out().join("hero_detail.ktx2").exists());

    // A link that stays inside the input is read.
    std::fs::remove_file(tree.meta()).unwrap();
    std::fs::rename(&outside, tree.input().join("shared.meta.toml")).unwrap();
    std::os::unix::fs::symlink("shared.meta.toml", tree.meta()).unwrap();
    let (ok, text) = tree.build_human();
    assert!(ok, "{text}");
    assert_eq!(tree.vk_format("hero_detail.ktx2").vk_format, BC7_UNORM);
}

/// Make and ninja rerun the build when a settings file is edited: an edit changes no
/// folder's time, so the depfile names the file itself.
#[test]
fn the_depfile_names_the_settings_files() {
    let tree = Tree::new();
    std::fs::write(tree.meta(), "[texture]\nmode = \"normal\"\n").unwrap();
    let deps = tree.dir.path().join("assets.d");
    let o = tree.run(&["--emit-deps", deps.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&deps).unwrap();
    assert!(text.contains("hero_detail.png.meta.toml"), "{text}");
}

#[test]
fn settings_files_that_no_source_reads_are_named_once() {
    let tree = Tree::new();
    // An image a model uses is compiled with its model, so its own settings file is read
    // by nothing; so is one whose file is gone.
    common::copy_dir(&common::samples().join("box"), &tree.input().join("box"));
    assert!(tree.input().join("box/checker.png").is_file());
    std::fs::write(
        tree.input().join("box/checker.png.meta.toml"),
        "[texture]\nmipmaps = false\n",
    )
    .unwrap();
    std::fs::write(tree.input().join("gone.png.meta.toml"), "[texture]\n").unwrap();
    // A used one is not named.
    std::fs::write(tree.meta(), "[texture]\nmode = \"normal\"\n").unwrap();

    let (ok, messages, stderr) = tree.build();
    assert!(ok, "{stderr}");
    let warnings: Vec<&Value> = messages
        .iter()
        .filter(|m| m["reason"] == "diagnostic" && m["diagnostic"]["code"] == "unused-settings")
        .collect();
    assert_eq!(warnings.len(), 1, "{messages:?}");
    let message = warnings[0]["diagnostic"]["message"].as_str().unwrap();
    assert!(message.starts_with("2 settings files"), "{message}");
    assert!(
        message.contains("box/checker.png.meta.toml (an image or file a model uses"),
        "{message}"
    );
    assert!(
        message.contains("gone.png.meta.toml (gone.png is not there)"),
        "{message}"
    );
    assert!(!message.contains("hero_detail"), "{message}");

    let (ok, text) = tree.build_human();
    assert!(ok, "{text}");
    assert_eq!(
        text.matches("warning: 2 settings files").count(),
        1,
        "{text}"
    );
}
