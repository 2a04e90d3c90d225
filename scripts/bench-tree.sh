#!/usr/bin/env bash
# Build-system benchmark: a generated tree of 1,000 small glTF files.
#   scripts/bench-tree.sh            (ASSETC=path/to/assetc to time another build)
# Times a clean build, a no-op rebuild, one edited file, and a bare walk that stats the
# same files (the floor a no-op rebuild is compared with). Prints a Markdown table, then
# the no-op rebuild and the walk in PAIRS alternating runs (default 20; scripts/alternate.py),
# whose medians are the figures to compare (single runs vary by several ms).
set -euo pipefail
pairs=${PAIRS:-20}
cd "$(dirname "$0")/.."
if [ -z "${ASSETC:-}" ]; then
  cargo build --release --bins -q
  ASSETC=target/release/assetc
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for i in $(seq 0 999); do
  d="$work/src/group$((i / 100))"
  mkdir -p "$d"
  cp assets-sample/hierarchy.gltf "$d/model$i.gltf"
done
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
clean=$(secs "$ASSETC" build "$work/src" -o "$work/out" --no-config -q)
# Best of three, as the file system settles after the clean build's writes.
best() { local b=999 t; for _ in 1 2 3; do t=$(secs "$@"); b=$(echo "if ($t < $b) $t else $b" | bc); done; echo "$b"; }
noop=$(best "$ASSETC" build "$work/src" -o "$work/out" --no-config -q)
floor=$(best find "$work/src" -type f -exec stat -c %s {} +)
echo ' ' >> "$work/src/group3/model321.gltf"
sed -i 's/"Root"/"Root2"/' "$work/src/group3/model321.gltf"
one=$(secs "$ASSETC" build "$work/src" -o "$work/out" --no-config -q)
single=$(secs "$ASSETC" build "$work/src/group3/model321.gltf" -o "$work/single" --no-config -q --no-cache)
pack=$(secs "$ASSETC" pack "$work/out" -o "$work/out.spk" -q)
list=$(secs "$ASSETC" pack list "$work/out.spk")
files=$(find "$work/out" -type f ! -name '.assetc-cache.*' | wc -l)
echo "| run (1,000 glTF files) | seconds |"
echo "|---|---:|"
echo "| clean build | $clean |"
echo "| no-op rebuild | $noop |"
echo "| bare walk + stat of the same files (floor) | $floor |"
echo "| rebuild after editing one file | $one |"
echo "| that file's own compile (alone, no cache) | $single |"
echo "| assetc pack of the output ($files files) | $pack |"
echo "| assetc pack list of that archive | $list |"
echo
echo "No-op rebuild and walk, $pairs alternating runs:"
python3 scripts/alternate.py "$pairs" "$ASSETC" build "$work/src" -o "$work/out" --no-config -q \
  -- find "$work/src" -type f -exec stat -c %s {} +

# The same for a tree of 500 standalone images (the checker of assets-sample/box, 500
# copies): each is its own texture asset, so the no-op rebuild stats 500 sources.
for i in $(seq 0 499); do
  d="$work/img/ui$((i / 50))"
  mkdir -p "$d"
  cp assets-sample/box/checker.png "$d/icon$i.png"
done
iclean=$(secs "$ASSETC" build "$work/img" -o "$work/img-out" --no-config -q)
inoop=$(best "$ASSETC" build "$work/img" -o "$work/img-out" --no-config -q)
ifloor=$(best find "$work/img" -type f -exec stat -c %s {} +)
echo
echo "| run (500 standalone .png) | seconds |"
echo "|---|---:|"
echo "| clean build | $iclean |"
echo "| no-op rebuild | $inoop |"
echo "| bare walk + stat of the same files (floor) | $ifloor |"
echo
echo "No-op rebuild and walk, $pairs alternating runs:"
python3 scripts/alternate.py "$pairs" "$ASSETC" build "$work/img" -o "$work/img-out" --no-config -q \
  -- find "$work/img" -type f -exec stat -c %s {} +
