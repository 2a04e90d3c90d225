//! Shaders as engines write them: `.wesl` packages (`import`, `@if`), WGSL written for
//! naga_oil (`#define_import_path`, `#import`, `#ifdef`), and modules outside the tree
//! (`[shader] import_paths`). A module other shaders import is an input of theirs, not a
//! source of its own; an edit to it rebuilds exactly its importers; a bad import fails its
//! shader alone, said once.

use crate::shader_kind::{assert_spirv_val, build, error_location, spirv_val, write};
use std::path::Path;

const TEST: &str = "shader_imports";

/// A WESL package of four files: two shaders sharing a lighting module, which imports a
/// math module of its own (`super::`), with `@if` branches on both sides of an import.
pub(crate) fn wesl_package(input: &Path) {
    write(
        &input.join("shaders/lit.wesl"),
        "import package::shaders::lib::lighting::{lambert, Light};\n\
         @if(FOG) import package::shaders::lib::fog::apply_fog;\n\
         \n\
         @fragment\n\
         fn fs(@location(0) n: vec3<f32>) -> @location(0) vec4<f32> {\n\
         \x20   let light = Light(normalize(vec3<f32>(0.0, 1.0, 1.0)), 2.0);\n\
         \x20   var c = vec3<f32>(lambert(n, light));\n\
         \x20   @if(FOG) { c = apply_fog(c); }\n\
         \x20   @if(!FOG) { c = c * 0.5; }\n\
         \x20   return vec4<f32>(c, 1.0);\n\
         }\n",
    );
    write(
        &input.join("shaders/unlit.wesl"),
        "import package::shaders::lib::math::saturate;\n\
         @vertex\n\
         fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {\n\
         \x20   let x = saturate(f32(i) - 1.0);\n\
         \x20   return vec4<f32>(x, 0.0, 0.0, 1.0);\n\
         }\n",
    );
    write(
        &input.join("shaders/lib/lighting.wesl"),
        "import super::math::saturate;\n\
         struct Light { dir: vec3<f32>, intensity: f32 }\n\
         fn lambert(n: vec3<f32>, l: Light) -> f32 {\n\
         \x20   @if(HALF_LAMBERT) { return saturate(dot(n, l.dir) * 0.5 + 0.5) * l.intensity; }\n\
         \x20   return saturate(dot(n, l.dir)) * l.intensity;\n\
         }\n",
    );
    write(
        &input.join("shaders/lib/math.wesl"),
        "fn saturate(x: f32) -> f32 { return clamp(x, 0.0, 1.0); }\n",
    );
    write(
        &input.join("shaders/lib/fog.wesl"),
        "fn apply_fog(c: vec3<f32>) -> vec3<f32> { return mix(c, vec3<f32>(0.7), 0.25); }\n",
    );
}

