#!/usr/bin/env bash
# Side-by-side geometry benchmark: assetc vs gltfpack on the same inputs.
#   scripts/bench.sh [CORPUS_DIR]     (default ../shared/corpus)
# Environment: RUNS=N takes the best wall time of N runs of each command (peak memory and
# CPU time are those of that run; default 1), SKIP_8M=1 leaves out the 8M-triangle fields,
# SKIP_CORPUS=1 the corpus, ASSETC=path measures another assetc binary (an older build),
# BALSAM=path the Balsam of the Qt row.
# Every field comes twice: gentle hills ("flat": little for the simplifier and meshlet
# cones to do) and the curved surface y = 0.05 sin(40x) cos(37z) over the unit square,
# so that neither case is tuned for alone.
# Prints the ratio table (wall time and peak RSS from GNU time, whole process,
# assetc with its default settings and threads against `gltfpack -noq -si 0.5`), assetc's
# time per stage, and the corpus build. Needs gltfpack (../shared/peers/install.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:-../shared/corpus}
runs=${RUNS:-1}
cargo build --release --bins -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gen=target/release/gen-samples
assetc=${ASSETC:-target/release/assetc}
mkdir -p "$work/f1" "$work/f1n" "$work/f8" "$work/c1" "$work/c1n" "$work/c8"
# Flat: 1001 x 501 vertices (1,000,000 triangles), 2001 x 2001 (8,000,000).
$gen --grid 1001 501 "$work/f1/field.glb" --normals --material none >/dev/null
$gen --grid 1001 501 "$work/f1n/field.glb" --normals --material normal-map >/dev/null
[ "${SKIP_8M:-0}" = 1 ] || $gen --grid 2001 2001 "$work/f8/field.glb" --normals --material none >/dev/null
# Curved: 709 x 709 vertices (708 x 708 quads, 1,002,528 triangles), 2001 x 2001.
curved=(--normals --surface curved)
$gen --grid 709 709 "$work/c1/field.glb" "${curved[@]}" --material none >/dev/null
$gen --grid 709 709 "$work/c1n/field.glb" "${curved[@]}" --material normal-map >/dev/null
[ "${SKIP_8M:-0}" = 1 ] || $gen --grid 2001 2001 "$work/c8/field.glb" "${curved[@]}" --material none >/dev/null

# timed CMD... -> "wall_s peak_kib cpu_s" of the fastest of $runs runs
timed() {
  local best=""
  for _ in $(seq "$runs"); do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >"$work/stdout" 2>"$work/err" \
      || { echo "failed: $*" >&2; cat "$work/err" >&2; return 1; }
    read -r secs kib user sys <"$work/time"
    local line
    line="$secs $kib $(echo "$user + $sys" | bc)"
    if [ -z "$best" ] || (( $(echo "$secs < ${best%% *}" | bc) )); then best=$line; fi
  done
  echo "$best"
}

# ratio_row LABEL INPUT_DIR: one table row, assetc against gltfpack -noq -si 0.5
ratio_row() {
  local label=$1 dir=$2
  read -r a_s a_k a_cpu < <(timed $assetc build "$dir" -o "$work/out" --no-cache --no-config -q)
  read -r g_s g_k g_cpu < <(timed gltfpack -noq -si 0.5 -i "$dir/field.glb" -o "$work/gp.glb")
  printf '| %s | %.2f s (CPU %.2f s), %d MiB | %.2f s (CPU %.2f s), %d MiB | %.2fx / %.2fx |\n' \
    "$label" "$a_s" "$a_cpu" $((a_k / 1024)) "$g_s" "$g_cpu" $((g_k / 1024)) \
    "$(echo "$a_s / $g_s" | bc -l)" "$(echo "$a_k / $g_k" | bc -l)"
}

