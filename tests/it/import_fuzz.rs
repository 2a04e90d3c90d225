//! Importer fuzzing on stable Rust: corpus glTF/GLB files, mutated (bit flips, truncation,
//! spliced ranges, counts/offsets/indices set to 0, max or huge values, swapped accessors,
//! dropped keys), seeded and deterministic, through `assetc build` in batches. Every case:
//! no panic (not even one the build caught), no signal, memory bounded by `ulimit -v`,
//! exit 0 or 1, and whatever was written passes `assetc check`.
//!
//! FBX is fuzzed the same way, from small corpus sources exported as binary FBX by Blender
//! and as ASCII FBX by assimp (Debian's `blender` and `assimp-utils`): byte mutations, and
//! for ASCII files numbers (array counts `*24`, indices, values) set to hostile values.
//!
//! `ASSETC_FUZZ_SEED` (default 14) and `ASSETC_FUZZ_CASES` (default 2000, sized for about
//! two minutes on two cores) choose the run; a failure names the seed and the case, and the
//! cases are rebuilt one by one to find which file does it.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Address-space limit of each build (KiB): a case that tries to allocate more aborts,
/// which the test reports as a crash.
const MEMORY_LIMIT_KIB: u64 = 3 << 20;
const CASES_PER_BATCH: usize = 50;
/// Sources bigger than this (with their buffers) are left out: mutating them teaches little
/// more and costs time.
const MAX_SOURCE_BYTES: u64 = 200_000;

/// SplitMix64: tiny, deterministic on every platform and needs no dependency; the cases
/// only have to be reproducible from the seed, not cryptographically random.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A corpus source: its file and the folder holding what it refers to.
struct Seed {
    path: PathBuf,
    bytes: Vec<u8>,
}

/// Small corpus sources exported to FBX into `dir`, each in a folder of its own beside
/// its images: binary FBX 7.4 by Blender (tests/export_fbx.py, images embedded) and ASCII
/// FBX 7.5 by assimp (`-ffbxa`; assimp 5.2's binary FBX is refused by Blender and ufbx
/// alike, so it is no seed). A missing tool is reported (failing under CI) and its seeds
/// left out.
fn fbx_seeds(corpus: &Path, dir: &Path) -> Vec<Seed> {
    let assimp = tool("ASSETC_ASSIMP", "assimp", &[]);
    let blender = tool("ASSETC_BLENDER", "blender", &[]);
    if assimp.is_none() {
        missing(
            "import_fuzz",
            "assimp (Debian package `assimp-utils`) for ASCII FBX seeds",
        );
    }
    if blender.is_none() {
        missing(
            "import_fuzz",
            "blender (with python3-numpy) for binary FBX seeds",
        );
    }
    let sources = [
        "cube/cube.gltf",
        "SimpleSkin/SimpleSkin.gltf",
        "animated/MorphStressTest.gltf",
        "TonemappingTest/TonemappingTest.gltf",
    ];
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/export_fbx.py");
    let mut out = Vec::new();
    for (i, rel) in sources.iter().enumerate() {
        let source = corpus.join("gltf").join(rel);
        if !source.is_file() {
            continue;
        }
        let exporters: [(&str, Option<Command>); 2] = [
            (
                "ascii",
                assimp.as_ref().map(|a| {
                    let mut c = Command::new(a);
                    c.arg("export").arg(&source);
                    c
                }),
            ),
            (
                "binary",
                blender.as_ref().map(|b| {
                    let mut c = Command::new(b);
                    c.args(["-b", "--factory-startup", "--python", script, "--"])
                        .arg(&source);
                    c
                }),
            ),
        ];
        for (name, command) in exporters {
            let Some(mut command) = command else {
                continue;
            };
            let folder = dir.join(format!("fbx{i}-{name}"));
            std::fs::create_dir_all(&folder).unwrap();
            // Its images beside it: an ASCII FBX names them relative to the glTF's folder.
            for e in std::fs::read_dir(source.parent().unwrap())
                .unwrap()
                .flatten()
            {
                let p = e.path();
                let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
                if matches!(ext, "png" | "jpg" | "jpeg") {
                    std::fs::copy(&p, folder.join(e.file_name())).unwrap();
                }
            }
            let path = folder.join("seed.fbx");
            command.arg(&path);
            command.arg(if name == "ascii" { "-ffbxa" } else { "--embed" });
            let o = command.output().unwrap();
            assert!(
                o.status.success() && path.is_file(),
                "could not export {rel} as {name} FBX: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let bytes = std::fs::read(&path).unwrap();
            out.push(Seed { path, bytes });
        }
    }
    out
}

fn seeds(corpus: &Path) -> Vec<Seed> {
    let mut out = Vec::new();
    for path in gltf_files(&corpus.join("gltf")) {
        let dir = path.parent().unwrap();
        // The source plus its folder's buffers: what a case reads besides images.
        let size: u64 = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path() == path || e.path().extension().is_some_and(|x| x == "bin"))
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum();
        if size <= MAX_SOURCE_BYTES {
            let bytes = std::fs::read(&path).unwrap();
            out.push(Seed { path, bytes });
        }
    }
    out
}

