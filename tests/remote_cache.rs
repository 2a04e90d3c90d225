//! The shared remote cache against real servers (nginx's WebDAV module and redis-server),
//! each started here on a free 127.0.0.1 port with its own temporary root and stopped at
//! the end: a second machine fetches the corpus instead of compiling it, a corrupted blob
//! is caught and rebuilt, a server stopped mid-build costs one warning and no output, and
//! two shards plus a final build give the tree of a full build.

mod common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A server process, killed (and waited for) when dropped.
struct Server {
    child: Child,
    port: u16,
    /// Its configuration and data; removed after the process.
    dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("root")
    }
}

/// A port for one server (or for nothing to listen on), unique within this test binary
/// and below the kernel's ephemeral range (32768 and up on Linux). Ports from `bind(0)`
/// come from that range: a connection's own source port can take one between our check
/// and the server's start (seen in CI as a server that never answered), and a connect
/// loop to such a port can even connect to itself. Outside the range neither happens.
fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    // Spread over the range by process id, so two test binaries run side by side
    // (cargo runs them one after another, nextest does not) rarely start on one port.
    let spread = (std::process::id() % 500) as u16 * 20;
    for _ in 0..1_000 {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed) % 12_000;
        let port = 20_000 + (spread + offset) % 12_000;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port on 127.0.0.1 between 20000 and 32000");
}

/// Waits until the server `child` answers `hello` on `port` with a reply starting with
/// `expect`: a bare connect could reach some other process, or nothing of ours.
fn wait_for_server(port: u16, child: &mut Child, name: &str, hello: &[u8], expect: &[u8]) {
    use std::io::{Read, Write};
    let start = Instant::now();
    let answers = || -> std::io::Result<bool> {
        let mut stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        stream.write_all(hello)?;
        let mut reply = vec![0u8; expect.len()];
        stream.read_exact(&mut reply)?;
        Ok(reply == expect)
    };
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{name} exited before answering on 127.0.0.1:{port}: {status}");
        }
        if matches!(answers(), Ok(true)) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{name} does not answer on 127.0.0.1:{port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// nginx with WebDAV PUT (Debian's nginx-light), serving a fresh folder.
fn start_webdav(test: &str) -> Option<Server> {
    let Some(nginx) = tool("ASSETC_NGINX", "nginx", &["/usr/sbin"]) else {
        missing(test, "nginx (Debian package nginx-light)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::fs::create_dir_all(dir.path().join("root")).unwrap();
    let port = free_port();
    let conf = format!(
        "worker_processes 1;\ndaemon off;\nmaster_process off;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log;\nevents {{ worker_connections 256; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n\
         proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
         uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
         server {{\n    listen 127.0.0.1:{port};\n    root {d}/root;\n\
         client_max_body_size 0;\n    location / {{ dav_methods PUT DELETE; \
         create_full_put_path on; }}\n  }}\n}}\n"
    );
    let conf_path = dir.path().join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let mut child = Command::new(nginx)
        .arg("-p")
        .arg(dir.path())
        .arg("-c")
        .arg(&conf_path)
        .arg("-e")
        .arg(dir.path().join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nginx");
    wait_for_server(
        port,
        &mut child,
        "nginx",
        b"HEAD / HTTP/1.0\r\n\r\n",
        b"HTTP/1.1 ",
    );
    Some(Server { child, port, dir })
}

/// redis-server keeping everything in memory.
fn start_redis(test: &str) -> Option<Server> {
    let Some(redis) = tool("ASSETC_REDIS_SERVER", "redis-server", &["/usr/bin"]) else {
        missing(test, "redis-server (Debian package redis-server)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut child = Command::new(redis)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .arg("--dir")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    wait_for_server(port, &mut child, "redis-server", b"PING\r\n", b"+PONG");
    Some(Server { child, port, dir })
}

/// What one JSON build said.
struct Run {
    finished: Value,
    statuses: Vec<(String, String)>,
    remote_warnings: Vec<String>,
    code: Option<i32>,
}

impl Run {
    fn count(&self, key: &str) -> u64 {
        self.finished[key].as_u64().unwrap_or(u64::MAX)
    }
    fn with_status(&self, status: &str) -> Vec<&str> {
        self.statuses
            .iter()
            .filter(|(_, s)| s == status)
            .map(|(a, _)| a.as_str())
            .collect()
    }
}

/// Runs `assetc build --message-format json` with `args`; `on_line` sees each line as it
/// comes (to stop a server mid-build).
/// A build of `input` into `out` through the remote cache at `url`, plus `extra` arguments.
fn build_remote(input: &Path, out: &Path, url: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--remote-cache",
        url,
    ];
    args.extend_from_slice(extra);
    build_json(&args, |_| {})
}

fn build_json(args: &[&str], mut on_line: impl FnMut(&Value)) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args([
            "build",
            "--no-config",
            "--message-format",
            "json",
            "-j",
            "2",
        ])
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run assetc");
    let stdout = child.stdout.take().unwrap();
    let mut run = Run {
        finished: Value::Null,
        statuses: Vec::new(),
        remote_warnings: Vec::new(),
        code: None,
    };
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        on_line(&v);
        match v["reason"].as_str() {
            Some("asset-finished") => run.statuses.push((
                v["source"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )),
            Some("diagnostic") if v["diagnostic"]["code"] == "remote-cache" => run
                .remote_warnings
                .push(v["diagnostic"]["message"].as_str().unwrap().to_string()),
            Some("build-finished") => run.finished = v,
            _ => {}
        }
    }
    let out = child.wait_with_output().unwrap();
    run.code = out.status.code();
    assert_eq!(
        run.code,
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    run
}

/// Every file of an output tree but the local cache (its stamps hold times).
fn output_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    tree(root)
        .into_iter()
        .filter(|(rel, _)| rel != ".assetc-cache.json")
        .collect()
}

fn assert_same_tree(got: &Path, want: &[(String, Vec<u8>)], what: &str) {
    let got = output_tree(got);
    let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&got), names(want), "{what}: other files");
    for ((name, a), (_, b)) in got.iter().zip(want) {
        assert!(a == b, "{what}: {name} differs");
    }
}

