//! Shaders: `.wgsl` and GLSL sources become one SPIR-V module per entry point, checked by
//! real consumers: `spirv-val` (Debian's spirv-tools) accepts every `.spv` written, and
//! `glslangValidator` (glslang-tools), the reference GLSL compiler, compiles the same GLSL
//! sources side by side.
//!
//! Real shaders, not only snippets: the WGSL and GLSL that published crates ship (fetched
//! into cargo's registry by `tests/shader_crates`, see `.ci/run`) and the Vulkan GLSL of
//! piglit, the OpenGL conformance suite Debian packages (`ASSETC_PIGLIT_DIR`). Where naga
//! cannot compile one, the expected failure is named with naga's message and the token the
//! error points at.

use crate::common;

use assetc::formats::hash::fnv1a64;
use assetc::formats::hman::{self, EntryKind};
use assetc::formats::spirv;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const TEST: &str = "shader_kind";

pub(crate) fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// One `asset-finished` event: status, outputs, error.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub status: String,
    pub outputs: Vec<String>,
    pub error: String,
}

/// Builds `dir/in` into `dir/out` with JSON events; returns the exit status and each
/// source's outcome by its relative path.
pub(crate) fn build(dir: &Path, extra: &[&str]) -> (bool, BTreeMap<String, Finished>) {
    let (input, output) = (dir.join("in"), dir.join("out"));
    let mut args = vec![
        "build",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--message-format",
        "json",
    ];
    let config = dir.join("build.toml");
    if config.is_file() {
        args.extend(["--config", config.to_str().unwrap()]);
    } else {
        args.push("--no-config");
    }
    args.extend_from_slice(extra);
    let run = common::assetc(&args);
    let mut finished = BTreeMap::new();
    for line in String::from_utf8_lossy(&run.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "asset-finished" {
            continue;
        }
        let mut outputs: Vec<String> = v["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap().to_string())
            .collect();
        outputs.sort();
        finished.insert(
            v["source"].as_str().unwrap().to_string(),
            Finished {
                status: v["status"].as_str().unwrap().to_string(),
                outputs,
                error: v["error"].as_str().unwrap_or("").to_string(),
            },
        );
    }
    (run.status.success(), finished)
}

pub(crate) fn spirv_val(test: &str) -> Option<PathBuf> {
    let tool = common::tool("ASSETC_SPIRV_VAL", "spirv-val", &["/usr/bin"]);
    if tool.is_none() {
        common::missing(test, "spirv-val (Debian package spirv-tools)");
    }
    tool
}

fn glslang(test: &str) -> Option<PathBuf> {
    let tool = common::tool("ASSETC_GLSLANG", "glslangValidator", &["/usr/bin"]);
    if tool.is_none() {
        common::missing(test, "glslangValidator (Debian package glslang-tools)");
    }
    tool
}

/// spirv-val's verdict on a module under Vulkan 1.1 rules (the environment whose native
/// SPIR-V version, 1.3, assetc writes).
pub(crate) fn assert_spirv_val(tool: &Path, file: &Path) {
    let out = Command::new(tool)
        .args(["--target-env", "vulkan1.1"])
        .arg(file)
        .output()
        .expect("spirv-val runs");
    assert!(
        out.status.success(),
        "spirv-val rejects {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The `path:line:col` an error names for `file`, when it names one.
pub(crate) fn error_location(error: &str, file: &Path) -> Option<(usize, usize)> {
    let rest = error.strip_prefix(&format!("{}:", file.display()))?;
    let mut parts = rest.splitn(3, ':');
    let line = parts.next()?.parse().ok()?;
    let col = parts.next()?.parse().ok()?;
    Some((line, col))
}

/// The text at 1-based `line`:`col` (a character column) of `text`.
fn text_at(text: &str, line: usize, col: usize) -> String {
    let l = text.lines().nth(line - 1).unwrap_or("");
    l.chars().skip(col - 1).collect()
}

// ---------------------------------------------------------------------------------------
// Real shaders

#[derive(Debug, Clone, Copy)]
enum Origin {
    /// A crate's published sources in cargo's registry (`name-version`).
    Crate(&'static str),
    /// Debian's piglit, below its `tests/spec` folder.
    Piglit,
}

/// What naga does with a real source.
#[derive(Debug, Clone, Copy)]
enum Naga {
    /// Compiles: these entry points, one `.spv` each.
    Compiles(&'static [&'static str]),
    /// Fails with this message; `at` is the text its `line:col` points at (None: naga
    /// gives no location).
    Fails {
        message: &'static str,
        at: Option<&'static str>,
        why: &'static str,
    },
}

#[derive(Debug, Clone, Copy)]
struct Real {
    origin: Origin,
    /// Path inside the origin; `a+b` is `a`, a newline, then `b` (how the crate composes
    /// the shader it compiles).
    path: &'static str,
    /// Where it goes in the build tree: distinct refs, as GLSL's entry point is always
    /// `main` and `x.vert` beside `x.frag` would both write `x/main.spv`.
    name: &'static str,
    naga: Naga,
    /// GLSL only: whether glslangValidator compiles it for Vulkan 1.1.
    glslang: Option<bool>,
}

const fn ok(
    origin: Origin,
    path: &'static str,
    name: &'static str,
    eps: &'static [&'static str],
) -> Real {
    Real {
        origin,
        path,
        name,
        naga: Naga::Compiles(eps),
        glslang: None,
    }
}

const fn fails(
    origin: Origin,
    path: &'static str,
    name: &'static str,
    message: &'static str,
    at: Option<&'static str>,
    why: &'static str,
) -> Real {
    Real {
        origin,
        path,
        name,
        naga: Naga::Fails { message, at, why },
        glslang: None,
    }
}

const fn glsl(real: Real, glslang_accepts: bool) -> Real {
    Real {
        glslang: Some(glslang_accepts),
        ..real
    }
}

const WGPU: Origin = Origin::Crate("wgpu-30.0.2");
const WGPU_CORE: Origin = Origin::Crate("wgpu-core-30.0.2");
const WGPU_HAL: Origin = Origin::Crate("wgpu-hal-30.0.2");
const GLYPHON: Origin = Origin::Crate("glyphon-0.12.0");
const EGUI_WGPU: Origin = Origin::Crate("egui-wgpu-0.37.0");
const IMGUI_VK: Origin = Origin::Crate("imgui-rs-vulkan-renderer-1.16.0");
const EGUI_ASH: Origin = Origin::Crate("egui-ash-renderer-0.13.0");

/// The shaders that crates ship, and what naga and glslang make of them.
const CRATE_SHADERS: &[Real] = &[
    ok(WGPU, "src/util/blit.wgsl", "wgpu/blit.wgsl", &["vs_main", "fs_main"]),
    ok(WGPU_HAL, "examples/halmark/shader.wgsl", "wgpu-hal/halmark.wgsl", &["vs_main", "fs_main"]),
    // A ray query in a compute shader: SPV_KHR_ray_query, valid at SPIR-V 1.3.
    ok(WGPU_HAL, "examples/ray-traced-triangle/shader.wgsl", "wgpu-hal/ray_traced_triangle.wgsl", &["main"]),
    ok(GLYPHON, "src/shader.wgsl", "glyphon/shader.wgsl", &["vs_main", "fs_main"]),
    ok(EGUI_WGPU, "src/egui.wgsl", "egui-wgpu/egui.wgsl", &["vs_main", "fs_main_linear_framebuffer", "fs_main_gamma_framebuffer"]),
    ok(EGUI_WGPU, "src/texture_copy.wgsl", "egui-wgpu/texture_copy.wgsl", &["vs_main", "fs_main"]),
    // wgpu-core prepends its common.wgsl at run time; composed the same way, it compiles.
    ok(WGPU_CORE, "src/timestamp_normalization/common.wgsl+src/timestamp_normalization/timestamp_normalization.wgsl", "wgpu-core/timestamp_normalization_composed.wgsl", &["main"]),
    fails(WGPU_CORE, "src/timestamp_normalization/timestamp_normalization.wgsl", "wgpu-core/timestamp_normalization.wgsl",
        "no definition in scope for identifier: `Uint64`", Some("Uint64"),
        "alone, without the common.wgsl wgpu-core prepends, its types are undefined"),
    fails(WGPU_CORE, "src/indirect_validation/validate_draw.wgsl", "wgpu-core/validate_draw.wgsl",
        "Missing value for pipeline-overridable constant with identifier string: 'supports_indirect_first_instance'",
        Some("override supports_indirect_first_instance"),
        "its `override` constants have no default; wgpu supplies them per device"),
    glsl(ok(IMGUI_VK, "src/shaders/shader.vert", "imgui-rs-vulkan-renderer/shader_vert.vert", &["main"]), true),
    glsl(fails(IMGUI_VK, "src/shaders/shader.frag", "imgui-rs-vulkan-renderer/shader_frag.frag",
        "Not implemented: variable qualifier", Some("sampler2D"),
        "naga's GLSL frontend has no combined image samplers (sampler2D)"), true),
    glsl(ok(EGUI_ASH, "src/shaders/shader.vert", "egui-ash-renderer/shader_vert.vert", &["main"]), true),
    glsl(fails(EGUI_ASH, "src/shaders/shader.frag", "egui-ash-renderer/shader_frag.frag",
        "Not implemented: variable qualifier", Some("sampler2D"),
        "naga's GLSL frontend has no combined image samplers (sampler2D)"), true),
    // wgpu-hal's OpenGL ES shaders: not Vulkan GLSL, refused by both compilers.
    glsl(fails(WGPU_HAL, "src/gles/shaders/srgb_present.frag", "wgpu-hal/srgb_present_frag.frag",
        "Invalid version: 300", Some("300 es"),
        "naga reads GLSL 440, 450 and 460 core only"), false),
    glsl(fails(WGPU_HAL, "src/gles/shaders/srgb_present.vert", "wgpu-hal/srgb_present_vert.vert",
        "Invalid version: 300", Some("300 es"),
        "naga reads GLSL 440, 450 and 460 core only"), false),
    glsl(fails(WGPU_HAL, "src/gles/shaders/clear.frag", "wgpu-hal/clear_frag.frag",
        "uniform/buffer blocks require layout(binding=X)", Some("color;"),
        "OpenGL-style loose uniforms have no binding for Vulkan"), false),
    glsl(fails(WGPU_HAL, "src/gles/shaders/clear.vert", "wgpu-hal/clear_vert.vert",
        "Unknown variable: gl_VertexID", Some("gl_VertexID"),
        "gl_VertexID is OpenGL's; Vulkan GLSL says gl_VertexIndex"), false),
];

/// piglit's Vulkan GLSL (EXT_external_objects) and its GLSL 4.40+ compiler tests.
const PIGLIT_SHADERS: &[Real] = &[
    glsl(
        ok(
            Origin::Piglit,
            "ext_external_objects/vk_zquad.frag",
            "piglit/vk_zquad_frag.frag",
            &["main"],
        ),
        true,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "ext_external_objects/vk_zquad.vert",
            "piglit/vk_zquad_vert.vert",
            "Invalid version: 430",
            Some("430"),
            "naga reads GLSL 440, 450 and 460 core only",
        ),
        true,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "ext_external_objects/vk_bands.vert",
            "piglit/vk_bands_vert.vert",
            "Invalid version: 430",
            Some("430"),
            "naga reads GLSL 440, 450 and 460 core only",
        ),
        true,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "ext_external_objects/vk_bands.frag",
            "piglit/vk_bands_frag.frag",
            "The type is not constructible",
            Some("colors[]"),
            "naga does not size an unsized const array from its initializer",
        ),
        true,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "ext_external_objects/vk_blue.vert",
            "piglit/vk_blue_vert.vert",
            "Invalid version: 330",
            Some("330"),
            "naga reads GLSL 440, 450 and 460 core only",
        ),
        true,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "ext_external_objects/vk_blue.frag",
            "piglit/vk_blue_frag.frag",
            "Invalid version: 330",
            Some("330"),
            "naga reads GLSL 440, 450 and 460 core only",
        ),
        true,
    ),
    // A compile-only test with no main(): neither compiler links it into a shader.
    glsl(
        fails(
            Origin::Piglit,
            "glsl-4.40/compiler/inout-parameter-qualifier.frag",
            "piglit/inout_parameter_qualifier_frag.frag",
            "Missing entry point",
            None,
            "a compile-only test without main()",
        ),
        false,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "nv_compute_shader_derivatives/compiler/new_functions.comp",
            "piglit/nv_derivatives_new_functions_comp.comp",
            "Invalid profile: compatibility",
            Some("compatibility"),
            "the compatibility profile is not Vulkan GLSL (glslang refuses it for SPIR-V too)",
        ),
        false,
    ),
    // piglit expects these to fail (bad workgroup sizes); naga fails earlier, on the
    // NV extension's layout qualifier it does not know.
    glsl(
        fails(
            Origin::Piglit,
            "nv_compute_shader_derivatives/compiler/fail_quads_x.comp",
            "piglit/nv_derivatives_fail_quads_x_comp.comp",
            "Unexpected qualifier",
            Some("derivative_group_quadsNV"),
            "GL_NV_compute_shader_derivatives is not in naga",
        ),
        false,
    ),
    glsl(
        fails(
            Origin::Piglit,
            "nv_compute_shader_derivatives/compiler/fail_linear_size.comp",
            "piglit/nv_derivatives_fail_linear_size_comp.comp",
            "Unexpected qualifier",
            Some("derivative_group_linearNV"),
            "GL_NV_compute_shader_derivatives is not in naga",
        ),
        false,
    ),
];

