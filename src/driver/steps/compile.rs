//! Compile: every job still to build, largest first, its textures encoded once whoever
//! needs them; then the fetched assets that clash with the rest of the build are built
//! here too.

use super::Build;
use crate::driver::cache::ReadLog;
use crate::driver::events::Event;
use crate::driver::job::{AssetJob, Compiler, JobState};
use crate::driver::remote::RemoteCache;
use crate::driver::texture_store::{TextureResult, TextureStore};
use crate::driver::{remote_steps, schedule};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// What compiling leaves for the writing.
pub(in crate::driver) struct Compiled {
    /// Every texture an asset asked for, by id.
    pub textures: BTreeMap<u64, TextureResult>,
    /// How many of them this build encoded (not fetched, not found on disk).
    pub textures_encoded: usize,
    /// Every input the compiles read, with the bytes read (see [`ReadLog`]).
    pub reads: Arc<ReadLog>,
}

pub(in crate::driver) fn compile(
    build: &Build,
    jobs: &mut [AssetJob],
    remote: Option<&RemoteCache>,
    collisions: &BTreeMap<String, String>,
) -> Compiled {
    let opts = build.opts;
    let (old_cache, trust_cache) = (&build.old_cache, build.trust_cache);
    // Content-addressed: a texture file the cache vouches for is that texture already.
    let vouched = |rel: &str| trust_cache && old_cache.vouched(rel, &opts.output).is_some();
    let textures = TextureStore::new(&opts.output, &vouched, opts.limits);
    let seeded = remote_steps::seed_textures(&textures, jobs);
    // Every input is stamped by the bytes its compile read (see cache::ReadLog).
    let reads = ReadLog::start();
    let stop = AtomicBool::new(false);
    let compiler = Compiler {
        root: &build.root,
        old_cache,
        collisions,
        textures: &textures,
        fail_fast: opts.fail_fast.then_some(&stop),
        reporter: build.reporter,
        limits: &opts.limits,
    };
    // The UASTC encoder's one-time set-up would otherwise run inside the first texture's
    // encode, which for a model comes after its geometry, at the end of the build; a core
    // is spare while the first sources are read.
    if jobs
        .iter()
        .any(|job| job.is_discovered() && job.may_encode_uastc())
    {
        build
            .pool
            .spawn(crate::pipeline::textures::prepare_uastc_encoder);
    }
    // Largest first, so that the longest asset does not start last and run alone.
    let compile_discovered = |jobs: &mut [AssetJob]| {
        build
            .pool
            .install(|| schedule::largest_first(jobs, |job| compiler.compile(job)))
    };
    compile_discovered(jobs);
    if let Some(remote) = remote {
        build_clashing_fetches_here(build, remote, jobs, compile_discovered);
    }
    remote_steps::report_fetched(build.reporter, jobs);
    let textures = textures.into_results();
    let textures_encoded = textures
        .iter()
        .filter(|(id, r)| matches!(r, Ok(Some(_))) && !seeded.contains(id))
        .count();
    Compiled {
        textures,
        textures_encoded,
        reads,
    }
}

/// A fetched asset that passed its own checks may still clash with the rest of the build
/// (an output path or manifest id of another asset, a folder where it would write a
/// file): it is built here instead, and so on until nothing clashes (each round builds at
/// least one more asset here).
fn build_clashing_fetches_here(
    build: &Build,
    remote: &RemoteCache,
    jobs: &mut [AssetJob],
    compile_discovered: impl Fn(&mut [AssetJob]),
) {
    loop {
        let refused = remote_steps::clashes(jobs, &build.opts.output);
        if refused.is_empty() {
            break;
        }
        for (i, why) in refused {
            let job = &mut jobs[i];
            remote.refuse(&job.source, &why, build.reporter);
            job.state = JobState::Discovered;
            // One more asset to build: its fetch already counted as done.
            build.reporter.event(&Event::Progress {
                added: 1,
                done: 0,
                name: job.source.rel_path.clone(),
            });
        }
        compile_discovered(jobs);
    }
}
