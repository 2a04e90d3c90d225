#!/usr/bin/env bash
# Remote cache benchmark: the corpus ($ASSETC_CORPUS/gltf, default ../shared/corpus/gltf)
# built clean on one machine, then on "another machine" (an empty output folder, no local
# cache) from a warm remote cache, through nginx's WebDAV module and redis-server started
# here on 127.0.0.1 (loopback: the figures are the floor a real network adds to).
#   scripts/bench-remote.sh [JOBS]
# Prints a Markdown table: wall time of each build, assets built and fetched, bytes read
# from and written to the remote. Needs nginx (nginx-light) and redis-server.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2}
corpus=${ASSETC_CORPUS:-../shared/corpus}/gltf
[ -d "$corpus" ] || { echo "corpus not found at $corpus (set ASSETC_CORPUS)" >&2; exit 1; }
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] && command -v redis-server >/dev/null || { echo "needs nginx and redis-server" >&2; exit 1; }
cargo build --release --bins -q
bin=target/release/assetc
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.05; done; echo "port $1 never opened" >&2; exit 1; }

dav_port=$(free_port)
mkdir -p "$work/dav/root"
cat > "$work/dav/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
pid $work/dav/nginx.pid;
error_log $work/dav/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/dav/body;
  proxy_temp_path $work/dav/proxy;
  fastcgi_temp_path $work/dav/fastcgi;
  uwsgi_temp_path $work/dav/uwsgi;
  scgi_temp_path $work/dav/scgi;
  server {
    listen 127.0.0.1:$dav_port;
    root $work/dav/root;
    client_max_body_size 0;
    location / { dav_methods PUT DELETE; create_full_put_path on; }
  }
}
CONF
"$nginx" -p "$work/dav" -c "$work/dav/nginx.conf" -e "$work/dav/error.log" & pids+=($!)
redis_port=$(free_port)
mkdir -p "$work/redis"
redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no --dir "$work/redis" >/dev/null & pids+=($!)
wait_port "$dav_port"
wait_port "$redis_port"

# One build: prints "| label | seconds | built | fetched | MB read | MB uploaded |".
run() {
  local label=$1 out=$2 s e
  shift 2
  s=$(date +%s.%N)
  "$bin" build "$corpus" -o "$out" --no-config --message-format json -j "$jobs" "$@" > "$work/last.json"
  e=$(date +%s.%N)
  python3 - "$label" "$(echo "$e - $s" | bc)" "$work/last.json" <<'PY'
import json, sys
label, secs, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
f = [json.loads(l) for l in open(path) if '"build-finished"' in l][-1]
print(f"| {label} | {secs:.2f} | {f['built']} | {f['fetched']} | "
      f"{f['fetched_bytes'] / 1e6:.1f} | {f['uploaded_bytes'] / 1e6:.1f} |")
PY
}

echo "| build of the corpus (-j $jobs) | seconds | built | fetched | MB read | MB uploaded |"
echo "|---|---:|---:|---:|---:|---:|"
run "clean local build, no remote" "$work/local"
dav="http://127.0.0.1:$dav_port/cache"
redis="redis://127.0.0.1:$redis_port/0"
run "machine A, cold WebDAV cache (builds, uploads)" "$work/a-dav" --remote-cache "$dav"
run "machine B, warm WebDAV cache (empty output)" "$work/b-dav" --remote-cache "$dav"
run "machine A, cold Redis cache (builds, uploads)" "$work/a-redis" --remote-cache "$redis"
run "machine B, warm Redis cache (empty output)" "$work/b-redis" --remote-cache "$redis"
run "no-op rebuild on B (local cache, remote unused)" "$work/b-redis" --remote-cache "$redis"
files=$(find "$work/local" -type f ! -name '.assetc-cache.*' | wc -l)
bytes=$(find "$work/local" -type f ! -name '.assetc-cache.*' -printf '%s\n' | awk '{s+=$1} END {print s}')
echo
echo "output tree: $files files, $(echo "scale=1; $bytes / 1000000" | bc) MB"
for d in a-dav b-dav a-redis b-redis; do
  diff -r -x '.assetc-cache.*' "$work/local" "$work/$d" >/dev/null || { echo "$d differs from the local build" >&2; exit 1; }
done
echo "every tree is byte-identical to the clean local build"
