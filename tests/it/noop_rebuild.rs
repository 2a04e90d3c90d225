//! A rebuild with nothing changed: every asset reported fresh, and no file of the output
//! written again, the cache and the manifest included (a rewrite, even of the same
//! bytes, goes through a temporary file and a rename: a new inode).

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Every file below `root`: relative path -> (inode, modification time in ns).
fn identities(root: &Path) -> BTreeMap<String, (u64, i128)> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, (u64, i128)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                walk(&p, root, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                let mtime =
                    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
                out.insert(rel, (meta.ino(), mtime));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn a_no_op_rebuild_writes_nothing_and_reports_every_asset_fresh() {
    let src = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    copy_dir(&samples(), src.path());
    std::fs::remove_dir_all(src.path().join("terrain")).unwrap();
    // A standalone image beside the models: a source of another kind, checked apart.
    std::fs::copy(
        samples().join("box/checker.png"),
        src.path().join("icon.png"),
    )
    .unwrap();
    let build = |extra: &[&str]| -> String {
        let mut args = vec![
            "build",
            src.path().to_str().unwrap(),
            "-o",
            out.path().to_str().unwrap(),
            "--no-config",
            "--message-format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = assetc(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let count = |log: &str, status: &str| log.matches(&format!("\"status\":\"{status}\"")).count();
    // hierarchy, soup, strip, box/box.gltf (checker.png is its input) and icon.png.
    let assets = 5;

    let first = build(&[]);
    assert_eq!(count(&first, "built"), assets, "{first}");
    let written = identities(out.path());
    for name in [
        assetc::output::CACHE_NAME,
        "assets.hman",
        "icon.ktx2",
        "soup.hmesh",
    ] {
        assert!(written.contains_key(name), "{name} missing: {written:?}");
    }

    let second = build(&[]);
    assert_eq!(count(&second, "fresh"), assets, "{second}");
    assert_eq!(
        identities(out.path()),
        written,
        "a no-op rebuild wrote a file"
    );

    // A source saved again with the same bytes stays fresh; the cache records its new
    // time once (so the next build need not hash it), and the build after that writes
    // nothing again.
    let strip = src.path().join("strip.gltf");
    let later =
        std::fs::metadata(&strip).unwrap().modified().unwrap() + std::time::Duration::from_secs(10);
    std::fs::File::options()
        .write(true)
        .open(&strip)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let touched = build(&[]);
    assert_eq!(count(&touched, "fresh"), assets, "{touched}");
    let after_touch = identities(out.path());
    assert_ne!(
        after_touch[assetc::output::CACHE_NAME],
        written[assetc::output::CACHE_NAME],
        "the refreshed input time is recorded"
    );
    let unchanged = |m: &BTreeMap<String, (u64, i128)>| {
        m.iter()
            .filter(|(n, _)| n.as_str() != assetc::output::CACHE_NAME)
            .map(|(n, v)| (n.clone(), *v))
            .collect::<Vec<_>>()
    };
    assert_eq!(unchanged(&after_touch), unchanged(&written));
    let again = build(&[]);
    assert_eq!(count(&again, "fresh"), assets, "{again}");
    assert_eq!(identities(out.path()), after_touch);

    // --no-cache rebuilds everything; its outputs are the same bytes (left in place), yet
    // the cache it leaves must vouch for them: the next build is a no-op again.
    let bytes_before = tree(out.path());
    let rebuilt = build(&["--no-cache"]);
    assert_eq!(count(&rebuilt, "built"), assets, "{rebuilt}");
    let fresh_again = build(&[]);
    assert_eq!(count(&fresh_again, "fresh"), assets, "{fresh_again}");
    let strip_cache = |t: Vec<(String, Vec<u8>)>| {
        t.into_iter()
            .filter(|(n, _)| n != assetc::output::CACHE_NAME)
            .collect::<Vec<_>>()
    };
    assert!(strip_cache(tree(out.path())) == strip_cache(bytes_before));
}

/// A no-op rebuild leaves the manifest alone only while it is the one the last build
/// wrote: removed or changed, it is written again with the same bytes, and a build asking
/// for another manifest version writes that, every asset fresh each time.
#[test]
fn a_no_op_rebuild_restores_a_removed_or_changed_manifest_and_follows_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let out = dir.path().join("out");
    copy_dir(&samples().join("box"), &src);
    let config = dir.path().join("build.toml");
    let build = |config_text: &str| -> String {
        std::fs::write(&config, config_text).unwrap();
        let o = assetc(&[
            "build",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--message-format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let all_fresh = |log: &str| {
        assert!(log.contains("\"status\":\"fresh\""), "{log}");
        assert!(!log.contains("\"status\":\"built\""), "{log}");
    };
    let manifest = out.join("assets.hman");
    let version = || {
        assetc::formats::hman::read(&std::fs::read(&manifest).unwrap())
            .unwrap()
            .version()
    };
    build("");
    let written = std::fs::read(&manifest).unwrap();
    assert_eq!(version(), 2);

    std::fs::remove_file(&manifest).unwrap();
    all_fresh(&build(""));
    assert_eq!(
        std::fs::read(&manifest).unwrap(),
        written,
        "removed: written again"
    );

    std::fs::write(&manifest, b"HMAN but not the one").unwrap();
    all_fresh(&build(""));
    assert_eq!(
        std::fs::read(&manifest).unwrap(),
        written,
        "changed: written again"
    );

    all_fresh(&build("manifest_version = 1\n"));
    assert_eq!(version(), 1);
    all_fresh(&build(""));
    assert_eq!(std::fs::read(&manifest).unwrap(), written);
}
