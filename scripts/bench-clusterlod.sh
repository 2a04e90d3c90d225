#!/usr/bin/env bash
# The cluster LOD build side by side with meshoptimizer's own clusterlod.h driven from
# C++ (scripts/clusterlod-harness.cpp, compiled here from the sources the `meshopt` crate
# bundles, as its build script compiles them: -O3, asserts off), on the same generated
# field of 1,002,528 triangles with the same configuration and attribute weights.
#
#   scripts/bench-clusterlod.sh          IT=path/to/it-<hash> to skip building the tests
#
# Rows, one process each (so each peak RSS is its own), CPU seconds of the build only:
#   C++ bare   clodBuild + clodBuildHierarchy, a callback that keeps the groups
#              (at clodDefaultConfig's cluster order, level 1, and at the level 0 assetc
#              asks for)
#   C++ stage  also what assetc's stage does per cluster (local indices, culling bounds
#              and cone, the topology kept), at level 0
#   Rust bare  the `meshopt` crate's clod_build with a callback that keeps nothing
#              (levels 1 and 0)
#   Rust stage assetc's build_cluster_lod (tests/it/cluster_lod.rs, cluster_lod_figures)
# The machine may be shared: the load average is printed; compare CPU seconds.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
vendor="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/meshopt-0.7.*/vendor 2>/dev/null | sort | tail -1)"
[ -f "$vendor/demo/clusterlod.h" ] || { echo "meshopt 0.7's vendor/demo/clusterlod.h not found (cargo fetch first)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
c++ -O3 -DNDEBUG -std=c++17 -I"$vendor/src" -I"$vendor/demo" \
  "$root/scripts/clusterlod-harness.cpp" "$vendor"/src/*.cpp -o "$work/harness"

if [ -z "${IT:-}" ]; then
  (cd "$root" && cargo test --release --quiet --test it --no-run)
  IT="$(ls -t "$target_dir"/release/deps/it-* | grep -v '\.d$' | head -1)"
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine may be shared)"
"$work/harness" 708 bare
"$work/harness" 708 bare 0
"$work/harness" 708 stage 0
for level in 1 0; do
  CLOD_FIGURES=bare CLOD_FIGURES_LEVEL=$level "$IT" --ignored --exact cluster_lod::cluster_lod_figures \
    --nocapture 2>&1 | grep '^mode' || true
done
CLOD_FIGURES=stage "$IT" --ignored --exact cluster_lod::cluster_lod_figures --nocapture 2>&1 |
  grep '^mode' || true
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
