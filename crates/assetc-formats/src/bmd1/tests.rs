use super::*;
use proptest::prelude::*;

fn vin(position: [f32; 3], uv: [f32; 2], normal: [f32; 3], bone: u8, shade: u8) -> VertexIn {
    VertexIn {
        position,
        uv,
        normal,
        bone,
        shade,
    }
}

fn vertex(attrs: VertexIn, encoding: VertexEncoding) -> Vertex {
    Vertex { attrs, encoding }
}

/// A grid of `n` vertices cycling through every encoding.
fn mixed_vertices(n: usize) -> Vec<Vertex> {
    (0..n)
        .map(|i| {
            let f = i as f32;
            let enc = VertexEncoding::ALL[i % 6];
            let bone = if enc.has_bone() { (i % 3) as u8 } else { 0 };
            let shade = if enc.has_shade() { (i % 251) as u8 } else { 0 };
            let uv = [(f * 0.013) % 1.0, 1.0 - (f * 0.007) % 1.0];
            let p = [f * 0.01 - 1.0, (f * 0.37).sin(), 0.5 + f * 0.002];
            vertex(vin(p, uv, [0.0, 0.6, -0.8], bone, shade), enc)
        })
        .collect()
}

fn tetrahedron() -> MeshDef {
    let corners = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let vertices = corners
        .iter()
        .map(|&p| vertex(vin(p, [0.0, 0.0], [0.0; 3], 1, 0), VertexEncoding::V64))
        .collect();
    let primitives = vec![
        Primitive::Triangle([0, 2, 1]),
        Primitive::Triangle([0, 1, 3]),
        Primitive::Triangle([0, 3, 2]),
        Primitive::Triangle([1, 2, 3]),
    ];
    MeshDef::new(None, vertices, primitives)
}

fn sample_model() -> Bmd1 {
    let vertices = mixed_vertices(200);
    let primitives = vec![
        Primitive::Triangle([0, 1, 2]),
        Primitive::Quad([3, 4, 5, 6]),
        Primitive::Quad([100, 150, 180, 199]),
        Primitive::Triangle([197, 198, 199]),
    ];
    let body = MeshDef::new(Some("models/robot/body".into()), vertices, primitives);
    let rotation = [0.0, 0.0, 0.70710677, 0.70710677];
    let bones = vec![
        Bone {
            name: None,
            solid: 0,
            kind: BoneKind::Normal {
                parent: 0,
                rotation: [0.0; 4],
                origin: [0.0; 3],
            },
        },
        Bone {
            name: Some("arm".into()),
            solid: 1,
            kind: BoneKind::Normal {
                parent: 0,
                rotation,
                origin: [0.25, 1.5, -3.0],
            },
        },
        Bone {
            name: Some("elbow".into()),
            solid: 0,
            kind: BoneKind::Pseudo {
                bones: [0, 1, 0, 0],
                weights: [0.5, 0.5, 0.0, 0.0],
            },
        },
    ];
    let wave = Animation {
        name: "wave".into(),
        frame_count: 100,
        rate_quarter_hz: 120,
        looping: true,
        tracks: vec![
            Track::default(),
            Track {
                keys: vec![
                    Key {
                        frame: 0,
                        rotation: Some([0.0, 0.0, 0.0, 1.0]),
                        translation: Some([0.0, 1.0, 0.0]),
                        scale: None,
                    },
                    Key {
                        frame: 70,
                        rotation: Some([0.0, 0.0, 1.0, 0.0]),
                        translation: None,
                        scale: Some([2.0, 2.0, 2.0]),
                    },
                    Key {
                        frame: 99,
                        rotation: None,
                        translation: Some([0.0, 3.0, 0.0]),
                        scale: None,
                    },
                ],
            },
        ],
    };
    Bmd1 {
        meshes: vec![body, tetrahedron()],
        lods: vec![Lod {
            first_mesh: 0,
            mesh_count: 1,
            scale: 1.0,
        }],
        bones,
        animations: vec![wave],
    }
}

