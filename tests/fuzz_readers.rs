//! Reader fuzzing on stable Rust: seeded, deterministic mutations of valid files of every
//! format (`.hmesh .hmat .hanim .hman .ktx2 .mesh .bmd .spk .hpack .hfont .spv .wgsl .wav .ogg`) go
//! through each reader and validator. Every case must return (no panic) and stay within
//! a memory bound: no allocation proportional to a hostile count before the count is
//! checked against the input size. Longer, coverage-guided runs: `fuzz/README.md` (cargo fuzz, nightly).
//!
//! The valid files come from one build of `assets-sample/` for every target, packed into
//! a SparkPak archive, so the seeds are what assetc really writes.
//!
//! `ASSETC_FUZZ_CASES` sets the mutations per seed file (default 150, a few thousand
//! cases in all); `ASSETC_FUZZ_SEED` changes the seed.

mod common;

use assetc::formats::{
    bmd1, hanim, hfont, hman, hmat, hmesh, hpack, ktx2, qtmesh, spirv, spk, vorbis, wav, wgsl,
    FormatKind,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live heap bytes and their peak, so a case can be held to a memory bound.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// What the KTX2 reader may inflate per case here (its default is 512 MiB).
const KTX2_BUDGET: u64 = 16 << 20;

/// Most heap a case may add: a fixed allowance plus a multiple of the input (readers
/// copy and expand what they read, validators list problems).
fn memory_bound(input_len: usize) -> usize {
    (24 << 20) + KTX2_BUDGET as usize + 64 * input_len
}

/// xorshift64*: small, seeded, the same sequence everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One mutation of a valid file, described for the failure message.
fn mutate(seed: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let mut b = seed.to_vec();
    let len = b.len();
    match rng.below(7) {
        0 => {
            let flips = 1 + rng.below(4);
            for _ in 0..flips {
                let bit = rng.below(len * 8);
                if let Some(byte) = b.get_mut(bit / 8) {
                    *byte ^= 1 << (bit % 8);
                }
            }
            (b, format!("{flips} bit flips"))
        }
        1 => {
            let at = rng.below(len);
            b.truncate(at);
            (b, format!("truncated to {at}"))
        }
        2 => {
            // Copy one range over another (a spliced chunk, a shifted table).
            let from = rng.below(len);
            let to = rng.below(len);
            let n = rng.below(64).min(len - from).min(len - to);
            let piece = b[from..from + n].to_vec();
            b[to..to + n].copy_from_slice(&piece);
            (b, format!("spliced {n} bytes from {from} to {to}"))
        }
        3 | 4 => {
            // A count, size or offset field set to an extreme. Fields are 4-aligned in
            // most of these formats; BMD1 and Qt also have odd ones, hence any offset.
            let width = if rng.below(2) == 0 { 4 } else { 8 };
            let at = if rng.below(4) == 0 {
                rng.below(len)
            } else {
                rng.below(len / 4 + 1) * 4
            };
            let values: [u64; 8] = [
                0,
                1,
                u64::MAX,
                u64::from(u32::MAX),
                0x7FFF_FFFF,
                0x8000_0000,
                len as u64,
                1 << 40,
            ];
            let v = values[rng.below(values.len())];
            let bytes = v.to_le_bytes();
            for (k, byte) in bytes.iter().take(width).enumerate() {
                if let Some(slot) = b.get_mut(at + k) {
                    *slot = *byte;
                }
            }
            (b, format!("{width}-byte field at {at} set to {v:#x}"))
        }
        5 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(16);
            let fill = rng.next() as u8;
            b.splice(at..at, std::iter::repeat_n(fill, n));
            (b, format!("{n} bytes {fill:#04x} inserted at {at}"))
        }
        _ => {
            let at = rng.below(len);
            let n = (1 + rng.below(16)).min(len - at);
            b.drain(at..at + n);
            (b, format!("{n} bytes removed at {at}"))
        }
    }
}

