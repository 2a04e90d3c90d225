#!/usr/bin/env bash
# Shows that two builds of assetc write the same bytes: builds one input tree with each
# binary, for every target, and compares the output trees file by file (the cache file
# is left out: it stamps times). For refactors that must not change any output.
#   scripts/compare-outputs.sh OLD_ASSETC NEW_ASSETC [INPUT...]
# INPUT defaults to the glTF corpus (../shared/corpus/gltf) and assets-sample/.
# Exits 1 naming every file that differs or exists in one tree only.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_ASSETC NEW_ASSETC [INPUT...]}
new=${2:?usage: $0 OLD_ASSETC NEW_ASSETC [INPUT...]}
shift 2
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(../shared/corpus/gltf assets-sample)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for input in "${inputs[@]}"; do
  name=$(basename "$input")
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    # Failing assets are part of the comparison (their absence must match): the exit
    # code of a build with broken sources is not.
    "$bin" build "$input" -o "$work/$side/$name" --no-config --no-cache \
      --target hmesh --target bmd1 --target qtmesh --message-format json \
      >"$work/$side-$name.json" 2>&1 || true
  done
  if diff -r -q -x '.assetc-cache*' "$work/old/$name" "$work/new/$name"; then
    count=$(find "$work/new/$name" -type f ! -name '.assetc-cache*' | wc -l)
    echo "$name: $count files identical"
  else
    status=1
  fi
done
exit $status