/// The corpus built once without any remote: the tree every other build must equal.
fn reference(corpus: &Path) -> &'static [(String, Vec<u8>)] {
    static TREE: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    TREE.get_or_init(|| {
        let out = tempfile::tempdir().unwrap();
        let input = corpus.join("gltf");
        build_json(
            &[input.to_str().unwrap(), "-o", out.path().to_str().unwrap()],
            |_| {},
        );
        output_tree(out.path())
    })
}

fn corpus_sources(corpus: &Path) -> u64 {
    gltf_files(&corpus.join("gltf")).len() as u64
}

#[test]
fn a_second_machine_fetches_everything_and_a_corrupted_blob_is_rebuilt() {
    let test = "a_second_machine_fetches_everything_and_a_corrupted_blob_is_rebuilt";
    let Some(corpus) = corpus(test) else { return };
    let Some(server) = start_webdav(test) else {
        return;
    };
    let url = format!("http://127.0.0.1:{}/team-cache", server.port);
    let n = corpus_sources(&corpus);
    let work = tempfile::tempdir().unwrap();

    // Machine A: builds everything and uploads it.
    let input_a = corpus.join("gltf");
    let out_a = work.path().join("a");
    let a = build_remote(&input_a, &out_a, &url, &[]);
    assert_eq!((a.count("built"), a.count("fetched")), (n, 0));
    assert!(a.count("uploaded_bytes") > 0);
    assert!(a.remote_warnings.is_empty(), "{:?}", a.remote_warnings);
    let tree_a = output_tree(&out_a);
    assert_eq!(
        tree_a,
        reference(&corpus),
        "the remote does not change what A writes"
    );

    // Machine B: the sources checked out elsewhere, an empty output, no local cache.
    let input_b = work.path().join("checkout/gltf");
    copy_dir(&input_a, &input_b);
    let out_b = work.path().join("b");
    let b = build_remote(&input_b, &out_b, &url, &[]);
    assert_eq!(
        (
            b.count("built"),
            b.count("fetched"),
            b.count("textures_encoded")
        ),
        (0, n, 0),
        "B compiles nothing: {:?}",
        b.statuses
    );
    assert_eq!(b.count("uploaded_bytes"), 0);
    let tree_bytes: u64 = tree_a.iter().map(|(_, b)| b.len() as u64).sum();
    assert!(
        b.count("fetched_bytes") >= tree_bytes - 200_000,
        "B read every output file: {} of {tree_bytes} bytes",
        b.count("fetched_bytes")
    );
    assert_same_tree(&out_b, &tree_a, "B's tree");
    // B's local cache took the fetched assets: a second build there is all fresh.
    let again = build_remote(&input_b, &out_b, &url, &[]);
    assert_eq!((again.count("fresh"), again.count("fetched_bytes")), (n, 0));

    // Damage one asset's .hmesh blob on the server (same size, one byte flipped).
    let (victim, blob) = hmesh_blob(&server.data(), &tree_a);
    let good = std::fs::read(&blob).unwrap();
    let mut bad = good.clone();
    let middle = bad.len() / 2;
    bad[middle] ^= 0xff;
    std::fs::write(&blob, &bad).unwrap();
    let out_c = work.path().join("c");
    let c = build_remote(&input_b, &out_c, &url, &[]);
    assert_eq!(c.with_status("built").len(), 1, "{:?}", c.statuses);
    assert_eq!(c.count("fetched"), n - 1);
    assert_eq!(c.remote_warnings.len(), 1, "{:?}", c.remote_warnings);
    assert!(
        c.remote_warnings[0].contains("digest mismatch"),
        "{:?}",
        c.remote_warnings
    );
    assert_same_tree(&out_c, &tree_a, "the tree after a corrupted blob");
    assert!(
        output_tree(&out_c).iter().any(|(name, _)| *name == victim),
        "{victim} rebuilt"
    );
    assert_eq!(
        std::fs::read(&blob).unwrap(),
        good,
        "the rebuilt asset was uploaded again, repairing the blob"
    );

    // A blob the server refuses to serve (a folder in its place: 403, not 404) is a
    // failure, not a miss: one warning, the remote off, everything else built here.
    std::fs::remove_file(&blob).unwrap();
    std::fs::create_dir(&blob).unwrap();
    let out_d = work.path().join("d");
    let d = build_remote(&input_b, &out_d, &url, &[]);
    assert_eq!(d.remote_warnings.len(), 1, "{:?}", d.remote_warnings);
    assert!(
        d.remote_warnings[0].contains("does not use the remote cache"),
        "{:?}",
        d.remote_warnings
    );
    assert!(d.with_status("built").contains(&victim_source(&c)));
    assert_eq!(d.count("built") + d.count("fetched"), n);
    assert_eq!(d.count("uploaded_bytes"), 0, "the remote is off");
    assert_same_tree(&out_d, &tree_a, "the tree with a refused blob");
}

