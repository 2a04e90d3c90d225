use super::read::HEADER_SIZE;
use super::*;
use proptest::prelude::*;

/// Knobs for a synthetic mesh, matching what Balsam varies.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Shape {
    pub vertices: u32,
    pub uv1: bool,
    pub colors: bool,
    pub skin: bool,
    pub wide_indices: bool,
    pub subsets: u32,
    pub lods: bool,
    pub targets: u32,
}

fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

pub(super) fn synthetic(shape: Shape) -> QtMesh {
    let mut entries = Vec::new();
    let mut stride = 0u32;
    let mut add = |name: &str, ty: u32, count: u32| {
        entries.push(VertexEntry {
            name: name.into(),
            component_type: ty,
            component_count: count,
            offset: stride,
        });
        stride += component::size(ty).unwrap_or(0) * count;
    };
    add(attr::POSITION, component::F32, 3);
    add(attr::NORMAL, component::F32, 3);
    add(attr::UV0, component::F32, 2);
    if shape.uv1 {
        add(attr::UV1, component::F32, 2);
    }
    if shape.colors {
        add(attr::COLOR, component::F32, 4);
    }
    if shape.skin {
        add(attr::JOINTS, component::U32, 4);
        add(attr::WEIGHTS, component::F32, 4);
    }
    let mut data = Vec::new();
    for v in 0..shape.vertices {
        let x = v as f32;
        for e in &entries {
            for c in 0..e.component_count {
                let value = x + c as f32 * 0.25;
                data.extend_from_slice(&match e.component_type {
                    component::U32 => (v + c).to_le_bytes(),
                    _ => value.to_le_bytes(),
                });
            }
        }
    }
    let index_count = shape.vertices.saturating_sub(2) * 3;
    let indices: Vec<u32> = (0..index_count)
        .map(|i| (i / 3 + i % 3) % shape.vertices.max(1))
        .collect();
    let (component_type, index_data) = if shape.wide_indices {
        (
            component::U32,
            indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
        )
    } else {
        (
            component::U16,
            indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect(),
        )
    };
    let per = index_count / shape.subsets.max(1);
    let subsets = (0..shape.subsets)
        .map(|i| Subset {
            name: format!("Material ü{i}"),
            count: per,
            offset: i * per,
            bounds_min: [0.0, 0.25, 0.5],
            bounds_max: [shape.vertices as f32, 1.0, 2.0],
            lightmap_size_hint: [64 * i, 32],
            lods: if shape.lods {
                vec![Lod {
                    count: per / 2 / 3 * 3,
                    offset: i * per,
                    distance: 1.5,
                }]
            } else {
                Vec::new()
            },
        })
        .collect();
    let target_buffer = (shape.targets > 0).then(|| {
        let block = target_block_size(shape.vertices as usize).unwrap_or(0);
        let kinds = 2u32;
        let mut data = vec![0u8; block * (kinds * shape.targets) as usize];
        for slot in 0..(kinds * shape.targets) as usize {
            for v in 0..shape.vertices as usize {
                let texel = f32s([slot as f32, v as f32, 0.5, 0.0]);
                let at = slot * block + v * 16;
                data[at..at + 12].copy_from_slice(&texel[..12]);
            }
        }
        TargetBuffer {
            target_count: shape.targets,
            entries: [attr::POSITION, attr::NORMAL]
                .iter()
                .enumerate()
                .map(|(k, name)| VertexEntry {
                    name: name.to_string(),
                    component_type: component::F32,
                    component_count: 3,
                    offset: (k * shape.targets as usize * block) as u32,
                })
                .collect(),
            data,
        }
    });
    QtMesh {
        vertex_buffer: VertexBuffer {
            entries,
            stride,
            data,
        },
        index_buffer: IndexBuffer {
            component_type,
            data: index_data,
        },
        subsets,
        target_buffer,
        ..QtMesh::default()
    }
}

fn one(mesh: QtMesh) -> QtMeshFile {
    QtMeshFile {
        meshes: vec![(1, mesh)],
    }
}

fn with_version(mut file: QtMeshFile, version: u16) -> QtMeshFile {
    for (_, m) in file.meshes.iter_mut() {
        m.version = version;
    }
    file
}

fn size_in_bytes(bytes: &[u8], mesh_offset: usize) -> u32 {
    u32::from_le_bytes(bytes[mesh_offset + 8..mesh_offset + 12].try_into().unwrap())
}