/// cargo's registry source folders (`$CARGO_HOME/registry/src/*`).
fn registry_src_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap_or_default();
    let Ok(entries) = std::fs::read_dir(home.join("registry/src")) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    dirs.sort();
    dirs
}

pub(crate) fn crate_dir(name_version: &str) -> Option<PathBuf> {
    registry_src_dirs()
        .into_iter()
        .map(|d| d.join(name_version))
        .find(|d| d.is_dir())
}

/// piglit's `tests/spec` folder: `ASSETC_PIGLIT_DIR`, else where `.ci/run` unpacks it.
fn piglit_dir() -> PathBuf {
    std::env::var_os("ASSETC_PIGLIT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from("/opt/assetc-data/piglit/usr/lib/x86_64-linux-gnu/piglit/tests/spec")
        })
}

/// Each real source's text, or None (after `common::missing`) when its origin is absent.
fn real_sources(reals: &[Real]) -> Option<Vec<(Real, String)>> {
    let mut out = Vec::new();
    for r in reals {
        let root = match r.origin {
            Origin::Crate(c) => match crate_dir(c) {
                Some(d) => d,
                None => {
                    common::missing(
                        TEST,
                        &format!(
                            "the crate {c} in cargo's registry (cargo fetch --manifest-path \
                             tests/shader_crates/Cargo.toml)"
                        ),
                    );
                    return None;
                }
            },
            Origin::Piglit => {
                let d = piglit_dir();
                if !d.join("ext_external_objects").is_dir() {
                    common::missing(
                        TEST,
                        &format!(
                            "piglit's shaders at {} (Debian package piglit; set ASSETC_PIGLIT_DIR; \
                             .ci/run unpacks it)",
                            d.display()
                        ),
                    );
                    return None;
                }
                d
            }
        };
        let parts: Vec<String> = r
            .path
            .split('+')
            .map(|p| {
                std::fs::read_to_string(root.join(p))
                    .unwrap_or_else(|e| panic!("{} in {}: {e}", p, root.display()))
            })
            .collect();
        out.push((*r, parts.join("\n")));
    }
    Some(out)
}