/// The source C rebuilt (the one whose blob was damaged).
fn victim_source(c: &Run) -> &str {
    c.with_status("built")[0]
}

/// A `.hmesh` of A's tree (output path) and the file that holds its blob on the server.
fn hmesh_blob(server_root: &Path, tree_a: &[(String, Vec<u8>)]) -> (String, PathBuf) {
    let (name, bytes) = tree_a
        .iter()
        .find(|(name, _)| name.ends_with(".hmesh"))
        .expect("an .hmesh in the tree");
    let hex = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
    let blob = server_root
        .join("team-cache/assetc/v1/blob")
        .join(&hex[..2])
        .join(&hex);
    assert!(blob.is_file(), "{} on the server", blob.display());
    (name.clone(), blob)
}

#[test]
fn a_server_stopped_mid_build_costs_one_warning_and_nothing_else() {
    let test = "a_server_stopped_mid_build_costs_one_warning_and_nothing_else";
    let Some(corpus) = corpus(test) else { return };
    let Some(mut server) = start_redis(test) else {
        return;
    };
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    let out = tempfile::tempdir().unwrap();
    let input = corpus.join("gltf");
    // The lookups (all misses) are done before the first asset finishes; the uploads
    // come after the last: stopping the server at the first asset lands in between.
    let mut stopped = false;
    let run = build_json(
        &[
            input.to_str().unwrap(),
            "-o",
            out.path().to_str().unwrap(),
            "--remote-cache",
            &url,
        ],
        |v| {
            if !stopped && v["reason"] == "asset-finished" {
                server.stop();
                stopped = true;
            }
        },
    );
    assert!(stopped);
    assert_eq!(run.count("built"), corpus_sources(&corpus));
    assert_eq!(run.remote_warnings.len(), 1, "{:?}", run.remote_warnings);
    assert!(
        run.remote_warnings[0].contains("does not use the remote cache"),
        "{:?}",
        run.remote_warnings
    );
    assert_same_tree(
        out.path(),
        reference(&corpus),
        "the tree without its server",
    );
}

