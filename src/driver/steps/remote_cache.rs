//! Fetch and upload: the remote cache's two steps (see [`crate::driver::remote_steps`]).

use super::Build;
use crate::driver::cache::Cache;
use crate::driver::job::AssetJob;
use crate::driver::remote::RemoteCache;
use crate::driver::remote_steps::{self, Built};
use crate::driver::texture_store::TextureResult;
use crate::driver::BuildReport;
use std::collections::BTreeMap;

/// Opens the remote cache, when the build uses one, and fetches every job it holds that
/// is to be built (not one in a name collision). `--no-cache` rebuilds everything:
/// nothing is fetched (what is built is still uploaded).
pub(in crate::driver) fn fetch(
    build: &Build,
    jobs: &mut [AssetJob],
    collisions: &BTreeMap<String, String>,
) -> Option<RemoteCache> {
    let opts = build.opts;
    let remote = opts.remote_cache.as_ref().and_then(|url| {
        RemoteCache::open(
            url,
            opts.remote_mode,
            opts.remote_max_blob_bytes,
            build.reporter,
        )
    });
    remote_steps::key_sources(&build.pool, remote.as_ref(), jobs, collisions);
    remote_steps::fetch_all(
        opts.use_cache,
        &build.pool,
        remote.as_ref(),
        jobs,
        &build.root,
        build.reporter,
    );
    remote
}

/// Publishes what was built here, and counts the bytes moved both ways in `report`.
pub(in crate::driver) fn upload(
    build: &Build,
    remote: Option<&RemoteCache>,
    jobs: &[AssetJob],
    textures: &BTreeMap<u64, TextureResult>,
    new_cache: &Cache,
    report: &mut BuildReport,
) {
    let Some(remote) = remote else {
        return;
    };
    let built = Built {
        jobs,
        textures,
        cache: new_cache,
        root: &build.root,
        output: &build.opts.output,
    };
    remote_steps::upload_built(&build.pool, remote, &built, build.reporter);
    report.fetched_bytes = remote.fetched_bytes();
    report.uploaded_bytes = remote.uploaded_bytes();
}