const FULL: Shape = Shape {
    vertices: 7,
    uv1: true,
    colors: true,
    skin: true,
    wide_indices: false,
    subsets: 2,
    lods: true,
    targets: 0,
};

#[test]
fn v7_round_trips_every_shape() {
    for shape in [
        FULL,
        Shape {
            wide_indices: true,
            targets: 3,
            ..FULL
        },
        Shape {
            vertices: 3,
            subsets: 1,
            ..Shape::default()
        },
        Shape::default(),
    ] {
        let file = one(synthetic(shape));
        let bytes = write(&file, 7).unwrap();
        assert_eq!(read(&bytes).unwrap(), with_version(file, 7), "{shape:?}");
        assert_eq!(validate(&bytes), vec![], "{shape:?}");
    }
}

#[test]
fn v5_round_trips_without_lods_and_refuses_lods() {
    let file = one(synthetic(Shape {
        lods: false,
        ..FULL
    }));
    let bytes = write(&file, 5).unwrap();
    assert_eq!(read(&bytes).unwrap(), with_version(file, 5));
    assert_eq!(validate(&bytes), vec![]);
    let err = write(&one(synthetic(FULL)), 5).unwrap_err();
    assert!(err.to_string().contains("levels of detail"), "{err}");
}

#[test]
fn only_versions_5_and_7_are_written() {
    for v in [3, 4, 6, 8] {
        assert_eq!(
            write(&QtMeshFile::default(), v),
            Err(QtMeshError::UnsupportedWriteVersion(v))
        );
    }
}

/// An empty mesh is the 56-byte struct plus one padding step per block, each a full
/// 4 bytes because every block is empty and so already aligned: entries, vertex data,
/// index data, subsets (version 5: 72 bytes); version 7 adds LODs and target entries.
#[test]
fn empty_blocks_still_carry_four_bytes_of_padding() {
    let file = one(QtMesh::default());
    let v5 = write(&file, 5).unwrap();
    let v7 = write(&file, 7).unwrap();
    assert_eq!(size_in_bytes(&v5, 0), 56 + 4 * 4);
    assert_eq!(size_in_bytes(&v7, 0), 56 + 6 * 4);
    assert_eq!(v5.len(), HEADER_SIZE + 72 + 16 + 16);
    assert_eq!(v7.len(), HEADER_SIZE + 80 + 16 + 16);
}

/// Balsam 6.4 numbers each kind separately and stops at 8 positions and 4 normals, so
/// with 6 targets it writes attr_tpos4, attr_unsupported, attr_tpos5, attr_unsupported.
#[test]
fn v5_targets_use_balsam_names_and_convert_back() {
    let file = one(synthetic(Shape {
        targets: 6,
        lods: false,
        ..FULL
    }));
    let bytes = write(&file, 5).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let mut ordered = Vec::new();
    for p in ["attr_tpos", "attr_tnorm", "attr_unsupported"] {
        for (i, _) in text.match_indices(p) {
            let end = text[i..].find('\0').unwrap() + i;
            ordered.push((i, &text[i..end]));
        }
    }
    ordered.sort();
    let seq: Vec<&str> = ordered.iter().map(|(_, n)| *n).collect();
    assert_eq!(
        seq,
        [
            "attr_tpos0",
            "attr_tnorm0",
            "attr_tpos1",
            "attr_tnorm1",
            "attr_tpos2",
            "attr_tnorm2",
            "attr_tpos3",
            "attr_tnorm3",
            "attr_tpos4",
            "attr_unsupported",
            "attr_tpos5",
            "attr_unsupported"
        ]
    );
    assert_eq!(read(&bytes).unwrap(), with_version(file, 5));
}

/// Hand-made legacy layouts that no writer produces must be refused, not converted into
/// a buffer far larger than the file.
#[test]
fn malformed_legacy_targets_are_refused() {
    let entry = |name: &str, offset| VertexEntry {
        name: name.into(),
        component_type: component::F32,
        component_count: 3,
        offset,
    };
    let cases = [
        vec![
            entry("attr_tpos0", 0),
            entry("attr_tpos0", 0),
            entry("attr_tpos0", 0),
        ],
        vec![entry("attr_tpos1", 0)],
        vec![entry("attr_tpos0", 0), entry("attr_uv0", 12)],
        vec![
            entry("attr_tpos0", 0),
            entry("attr_tnorm0", 12),
            entry("attr_tpos1", 24),
        ],
    ];
    for entries in cases {
        let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
        let mut vb = VertexBuffer {
            entries,
            stride: 36,
            data: vec![0; 36 * 4],
        };
        assert!(morph::from_legacy_attributes(&mut vb).is_err(), "{names:?}");
    }
}