/// The numeric leaves of a JSON document, as pointers (`/accessors/3/count`).
fn numeric_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Number(_) => out.push(at),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                numeric_pointers(item, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                let key = k.replace('~', "~0").replace('/', "~1");
                numeric_pointers(item, format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
}

/// Values a size, offset or index field should never trust.
fn hostile_number(rng: &mut Rng, old: &Value) -> Value {
    let old = old.as_f64().unwrap_or(0.0);
    let choices: [Value; 14] = [
        0.into(),
        1.into(),
        (-1).into(),
        255.into(),
        65_535.into(),
        4_294_967_295u64.into(),
        9_007_199_254_740_993u64.into(),
        u64::MAX.into(),
        serde_json::json!(1e25),
        serde_json::json!(-1e25),
        serde_json::json!(1e300),
        serde_json::json!(old + 1.0),
        serde_json::json!(old * 2.0),
        serde_json::json!(old / 3.0),
    ];
    choices[rng.below(choices.len())].clone()
}

/// One structural mutation of a glTF document.
fn mutate_json(rng: &mut Rng, doc: &mut Value, log: &mut Vec<String>) {
    match rng.below(4) {
        // Swap two accessors (or two buffer views): data of the wrong type and size.
        0 => {
            let key = if rng.chance(70) {
                "accessors"
            } else {
                "bufferViews"
            };
            if let Some(items) = doc.get_mut(key).and_then(Value::as_array_mut) {
                if items.len() >= 2 {
                    let (a, b) = (rng.below(items.len()), rng.below(items.len()));
                    items.swap(a, b);
                    log.push(format!("swap {key}[{a}] and [{b}]"));
                }
            }
        }
        // Drop a key somewhere.
        1 => {
            let mut pointers = Vec::new();
            numeric_pointers(doc, String::new(), &mut pointers);
            if pointers.is_empty() {
                return;
            }
            let p = &pointers[rng.below(pointers.len())];
            let (parent, key) = p.rsplit_once('/').unwrap();
            if let Some(Value::Object(map)) = doc.pointer_mut(parent) {
                let key = key.replace("~1", "/").replace("~0", "~");
                map.remove(&key);
                log.push(format!("remove {p}"));
            }
        }
        // Set a number (count, offset, length, stride, index, factor) to a hostile value.
        _ => {
            let mut pointers = Vec::new();
            numeric_pointers(doc, String::new(), &mut pointers);
            if pointers.is_empty() {
                return;
            }
            let p = pointers[rng.below(pointers.len())].clone();
            if let Some(slot) = doc.pointer_mut(&p) {
                let new = hostile_number(rng, slot);
                log.push(format!("set {p} = {new}"));
                *slot = new;
            }
        }
    }
}

/// One byte-level mutation.
fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>, log: &mut Vec<String>) {
    if bytes.is_empty() {
        return;
    }
    match rng.below(5) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let (i, bit) = (rng.below(bytes.len()), rng.below(8));
                bytes[i] ^= 1 << bit;
                log.push(format!("flip bit {bit} of byte {i}"));
            }
        }
        1 => {
            let len = rng.below(bytes.len());
            bytes.truncate(len);
            log.push(format!("truncate to {len}"));
        }
        2 => {
            let (from, to) = (rng.below(bytes.len()), rng.below(bytes.len()));
            let len = rng.below(256).min(bytes.len() - from).min(bytes.len() - to);
            let range = bytes[from..from + len].to_vec();
            bytes[to..to + len].copy_from_slice(&range);
            log.push(format!("splice {len} bytes from {from} to {to}"));
        }
        3 => {
            let (from, to) = (rng.below(bytes.len()), rng.below(bytes.len()));
            let len = rng.below(64).min(bytes.len() - from);
            let range = bytes[from..from + len].to_vec();
            bytes.splice(to..to, range);
            log.push(format!("insert {len} bytes from {from} at {to}"));
        }
        _ => {
            let i = rng.below(bytes.len() / 4) * 4;
            let word: u32 = [0, u32::MAX, 0x7f7f_ffff, 0x8000_0000][rng.below(4)];
            let end = (i + 4).min(bytes.len());
            bytes[i..end].copy_from_slice(&word.to_le_bytes()[..end - i]);
            log.push(format!("word at {i} = {word:#x}"));
        }
    }
}

/// GLB: JSON chunk and optional BIN chunk, or `None` when the container is not plain.
fn split_glb(bytes: &[u8]) -> Option<(Value, Option<Vec<u8>>)> {
    let u32_at = |o: usize| Some(u32::from_le_bytes(bytes.get(o..o + 4)?.try_into().ok()?));
    let json_len = u32_at(12)? as usize;
    let json = serde_json::from_slice(bytes.get(20..20 + json_len)?).ok()?;
    let bin_at = 20 + json_len;
    let bin = match u32_at(bin_at) {
        Some(len) => Some(bytes.get(bin_at + 8..bin_at + 8 + len as usize)?.to_vec()),
        None => None,
    };
    Some((json, bin))
}

fn join_glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut j = serde_json::to_vec(json).unwrap();
    while !j.len().is_multiple_of(4) {
        j.push(b' ');
    }
    let mut out = b"glTF".to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // total, patched below
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    if let Some(bin) = bin {
        let mut b = bin.to_vec();
        while b.len() % 4 != 0 {
            b.push(0);
        }
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&b);
    }
    let total = out.len() as u32;
    out[8..12].copy_from_slice(&total.to_le_bytes());
    out
}

