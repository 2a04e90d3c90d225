//! What a newcomer trips over on a real tree (issue 46), each met as a user meets it: by
//! running the built `assetc` on a tree. LOD levels a mesh is too small to simplify, the
//! build's counts, `--watch` and one save, exit codes, what the help and errors say, and a
//! model whose texture image is missing, and the map from each source to its outputs.

use crate::build_loops::{collect_lines, collect_stderr_lines, count, wait_until};
use crate::common::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every file below `root` whose name ends with `suffix`.
fn files_ending(root: &Path, suffix: &str) -> Vec<PathBuf> {
    tree(root)
        .into_iter()
        .filter(|(p, _)| p.ends_with(suffix))
        .map(|(p, _)| root.join(p))
        .collect()
}

/// The value of the fact `label` in `inspect` or `info` text (`  label  value`).
fn fact<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix(label))
        .map(str::trim)
}

/// The JSON diagnostics of a `--message-format json` build.
fn diagnostics(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "diagnostic")
        .map(|v| v["diagnostic"].clone())
        .collect()
}

const UNREDUCED: &str = "LOD levels not reduced";

#[test]
fn a_mesh_too_small_to_simplify_is_one_fact_in_info_and_inspect_and_no_build_warning() {
    let dir = tempfile::tempdir().unwrap();
    let init = assetc(&["init", s(dir.path())]);
    assert!(init.status.success(), "{}", stderr(&init));
    let built = assetc_in(dir.path(), &["build", "--message-format", "json"]);
    assert!(built.status.success(), "{}", stdout(&built));
    let lod_words: Vec<_> = diagnostics(&built)
        .into_iter()
        .filter(|d| d["message"].as_str().unwrap().contains("LOD"))
        .collect();
    assert!(lod_words.is_empty(), "{lod_words:#?}");

    // The starter box is too small to simplify: every reduced level is stored empty.
    let runtime = dir.path().join("runtime");
    let meshes = files_ending(&runtime, ".hmesh");
    assert_eq!(meshes.len(), 1, "{meshes:?}");
    let bytes = std::fs::read(&meshes[0]).unwrap();
    let view = assetc::formats::hmesh::HMeshView::parse(&bytes).unwrap();
    let lods = view.lods.as_ref().expect("LODs are on by default");
    let empty = lods.ranges.iter().filter(|r| r.index_count == 0).count();
    assert!(
        empty > 0,
        "the box simplifies after all: pick a smaller mesh"
    );
    let said = format!("{empty} of {} ", lods.ranges.len());

    let check = assetc_in(dir.path(), &["check"]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let info = assetc_in(dir.path(), &["info"]);
    assert!(info.status.success(), "{}", stderr(&info));
    let info_text = stdout(&info);
    assert!(
        !info_text.contains("warning"),
        "a tree `check` calls clean has nothing to warn of:\n{info_text}"
    );
    let inspect = assetc(&["inspect", s(&meshes[0])]);
    assert!(inspect.status.success(), "{}", stderr(&inspect));
    let inspect_text = stdout(&inspect);
    assert!(!inspect_text.contains("warning"), "{inspect_text}");
    let (from_info, from_inspect) = (
        fact(&info_text, UNREDUCED).unwrap_or_else(|| panic!("{info_text}")),
        fact(&inspect_text, UNREDUCED).unwrap_or_else(|| panic!("{inspect_text}")),
    );
    // One mesh in the tree: the totals are its own, in the same words.
    assert_eq!(from_info, from_inspect);
    assert!(from_info.starts_with(&said), "{from_info} ({said})");
}

#[test]
fn the_summary_counts_every_texture_encoded_and_lines_say_1_file() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    copy_dir(&samples().join("box"), &src.join("box"));
    let images = ["ui/a.png", "ui/b.png", "c.png"];
    for (i, name) in images.iter().enumerate() {
        write_png(&src.join(name), i as u8);
    }
    let build = || assetc(&["build", s(&src), "-o", s(&out), "--no-config"]);
    let first = build();
    assert!(first.status.success(), "{}", stderr(&first));
    let text = stdout(&first);
    // Each model texture once, and each standalone image.
    let shared = files_ending(&out.join("tex"), ".ktx2").len();
    assert!(shared > 0);
    let encoded = format!(" {} textures encoded,", shared + images.len());
    assert!(text.contains(&encoded), "want{encoded}:\n{text}");
    let image_line = text.lines().find(|l| l.contains("ui/a.png")).unwrap();
    assert!(image_line.contains("(1 file, "), "{image_line}");
    assert!(!text.contains("(1 files"), "{text}");

    let again = build();
    assert!(
        stdout(&again).contains(" 0 textures encoded,"),
        "{}",
        stdout(&again)
    );
    write_png(&src.join("c.png"), 9);
    let one = build();
    let text = stdout(&one);
    assert!(text.contains(" 1 built,"), "{text}");
    assert!(text.contains(" 1 texture encoded,"), "{text}");
}