#[test]
fn more_than_eight_targets_do_not_fit_before_v7() {
    let file = one(synthetic(Shape {
        targets: 9,
        vertices: 3,
        ..Shape::default()
    }));
    assert!(write(&file, 7).is_ok());
    assert!(matches!(
        write(&file, 5),
        Err(QtMeshError::Unwritable { .. })
    ));
}

/// A version 7 mesh's target data is not padded, so with an odd size the next mesh
/// starts unaligned; its padding still counts from its own header.
#[test]
fn multi_mesh_after_unpadded_target_data() {
    let mut first = synthetic(Shape {
        targets: 1,
        vertices: 3,
        ..Shape::default()
    });
    if let Some(tb) = first.target_buffer.as_mut() {
        tb.data.push(0xAB);
    }
    let file = QtMeshFile {
        meshes: vec![(4, first), (2, synthetic(FULL)), (9, QtMesh::default())],
    };
    let bytes = write(&file, 7).unwrap();
    let second = HEADER_SIZE + size_in_bytes(&bytes, 0) as usize;
    assert_eq!(second % 4, 1);
    assert_eq!(read(&bytes).unwrap(), with_version(file, 7));
}

#[test]
fn seed_colour_name_is_read_as_qt_spelling() {
    let mut mesh = synthetic(FULL);
    let at = mesh
        .vertex_buffer
        .entries
        .iter()
        .position(|e| e.name == attr::COLOR)
        .unwrap();
    mesh.vertex_buffer.entries[at].name = attr::COLOR_SEED_SPELLING.into();
    let bytes = write(&one(mesh), 7).unwrap();
    // The writer already emits Qt's name, so splice the seed's in by hand. Its name
    // block is 4 + 12 bytes, aligned, so it takes a full 4 bytes of padding where Qt's
    // (4 + 11) takes 1; everything after moves by 4 and stays equally aligned.
    let pos = bytes
        .windows(11)
        .position(|w| w == b"attr_color\0")
        .unwrap();
    let mut seedish = bytes.clone();
    seedish[pos - 4..pos].copy_from_slice(&12u32.to_le_bytes());
    seedish.splice(pos + 10..pos + 12, b"s\0\0\0\0\0".iter().copied());
    let size = size_in_bytes(&seedish, 0) + 4;
    seedish[8..12].copy_from_slice(&size.to_le_bytes());
    let read_back = read(&seedish).unwrap();
    assert_eq!(
        read_back.meshes[0].1.vertex_buffer.entries[at].name,
        attr::COLOR
    );
    assert!(validate(&seedish)
        .iter()
        .any(|p| p.message.contains("attr_colors")));
    assert_eq!(validate(&bytes), vec![]);
}

/// Joints sit between the subset names and the (v7) targets; the reader must skip
/// jointsSize * 136 bytes.
#[test]
fn joints_are_skipped_by_size() {
    let file = one(synthetic(Shape {
        lods: false,
        ..FULL
    }));
    let mut bytes = write(&file, 5).unwrap();
    let mesh_end = bytes.len() - 32;
    bytes.splice(mesh_end..mesh_end, std::iter::repeat_n(0x5A, 2 * 136));
    let joints_field = HEADER_SIZE + 11 * 4;
    bytes[joints_field..joints_field + 4].copy_from_slice(&2u32.to_le_bytes());
    let size = size_in_bytes(&bytes, 0) + 2 * 136;
    bytes[8..12].copy_from_slice(&size.to_le_bytes());
    assert_eq!(read(&bytes).unwrap(), with_version(file, 5));
    assert_eq!(validate(&bytes), vec![]);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = write(&one(synthetic(FULL)), 7).unwrap();
    for len in 0..bytes.len() {
        assert!(read(&bytes[..len]).is_err(), "length {len}");
        assert!(!validate(&bytes[..len]).is_empty(), "length {len}");
    }
}