#[test]
fn two_shards_and_a_final_build_equal_a_full_build() {
    let test = "two_shards_and_a_final_build_equal_a_full_build";
    let Some(corpus) = corpus(test) else { return };
    let Some(server) = start_redis(test) else {
        return;
    };
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    let input = corpus.join("gltf");
    let work = tempfile::tempdir().unwrap();
    let n = corpus_sources(&corpus);
    let mut built = Vec::new();
    for shard in ["1/2", "2/2"] {
        let out = work.path().join(shard.replace('/', "-of-"));
        let run = build_remote(&input, &out, &url, &["--shard", shard]);
        assert!(run.count("built") > 0, "shard {shard} built nothing");
        assert!(
            !out.join("assets.hman").exists(),
            "a shard writes no manifest"
        );
        built.extend(run.with_status("built").iter().map(|s| s.to_string()));
    }
    built.sort();
    let before = built.len();
    built.dedup();
    assert_eq!(
        (before, built.len() as u64),
        (n as usize, n),
        "each source in exactly one shard"
    );
    let out = work.path().join("final");
    let run = build_remote(&input, &out, &url, &[]);
    assert_eq!((run.count("built"), run.count("fetched")), (0, n));
    assert_same_tree(&out, reference(&corpus), "shards + final build");
    // --no-cache rebuilds everything: it fetches nothing.
    let run = build_remote(&input, &out, &url, &["--no-cache"]);
    assert_eq!((run.count("built"), run.count("fetched")), (n, 0));
    assert_same_tree(&out, reference(&corpus), "--no-cache with a remote");
}

#[test]
fn bad_remote_flags_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let input = samples();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "build",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.push("--no-config");
        args.extend_from_slice(extra);
        assetc(&args)
    };
    for (extra, words) in [
        (
            &["--remote-cache", "ftp://host/x"][..],
            "unsupported scheme `ftp`",
        ),
        (&["--shard", "1/2"][..], "--shard needs a remote cache"),
        (
            &[
                "--shard",
                "1/2",
                "--remote-cache",
                "redis://127.0.0.1:1/0",
                "--remote-cache-mode",
                "read",
            ][..],
            "--shard needs a remote cache",
        ),
        (
            &["--shard", "3/2", "--remote-cache", "redis://127.0.0.1:1/0"][..],
            "expected I/N",
        ),
    ] {
        let o = run(extra);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {stderr}");
        assert!(stderr.contains(words), "{extra:?}: {stderr}");
        assert!(!out.exists(), "{extra:?} wrote output");
    }
}

#[test]
fn an_unreachable_server_costs_one_warning_and_the_build_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("local");
    build_json(
        &[samples().to_str().unwrap(), "-o", local.to_str().unwrap()],
        |_| {},
    );
    // A port nothing listens on: the connection is refused.
    let port = free_port();
    for url in [
        format!("http://127.0.0.1:{port}/cache"),
        format!("redis://127.0.0.1:{port}/0"),
    ] {
        let out = dir.path().join(url.split(':').next().unwrap());
        let run = build_remote(&samples(), &out, &url, &[]);
        assert!(run.count("built") > 1);
        assert_eq!(
            run.remote_warnings.len(),
            1,
            "{url}: {:?}",
            run.remote_warnings
        );
        assert!(
            run.remote_warnings[0].contains(&format!("cannot connect to 127.0.0.1:{port}")),
            "{url}: {:?}",
            run.remote_warnings
        );
        assert_same_tree(&out, &output_tree(&local), "the tree without a server");
    }
}

