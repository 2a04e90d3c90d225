use super::*;
use crate::kinds::asset::Target;
use crate::options::BuildOptions;
use crate::pipeline::textures::TextureFormat;
use crate::targets::bmd1::Bmd1VertexEncoding;
use crate::targets::qtmesh::QtNaming;

fn parse(text: &str) -> Result<Config, ConfigError> {
    parse_config(text, Path::new("build.toml"))
}

fn err(text: &str) -> ConfigError {
    parse(text).unwrap_err()
}

fn resolved(text: &str) -> BuildOptions {
    let mut options = BuildOptions::new("assets", "runtime");
    parse(text).unwrap().apply_to(&mut options, None).unwrap();
    options
}

#[test]
fn unknown_key_points_at_its_line_and_suggests() {
    let e = err("[texture]\nformat = \"bc7\"\nmax_sise = 512\n");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().starts_with("build.toml:3:"), "{e}");
    assert!(e.message.contains("did you mean `max_size`?"), "{e}");
    let e = err("[meshh]\noptimize = false\n");
    assert!(e.message.contains("did you mean `mesh`?"), "{e}");
}

#[test]
fn wrong_types_are_named_in_plain_words_at_their_line() {
    let e = err("[mesh]\nweld_vertices = \"yes\"\n");
    assert_eq!((e.line, e.column), (Some(2), Some(17)), "{e}");
    assert!(e.message.contains("expected true or false"), "{e}");
    let e = err("[texture]\nmax_size = 1.5\n");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.contains("a whole number"), "{e}");
    assert!(!e.message.contains("u32"), "{e}");
    let e = err("[texture]\nformat = \"bc8\"\n");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(
        e.message.contains("did you mean `bc7`?") || e.message.contains("did you mean `bc1`?"),
        "{e}"
    );
    let e = err("targets = [\"hmesh\", \"bdm1\"]\n");
    assert_eq!(e.line, Some(1), "{e}");
    assert!(e.message.contains("did you mean `bmd1`?"), "{e}");
}

#[test]
fn out_of_range_values_point_at_their_line() {
    for (text, line, words) in [
        (
            "[mesh]\nmeshlet_max_triangles = 130\n",
            2,
            "meshlet_max_triangles",
        ),
        (
            "[texture]\nquality = 1.5\n",
            2,
            "quality must be a number from 0 to 1",
        ),
        ("[texture]\nquality = -0.1\n", 2, "quality must be"),
        (
            "[texture]\nmax_size = 0\n",
            2,
            "max_size must be at least 1",
        ),
        (
            "[animation]\ntolerance = -1.0\n",
            2,
            "tolerance must be a number >= 0",
        ),
        ("[bmd1]\nsample_rate_hz = 60.0\n", 2, "sample_rate_hz"),
        (
            "[qtmesh]\nmesh_version = 6\n",
            2,
            "mesh_version must be 5 or 7",
        ),
        (
            "[[rules]]\nmatch = \"a/**\"\ntexture.quality = 2.0\n",
            3,
            "quality must be",
        ),
        ("[presets.m]\nmesh.lod_ratios = [1.5]\n", 2, "lod_ratios"),
    ] {
        let e = err(text);
        assert_eq!(e.line, Some(line), "{text:?}: {e}");
        assert!(e.message.contains(words), "{text:?}: {e}");
    }
}

#[test]
fn bad_glob_and_pack_format_are_errors() {
    let e = err("[[rules]]\nmatch = \"a/[b\"\n");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.contains("not a valid glob"), "{e}");
    let e = err("pack = \"zip\"\n");
    assert_eq!(e.line, Some(1), "{e}");
    assert!(e.message.contains("`spk`"), "{e}");
}