/// One mutation of an ASCII FBX's numbers: a count (`*24`), index or value set to a
/// hostile one, so that declared sizes and indices disagree with the data.
fn mutate_ascii_fbx(rng: &mut Rng, bytes: &mut Vec<u8>, log: &mut Vec<String>) {
    // Start offsets of the number tokens.
    let starts: Vec<usize> = (0..bytes.len())
        .filter(|&i| bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()))
        .collect();
    if starts.is_empty() {
        return;
    }
    let at = starts[rng.below(starts.len())];
    let end = (at..bytes.len())
        .find(|&i| !(bytes[i].is_ascii_digit() || bytes[i] == b'.' || bytes[i] == b'e'))
        .unwrap_or(bytes.len());
    let new = [
        "0",
        "4294967295",
        "2147483647",
        "-1",
        "65536",
        "1e300",
        "99999999999",
    ][rng.below(7)];
    log.push(format!("number at {at} = {new}"));
    bytes.splice(at..end, new.bytes());
}

/// A mutated copy of `seed`, and what was done to it.
fn mutate(rng: &mut Rng, seed: &Seed) -> (Vec<u8>, String) {
    let mut log = Vec::new();
    if seed.path.extension().is_some_and(|e| e == "fbx") {
        let mut bytes = seed.bytes.clone();
        let ascii = !bytes.starts_with(b"Kaydara FBX Binary");
        for _ in 0..1 + rng.below(3) {
            if ascii && rng.chance(60) {
                mutate_ascii_fbx(rng, &mut bytes, &mut log);
            } else {
                mutate_bytes(rng, &mut bytes, &mut log);
            }
        }
        return (bytes, log.join("; "));
    }
    let glb = seed.bytes.starts_with(b"glTF");
    let rounds = 1 + rng.below(3);
    let mut bytes = seed.bytes.clone();
    if rng.chance(60) {
        let parsed = if glb {
            split_glb(&bytes)
        } else {
            serde_json::from_slice(&bytes).ok().map(|v| (v, None))
        };
        if let Some((mut doc, mut bin)) = parsed {
            for _ in 0..rounds {
                mutate_json(rng, &mut doc, &mut log);
            }
            if let Some(bin) = bin.as_mut().filter(|_| rng.chance(30)) {
                let mut bin_log = Vec::new();
                mutate_bytes(rng, bin, &mut bin_log);
                log.extend(bin_log.into_iter().map(|l| format!("BIN chunk: {l}")));
            }
            bytes = if glb {
                join_glb(&doc, bin.as_deref())
            } else {
                serde_json::to_vec_pretty(&doc).unwrap()
            };
            return (bytes, log.join("; "));
        }
    }
    for _ in 0..rounds {
        mutate_bytes(rng, &mut bytes, &mut log);
    }
    (bytes, log.join("; "))
}

struct Case {
    /// Path below the batch's input root.
    rel: String,
    seed_file: PathBuf,
    mutation: String,
}

/// Writes one batch: each seed's folder copied once (buffers, images; not its sources),
/// with the batch's mutated sources beside them.
fn write_batch(rng: &mut Rng, seeds: &[Seed], input: &Path, first_case: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for n in 0..CASES_PER_BATCH {
        let s = rng.below(seeds.len());
        let seed = &seeds[s];
        let dir_name = format!("s{s}");
        let dir = input.join(&dir_name);
        if !dir.is_dir() {
            std::fs::create_dir_all(&dir).unwrap();
            for e in std::fs::read_dir(seed.path.parent().unwrap())
                .unwrap()
                .flatten()
            {
                let p = e.path();
                let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
                if p.is_file() && !matches!(ext, "gltf" | "glb" | "fbx") {
                    std::fs::copy(&p, dir.join(e.file_name())).unwrap();
                }
            }
        }
        let (bytes, mutation) = mutate(rng, seed);
        let ext = seed.path.extension().unwrap().to_str().unwrap();
        let rel = format!("{dir_name}/case{}.{ext}", first_case + n);
        std::fs::write(input.join(&rel), bytes).unwrap();
        cases.push(Case {
            rel,
            seed_file: seed.path.clone(),
            mutation,
        });
    }
    cases
}

fn fuzz_settings(dir: &Path) -> PathBuf {
    // Small, exact textures: the importer is under test, not the encoders.
    let path = dir.join("fuzz.toml");
    std::fs::write(
        &path,
        "[texture]\nformat = \"rgba8\"\nmax_size = 32\n[mesh]\nlod_ratios = [0.5]\n",
    )
    .unwrap();
    path
}

/// `assetc build` under the memory limit.
fn build(input: &Path, output: &Path, config: &Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB} && exec \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_assetc"))
        .args(["build"])
        .arg(input)
        .arg("-o")
        .arg(output)
        .arg("--config")
        .arg(config)
        .args(["-j", "2", "--message-format", "json"])
        .output()
        .unwrap()
}