#[test]
fn a_wesl_package_with_if_branches_compiles_to_valid_spirv() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    wesl_package(&input);
    write(
        &dir.path().join("build.toml"),
        "[shader]\ndefines = { FOG = \"\", HALF_LAMBERT = \"true\" }\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    // The modules are inputs of the shaders that import them, not sources of their own.
    let sources: Vec<&str> = finished.keys().map(String::as_str).collect();
    assert_eq!(
        sources,
        ["shaders/lit.wesl", "shaders/unlit.wesl"],
        "{finished:?}"
    );
    assert_eq!(finished["shaders/lit.wesl"].outputs, ["shaders/lit/fs.spv"]);
    assert_eq!(
        finished["shaders/unlit.wesl"].outputs,
        ["shaders/unlit/vs.spv"]
    );
    let with_fog = std::fs::read(dir.path().join("out/shaders/lit/fs.spv")).unwrap();
    if let Some(tool) = spirv_val(TEST) {
        for spv in ["shaders/lit/fs.spv", "shaders/unlit/vs.spv"] {
            assert_spirv_val(&tool, &dir.path().join("out").join(spv));
        }
    }
    // The other branch of each `@if` builds too, to different code.
    write(
        &dir.path().join("build.toml"),
        "[shader]\ndefines = { FOG = \"false\" }\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    assert_eq!(finished["shaders/lit.wesl"].status, "built");
    let without_fog = std::fs::read(dir.path().join("out/shaders/lit/fs.spv")).unwrap();
    assert_ne!(with_fog, without_fog);
    if let Some(tool) = spirv_val(TEST) {
        assert_spirv_val(&tool, &dir.path().join("out/shaders/lit/fs.spv"));
    }
}

#[test]
fn an_edit_to_a_module_rebuilds_exactly_its_importers() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    wesl_package(&input);
    write(
        &input.join("other.wgsl"),
        "@compute @workgroup_size(1) fn main() {}\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok);
    assert!(
        finished.values().all(|f| f.status == "fresh"),
        "a no-op rebuild: {finished:?}"
    );
    // lighting.wesl is imported by lit.wesl alone.
    let lighting = input.join("shaders/lib/lighting.wesl");
    let text = std::fs::read_to_string(&lighting).unwrap();
    write(
        &lighting,
        &text.replace("* l.intensity;\n}", "* l.intensity * 0.9;\n}"),
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    let rebuilt: Vec<&str> = finished
        .iter()
        .filter(|(_, f)| f.status == "built")
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(rebuilt, ["shaders/lit.wesl"], "{finished:?}");
    // math.wesl is imported by both, lit.wesl through lighting.wesl.
    let math = input.join("shaders/lib/math.wesl");
    write(
        &math,
        "fn saturate(x: f32) -> f32 { return min(max(x, 0.0), 1.0); }\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    let rebuilt: Vec<&str> = finished
        .iter()
        .filter(|(_, f)| f.status == "built")
        .map(|(s, _)| s.as_str())
        .collect();
    assert_eq!(
        rebuilt,
        ["shaders/lit.wesl", "shaders/unlit.wesl"],
        "{finished:?}"
    );
}

#[test]
fn bad_imports_fail_their_shader_alone_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(
        &input.join("good.wesl"),
        "@compute @workgroup_size(1) fn main() {}\n",
    );
    // An engine's own module, not in the tree.
    write(
        &input.join("pbr.wesl"),
        "import bevy_pbr::forward_io::VertexOutput;\n\
         @fragment fn fs(v: VertexOutput) -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n",
    );
    // A module of the tree that does not exist.
    write(
        &input.join("missing.wesl"),
        "import package::nowhere::thing;\n\
         @compute @workgroup_size(1) fn main() { thing(); }\n",
    );
    // Modules that import each other, with functions that call each other.
    write(
        &input.join("cycle.wesl"),
        "import package::ping::ping;\n\
         @compute @workgroup_size(1) fn main() { ping(1); }\n",
    );
    write(
        &input.join("ping.wesl"),
        "import package::pong::pong;\nfn ping(n: i32) -> i32 { return pong(n); }\n",
    );
    write(
        &input.join("pong.wesl"),
        "import package::ping::ping;\nfn pong(n: i32) -> i32 { return ping(n - 1); }\n",
    );
    // A syntax error in an imported module: named in that module, at its line.
    write(
        &input.join("broken_user.wesl"),
        "import package::lib::broken::f;\n\
         @compute @workgroup_size(1) fn main() { f(); }\n",
    );
    write(
        &input.join("lib/broken.wesl"),
        "fn f() {\n    let x = ;\n}\n",
    );
    // `super::` past the root stays in the tree; a path is no module name.
    write(
        &input.join("escape.wesl"),
        "import super::super::super::etc::passwd;\n\
         @compute @workgroup_size(1) fn main() { passwd(); }\n",
    );
    // A plain .wgsl that imports: a hint at the form it is written in, said once.
    write(
        &input.join("imports.wgsl"),
        "import package::math::saturate;\n@compute @workgroup_size(1) fn main() {}\n",
    );
    let (ok, finished) = build(dir.path(), &["-j", "2"]);
    assert!(!ok);
    assert_eq!(finished["good.wesl"].status, "built", "{finished:?}");
    let error = |name: &str| {
        let f = &finished[name];
        assert_eq!(f.status, "failed", "{name}: {finished:?}");
        f.error.clone()
    };
    let e = error("pbr.wesl");
    assert!(e.contains("bevy_pbr::forward_io"), "{e}");
    assert!(e.contains("import_paths"), "{e}");
    assert_eq!(
        e.matches("bevy_pbr::forward_io").count(),
        1,
        "said once: {e}"
    );
    assert_eq!(e.matches("import_paths").count(), 2, "{e}");
    let e = error("missing.wesl");
    assert_eq!(e.matches("package::nowhere").count(), 1, "said once: {e}");
    let e = error("cycle.wesl");
    assert!(e.contains("cyclic"), "{e}");
    let e = error("broken_user.wesl");
    assert_eq!(
        error_location(&e, &input.join("lib/broken.wesl")),
        Some((2, 13)),
        "{e}"
    );
    let e = error("escape.wesl");
    assert!(e.contains("etc::passwd") || e.contains("etc"), "{e}");
    let e = error("imports.wgsl");
    assert!(e.contains(".wesl"), "{e}");
    let first_sentence = e.split(';').next().unwrap();
    assert_eq!(
        e.matches(first_sentence.trim_start_matches(|c: char| c != ' '))
            .count(),
        1,
        "said once: {e}"
    );
}

#[test]
fn modules_outside_the_tree_come_from_import_paths_and_nothing_outside_them() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(
        &dir.path().join("vendor/shaders/engine/forward_io.wesl"),
        "struct VertexOutput { @location(0) color: vec4<f32> }\n",
    );
    write(
        &input.join("pbr.wesl"),
        "import engine::forward_io::VertexOutput;\n\
         @fragment fn fs(v: VertexOutput) -> @location(0) vec4<f32> { return v.color; }\n",
    );
    write(
        &dir.path().join("build.toml"),
        "[shader]\nimport_paths = [\"vendor/shaders\"]\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{finished:?}");
    assert_eq!(finished["pbr.wesl"].outputs, ["pbr/fs.spv"]);
    // A link in the import folder to a file outside it is refused, naming the module.
    #[cfg(unix)]
    {
        write(
            &dir.path().join("secret.wesl"),
            "fn s() -> f32 { return 1.0; }\n",
        );
        std::os::unix::fs::symlink(
            dir.path().join("secret.wesl"),
            dir.path().join("vendor/shaders/engine/secret.wesl"),
        )
        .unwrap();
        write(
            &input.join("leak.wesl"),
            "import engine::secret::s;\n\
             @compute @workgroup_size(1) fn main() { let x = s(); }\n",
        );
        let (ok, finished) = build(dir.path(), &[]);
        assert!(!ok);
        assert_eq!(finished["pbr.wesl"].status, "fresh");
        let e = &finished["leak.wesl"].error;
        assert!(e.contains("engine::secret") && e.contains("refused"), "{e}");
    }
}

#[test]
fn a_long_chain_of_imports_links() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    const N: usize = 2_000;
    for i in 0..N {
        let body = if i + 1 < N {
            format!(
                "import package::chain::m{}::g{};\nfn g{i}() -> f32 {{ return g{}() + 1.0; }}\n",
                i + 1,
                i + 1,
                i + 1
            )
        } else {
            format!("fn g{i}() -> f32 {{ return 1.0; }}\n")
        };
        write(&input.join(format!("chain/m{i}.wesl")), &body);
    }
    write(
        &input.join("head.wesl"),
        "import package::chain::m0::g0;\n\
         @compute @workgroup_size(1) fn main() { let x = g0(); }\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(ok, "{:?}", finished.get("head.wesl"));
    assert_eq!(finished.len(), 1, "the modules are no sources of their own");
    assert_eq!(finished["head.wesl"].outputs, ["head/main.spv"]);
}

#[test]
fn wgsl_written_for_naga_oil_composes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
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
        &input.join("shaders/engine.wgsl"),
        "#import bevy_pbr::forward_io::VertexOutput\n\
         @fragment fn fragment(in: VertexOutput) -> @location(0) vec4<f32> { return vec4(1.0); }\n",
    );
    write(
        &dir.path().join("build.toml"),
        "[shader]\ndefines = { WARM = \"\" }\n",
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(!ok);
    assert_eq!(
        finished.keys().map(String::as_str).collect::<Vec<_>>(),
        ["shaders/engine.wgsl", "shaders/sprite.wgsl"],
        "{finished:?}"
    );
    assert_eq!(
        finished["shaders/sprite.wgsl"].status, "built",
        "{finished:?}"
    );
    assert_eq!(
        finished["shaders/sprite.wgsl"].outputs,
        ["shaders/sprite/fragment.spv"]
    );
    if let Some(tool) = spirv_val(TEST) {
        assert_spirv_val(&tool, &dir.path().join("out/shaders/sprite/fragment.spv"));
    }
    let e = &finished["shaders/engine.wgsl"].error;
    assert_eq!(e.matches("bevy_pbr::forward_io").count(), 1, "{e}");
    assert!(e.contains("import_paths"), "{e}");
    // An edit to the module rebuilds its importer.
    let common = input.join("shaders/lib/common.wgsl");
    let text = std::fs::read_to_string(&common).unwrap();
    write(&common, &text.replace("0.6", "0.5"));
    let (_, finished) = build(dir.path(), &[]);
    assert_eq!(
        finished["shaders/sprite.wgsl"].status, "built",
        "{finished:?}"
    );
}