#[test]
fn rules_later_win_and_presets_redirect_output() {
    let config = parse(
        "output = \"out\"\n[mesh]\nlod_ratios = [0.5]\n\
         [[rules]]\nmatch = \"chars/**\"\nmesh.lod_ratios = [0.3]\n\
         [[rules]]\nmatch = \"chars/hero.glb\"\nmesh.lod_ratios = [0.7]\n\
         [presets.mobile]\noutput = \"out-mobile\"\ntexture.max_size = 512\n",
    )
    .unwrap();
    let mut options = BuildOptions::new("assets", "runtime");
    config.apply_to(&mut options, Some("mobile")).unwrap();
    assert_eq!(options.output, PathBuf::from("out-mobile"));
    assert_eq!(options.settings.texture.max_size, 512);
    assert_eq!(
        options.settings_for("props/box.glb").mesh.lod_ratios,
        vec![0.5]
    );
    assert_eq!(
        options.settings_for("chars/orc.glb").mesh.lod_ratios,
        vec![0.3]
    );
    assert_eq!(
        options.settings_for("chars/hero.glb").mesh.lod_ratios,
        vec![0.7]
    );
    let e = config.apply_to(&mut options, Some("mobil")).unwrap_err();
    assert!(e.message.contains("did you mean `mobile`?"), "{e}");
}

#[test]
fn pack_targets_and_every_target_table_are_applied() {
    let o = resolved(
        "targets = [\"bmd1\", \"qtmesh\"]\npack = \"spk\"\n\
         [bmd1]\nvertex_encoding = \"96\"\n\
         [qtmesh]\nmesh_version = 5\n",
    );
    assert!(o.pack_spk);
    assert_eq!(o.settings.targets, vec![Target::Bmd1, Target::QtMesh]);
    assert_eq!(o.settings.bmd1.vertex_encoding, Bmd1VertexEncoding::Bits96);
    assert_eq!(o.settings.qtmesh.mesh_version, 5);
    assert_eq!(
        o.settings.qtmesh.naming,
        QtNaming::Qt64,
        "Qt 6.4 meshes get Qt 6.4 names unless the file says otherwise"
    );
    let o = resolved("[qtmesh]\nmesh_version = 5\nnaming = \"qt612\"\n");
    assert_eq!(o.settings.qtmesh.naming, QtNaming::Qt612);
    let o = resolved(
        "[[rules]]\nmatch = \"ui/**\"\ntexture.format = \"rgba8\"\nqtmesh.naming = \"qt64\"\n",
    );
    let ui = o.settings_for("ui/icon.glb");
    assert_eq!(ui.texture.format, TextureFormat::Rgba8);
    assert_eq!(ui.qtmesh.naming, QtNaming::Qt64);
    assert_eq!(o.settings_for("props/box.glb"), o.settings);
}

#[test]
fn a_rule_matching_nothing_is_a_warning_at_its_line() {
    let config =
        parse("[[rules]]\nmatch = \"chars/**\"\n\n[[rules]]\nmatch = \"props/*.glb\"\n").unwrap();
    let warnings = config.unmatched_rules(["props/box.glb", "scene.gltf"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].line, Some(2));
    assert!(warnings[0].message.contains("`chars/**` matches no source"));
}

#[test]
fn cli_target_names_parse_like_the_file() {
    assert_eq!(parse_target("qtmesh"), Ok(Target::QtMesh));
    let e = parse_target("hmseh").unwrap_err().to_string();
    assert!(e.contains("did you mean `hmesh`?"), "{e}");
}

#[test]
fn the_remote_cache_table_is_checked_where_it_is_written() {
    let o = resolved("[cache]\nremote = \"http://127.0.0.1:8080/c\"\nmode = \"write\"\n");
    assert_eq!(o.remote_cache.as_deref(), Some("http://127.0.0.1:8080/c"));
    assert_eq!(o.remote_mode, crate::options::remote::RemoteMode::Write);
    let e = err("[cache]\n\nremote = \"ftp://host/x\"\n");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.message.contains("unsupported scheme `ftp`"), "{e}");
    let e = err("[cache]\nmode = \"rw\"\n");
    assert_eq!(e.line, Some(2), "{e}");
    let e = err("[cache]\nremtoe = \"http://x\"\n");
    assert!(e.message.contains("did you mean `remote`?"), "{e}");
}