/// What is wrong with one build's outcome, if anything.
fn judge(o: &Output, output: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let stderr = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(0 | 1) => {}
        Some(code) => problems.push(format!("exit {code}: {stderr}")),
        None => problems.push(format!("killed by a signal ({:?}): {stderr}", o.status)),
    }
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if let Some(error) = v["error"].as_str() {
            // The build caught it, but a panic is a bug all the same.
            if error.contains("internal error") {
                let at: Vec<&str> = stderr
                    .lines()
                    .filter(|l| l.contains("panicked at"))
                    .collect();
                problems.push(format!("caught panic: {error} ({})", at.join("; ")));
            }
        }
    }
    if stderr.contains("panicked") && problems.is_empty() {
        problems.push(format!("panic message on stderr: {stderr}"));
    }
    if output.join("assets.hman").is_file() {
        let check = assetc(&["check", output.to_str().unwrap()]);
        if !check.status.success() {
            problems.push(format!(
                "check rejects what was written: {}",
                String::from_utf8_lossy(&check.stdout)
            ));
        }
    }
    problems
}

/// Rebuilds each case of a failed batch alone to name the culprits.
fn culprits(cases: &[Case], input: &Path, config: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for case in cases {
        let out = tempfile::tempdir().unwrap();
        let o = build(&input.join(&case.rel), out.path(), config);
        let problems = judge(&o, out.path());
        if !problems.is_empty() {
            found.push(format!(
                "{} (from {}, {}): {}",
                case.rel,
                case.seed_file.display(),
                case.mutation,
                problems.join(" | ")
            ));
        }
    }
    found
}

#[test]
fn mutated_corpus_sources_never_crash_the_build_or_write_invalid_output() {
    let Some(corpus) = corpus("import_fuzz") else {
        return;
    };
    let fbx_dir = tempfile::tempdir().unwrap();
    let mut seeds = seeds(&corpus);
    assert!(
        seeds.len() >= 10,
        "only {} small corpus sources",
        seeds.len()
    );
    seeds.extend(fbx_seeds(&corpus, fbx_dir.path()));
    let seed = env_number("ASSETC_FUZZ_SEED", 14);
    let total = env_number("ASSETC_FUZZ_CASES", 2000) as usize;
    let mut rng = Rng(seed);
    let work = tempfile::tempdir().unwrap();
    let config = fuzz_settings(work.path());
    let mut failures = Vec::new();
    let mut built = 0;
    let (mut fbx_cases, mut fbx_built) = (0, 0);
    for batch in 0..total.div_ceil(CASES_PER_BATCH) {
        let input = work.path().join(format!("in{batch}"));
        let output = work.path().join(format!("out{batch}"));
        let cases = write_batch(&mut rng, &seeds, &input, batch * CASES_PER_BATCH);
        let o = build(&input, &output, &config);
        let stdout = String::from_utf8_lossy(&o.stdout);
        for line in stdout
            .lines()
            .filter(|l| l.contains("\"status\":\"built\""))
        {
            built += 1;
            fbx_built += usize::from(line.contains(".fbx\""));
        }
        fbx_cases += cases.iter().filter(|c| c.rel.ends_with(".fbx")).count();
        let problems = judge(&o, &output);
        if !problems.is_empty() {
            let named = culprits(&cases, &input, &config);
            failures.push(format!(
                "seed {seed}, batch {batch}: {}\n  {}",
                problems.join(" | "),
                named.join("\n  ")
            ));
        }
        let _ = std::fs::remove_dir_all(&input);
        let _ = std::fs::remove_dir_all(&output);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{built} of {total} cases built; FBX: {fbx_built} of {fbx_cases}");
    assert!(
        fbx_built * 20 >= fbx_cases,
        "only {fbx_built} of {fbx_cases} FBX cases built"
    );
    // The mutations must leave enough cases buildable for the output checks to mean
    // something (most mutations of a number or a bit keep the file readable).
    assert!(
        built * 10 >= total,
        "only {built} of {total} cases built: the mutations are too destructive to test \
         the pipeline"
    );
}

// Hostile sources made by hand (the fuzzing review's classes): legal files that once took
// the whole build down or ran for minutes. Each must build, or fail alone with a message,
// within a generous bound; the figures measured are in the commit messages.

/// A glTF with one mesh (named `mesh_name`) of one triangle-list primitive; buffers go in
/// `<stem>.bin` beside it. `image` gives the primitive UVs and a base-colour texture read
/// from that file.
struct Source<'a> {
    stem: &'a str,
    mesh_name: &'a str,
    positions: &'a [[f32; 3]],
    indices: Option<&'a [u32]>,
    image: Option<&'a str>,
}

