//! `[shader] outputs = ["spirv", "wgsl"]`: every entry point also as one plain WGSL module
//! (imports linked, `@if`/`#ifdef` decided), which naga itself reads back and validates
//! here; the SPIR-V is the same bytes as a SPIR-V-only build's.

use crate::common;
use crate::shader_imports::wesl_package;
use crate::shader_kind::{build, write};
use assetc::formats::hash::fnv1a64;
use assetc::formats::hman;
use std::collections::BTreeMap;
use std::path::Path;

/// The WESL package of shader_imports (two shaders, one with an `@if` import), a source
/// written for naga_oil, and a plain source of two entry points and an `override`.
fn sources(input: &Path) {
    wesl_package(input);
    write(
        &input.join("shaders/lib/common.wgsl"),
        "#define_import_path my_game::common\n\
         \n\
         struct VertexOutput {\n\
         \x20   @builtin(position) position: vec4<f32>,\n\
         \x20   @location(0) color: vec4<f32>,\n\
         }\n\
         fn tint(c: vec4<f32>) -> vec4<f32> {\n\
         #ifdef WARM\n\
         \x20   return c * vec4<f32>(1.0, 0.8, 0.6, 1.0);\n\
         #else\n\
         \x20   return c;\n\
         #endif\n\
         }\n",
    );
    write(
        &input.join("shaders/sprite.wgsl"),
        "#import my_game::common::{VertexOutput, tint}\n\
         \n\
         @fragment\n\
         fn fragment(in: VertexOutput) -> @location(0) vec4<f32> {\n\
         \x20   return tint(in.color);\n\
         }\n",
    );
    write(
        &input.join("post/blit.wgsl"),
        "override gain: f32 = 1.5;\n\
         struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32> }\n\
         @vertex fn vs(@builtin(vertex_index) i: u32) -> Out {\n\
         \x20   let uv = vec2<f32>(f32(i & 1u), f32(i >> 1u));\n\
         \x20   return Out(vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0), uv);\n\
         }\n\
         @fragment fn fs(in: Out) -> @location(0) vec4<f32> {\n\
         \x20   return vec4<f32>(in.uv * gain, 0.0, 1.0);\n\
         }\n",
    );
}

const DEFINES: &str = "defines = { FOG = \"\", HALF_LAMBERT = \"true\", WARM = \"\" }\n";

/// Source, entry point and stage of every output the tree gives.
const ENTRY_POINTS: [(&str, &str, &str, naga::ShaderStage); 5] = [
    (
        "shaders/lit.wesl",
        "shaders/lit",
        "fs",
        naga::ShaderStage::Fragment,
    ),
    (
        "shaders/unlit.wesl",
        "shaders/unlit",
        "vs",
        naga::ShaderStage::Vertex,
    ),
    (
        "shaders/sprite.wgsl",
        "shaders/sprite",
        "fragment",
        naga::ShaderStage::Fragment,
    ),
    (
        "post/blit.wgsl",
        "post/blit",
        "vs",
        naga::ShaderStage::Vertex,
    ),
    (
        "post/blit.wgsl",
        "post/blit",
        "fs",
        naga::ShaderStage::Fragment,
    ),
];

/// The output tree without the build's cache.
fn outputs(out: &Path) -> BTreeMap<String, Vec<u8>> {
    common::tree(out)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".assetc-cache"))
        .collect()
}