#[test]
fn bc4_bc5_bc6h_and_per_class_are_settings_of_rules_and_presets() {
    use crate::pipeline::textures::TextureMode;
    let o = resolved(
        "[texture]\nformat = \"bc7\"\nper_class = true\n\n\
         [[rules]]\nmatch = \"sky/**\"\ntexture.format = \"bc6h\"\n\n\
         [[rules]]\nmatch = \"masks/**\"\ntexture.format = \"bc4\"\ntexture.per_class = false\n",
    );
    let top = &o.settings.texture;
    assert_eq!((top.format, top.per_class), (TextureFormat::Bc7, true));
    assert_eq!(top.format_for(TextureMode::Normal), TextureFormat::Bc5);
    assert_eq!(top.format_for(TextureMode::Single), TextureFormat::Bc4);
    assert_eq!(top.format_for(TextureMode::Color), TextureFormat::Bc7);
    assert!(top.hdr_as_bc6h());
    let sky = o.settings_for("sky/noon.exr").texture;
    assert_eq!(sky.format, TextureFormat::Bc6h);
    assert!(sky.hdr_as_bc6h());
    let masks = o.settings_for("masks/a.png").texture;
    assert_eq!(masks.format_for(TextureMode::Color), TextureFormat::Bc4);
    assert!(
        !masks.hdr_as_bc6h(),
        "bc4 without per_class keeps HDR in RGBA16F"
    );
    // Off by default: the format alone decides, for every class.
    let plain = resolved("[texture]\nformat = \"bc7\"\n").settings.texture;
    assert!(!plain.per_class);
    assert_eq!(plain.format_for(TextureMode::Normal), TextureFormat::Bc7);
    assert!(!plain.hdr_as_bc6h());
    let e = err("[texture]\nformat = \"bc6\"\n");
    assert!(e.to_string().contains("bc6"), "{e}");
}

#[test]
fn astc_and_its_block_size_are_settings_of_rules_and_presets() {
    use crate::formats::ktx2::{AstcBlock, PixelFormat};
    let text = "[texture]\nformat = \"bc7\"\n\n\
         [presets.mobile]\ntexture.format = \"astc\"\n\n\
         [[rules]]\nmatch = \"ui/**\"\ntexture.astc_block = \"4x4\"\n";
    let config = parse(text).unwrap();
    let mut options = BuildOptions::new("assets", "runtime");
    config.apply_to(&mut options, Some("mobile")).unwrap();
    // The preset picks ASTC at the default 6x6; the rule narrows UI textures to 4x4.
    let top = &options.settings.texture;
    assert_eq!(top.format, TextureFormat::Astc);
    assert_eq!(top.astc_block, AstcBlock::from_name("6x6").unwrap());
    assert_eq!(
        top.pixel_format(),
        PixelFormat::Astc(AstcBlock::from_name("6x6").unwrap())
    );
    let ui = options.settings_for("ui/button.png").texture;
    assert_eq!(
        (ui.format, ui.astc_block.name()),
        (TextureFormat::Astc, "4x4")
    );
    // Without the preset, the block size alone changes nothing.
    let plain = resolved(text).settings_for("ui/button.png").texture;
    assert_eq!(plain.format, TextureFormat::Bc7);
    // A footprint ASTC does not have is an error at its line, listing the sizes.
    let e = err("[texture]\nformat = \"astc\"\nastc_block = \"7x7\"\n");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(
        e.to_string().contains("7x7") && e.to_string().contains("8x8"),
        "{e}"
    );
}

#[test]
fn limits_are_bytes_and_a_budget_too_small_to_be_bytes_points_at_its_line() {
    assert_eq!(resolved("").limits.asset_memory, 4 << 30);
    let options = resolved("[limits]\nasset_memory = 2147483648\n");
    assert_eq!(options.limits.asset_memory, 2 << 30);
    let e = err("[limits]\nasset_memory = 1024\n");
    assert_eq!((e.line, e.column), (Some(2), Some(16)), "{e}");
    assert!(e.message.contains("must be at least 16777216"), "{e}");
    let e = err("[limits]\nasset_memroy = 1\n");
    assert_eq!(e.line, Some(2), "{e}");
}
