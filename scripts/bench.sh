#!/usr/bin/env bash
# Side-by-side geometry benchmark: assetc vs gltfpack on the same inputs.
#   scripts/bench.sh [CORPUS_DIR]     (default ../shared/corpus)
# Prints a Markdown table of wall time and peak memory (GNU time), and assetc's time per
# stage (from --message-format json). Needs gltfpack (../shared/peers/install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus}
cargo build --release --bins -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/big"
target/release/gen-samples --grid 1001 501 "$work/big/big.glb" >/dev/null

# measure LABEL CMD... -> "LABEL | seconds | peak MiB"
measure() {
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { echo "$label failed:"; cat "$work/err"; return 1; }
  read -r secs kib <"$work/time"
  printf '| %s | %.2f | %.0f |\n' "$label" "$secs" "$((kib / 1024))"
}

gltfpack_all() {
  local n=0
  while IFS= read -r f; do
    n=$((n + 1))
    gltfpack -noq "$@" -i "$f" -o "$work/gp/$n.glb" >/dev/null 2>&1 || true
  done < <(find "$corpus/gltf" -name '*.gltf' -o -name '*.glb' | sort)
}
export -f gltfpack_all
export corpus work

echo "### 1,000,000-triangle height field (one primitive)"
echo
echo "| run | wall s | peak MiB |"
echo "|---|---:|---:|"
measure "assetc build -j1 (full pipeline)" target/release/assetc build "$work/big" -o "$work/o1" -j 1 --no-cache --no-config -q
measure "assetc build -j2 (full pipeline)" target/release/assetc build "$work/big" -o "$work/o2" -j 2 --no-cache --no-config -q
measure "gltfpack -noq -si 0.5" gltfpack -noq -si 0.5 -i "$work/big/big.glb" -o "$work/gp-big.glb"
measure "gltfpack -noq" gltfpack -noq -i "$work/big/big.glb" -o "$work/gp-big2.glb"
echo
echo "assetc stage times on it (ms, -j1):"
target/release/assetc build "$work/big" -o "$work/o3" -j 1 --no-cache --no-config --message-format json \
  | python3 -c 'import json,sys
for l in sys.stdin:
    e=json.loads(l)
    if e.get("reason")=="asset-finished" and e.get("stages_ms"):
        print(", ".join(f"{n} {ms:.0f}" for n,ms in e["stages_ms"]))'
echo
if [ -d "$corpus/gltf" ]; then
  echo "### Corpus ($corpus/gltf), geometry and textures"
  echo
  echo "| run | wall s | peak MiB |"
  echo "|---|---:|---:|"
  mkdir -p "$work/gp"
  measure "assetc build -j1" target/release/assetc build "$corpus/gltf" -o "$work/c1" -j 1 --no-cache --no-config -q
  measure "assetc build -j2" target/release/assetc build "$corpus/gltf" -o "$work/c2" -j 2 --no-cache --no-config -q
  measure "assetc build (no-op rebuild)" target/release/assetc build "$corpus/gltf" -o "$work/c2" -j 2 --no-config -q
  measure "gltfpack -noq, file by file" bash -c 'gltfpack_all'
  measure "gltfpack -noq -tc (textures), file by file" bash -c 'gltfpack_all -tc'
fi
