//! The shared remote cache against real servers (nginx's WebDAV module and redis-server),
//! each started here on a free 127.0.0.1 port with its own temporary root and stopped at
//! the end: a second machine fetches the corpus instead of compiling it, a corrupted blob
//! is caught and rebuilt, a server stopped mid-build costs one warning and no output, and
//! two shards plus a final build give the tree of a full build; over TLS (HTTPS WebDAV,
//! `rediss://`), servers signed by a private CA are trusted through the system's roots.

use crate::common;

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
    start_webdav_with(test, None)
}

/// [`start_webdav`], over HTTPS with `tls`' server certificate when given.
fn start_webdav_with(test: &str, tls: Option<&Certs>) -> Option<Server> {
    let Some(nginx) = tool("ASSETC_NGINX", "nginx", &["/usr/sbin"]) else {
        missing(test, "nginx (Debian package nginx-light)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::fs::create_dir_all(dir.path().join("root")).unwrap();
    let port = free_port();
    let (ssl, certificate) = match tls {
        Some(c) => (
            " ssl",
            format!(
                "    ssl_certificate {};\n    ssl_certificate_key {};\n",
                c.cert().display(),
                c.key().display()
            ),
        ),
        None => ("", String::new()),
    };
    let conf = format!(
        "worker_processes 1;\ndaemon off;\nmaster_process off;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log;\nevents {{ worker_connections 256; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n\
         proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
         uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
         server {{\n    listen 127.0.0.1:{port}{ssl};\n{certificate}    root {d}/root;\n\
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
    start_redis_with(test, None)
}

/// [`start_redis`]; with `tls`, its port speaks TLS with that server certificate (and a
/// second, plain port serves only to see that the server is up: PING has no TLS).
fn start_redis_with(test: &str, tls: Option<&Certs>) -> Option<Server> {
    let Some(redis) = tool("ASSETC_REDIS_SERVER", "redis-server", &["/usr/bin"]) else {
        missing(test, "redis-server (Debian package redis-server)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut command = Command::new(redis);
    command
        .args(["--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .arg("--dir")
        .arg(dir.path());
    let plain = match tls {
        None => port,
        Some(c) => {
            command
                .args(["--tls-port", &port.to_string(), "--tls-auth-clients", "no"])
                .arg("--tls-cert-file")
                .arg(c.cert())
                .arg("--tls-key-file")
                .arg(c.key())
                .arg("--tls-ca-cert-file")
                .arg(c.ca());
            free_port()
        }
    };
    let mut child = command
        .args(["--port", &plain.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server");
    wait_for_server(plain, &mut child, "redis-server", b"PING\r\n", b"+PONG");
    Some(Server { child, port, dir })
}

/// What one JSON build said.
struct Run {
    finished: Value,
    statuses: Vec<(String, String)>,
    remote_warnings: Vec<String>,
    /// The warnings of each finished asset, as sent.
    warnings: Vec<(String, Vec<String>)>,
    code: Option<i32>,
    stderr: String,
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

fn build_json(args: &[&str], on_line: impl FnMut(&Value)) -> Run {
    let run = build_json_any(args, on_line);
    assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
    run
}

/// [`build_json`] whatever its exit code.
fn build_json_any(args: &[&str], on_line: impl FnMut(&Value)) -> Run {
    build_json_env(args, &[], on_line)
}

/// [`build_json_any`] with these environment variables set for assetc.
fn build_json_env(args: &[&str], env: &[(&str, &Path)], mut on_line: impl FnMut(&Value)) -> Run {
    // A test that names a build.toml does not want it ignored.
    let config = if args.contains(&"--config") {
        None
    } else {
        Some("--no-config")
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build"])
        .args(config)
        .args(["--message-format", "json", "-j", "2"])
        .args(args)
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run assetc");
    let stdout = child.stdout.take().unwrap();
    let mut run = Run {
        finished: Value::Null,
        statuses: Vec::new(),
        remote_warnings: Vec::new(),
        warnings: Vec::new(),
        code: None,
        stderr: String::new(),
    };
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        on_line(&v);
        match v["reason"].as_str() {
            Some("asset-finished") => {
                let source = v["source"].as_str().unwrap().to_string();
                let warnings = v["warnings"].as_array().into_iter().flatten();
                run.warnings.push((
                    source.clone(),
                    warnings
                        .filter_map(|w| w.as_str().map(String::from))
                        .collect(),
                ));
                run.statuses
                    .push((source, v["status"].as_str().unwrap().to_string()));
            }
            Some("diagnostic") if v["diagnostic"]["code"] == "remote-cache" => run
                .remote_warnings
                .push(v["diagnostic"]["message"].as_str().unwrap().to_string()),
            Some("build-finished") => run.finished = v,
            _ => {}
        }
    }
    let out = child.wait_with_output().unwrap();
    run.code = out.status.code();
    run.stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    run
}

/// Every file of an output tree but the local cache (its stamps hold times).
fn output_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    tree(root)
        .into_iter()
        .filter(|(rel, _)| rel != assetc::output::CACHE_NAME)
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

/// Machine A has built the samples into a WebDAV cache; the tests below tamper with what
/// it stored, straight in the server's data folder, and build on machine B.
struct Team {
    server: Server,
    url: String,
    work: tempfile::TempDir,
    input: PathBuf,
    tree_a: Vec<(String, Vec<u8>)>,
}

impl Team {
    fn new(test: &str) -> Option<Team> {
        let server = start_webdav(test)?;
        let url = format!("http://127.0.0.1:{}/hostile", server.port);
        let work = tempfile::tempdir().unwrap();
        let input = work.path().join("in");
        copy_dir(&samples(), &input);
        let out_a = work.path().join("a");
        let a = build_remote(&input, &out_a, &url, &[]);
        assert!(a.count("built") > 2, "{:?}", a.statuses);
        let tree_a = output_tree(&out_a);
        Some(Team {
            server,
            url,
            work,
            input,
            tree_a,
        })
    }

    fn store(&self) -> PathBuf {
        self.server.data().join("hostile/assetc/v1")
    }

    /// The output record (file and JSON) of the asset that writes `output`.
    fn record_of(&self, output: &str) -> (PathBuf, Value) {
        for entry in std::fs::read_dir(self.store().join("rec"))
            .unwrap()
            .flatten()
        {
            let v: Value = serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
            if v["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["path"] == output)
            {
                return (entry.path(), v);
            }
        }
        panic!("no record writes {output}");
    }

    /// The deps record listing `input`.
    fn deps_listing(&self, input: &str) -> PathBuf {
        for entry in std::fs::read_dir(self.store().join("deps"))
            .unwrap()
            .flatten()
        {
            let v: Value = serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
            if v["inputs"].as_array().unwrap().iter().any(|i| i == input) {
                return entry.path();
            }
        }
        panic!("no deps record lists {input}");
    }

    /// A build on machine B (read only: the server keeps what the test put there) into a
    /// new output folder.
    fn build_b(&self, name: &str, extra: &[&str]) -> (Run, PathBuf) {
        let out = self.work.path().join(name);
        let mut args = vec!["--remote-cache-mode", "read"];
        args.extend_from_slice(extra);
        (build_remote(&self.input, &out, &self.url, &args), out)
    }

    /// Builds on B with the record of `output`'s asset changed by `tamper`, then puts the
    /// record back; checks that exactly that asset was built here, with one warning that
    /// contains `words`, and that B's tree is A's and passes `assetc check`.
    fn tampered(&self, case: &str, output: &str, words: &str, tamper: impl FnOnce(&mut Value)) {
        let (path, good) = self.record_of(output);
        let mut bad = good.clone();
        tamper(&mut bad);
        std::fs::write(&path, serde_json::to_vec(&bad).unwrap()).unwrap();
        let (b, out) = self.build_b(case, &[]);
        std::fs::write(&path, serde_json::to_vec(&good).unwrap()).unwrap();
        let victim = source_writing(&self.input, output);
        assert_eq!(
            b.with_status("built"),
            [victim.as_str()],
            "{case}: {:?}",
            b.statuses
        );
        assert_eq!(
            b.remote_warnings.len(),
            1,
            "{case}: {:?}",
            b.remote_warnings
        );
        let w = &b.remote_warnings[0];
        assert!(w.contains(&victim) && w.contains(words), "{case}: {w}");
        assert_same_tree(&out, &self.tree_a, case);
        let check = assetc(&["check", out.to_str().unwrap()]);
        assert!(
            check.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
}

/// The sample source whose outputs include `output` (`box/box.hmesh` -> `box/box.gltf`).
fn source_writing(input: &Path, output: &str) -> String {
    let stem = output.rsplit_once('.').unwrap().0;
    for (rel, _) in tree(input) {
        if rel
            .to_lowercase()
            .rsplit_once('.')
            .is_some_and(|(s, e)| s == stem && (e == "gltf" || e == "glb"))
        {
            return rel;
        }
    }
    panic!("no source writes {output}");
}

fn blob_file(store: &Path, bytes: &[u8]) -> PathBuf {
    let hex = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
    store.join("blob").join(&hex[..2]).join(&hex)
}

#[test]
fn manifest_paths_of_a_record_are_checked_like_its_files() {
    let test = "manifest_paths_of_a_record_are_checked_like_its_files";
    let Some(team) = Team::new(test) else { return };
    // Each would make the build read that path to stamp the manifest (`/dev/zero`
    // without end). The missing ones first: without the check they fail the build at
    // once.
    for (i, bad) in ["../../x", "/abs/path", "/dev/zero"].iter().enumerate() {
        team.tampered(&format!("m{i}"), "box/box.hmesh", "malformed", |v| {
            v["manifest"][0]["path"] = Value::from(*bad);
        });
    }
}

#[test]
fn an_input_listed_by_a_record_that_leads_outside_the_root_is_not_read() {
    let test = "an_input_listed_by_a_record_that_leads_outside_the_root_is_not_read";
    let Some(team) = Team::new(test) else { return };
    // B's image is a symlink to a copy outside the input folder: same bytes, so the keys
    // match and the record is found; the importer would refuse to read it.
    let outside = team.work.path().join("outside/checker.png");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    let image = team.input.join("box/checker.png");
    std::fs::rename(&image, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &image).unwrap();
    let out = team.work.path().join("b");
    let b = build_json_any(
        &[
            team.input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--remote-cache",
            &team.url,
            "--remote-cache-mode",
            "read",
        ],
        |_| {},
    );
    assert!(
        !b.with_status("fetched").contains(&"box/box.gltf"),
        "{:?}",
        b.statuses
    );
    assert!(
        b.remote_warnings
            .iter()
            .any(|w| w.contains("box/box.gltf") && w.contains("outside the input root")),
        "{:?}",
        b.remote_warnings
    );
    assert_eq!(
        b.count("fetched"),
        b.statuses.len() as u64 - 1,
        "{:?}",
        b.statuses
    );
}

#[test]
fn one_bad_record_costs_its_asset_a_rebuild_never_the_build() {
    let test = "one_bad_record_costs_its_asset_a_rebuild_never_the_build";
    let Some(team) = Team::new(test) else { return };
    // A manifest entry for a file the record does not carry.
    team.tampered("unlisted", "box/box.hmesh", "does not carry", |v| {
        let mut extra = v["manifest"][0].clone();
        extra["path"] = Value::from("box/other.hmesh");
        v["manifest"].as_array_mut().unwrap().push(extra);
    });
    // A backslash path, in the files and the manifest alike.
    team.tampered("backslash", "box/box.hmesh", "malformed", |v| {
        for list in ["files", "manifest"] {
            for f in v[list].as_array_mut().unwrap() {
                if f["path"] == "box/box.hmesh" {
                    f["path"] = Value::from("box\\box.hmesh");
                }
            }
        }
    });
    // Another asset's file, with a manifest entry that collides with that asset's.
    let (_, other) = team.record_of("strip.hmesh");
    team.tampered("collision", "box/box.hmesh", "strip.hmesh", |v| {
        let file = other["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == "strip.hmesh")
            .unwrap();
        let mut entry = other["manifest"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == "strip.hmesh")
            .unwrap()
            .clone();
        entry["srgb"] = Value::from(!entry["srgb"].as_bool().unwrap());
        v["files"].as_array_mut().unwrap().push(file.clone());
        v["manifest"].as_array_mut().unwrap().push(entry);
    });
    // A file where another asset writes into a folder (`box/`).
    team.tampered("folder", "strip.hmesh", "writes into a folder", |v| {
        let mut file = v["files"][0].clone();
        file["path"] = Value::from("box");
        v["files"].as_array_mut().unwrap().push(file);
    });
}

#[test]
fn a_fetched_asset_is_validated_as_a_whole_before_it_is_written() {
    let test = "a_fetched_asset_is_validated_as_a_whole_before_it_is_written";
    let Some(team) = Team::new(test) else { return };
    // A dropped manifest entry: the .hmat is not listed.
    team.tampered("dropped", "box/box.hmesh", "not listed", |v| {
        v["manifest"]
            .as_array_mut()
            .unwrap()
            .retain(|e| e["path"] != "box/box.hmat");
    });
    // A wrong-kind entry: the mesh registered as a texture.
    team.tampered("kind", "box/box.hmesh", "valid asset", |v| {
        for e in v["manifest"].as_array_mut().unwrap() {
            if e["path"] == "box/box.hmesh" {
                e["kind"] = Value::from(0);
            }
        }
    });
    // The valid .hmesh of another asset, whose material count is not the .hmat's.
    let count = |name: &str| {
        let bytes = &team.tree_a.iter().find(|(n, _)| n == name).unwrap().1;
        assetc::formats::hmesh::HMeshView::parse(bytes)
            .unwrap()
            .desc
            .material_count
    };
    let (victim, other) = team
        .tree_a
        .iter()
        .filter(|(n, _)| n.ends_with(".hmesh"))
        .flat_map(|(a, _)| {
            team.tree_a
                .iter()
                .filter(|(n, _)| n.ends_with(".hmesh"))
                .map(move |(b, _)| (a.clone(), b.clone()))
        })
        .find(|(a, b)| count(a) != count(b))
        .expect("two samples with different material counts");
    let other_bytes = team
        .tree_a
        .iter()
        .find(|(n, _)| *n == other)
        .unwrap()
        .1
        .clone();
    team.tampered("swapped", &victim, "material slots", |v| {
        for f in v["files"].as_array_mut().unwrap() {
            if f["path"] == victim.as_str() {
                f["size"] = Value::from(other_bytes.len());
                f["digest"] = Value::from(format!(
                    "{:032x}",
                    xxhash_rust::xxh3::xxh3_128(&other_bytes)
                ));
            }
        }
    });
}

#[test]
fn warnings_from_a_record_reach_the_terminal_escaped() {
    let test = "warnings_from_a_record_reach_the_terminal_escaped";
    let Some(team) = Team::new(test) else { return };
    let (path, mut v) = team.record_of("box/box.hmesh");
    // Records hold warnings typed: both the place and the text come from another machine.
    v["warnings"] = serde_json::json!([{
        "at": "meshes[0]\u{1b}[2J",
        "message": "\u{1b}]0;owned\u{7}\u{1b}[2Jcleared",
    }]);
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let (b, _) = team.build_b("b", &[]);
    assert_eq!(b.count("fetched"), b.statuses.len() as u64);
    let (_, warnings) = b
        .warnings
        .iter()
        .find(|(s, _)| s == "box/box.gltf")
        .unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(!warnings[0].chars().any(char::is_control), "{warnings:?}");
    assert!(
        warnings[0].ends_with("meshes[0]\\u{1b}[2J: \\u{1b}]0;owned\\u{7}\\u{1b}[2Jcleared"),
        "{warnings:?}"
    );
    // And the human output prints it as sent.
    let out = team.work.path().join("human");
    let o = Command::new(env!("CARGO_BIN_EXE_assetc"))
        .args(["build", "--no-config", team.input.to_str().unwrap(), "-o"])
        .arg(&out)
        .args(["--remote-cache", &team.url, "--remote-cache-mode", "read"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(o.status.success());
    assert!(!o.stderr.contains(&0x1b) && !o.stdout.contains(&0x1b));
}

/// Max resident memory of the largest child this test process has waited for, in bytes.
fn children_max_rss() -> u64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss as u64 * 1024
}

/// A plain HTTP/1.1 server over `root` that lies about one file: `huge` is announced as
/// 20 GB and streamed as zeros (at most 1 GiB and 60 s, then it hangs up); or, with
/// `trickle`, sent as it is but one byte every 2 s (at most 60 s). It answers 64
/// connections at most.
fn start_liar(root: PathBuf, huge: String, trickle: bool) -> u16 {
    use std::io::{Read, Write};
    let port = free_port();
    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64).flatten() {
            let (root, huge) = (root.clone(), huge.clone());
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut request = String::new();
                    if reader.read_line(&mut request).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut body = 0u64;
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        if h == "\r\n" {
                            break;
                        }
                        if let Some(v) = h.to_ascii_lowercase().strip_prefix("content-length:") {
                            body = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let _ = std::io::copy(&mut (&mut reader).take(body), &mut std::io::sink());
                    let path = request.split_whitespace().nth(1).unwrap_or("/").to_string();
                    if path.ends_with(&huge) && trickle {
                        let bytes = std::fs::read(root.join(path.trim_start_matches('/'))).unwrap();
                        let head =
                            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", bytes.len());
                        let _ = out.write_all(head.as_bytes());
                        let started = Instant::now();
                        for byte in bytes.chunks(1) {
                            if out.write_all(byte).is_err()
                                || started.elapsed() > Duration::from_secs(60)
                            {
                                return;
                            }
                            std::thread::sleep(Duration::from_secs(2));
                        }
                        return;
                    }
                    if path.ends_with(&huge) {
                        let _ = out
                            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 20000000000\r\n\r\n");
                        let zeros = vec![0u8; 1 << 16];
                        let started = Instant::now();
                        let mut sent = 0u64;
                        while sent < 1 << 30 && started.elapsed() < Duration::from_secs(60) {
                            if out.write_all(&zeros).is_err() {
                                return;
                            }
                            sent += zeros.len() as u64;
                        }
                        return;
                    }
                    let reply = match std::fs::read(root.join(path.trim_start_matches('/'))) {
                        Ok(bytes) if request.starts_with("GET ") => {
                            let mut r = format!(
                                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                                bytes.len()
                            )
                            .into_bytes();
                            r.extend_from_slice(&bytes);
                            r
                        }
                        _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(),
                    };
                    if out.write_all(&reply).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn records_and_blobs_are_read_within_bounds() {
    let test = "records_and_blobs_are_read_within_bounds";
    // It asserts the peak memory of the builds it starts: alone in its process, so that no
    // other test's children count.
    if ran_alone_in_a_child(&format!("remote_cache::{test}"), false) {
        return;
    }
    let Some(team) = Team::new(test) else { return };
    let n = team
        .tree_a
        .iter()
        .filter(|(n, _)| n.ends_with(".hmesh"))
        .count() as u64;

    // A server announcing 20 GB for one blob and streaming zeros: that asset is built
    // here after reading no more than its record declares.
    let mesh = &team
        .tree_a
        .iter()
        .find(|(n, _)| n == "box/box.hmesh")
        .unwrap()
        .1;
    let blob = blob_file(&team.store(), mesh);
    let huge = blob.file_name().unwrap().to_str().unwrap().to_string();
    let port = start_liar(team.server.data(), huge, false);
    let out = team.work.path().join("liar");
    let started = Instant::now();
    let b = build_remote(
        &team.input,
        &out,
        &format!("http://127.0.0.1:{port}/hostile"),
        &["--remote-cache-mode", "read"],
    );
    let took = started.elapsed();
    assert_eq!(
        b.with_status("built"),
        ["box/box.gltf"],
        "{:?} {:?}",
        b.statuses,
        b.remote_warnings
    );
    assert_eq!(b.remote_warnings.len(), 1, "{:?}", b.remote_warnings);
    assert!(
        b.remote_warnings[0].contains("digest mismatch"),
        "{:?}",
        b.remote_warnings
    );
    assert_same_tree(&out, &team.tree_a, "after the liar");
    let rss = children_max_rss();
    eprintln!("liar: {took:?}, largest child {} MB", rss >> 20);
    assert!(rss < 700 << 20, "a child used {} MB", rss >> 20);
    assert!(took < Duration::from_secs(30), "{took:?}");

    // A record larger than 16 MiB is not parsed.
    let deps = team.deps_listing("box/checker.png");
    let good = std::fs::read(&deps).unwrap();
    let padded = format!("{{\"inputs\": [], \"pad\": \"{}\"}}", "x".repeat(17 << 20));
    std::fs::write(&deps, padded).unwrap();
    let (b, _) = team.build_b("big-record", &[]);
    std::fs::write(&deps, good).unwrap();
    assert_eq!(b.with_status("built"), ["box/box.gltf"], "{:?}", b.statuses);
    assert!(
        b.remote_warnings.len() == 1 && b.remote_warnings[0].contains("larger than 16777216 bytes"),
        "{:?}",
        b.remote_warnings
    );

    // `[cache] max_blob_bytes`: larger files are not fetched at all.
    let config = team.work.path().join("small.toml");
    std::fs::write(&config, "[cache]\nmax_blob_bytes = 100\n").unwrap();
    let (b, out) = team.build_b("small", &["--config", config.to_str().unwrap()]);
    assert_eq!(b.count("built"), n, "{:?}", b.statuses);
    assert_eq!(b.remote_warnings.len() as u64, n, "{:?}", b.remote_warnings);
    assert!(
        b.remote_warnings
            .iter()
            .all(|w| w.contains("more than max_blob_bytes (100)")),
        "{:?}",
        b.remote_warnings
    );
    assert_same_tree(&out, &team.tree_a, "with max_blob_bytes");
}

#[test]
fn a_trickling_blob_times_out_and_its_asset_is_built_here() {
    let test = "a_trickling_blob_times_out_and_its_asset_is_built_here";
    let Some(team) = Team::new(test) else { return };
    // One byte every 2 s passes the 10 s bound on each read; the whole body is bounded
    // by 30 s plus 1 s per MiB declared.
    let mesh = &team
        .tree_a
        .iter()
        .find(|(n, _)| n == "box/box.hmesh")
        .unwrap()
        .1;
    let blob = blob_file(&team.store(), mesh);
    let name = blob.file_name().unwrap().to_str().unwrap().to_string();
    let port = start_liar(team.server.data(), name, true);
    let out = team.work.path().join("slow");
    let started = Instant::now();
    let b = build_remote(
        &team.input,
        &out,
        &format!("http://127.0.0.1:{port}/hostile"),
        &["--remote-cache-mode", "read"],
    );
    let took = started.elapsed();
    eprintln!("trickle: {took:?}");
    assert_eq!(
        b.with_status("built"),
        ["box/box.gltf"],
        "{:?} {:?}",
        b.statuses,
        b.remote_warnings
    );
    assert!(
        b.remote_warnings.len() == 1 && b.remote_warnings[0].contains("arrives too slowly"),
        "{:?}",
        b.remote_warnings
    );
    assert!(took < Duration::from_secs(50), "{took:?}");
    assert_same_tree(&out, &team.tree_a, "after the trickle");
}

/// A font, a WGSL shader with two entry points and a 16-bit WAV: one source of each kind
/// the tree issue added after models and textures. `None` (a failure under CI) without
/// DejaVu Sans (see `common::dejavu`).
fn font_shader_sound_tree(test: &str, root: &Path) -> Option<()> {
    let font = dejavu(test)?;
    std::fs::create_dir_all(root.join("ui")).unwrap();
    std::fs::create_dir_all(root.join("sfx")).unwrap();
    std::fs::copy(&font, root.join("ui/sans.ttf")).unwrap();
    std::fs::write(
        root.join("tint.wgsl"),
        "@group(0) @binding(0) var<uniform> tint: vec4<f32>;\n\
         @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {\n\
         return vec4<f32>(f32(i), 0.0, 0.0, 1.0);\n}\n\
         @fragment fn fs() -> @location(0) vec4<f32> { return tint; }\n",
    )
    .unwrap();
    // 0.1 s of a 440 Hz tone, mono, 44.1 kHz, 16-bit PCM.
    let samples: Vec<i16> = (0..4410)
        .map(|i| ((i as f32 * 440.0 * std::f32::consts::TAU / 44100.0).sin() * 12000.0) as i16)
        .collect();
    let data: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    for field in [16u32, 1 | (1 << 16), 44100, 88200, 2 | (16 << 16)] {
        wav.extend_from_slice(&field.to_le_bytes());
    }
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data);
    std::fs::write(root.join("sfx/beep.wav"), wav).unwrap();
    Some(())
}

#[test]
fn fonts_shaders_and_sounds_go_through_shards_the_remote_and_the_depfile() {
    // The font, shader and audio kinds were tested through their own compile paths, not
    // through the build's loops: sharding, fetching from the remote, the depfile.
    let test = "fonts_shaders_and_sounds_go_through_shards_the_remote_and_the_depfile";
    let work = tempfile::tempdir().unwrap();
    let input = work.path().join("in");
    if font_shader_sound_tree(test, &input).is_none() {
        return;
    }
    let Some(server) = start_redis(test) else {
        return;
    };
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    // The reference: a plain local build, with its depfile.
    let local = work.path().join("local");
    let depfile = work.path().join("build.d");
    let run = build_json(
        &[
            input.to_str().unwrap(),
            "-o",
            local.to_str().unwrap(),
            "--emit-deps",
            depfile.to_str().unwrap(),
        ],
        |_| {},
    );
    assert_eq!(run.count("built"), 3, "{:?}", run.statuses);
    let deps = std::fs::read_to_string(&depfile).unwrap();
    for source in ["ui/sans.ttf", "tint.wgsl", "sfx/beep.wav"] {
        assert!(
            deps.contains(source),
            "{source} not in the depfile:\n{deps}"
        );
    }
    let reference = output_tree(&local);
    for file in [
        "ui/sans.hfont",
        "ui/sans.ktx2",
        "tint/vs.spv",
        "tint/fs.spv",
        "sfx/beep.wav",
    ] {
        assert!(
            reference.iter().any(|(name, _)| name == file),
            "{file} missing from {:?}",
            reference.iter().map(|(n, _)| n).collect::<Vec<_>>()
        );
    }

    let mut built = Vec::new();
    for shard in ["1/2", "2/2"] {
        let out = work.path().join(shard.replace('/', "-of-"));
        let run = build_remote(&input, &out, &url, &["--shard", shard]);
        built.extend(run.with_status("built").iter().map(|s| s.to_string()));
    }
    built.sort();
    assert_eq!(built, ["sfx/beep.wav", "tint.wgsl", "ui/sans.ttf"]);
    let out = work.path().join("final");
    let run = build_remote(&input, &out, &url, &[]);
    assert_eq!(
        (run.count("built"), run.count("fetched")),
        (0, 3),
        "{:?}",
        run.statuses
    );
    assert_same_tree(&out, &reference, "shards + final build");
    let check = assetc(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

/// A private certificate authority and a server certificate for 127.0.0.1 that it signed,
/// made with the openssl command: what a team that runs its own CA gives its servers.
struct Certs {
    dir: tempfile::TempDir,
}

impl Certs {
    fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
    fn cert(&self) -> PathBuf {
        self.dir.path().join("server.pem")
    }
    fn key(&self) -> PathBuf {
        self.dir.path().join("server.key")
    }
}

/// Makes [`Certs`] whose CA is called `ca_name` (P-256 keys: quick to make). The CA is
/// marked as one and the server certificate as a server's for IP 127.0.0.1, as rustls'
/// WebPKI checks require.
fn make_certs(test: &str, ca_name: &str) -> Option<Certs> {
    let Some(openssl) = tool("ASSETC_OPENSSL", "openssl", &["/usr/bin"]) else {
        missing(test, "the openssl command (Debian package openssl)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("openssl.cnf"),
        "[req]\nprompt = no\ndistinguished_name = dn\n[dn]\n\
         [ca_ext]\nbasicConstraints = critical, CA:TRUE\n\
         keyUsage = critical, keyCertSign, cRLSign\n\
         [server_ext]\nbasicConstraints = critical, CA:FALSE\n\
         keyUsage = critical, digitalSignature\nextendedKeyUsage = serverAuth\n\
         subjectAltName = IP:127.0.0.1\n",
    )
    .unwrap();
    let key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    let ca_subject = format!("/CN={ca_name}");
    let steps = [
        (
            format!("req -config openssl.cnf -x509 -extensions ca_ext {key} -keyout ca.key -out ca.pem -days 2"),
            Some(ca_subject.as_str()),
        ),
        (
            format!("req -config openssl.cnf -new {key} -keyout server.key -out server.csr"),
            Some("/CN=127.0.0.1"),
        ),
        (
            "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -set_serial 2 -days 2 \
             -extfile openssl.cnf -extensions server_ext -out server.pem"
                .to_string(),
            None,
        ),
    ];
    for (step, subject) in steps {
        let mut command = Command::new(&openssl);
        command
            .args(step.split_whitespace())
            .current_dir(dir.path());
        if let Some(s) = subject {
            command.args(["-subj", s]);
        }
        let o = command.output().expect("run openssl");
        assert!(
            o.status.success(),
            "openssl {step}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Some(Certs { dir })
}

/// The samples through a TLS remote cache at `url`, whose server certificate `certs`
/// signed. Trusting only `other`'s CA the handshake fails: one warning that names the
/// certificate, and a complete local build. Trusting `certs`' CA through SSL_CERT_FILE
/// (how the system's roots are replaced on Linux; a CA installed in the system store
/// works the same way), machine A uploads everything and machine B fetches it all.
fn trusted_through_the_platform_roots(url: &str, certs: &Certs, other: &Certs) {
    let work = tempfile::tempdir().unwrap();
    let input_a = work.path().join("a-checkout");
    copy_dir(&samples(), &input_a);
    let build = |input: &Path, out: &str, ca: &Path| {
        let out = work.path().join(out);
        let args = [
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--remote-cache",
            url,
        ];
        let run = build_json_env(&args, &[("SSL_CERT_FILE", ca)], |_| {});
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        (run, out)
    };

    let (untrusted, out_u) = build(&input_a, "untrusted", &other.ca());
    let n = untrusted.count("built");
    assert!(n > 0);
    assert_eq!(
        (
            untrusted.count("fetched"),
            untrusted.count("uploaded_bytes")
        ),
        (0, 0)
    );
    assert_eq!(
        untrusted.remote_warnings.len(),
        1,
        "{:?}",
        untrusted.remote_warnings
    );
    assert!(
        untrusted.remote_warnings[0].contains("certificate"),
        "the warning names the certificate: {:?}",
        untrusted.remote_warnings
    );

    let (a, out_a) = build(&input_a, "a", &certs.ca());
    assert!(a.remote_warnings.is_empty(), "{:?}", a.remote_warnings);
    assert_eq!((a.count("built"), a.count("fetched")), (n, 0));
    assert!(a.count("uploaded_bytes") > 0);
    let tree_a = output_tree(&out_a);
    assert_eq!(
        output_tree(&out_u),
        tree_a,
        "the untrusted build is complete"
    );

    let input_b = work.path().join("b-checkout");
    copy_dir(&samples(), &input_b);
    let (b, out_b) = build(&input_b, "b", &certs.ca());
    assert!(b.remote_warnings.is_empty(), "{:?}", b.remote_warnings);
    assert_eq!(
        (b.count("built"), b.count("fetched")),
        (0, n),
        "B compiles nothing: {:?}",
        b.statuses
    );
    assert_same_tree(&out_b, &tree_a, "B's tree over TLS");
}

#[test]
fn https_webdav_is_trusted_through_the_platform_roots() {
    let test = "https_webdav_is_trusted_through_the_platform_roots";
    let (Some(certs), Some(other)) = (
        make_certs(test, "assetc test CA"),
        make_certs(test, "another CA"),
    ) else {
        return;
    };
    let Some(server) = start_webdav_with(test, Some(&certs)) else {
        return;
    };
    let url = format!("https://127.0.0.1:{}/tls-cache", server.port);
    trusted_through_the_platform_roots(&url, &certs, &other);
    assert!(
        !tree(&server.data()).is_empty(),
        "the blobs are on the HTTPS server"
    );
}

#[test]
fn rediss_is_trusted_through_the_platform_roots() {
    let test = "rediss_is_trusted_through_the_platform_roots";
    let (Some(certs), Some(other)) = (
        make_certs(test, "assetc test CA"),
        make_certs(test, "another CA"),
    ) else {
        return;
    };
    let Some(server) = start_redis_with(test, Some(&certs)) else {
        return;
    };
    let url = format!("rediss://127.0.0.1:{}/0", server.port);
    trusted_through_the_platform_roots(&url, &certs, &other);
}