/// Runs every reader and validator of the format over the bytes; returns what they
/// refused or found (empty for a valid file).
fn exercise(kind: FormatKind, bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut refused = |what: &str, e: &dyn std::fmt::Display| found.push(format!("{what}: {e}"));
    let problems = |what: &str, p: Vec<assetc::formats::Problem>| {
        p.iter().map(|p| format!("{what}: {p}")).collect::<Vec<_>>()
    };
    let mut listed: Vec<String>;
    match kind {
        FormatKind::HMesh => {
            if let Err(e) = hmesh::HMeshView::parse(bytes) {
                refused("HMeshView::parse", &e);
            }
            if let Err(e) = hmesh::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", hmesh::validate(bytes));
        }
        FormatKind::HMat => {
            if let Err(e) = hmat::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", hmat::validate(bytes));
        }
        FormatKind::HAnim => {
            if let Err(e) = hanim::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", hanim::validate(bytes, None));
            listed.extend(problems(
                "validate for 3 joints",
                hanim::validate(bytes, Some(3)),
            ));
        }
        FormatKind::HMan => {
            if let Err(e) = hman::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", hman::validate(bytes));
        }
        FormatKind::Ktx2 => {
            let options = ktx2::ReadOptions {
                budget: KTX2_BUDGET,
                keep_levels: true,
            };
            if let Err(e) = ktx2::read_with(bytes, &options) {
                refused("read", &e);
            }
            listed = problems("validate", ktx2::validate(bytes));
        }
        FormatKind::QtMesh => {
            match qtmesh::read(bytes) {
                Ok(f) => {
                    let _ = qtmesh::describe(&f);
                }
                Err(e) => refused("read", &e),
            }
            listed = problems("validate", qtmesh::validate(bytes));
        }
        FormatKind::Bmd1 => {
            if let Err(e) = bmd1::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", bmd1::validate(bytes));
        }
        FormatKind::Spk => {
            match spk::open(bytes) {
                Ok(archive) => {
                    for i in 0..archive.len().min(64) {
                        if let Err(e) = archive.read_entry(i) {
                            refused("read_entry", &e);
                        }
                    }
                }
                Err(e) => refused("open", &e),
            }
            listed = problems("validate", spk::validate(bytes));
        }
        FormatKind::HPack => {
            match hpack::read(bytes) {
                Ok(pack) => {
                    for i in 0..pack.len().min(64) {
                        if pack.data(i).is_none() {
                            refused("data", &format!("entry {i} has no data"));
                        }
                    }
                }
                Err(e) => refused("read", &e),
            }
            listed = problems("validate", hpack::validate(bytes));
        }
        FormatKind::HFont => {
            if let Err(e) = hfont::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", hfont::validate(bytes));
        }
        FormatKind::Spirv => {
            if let Err(e) = spirv::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", spirv::validate(bytes));
        }
        FormatKind::Wav => {
            match wav::read(bytes) {
                Ok(info) => {
                    let _ = wav::samples_f32(&info, bytes);
                }
                Err(e) => refused("read", &e),
            }
            listed = problems("validate", wav::validate(bytes));
        }
        FormatKind::OggVorbis => {
            if let Err(e) = vorbis::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", vorbis::validate(bytes));
        }
        FormatKind::Wgsl => {
            if let Err(e) = wgsl::read(bytes) {
                refused("read", &e);
            }
            listed = problems("validate", wgsl::validate(bytes));
        }
    }
    found.extend(listed);
    found
}

/// A `.hanim` as our writer writes it: the samples hold no skinned model, so the seed is
/// made here, two clips over three joints with every path and interpolation.
fn hanim_seed() -> Vec<u8> {
    use hanim::{AnimChannel, AnimInterp, AnimPath, Clip, HAnim, Key};
    let keys = |n: usize, w: f32| -> Vec<Key> {
        (0..n)
            .map(|k| Key {
                time: k as f32 * 0.25,
                value: [k as f32, 0.5, -1.0, w],
            })
            .collect()
    };
    let clip = |name: &str, interp: AnimInterp| Clip {
        name: name.to_owned(),
        duration: 1.0,
        channels: vec![
            AnimChannel {
                joint: 0,
                path: AnimPath::Translation,
                interp,
                keys: keys(5, 0.0),
            },
            AnimChannel {
                joint: 1,
                path: AnimPath::Rotation,
                interp,
                keys: (0..5)
                    .map(|k| Key {
                        time: k as f32 * 0.25,
                        value: [0.0, 0.0, 0.0, 1.0],
                    })
                    .collect(),
            },
            AnimChannel {
                joint: 2,
                path: AnimPath::Scale,
                interp,
                keys: keys(2, 0.0),
            },
        ],
    };
    hanim::write(&HAnim {
        clips: vec![
            clip("walk", AnimInterp::Linear),
            clip("step", AnimInterp::Step),
        ],
    })
    .expect("a valid animation")
}