impl Source<'_> {
    fn write(&self, dir: &Path) -> PathBuf {
        let mut bin: Vec<u8> = self
            .positions
            .iter()
            .flatten()
            .flat_map(|c| c.to_le_bytes())
            .collect();
        let (min, max) = bounds(self.positions);
        let mut views = vec![serde_json::json!({"buffer": 0, "byteLength": bin.len()})];
        let mut accessors = vec![serde_json::json!({
            "bufferView": 0, "componentType": 5126, "count": self.positions.len(),
            "type": "VEC3", "min": min, "max": max,
        })];
        let mut primitive = serde_json::json!({"attributes": {"POSITION": 0}});
        if let Some(indices) = self.indices {
            views.push(serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": indices.len() * 4}));
            bin.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
            accessors.push(serde_json::json!({"bufferView": 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR"}));
            primitive["indices"] = 1.into();
        }
        let mut doc = serde_json::json!({
            "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0}],
            "meshes": [{"name": self.mesh_name, "primitives": [primitive]}],
            "accessors": accessors, "bufferViews": views,
        });
        if let Some(image) = self.image {
            let uv_view = doc["bufferViews"].as_array().unwrap().len();
            let uvs: Vec<u8> = (0..self.positions.len())
                .flat_map(|i| [(i % 2) as f32, (i % 3 == 0) as u8 as f32])
                .flat_map(f32::to_le_bytes)
                .collect();
            doc["bufferViews"].as_array_mut().unwrap().push(
                serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": uvs.len()}),
            );
            bin.extend(uvs);
            let accessors = doc["accessors"].as_array_mut().unwrap();
            accessors.push(serde_json::json!({"bufferView": uv_view, "componentType": 5126, "count": self.positions.len(), "type": "VEC2"}));
            doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"] =
                (accessors.len() - 1).into();
            doc["meshes"][0]["primitives"][0]["material"] = 0.into();
            doc["materials"] =
                serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
            doc["textures"] = serde_json::json!([{"source": 0}]);
            doc["images"] = serde_json::json!([{"uri": image}]);
        }
        let bin_name = format!("{}.bin", &self.stem[..self.stem.len().min(200)]);
        doc["buffers"] = serde_json::json!([{"uri": bin_name, "byteLength": bin.len()}]);
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(&bin_name), bin).unwrap();
        let path = dir.join(format!("{}.gltf", self.stem));
        std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
        path
    }
}

fn bounds(positions: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    for p in positions {
        for k in 0..3 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    (min, max)
}

/// A valid 1x1 RGB PNG, or one whose header declares `width` x `height` (its pixel data
/// is one empty row: only the header matters to the size checks).
fn png(width: u32, height: u32) -> Vec<u8> {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        let crc = crc32(&out[start..]);
        out.extend(crc.to_be_bytes());
    }
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 2, 0, 0, 0]);
    // zlib stream of the row [filter 0, r, g, b], stored (uncompressed).
    let row = [0u8, 200, 100, 50];
    let mut idat = vec![0x78, 0x01, 0x01, 4, 0, !4, 0xff];
    idat.extend(row);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &row {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    idat.extend(((b << 16) | a).to_be_bytes());
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &idat);
    chunk(&mut out, b"IEND", &[]);
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

const TRIANGLE: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];

/// Longest a hand-made case may build before it is killed (a failure, not a hang).
const TIME_LIMIT_S: u64 = 120;

/// `assetc build input -o output` for `targets` under the memory limit, with its wall time.
fn build_targets(input: &Path, output: &Path, targets: &[&str]) -> (Output, std::time::Duration) {
    build_within(input, output, targets, TIME_LIMIT_S)
}

/// [`build_targets`], killed after `seconds`.
fn build_within(
    input: &Path,
    output: &Path,
    targets: &[&str],
    seconds: u64,
) -> (Output, std::time::Duration) {
    let started = std::time::Instant::now();
    let mut args: Vec<String> = vec![
        "build".into(),
        input.display().to_string(),
        "-o".into(),
        output.display().to_string(),
    ];
    for t in targets {
        args.extend(["--target".to_string(), t.to_string()]);
    }
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_LIMIT_KIB} && exec timeout -s KILL {seconds} \"$@\""
        ))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_assetc"))
        .args(&args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (o, started.elapsed())
}

/// Every file below `root` with its path relative to it.
fn files_below(root: &Path) -> Vec<PathBuf> {
    tree(root)
        .into_iter()
        .map(|(rel, _)| PathBuf::from(rel))
        .collect()
}