#[test]
fn build_toml_names_the_remote_and_no_remote_cache_ignores_it() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens there: using it costs exactly one warning.
    let port = free_port();
    std::fs::write(
        dir.path().join("build.toml"),
        format!("[cache]\nremote = \"redis://127.0.0.1:{port}/0\"\nmode = \"read\"\n"),
    )
    .unwrap();
    let input = samples();
    let warnings = |extra: &[&str]| {
        let mut args = vec![
            "build",
            input.to_str().unwrap(),
            "-o",
            "out",
            "--message-format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = assetc_in(dir.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{extra:?}");
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.contains("\"remote-cache\""))
            .count()
    };
    assert_eq!(warnings(&[]), 1, "build.toml's remote is used");
    assert_eq!(warnings(&["--no-remote-cache"]), 0);
}

/// A tree of the standalone kinds found by name (the builds here run with `--no-config`,
/// so no `embed` glob): a texture, a cubemap folder and a LUT.
fn standalone_tree(root: &Path) {
    let png = |rgba: [u8; 4], side: u32| {
        let mut bytes = Vec::new();
        image::RgbaImage::from_pixel(side, side, image::Rgba(rgba))
            .write_to(
                &mut std::io::Cursor::new(&mut bytes),
                image::ImageFormat::Png,
            )
            .unwrap();
        bytes
    };
    std::fs::create_dir_all(root.join("sky.env")).unwrap();
    for (i, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        std::fs::write(
            root.join(format!("sky.env/{face}.png")),
            png([40 * i as u8, 9, 9, 255], 8),
        )
        .unwrap();
    }
    std::fs::write(root.join("icon.png"), png([200, 100, 50, 255], 16)).unwrap();
    let mut lut = String::from("LUT_3D_SIZE 2\n");
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                lut += &format!("{r} {g} {b}\n");
            }
        }
    }
    std::fs::write(root.join("grade.lut.cube"), lut).unwrap();
}

#[test]
fn standalone_kinds_go_through_the_remote_and_a_changed_face_rebuilds_only_its_cube() {
    let test = "standalone_kinds_go_through_the_remote_and_a_changed_face_rebuilds_only_its_cube";
    let Some(server) = start_webdav(test) else {
        return;
    };
    let url = format!("http://127.0.0.1:{}/kinds", server.port);
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("in");
    standalone_tree(&input);
    let (out_a, out_b) = (work.path().join("a"), work.path().join("b"));
    let a = build_remote(&input, &out_a, &url, &[]);
    assert_eq!((a.count("built"), a.count("fetched")), (3, 0));
    let b = build_remote(&input, &out_b, &url, &[]);
    assert_eq!(
        (b.count("built"), b.count("fetched")),
        (0, 3),
        "{:?}",
        b.statuses
    );
    assert_same_tree(&out_b, &output_tree(&out_a), "machine B");

    // A face is an input of the cube: editing it rebuilds the cube alone, locally, and
    // the remote has no record for the new content.
    let mut face = image::open(input.join("sky.env/nz.png"))
        .unwrap()
        .to_rgba8();
    face.put_pixel(0, 0, image::Rgba([1, 2, 3, 255]));
    face.save(input.join("sky.env/nz.png")).unwrap();
    let c = build_remote(&input, &out_a, &url, &[]);
    assert_eq!(c.with_status("built"), ["sky.env"], "{:?}", c.statuses);
    assert_eq!(c.count("fresh"), 2);
    // A face added beside the six changes the folder: the cube is keyed anew (and the
    // extra file is no face, so the output is the same as before it).
    std::fs::write(input.join("sky.env/notes.txt"), "x").unwrap();
    let d = build_remote(&input, &out_a, &url, &[]);
    assert_eq!(d.with_status("built"), ["sky.env"], "{:?}", d.statuses);
}
