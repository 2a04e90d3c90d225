//! `[bmd1] compat = "loader"` keeps the motion: every clip sampled at every frame of the
//! plain (`"spec"`) file gives the same local bone transforms from the loader-compatible
//! file, within the rounding of the keys it adds (F8A rotations, packed-XYZ translations).

use crate::common;

use assetc::formats::bmd1;
use assetc::import::{import_gltf, ImportOptions};
use assetc::pipeline::MeshSettings;
use assetc::targets::bmd1::{build_bmd1, Bmd1Compat, Bmd1Settings};
use std::path::Path;

fn build(path: &Path, source_ref: &str, compat: Bmd1Compat) -> bmd1::Bmd1 {
    let root = path.parent().unwrap();
    let scene = import_gltf(path, source_ref, &ImportOptions::new(root)).unwrap();
    let settings = Bmd1Settings {
        compat,
        ..Bmd1Settings::default()
    };
    let out = build_bmd1(&scene, &settings, &MeshSettings::default()).unwrap();
    bmd1::read(&out.files[0].bytes).unwrap()
}

/// Largest difference of any rotation/translation/scale component over every frame of
/// every clip of the spec file.
fn largest_motion_change(path: &Path, source_ref: &str) -> (f32, String) {
    let spec = build(path, source_ref, Bmd1Compat::Spec);
    let loader = build(path, source_ref, Bmd1Compat::Loader);
    assert_eq!(spec.animations.len(), loader.animations.len());
    // Loader files may hold one more frame (the loop's way back to frame 0); every frame
    // of the spec file must play the same.
    let mut worst = (0.0f32, String::new());
    let mut frames = 0;
    for (a, b) in spec.animations.iter().zip(&loader.animations) {
        assert_eq!(a.name, b.name);
        frames += usize::from(a.frame_count);
        for frame in 0..a.frame_count {
            let pa = bmd1::sample_pose(&spec.bones, a, f32::from(frame));
            let pb = bmd1::sample_pose(&loader.bones, b, f32::from(frame));
            for (bone, (x, y)) in pa.iter().zip(&pb).enumerate() {
                let parts = |t: &bmd1::Transform| {
                    let mut v = t.rotation.to_vec();
                    v.extend(t.translation);
                    v.extend(t.scale);
                    v
                };
                for (u, v) in parts(x).iter().zip(parts(y)) {
                    let d = (u - v).abs();
                    if d > worst.0 {
                        worst = (d, format!("{} frame {frame} bone {bone}", a.name));
                    }
                }
            }
        }
    }
    assert!(frames > 0, "{source_ref} has no clip to compare");
    worst
}

#[test]
fn loader_compat_keeps_every_frame_of_a_cubic_clip() {
    let dir = tempfile::tempdir().unwrap();
    assetc::samples::skinned_clips(dir.path()).unwrap();
    let (d, at) = largest_motion_change(&dir.path().join("skinned_clips.gltf"), "skinned_clips");
    assert!(d <= 0.02, "{d} at {at}");
}

#[test]
fn loader_compat_keeps_every_frame_of_fox() {
    let Some(corpus) = common::corpus("loader_compat_keeps_every_frame_of_fox") else {
        return;
    };
    let fox = corpus.join("gltf/animated/Fox.glb");
    let (d, at) = largest_motion_change(&fox, "fox");
    assert!(d <= 0.02, "{d} at {at}");
}