/// A `.hfont` as our writer writes it (the samples hold no font): an MSDF header, a blank
/// glyph among drawn ones, and kerning pairs, so every table has rows to mutate.
fn hfont_seed() -> Vec<u8> {
    use hfont::{Glyph, HFont, HFontHeader, KerningPair, FLAG_MSDF};
    let glyph = |codepoint: u32, left: f32| Glyph {
        codepoint,
        advance: 0.6,
        plane_left: left,
        plane_bottom: -0.1,
        plane_right: left + 0.5,
        plane_top: 0.7,
        uv_left: 0.25,
        uv_top: 0.0,
        uv_right: 0.5,
        uv_bottom: 0.5,
    };
    let blank = Glyph {
        codepoint: 0x20,
        advance: 0.3,
        ..Default::default()
    };
    hfont::write(&HFont {
        header: HFontHeader {
            atlas_tex: 0x0123_4567_89ab_cdef,
            ascent: 0.93,
            descent: -0.24,
            line_gap: 0.03,
            distance_range: 4.0,
            edge_value: 0.5,
            atlas_width: 256,
            atlas_height: 128,
            flags: FLAG_MSDF,
        },
        glyphs: vec![glyph(0, 0.0), blank, glyph(0x41, 0.05), glyph(0x56, 0.1)],
        kerning: vec![
            KerningPair {
                left: 0x41,
                right: 0x56,
                advance: -0.06,
            },
            KerningPair {
                left: 0x56,
                right: 0x41,
                advance: -0.05,
            },
        ],
    })
    .expect("a valid font")
}

/// `.wav` files as the audio kind writes them (the samples hold no sound): 16-bit stereo
/// and 32-bit float 5.1 with its speaker mask (WAVE_FORMAT_EXTENSIBLE).
fn wav_seeds() -> Vec<Vec<u8>> {
    use wav::{SampleFormat, Samples, WavSpec};
    let stereo = WavSpec {
        format: SampleFormat::Pcm16,
        channels: 2,
        sample_rate: 44_100,
        channel_mask: 0,
    };
    let ints: Vec<i16> = (0..64).map(|i| (i * 997 % 65_536) as i16).collect();
    let surround = WavSpec {
        format: SampleFormat::Float32,
        channels: 6,
        sample_rate: 48_000,
        channel_mask: 0x3F,
    };
    let floats: Vec<f32> = (0..60).map(|i| (i as f32 * 0.37).sin()).collect();
    vec![
        wav::write(&stereo, Samples::Pcm16(&ints)).expect("a valid WAV"),
        wav::write(&surround, Samples::Float32(&floats)).expect("a valid WAV"),
    ]
}

/// `.ogg` files as the audio kind writes them: the first WAV seed (stereo) encoded by its
/// Vorbis encoder, at the lowest and highest quality.
fn ogg_seeds() -> Vec<Vec<u8>> {
    use assetc::kinds::audio::settings::{AudioFormat, AudioSettings};
    use assetc::kinds::audio::{convert, Budget};
    let source = wav_seeds().swap_remove(0);
    [0.0, 1.0]
        .into_iter()
        .map(|q| {
            let settings = AudioSettings {
                format: AudioFormat::Ogg,
                compression_quality: q,
                ..AudioSettings::default()
            };
            let budget = Budget::new(&settings, &Default::default());
            convert(source.clone(), "wav", &settings, &budget)
                .expect("the Vorbis encoder takes the WAV seed")
                .bytes
        })
        .collect()
}