/// naga's own front end and validator over a written `.wgsl`: the module it holds.
fn reread(path: &str, text: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(text)
        .unwrap_or_else(|e| panic!("{path} does not parse: {}\n{text}", e.emit_to_string(text)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{path} is invalid: {}\n{text}", e.emit_to_string(text)));
    module
}

#[test]
fn wesl_and_naga_oil_sources_become_one_plain_wgsl_module_per_entry_point() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let out = dir.path().join("out");
    sources(&input);
    let config = dir.path().join("build.toml");

    write(&config, &format!("[shader]\n{DEFINES}"));
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    let spirv_only = outputs(&out);
    assert!(spirv_only.keys().all(|p| !p.ends_with(".wgsl")));

    write(
        &config,
        &format!("[shader]\n{DEFINES}outputs = [\"spirv\", \"wgsl\"]\n"),
    );
    let (ok, finished) = build(dir.path(), &["-j", "1"]);
    assert!(ok, "{finished:?}");
    for (source, reference, name, _) in ENTRY_POINTS {
        let f = &finished[source];
        assert_eq!(f.status, "built", "{source}: {finished:?}");
        for ext in ["spv", "wgsl"] {
            let path = format!("{reference}/{name}.{ext}");
            assert!(f.outputs.contains(&path), "{path}: {:?}", f.outputs);
        }
    }
    let both = outputs(&out);
    // The SPIR-V is the same bytes whether or not WGSL is written.
    for (path, bytes) in spirv_only.iter().filter(|(p, _)| p.ends_with(".spv")) {
        assert_eq!(both.get(path), Some(bytes), "{path} changed");
    }
    let manifest = hman::read(&both["assets.hman"]).unwrap();
    for (_, reference, name, stage) in ENTRY_POINTS {
        let path = format!("{reference}/{name}.wgsl");
        let text = std::str::from_utf8(&both[&path]).unwrap();
        // Linked: no import of any form is left.
        assert!(!text.contains("import"), "{path}:\n{text}");
        assert!(
            text.lines().all(|l| !l.trim_start().starts_with('#')),
            "{path}:\n{text}"
        );
        let module = reread(&path, text);
        assert_eq!(module.entry_points.len(), 1, "{path}:\n{text}");
        assert_eq!(module.entry_points[0].name, name, "{path}");
        assert_eq!(module.entry_points[0].stage, stage, "{path}");
        // Its own manifest entry, kind 9 (kind 4 is SPIR-V), hashed with its extension.
        let entry = manifest
            .entries()
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path} is not in the manifest"));
        assert_eq!(entry.kind, hman::EntryKind::WgslShader);
        assert_eq!(entry.kind as u8, 9);
        assert_eq!(entry.hash, fnv1a64(&path));
        let spv = format!("{reference}/{name}.spv");
        assert!(manifest
            .entries()
            .iter()
            .any(|e| e.path == spv && e.hash == fnv1a64(&format!("{reference}/{name}"))));
    }
    // Each module holds what its entry point reaches: the override only where it is read,
    // the `@if(FOG)` import's function only because FOG is on, naga_oil's `#ifdef WARM`.
    let text = |path: &str| String::from_utf8(both[path].clone()).unwrap();
    assert!(text("post/blit/fs.wgsl").contains("override gain"));
    assert!(!text("post/blit/vs.wgsl").contains("gain"));
    assert!(text("shaders/lit/fs.wgsl").contains("0.25"));
    assert!(text("shaders/sprite/fragment.wgsl").contains("0.6"));

    // The same bytes whatever the thread count.
    std::fs::remove_dir_all(&out).unwrap();
    let (ok, finished) = build(dir.path(), &["-j", "2"]);
    assert!(ok, "{finished:?}");
    assert_eq!(outputs(&out), both, "-j 2 wrote other bytes than -j 1");

    // check, inspect and info read the new files.
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    let inspect = common::assetc(&[
        "inspect",
        out.join("shaders/unlit/vs.wgsl").to_str().unwrap(),
    ]);
    let shown = String::from_utf8_lossy(&inspect.stdout);
    assert!(inspect.status.success(), "{shown}");
    assert!(
        shown.contains("WGSL module") && shown.contains("vertex"),
        "{shown}"
    );
    let info = common::assetc(&["info", out.to_str().unwrap()]);
    let shown = String::from_utf8_lossy(&info.stdout);
    assert!(shown.contains("WGSL shaders"), "{shown}");
    assert!(shown.contains("fragment fragment"), "{shown}");
    // A module that still imports is not plain WGSL: check names the file and the line.
    write(
        &out.join("shaders/unlit/vs.wgsl"),
        &format!("#import my_game::common\n{}", text("shaders/unlit/vs.wgsl")),
    );
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(!check.status.success());
    assert!(
        said.contains("vs.wgsl") && said.contains("line 1: a preprocessor line"),
        "{said}"
    );
}

#[test]
fn glsl_gets_spirv_only_and_fails_under_wgsl_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(
        &input.join("tint.frag"),
        "#version 450\n\
         layout(location = 0) out vec4 color;\n\
         void main() { color = vec4(1.0); }\n",
    );
    write(
        &input.join("fill.wgsl"),
        "@compute @workgroup_size(1) fn main() {}\n",
    );
    let config = dir.path().join("build.toml");
    write(&config, "[shader]\noutputs = [\"spirv\", \"wgsl\"]\n");
    let out = dir.path().join("out");
    let o = common::assetc(&[
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--message-format",
        "json",
    ]);
    let events = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{events}");
    assert!(events.contains("no-wgsl"), "{events}");
    let (_, finished) = build(dir.path(), &[]);
    assert_eq!(finished["tint.frag"].outputs, ["tint/main.spv"]);
    assert_eq!(
        finished["fill.wgsl"].outputs,
        ["fill/main.spv", "fill/main.wgsl"]
    );

    write(&config, "[shader]\noutputs = [\"wgsl\"]\n");
    let (ok, finished) = build(dir.path(), &[]);
    assert!(!ok);
    assert_eq!(finished["fill.wgsl"].outputs, ["fill/main.wgsl"]);
    let e = &finished["tint.frag"].error;
    assert!(
        e.contains("GLSL is compiled to SPIR-V only") && e.contains("\"wgsl\" alone"),
        "{e}"
    );
}

#[test]
fn a_bad_outputs_value_is_a_config_error_naming_the_key() {
    for (outputs, words) in [
        (
            "[\"spirv\", \"glsl\"]",
            "unknown value `glsl`, expected `spirv` or `wgsl`",
        ),
        ("[]", "[shader] outputs is empty"),
        (
            "[\"wgsl\", \"wgsl\"]",
            "[shader] outputs names \"wgsl\" twice",
        ),
        ("\"wgsl\"", "outputs"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join("in/a.wgsl"),
            "@compute @workgroup_size(1) fn main() {}\n",
        );
        write(
            &dir.path().join("build.toml"),
            &format!("[shader]\noutputs = {outputs}\n"),
        );
        let o = common::assetc_in(dir.path(), &["build", "in", "-o", "out"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{outputs}: {err}");
        assert!(err.contains("build.toml:2"), "{outputs}: {err}");
        assert!(err.contains("outputs"), "{outputs}: {err}");
        assert!(err.contains(words), "{outputs}: {err}");
        assert!(!dir.path().join("out").exists(), "nothing is built");
    }
}