/// The stage glslangValidator is told, from the extension.
fn glslang_stage(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("vert") => "vert",
        Some("frag") => "frag",
        _ => "comp",
    }
}

/// Compiles the real sources with assetc, checks each outcome and every `.spv` with
/// spirv-val, and the GLSL ones with glslang side by side. Prints how long each compiler
/// took (docs/performance.md).
fn check_real(reals: &[Real]) {
    let (Some(val), Some(glslang)) = (spirv_val(TEST), glslang(TEST)) else {
        return;
    };
    let Some(sources) = real_sources(reals) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    for (r, text) in &sources {
        write(&input.join(r.name), text);
    }
    let started = Instant::now();
    let (_, finished) = build(dir.path(), &["-j", "1"]);
    let naga_time = started.elapsed();
    let out = dir.path().join("out");
    let mut accepted = 0;
    for (r, text) in &sources {
        let got = finished
            .get(r.name)
            .unwrap_or_else(|| panic!("no outcome for {}", r.name));
        let reference = r.name.rsplit_once('.').unwrap().0;
        match r.naga {
            Naga::Compiles(eps) => {
                assert_eq!(got.status, "built", "{}: {}", r.name, got.error);
                let mut expected: Vec<String> =
                    eps.iter().map(|e| format!("{reference}/{e}.spv")).collect();
                expected.sort();
                assert_eq!(got.outputs, expected, "{}", r.name);
                for (ep, file) in eps
                    .iter()
                    .zip(eps.iter().map(|e| format!("{reference}/{e}.spv")))
                {
                    let path = out.join(&file);
                    assert_spirv_val(&val, &path);
                    let m = spirv::read(&std::fs::read(&path).unwrap()).unwrap();
                    let names: Vec<&str> = m.entry_points.iter().map(|e| e.name.as_str()).collect();
                    assert_eq!(names, [*ep], "{file} holds its own entry point alone");
                    assert_eq!(m.version, (1, 3), "{file}");
                }
                accepted += 1;
            }
            Naga::Fails { message, at, why } => {
                let file = input.join(r.name);
                assert_eq!(got.status, "failed", "{} should fail ({why})", r.name);
                assert!(
                    got.error.starts_with(&file.display().to_string()),
                    "{}: the error names the file: {}",
                    r.name,
                    got.error
                );
                assert!(
                    got.error.contains(message),
                    "{}: expected naga's \"{message}\" ({why}), got: {}",
                    r.name,
                    got.error
                );
                match at {
                    Some(token) => {
                        let (line, col) = error_location(&got.error, &file)
                            .unwrap_or_else(|| panic!("{}: no line:col in {}", r.name, got.error));
                        let there = text_at(text, line, col);
                        assert!(
                            there.starts_with(token),
                            "{}: {line}:{col} should point at `{token}`, points at `{there}`",
                            r.name
                        );
                    }
                    None => assert!(error_location(&got.error, &file).is_none(), "{}", got.error),
                }
                eprintln!("expected failure: {}: {why}: {}", r.name, got.error);
            }
        }
    }

    // glslang, the reference compiler, on the same GLSL sources, one process each as a
    // build system would run it.
    let gl_dir = dir.path().join("glslang");
    std::fs::create_dir_all(&gl_dir).unwrap();
    let mut glslang_time = Duration::ZERO;
    let mut glsl_count = 0;
    for (r, _) in sources.iter().filter(|(r, _)| r.glslang.is_some()) {
        glsl_count += 1;
        let spv = gl_dir.join(format!("{glsl_count}.spv"));
        let started = Instant::now();
        let run = Command::new(&glslang)
            .args([
                "-V",
                "--target-env",
                "vulkan1.1",
                "-S",
                glslang_stage(r.name),
                "-o",
            ])
            .arg(&spv)
            .arg(input.join(r.name))
            .output()
            .expect("glslangValidator runs");
        glslang_time += started.elapsed();
        let log = String::from_utf8_lossy(&run.stdout);
        assert_eq!(
            run.status.success(),
            r.glslang == Some(true),
            "glslang on {}: {log}",
            r.name
        );
        if run.status.success() {
            // Our reader and spirv-val agree on glslang's module too.
            assert_spirv_val(&val, &spv);
            let m = spirv::read(&std::fs::read(&spv).unwrap()).unwrap();
            assert_eq!(m.entry_points.len(), 1);
            assert_eq!(m.entry_points[0].name, "main");
            if let Naga::Compiles(_) = r.naga {
                let ours_path =
                    out.join(format!("{}/main.spv", r.name.rsplit_once('.').unwrap().0));
                let ours = spirv::read(&std::fs::read(ours_path).unwrap()).unwrap();
                assert_eq!(
                    ours.entry_points[0].execution_model, m.entry_points[0].execution_model,
                    "{}: both compilers give the same stage",
                    r.name
                );
            }
        } else {
            eprintln!(
                "glslang refuses {}: {}",
                r.name,
                log.lines().find(|l| l.contains("ERROR")).unwrap_or("")
            );
        }
        // naga never accepts what the reference compiler refuses.
        if let Naga::Compiles(_) = r.naga {
            assert_eq!(r.glslang, Some(true), "{}", r.name);
        }
    }
    eprintln!(
        "{} sources: assetc (naga) compiled {accepted} in {:.1} ms (one build, -j 1); \
         glslangValidator ran on {glsl_count} GLSL sources in {:.1} ms",
        sources.len(),
        naga_time.as_secs_f64() * 1000.0,
        glslang_time.as_secs_f64() * 1000.0
    );

    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "assetc check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn shaders_that_crates_ship_compile_or_fail_as_named() {
    check_real(CRATE_SHADERS);
}