/// One build of the samples for every target, packed: a valid file of each format.
fn seeds(out: &Path) -> Vec<(String, FormatKind, Vec<u8>)> {
    let samples = common::samples();
    // The seed reading of BMD1: the samples' 65,792-vertex mesh is past what BGBTech3's
    // loader can hold (compat = "loader" refuses it), and the reader fuzzed is ours.
    let config = out.with_extension("toml");
    // The .hmesh seeds carry the cluster LOD chunks, in their meshlet-codec form (the
    // plain form is bit-flipped by formats::hmesh::clod's own tests).
    std::fs::write(
        &config,
        "[bmd1]\ncompat = \"spec\"\n[mesh]\ncluster_lod = true\ncluster_compress = true\n",
    )
    .unwrap();
    let o = common::assetc(&[
        "build",
        samples.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--target",
        "hmesh",
        "--target",
        "bmd1",
        "--target",
        "qtmesh",
        "--config",
        config.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        o.status.success(),
        "building the seed files failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files: Vec<(String, FormatKind, Vec<u8>)> = common::tree(out)
        .into_iter()
        .filter_map(|(rel, bytes)| {
            let kind = FormatKind::from_path(Path::new(&rel))?;
            Some((rel, kind, bytes))
        })
        .collect();
    let archive = out.with_extension("spk");
    let o = common::assetc(&[
        "pack",
        out.to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        o.status.success(),
        "pack: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    files.push((
        "<output>.spk".into(),
        FormatKind::Spk,
        std::fs::read(&archive).expect("the packed archive"),
    ));
    let bundle = out.with_extension("hpack");
    let o = common::assetc(&[
        "pack",
        out.to_str().unwrap(),
        "-o",
        bundle.to_str().unwrap(),
        "-q",
    ]);
    assert!(
        o.status.success(),
        "pack hpack: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    files.push((
        "<output>.hpack".into(),
        FormatKind::HPack,
        std::fs::read(&bundle).expect("the packed bundle"),
    ));
    // The samples hold no shader: two SPIR-V modules from a WGSL source of two entry points.
    let shaders = out.with_extension("shaders");
    std::fs::create_dir_all(shaders.join("in")).unwrap();
    std::fs::write(
        shaders.join("in/tint.wgsl"),
        "@group(0) @binding(0) var<uniform> tint: vec4<f32>;\n\
         @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {\n\
         return vec4<f32>(f32(i), 0.0, 0.0, 1.0);\n}\n\
         @fragment fn fs() -> @location(0) vec4<f32> { return tint; }\n",
    )
    .unwrap();
    let o = common::assetc(&[
        "build",
        shaders.join("in").to_str().unwrap(),
        "-o",
        shaders.join("out").to_str().unwrap(),
        "--no-config",
        "-q",
    ]);
    assert!(
        o.status.success(),
        "building the shader seeds failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    for name in ["vs", "fs"] {
        let path = shaders.join(format!("out/tint/{name}.spv"));
        files.push((
            format!("tint/{name}.spv"),
            FormatKind::Spirv,
            std::fs::read(&path).expect("a shader seed"),
        ));
    }
    files.push(("<made>.hanim".into(), FormatKind::HAnim, hanim_seed()));
    files.push(("<made>.hfont".into(), FormatKind::HFont, hfont_seed()));
    for (i, bytes) in wav_seeds().into_iter().enumerate() {
        files.push((format!("<made-{i}>.wav"), FormatKind::Wav, bytes));
    }
    for (i, bytes) in ogg_seeds().into_iter().enumerate() {
        files.push((format!("<made-{i}>.ogg"), FormatKind::OggVorbis, bytes));
    }
    // Plain WGSL of one entry point each, as `[shader] outputs = ["wgsl"]` writes it.
    for (i, text) in [
        "@compute @workgroup_size(8, 8, 1)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    let x = f32(id.x) * 0.5 + 1.0;\n}\n",
        "struct Out {\n    @builtin(position) pos: vec4<f32>,\n    @location(0) uv: vec2<f32>,\n}\n\n@vertex\nfn vs(@builtin(vertex_index) i: u32) -> Out {\n    var o: Out;\n    o.uv = vec2<f32>(f32(i & 1u), f32(i >> 1u));\n    o.pos = vec4<f32>(o.uv * 2.0 - 1.0, 0.0, 1.0);\n    return o;\n}\n",
    ]
    .into_iter()
    .enumerate()
    {
        files.push((format!("<made-{i}>.wgsl"), FormatKind::Wgsl, text.into()));
    }
    // Several files per format, but not every texture: seeds of one kind mostly
    // exercise the same code, and the time goes to variety instead.
    // The smallest files first: mutations of a small file reach its structure more often.
    files.sort_by_key(|f| (f.2.len(), f.0.clone()));
    let mut kept: Vec<(String, FormatKind, Vec<u8>)> = Vec::new();
    for f in files {
        if kept.iter().filter(|k| k.1 == f.1).count() < 3 {
            kept.push(f);
        }
    }
    kept
}

#[test]
fn mutated_files_never_panic_or_balloon() {
    let out = tempfile::tempdir().unwrap();
    let tree = out.path().join("tree");
    let files = seeds(&tree);
    for kind in [
        FormatKind::HMesh,
        FormatKind::HMat,
        FormatKind::HAnim,
        FormatKind::HMan,
        FormatKind::Ktx2,
        FormatKind::QtMesh,
        FormatKind::Bmd1,
        FormatKind::Spk,
        FormatKind::HPack,
        FormatKind::HFont,
        FormatKind::Spirv,
        FormatKind::Wav,
        FormatKind::Wgsl,
    ] {
        assert!(
            files.iter().any(|f| f.1 == kind),
            "the sample build wrote no {kind:?} file to fuzz"
        );
    }
    let cases: usize = std::env::var("ASSETC_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    let base_seed: u64 = std::env::var("ASSETC_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_f00d);

    let mut failures = Vec::new();
    let mut total = 0usize;
    for (i, (name, kind, seed)) in files.iter().enumerate() {
        // The unmutated file must read cleanly: a seed that fails proves nothing.
        let refused = exercise(*kind, seed);
        assert!(refused.is_empty(), "seed {name}: {refused:#?}");
        let mut rng = Rng((base_seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1);
        for case in 0..cases {
            let (bytes, what) = mutate(seed, &mut rng);
            let before = LIVE.load(Ordering::Relaxed);
            PEAK.store(before, Ordering::Relaxed);
            let result = catch_unwind(AssertUnwindSafe(|| drop(exercise(*kind, &bytes))));
            let grew = PEAK.load(Ordering::Relaxed).saturating_sub(before);
            total += 1;
            if result.is_err() {
                failures.push(format!("{name} case {case} ({what}): panicked"));
            } else if grew > memory_bound(bytes.len()) {
                failures.push(format!(
                    "{name} case {case} ({what}): {grew} bytes allocated for a {}-byte input",
                    bytes.len()
                ));
            }
        }
    }
    assert!(total >= 1000, "only {total} cases ran");
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_flipped_byte_of_a_packed_build_is_caught() {
    // SparkPak keeps no checksum of an entry; `pack check` vouches for a deflated entry
    // through its zlib stream (Adler-32, exact size) and for a stored one through the
    // size and XXH3 digest the packed assets.hman lists. A packed build is all one or the
    // other, so a byte flipped anywhere in an entry must be reported.
    let out = tempfile::tempdir().unwrap();
    let files = seeds(&out.path().join("tree"));
    let (_, _, archive) = files
        .iter()
        .find(|f| f.1 == FormatKind::Spk)
        .expect("the packed seed");
    let pak = spk::open(archive).unwrap();
    let blobs: Vec<(String, u64, u32)> = pak
        .entries()
        .iter()
        .filter(|e| e.compressed_size > 0)
        .map(|e| (e.path.clone(), e.data_offset, e.compressed_size))
        .collect();
    let path = out.path().join("case.spk");
    let mut rng = Rng(0x5eed_f11b);
    let mut missed = Vec::new();
    for case in 0..96 {
        let (name, offset, size) = &blobs[case % blobs.len()];
        let at = offset + rng.below(*size as usize) as u64;
        let bit = rng.below(8);
        let mut bytes = archive.clone();
        bytes[at as usize] ^= 1 << bit;
        std::fs::write(&path, &bytes).unwrap();
        let report = assetc::pack::check_archive(&path);
        if report.problems.is_empty() {
            missed.push(format!("{name}: bit {bit} of byte {at}"));
        }
    }
    assert!(missed.is_empty(), "undetected: {missed:?}");
}