/// A small PNG whose pixels depend on `seed`.
fn write_png(path: &Path, seed: u8) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    image::RgbaImage::from_fn(8, 8, |x, y| {
        image::Rgba([x as u8 * 30, y as u8 * 30, seed, 255])
    })
    .save(path)
    .unwrap();
}

#[test]
fn watch_rebuilds_once_for_a_save_written_in_two_parts() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("src/textures/flag.png");
    write_png(&flag, 1);
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build", "src", "-o", "out", "--no-config", "--watch"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = collect_lines(&mut child);
    let errors = collect_stderr_lines(&mut child);
    let finished = || count(&lines, "finished:");
    wait_until("the first build", &lines, || finished() == 1);
    wait_until("the watcher", &errors, || count(&errors, "watching ") == 1);

    // An image editor exporting: the file truncated and written, then the rest of it a
    // moment later. The watcher's events arrive in two batches, more than a debouncer
    // tick apart.
    let before = finished();
    let mut saved = Vec::new();
    image::RgbaImage::from_fn(64, 64, |x, y| image::Rgba([x as u8, y as u8, 7, 255]))
        .write_to(
            &mut std::io::Cursor::new(&mut saved),
            image::ImageFormat::Png,
        )
        .unwrap();
    let mut file = std::fs::File::create(&flag).unwrap();
    file.write_all(&saved[..saved.len() / 2]).unwrap();
    file.flush().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    file.write_all(&saved[saved.len() / 2..]).unwrap();
    drop(file);
    wait_until("the rebuild after the save", &lines, || {
        finished() == before + 1
    });
    // A quiet period is the only way to see that nothing more happens.
    std::thread::sleep(Duration::from_secs(2));
    let after_save = finished();
    // Saved again with the same bytes: nothing the last rebuild did not read.
    std::fs::write(&flag, &saved).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let _ = child.kill();
    let _ = child.wait();

    let all = lines.lock().unwrap().clone();
    assert_eq!(
        after_save,
        before + 1,
        "one rebuild for one save:\n{all:#?}"
    );
    assert_eq!(
        finished(),
        after_save,
        "an unchanged file is no change:\n{all:#?}"
    );
    let changed: Vec<&String> = all.iter().filter(|l| l.contains("Changed")).collect();
    assert_eq!(
        changed.iter().filter(|l| l.ends_with("flag.png")).count(),
        1,
        "{all:#?}"
    );
    let last = all.iter().rev().find(|l| l.contains("Built")).unwrap();
    assert!(last.contains("textures/flag.png"), "{all:#?}");
}