/// Per-component bound of an encoding's position error for a vertex.
fn position_bound(v: &VertexIn, enc: VertexEncoding) -> f32 {
    let m = v.position.iter().fold(0f32, |a, c| a.max(c.abs()));
    if enc == VertexEncoding::FD {
        m * 2f32.powi(-11) + 2f32.powi(-25)
    } else {
        // The exponent below did not fit, so the step is at most 2m/255.5.
        m / 255.0 + 2f32.powi(-23)
    }
}

fn uv_bound(v: &VertexIn, enc: VertexEncoding) -> f32 {
    let m = v.uv.iter().fold(0f32, |a, c| a.max(c.abs()));
    match enc {
        VertexEncoding::F8 | VertexEncoding::FA => 0.5 / 2048.0,
        // Smallest E: the range at E-1 (about 1.5 * scale) was exceeded.
        VertexEncoding::FD => (m / 2.0).max(2.0) / 4096.0 * 0.5 * 2.0 + 1e-7,
        _ => (m * 4.0 / 1.5).max(1.0) / 1024.0 * 0.5 + 1e-7,
    }
}

#[test]
fn model_round_trips_and_is_valid() {
    let m = sample_model();
    let bytes = write(&m).expect("write");
    assert_eq!(validate(&bytes), vec![], "writer output breaks a rule");
    let back = read(&bytes).expect("read");
    assert_eq!(back.meshes.len(), 2);
    assert_eq!(back.lods, m.lods);
    for (a, b) in m.meshes.iter().zip(&back.meshes) {
        assert_eq!(a.material, b.material);
        assert_eq!(a.primitives, b.primitives);
        assert_eq!(
            (a.vertex_list, a.triangle_list),
            (b.vertex_list, b.triangle_list)
        );
        for (va, vb) in a.vertices.iter().zip(&b.vertices) {
            assert_eq!(va.encoding, vb.encoding);
            assert_eq!(
                (va.attrs.bone, va.attrs.shade),
                (vb.attrs.bone, vb.attrs.shade)
            );
            for (x, y) in va.attrs.position.iter().zip(vb.attrs.position) {
                assert!(
                    (x - y).abs() <= position_bound(&va.attrs, va.encoding),
                    "{va:?} {vb:?}"
                );
            }
            for (x, y) in va.attrs.uv.iter().zip(vb.attrs.uv) {
                assert!(
                    (x - y).abs() <= uv_bound(&va.attrs, va.encoding),
                    "{va:?} {vb:?}"
                );
            }
            if va.encoding.has_normal() {
                for (x, y) in va.attrs.normal.iter().zip(vb.attrs.normal) {
                    // F8A keeps 4 fraction bits: relative error at most 1/34.
                    assert!((x - y).abs() <= x.abs() / 32.0, "{va:?} {vb:?}");
                }
            }
        }
    }
    let BoneKind::Normal {
        rotation, origin, ..
    } = &back.bones[1].kind
    else {
        panic!("bone 1 kind");
    };
    assert_eq!(*origin, [0.25, 1.5, -3.0]);
    let q = normalize_quat(*rotation);
    assert!((q[2] - 0.70710677).abs() < 0.02 && (q[3] - 0.70710677).abs() < 0.02);
    assert_eq!(
        back.animations, m.animations,
        "key values are exactly representable"
    );
    // A canonical image reads and writes back byte for byte.
    assert_eq!(write(&back).expect("rewrite"), bytes);
}