/// The build exited 0 and wrote a manifest that `assetc check` accepts.
fn assert_built_and_checked(o: &Output, output: &Path, what: &str) {
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(output.join("assets.hman").is_file(), "{what}: no manifest");
    let check = assetc(&["check", output.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{what}: check: {}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn long_names_are_shortened_and_the_build_keeps_its_manifest() {
    let work = tempfile::tempdir().unwrap();
    // A legal 255-byte source name: its `.hmesh` would be 256 bytes.
    let input = work.path().join("in");
    let stem = "n".repeat(250);
    Source {
        stem: &stem,
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: None,
    }
    .write(&input);
    // A second, ordinary source: one long name must not cost the others their outputs.
    Source {
        stem: "plain",
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: None,
    }
    .write(&input);
    for targets in [&["hmesh"][..], &["bmd1"], &["qtmesh"]] {
        let output = work.path().join(format!("out-{}", targets[0]));
        let (o, _) = build_targets(&input, &output, targets);
        assert_built_and_checked(&o, &output, &format!("255-byte name, {targets:?}"));
        let names = files_below(&output);
        let starts = |prefix: &str| {
            names
                .iter()
                .any(|p| p.to_string_lossy().starts_with(prefix))
        };
        assert!(starts("plain."), "{names:?}");
        assert!(starts("nnnn"), "{names:?}");
    }
    // Under qtmesh: a mesh named with 300 characters and a 254-byte image file name,
    // whose copy in maps/ (through its temporary sibling) did not fit.
    let qt_input = work.path().join("qt");
    let image = format!("{}.png", "i".repeat(250));
    std::fs::create_dir_all(&qt_input).unwrap();
    std::fs::write(qt_input.join(&image), png(1, 1)).unwrap();
    let mesh_name = "M".repeat(300);
    Source {
        stem: "named",
        mesh_name: &mesh_name,
        positions: &TRIANGLE,
        indices: None,
        image: Some(&image),
    }
    .write(&qt_input);
    let output = work.path().join("out-qt-names");
    let (o, _) = build_targets(&qt_input, &output, &["qtmesh"]);
    assert_built_and_checked(&o, &output, "300-character mesh, 254-byte image");
    let names = files_below(&output);
    let mesh = names
        .iter()
        .find(|p| p.starts_with("named.qt/meshes"))
        .expect("a mesh file");
    let map = names
        .iter()
        .find(|p| p.starts_with("named.qt/maps"))
        .expect("a map file");
    for p in [mesh, map] {
        let leaf = p.file_name().unwrap().len();
        assert!(leaf <= 239, "{} has {leaf} bytes", p.display());
    }
    let qml = std::fs::read_to_string(output.join("named.qt/Named.qml")).unwrap();
    for p in [mesh, map] {
        let rel = p
            .strip_prefix("named.qt")
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(qml.contains(&format!("\"{rel}\"")), "the QML names {rel}");
    }
}

/// A fan of `segments` triangles around one hub, `height` above a unit circle: valence
/// `segments` at the hub.
fn fan(segments: u32, height: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut positions = vec![[0.0, 0.0, height]];
    positions.extend((0..segments).map(|i| {
        let a = i as f32 / segments as f32 * std::f32::consts::TAU;
        [a.cos(), a.sin(), 0.0]
    }));
    let indices = (0..segments)
        .flat_map(|i| [0, 1 + i, 1 + (i + 1) % segments])
        .collect();
    (positions, indices)
}

const EVERY_TARGET: [&str; 3] = ["hmesh", "bmd1", "qtmesh"];

/// Builds one generated source for every target, killed after `seconds`; returns the
/// wall time.
fn build_every_target(positions: &[[f32; 3]], indices: &[u32], what: &str, seconds: u64) -> f64 {
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("in");
    Source {
        stem: "s",
        mesh_name: "m",
        positions,
        indices: Some(indices),
        image: None,
    }
    .write(&input);
    let output = work.path().join("out");
    let (o, took) = build_within(&input, &output, &EVERY_TARGET, seconds);
    assert_built_and_checked(&o, &output, what);
    eprintln!("{what}: {:.2} s for every target", took.as_secs_f64());
    took.as_secs_f64()
}

#[test]
fn a_high_valence_fan_builds_in_bounded_time() {
    // Smooth normals, meshlets, the vertex cache and the simplifier were all quadratic in
    // the hub's valence: 37 s (debug), 17 s for the Qt and BMD1 targets. The bound is a
    // safety net only; the measured figures are in the commit message.
    let (positions, indices) = fan(65_536, 0.0);
    let took = build_every_target(&positions, &indices, "flat 65,536-segment fan", 20);
    assert!(took < 20.0, "{took:.1} s");
    // A steep cone: its faces are too far apart for one shared hub normal, so each corner
    // smooths its neighbours (the bounded path), and the hub splits into thousands of
    // vertices that the Qt target's weld compares.
    let (positions, indices) = fan(65_536, 5.0);
    let took = build_every_target(&positions, &indices, "steep 65,536-segment cone", 40);
    assert!(took < 40.0, "{took:.1} s");
}

/// A source whose one primitive has a POSITION accessor without a bufferView (zeros) of
/// `count` vertices, and optionally indices made the same way.
fn zero_accessor_source(dir: &Path, name: &str, count: u64, index_count: Option<u64>) {
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"componentType": 5126, "count": count, "type": "VEC3",
                       "min": [0, 0, 0], "max": [0, 0, 0]}],
    });
    if let Some(n) = index_count {
        doc["accessors"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"componentType": 5125, "count": n, "type": "SCALAR"}));
        doc["meshes"][0]["primitives"][0]["indices"] = 1.into();
    }
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), serde_json::to_vec(&doc).unwrap()).unwrap();
}

#[test]
fn positions_that_all_weld_into_one_vertex_build_quickly() {
    let work = tempfile::tempdir().unwrap();
    // 262,144 zero positions (an accessor without a bufferView: a 200-byte file) weld
    // into one vertex used by every triangle: this ran for minutes.
    let input = work.path().join("weld");
    zero_accessor_source(&input, "zeros.gltf", 262_144, None);
    zero_accessor_source(&input, "zeros_indexed.gltf", 262_144, Some(262_143));
    for targets in EVERY_TARGET.map(|t| [t]) {
        let output = work.path().join(format!("out-{}", targets[0]));
        let (o, took) = build_within(&input, &output, &targets, 20);
        let stderr = String::from_utf8_lossy(&o.stderr);
        // BMD1 refuses them (more than 255 meshes of 1024 vertices); the others build.
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{targets:?}: {:?} {stderr}",
            o.status
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            output.join("assets.hman").is_file(),
            "{targets:?}: the build went on"
        );
        eprintln!(
            "262,144 zero positions, {targets:?}: {:.2} s",
            took.as_secs_f64()
        );
        assert!(took.as_secs_f64() < 20.0, "{targets:?}: {took:?}");
    }
}