#[test]
fn piglits_vulkan_glsl_compiles_or_fails_as_named() {
    check_real(PIGLIT_SHADERS);
}

// ---------------------------------------------------------------------------------------
// Written for the test

/// Two entry points sharing a texture: a full-screen triangle and its fragment shader.
const TWO_ENTRY_POINTS: &str = r#"
struct VsOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var image_sampler: sampler;

@vertex
fn vs(@builtin(vertex_index) index: u32) -> VsOut {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return VsOut(vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0), uv);
}

@fragment
fn fs(input: VsOut) -> @location(0) vec4<f32> {
    return textureSample(image, image_sampler, input.uv);
}
"#;

/// Red or blue, and brighter with a higher QUALITY, as the preprocessor decides.
const DEFINED: &str = "#version 450
layout(location = 0) out vec4 colour;
void main() {
#ifdef RED
    colour = vec4(1.0, 0.0, 0.0, 1.0);
#else
    colour = vec4(0.0, 0.0, 1.0, 1.0);
#endif
#if QUALITY > 1
    colour.rgb *= 0.5;
#endif
}
";

/// A GLSL compute shader whose stage only its pragma tells.
const PRAGMA_COMPUTE: &str = "#version 450
#pragma stage(compute)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { float values[]; };
void main() {
    values[gl_GlobalInvocationID.x] *= 2.0;
}
";