echo "### assetc against gltfpack -noq -si 0.5 (wall, CPU = user + sys, peak RSS; best of $runs)"
echo
echo "| input | assetc build | gltfpack -noq -si 0.5 | ratio time / memory |"
echo "|---|---|---|---|"
ratio_row "1M flat field, no material" "$work/f1"
ratio_row "1M flat field, normal-mapped material" "$work/f1n"
[ "${SKIP_8M:-0}" = 1 ] || ratio_row "8M flat field, no material" "$work/f8"
ratio_row "1M curved field, no material" "$work/c1"
ratio_row "1M curved field, normal-mapped material" "$work/c1n"
[ "${SKIP_8M:-0}" = 1 ] || ratio_row "8M curved field, no material" "$work/c8"
echo

# The Qt target against Qt's own importer, Balsam 6.12 (BALSAM=path; the row is left out
# when it is not installed: ../shared/peers/install.sh), on the 1M flat field.
balsam=${BALSAM:-$(python3 -c 'import PySide6,os;print(os.path.dirname(PySide6.__file__))' 2>/dev/null)/balsam}
if [ -x "$balsam" ]; then
  export QT_QPA_PLATFORM=offscreen
  read -r q_s q_k q_cpu < <(timed $assetc build "$work/f1" -o "$work/out" --target qtmesh --no-cache --no-config -q)
  # Balsam exits 0 even for files it rejects: its output is checked instead.
  read -r b_s b_k b_cpu < <(timed "$balsam" -o "$work/balsam" "$work/f1/field.glb")
  [ -n "$(find "$work/balsam" -name '*.mesh' 2>/dev/null)" ] || { echo "balsam wrote no mesh" >&2; exit 1; }
  echo "| input | assetc build --target qtmesh | Balsam 6.12 | ratio time / memory |"
  echo "|---|---|---|---|"
  printf '| %s | %.2f s (CPU %.2f s), %d MiB | %.2f s (CPU %.2f s), %d MiB | %.2fx / %.2fx |\n' \
    "1M flat field, no material" "$q_s" "$q_cpu" $((q_k / 1024)) "$b_s" "$b_cpu" $((b_k / 1024)) \
    "$(echo "$q_s / $b_s" | bc -l)" "$(echo "$q_k / $b_k" | bc -l)"
  echo
else
  echo "(Balsam 6.12 not found at $balsam: no Qt row)"
  echo
fi
for case in f1 f1n c1 c1n; do
  echo "assetc stage times on $case (ms, summed over threads, -j1):"
  $assetc build "$work/$case" -o "$work/stages" -j 1 --no-cache --no-config --message-format json \
    | python3 -c 'import json,sys
for l in sys.stdin:
    e=json.loads(l)
    if e.get("reason")=="asset-finished" and e.get("stages_us"):
        print(", ".join(f"{n} {us/1000:.0f}" for n,us in e["stages_us"]))'
done
echo

# measure LABEL CMD... -> "| LABEL | wall s | CPU s | peak MiB |"
measure() {
  local label=$1; shift
  read -r s k cpu < <(timed "$@")
  printf '| %s | %.2f | %.2f | %d |\n' "$label" "$s" "$cpu" $((k / 1024))
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

if [ "${SKIP_CORPUS:-0}" != 1 ] && [ -d "$corpus/gltf" ]; then
  echo "### Corpus ($corpus/gltf), geometry and textures"
  echo
  echo "| run | wall s | CPU s | peak MiB |"
  echo "|---|---:|---:|---:|"
  mkdir -p "$work/gp"
  measure "assetc build -j1" $assetc build "$corpus/gltf" -o "$work/corpus1" -j 1 --no-cache --no-config -q
  measure "assetc build -j2" $assetc build "$corpus/gltf" -o "$work/corpus2" -j 2 --no-cache --no-config -q
  measure "assetc build (no-op rebuild)" $assetc build "$corpus/gltf" -o "$work/corpus2" -j 2 --no-config -q
  measure "gltfpack -noq, file by file" bash -c 'gltfpack_all'
  measure "gltfpack -noq -tc (textures), file by file" bash -c 'gltfpack_all -tc'
fi