#[test]
fn corrupt_headers_give_clear_errors() {
    let bytes = write(&one(synthetic(FULL)), 7).unwrap();
    let n = bytes.len();
    let patched = |at: usize, value: u32| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        b
    };
    assert_eq!(
        read(&patched(n - 12, 2)),
        Err(QtMeshError::BadContainerVersion(2))
    );
    assert_eq!(
        read(&patched(n - 16, 7)),
        Err(QtMeshError::BadContainerId(7))
    );
    assert!(matches!(
        read(&patched(n - 4, u32::MAX)),
        Err(QtMeshError::TooManyEntries { .. })
    ));
    let mut wrong_version = bytes.clone();
    wrong_version[4..6].copy_from_slice(&8u16.to_le_bytes());
    let err = read(&wrong_version).unwrap_err();
    assert!(err.to_string().contains("mesh version 8"), "{err}");
    // Huge counts are rejected before anything is allocated for them.
    for field in [1, 4, 7, 9, 11] {
        let err = read(&patched(HEADER_SIZE + field * 4, u32::MAX)).unwrap_err();
        assert!(
            matches!(err, QtMeshError::InMesh { .. }),
            "field {field}: {err}"
        );
    }
    assert!(matches!(
        read(&patched(n - 32, 1 << 30)),
        Err(QtMeshError::MeshOffset { .. })
    ));
}

/// A reader that pads only when needed would misparse; a file written that way must
/// fail, not load shifted data. The entries block of an empty mesh is aligned, so the
/// format puts 4 zero bytes there; make them non-zero.
#[test]
fn wrong_padding_is_an_error() {
    let bytes = write(&one(QtMesh::default()), 7).unwrap();
    let mut b = bytes.clone();
    b[HEADER_SIZE + 56] = 1;
    let err = read(&b).unwrap_err();
    assert!(err.to_string().contains("padding"), "{err}");
    // Dropping that padding entirely shifts every later block.
    let mut unpadded = write(&one(synthetic(FULL)), 7).unwrap();
    unpadded.drain(HEADER_SIZE + 56..HEADER_SIZE + 60);
    assert!(read(&unpadded).is_err());
}

#[test]
fn validator_flags_indices_past_the_vertices() {
    let mut mesh = synthetic(Shape {
        vertices: 4,
        subsets: 1,
        ..Shape::default()
    });
    mesh.index_buffer.data[0..2].copy_from_slice(&4u16.to_le_bytes());
    mesh.subsets[0].count += 3;
    let problems = validate(&write(&one(mesh), 7).unwrap());
    assert!(
        problems.iter().any(|p| p.message.contains("index 0")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.message.contains("covers")),
        "{problems:?}"
    );
}

#[test]
fn describe_lists_meshdebug_fields() {
    let file = with_version(one(synthetic(FULL)), 7);
    let text = describe(&file);
    for needle in [
        "mesh entries: 1",
        "fileVersion: 7",
        "name: \"attr_uv1\"",
        "type: Float32",
        "stride: 88",
        "componentType: UnsignedInteger16",
        "subset count: 2",
        "name: \"Material ü1\"",
        "lightmap size hint: QSize(64, 32)",
        "lod count: 1",
        "bounds: ( 0 , 0.25 , 0.5 ) ( 7 , 1 , 2 )",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let bytes = write(&file, 7).unwrap();
    let size = size_in_bytes(&bytes, 0);
    assert!(text.contains(&format!("size in bytes: {size}")), "{text}");
}

fn arb_shape() -> impl Strategy<Value = Shape> {
    (
        0u32..20,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0u32..4,
        any::<bool>(),
        0u32..9,
    )
        .prop_map(
            |(vertices, uv1, colors, skin, wide_indices, subsets, lods, targets)| Shape {
                vertices,
                uv1,
                colors,
                skin,
                wide_indices,
                subsets,
                lods,
                targets,
            },
        )
}

proptest! {
    #[test]
    fn round_trips_v5_and_v7(shape in arb_shape()) {
        let file = one(synthetic(shape));
        let v7 = write(&file, 7).unwrap();
        prop_assert_eq!(read(&v7).unwrap(), with_version(file.clone(), 7));
        prop_assert!(validate(&v7).is_empty());
        let legacy_ok = !shape.lods || shape.subsets == 0;
        if legacy_ok && shape.vertices > 0 {
            let v5 = write(&file, 5).unwrap();
            prop_assert_eq!(read(&v5).unwrap(), with_version(file, 5));
            prop_assert!(validate(&v5).is_empty());
        }
    }

    #[test]
    fn damaged_files_never_panic(
        shape in arb_shape(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = write(&one(synthetic(shape)), 7).unwrap();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        // Whatever the reader refuses, the validator must name: `check` relies on it.
        if read(&bytes).is_err() {
            prop_assert!(!validate(&bytes).is_empty());
        } else {
            let _ = validate(&bytes);
        }
    }
}