#[test]
fn two_entry_points_write_two_modules_named_in_the_manifest() {
    let Some(val) = spirv_val(TEST) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("in/Post/Blit.wgsl"), TWO_ENTRY_POINTS);
    write(&dir.path().join("in/post/sum.glsl"), PRAGMA_COMPUTE);
    let (ok, finished) = build(dir.path(), &["--verify", "--report"]);
    assert!(ok, "{finished:?}");
    let out = dir.path().join("out");
    assert_eq!(
        finished["Post/Blit.wgsl"].outputs,
        ["post/blit/fs.spv", "post/blit/vs.spv"]
    );
    assert_eq!(finished["post/sum.glsl"].outputs, ["post/sum/main.spv"]);

    // Manifest: kind 4, hashed by ref + "/" + entry point (not the path with .spv).
    let m = hman::read(&std::fs::read(out.join("assets.hman")).unwrap()).unwrap();
    for (path, id, model) in [
        ("post/blit/vs.spv", "post/blit/vs", "vertex"),
        ("post/blit/fs.spv", "post/blit/fs", "fragment"),
        ("post/sum/main.spv", "post/sum/main", "glcompute"),
    ] {
        let e = m
            .entries()
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path} not in {:?}", m.entries()));
        assert_eq!((e.kind, e.hash), (EntryKind::Shader, fnv1a64(id)), "{path}");
        assert_ne!(e.hash, fnv1a64(path));
        let bytes = std::fs::read(out.join(path)).unwrap();
        let module = spirv::read(&bytes).unwrap();
        assert_eq!(module.entry_points.len(), 1, "{path}");
        assert_eq!(module.entry_points[0].model_name(), model, "{path}");
        assert_eq!(module.words * 4, bytes.len());
        assert_spirv_val(&val, &out.join(path));
    }

    let check = common::assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // inspect: entry points, execution models and the word count.
    let vs = out.join("post/blit/vs.spv");
    let words = std::fs::metadata(&vs).unwrap().len() / 4;
    let inspect = common::assetc(&["inspect", vs.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&inspect.stdout);
    assert!(inspect.status.success(), "{text}");
    assert!(text.contains("version") && text.contains("1.3"), "{text}");
    assert!(text.contains(&words.to_string()), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("vs") && l.contains("vertex")),
        "{text}"
    );

    // info: a row per module in its shaders table.
    let info = common::assetc(&["info", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("shaders"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("post/sum/main.spv"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        row.contains("glcompute main") && row.contains("1.3"),
        "{row}"
    );

    // The report lists each entry point of the shader asset.
    let html = std::fs::read_to_string(out.join("report/index.html")).unwrap();
    let section = &html[html.find("id=\"a-Post-Blit-wgsl\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    for row in ["<td>vs</td><td>vertex</td>", "<td>fs</td><td>fragment</td>"] {
        assert!(section.contains(row), "{row} missing from {section}");
    }

    // A damaged module (same size, so only its validator can tell) is caught by check,
    // naming it: word 4, the schema, must be 0.
    let mut damaged = std::fs::read(&vs).unwrap();
    damaged[16] = 1;
    std::fs::write(&vs, &damaged).unwrap();
    let check = common::assetc(&["check", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&check.stdout).to_string()
        + &String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(
        text.contains("post/blit/vs.spv") && text.contains("schema word is 1"),
        "{text}"
    );
}

#[test]
fn errors_name_file_line_and_column_and_fail_that_shader_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    // Line 4 lacks its `;`: the parser finds `}` on line 5, column 1, instead.
    write(
        &input.join("syntax.wgsl"),
        "@fragment\nfn fs() -> @location(0) vec4<f32> {\n    let x = 1.0;\n    return vec4<f32>(x)\n}\n",
    );
    // Line 3: an expression is missing after `=`, at the `;` in column 15.
    write(
        &input.join("bad.frag"),
        "#version 450\nvoid main() {\n    float x = ;\n}\n",
    );
    // Valid syntax, invalid module: a vec3 returned where a vec4 is declared.
    write(
        &input.join("mistyped.wgsl"),
        "@fragment\nfn fs() -> @location(0) vec4<f32> {\n    return vec3<f32>(1.0);\n}\n",
    );
    write(
        &input.join("nostage.glsl"),
        "#version 450\nvoid main() {}\n",
    );
    write(&input.join("good.wgsl"), TWO_ENTRY_POINTS);
    // 300 nested brackets: refused before naga sees them, at the 257th `(`.
    let deep = format!("const x = {}1.0{};\n", "(".repeat(300), ")".repeat(300));
    write(&input.join("deep.wgsl"), &deep);
    // 200,000 chained additions overflowed naga's stack and aborted the whole build; a
    // chain of 1,000 is a (long) real expression.
    let chain = |n: usize| {
        format!(
            "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() {{\n    c = vec4({});\n}}\n",
            vec!["1.0"; n].join(" + ")
        )
    };
    write(&input.join("chain_long.frag"), &chain(200_000));
    write(&input.join("chain_ok.frag"), &chain(1_000));
    let (ok, finished) = build(dir.path(), &["-j", "2"]);
    assert!(!ok);
    assert_eq!(finished["good.wgsl"].status, "built", "{finished:?}");
    assert_eq!(finished["chain_ok.frag"].status, "built", "{finished:?}");
    let e = &finished["chain_long.frag"].error;
    assert!(e.contains("chains more than 4096 operators"), "{e}");
    assert_eq!(
        error_location(e, &input.join("chain_long.frag")).map(|a| a.0),
        Some(4),
        "{e}"
    );
    let error = |name: &str| {
        let f = &finished[name];
        assert_eq!(f.status, "failed", "{name}");
        assert!(f.outputs.is_empty());
        f.error.clone()
    };
    let at = |name: &str| error_location(&error(name), &input.join(name));

    assert_eq!(at("syntax.wgsl"), Some((5, 1)), "{}", error("syntax.wgsl"));
    assert!(
        error("syntax.wgsl").contains("expected"),
        "{}",
        error("syntax.wgsl")
    );
    assert_eq!(at("bad.frag"), Some((3, 15)), "{}", error("bad.frag"));
    let e = error("mistyped.wgsl");
    assert!(e.contains("invalid shader"), "{e}");
    let (line, _) = at("mistyped.wgsl").unwrap_or_else(|| panic!("{e}"));
    assert_eq!(line, 3, "{e}");
    assert!(error("nostage.glsl").contains("#pragma stage(vertex|fragment|compute)"));
    assert_eq!(
        at("deep.wgsl"),
        Some((1, 11 + 256)),
        "{}",
        error("deep.wgsl")
    );
    assert!(error("deep.wgsl").contains("nest deeper than 256"));
}

#[test]
fn entry_point_names_must_make_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    let compute = |name: &str| format!("@compute @workgroup_size(1)\nfn {name}() {{}}\n");
    let longest = "e".repeat(200);
    write(&input.join("long_ok.wgsl"), &compute(&longest));
    write(&input.join("too_long.wgsl"), &compute(&"e".repeat(201)));
    write(
        &input.join("case.wgsl"),
        &(compute("Main") + &compute("main")),
    );
    let (ok, finished) = build(dir.path(), &[]);
    assert!(!ok);
    assert_eq!(
        finished["long_ok.wgsl"].outputs,
        [format!("long_ok/{longest}.spv")]
    );
    let e = &finished["too_long.wgsl"].error;
    assert!(e.contains("longer than 200 bytes"), "{e}");
    let e = &finished["case.wgsl"].error;
    assert!(e.contains("differ only in case"), "{e}");
}

#[test]
fn glsl_defines_change_the_output_and_wgsl_ignores_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("in/colour.frag"), DEFINED);
    // The same source with the defines written in: what the settings must amount to.
    write(
        &root.join("in/written.frag"),
        &DEFINED.replacen(
            "#version 450\n",
            "#version 450\n#define RED\n#define QUALITY 2\n",
            1,
        ),
    );
    write(&root.join("in/blit.wgsl"), TWO_ENTRY_POINTS);
    let spv = |name: &str| std::fs::read(root.join("out").join(name)).unwrap();

    let (ok, f) = build(root, &[]);
    assert!(ok, "{f:?}");
    let (plain, plain_wgsl, written) = (
        spv("colour/main.spv"),
        spv("blit/vs.spv"),
        spv("written/main.spv"),
    );
    assert_ne!(plain, written);
    // Out of the tree before the defines are set, which it would then define twice.
    std::fs::remove_file(root.join("in/written.frag")).unwrap();

    std::fs::write(
        root.join("build.toml"),
        "[shader]\ndefines = { RED = \"\", QUALITY = \"2\" }\n",
    )
    .unwrap();
    let (ok, f) = build(root, &[]);
    assert!(ok, "{f:?}");
    let defined = spv("colour/main.spv");
    assert_ne!(defined, plain, "the defines changed nothing");
    // The module is the one the same #define lines in the source give.
    assert_eq!(defined, written);
    assert_eq!(spv("blit/vs.spv"), plain_wgsl, "WGSL has no preprocessor");

    // A define that is not an identifier fails the GLSL sources, naming the setting.
    std::fs::write(
        root.join("build.toml"),
        "[shader]\ndefines = { \"2X\" = \"1\" }\n",
    )
    .unwrap();
    let (ok, f) = build(root, &[]);
    assert!(!ok);
    assert!(f["colour.frag"].error.contains("shader.defines"), "{f:?}");
    // WGSL sources do not read the defines, so a bad one does not fail them.
    assert_eq!(f["blit.wgsl"].status, "built", "{f:?}");
}

#[test]
fn output_is_the_same_whatever_the_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    write(&input.join("a/blit.wgsl"), TWO_ENTRY_POINTS);
    write(&input.join("a/colour.frag"), DEFINED);
    write(&input.join("b/sum.glsl"), PRAGMA_COMPUTE);
    for i in 0..6 {
        write(
            &input.join(format!("c/k{i}.wgsl")),
            &format!("@compute @workgroup_size({})\nfn k{i}() {{}}\n", i + 1),
        );
    }
    let spirv_files = |root: &Path| -> Vec<(String, Vec<u8>)> {
        common::tree(root)
            .into_iter()
            .filter(|(p, _)| p.ends_with(".spv") || p.ends_with(".hman"))
            .collect()
    };
    let (ok, _) = build(dir.path(), &["-j", "1"]);
    assert!(ok);
    let one = spirv_files(&dir.path().join("out"));
    assert_eq!(one.len(), 2 + 1 + 1 + 6 + 1);
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let (ok, _) = build(dir.path(), &["-j", "3"]);
    assert!(ok);
    assert_eq!(one, spirv_files(&dir.path().join("out")));
}
