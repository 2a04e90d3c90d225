use super::*;

fn texts(stem: &str) -> Vec<String> {
    words(stem).into_iter().map(|w| w.text).collect()
}

fn mode_by_name(file_name: &str) -> Option<NamedAs> {
    class_by_name(file_name).map(|c| c.class)
}

#[test]
fn words_split_at_separators_case_changes_and_digits() {
    assert_eq!(
        texts("ScratchedGoldNormal"),
        ["scratched", "gold", "normal"]
    );
    assert_eq!(texts("BlueNoise-Normal"), ["blue", "noise", "normal"]);
    assert_eq!(texts("water_normals"), ["water", "normals"]);
    assert_eq!(texts("rock 01.nor gl"), ["rock", "01", "nor", "gl"]);
    assert_eq!(texts("HDRNormal"), ["hdr", "normal"]);
    assert_eq!(texts("T_Rock_N"), ["t", "rock", "n"]);
    assert_eq!(texts("tex2AO"), ["tex", "2", "ao"]);
    assert_eq!(texts("__a--b"), ["a", "b"]);
    assert!(texts("").is_empty());
    let w = words("RockN_n");
    assert_eq!(
        w.iter().map(|w| w.after_separator).collect::<Vec<_>>(),
        [false, false, true],
        "only the last `n` follows a separator"
    );
}

#[test]
fn artists_names_class_normal_maps() {
    for name in [
        "ScratchedGold-Normal.png",
        "water_normals.png",
        "cube_normal.png",
        "ScratchedGoldNormal.png",
        "BlueNoise-Normal.png",
        "rock_nor_gl.png",
        "brick.NRM.jpg",
        "T_Rock_N.png",
        "rock-n.png",
        "a.normal.png",
    ] {
        assert_eq!(mode_by_name(name), Some(NamedAs::Normal), "{name}");
    }
}

#[test]
fn false_friends_are_not_class_words() {
    for name in [
        "normalize_ui.png",
        "Nordic.png",
        "abnormal.png",
        "n.png",
        "RockN.png",
        "Snow.png",
        "chaos.png",
        "button.png",
        "height_map_preview_normalized.png",
    ] {
        let class = mode_by_name(name);
        // `height` is a class word: only the last case checks that `normalized` is not.
        if name.starts_with("height") {
            assert_eq!(class, Some(NamedAs::LinearData), "{name}");
        } else {
            assert_eq!(class, None, "{name}");
        }
    }
}

#[test]
fn data_words_and_original_tags() {
    for name in [
        "cube_depth.png",
        "Metal_Roughness.png",
        "metalness.png",
        "door-AO.png",
        "AmbientOcclusion.png",
        "cliff_height.png",
        "displacement.png",
        "bump.png",
        "leaf_mask.png",
        "LeafOpacity.png",
        "leaf_alpha.png",
        "Metallic.png",
    ] {
        assert_eq!(mode_by_name(name), Some(NamedAs::LinearData), "{name}");
    }
    assert_eq!(
        mode_by_name("rock.n.png"),
        Some(NamedAs::Tagged(TextureMode::Normal))
    );
    assert_eq!(
        mode_by_name("rock.AO.png"),
        Some(NamedAs::Tagged(TextureMode::Single))
    );
    assert_eq!(
        mode_by_name("cliff.h.tga"),
        Some(NamedAs::Tagged(TextureMode::Single))
    );
    // The last class word decides.
    assert_eq!(
        mode_by_name("normal_roughness.png"),
        Some(NamedAs::LinearData)
    );
    let rule = class_by_name("T_Rock_N.png").unwrap().rule;
    assert_eq!(rule, "the word `_n`");
}

fn image(texels: &[[u8; 4]]) -> Vec<u8> {
    texels.iter().flatten().copied().collect()
}

/// A bumpy normal field: unit vectors tilted up to ~35 degrees off +Z, stored n*0.5+0.5.
fn normal_field(n: usize) -> Vec<[u8; 4]> {
    (0..n)
        .map(|i| {
            let a = i as f32 * 0.37;
            let tilt = 0.6 * (i as f32 * 0.11).sin();
            let (x, y) = (tilt * a.cos(), tilt * a.sin());
            let z = (1.0 - x * x - y * y).sqrt();
            let q = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
            [q(x), q(y), q(z), 255]
        })
        .collect()
}

#[test]
fn content_tells_grey_and_normal_fields() {
    let grey = image(&[[7, 7, 7, 255], [200, 200, 200, 255]]);
    assert!(content_of(&grey).one_channel);
    assert!(!content_of(&grey).looks_like_normals);
    let grey_with_alpha = image(&[[7, 7, 7, 255], [200, 200, 200, 100]]);
    assert!(
        !content_of(&grey_with_alpha).one_channel,
        "alpha is a second channel"
    );
    let normals = image(&normal_field(4096));
    let c = content_of(&normals);
    assert!(c.looks_like_normals && !c.one_channel);
    let picture: Vec<[u8; 4]> = (0..4096u32)
        .map(|i| [(i * 7) as u8, (i * 13) as u8, (i * 29) as u8, 255])
        .collect();
    assert!(!content_of(&image(&picture)).looks_like_normals);
    // Unit vectors facing away from +Z on average are not a tangent-space normal map.
    let sideways = image(&[[255, 128, 128, 255]; 64]);
    assert!(!content_of(&sideways).looks_like_normals);
}

#[test]
fn classify_combines_name_and_content() {
    let grey = content_of(&image(&[[90, 90, 90, 255]; 16]));
    let rgb = content_of(&image(&[[90, 20, 200, 255]; 16]));
    let normals = content_of(&image(&normal_field(256)));
    let mode = |name, content| classify(name, content).mode;
    assert_eq!(mode("cube_depth.png", Some(grey)), TextureMode::Single);
    assert_eq!(
        mode("OcclusionRoughnessMetallic.png", Some(rgb)),
        TextureMode::Linear,
        "a packed map keeps its channels"
    );
    assert_eq!(mode("cube_depth.png", None), TextureMode::Linear);
    assert_eq!(mode("photo.png", Some(grey)), TextureMode::Single);
    assert_eq!(mode("photo.png", Some(rgb)), TextureMode::Color);
    assert_eq!(mode("photo.png", None), TextureMode::Color);
    assert_eq!(mode("rock.ao.png", Some(rgb)), TextureMode::Single);
    assert_eq!(mode("rock.n.png", Some(grey)), TextureMode::Normal);
    assert_eq!(
        mode("water_normals.png", Some(normals)),
        TextureMode::Normal
    );

    let quiet = classify("water_normals.png", Some(normals));
    assert_eq!(quiet.warning, None);
    let hint = classify("blue_tiles.png", Some(normals));
    assert_eq!(hint.mode, TextureMode::Color);
    let text = hint.warning.unwrap();
    assert!(
        text.contains("`normal`") && text.contains("texture.mode"),
        "{text}"
    );
    let odd = classify("button_normal.png", Some(rgb));
    assert_eq!(odd.mode, TextureMode::Normal);
    let text = odd.warning.unwrap();
    assert!(text.contains("the word `normal`"), "{text}");
}