/// naga_oil's own test shaders (its published crate, in cargo's registry as a dependency
/// of ours): sources that import modules by `#define_import_path`, composed and compiled,
/// the modules no sources of their own.
#[test]
fn naga_oils_own_shaders_compose() {
    let Some(tests) = crate::shader_kind::crate_dir("naga_oil-0.23.0")
        .map(|d| d.join("src/compose/tests"))
        .filter(|d| d.is_dir())
    else {
        crate::common::missing(TEST, "naga_oil 0.23.0's sources in cargo's registry");
        return;
    };
    for (case, source, entry_points) in [
        ("item_sub_point", "top.wgsl", &["main"][..]),
        ("call_entrypoint", "top.wgsl", &["fragment"][..]),
        ("dual_source_blending", "blending.wgsl", &["fragment"][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir_all(&input).unwrap();
        for entry in std::fs::read_dir(tests.join(case)).unwrap().flatten() {
            std::fs::copy(entry.path(), input.join(entry.file_name())).unwrap();
        }
        let (ok, finished) = build(dir.path(), &[]);
        assert!(ok, "{case}: {finished:?}");
        assert_eq!(
            finished.len(),
            1,
            "{case}: the modules are inputs: {finished:?}"
        );
        let outputs: Vec<String> = entry_points
            .iter()
            .map(|e| format!("{}/{e}.spv", source.trim_end_matches(".wgsl")))
            .collect();
        assert_eq!(finished[source].outputs, outputs, "{case}");
        if let Some(tool) = spirv_val(TEST) {
            for o in &outputs {
                assert_spirv_val(&tool, &dir.path().join("out").join(o));
            }
        }
    }
}
