#!/usr/bin/env bash
# Shaders: assetc (naga) against glslangValidator on the real GLSL of tests/it/shader_kind.rs,
# and assetc alone on its real WGSL (glslang reads no WGSL).
#   scripts/bench-shaders.sh            (release build)
#   ASSETC=target/debug/assetc scripts/bench-shaders.sh
# Needs glslang-tools, the crates of tests/shader_crates in cargo's registry and piglit's
# GLSL (ASSETC_PIGLIT_DIR, as .ci/run unpacks it). glslangValidator runs once per file, as
# a build system runs it; assetc compiles the whole folder in one process with -j 1. Best
# of three wall times; prints which sources each accepts and a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ASSETC:-}" ]; then
  cargo build --release --bins -q
  ASSETC=target/release/assetc
fi
cargo fetch -q --locked --manifest-path tests/shader_crates/Cargo.toml \
  --target "$(rustc -vV | sed -n 's/^host: //p')"
reg=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ | head -1)
piglit=${ASSETC_PIGLIT_DIR:-/opt/assetc-data/piglit/usr/lib/x86_64-linux-gnu/piglit/tests/spec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/glsl" "$work/wgsl"
# GLSL: each file under its own ref (`x.vert` beside `x.frag` would both be `x/main.spv`).
glsl() { local b; b=$(basename "$2"); cp "$1/$2" "$work/glsl/$3_${b/./_}.${b##*.}"; }
for f in shader.vert shader.frag; do
  glsl "$reg/imgui-rs-vulkan-renderer-1.16.0/src/shaders" $f imgui
  glsl "$reg/egui-ash-renderer-0.13.0/src/shaders" $f eguiash
done
for f in clear.vert clear.frag srgb_present.vert srgb_present.frag; do
  glsl "$reg/wgpu-hal-30.0.2/src/gles/shaders" $f gles
done
for f in vk_zquad.vert vk_zquad.frag vk_bands.vert vk_bands.frag vk_blue.vert vk_blue.frag; do
  glsl "$piglit/ext_external_objects" $f piglit
done
glsl "$piglit/glsl-4.40/compiler" inout-parameter-qualifier.frag piglit
for f in new_functions.comp fail_quads_x.comp fail_linear_size.comp; do
  glsl "$piglit/nv_compute_shader_derivatives/compiler" $f piglit
done
cp "$reg/wgpu-30.0.2/src/util/blit.wgsl" "$work/wgsl/blit.wgsl"
cp "$reg/wgpu-hal-30.0.2/examples/halmark/shader.wgsl" "$work/wgsl/halmark.wgsl"
cp "$reg/wgpu-hal-30.0.2/examples/ray-traced-triangle/shader.wgsl" "$work/wgsl/ray_traced_triangle.wgsl"
cp "$reg/glyphon-0.12.0/src/shader.wgsl" "$work/wgsl/glyphon.wgsl"
cp "$reg/egui-wgpu-0.37.0/src/egui.wgsl" "$reg/egui-wgpu-0.37.0/src/texture_copy.wgsl" "$work/wgsl/"
tsn="$reg/wgpu-core-30.0.2/src/timestamp_normalization"
{ cat "$tsn/common.wgsl"; echo; cat "$tsn/timestamp_normalization.wgsl"; } > "$work/wgsl/timestamp_normalization.wgsl"

stage() { case "${1##*.}" in vert) echo vert ;; frag) echo frag ;; *) echo comp ;; esac; }
glslang_all() {
  for f in "$@"; do
    glslangValidator -V --target-env vulkan1.1 -S "$(stage "$f")" -o "$work/g.spv" "$f" >/dev/null 2>&1 || true
  done
}
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); echo "$e - $s" | bc; }
best() { local b=999 t; for _ in 1 2 3; do t=$(secs "$@"); b=$(echo "if ($t < $b) $t else $b" | bc); done; echo "$b"; }
build() { rm -rf "$work/out-$1"; "$ASSETC" build "$work/$1" -o "$work/out-$1" -j 1 --no-config -q; }

echo "which GLSL sources each compiler accepts (Vulkan 1.1):"
naga_ok=()
gl_ok=0
build glsl 2>/dev/null || true
for f in "$work"/glsl/*; do
  name=$(basename "$f")
  ref=${name%.*}
  n=no; [ -f "$work/out-glsl/$ref/main.spv" ] && n=yes && naga_ok+=("$f")
  g=no; glslangValidator -V --target-env vulkan1.1 -S "$(stage "$f")" -o "$work/g.spv" "$f" >/dev/null 2>&1 && g=yes && gl_ok=$((gl_ok + 1))
  echo "  $name: naga $n, glslang $g"
done
glsl_files=("$work"/glsl/*)
t_gl=$(best glslang_all "${glsl_files[@]}")
t_gl_both=$(best glslang_all "${naga_ok[@]}")
t_naga=$(best build glsl)
mkdir -p "$work/both"
cp "${naga_ok[@]}" "$work/both/"
t_naga_both=$(best build both)
t_wgsl=$(best build wgsl)
wgsl_spv=$(find "$work/out-wgsl" -name '*.spv' | wc -l)
echo
echo "| sources | glslangValidator (one process per file) | assetc build -j 1 (one process) |"
echo "|---|---:|---:|"
echo "| all ${#glsl_files[@]} GLSL (glslang accepts $gl_ok, naga ${#naga_ok[@]}) | $t_gl s | $t_naga s |"
echo "| the ${#naga_ok[@]} GLSL both accept | $t_gl_both s | $t_naga_both s |"
echo "| 7 WGSL ($wgsl_spv entry points) | (no WGSL) | $t_wgsl s |"