#[test]
fn header_and_layout_follow_the_conventions() {
    let bytes = write(&sample_model()).unwrap();
    assert_eq!(&bytes[..4], b"BMD1");
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(u32_at(0x10), 0x30);
    assert_eq!(u32_at(0x14), 64, "two MeshDefs");
    for k in 0..4 {
        assert_eq!(u32_at(0x10 + 8 * k) % 8, 0);
    }
    // Mesh 0: 200 vertices, n_tris = 2 triangles + 2 quads * 2 = 6, flags variable/variable.
    assert_eq!(u32_at(0x30 + 12), 200 | 6 << 16);
    assert_eq!(u32_at(0x30 + 24), 1 | 1 << 2);
    // Mesh 1: 64-bit only, 32-bit triangles only, no material.
    assert_eq!(u32_at(0x50 + 24), 0);
    assert_eq!(u32_at(0x50 + 8), 0);
    // Mesh 0 triangles: tri32, quad32 (indices < 128), quad64, tri32 = 4+4+8+4 bytes.
    assert_eq!(u32_at(0x30 + 20), 20);
}

#[test]
fn animation_samples_keys_and_interpolates() {
    let m = sample_model();
    let anim = &m.animations[0];
    let track = &anim.tracks[1];
    let at0 = sample_track(track, anim.frame_count, true, 0.0);
    assert_eq!(at0.translation, [0.0, 1.0, 0.0]);
    assert_eq!(
        at0.scale,
        [2.0, 2.0, 2.0],
        "a single scale key holds throughout"
    );
    // Translation keys at 0 (y=1) and 99 (y=3): frame 49.5 is halfway.
    let mid = sample_track(track, anim.frame_count, true, 49.5);
    assert!((mid.translation[1] - 2.0).abs() < 1e-5);
    // Rotation keys at 0 (identity) and 70 (z 180 deg); lerp then renormalise at 35.
    let r = sample_track(track, anim.frame_count, true, 35.0).rotation;
    assert!((r[2] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-5);
    // Looping wraps from frame 99 (y=3) to frame 0 (y=1) over one frame.
    let wrap = sample_track(track, anim.frame_count, true, 99.5);
    assert!((wrap.translation[1] - 2.0).abs() < 1e-5);
    let held = sample_track(track, anim.frame_count, false, 99.5);
    assert_eq!(held.translation, [0.0, 3.0, 0.0]);
    let pose = sample_pose(&m.bones, anim, 0.0);
    assert_eq!(pose.len(), 3);
    assert_eq!(pose[0], Transform::IDENTITY);
    assert!(
        (pose[2].translation[1] - 0.5).abs() < 1e-6,
        "pseudo-bone blends bones 0 and 1"
    );
}

#[test]
fn long_skips_are_split_into_pure_skips() {
    let track = Track {
        keys: vec![Key {
            frame: 40,
            translation: Some([1.0, 0.0, 0.0]),
            ..Key::default()
        }],
    };
    let mut out = Vec::new();
    encode_track(&track, 200, &mut out).unwrap();
    // Pure skip 31 moves the cursor to 32; the key's skip is then 8.
    assert_eq!(out[0], 0x1F);
    assert_eq!(out[1], 0x40 | 8);
    assert_eq!(out.len(), 2 + 4 + 1);
    assert_eq!(decode_track(&out, 200).unwrap(), (track.clone(), out.len()));
    for frame in [31u8, 32, 63, 64, 65, 200, 254] {
        let t = Track {
            keys: vec![
                Key {
                    frame: 0,
                    scale: Some([1.0; 3]),
                    ..Key::default()
                },
                Key {
                    frame,
                    scale: Some([2.0; 3]),
                    ..Key::default()
                },
            ],
        };
        let mut out = Vec::new();
        encode_track(&t, 255, &mut out).unwrap();
        assert_eq!(decode_track(&out, 255).unwrap().0, t, "frame {frame}");
    }
    // A tag addressing frame 200 of a 100-frame clip is refused.
    assert!(decode_track(&[0x1F; 8], 100).is_err());
}

#[test]
fn dense_frames_reduce_to_needed_keys() {
    let n = 60u8;
    let frames = BoneFrames {
        rotation: Vec::new(),
        // Linear ramp then flat: keys at 0, 29 and 59 suffice.
        translation: (0..n)
            .map(|f| [f32::from(f.min(29)) * 0.25, 0.0, 0.0])
            .collect(),
        scale: vec![[1.0; 3]; usize::from(n)],
    };
    let tol = AnimTolerance {
        rotation: 1e-3,
        translation: 1e-4,
        scale: 1e-4,
    };
    let track = track_from_frames(&frames, n, tol).unwrap();
    let frames_kept: Vec<u8> = track.keys.iter().map(|k| k.frame).collect();
    assert_eq!(frames_kept, vec![0, 29, 59]);
    assert!(track
        .keys
        .iter()
        .all(|k| k.scale.is_none() && k.rotation.is_none()));
    for f in 0..n {
        let t = sample_track(&track, n, false, f32::from(f));
        assert!((t.translation[0] - frames.translation[usize::from(f)][0]).abs() <= 1e-4);
    }
}

#[test]
fn oversized_meshes_are_rejected_and_split() {
    let vertices = mixed_vertices(1500);
    let tris: Vec<SourcePrimitive> = (0..1498)
        .map(|i| SourcePrimitive::Triangle([i, i + 1, i + 2]))
        .collect();
    let mut m = Bmd1 {
        meshes: vec![MeshDef {
            material: Some("big".into()),
            vertex_list: VertexListKind::Variable,
            triangle_list: TriangleListKind::Tri64,
            vertices: vertices.clone(),
            primitives: vec![Primitive::Triangle([0, 1, 2])],
        }],
        lods: vec![Lod {
            first_mesh: 0,
            mesh_count: 1,
            scale: 1.0,
        }],
        bones: vec![
            Bone {
                name: None,
                solid: 0,
                kind: BoneKind::Normal {
                    parent: 0,
                    rotation: [0.0; 4],
                    origin: [0.0; 3],
                },
            },
            Bone {
                name: Some("b1".into()),
                solid: 0,
                kind: BoneKind::Normal {
                    parent: 0,
                    rotation: [0.0; 4],
                    origin: [0.0; 3],
                },
            },
            Bone {
                name: Some("b2".into()),
                solid: 0,
                kind: BoneKind::Normal {
                    parent: 1,
                    rotation: [0.0; 4],
                    origin: [0.0; 3],
                },
            },
        ],
        animations: Vec::new(),
    };
    assert!(matches!(
        write(&m),
        Err(Bmd1Error::Model {
            item: Item::Mesh(0),
            ..
        })
    ));
    let pieces = split_mesh(&vertices, &tris).unwrap();
    assert_eq!(pieces.len(), 2);
    let mut seen = 0;
    for MeshPiece {
        vertices: vs,
        primitives: ps,
    } in &pieces
    {
        assert!(vs.len() <= MAX_MESH_VERTICES);
        for p in ps {
            let Primitive::Triangle(t) = p else {
                panic!("quad")
            };
            // Each piece triangle carries the same vertices as the source triangle.
            let SourcePrimitive::Triangle(src) = tris[seen] else {
                panic!()
            };
            for (l, g) in t.iter().zip(src) {
                assert_eq!(vs[usize::from(*l)], vertices[g as usize]);
            }
            seen += 1;
        }
    }
    assert_eq!(seen, tris.len());
    m.meshes = pieces
        .into_iter()
        .map(|piece| MeshDef::new(Some("big".into()), piece.vertices, piece.primitives))
        .collect();
    m.lods[0].mesh_count = 2;
    let bytes = write(&m).unwrap();
    assert_eq!(validate(&bytes), vec![]);
    assert!(split_mesh(&vertices, &[SourcePrimitive::Quad([0, 1, 2, 1500])]).is_err());
}

#[test]
fn auto_picks_the_smallest_encoding_within_bounds() {
    let bound = ErrorBound {
        position: 0.01,
        uv: 0.01,
    };
    let base = vin([0.5, -0.25, 1.0], [0.5, 0.5], [0.0, 0.0, 1.0], 0, 0);
    assert_eq!(
        pick_encoding(&[base], bound, false),
        Some(VertexEncoding::V64)
    );
    assert_eq!(
        pick_encoding(&[base], bound, true),
        Some(VertexEncoding::F8)
    );
    let boned = VertexIn { bone: 3, ..base };
    assert_eq!(
        pick_encoding(&[boned], bound, true),
        Some(VertexEncoding::FA)
    );
    let tiled = VertexIn {
        uv: [10.0, 0.5],
        ..base
    };
    assert_eq!(
        pick_encoding(&[tiled], bound, true),
        Some(VertexEncoding::F9)
    );
    let shaded = VertexIn {
        shade: 7,
        bone: 3,
        ..base
    };
    assert_eq!(
        pick_encoding(&[shaded], bound, false),
        Some(VertexEncoding::FD)
    );
    // 300 units at 9-bit precision is a 1-unit step: only binary16 (0.25 step) is closer,
    // and still not within 0.01.
    let far = VertexIn {
        position: [300.3, 0.0, 0.0],
        ..base
    };
    assert_eq!(pick_encoding(&[far], bound, false), None);
    let err = encoding_error(&[far], VertexEncoding::V64).unwrap();
    assert!(err.position > 0.2 && err.position <= 1.0);
}

#[test]
fn model_rules_are_enforced_by_the_writer() {
    let base = sample_model();
    let mut m = base.clone();
    m.bones[1].name = None;
    assert!(matches!(
        write(&m),
        Err(Bmd1Error::Model {
            item: Item::Bone(1),
            ..
        })
    ));
    let mut m = base.clone();
    m.lods[0].first_mesh = 1; // mesh 1 has no material
    assert!(write(&m).is_err());
    let mut m = base.clone();
    m.meshes[1].primitives.pop(); // the solid is no longer closed
    assert!(write(&m).is_err());
    let mut m = base.clone();
    m.animations[0].tracks.pop();
    assert!(write(&m).is_err());
    let mut m = base.clone();
    m.meshes[0].triangle_list = TriangleListKind::Tri32; // has quads
    assert!(write(&m).is_err());
    let mut m = base;
    m.meshes[0].vertices[1].attrs.bone = 5; // F8 cannot hold a bone, and there is no bone 5
    assert!(write(&m).is_err());
}

fn put(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

type Mutation = Box<dyn Fn(&mut Vec<u8>)>;

#[test]
fn hostile_images_give_errors() {
    let good = write(&sample_model()).unwrap();
    let cases: Vec<(&str, Mutation)> = vec![
        (
            "mesh list past end",
            Box::new(|b| put(b, 0x10, 0x7FFF_FFF8)),
        ),
        ("huge mesh list", Box::new(|b| put(b, 0x14, 0xFFFF_FFE0))),
        ("misaligned bones", Box::new(|b| put(b, 0x20, 0x6C))),
        ("overlap", Box::new(|b| put(b, 0x18, 0x30))),
        ("reserved header", Box::new(|b| b[4] = 1)),
        ("bad magic", Box::new(|b| b[0] = b'X')),
        (
            "reserved vertex tag",
            Box::new(|b| {
                let ofs = u32::from_le_bytes(b[0x30..0x34].try_into().unwrap()) as usize;
                b[ofs + 7] = 0xF3;
            }),
        ),
        ("trailing garbage", Box::new(|b| b.push(1))),
        ("n_vtx mismatch", Box::new(|b| b[0x30 + 12] = 199)),
        ("flag bits", Box::new(|b| b[0x30 + 24] |= 0x10)),
    ];
    for (what, mutate) in cases {
        let mut bytes = good.clone();
        mutate(&mut bytes);
        assert!(read(&bytes).is_err(), "{what}");
        assert!(!validate(&bytes).is_empty(), "{what}");
    }
    assert!(read(&[]).is_err());
    assert!(read(b"BMD1").is_err());
}

#[test]
fn every_truncation_fails_without_panicking() {
    let good = write(&sample_model()).unwrap();
    for len in 0..good.len() {
        let cut = &good[..len];
        assert!(read(cut).is_err(), "length {len}");
        assert!(!validate(cut).is_empty());
    }
}

#[test]
fn mutated_images_never_panic() {
    let good = write(&sample_model()).unwrap();
    for at in 0..good.len() {
        for x in [0x01u8, 0x80, 0xFF, 0x10] {
            let mut bytes = good.clone();
            bytes[at] ^= x;
            let problems = validate(&bytes);
            let result = read(&bytes);
            // read fails exactly when validate finds something.
            assert_eq!(result.is_err(), !problems.is_empty(), "byte {at} ^ {x:#x}");
        }
    }
}

fn encoding_strategy() -> impl Strategy<Value = VertexEncoding> {
    prop::sample::select(VertexEncoding::ALL.to_vec())
}

proptest! {
    #[test]
    fn vertices_round_trip_within_precision(
        p in prop::array::uniform3(-1000.0f32..1000.0),
        uv in prop::array::uniform2(-0.5f32..1.49),
        n in prop::array::uniform3(-1.0f32..1.0),
        bone in 0u8..0xF0,
        shade: u8,
        enc in encoding_strategy(),
    ) {
        let v = VertexIn {
            position: p,
            uv,
            normal: n,
            bone: if enc.has_bone() { bone } else { 0 },
            shade: if enc.has_shade() { shade } else { 0 },
        };
        let rec = encode_vertex(&v, enc).unwrap();
        prop_assert_eq!(rec.as_bytes().len(), enc.size());
        let back = decode_vertex(rec.as_bytes()).unwrap();
        prop_assert_eq!(back.encoding, enc);
        prop_assert_eq!((back.attrs.bone, back.attrs.shade), (v.bone, v.shade));
        for (a, b) in v.position.iter().zip(back.attrs.position) {
            prop_assert!((a - b).abs() <= position_bound(&v, enc), "{:?} -> {:?}", v, back);
        }
        for (a, b) in v.uv.iter().zip(back.attrs.uv) {
            prop_assert!((a - b).abs() <= uv_bound(&v, enc), "{:?} -> {:?}", v, back);
        }
        // Decoded values re-encode to the same record.
        prop_assert_eq!(encode_vertex(&back.attrs, enc).unwrap(), rec);
    }

    #[test]
    fn tracks_round_trip(
        frame_count in 1u8..=255,
        picks in prop::collection::vec((0u8..=255, prop::array::uniform3(-50.0f32..50.0), any::<bool>()), 0..20),
    ) {
        let mut frames: Vec<u8> = picks.iter().map(|p| p.0 % frame_count).collect();
        frames.sort_unstable();
        frames.dedup();
        let keys: Vec<Key> = frames.iter().zip(&picks).map(|(&frame, &(_, v, rot))| Key {
            frame,
            rotation: rot.then_some([v[0] / 50.0, 0.5, -0.25, 1.0]),
            translation: Some(v),
            scale: None,
        }).collect();
        let track = Track { keys };
        let mut out = Vec::new();
        encode_track(&track, frame_count, &mut out).unwrap();
        let (back, used) = decode_track(&out, frame_count).unwrap();
        prop_assert_eq!(used, out.len());
        prop_assert_eq!(back.keys.len(), track.keys.len());
        for (a, b) in track.keys.iter().zip(&back.keys) {
            prop_assert_eq!(a.frame, b.frame);
            let (ta, tb) = (a.translation.unwrap(), b.translation.unwrap());
            for (x, y) in ta.iter().zip(tb) {
                prop_assert!((x - y).abs() <= 50.0 / 255.0 + 1e-6);
            }
            prop_assert_eq!(a.rotation.is_some(), b.rotation.is_some());
        }
        let mut again = Vec::new();
        encode_track(&back, frame_count, &mut again).unwrap();
        prop_assert_eq!(again, out);
    }

    #[test]
    fn random_bytes_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if bytes.len() >= 4 {
            bytes[..4].copy_from_slice(b"BMD1");
        }
        let _ = validate(&bytes);
        prop_assert_eq!(read(&bytes).is_err(), !validate(&bytes).is_empty());
    }
}
