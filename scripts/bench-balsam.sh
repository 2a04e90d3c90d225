#!/usr/bin/env bash
# Times Qt's Balsam 6.12 against `assetc build --target qtmesh` (release) on the same
# inputs: every corpus glTF, one process per file for both tools (and assetc once more as
# one build of the whole tree), and a generated 1,000,000-triangle glTF. Prints a Markdown
# table.
#
#   scripts/bench-balsam.sh [CORPUS]     (default: ../shared/corpus, or $ASSETC_CORPUS)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${1:-${ASSETC_CORPUS:-$root/../shared/corpus}}"
balsam="${BALSAM:-/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/PySide6/balsam}"
export QT_QPA_PLATFORM=offscreen

[ -x "$balsam" ] || { echo "balsam not found at $balsam" >&2; exit 1; }
[ -d "$corpus/gltf" ] || { echo "corpus not found at $corpus" >&2; exit 1; }

cd "$root"
cargo build --release --quiet --bin assetc --bin gen-samples
target_dir="${CARGO_TARGET_DIR:-$root/target}"
assetc="$target_dir/release/assetc"
gen="$target_dir/release/gen-samples"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/big"
"$gen" --grid 1001 501 "$work/big/big.glb" >/dev/null

# Seconds (3 decimals) that "$@" takes, output discarded. Balsam's exit status means
# nothing (it exits 0 even for files it rejects); assetc must succeed.
seconds() {
    local start end status=0
    start=$(date +%s%N)
    "$@" >"$work/log" 2>&1 || status=$?
    end=$(date +%s%N)
    if [ "$status" -ne 0 ] && [ "$1" != "$balsam" ]; then
        echo "failed: $*" >&2
        cat "$work/log" >&2
        exit 1
    fi
    echo "scale=3; ($end - $start) / 1000000000" | bc | sed 's/^\./0./'
}

# assetc builds an input tree (ASSETC_QTMESH_CMD replaces the command line, e.g. for a
# build without the CLI flag); each file gets a tree of its own, prepared before timing,
# holding its folder's external buffers and images, so both tools see one file per run.
prepare_tree() {
    local file="$1" tree="$2"
    mkdir -p "$tree"
    cp -r "$(dirname "$file")"/. "$tree"/
    find "$tree" -maxdepth 1 \( -name '*.gltf' -o -name '*.glb' \) ! -name "$(basename "$file")" -delete
}
assetc_tree() {
    ${ASSETC_QTMESH_CMD:-"$assetc" build --target qtmesh --no-config} "$1" -o "$2"
}

echo "| input | triangles | Balsam 6.12 (s) | assetc qtmesh (s) | speed-up |"
echo "|---|---:|---:|---:|---:|"
total_b=0
total_a=0
i=0
row() {
    local label="$1" file="$2" tris="$3"
    i=$((i + 1))
    local b a
    prepare_tree "$file" "$work/t$i"
    b=$(seconds "$balsam" -o "$work/b$i" "$file")
    a=$(seconds assetc_tree "$work/t$i" "$work/a$i")
    echo "| $label | $tris | $b | $a | $(echo "scale=1; $b / ($a + 0.0005)" | bc)x |"
    if [ "$label" != "big.glb (generated)" ]; then
        total_b=$(echo "$total_b + $b" | bc)
        total_a=$(echo "$total_a + $a" | bc)
    fi
}

while IFS= read -r f; do
    row "${f#"$corpus/gltf/"}" "$f" "-"
done < <(find "$corpus/gltf" -type f \( -name '*.gltf' -o -name '*.glb' \) | sort)
fix() { sed 's/^\./0./'; }
total_b=$(echo "$total_b" | fix)
total_a=$(echo "$total_a" | fix)
echo "| **corpus total** | | **$total_b** | **$total_a** | **$(echo "scale=1; $total_b / ($total_a + 0.0005)" | bc)x** |"
# The way assetc is run on a tree: one build of the whole corpus (Balsam has no such mode:
# its figure stays the sum of its runs above). Best of three.
tree_best=9
for _ in 1 2 3; do
    rm -rf "$work/tree-out"
    t=$(seconds assetc_tree "$corpus/gltf" "$work/tree-out")
    tree_best=$(echo "if ($t < $tree_best) $t else $tree_best" | bc | fix)
done
echo "| corpus as one \`assetc build\` of the tree | | $total_b | $tree_best | $(echo "scale=1; $total_b / ($tree_best + 0.0005)" | bc)x |"
row "big.glb (generated)" "$work/big/big.glb" "1000000"
echo
echo "Same machine, one process per file for both tools but in the tree row (assetc: release build, default"
echo "settings, which also build levels of detail); pirate.glb is rejected by Balsam."