#[test]
fn clean_of_nothing_succeeds_usage_errors_exit_2_and_j0_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runtime");
    let built = assetc(&[
        "build",
        s(&samples().join("box")),
        "-o",
        s(&out),
        "--no-config",
        "-q",
    ]);
    assert!(built.status.success(), "{}", stderr(&built));
    let first = assetc(&["clean", s(&out)]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(!out.exists());
    let second = assetc(&["clean", s(&out)]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert!(
        stdout(&second).contains("nothing to clean"),
        "{}",
        stdout(&second)
    );
    assert!(!stderr(&second).contains("error"), "{}", stderr(&second));
    let json = assetc(&["clean", s(&out), "--json"]);
    assert_eq!(json.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["reason"], "clean-finished");
    assert!(v["removed"].is_null(), "{v}");

    // A file of a kind neither reads: a usage error for both.
    let odd = dir.path().join("notes.xyz");
    std::fs::write(&odd, b"text").unwrap();
    for command in ["inspect", "preview"] {
        let o = assetc(&[command, s(&odd)]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("notes.xyz"),
            "{command}: {}",
            stderr(&o)
        );
    }

    // -j0, as cargo: refused before anything is built.
    let o = assetc(&[
        "build",
        s(&samples().join("box")),
        "-o",
        s(&out),
        "--no-config",
        "-j0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at least 1"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing built");
}

/// The extensions `inspect` reads, as its own error for any other lists them.
fn inspected_extensions() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("a.xyz");
    std::fs::write(&odd, b"").unwrap();
    let text = stderr(&assetc(&["inspect", s(&odd)]));
    let list = text
        .split_once("(expected ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .unwrap_or_else(|| panic!("{text}"))
        .0;
    list.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn help_readme_and_errors_name_everything_there_is() {
    let help = stdout(&assetc(&["--help"]));
    for word in ["OBJ", "FBX", "shaders", "sounds", "fonts", "cubemaps"] {
        assert!(help.contains(word), "--help leaves out {word}:\n{help}");
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let readme_inspect = readme
        .lines()
        .find(|l| l.starts_with("assetc inspect"))
        .unwrap();
    let help_inspect = stdout(&assetc(&["help"]));
    let help_inspect = help_inspect
        .split("inspect")
        .nth(1)
        .and_then(|rest| rest.split("preview").next())
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let extensions = inspected_extensions();
    assert!(extensions.len() >= 12, "{extensions:?}");
    for ext in &extensions {
        assert!(
            readme_inspect.contains(ext.as_str()),
            "README leaves out {ext}"
        );
        assert!(
            help_inspect.contains(ext.as_str()),
            "--help leaves out {ext}: {help_inspect}"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let o = assetc(&["build", s(&dir.path().join("nothere")), "--no-config"]);
    assert_eq!(o.status.code(), Some(2));
    for model in [".gltf", ".glb", ".obj", ".fbx"] {
        assert!(stderr(&o).contains(model), "{model}: {}", stderr(&o));
    }
}

#[test]
fn a_misspelt_key_is_pointed_at_not_its_value() {
    for (config, place) in [
        (
            "[texture]\nformat = \"bc7\"\nmax_sise = 512\n",
            "build.toml:3:1:",
        ),
        ("[texture]\n  max_sise = 512\n", "build.toml:2:3:"),
        ("texture.max_sise = 512\n", "build.toml:1:9:"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("assets")).unwrap();
        std::fs::write(dir.path().join("build.toml"), config).unwrap();
        let o = assetc_in(dir.path(), &["build"]);
        assert_eq!(o.status.code(), Some(2), "{config:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(place),
            "{config:?}: want {place} in {}",
            stderr(&o)
        );
        assert!(stderr(&o).contains("max_size"), "{}", stderr(&o));
    }
}

#[test]
fn pack_list_has_a_header_row_over_aligned_columns() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("runtime");
    let o = assetc(&[
        "build",
        s(&samples().join("box")),
        "-o",
        s(&out),
        "--no-config",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let archive = dir.path().join("game.spk");
    let o = assetc(&["pack", s(&out), "-o", s(&archive), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listed = assetc(&["pack", "list", s(&archive)]);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = stdout(&listed);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        columns,
        ["size", "stored", "layer", "archive", "path"],
        "{text}"
    );
    let rows: Vec<&str> = lines.collect();
    // Every file of the tree but the build's own cache and the source map.
    let packed = tree(&out)
        .iter()
        .filter(|(p, _)| {
            p.as_str() != assetc::output::CACHE_NAME
                && p.as_str() != assetc::output::SOURCE_MAP_NAME
        })
        .count();
    assert_eq!(rows.len(), packed, "{text}");
    let path_at = header.find("path").unwrap();
    for row in rows {
        let path = &row[path_at..];
        assert!(
            out.join(path).is_file(),
            "{path:?} is not under the path column:\n{text}"
        );
        assert!(row[..path_at].contains(s(&archive)), "{row}");
    }
}

#[test]
fn a_missing_texture_image_leaves_its_slot_empty_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    copy_dir(&samples().join("box"), &src);
    std::fs::remove_file(src.join("checker.png")).unwrap();
    let build = |out: &Path, extra: &[&str]| {
        let mut args = vec!["build", s(&src), "-o", s(out), "--no-config"];
        args.extend(extra);
        assetc(&args)
    };

    let o = build(&out, &["--message-format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let warnings: Vec<_> = diagnostics(&o)
        .into_iter()
        .filter(|d| d["message"].as_str().unwrap().contains("checker.png"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert_eq!(warnings[0]["severity"], "warning");
    assert_eq!(warnings[0]["code"], "missing-file");
    assert_eq!(warnings[0]["file"], "box.gltf");
    let hmat = |out: &Path| {
        let bytes = std::fs::read(out.join("box.hmat")).unwrap();
        assetc::formats::hmat::read(&bytes).unwrap().materials
    };
    let textures = |m: &assetc::formats::hmat::GpuMaterial| {
        [
            m.base_color_tex,
            m.metallic_roughness_tex,
            m.normal_tex,
            m.occlusion_tex,
            m.emissive_tex,
        ]
    };
    let without = hmat(&out);
    assert_eq!(without.len(), 2);
    assert!(without.iter().all(|m| textures(m) == [0; 5]), "{without:?}");
    assert!(files_ending(&out, ".ktx2").is_empty());
    let check = assetc(&["check", s(&out)]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));

    // --strict keeps the failure, naming the file, and writes nothing for the model.
    let strict_out = dir.path().join("strict");
    let o = build(&strict_out, &["--strict"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("checker.png"), "{}", stderr(&o));
    assert!(!strict_out.join("box.hmesh").exists());

    // The image put back: the next build gives the material its texture.
    std::fs::copy(samples().join("box/checker.png"), src.join("checker.png")).unwrap();
    let o = build(&out, &["-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let with = hmat(&out);
    assert_ne!(textures(&with[0])[0], 0, "{with:?}");
    assert_eq!(files_ending(&out, ".ktx2").len(), 1);

    // A missing buffer is geometry: it fails the model, strict or not.
    std::fs::remove_file(src.join("box.bin")).unwrap();
    let o = build(&out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("box.bin"), "{}", stderr(&o));
}

/// The manifest's entries by path: (kind name, id).
fn manifest_by_path(out: &Path) -> std::collections::BTreeMap<String, (String, u64)> {
    let bytes = std::fs::read(out.join("assets.hman")).unwrap();
    let manifest = assetc::formats::hman::read(&bytes).unwrap();
    manifest
        .entries()
        .iter()
        .map(|e| (e.path.clone(), (e.kind.name().to_string(), e.hash)))
        .collect()
}

#[test]
fn the_source_map_says_where_every_source_went() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    copy_dir(&samples(), &src);
    // Capitals and an extension in upper case: the output name is the lower-cased ref.
    write_png(&src.join("UI/Button.PNG"), 3);
    std::fs::write(src.join("notes.txt"), b"not an asset").unwrap();
    let build = || assetc(&["build", s(&src), "-o", s(&out), "--no-config"]);
    let first = build();
    assert!(first.status.success(), "{}", stderr(&first));
    let map_path = out.join("assets.map.json");
    let bytes = std::fs::read(&map_path).expect("assets.map.json beside the manifest");
    let map: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(map["version"], 1);
    assert_eq!(map["manifest"], "assets.hman");
    let sources = map["sources"].as_object().unwrap();
    // Every source of the tree, by its path as found, and nothing that is not one.
    let gltf = gltf_files(&src).len();
    assert!(gltf >= 4, "the samples hold models");
    assert_eq!(sources.len(), gltf + 1, "{:?}", sources.keys());
    assert!(!sources.contains_key("notes.txt"));
    let button = &sources["UI/Button.PNG"];
    assert_eq!(button["kind"], "texture");
    assert_eq!(button["outputs"][0]["path"], "ui/button.ktx2");
    assert_eq!(button["outputs"][0]["entry"], "texture");
    // Every output exists, and every listed id is the manifest's for that path.
    let manifest = manifest_by_path(&out);
    let mut listed = 0;
    for (source, mapped) in sources {
        if source.ends_with(".gltf") {
            assert_eq!(mapped["kind"], "model", "{source}");
        }
        let outputs = mapped["outputs"].as_array().unwrap();
        assert!(!outputs.is_empty(), "{source}");
        for o in outputs {
            let path = o["path"].as_str().unwrap();
            assert!(out.join(path).is_file(), "{source}: {path}");
            if let Some(id) = o["id"].as_str() {
                let (kind, hash) = &manifest[path];
                assert_eq!(id, format!("{hash:016x}"), "{path}");
                assert_eq!(o["entry"].as_str(), Some(kind.as_str()), "{path}");
                listed += 1;
            }
        }
    }
    assert_eq!(
        listed,
        manifest.len(),
        "every manifest entry is some source's output"
    );

    // A no-op build leaves it as it is; a source removed leaves the map with it.
    let again = build();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(std::fs::read(&map_path).unwrap(), bytes);
    std::fs::remove_file(src.join("UI/Button.PNG")).unwrap();
    let fewer = build();
    assert!(fewer.status.success(), "{}", stderr(&fewer));
    let map: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&map_path).unwrap()).unwrap();
    assert!(map["sources"].get("UI/Button.PNG").is_none(), "{map}");
    assert_eq!(map["sources"].as_object().unwrap().len(), gltf);
    // Deleted by hand, the next build writes it again.
    std::fs::remove_file(&map_path).unwrap();
    assert!(build().status.success());
    assert!(map_path.is_file());
    // Bookkeeping for tools, not content: `check` passes and a pack leaves it out.
    let check = assetc(&["check", s(&out)]);
    assert!(check.status.success(), "{}", stdout(&check));
    let archive = dir.path().join("game.spk");
    let packed = assetc(&["pack", s(&out), "-o", s(&archive), "-q"]);
    assert!(packed.status.success(), "{}", stderr(&packed));
    let listed = stdout(&assetc(&["pack", "list", s(&archive)]));
    assert!(listed.contains("assets.hman"), "{listed}");
    assert!(!listed.contains("assets.map.json"), "{listed}");
}

#[test]
fn keep_case_names_outputs_as_the_sources_are_named_with_the_same_ids() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_dir(&samples().join("box"), &src.join("Props/Box"));
    write_png(&src.join("UI/Button.PNG"), 5);
    let build = |out: &str, config: &str| {
        let cfg = dir.path().join(format!("{out}.toml"));
        std::fs::write(&cfg, config).unwrap();
        let out = dir.path().join(out);
        let o = assetc(&["build", s(&src), "-o", s(&out), "--config", s(&cfg), "-q"]);
        assert!(o.status.success(), "{}", stderr(&o));
        out
    };
    let lower = build("lower", "");
    let kept = build("kept", "keep_case = true\n");
    assert!(lower.join("ui/button.ktx2").is_file());
    assert!(kept.join("UI/Button.ktx2").is_file());
    assert!(!kept.join("ui").exists(), "no lower-cased twin");
    let mesh = files_ending(&kept.join("Props/Box"), ".hmesh");
    assert_eq!(mesh.len(), 1, "{:?}", tree(&kept));
    // The same ids for the same sources: fnv1a64 folds A-Z, so an engine's lookups by id
    // do not change with the setting.
    let ids =
        |out: &Path| -> Vec<u64> { manifest_by_path(out).values().map(|(_, id)| *id).collect() };
    let (mut a, mut b) = (ids(&lower), ids(&kept));
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let check = assetc(&["check", s(&kept)]);
    assert!(check.status.success(), "{}", stdout(&check));
    let map: serde_json::Value =
        serde_json::from_slice(&std::fs::read(kept.join("assets.map.json")).unwrap()).unwrap();
    assert_eq!(
        map["sources"]["UI/Button.PNG"]["outputs"][0]["path"],
        "UI/Button.ktx2"
    );
}