#[test]
fn accessor_counts_over_the_limits_fail_before_allocating() {
    // Counts that would need gigabytes are refused before anything is allocated: no
    // abort under the memory limit (2^28-1 positions aborted on a 3 GiB allocation), a
    // message naming the limit, the other source built.
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("huge");
    zero_accessor_source(&input, "positions.gltf", (1 << 28) - 1, None);
    zero_accessor_source(&input, "indices.gltf", 3, Some((1 << 31) - 1));
    Source {
        stem: "plain",
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: None,
    }
    .write(&input);
    let output = work.path().join("out-huge");
    let (o, _) = build_targets(&input, &output, &["hmesh"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{:?}: {stderr}", o.status);
    assert!(
        stderr.contains("268435455 vertices exceed the limit"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2147483647 indices exceed the limit"),
        "{stderr}"
    );
    assert!(output.join("plain.hmesh").is_file());
    assert!(output.join("assets.hman").is_file());
}

#[test]
fn ten_thousand_nested_nodes_build_for_every_target() {
    // A chain of 10,000 nodes, the mesh on the deepest: the Qt target's QML writer
    // recursed (a stack overflow at 4,000, the whole build gone) and indented by depth
    // (3,000 levels wrote 69 MB).
    const DEPTH: usize = 10_000;
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("in");
    let path = Source {
        stem: "chain",
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: None,
    }
    .write(&input);
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut nodes: Vec<Value> = (0..DEPTH - 1)
        .map(|i| serde_json::json!({"name": format!("n{i}"), "children": [i + 1], "translation": [0, 1, 0]}))
        .collect();
    nodes.push(serde_json::json!({"name": "leaf", "mesh": 0}));
    doc["nodes"] = Value::Array(nodes);
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    for target in EVERY_TARGET {
        let output = work.path().join(format!("out-{target}"));
        let (o, took) = build_targets(&input, &output, &[target]);
        assert_built_and_checked(&o, &output, &format!("{DEPTH} nested nodes, {target}"));
        let files = tree(&output);
        let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
        eprintln!(
            "{DEPTH} nested nodes, {target}: {:.2} s, {bytes} bytes written",
            took.as_secs_f64()
        );
        // Linear in the node count: at most 1 KiB a node.
        assert!(bytes < DEPTH * 1024, "{target}: {bytes} bytes");
        for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".qml")) {
            let text = String::from_utf8_lossy(text);
            let widest = text.lines().map(|l| l.len() - l.trim_start().len()).max();
            assert!(widest <= Some(4 * 34), "{name}: indentation {widest:?}");
            // Every node, and the file's root element.
            assert_eq!(
                text.matches("Node {").count() + text.matches("Model {").count(),
                DEPTH + 1
            );
        }
    }
}

#[test]
fn an_image_over_the_size_limits_fails_under_every_target_that_reads_it() {
    // A 69-byte PNG whose header declares 100,000 x 100,000 pixels: the default target
    // refused it, the Qt target copied it into maps/ and exited 0 (Qt would then try to
    // allocate 40 GB). One rule now: the asset fails under both. BMD1 names no images.
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    let big = png(100_000, 100_000);
    assert!(big.len() < 100, "{} bytes", big.len());
    std::fs::write(input.join("big.png"), &big).unwrap();
    Source {
        stem: "huge_map",
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: Some("big.png"),
    }
    .write(&input);
    Source {
        stem: "plain",
        mesh_name: "m",
        positions: &TRIANGLE,
        indices: None,
        image: None,
    }
    .write(&input);
    for (target, refused) in [("qtmesh", true), ("hmesh", true), ("bmd1", false)] {
        let output = work.path().join(format!("out-{target}"));
        let (o, _) = build_targets(&input, &output, &[target]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        let written = files_below(&output);
        assert!(output.join("assets.hman").is_file(), "{target}: {stderr}");
        if refused {
            assert_eq!(o.status.code(), Some(1), "{target}: {stderr}");
            assert!(
                stderr.contains("declared size 100000x100000 exceeds the limit"),
                "{target}: {stderr}"
            );
            assert!(
                !written
                    .iter()
                    .any(|p| p.to_string_lossy().contains("huge_map")),
                "{target}: {written:?}"
            );
        } else {
            assert!(o.status.success(), "{target}: {stderr}");
        }
        assert!(
            written
                .iter()
                .any(|p| p.to_string_lossy().starts_with("plain.")),
            "{target}: {written:?}"
        );
        let check = assetc(&["check", output.to_str().unwrap()]);
        assert!(check.status.success(), "{target}: check failed");
    }
}

// OBJ + MTL sources, fuzzed the same way: seeds written here (quads, polygons, negative
// indices, smoothing groups, several materials and maps, an image), mutated by line (a
// number made hostile, lines dropped, repeated or swapped) and by byte, the MTL as well as
// the OBJ; batches through `assetc build`, judged as above.

const OBJ_SEEDS: &[&str] = &[
    "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
     vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 -1\nvn 0 0 1\no Box\nusemtl Red\ns 1\n\
     f 1/1/1 4/4/1 3/3/1 2/2/1\nf 5/1/2 6/2/2 7/3/2 8/4/2\nusemtl Tex\ns off\n\
     f 1/1 2/2 6/3 5/4\nf -1/-1 -2/-2 -6/-3 -5/-4\ng Side\nf 2 3 7 6\nl 1 2 3\n",
    "mtllib m.mtl\nv 0 0 0\nv 2 0 0\nv 3 1 0\nv 2 2 0\nv 0 2 0\nv -1 1 0\nvt 0.5 0\n\
     vt 1 0.5\nvt 0.5 1\ng Hexagon\nusemtl Tex\nf 1/1 2/2 3/3 4/1 5/2 6/3\n\
     usemtl Missing\nf 1 3 5\n",
    "v 0 0 0 1\nv 1 0 0 0.5\nv 0 1 0 2\nv 0 0 1 1 0 0\nf 1 2 3\nf 1 3 4\nf 1 4 2\n",
];

const OBJ_MTL: &str = "newmtl Red\nKd 1 0 0\nNs 100\nd 0.5\nnewmtl Tex\nKd 1 1 1\nTr 0.1\n\
     map_Kd -s 1 1 1 tex.png\nmap_Bump -bm 0.5 tex.png\nmap_d tex.png\nPr 0.3\nPm 0.2\n";

/// One line-level mutation of OBJ or MTL text.
fn mutate_lines(rng: &mut Rng, text: &str, log: &mut Vec<String>) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    let l = rng.below(lines.len());
    match rng.below(4) {
        0 => {
            let words: Vec<&str> = lines[l].split_whitespace().collect();
            if words.len() > 1 {
                let w = 1 + rng.below(words.len() - 1);
                let hostile = [
                    "0",
                    "-1",
                    "-99999",
                    "2147483648",
                    "99999999999999999999",
                    "1e30",
                    "-1e38",
                    "nan",
                    "inf",
                    "1/0/0",
                    "1//",
                    "/1",
                    "1/2/3/4",
                    "",
                    "x",
                ][rng.below(15)];
                let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                words[w] = hostile.to_string();
                log.push(format!("line {}: word {w} = {hostile:?}", l + 1));
                lines[l] = words.join(" ");
            }
        }
        1 => {
            lines.remove(l);
            log.push(format!("drop line {}", l + 1));
        }
        2 => {
            let copies = 1 + rng.below(3);
            for _ in 0..copies {
                lines.insert(l, lines[l].clone());
            }
            log.push(format!("repeat line {} {copies} times", l + 1));
        }
        _ => {
            let m = rng.below(lines.len());
            lines.swap(l, m);
            log.push(format!("swap lines {} and {}", l + 1, m + 1));
        }
    }
    lines.join("\n") + "\n"
}

fn mutate_text(rng: &mut Rng, text: &str, log: &mut Vec<String>) -> Vec<u8> {
    let mut out = text.to_string();
    for _ in 0..1 + rng.below(3) {
        out = mutate_lines(rng, &out, log);
    }
    let mut bytes = out.into_bytes();
    if rng.chance(25) {
        mutate_bytes(rng, &mut bytes, log);
    }
    bytes
}

#[test]
fn mutated_obj_sources_never_crash_the_build_or_write_invalid_output() {
    let seed = env_number("ASSETC_FUZZ_SEED", 14);
    let total = env_number("ASSETC_FUZZ_OBJ_CASES", 400) as usize;
    let mut rng = Rng(seed ^ 0x0b1);
    let work = tempfile::tempdir().unwrap();
    let config = fuzz_settings(work.path());
    // A real PNG for the maps: 2x2 RGBA.
    let mut png = Vec::new();
    image::RgbaImage::from_pixel(2, 2, image::Rgba([200, 100, 50, 128]))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let mut failures = Vec::new();
    let mut built = 0;
    for batch in 0..total.div_ceil(CASES_PER_BATCH) {
        let input = work.path().join(format!("obj_in{batch}"));
        let output = work.path().join(format!("obj_out{batch}"));
        let mut cases = Vec::new();
        for n in 0..CASES_PER_BATCH {
            // Each case in its own folder, with its own (maybe mutated) MTL.
            let dir = input.join(format!("c{}", batch * CASES_PER_BATCH + n));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("tex.png"), &png).unwrap();
            let s = rng.below(OBJ_SEEDS.len());
            let mut log = Vec::new();
            let obj = mutate_text(&mut rng, OBJ_SEEDS[s], &mut log);
            let mtl = if rng.chance(30) {
                log.push("MTL:".into());
                mutate_text(&mut rng, OBJ_MTL, &mut log)
            } else {
                OBJ_MTL.as_bytes().to_vec()
            };
            std::fs::write(dir.join("m.mtl"), mtl).unwrap();
            std::fs::write(dir.join("model.obj"), obj).unwrap();
            cases.push(Case {
                rel: format!("c{}/model.obj", batch * CASES_PER_BATCH + n),
                seed_file: PathBuf::from(format!("OBJ_SEEDS[{s}]")),
                mutation: log.join("; "),
            });
        }
        let o = build(&input, &output, &config);
        built += String::from_utf8_lossy(&o.stdout)
            .matches("\"status\":\"built\"")
            .count();
        let problems = judge(&o, &output);
        if !problems.is_empty() {
            let named = culprits(&cases, &input, &config);
            failures.push(format!(
                "seed {seed}, OBJ batch {batch}: {}\n  {}",
                problems.join(" | "),
                named.join("\n  ")
            ));
        }
        let _ = std::fs::remove_dir_all(&input);
        let _ = std::fs::remove_dir_all(&output);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{built} of {total} mutated OBJ cases built");
    assert!(
        built * 10 >= total,
        "only {built} of {total} OBJ cases built: the mutations are too destructive"
    );
}
