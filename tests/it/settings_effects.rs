//! Every `build.toml` setting changes the output the way its name says.

use crate::common;

use assetc::formats::{hmesh, ktx2, octahedral};
use common::*;
use std::path::{Path, PathBuf};

/// Builds `source` (a file or folder) with `config` as build.toml; returns the output dir.
fn build_with(source: &Path, config: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("build.toml");
    std::fs::write(&cfg, config).unwrap();
    let out = dir.path().join("out");
    let o = assetc(&[
        "build",
        source.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
        "-q",
        "--verify",
    ]);
    assert!(
        o.status.success(),
        "config {config:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    (dir, out)
}

fn mesh(out: &Path, rel: &str) -> hmesh::HMesh {
    hmesh::read(&std::fs::read(out.join(rel)).unwrap()).unwrap()
}

fn sample(name: &str) -> PathBuf {
    samples().join(name)
}

#[test]
fn normals_tangents_and_smoothing() {
    let (_d, out) = build_with(&sample("strip.gltf"), "[mesh]\ngenerate_normals = false\n");
    let m = mesh(&out, "strip.hmesh");
    assert!(
        m.vertices
            .iter()
            .all(|v| octahedral::decode(v.normal)[2] > 0.9999),
        "missing normals are +Z when not generated"
    );
    let (_d, out) = build_with(&sample("strip.gltf"), "");
    assert!(
        mesh(&out, "strip.hmesh")
            .vertices
            .iter()
            .any(|v| octahedral::decode(v.normal)[2] < 0.99),
        "generated normals follow the wavy ribbon"
    );

    // The box has UVs but no normal texture: tangents only when asked for every primitive.
    let (_d, auto) = build_with(&sample("box/box.gltf"), "");
    let (_d, on) = build_with(
        &sample("box/box.gltf"),
        "[mesh]\ngenerate_tangents = true\n",
    );
    let (_d, off) = build_with(
        &sample("box/box.gltf"),
        "[mesh]\ngenerate_tangents = false\n",
    );
    assert!(!mesh(&auto, "box.hmesh").has_tangents);
    assert!(mesh(&on, "box.hmesh").has_tangents);
    assert!(!mesh(&off, "box.hmesh").has_tangents);

    // Tetrahedron faces meet at ~109.5 degrees between normals: split at 60, smooth at 180.
    let (_d, sharp) = build_with(
        &sample("hierarchy.gltf"),
        "[mesh]\nnormal_smoothing_angle = 60.0\n",
    );
    let (_d, smooth) = build_with(
        &sample("hierarchy.gltf"),
        "[mesh]\nnormal_smoothing_angle = 180.0\n",
    );
    assert_eq!(mesh(&sharp, "hierarchy.hmesh").vertices.len(), 24);
    assert_eq!(mesh(&smooth, "hierarchy.hmesh").vertices.len(), 8);
}

#[test]
fn welding_threshold_and_optimisation() {
    // The triangle-soup cube repeats each face corner: welding merges 36 corners to 24.
    let (_d, welded) = build_with(&sample("soup.gltf"), "");
    let (_d, raw) = build_with(&sample("soup.gltf"), "[mesh]\nweld_vertices = false\n");
    assert_eq!(mesh(&welded, "soup.hmesh").vertices.len(), 24);
    assert_eq!(mesh(&raw, "soup.hmesh").vertices.len(), 36);

    // Positions in one cell of the threshold grid merge when nothing else differs: the
    // ribbon without normals has only positions, 0.5 apart along x.
    let (_d, exact) = build_with(
        &sample("strip.gltf"),
        "[mesh]\ngenerate_normals = false\nweld_threshold = 0.0\n",
    );
    let (_d, coarse) = build_with(
        &sample("strip.gltf"),
        "[mesh]\ngenerate_normals = false\nweld_threshold = 2.0\n",
    );
    let (e, c) = (mesh(&exact, "strip.hmesh"), mesh(&coarse, "strip.hmesh"));
    assert_eq!(e.vertices.len(), 12);
    assert!(c.vertices.len() < 12, "{}", c.vertices.len());
    assert_eq!(
        c.indices.len(),
        e.indices.len(),
        "welding never removes triangles"
    );

    let terrain = sample("terrain/big_terrain.glb");
    let (_d, optimized) = build_with(&terrain, "[mesh]\nlod_ratios = []\n");
    let e = mesh(&optimized, "big_terrain.hmesh");
    let (_d, plain) = build_with(&terrain, "[mesh]\noptimize = false\nlod_ratios = []\n");
    let p = mesh(&plain, "big_terrain.hmesh");
    assert_eq!(p.indices.len(), e.indices.len());
    assert_ne!(
        p.indices, e.indices,
        "optimize reorders triangles and vertices"
    );
    // Without optimisation the grid keeps its source triangle order: the first triangle is
    // the source's (0, W, 1), at x/z = (0, 0), (0, 1/16), (1/16, 0).
    let xz = |i: u32| {
        let v = p.vertices[i as usize].position;
        (v[0], v[2])
    };
    assert_eq!(
        [xz(p.indices[0]), xz(p.indices[1]), xz(p.indices[2])],
        [(0.0, 0.0), (0.0, 0.0625), (0.0625, 0.0)]
    );
}

#[test]
fn meshlets_lods_and_baking() {
    let terrain = sample("terrain/big_terrain.glb");
    let (_d, small) = build_with(
        &terrain,
        "[mesh]\nmeshlet_max_vertices = 32\nmeshlet_max_triangles = 40\nlod_ratios = [0.5]\n",
    );
    let (_d, default) = build_with(&terrain, "");
    let (s, d) = (
        mesh(&small, "big_terrain.hmesh"),
        mesh(&default, "big_terrain.hmesh"),
    );
    assert!(s
        .meshlets
        .iter()
        .all(|m| m.vertex_count <= 32 && m.triangle_count <= 40));
    assert!(s.meshlets.len() > d.meshlets.len());
    assert_eq!((s.meshlet_max_verts, s.meshlet_max_tris), (32, 40));
    assert_eq!(s.lods.as_ref().unwrap().lod_count, 1);
    assert_eq!(d.lods.as_ref().unwrap().lod_count, 2);
    let (_d, none) = build_with(&terrain, "[mesh]\nlod_ratios = []\n");
    assert!(mesh(&none, "big_terrain.hmesh").lods.is_none());

    // A zero error budget lets the simplifier remove only what changes nothing: on the
    // curved terrain that is far less than with the default budget.
    let (_d, strict) = build_with(
        &terrain,
        "[mesh]\nlod_target_error = 0.0\nlod_ratios = [0.5]\n",
    );
    let strict_len = mesh(&strict, "big_terrain.hmesh").lods.unwrap().ranges[0].index_count;
    let default_len = d.lods.as_ref().unwrap().ranges[0].index_count;
    assert!(
        strict_len == 0 || strict_len > default_len,
        "{strict_len} vs {default_len}"
    );

    // The hierarchy's "Turned" node sits at x = 2: baked positions reach past x = 1.5,
    // mesh-space positions stay inside the unit tetrahedron.
    let (_d, baked) = build_with(&sample("hierarchy.gltf"), "");
    let (_d, local) = build_with(
        &sample("hierarchy.gltf"),
        "[mesh]\nbake_transforms = false\n",
    );
    assert!(mesh(&baked, "hierarchy.hmesh").bounds.aabb_max[0] > 1.5);
    assert!(mesh(&local, "hierarchy.hmesh").bounds.aabb_max[0] <= 1.0);
}

fn only_texture(out: &Path) -> ktx2::Ktx2 {
    let tex: Vec<_> = std::fs::read_dir(out.join("tex"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(tex.len(), 1);
    ktx2::read(&std::fs::read(tex[0].path()).unwrap()).unwrap()
}

#[test]
fn texture_settings() {
    let box_ = sample("box");
    let (_d, rgba) = build_with(&box_, "[texture]\nformat = \"rgba8\"\n");
    let k = only_texture(&rgba);
    assert_eq!(k.vk_format, 43, "R8G8B8A8_SRGB for a colour texture");
    assert_eq!(k.levels.len(), 7, "64x64 down to 1x1");
    let (_d, bc7) = build_with(&box_, "[texture]\nformat = \"bc7\"\n");
    assert_eq!(only_texture(&bc7).vk_format, 146, "BC7_SRGB_BLOCK");
    let (_d, small) = build_with(
        &box_,
        "[texture]\nformat = \"rgba8\"\nmax_size = 16\nmipmaps = false\n",
    );
    let k = only_texture(&small);
    assert_eq!((k.width, k.height, k.levels.len()), (16, 16, 1));
    // Quality changes the UASTC encoding and so the texture's id.
    let (_d, q1) = build_with(&box_, "[texture]\nquality = 1.0\n");
    let (_d, q2) = build_with(&box_, "[texture]\nquality = 0.2\n");
    let name = |out: &Path| {
        std::fs::read_dir(out.join("tex"))
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .file_name()
    };
    assert_ne!(name(&q1), name(&q2));
}

#[test]
fn animation_settings() {
    let Some(corpus) = corpus("animation_settings") else {
        return;
    };
    let fox = corpus.join("gltf/animated/Fox.glb");
    let (_d, on) = build_with(&fox, "");
    let (_d, off) = build_with(&fox, "[animation]\nimport = false\n");
    assert!(on.join("fox.hanim").is_file());
    assert!(!off.join("fox.hanim").exists());
    let keys = |out: &Path| -> usize {
        let a =
            assetc::formats::hanim::read(&std::fs::read(out.join("fox.hanim")).unwrap()).unwrap();
        a.clips
            .iter()
            .flat_map(|c| &c.channels)
            .map(|ch| ch.keys.len())
            .sum()
    };
    let (_d, all) = build_with(&fox, "[animation]\nkeyframe_reduction = false\n");
    let (_d, loose) = build_with(&fox, "[animation]\ntolerance = 0.01\n");
    assert!(keys(&on) <= keys(&all));
    assert!(
        keys(&loose) < keys(&on),
        "a tolerance drops keys that change the curve only slightly"
    );
}

// ---------------------------------------------------------------------------------------
// build.toml.example: every key it shows has an effect, and the values it shows are the
// defaults.

use assetc::driver::remote::RemoteMode;
use assetc::driver::{BuildOptions, Target};
use assetc::kinds::asset::AssetSettings;
use assetc::pipeline::textures::TextureFormat;
use assetc::pipeline::TangentMode;
use assetc::targets::bmd1::{Bmd1Compat, Bmd1VertexEncoding};
use assetc::targets::qtmesh::QtNaming;

const EXAMPLE: &str = include_str!("../../build.toml.example");

/// What a resolved build depends on from the file (BuildOptions itself holds closures).
#[derive(Debug, Clone, PartialEq)]
struct Resolved {
    input: PathBuf,
    output: PathBuf,
    pack_spk: bool,
    report: bool,
    embed: Vec<String>,
    manifest_version: u32,
    remote_cache: Option<String>,
    remote_mode: RemoteMode,
    asset_memory: u64,
    settings: AssetSettings,
}

fn resolve(text: &str, preset: Option<&str>) -> (Resolved, BuildOptions) {
    let config = assetc::config::parse_config(text, Path::new("build.toml"))
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut options = BuildOptions::new("assets", "runtime");
    config.apply_to(&mut options, preset).unwrap();
    let r = Resolved {
        input: options.input.clone(),
        output: options.output.clone(),
        pack_spk: options.pack_spk,
        report: options.report,
        embed: options.embed.clone(),
        manifest_version: options.manifest_version,
        remote_cache: options.remote_cache.clone(),
        remote_mode: options.remote_mode,
        asset_memory: options.limits.asset_memory,
        settings: options.settings.clone(),
    };
    (r, options)
}

fn defaults() -> Resolved {
    Resolved {
        input: "assets".into(),
        output: "runtime".into(),
        pack_spk: false,
        report: false,
        embed: Vec::new(),
        manifest_version: 2,
        remote_cache: None,
        remote_mode: RemoteMode::ReadWrite,
        asset_memory: 4 << 30,
        settings: AssetSettings {
            // A build.toml gives the folder `[shader] import_paths` are relative to: its
            // own, here the current one.
            shader: assetc::kinds::shader::settings::ShaderSettings {
                base_dir: Some(PathBuf::new()),
                ..Default::default()
            },
            ..AssetSettings::default()
        },
    }
}

/// The example with `key` of `[section]` ("" for the top level) set to `value`; the
/// commented `# pack = ...` line counts as the key's line.
fn with_value(section: &str, key: &str, value: &str) -> String {
    let mut current = String::new();
    let mut done = false;
    let lines: Vec<String> = EXAMPLE
        .lines()
        .map(|line| {
            let t = line.trim_start_matches("# ").trim_start();
            if line.starts_with('[') && !line.starts_with("[[") {
                current = line[1..line.find(']').unwrap()].to_string();
            }
            let is_key = t
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='));
            if !done && current == section && is_key {
                done = true;
                format!("{key} = {value}")
            } else {
                line.to_string()
            }
        })
        .collect();
    assert!(done, "build.toml.example has no `{key}` in [{section}]");
    lines.join("\n")
}

/// Each key of the example, a value other than its default, and what that changes.
type Case = (&'static str, &'static str, &'static str, fn(&mut Resolved));

const CASES: &[Case] = &[
    ("", "input", "\"src\"", |r| r.input = "src".into()),
    ("", "output", "\"out\"", |r| r.output = "out".into()),
    ("", "targets", "[\"bmd1\", \"qtmesh\"]", |r| {
        r.settings.targets = vec![Target::Bmd1, Target::QtMesh]
    }),
    ("", "pack", "\"spk\"", |r| r.pack_spk = true),
    ("", "report", "true", |r| r.report = true),
    ("", "embed", "[\"levels/*.json\"]", |r| {
        r.embed = vec!["levels/*.json".into()]
    }),
    ("", "manifest_version", "1", |r| r.manifest_version = 1),
    ("", "keep_case", "true", |r| r.settings.keep_case = true),
    ("mesh", "generate_normals", "false", |r| {
        r.settings.mesh.generate_normals = false
    }),
    ("mesh", "generate_tangents", "false", |r| {
        r.settings.mesh.generate_tangents = TangentMode::Off
    }),
    ("mesh", "generate_tangents", "true", |r| {
        r.settings.mesh.generate_tangents = TangentMode::On
    }),
    ("mesh", "normal_smoothing_angle", "30.0", |r| {
        r.settings.mesh.normal_smoothing_angle = 30.0
    }),
    ("mesh", "weld_vertices", "false", |r| {
        r.settings.mesh.weld_vertices = false
    }),
    ("mesh", "weld_threshold", "0.0", |r| {
        r.settings.mesh.weld_threshold = 0.0
    }),
    ("mesh", "optimize", "false", |r| {
        r.settings.mesh.optimize = false
    }),
    ("mesh", "meshlet_max_vertices", "128", |r| {
        r.settings.mesh.meshlet_max_vertices = 128
    }),
    ("mesh", "meshlet_max_triangles", "256", |r| {
        r.settings.mesh.meshlet_max_triangles = 256
    }),
    ("mesh", "meshlet_cone_weight", "0.0", |r| {
        r.settings.mesh.meshlet_cone_weight = 0.0
    }),
    ("mesh", "lod_ratios", "[]", |r| {
        r.settings.mesh.lod_ratios = vec![]
    }),
    ("mesh", "lod_target_error", "0.01", |r| {
        r.settings.mesh.lod_target_error = 0.01
    }),
    ("mesh", "bake_transforms", "false", |r| {
        r.settings.mesh.bake_transforms = false
    }),
    ("mesh", "cluster_lod", "true", |r| {
        r.settings.mesh.cluster_lod = true
    }),
    ("mesh", "cluster_compress", "true", |r| {
        r.settings.mesh.cluster_compress = true
    }),
    ("mesh", "cluster_vertex_copies", "true", |r| {
        r.settings.mesh.cluster_vertex_copies = true
    }),
    ("mesh", "generate_lightmap_uvs", "true", |r| {
        r.settings.mesh.generate_lightmap_uvs = true
    }),
    ("mesh", "lightmap_resolution", "512", |r| {
        r.settings.mesh.lightmap_resolution = 512
    }),
    ("texture", "format", "\"bc7\"", |r| {
        r.settings.texture.format = TextureFormat::Bc7
    }),
    ("texture", "max_size", "1024", |r| {
        r.settings.texture.max_size = 1024
    }),
    ("texture", "mipmaps", "false", |r| {
        r.settings.texture.mipmaps = false
    }),
    ("texture", "quality", "1.0", |r| {
        r.settings.texture.quality = 1.0
    }),
    ("texture", "cubemap", "true", |r| {
        r.settings.texture.cubemap = assetc::pipeline::textures::CubeLayout::Panorama
    }),
    ("texture", "array_layers", "4", |r| {
        r.settings.texture.array_layers = 4
    }),
    ("texture", "bc_zstd", "false", |r| {
        r.settings.texture.bc_zstd = false
    }),
    ("texture", "per_class", "true", |r| {
        r.settings.texture.per_class = true
    }),
    ("texture", "bc7_rdo_lambda", "2.0", |r| {
        r.settings.texture.bc7_rdo_lambda = 2.0
    }),
    ("texture", "astc_block", "\"8x8\"", |r| {
        r.settings.texture.astc_block = assetc::formats::ktx2::AstcBlock::from_name("8x8").unwrap()
    }),
    ("texture", "mip_filter", "\"lanczos4\"", |r| {
        r.settings.texture.mip_filter = assetc::pipeline::textures::MipFilter::Lanczos4
    }),
    ("texture", "missing_images", "\"fail\"", |r| {
        r.settings.texture.missing_images = assetc::pipeline::textures::MissingImages::Fail
    }),
    ("animation", "import", "false", |r| {
        r.settings.animation.import = false
    }),
    ("animation", "keyframe_reduction", "false", |r| {
        r.settings.animation.keyframe_reduction = false
    }),
    ("animation", "tolerance", "0.01", |r| {
        r.settings.animation.tolerance = 0.01
    }),
    ("bmd1", "vertex_encoding", "\"128\"", |r| {
        r.settings.bmd1.vertex_encoding = Bmd1VertexEncoding::Bits128
    }),
    ("bmd1", "sample_rate_hz", "15.0", |r| {
        r.settings.bmd1.sample_rate_hz = 15.0
    }),
    ("bmd1", "position_error", "0.0", |r| {
        r.settings.bmd1.position_error = 0.0
    }),
    ("bmd1", "uv_error", "0.0", |r| {
        r.settings.bmd1.uv_error = 0.0
    }),
    ("bmd1", "compat", "\"spec\"", |r| {
        r.settings.bmd1.compat = Bmd1Compat::Spec
    }),
    ("font", "charset", "[\"U+0400-U+04FF\"]", |r| {
        r.settings.font.charset = vec!["U+0400-U+04FF".into()]
    }),
    ("font", "charset_file", "\"chars.txt\"", |r| {
        r.settings.font.charset_file = "chars.txt".into()
    }),
    ("font", "msdf", "true", |r| r.settings.font.msdf = true),
    ("font", "atlas_size", "1024", |r| {
        r.settings.font.atlas_size = 1024
    }),
    ("font", "glyph_size", "48", |r| {
        r.settings.font.glyph_size = 48
    }),
    ("font", "spread", "8.0", |r| r.settings.font.spread = 8.0),
    ("shader", "defines", "{ DEBUG = \"1\" }", |r| {
        r.settings.shader.defines = [("DEBUG".to_string(), "1".to_string())].into()
    }),
    ("shader", "import_paths", "[\"vendor/shaders\"]", |r| {
        r.settings.shader.import_paths = vec!["vendor/shaders".into()]
    }),
    ("shader", "outputs", "[\"spirv\", \"wgsl\"]", |r| {
        use assetc::kinds::shader::settings::ShaderOutput;
        r.settings.shader.outputs = vec![ShaderOutput::Spirv, ShaderOutput::Wgsl]
    }),
    ("audio", "sample_rate", "48000", |r| {
        r.settings.audio.sample_rate = 48000
    }),
    ("audio", "bit_depth", "32", |r| {
        r.settings.audio.bit_depth = 32
    }),
    ("audio", "force_3d", "true", |r| {
        r.settings.audio.force_3d = true
    }),
    ("audio", "format", "\"ogg\"", |r| {
        r.settings.audio.format = assetc::kinds::audio::settings::AudioFormat::Ogg
    }),
    ("audio", "loudness", "-16.0", |r| {
        r.settings.audio.loudness = Some(-16.0)
    }),
    ("audio", "compression_quality", "0.5", |r| {
        r.settings.audio.compression_quality = 0.5
    }),
    ("qtmesh", "mesh_version", "5", |r| {
        // The example leaves `naming` unset (commented out), so Qt 6.4's mesh version
        // brings Qt 6.4's names, as `--qt-mesh-version 5` does.
        r.settings.qtmesh.mesh_version = 5;
        r.settings.qtmesh.naming = QtNaming::Qt64;
    }),
    ("qtmesh", "naming", "\"qt64\"", |r| {
        r.settings.qtmesh.naming = QtNaming::Qt64
    }),
    ("cache", "remote", "\"redis://127.0.0.1:6379/0\"", |r| {
        r.remote_cache = Some("redis://127.0.0.1:6379/0".into())
    }),
    ("cache", "mode", "\"read\"", |r| {
        r.remote_mode = RemoteMode::Read
    }),
    ("limits", "asset_memory", "2147483648", |r| {
        r.asset_memory = 2 << 30
    }),
];

#[test]
fn the_example_shows_the_defaults() {
    let (resolved, options) = resolve(EXAMPLE, None);
    assert_eq!(resolved, defaults());
    assert!(options.rules.is_empty());
}

#[test]
fn every_example_key_changes_the_resolved_settings_as_documented() {
    for (section, key, value, change) in CASES {
        let text = with_value(section, key, value);
        let (resolved, _) = resolve(&text, None);
        let mut expected = defaults();
        change(&mut expected);
        assert_ne!(
            expected,
            defaults(),
            "{section}.{key} = {value} changes nothing"
        );
        assert_eq!(resolved, expected, "{section}.{key} = {value}");
    }
}

#[test]
fn every_key_of_the_example_and_of_the_settings_types_has_a_case() {
    let cased: Vec<String> = CASES
        .iter()
        .map(|(s, k, _, _)| format!("{s}.{k}"))
        .collect();
    // Keys the example sets (and `pack` and `cache.remote`, shown commented out).
    let example: toml::Table = EXAMPLE.parse().unwrap();
    // (`qtmesh.naming` is shown commented out: unset, it follows mesh_version; so is
    // `audio.loudness`: unset, each sound keeps its level.)
    let mut keys = vec![
        ".pack".to_string(),
        "cache.remote".to_string(),
        "qtmesh.naming".to_string(),
        "audio.loudness".to_string(),
    ];
    for (name, value) in &example {
        match value {
            toml::Value::Table(t) => keys.extend(t.keys().map(|k| format!("{name}.{k}"))),
            _ => keys.push(format!(".{name}")),
        }
    }
    // Every field of every settings type is a key, so each must be in the example too.
    let s = AssetSettings::default();
    let fields = |section: &str, value: toml::Value| -> Vec<String> {
        let toml::Value::Table(t) = value else {
            panic!("{section} is not a table")
        };
        t.keys().map(|k| format!("{section}.{k}")).collect()
    };
    let mut typed = Vec::new();
    typed.extend(fields("mesh", toml::Value::try_from(&s.mesh).unwrap()));
    typed.extend(fields("texture", toml::Value::try_from(s.texture).unwrap()));
    typed.extend(fields(
        "animation",
        toml::Value::try_from(&s.animation).unwrap(),
    ));
    typed.extend(fields("bmd1", toml::Value::try_from(&s.bmd1).unwrap()));
    typed.extend(fields("qtmesh", toml::Value::try_from(&s.qtmesh).unwrap()));
    typed.extend(fields("font", toml::Value::try_from(&s.font).unwrap()));
    typed.extend(fields("shader", toml::Value::try_from(&s.shader).unwrap()));
    typed.extend(fields("audio", toml::Value::try_from(&s.audio).unwrap()));
    for k in &typed {
        assert!(
            keys.contains(k),
            "settings field {k} is missing from build.toml.example"
        );
    }
    for k in &keys {
        assert!(
            cased.contains(k),
            "build.toml.example key {k} has no case in CASES"
        );
    }
    for k in &cased {
        assert!(
            keys.contains(k),
            "case {k} is not a key of build.toml.example"
        );
    }
}

#[test]
fn the_examples_rule_and_preset_work_as_shown() {
    // Uncomment the example's [[rules]] and [presets.mobile] blocks.
    let start = EXAMPLE.find("# [[rules]]").unwrap();
    let uncommented: Vec<&str> = EXAMPLE[start..]
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(t) if t.contains(" = ") || t.starts_with('[') => t,
            _ => l,
        })
        .collect();
    let text = format!("{}{}", &EXAMPLE[..start], uncommented.join("\n"));
    let (resolved, options) = resolve(&text, Some("mobile"));
    let mut expected = defaults();
    expected.output = "runtime-mobile".into();
    expected.settings.texture.max_size = 1024;
    // The mobile preset picks ASTC (its 6x6 block size is the default, shown for clarity).
    expected.settings.texture.format = TextureFormat::Astc;
    expected.settings.mesh.lod_ratios = vec![0.4, 0.15];
    assert_eq!(resolved, expected);
    let hero = options.settings_for("characters/hero.glb");
    assert_eq!(hero.mesh.lod_ratios, vec![0.5, 0.25, 0.125]);
    assert_eq!(hero.texture.format, TextureFormat::Bc7);
    assert_eq!(options.settings_for("props/box.glb"), expected.settings);
}
